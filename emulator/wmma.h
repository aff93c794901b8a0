/*
 * Internal to emulator/: the fragments of nvcuda::wmma, the warp-wide
 * matrix operations (PTX's wmma.load, wmma.store and wmma.mma; the loader
 * checks them in ptx_wmma.c, the interpreter runs them in wmma.c).
 *
 * A fragment is a matrix spread over the registers of a warp's 32 lanes:
 * A (M×K), B (K×N), or the accumulator C or D (M×N). How a GPU spreads it is
 * its own (a program cannot rely on it), so the virtual GPU chooses: element
 * e of lane l is element (l·E + e) mod (rows·cols) of the matrix in
 * row-major order, E being the elements a lane holds, and element e lies in
 * register e / P at bit (e mod P)·width, P elements to a register (the
 * first in the low bits). Where 32·E exceeds the matrix (an f16 A or B
 * fragment holds 16 elements a lane) lanes hold copies. A lane's elements
 * thus have fixed places whatever the memory layout (.row, .col) and stride,
 * so load → mma → store computes the product, and a program that changes a
 * fragment element by element (x[i] over num_elements: scaling an
 * accumulator, rounding to tf32) changes every copy alike.
 */
#ifndef KGRADE_EMULATOR_WMMA_H
#define KGRADE_EMULATOR_WMMA_H

#include <stdbool.h>
#include <stdint.h>

#include "ptx.h"

#define WMMA_LANES             32
#define WMMA_MAX_ELEMENTS      1024 /* of A or B: .m8n8k128 .b1 */
#define WMMA_MAX_ACCUMULATOR   256  /* of C or D: 16×16, 32×8, 8×32 */
#define WMMA_MAX_LANE_ELEMENTS 32   /* of a lane: A or B of .b1 */
#define WMMA_F16_AB_ELEMENTS   16   /* an f16 A or B fragment's elements a lane */

/* Where a fragment's elements are. */
struct wmma_fragment {
    uint16_t rows, cols; /* of the matrix */
    uint16_t elements;   /* a lane holds */
    uint8_t bits;        /* of an element */
    uint8_t per_register;
    uint8_t registers;     /* a lane's: the operand's vector */
    uint8_t register_bits; /* 32, or 64 for .f64 */
};

/* The fragment of `matrix` (PTX_WMMA_LOAD_A, _B, _C; D's is C's) of `type`
 * in `shape`; false when the ISA has no such fragment. */
bool wmma_fragment_of(enum ptx_wmma_shape shape, enum ptx_wmma_op matrix, enum ptx_type type,
                      struct wmma_fragment *out);

/* The matrix element (row-major index) that element e of lane l holds. */
static inline unsigned wmma_element_index(const struct wmma_fragment *f, unsigned lane, unsigned e)
{
    return (lane * f->elements + e) % ((unsigned)f->rows * f->cols);
}

#endif
