/*
 * Fuzz target (libFuzzer): the Numba front end's result line through the
 * whole grade path (grader/numba_result.c, grader/numba_front.c, the grade
 * JSON). The line comes from a process that ran the student's module,
 * which may have written it itself, so any bytes must become a verdict
 * without a crash, a leak or a read past the end:
 * - the service's answer (grader_numba_answer): once the front end has
 *   started the module, never kgrade's failure (internal_error), always a
 *   status kgrade's front end writes; before it started, kgrade's failure
 *   with a sentence;
 * - the grade job's student side, from that answer and from the raw line
 *   (the job reads what it is handed as hostile too): never
 *   internal_error, and a verdict to go on only with a PTX and an entry
 *   for every kernel of the exercise;
 * - that PTX loaded by the virtual GPU (build/emulator/libcuda.so.1, when
 *   built) and its kernels' parameters checked against numba's ABI, as
 *   the grade job does before anything runs: never internal_error;
 * - the grade JSON of that verdict, which must be written.
 * A leading '!' means the line came before the front end said "started".
 * The exercise is the transpose, with its 2-D Numba form, built in so the
 * target reads no file.
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

static struct grading g; /* large: not in a frame */

#define VIRTUAL_GPU "build/emulator/libcuda.so.1"

/* The virtual GPU and a context, once; false when it is not built. */
static bool open_virtual_gpu(void)
{
    static int opened; /* 0: not tried, 1: open, -1: not built */
    char error[512];
    CUdevice device;
    if (opened == 0)
        opened = cuda_api_load(&g.api, CUDA_DEVICE_EMULATOR, VIRTUAL_GPU, error, sizeof error) &&
                         g.api.cuDeviceGet(&device, 0) == CUDA_SUCCESS &&
                         g.api.cuCtxCreate(&g.context, NULL, 0, device) == CUDA_SUCCESS
                     ? 1
                     : -1;
    return opened > 0;
}

/* The student's PTX loaded and its parameters checked, then unloaded. */
static enum grader_verdict load_student(char *message, size_t size)
{
    if (!open_virtual_gpu())
        return GRADER_VERDICT_PASSED;
    enum grader_verdict v = grade_load_student(&g, message, size);
    for (int k = 0; k < EXERCISE_KERNELS_MAX; k++)
        if (g.numba[1].modules[k])
            g.api.cuModuleUnload(g.numba[1].modules[k]);
    return v;
}

/* What grader_numba_request asks the front end, for the built-in exercise. */
static json_t *asked_of_exercise(void)
{
    struct grader_request request = {
        .language = GRADER_LANGUAGE_NUMBA,
        .definition = definition,
        .definition_size = sizeof definition - 1,
        .source = "",
    };
    json_t *reference = json_pack("{s:s}", "arch", "sm_90");
    char error[512];
    json_t *asked =
        grader_numba_request(&request, reference, "/usr/local/cuda", error, sizeof error);
    json_decref(reference);
    if (!asked)
        abort();
    return asked;
}

/* The grade job's student side of `result`, and its grade JSON. */
static void grade_job(const json_t *result)
{
    struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA, .numba = result};
    g.request = &request;
    g.diagnostics = json_array();
    char message[GRADER_MESSAGE_MAX] = "";
    enum grader_verdict v = numba_student_side(&g, message, sizeof message);
    if (v == GRADER_VERDICT_INTERNAL_ERROR || (message[0] == '\0' && v != GRADER_VERDICT_PASSED))
        abort();
    if (v == GRADER_VERDICT_PASSED &&
        (!g.numba[1].ptx[0] || !g.compiled[1].lowered_names || !g.compiled[1].lowered_names[0] ||
         g.compiled[1].status != GRADER_COMPILE_OK || g.numba[1].vectorized[0]))
        abort();
    if (v == GRADER_VERDICT_PASSED)
        v = load_student(message, sizeof message);
    if (v == GRADER_VERDICT_INTERNAL_ERROR)
        abort();
    json_t *grade = grade_json(&g, v, message, json_array(), v == GRADER_VERDICT_PASSED);
    char *text = grade ? json_dumps(grade, JSON_COMPACT) : NULL;
    if (!text)
        abort();
    free(text);
    json_decref(grade);
    json_decref(g.diagnostics);
    grader_compile_result_free(&g.compiled[1]);
    numba_side_free(&g.numba[1]);
}

/* The service's answer must be one kgrade's front end writes. */
static void check_answer(const json_t *answer, bool started, const char *error)
{
    const char *status = json_string_value(json_object_get(answer, "status"));
    if (!started && (answer || !error[0]))
        abort();
    if (started && (!status || (strcmp(status, "ok") != 0 && strcmp(status, "rejected") != 0 &&
                                strcmp(status, "compile_error") != 0)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *asked;
    static bool loaded;
    char error[512] = "";
    if (!loaded &&
        !exercise_parse(definition, strlen(definition), "t.json", &g.exercise, error, sizeof error))
        abort();
    loaded = true;
    asked = asked ? asked : asked_of_exercise();
    bool started = !(size > 0 && data[0] == '!');
    size_t skip = started ? 0 : 1;
    json_t *said = json_loadb((const char *)data + skip, size - skip, 0, NULL);
    json_t *answer = grader_numba_answer(asked, said, started, error, sizeof error);
    check_answer(answer, started, error);
    if (answer)
        grade_job(answer);
    grade_job(said);
    json_decref(answer);
    json_decref(said);
    return 0;
}
