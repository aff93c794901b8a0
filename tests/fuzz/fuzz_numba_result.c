/*
 * Fuzz target (libFuzzer): the Numba front end's result as the grader reads
 * it (grader/numba_front.c). It comes from a process that ran the
 * student's module, so any bytes must become a verdict without a crash, a
 * leak or a read past the end, and a verdict to go on only with a PTX and
 * an entry for every kernel of the exercise (the transpose, with its 2-D
 * Numba form; its definition is built in so the target reads no file).
 */
#include "fuzz_input.h"
#include "grader/numba_front.h"

#include <stdlib.h>
#include <string.h>

static const char definition[] =
    "{\"id\": \"t\", \"title\": \"t\", \"course\": \"c\", \"assessment\": false,"
    " \"sizes\": [\"rows\", \"cols\"], \"correctness\": [{\"rows\": 3, \"cols\": 5}],"
    " \"assessed\": {\"rows\": 6, \"cols\": 10},"
    " \"buffers\": [{\"name\": \"in\", \"type\": \"f32\", \"length\": \"rows * cols\","
    "   \"input\": {\"distribution\": \"uniform\", \"a\": -1, \"b\": 1}},"
    "  {\"name\": \"out\", \"type\": \"f32\", \"length\": \"rows * cols\","
    "   \"output\": {\"initial\": \"poison\", \"check\": \"exact\"}}],"
    " \"scalars\": [{\"name\": \"r\", \"type\": \"i32\", \"value\": \"rows\"}],"
    " \"kernels\": [{\"name\": \"transpose\", \"params\": [\"in\", \"out\", \"r\"],"
    "   \"signature\": \"s\", \"numba\": {\"name\": \"tile_transpose\", \"params\":"
    "   [{\"name\": \"in\", \"as\": \"a\", \"shape\": [\"rows\", \"cols\"]},"
    "    {\"name\": \"out\", \"as\": \"transposed\", \"shape\": [\"cols\", \"rows\"]}]}}],"
    " \"launches\": [{\"kernel\": \"transpose\", \"grid\": [1], \"block\": [32]}],"
    " \"speed\": {\"max_ratio\": 1.25}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct grading g; /* large: not on the stack */
    static bool loaded;
    char error[512];
    if (!loaded &&
        !exercise_parse(definition, strlen(definition), "t.json", &g.exercise, error, sizeof error))
        abort();
    loaded = true;
    struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA};
    request.numba = json_loadb((const char *)data, size, 0, NULL);
    g.request = &request;
    char message[GRADER_MESSAGE_MAX] = "";
    enum grader_verdict v = numba_student_side(&g, message, sizeof message);
    if (message[0] == '\0' && v != GRADER_VERDICT_PASSED)
        abort();
    if (v == GRADER_VERDICT_PASSED &&
        (!g.numba[1].ptx[0] || !g.compiled[1].lowered_names || !g.compiled[1].lowered_names[0] ||
         g.compiled[1].status != GRADER_COMPILE_OK || g.numba[1].vectorized[0]))
        abort();
    grader_compile_result_free(&g.compiled[1]);
    numba_side_free(&g.numba[1]);
    json_decref((json_t *)request.numba);
    return 0;
}
