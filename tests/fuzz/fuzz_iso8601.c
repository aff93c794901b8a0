/*
 * Fuzz target (libFuzzer): the ISO 8601 reader (grader/iso8601.c). Any
 * text is read or refused with a sentence; never a crash or a read past
 * the end; a time read is written back and read again to the same instant.
 */
#include "fuzz_input.h"
#include "grader/iso8601.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    int64_t ms = 0, again = 0;
    char why[200] = "", written[ISO8601_TEXT_MAX];
    if (iso8601_parse(text, &ms, why, sizeof why)) {
        iso8601_format(ms, written);
        if (!iso8601_parse(written, &again, why, sizeof why) || again != ms)
            abort();
    } else if (why[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
