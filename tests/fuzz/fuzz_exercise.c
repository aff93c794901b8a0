/*
 * Fuzz target (libFuzzer): the exercise.json loader. Any text must be
 * accepted or refused with a message naming the file; never a crash, a leak
 * or a read past the end.
 */
#include "fuzz_input.h"
#include "grader/exercise.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    static struct exercise e; /* large: not on the stack */
    char error[512] = "";
    if (!exercise_parse(text, size, "fuzz.json", &e, error, sizeof error) &&
        strncmp(error, "fuzz.json: ", 11) != 0)
        abort();
    free(text);
    return 0;
}
