/*
 * Shared by the fuzz targets: the input copied into a buffer of exactly its
 * size, so that AddressSanitizer catches any read past the end (libFuzzer's
 * own buffer may be larger).
 */
#ifndef KGRADE_TESTS_FUZZ_INPUT_H
#define KGRADE_TESTS_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* NULL when out of memory; the caller frees it. */
static inline char *fuzz_exact_copy(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    if (copy)
        memcpy(copy, data, size);
    return copy;
}

#endif
