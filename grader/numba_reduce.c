/*
 * A @cuda.reduce reduction, launched as numba 0.56's Reduce.__call__
 * launches it (numba/cuda/kernels/reduction.py) for reduce(x, res=out):
 * its kernel gpu_reduce_block_strided(arr, partials, init, use_init) over
 * the whole blocks of 128 elements (at most 64 blocks, which stride over
 * the rest of them), then over the last partial block's elements in one
 * block, then over the partials in one block; the first partial is then
 * copied into the form's one-element output. This is numba's host code,
 * transcribed: the student's module never runs in the grade job, only
 * numba's kernel over the student's binary function does.
 *
 * The partials live in r->scratch (grade_run.c allocates it between guard
 * zones); init is 0 of the input's type, as Reduce.__call__'s default.
 */
#include "grade_run.h"
#include "kernel_params.h"

/* A 1-D view: `items` items from `data`. */
struct view {
    CUdeviceptr data;
    uint64_t items;
};

/* gpu_reduce_block_strided[grid, block](arr, partials, 0, use_init), queued. */
static CUresult launch(struct run *r, int side, int k, unsigned grid, unsigned block,
                       struct view arr, struct view partials, bool use_init)
{
    const struct exercise *e = &r->g->exercise;
    int input = exercise_buffer_index(e, e->kernels[k].numba.params[0].name);
    uint64_t item = (uint64_t)value_type_bytes(e->buffers[input].type);
    uint64_t values[2 * NUMBA_ARRAY_1D_VALUES];
    unsigned char init[8] = {0}, flag = use_init;
    void *args[2 * NUMBA_ARRAY_1D_VALUES + 2];
    numba_array_1d(item, arr.items, arr.data, values);
    numba_array_1d(item, partials.items, partials.data, values + NUMBA_ARRAY_1D_VALUES);
    for (int i = 0; i < 2 * NUMBA_ARRAY_1D_VALUES; i++)
        args[i] = &values[i];
    args[2 * NUMBA_ARRAY_1D_VALUES] = init;
    args[2 * NUMBA_ARRAY_1D_VALUES + 1] = &flag;
    struct kernel_params layout;
    unsigned char packed[KERNEL_PARAMS_BYTES_MAX];
    kernel_params_layout(e, k, KERNEL_FORM_NUMBA_REDUCE, &layout);
    kernel_params_pack(&layout, args, packed);
    size_t bytes = layout.bytes;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                     CU_LAUNCH_PARAM_END};
    return r->g->api.cuLaunchKernel(r->g->functions[side][k], grid, 1, 1, block, 1, 1, 0, NULL,
                                    NULL, extra);
}

CUresult numba_reduce_launches(struct run *r, int side, int k)
{
    const struct exercise *e = &r->g->exercise;
    int input = exercise_buffer_index(e, e->kernels[k].numba.params[0].name);
    int output = exercise_buffer_index(e, e->kernels[k].numba.params[1].name);
    uint64_t n = r->buffers[input].count, item = value_type_bytes(e->buffers[input].type);
    uint64_t full = n / NUMBA_REDUCE_BLOCK * NUMBA_REDUCE_BLOCK, partial = n - full;
    uint64_t blocks = full / NUMBA_REDUCE_BLOCK < NUMBA_REDUCE_BLOCKS_MAX
                          ? full / NUMBA_REDUCE_BLOCK
                          : NUMBA_REDUCE_BLOCKS_MAX;
    uint64_t partials = blocks + (partial ? 1 : 0);
    CUdeviceptr x = r->current[input];
    CUresult rc = CUDA_SUCCESS;
    if (n == 0) /* numba returns init and writes nothing */
        return CUDA_SUCCESS;
    if (full)
        rc = launch(r, side, k, (unsigned)blocks, NUMBA_REDUCE_BLOCK, (struct view){x, full},
                    (struct view){r->scratch, blocks}, true);
    if (rc == CUDA_SUCCESS && partial)
        rc = launch(r, side, k, 1, (unsigned)partial, (struct view){x + full * item, partial},
                    (struct view){r->scratch + blocks * item, 1}, blocks == 0);
    if (rc == CUDA_SUCCESS && partials > 1)
        rc = launch(r, side, k, 1, (unsigned)partials, (struct view){r->scratch, partials},
                    (struct view){r->scratch, partials}, false);
    if (rc == CUDA_SUCCESS)
        rc = r->g->api.cuMemcpyDtoD(r->current[output], r->scratch, item);
    return rc;
}
