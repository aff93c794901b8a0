/*
 * Internal to grader/: the Numba front end's side of a grading
 * (numba_front.c) and numba's kernel ABI (numba_abi.c).
 */
#ifndef KGRADE_GRADER_NUMBA_FRONT_H
#define KGRADE_GRADER_NUMBA_FRONT_H

#include "grade.h"

/* Blocks of a @vectorize ufunc's elementwise kernel: kgrade's launch, one
 * thread per element (the statements say so). */
#define NUMBA_VECTORIZE_BLOCK 256

/* What the front end may hand back: a PTX per kernel, an entry name. */
#define NUMBA_PTX_MAX   (4u << 20)
#define NUMBA_ENTRY_MAX 4096

/* `value`'s text if it is a string of 1 to `max` bytes without a NUL, else
 * NULL: how a field of the front end's result is read. */
const char *numba_text_within(const json_t *value, size_t max);

/* Whether kernel k's Numba form fits a @guvectorize gufunc: every
 * parameter a buffer, the last the only output. The front end then
 * accepts a gufunc, whose kernel is launched as the form's. */
bool numba_kernel_gufunc(const struct exercise *exercise, int k);

/* Whether kernel k's Numba form fits a @cuda.reduce: one 1-D input
 * buffer, then a one-element output of its type. The front end then
 * accepts a reduction, launched as numba launches it (numba_reduce.c). */
bool numba_kernel_reduces(const struct exercise *exercise, int k);

/* How kernel k's parameters are passed on a side: its C form's, its
 * Numba form's (numba's ABI), or numba's reduction kernel's. */
enum kernel_form { KERNEL_FORM_C, KERNEL_FORM_NUMBA, KERNEL_FORM_NUMBA_REDUCE };
enum kernel_form numba_kernel_form(const struct numba_side *side, int k);

/* Whether kernel k's Numba form is elementwise: a gufunc's form whose
 * buffers are 1-D of one length, its launches swapping nothing. A
 * @vectorize ufunc is accepted for such a kernel only. */
bool numba_kernel_elementwise(const struct exercise *exercise, int k);

/* The student's side from the front end's result (request->numba):
 * compiled[1] (status, message, diagnostics, entries) and numba[1] (PTX
 * per kernel). Returns PASSED to go on, else the verdict (rejected, or
 * compile_error, also for a result that is not valid: the module may have
 * written it) with its sentence in `message`. */
enum grader_verdict numba_student_side(struct grading *g, char *message, size_t size);

void numba_side_free(struct numba_side *side);

/* Maximum kernelParams values of a Numba launch: each 2-D array takes 9. */
#define NUMBA_ARGS_MAX (EXERCISE_PARAMS_MAX * 9)

/* The size of each value numba's ABI passes for kernel k (8 for each of
 * an array's fields, a scalar's own size); returns how many. */
int numba_kernel_param_sizes(const struct exercise *exercise, int k,
                             uint32_t sizes[NUMBA_ARGS_MAX]);

/* The same for numba's reduction kernel of kernel k's form
 * (gpu_reduce_block_strided: two 1-D arrays of the input's type, an
 * initial value of that type, a boolean of one byte). */
int numba_reduce_param_sizes(const struct exercise *exercise, int k,
                             uint32_t sizes[NUMBA_ARGS_MAX]);

/* The values of a 1-D array of `items` items of `item` bytes at `data`,
 * as numba passes it: meminfo, parent, nitems, itemsize, data, shape,
 * stride. */
#define NUMBA_ARRAY_1D_VALUES 7
void numba_array_1d(uint64_t item, uint64_t items, CUdeviceptr data,
                    uint64_t out[NUMBA_ARRAY_1D_VALUES]);

/* kernelParams of a Numba kernel k: each array as numba passes it
 * (meminfo 0, parent 0, nitems, itemsize, data, shape[d], strides[d] in
 * bytes, C order), each scalar as itself. `values` holds the arrays'
 * fields; `scalars` are the run's scalar slots. */
void numba_kernel_args(const struct exercise *exercise, int k, const struct expr_env *env,
                       const CUdeviceptr current[], unsigned char (*scalars)[8],
                       uint64_t values[NUMBA_ARGS_MAX], void *args[NUMBA_ARGS_MAX]);

#endif
