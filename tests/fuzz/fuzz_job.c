/*
 * Fuzz target (libFuzzer): the worker's input (server/job_protocol.c), a
 * JSON header line, the definition's bytes and the source's. Any input
 * must decode or be refused with a sentence, without a crash, undefined
 * behaviour or a read past its end; a decoded request must point inside
 * the input, and encoding it again must give back the same bytes' meaning
 * (a Numba grade's language and front-end result included).
 */
#include "fuzz_input.h"
#include "server/job_protocol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_roundtrip(enum job_kind kind, const struct grader_request *r)
{
    size_t size;
    char *again = job_encode(kind, r, &size);
    if (!again)
        return; /* out of memory */
    struct grader_request back;
    enum job_kind kind_back;
    json_t *holder = NULL;
    char error[256];
    if (!job_decode(again, size, &kind_back, &back, &holder, error, sizeof error))
        abort();
    if (kind_back != kind || back.size != r->size || memcmp(back.source, r->source, r->size) != 0 ||
        back.definition_size != r->definition_size ||
        memcmp(back.definition, r->definition, r->definition_size) != 0 || back.seed != r->seed ||
        back.n != r->n || back.device != r->device || back.timing != r->timing ||
        back.language != r->language || (back.numba == NULL) != (r->numba == NULL) ||
        (r->numba && !json_equal((json_t *)back.numba, (json_t *)r->numba)) ||
        strcmp(back.exercise, r->exercise) != 0 ||
        (kind == JOB_GRADE && (strcmp(back.version, r->version) != 0 ||
                               !json_equal((json_t *)back.reference, (json_t *)r->reference))))
        abort();
    json_decref(holder);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *input = fuzz_exact_copy(data, size);
    if (!input)
        return 0;
    struct grader_request r;
    enum job_kind kind;
    json_t *holder = NULL;
    char error[256] = "";
    if (job_decode(input, size, &kind, &r, &holder, error, sizeof error)) {
        if (r.definition < input || r.definition + r.definition_size != r.source ||
            r.source + r.size != input + size)
            abort();
        check_roundtrip(kind, &r);
    } else if (error[0] == '\0') {
        abort();
    }
    json_decref(holder);
    free(input);
    return 0;
}
