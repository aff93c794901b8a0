/*
 * Fuzz target (libFuzzer): the virtual GPU's fatbinary reader and its two
 * decompressors (emulator/fatbin.c, zstd.c, lz4.c). Any bytes must unpack
 * or be refused; never crash, hang, leak or write past the output buffer.
 *
 * A fatbinary's header gives its own length, which the reader trusts as a
 * driver does, so the input is given to it only when that length fits.
 */
#include "emulator/decompress.h"
#include "emulator/emu.h"
#include "fuzz_input.h"

#include <stdlib.h>
#include <string.h>

#define FUZZ_OUTPUT_BYTES 65536
#define FATBIN_HEADER     16

static void fuzz_fatbin(const uint8_t *data, size_t size)
{
    if (size < FATBIN_HEADER || !emu_fatbin_is(data) || data[0] != 0x50)
        return; /* the wrapper holds a pointer: not for fuzzing */
    uint64_t header = (uint64_t)data[6] | (uint64_t)data[7] << 8, entries = 0;
    for (int i = 15; i >= 8; i--)
        entries = entries << 8 | data[i];
    if (header > size || entries > size - header)
        return;
    char *ptx = NULL, log[256];
    if (emu_fatbin_ptx(data, 90, &ptx, log, sizeof log) == CUDA_SUCCESS && strlen(ptx) == SIZE_MAX)
        abort();
    free(ptx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* so that reading past the end is caught */
    uint8_t *out = malloc(FUZZ_OUTPUT_BYTES);
    if (copy && out) {
        memcpy(copy, data, size);
        if (emu_zstd_decompress(copy, size, out, FUZZ_OUTPUT_BYTES) > FUZZ_OUTPUT_BYTES ||
            emu_lz4_decompress(copy, size, out, FUZZ_OUTPUT_BYTES) > FUZZ_OUTPUT_BYTES)
            abort();
        fuzz_fatbin(copy, size);
    }
    free(copy);
    free(out);
    return 0;
}
