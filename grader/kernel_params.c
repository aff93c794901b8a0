/*
 * A kernel's parameters as one packed buffer (kernel_params.h).
 *
 * A launch with kernelParams hands the driver a pointer per parameter and
 * lets the kernel's own parameter list decide how many bytes to copy from
 * each: a kernel whose PTX declares an 8 KB parameter where the exercise
 * passes an 8-byte one would read the grader's stack. So the layout comes
 * from the exercise, the kernel's is compared with it through the driver
 * (count, offsets, sizes) before anything runs, and every launch passes
 * the packed buffer with its size (CU_LAUNCH_PARAM_BUFFER_POINTER and
 * _SIZE), which the driver checks again.
 */
#include "kernel_params.h"

#include <stdio.h>
#include <string.h>

#define POINTER_BYTES 8u

static void lay_out(struct kernel_params *out, const uint32_t sizes[], int count)
{
    uint32_t at = 0;
    for (int i = 0; i < count; i++) {
        at = (at + sizes[i] - 1) / sizes[i] * sizes[i]; /* natural alignment */
        out->offset[i] = at;
        out->size[i] = sizes[i];
        at += sizes[i];
    }
    out->count = count;
    out->bytes = at;
}

/* The C form: a buffer's pointer, or a scalar of its own type. */
static int c_param_sizes(const struct exercise *e, int k, uint32_t sizes[])
{
    const struct exercise_kernel *kernel = &e->kernels[k];
    for (int p = 0; p < kernel->n_params; p++) {
        int scalar = exercise_scalar_index(e, kernel->params[p]);
        sizes[p] = exercise_buffer_index(e, kernel->params[p]) >= 0 || scalar < 0
                       ? POINTER_BYTES
                       : (uint32_t)value_type_bytes(e->scalars[scalar].type);
    }
    return kernel->n_params;
}

void kernel_params_layout(const struct exercise *exercise, int k, enum kernel_form form,
                          struct kernel_params *out)
{
    uint32_t sizes[KERNEL_PARAMS_MAX];
    int count = form == KERNEL_FORM_NUMBA_REDUCE ? numba_reduce_param_sizes(exercise, k, sizes)
                : form == KERNEL_FORM_NUMBA      ? numba_kernel_param_sizes(exercise, k, sizes)
                                                 : c_param_sizes(exercise, k, sizes);
    lay_out(out, sizes, count);
}

bool kernel_params_match(const struct cuda_api *api, CUfunction f, const struct kernel_params *want,
                         char *why, size_t size)
{
    size_t offset = 0, bytes = 0;
    for (int i = 0; i < want->count; i++) {
        if (api->cuFuncGetParamInfo(f, (size_t)i, &offset, &bytes) != CUDA_SUCCESS) {
            snprintf(why, size, "it takes %d parameter values where the exercise passes %d", i,
                     want->count);
            return false;
        }
        if (offset != want->offset[i] || bytes != want->size[i]) {
            snprintf(why, size,
                     "its parameter value %d is %zu bytes at offset %zu where the exercise "
                     "passes %u bytes at offset %u",
                     i + 1, bytes, offset, want->size[i], want->offset[i]);
            return false;
        }
    }
    if (api->cuFuncGetParamInfo(f, (size_t)want->count, &offset, &bytes) == CUDA_SUCCESS) {
        snprintf(why, size, "it takes more than the %d parameter values the exercise passes",
                 want->count);
        return false;
    }
    return true;
}

void kernel_params_pack(const struct kernel_params *layout, void *const args[],
                        unsigned char *buffer)
{
    memset(buffer, 0, layout->bytes);
    for (int i = 0; i < layout->count; i++)
        memcpy(buffer + layout->offset[i], args[i], layout->size[i]);
}
