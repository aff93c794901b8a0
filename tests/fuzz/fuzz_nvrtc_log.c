/*
 * Fuzz target (libFuzzer): the NVRTC log parser. Any bytes must parse
 * without a crash, a leak or a read past the given length, and every
 * diagnostic must be well formed.
 */
#include "fuzz_input.h"
#include "grader/compile_output.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *log = fuzz_exact_copy(data, size);
    if (!log)
        return 0;
    struct grader_diagnostic *d;
    size_t n;
    if (grader_parse_log(log, size, "kernel.cu", &d, &n) == 0) {
        if (n > GRADER_DIAGNOSTICS_MAX)
            abort();
        for (size_t i = 0; i < n; i++) {
            if (!d[i].message || d[i].line < 0 || d[i].column < 0 ||
                (d[i].line == 0 && d[i].column != 0))
                abort();
        }
        grader_diagnostics_free(d, n);
    }
    free(log);
    return 0;
}
