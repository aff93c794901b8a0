/*
 * Fuzz target (libFuzzer): the source check and the UTF-8 repair. A source
 * the check accepts must need no repair; every repaired text must pass the
 * check's UTF-8 rule.
 */
#include "fuzz_input.h"
#include "grader/grader.h"
#include "grader/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    char why[GRADER_MESSAGE_MAX];
    bool accepted = grader_source_check(text, size, why);
    char *repaired = utf8_sanitize(text, size);
    if (repaired) {
        size_t len = strlen(repaired);
        if (accepted && (len != size || memcmp(repaired, text, size) != 0))
            abort(); /* valid UTF-8 without NUL must come back unchanged */
        for (size_t i = 0; i < len;) {
            size_t step = utf8_sequence_length((const unsigned char *)repaired + i, len - i);
            if (step == 0)
                abort();
            i += step;
        }
        free(repaired);
    }
    free(text);
    return 0;
}
