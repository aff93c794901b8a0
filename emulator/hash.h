/*
 * Internal to emulator/: the hash of kgemu_hash (kgemu.h), with a state that
 * takes the bytes in pieces, so that a copy made in chunks through the
 * remote driver's window hashes as the one run of bytes it is.
 *
 * It is XXH64 (seed 0): 32-byte stripes in four lanes of 8-byte words, a
 * tail of words, a half word and bytes, and a final avalanche. Every word
 * is loaded with memcpy, so the value depends on the bytes alone, never on
 * their alignment, and the four independent lanes keep a core's
 * multipliers busy (several GB/s).
 */
#ifndef KGRADE_EMULATOR_HASH_H
#define KGRADE_EMULATOR_HASH_H

#include <stddef.h>
#include <stdint.h>

#define EMU_HASH_LANES  4
#define EMU_HASH_STRIPE 32 /* bytes: one 8-byte word per lane */

struct emu_hash {
    uint64_t lane[EMU_HASH_LANES];
    uint64_t total;                         /* bytes added so far */
    unsigned char pending[EMU_HASH_STRIPE]; /* the start of a stripe not yet whole */
    size_t pending_bytes;
};

void emu_hash_start(struct emu_hash *hash);
void emu_hash_add(struct emu_hash *hash, const void *bytes, size_t size);
/* The hash of all the bytes added; the state is left as it was. */
uint64_t emu_hash_end(const struct emu_hash *hash);

#endif
