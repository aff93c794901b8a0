/*
 * Fuzz target (libFuzzer): the PTX entry lister, the static data reader
 * and the ptxas register reader. The input is used as PTX and as a log; the kernel name asked for
 * is taken from its first line.
 */
#include "fuzz_input.h"
#include "grader/compile_output.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    char **names;
    size_t n;
    if (grader_ptx_entries(text, size, &names, &n) == 0) {
        for (size_t i = 0; i < n; i++)
            if (!names[i] || names[i][0] == '\0')
                abort();
        grader_names_free(names, n);
    }
    struct ptx_static_data found;
    grader_ptx_static_data(text, size, &found);
    if (found.largest_bytes > found.total_bytes || strlen(found.largest) >= sizeof found.largest)
        abort();
    const char *nl = memchr(text, '\n', size);
    size_t name_len = nl ? (size_t)(nl - text) : size;
    char *name = strndup(text, name_len < 64 ? name_len : 64);
    if (name && grader_ptxas_registers(text, size, name) < -1)
        abort();
    free(name);
    free(text);
    return 0;
}
