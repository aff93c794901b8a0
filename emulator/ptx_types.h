/*
 * Internal to emulator/: the PTX fundamental types, shared by the decoder,
 * the interpreter and the arithmetic (arith.h).
 *
 * A register holds its value in the low bits of a 64-bit slot: an f32 is its
 * IEEE bit pattern in the low 32 bits, an s16 its two's complement in the low
 * 16 bits. The bits above the type's width are not meaningful on input and
 * are written as zero (or as the sign, for signed types) on output.
 */
#ifndef KGRADE_EMULATOR_PTX_TYPES_H
#define KGRADE_EMULATOR_PTX_TYPES_H

#include <stdbool.h>
#include <stdint.h>

enum ptx_type {
    PTX_TYPE_NONE,
    PTX_B8, /* untyped bits */
    PTX_B16,
    PTX_B32,
    PTX_B64,
    PTX_B128,
    PTX_U8, /* unsigned integers */
    PTX_U16,
    PTX_U32,
    PTX_U64,
    PTX_S8, /* signed integers */
    PTX_S16,
    PTX_S32,
    PTX_S64,
    PTX_F16, /* IEEE binary16 */
    PTX_F16X2,
    PTX_BF16,
    PTX_BF16X2,
    PTX_F32,
    PTX_F64,
    PTX_PRED,
    PTX_TF32, /* TensorFloat-32, held as an f32 whose low 13 bits are zero (cvt, wmma) */
    PTX_U4,   /* sub-byte integers and single bits: wmma's packed operands only */
    PTX_S4,
    PTX_B1,
    PTX_TYPE_COUNT
};

/* Width in bytes (0 for none and the sub-byte types, 1 for pred). */
static inline unsigned ptx_type_bytes(enum ptx_type t)
{
    switch (t) {
    case PTX_B8:
    case PTX_U8:
    case PTX_S8:
    case PTX_PRED:
        return 1;
    case PTX_B16:
    case PTX_U16:
    case PTX_S16:
    case PTX_F16:
    case PTX_BF16:
        return 2;
    case PTX_B32:
    case PTX_U32:
    case PTX_S32:
    case PTX_F32:
    case PTX_F16X2:
    case PTX_BF16X2:
    case PTX_TF32:
        return 4;
    case PTX_B64:
    case PTX_U64:
    case PTX_S64:
    case PTX_F64:
        return 8;
    case PTX_B128:
        return 16;
    default:
        return 0;
    }
}

static inline bool ptx_type_is_signed(enum ptx_type t)
{
    return t == PTX_S8 || t == PTX_S16 || t == PTX_S32 || t == PTX_S64;
}

static inline bool ptx_type_is_float(enum ptx_type t)
{
    return t == PTX_F16 || t == PTX_F16X2 || t == PTX_BF16 || t == PTX_BF16X2 || t == PTX_F32 ||
           t == PTX_F64 || t == PTX_TF32;
}

/* The 16-bit float types and their packed pairs. */
static inline bool ptx_type_is_half(enum ptx_type t)
{
    return t == PTX_F16 || t == PTX_F16X2 || t == PTX_BF16 || t == PTX_BF16X2;
}

static inline bool ptx_type_is_pair(enum ptx_type t)
{
    return t == PTX_F16X2 || t == PTX_BF16X2;
}

/* The `bytes`-byte little-endian value at p (1, 2, 4 or 8 bytes), extended
 * to 64 bits by `sgn`: how a load puts a value in a register. */
static inline uint64_t ptx_load_value(const void *p, unsigned bytes, bool sgn)
{
    switch (bytes) {
    case 1:
        return sgn ? (uint64_t)(int64_t) * (const int8_t *)p : *(const uint8_t *)p;
    case 2: {
        uint16_t v;
        __builtin_memcpy(&v, p, 2);
        return sgn ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        __builtin_memcpy(&v, p, 4);
        return sgn ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        __builtin_memcpy(&v, p, 8);
        return v;
    }
    }
}

#endif