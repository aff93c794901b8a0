/*
 * numba's kernel ABI (numba_front.h): how a Numba kernel's parameters are
 * passed. An array of d dimensions is 5 + 2d values of 64 bits: meminfo
 * and parent (0 on a device), the number of items, the item's size, the
 * data pointer, the shape, and the strides in bytes (C order: the last
 * dimension's is the item's size). A scalar is passed as itself.
 */
#include "numba_front.h"

#define ARRAY_FIXED_FIELDS 5 /* meminfo, parent, nitems, itemsize, data */
#define FIELD_BYTES        8

static int array_dims(const struct exercise_numba_param *p)
{
    return p->n_dims > 1 ? p->n_dims : 1;
}

int numba_kernel_param_sizes(const struct exercise *e, int k, uint32_t sizes[NUMBA_ARGS_MAX])
{
    const struct exercise_numba *form = &e->kernels[k].numba;
    int used = 0;
    for (int i = 0; i < form->n_params; i++) {
        const struct exercise_numba_param *p = &form->params[i];
        int scalar = exercise_scalar_index(e, p->name);
        if (exercise_buffer_index(e, p->name) < 0 && scalar >= 0) {
            sizes[used++] = (uint32_t)value_type_bytes(e->scalars[scalar].type);
            continue;
        }
        for (int f = 0; f < ARRAY_FIXED_FIELDS + 2 * array_dims(p); f++)
            sizes[used++] = FIELD_BYTES;
    }
    return used;
}

/* The 5 + 2d values of an array of `items` items of `item` bytes at
 * `data`, of shape `shape` (C order); returns how many. */
static int pack_fields(uint64_t item, uint64_t items, CUdeviceptr data, int d,
                       const uint64_t shape[], uint64_t *out)
{
    int n = 0;
    out[n++] = 0; /* meminfo */
    out[n++] = 0; /* parent */
    out[n++] = items;
    out[n++] = item;
    out[n++] = (uint64_t)data;
    uint64_t stride = item; /* C order: the last dimension's is the item's size */
    for (int i = d - 1; i >= 0; i--) {
        out[n + i] = shape[i];
        out[n + d + i] = stride;
        stride *= shape[i];
    }
    return n + 2 * d;
}

/* The 5 + 2d values of buffer b as the array `p`; returns how many. */
static int pack_array(const struct exercise *e, int b, const struct exercise_numba_param *p,
                      const struct expr_env *env, CUdeviceptr data, uint64_t *out)
{
    uint64_t item = (uint64_t)value_type_bytes(e->buffers[b].type);
    uint64_t items = (uint64_t)expr_value(e->buffers[b].length, env);
    uint64_t shape[sizeof p->shape / sizeof p->shape[0]];
    int d = array_dims(p);
    for (int i = 0; i < d; i++)
        shape[i] = d == 1 ? items : (uint64_t)expr_value(p->shape[i], env);
    return pack_fields(item, items, data, d, shape, out);
}

void numba_array_1d(uint64_t item, uint64_t items, CUdeviceptr data,
                    uint64_t out[NUMBA_ARRAY_1D_VALUES])
{
    pack_fields(item, items, data, 1, &items, out);
}

int numba_reduce_param_sizes(const struct exercise *e, int k, uint32_t sizes[NUMBA_ARGS_MAX])
{
    const struct exercise_numba *form = &e->kernels[k].numba;
    int input = exercise_buffer_index(e, form->params[0].name), used = 0;
    for (int f = 0; f < 2 * NUMBA_ARRAY_1D_VALUES; f++) /* arr, partials */
        sizes[used++] = FIELD_BYTES;
    sizes[used++] = (uint32_t)value_type_bytes(e->buffers[input].type); /* init */
    sizes[used++] = 1;                                                  /* use_init */
    return used;
}

void numba_kernel_args(const struct exercise *e, int k, const struct expr_env *env,
                       const CUdeviceptr current[], unsigned char (*scalars)[8],
                       uint64_t values[NUMBA_ARGS_MAX], void *args[NUMBA_ARGS_MAX])
{
    const struct exercise_numba *form = &e->kernels[k].numba;
    int used = 0;
    for (int i = 0; i < form->n_params; i++) {
        const struct exercise_numba_param *p = &form->params[i];
        int b = exercise_buffer_index(e, p->name);
        if (b < 0) {
            args[used++] = scalars[exercise_scalar_index(e, p->name)];
            continue;
        }
        uint64_t *fields = &values[used];
        int n = pack_array(e, b, p, env, current[b], fields);
        for (int f = 0; f < n; f++)
            args[used++] = &fields[f];
    }
}
