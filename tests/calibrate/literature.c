/*
 * The three published tables: each kernel's file, its launch shape and the
 * figure its source published (see literature.h for the sources).
 *
 * Published figures: Boehm's worklog table (GFLOP/s, RTX A6000, 4096²; his
 * kernel 10 is our step 7, his 7 to 9 are left out); Harris's slide
 * "Performance for 4M element reduction" (ms, G80, 2^22 ints, 128 threads per
 * block); Harris's transpose blog table "Effective Bandwidth (GB/s, ECC
 * enabled)", its Tesla M2050 column (1024² floats, 32 × 8 threads per 32 × 32
 * tile), for the kernels of Ruetsch and Micikevicius's paper.
 */
#include "lit_gpu.h"

#include <string.h>

/* An SGEMM step: a block of bx × by threads computes a tile × tile part of C. */
#define SGEMM(file, entry, name, gflops, tile, bx, by)                                             \
    {                                                                                              \
        file, entry, name, gflops, tile, bx, by, 0, false                                          \
    }

/* A reduction: 128 threads a block, each block summing `per_block` elements a
 * pass; kernel 7 runs at most REDUCE_MAX_BLOCKS blocks (about 8 per SM of an
 * H100), each thread summing many elements. */
#define REDUCE_THREADS    128
#define REDUCE_MAX_BLOCKS 1024
#define REDUCE(file, entry, name, ms, per_block, max_blocks)                                       \
    {                                                                                              \
        file, entry, name, ms, per_block, REDUCE_THREADS, 1, max_blocks, false                     \
    }

/* A transpose: 32 × 8 threads move a 32 × 32 tile; `copies`: the copy. */
#define TRANSPOSE(file, entry, name, gbps, copies)                                                 \
    {                                                                                              \
        file, entry, name, gbps, 32, 32, 8, 0, copies                                              \
    }

static const struct lit_kernel sgemm[] = {
    SGEMM("sgemm_1_naive.cu", "sgemm_naive", "1 naive", 309.0, 32, 32, 32),
    SGEMM("sgemm_2_coalesced.cu", "sgemm_coalesced", "2 global-memory coalescing", 1986.5, 32, 1024,
          1),
    SGEMM("sgemm_3_shared.cu", "sgemm_shared", "3 shared-memory blocking", 2980.3, 32, 1024, 1),
    SGEMM("sgemm_4_blocktile_1d.cu", "sgemm_blocktile_1d", "4 1D blocktiling", 8474.7, 64, 512, 1),
    SGEMM("sgemm_5_blocktile_2d.cu", "sgemm_blocktile_2d", "5 2D blocktiling", 15971.7, 128, 256,
          1),
    SGEMM("sgemm_6_vectorized.cu", "sgemm_vectorized", "6 vectorized access", 18237.3, 128, 256, 1),
    SGEMM("sgemm_7_warptiling.cu", "sgemm_warptiling", "7 warptiling (his 10)", 21779.3, 128, 128,
          1),
};

static const struct lit_kernel reduce[] = {
    REDUCE("reduce_1_interleaved_divergent.cu", "reduce_interleaved_divergent",
           "1 interleaved, divergent", 8.054, REDUCE_THREADS, 0),
    REDUCE("reduce_2_interleaved_strided.cu", "reduce_interleaved_strided",
           "2 interleaved, bank conflicts", 3.456, REDUCE_THREADS, 0),
    REDUCE("reduce_3_sequential.cu", "reduce_sequential", "3 sequential addressing", 1.722,
           REDUCE_THREADS, 0),
    REDUCE("reduce_4_first_add.cu", "reduce_first_add", "4 first add during load", 0.965,
           2 * REDUCE_THREADS, 0),
    REDUCE("reduce_5_unroll_last_warp.cu", "reduce_unroll_last_warp", "5 unroll last warp", 0.536,
           2 * REDUCE_THREADS, 0),
    REDUCE("reduce_6_complete_unroll.cu", "reduce_complete_unroll", "6 completely unrolled", 0.381,
           2 * REDUCE_THREADS, 0),
    REDUCE("reduce_7_multiple_elements.cu", "reduce_multiple_elements",
           "7 multiple elements/thread", 0.268, 2 * REDUCE_THREADS, REDUCE_MAX_BLOCKS),
};

static const struct lit_kernel transpose[] = {
    TRANSPOSE("transpose_1_copy.cu", "transpose_copy", "copy", 105.2, true),
    TRANSPOSE("transpose_2_naive.cu", "transpose_naive", "naive transpose", 18.1, false),
    TRANSPOSE("transpose_3_coalesced.cu", "transpose_coalesced", "coalesced (32 x 32 tile)", 51.3,
              false),
    TRANSPOSE("transpose_4_conflict_free.cu", "transpose_conflict_free",
              "conflict-free (32 x 33 tile)", 99.5, false),
};

#define KERNELS(list) .kernels = list, .n_kernels = sizeof list / sizeof list[0]

const struct lit_table lit_tables[LIT_TABLES] = {
    {
        .name = "sgemm",
        .title = "SGEMM, the steps of a cuBLAS-like kernel",
        .source = "Simon Boehm, \"How to Optimize a CUDA Matmul Kernel for cuBLAS-like "
                  "Performance: a Worklog\" (2022), https://siboehm.com/articles/22/CUDA-MMM",
        .published_on = "RTX A6000, 4096 x 4096",
        .unit = LIT_GFLOPS,
        KERNELS(sgemm),
        .run = lit_run_sgemm,
        .multiple = 128,
        .describe = lit_describe_sgemm,
    },
    {
        .name = "reduce",
        .title = "Parallel reduction (sum of ints), seven steps",
        .source = "Mark Harris, \"Optimizing Parallel Reduction in CUDA\" (NVIDIA, 2007), slide "
                  "\"Performance for 4M element reduction\"",
        .published_on = "G80 (GeForce 8800 GTX), 2^22 ints",
        .unit = LIT_MS,
        KERNELS(reduce),
        .run = lit_run_reduce,
        .multiple = 1,
        .describe = lit_describe_reduce,
    },
    {
        .name = "transpose",
        .title = "Matrix transpose through shared memory",
        .source = "Greg Ruetsch and Paulius Micikevicius, \"Optimizing Matrix Transpose in CUDA\" "
                  "(NVIDIA, 2009); figures of Mark Harris, \"An Efficient Matrix Transpose in "
                  "CUDA C/C++\" (NVIDIA Developer Blog, 2013)",
        .published_on = "Tesla M2050, 1024 x 1024",
        .unit = LIT_GBPS,
        KERNELS(transpose),
        .run = lit_run_transpose,
        .multiple = 32,
        .describe = lit_describe_transpose,
    },
};

const struct lit_table *lit_table_named(const char *name)
{
    for (int t = 0; t < LIT_TABLES; t++)
        if (strcmp(lit_tables[t].name, name) == 0)
            return &lit_tables[t];
    return NULL;
}

const char *lit_unit_name(enum lit_unit unit)
{
    return unit == LIT_GFLOPS ? "GFLOP/s" : unit == LIT_MS ? "ms" : "GB/s";
}

bool lit_unit_higher_is_better(enum lit_unit unit)
{
    return unit != LIT_MS;
}
