/*
 * Fuzz target (libFuzzer): the compaction of a stored result
 * (server/result_compact.c). The grade JSON it cuts comes from a sandboxed
 * job, so any JSON object must come out as JSON within the cap (here
 * RESULT_CAP_MIN, the smallest it promises), without a crash or a leak.
 */
#include "fuzz_input.h"
#include "server/result_compact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *result = json_loadb((const char *)data, size, 0, NULL);
    if (!json_is_object(result)) {
        json_decref(result);
        return 0;
    }
    char *text = result_compact_text(result, RESULT_CAP_MIN);
    if (!text || strlen(text) > RESULT_CAP_MIN)
        abort();
    json_t *back = json_loads(text, 0, NULL);
    if (!json_is_object(back))
        abort();
    json_decref(back);
    free(text);
    json_decref(result);
    return 0;
}
