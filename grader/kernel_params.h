/*
 * Internal to grader/: a kernel's parameters as the grader hands them to
 * the driver (kernel_params.c). The exercise's form fixes the layout (a C
 * kernel: one value per parameter; a Numba kernel: numba's ABI), the
 * driver's kernel must take exactly that layout before it runs, and every
 * launch passes one buffer of that size, never a pointer per parameter
 * whose pointee's size only the kernel's PTX would decide.
 */
#ifndef KGRADE_GRADER_KERNEL_PARAMS_H
#define KGRADE_GRADER_KERNEL_PARAMS_H

#include "numba_front.h"

#define KERNEL_PARAMS_MAX       NUMBA_ARGS_MAX
#define KERNEL_PARAM_BYTES_MAX  8u
#define KERNEL_PARAMS_BYTES_MAX (KERNEL_PARAMS_MAX * KERNEL_PARAM_BYTES_MAX)

struct kernel_params {
    int count;
    uint32_t offset[KERNEL_PARAMS_MAX];
    uint32_t size[KERNEL_PARAMS_MAX];
    uint32_t bytes; /* the packed buffer's size */
};

/* The layout of kernel k's `form`, each value at its natural alignment:
 * the C form's (8 bytes for a buffer's pointer, a scalar's own size),
 * numba's ABI of its Numba form, or of numba's reduction kernel. */
void kernel_params_layout(const struct exercise *exercise, int k, enum kernel_form form,
                          struct kernel_params *out);

/* Whether the driver's kernel `f` takes exactly `want` (cuFuncGetParamInfo:
 * as many parameters, each at the same offset with the same size); else a
 * sentence saying where they differ. */
bool kernel_params_match(const struct cuda_api *api, CUfunction f, const struct kernel_params *want,
                         char *why, size_t size);

/* Each value args[i] (layout->size[i] bytes) at its offset in `buffer`
 * (layout->bytes long), the padding zeroed. */
void kernel_params_pack(const struct kernel_params *layout, void *const args[],
                        unsigned char *buffer);

#endif
