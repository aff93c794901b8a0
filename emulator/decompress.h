/*
 * Internal to emulator/: the two decompressors a fatbinary needs.
 *
 * nvcc compresses the PTX it puts in a fatbinary: with Zstandard by default
 * (--compress-mode default, size or balance), with LZ4 for
 * --compress-mode=speed (and in older toolkits). Both decode into a buffer
 * of the size the fatbinary says the text has, and never read or write
 * outside the buffers they are given, whatever the input: a damaged image
 * is refused, never a crash.
 */
#ifndef KGRADE_EMULATOR_DECOMPRESS_H
#define KGRADE_EMULATOR_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* One LZ4 block (no frame) of `src_size` bytes into `dst`: the bytes
 * written, or -1 when it is not a valid block or needs more than `dst_size`. */
long emu_lz4_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size);

/* The Zstandard frames (RFC 8878) of `src` into `dst`: the bytes written,
 * or -1 when they are not valid frames, use a dictionary, or need more
 * than `dst_size`. Checksums are not verified. */
long emu_zstd_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size);

#endif
