/*
 * GPU test of the timing model against the literature, at small sizes: the
 * kernels of the three published tables of `make calibrate` (Boehm's SGEMM
 * steps, Harris's reductions, Ruetsch and Micikevicius's transposes;
 * tests/calibrate/literature.h) compute the right result, and the orderings
 * of their published figures that hold at these sizes hold on the virtual
 * GPU. Spearman's rank correlation, which `make calibrate` prints, is checked
 * on known cases.
 *
 * At these sizes not every published ordering can hold on an H100: a 512 ×
 * 512 SGEMM has 16 blocks of 128 × 128 for 132 SMs, so the 1D blocktiling
 * (64 × 64 tiles, 64 blocks) is as fast as the 2D one and the shared-memory
 * blocking, and the warptiling's blocks of 4 warps, one per SM, wait on
 * every tile's global loads with nothing to overlap them (it needs several
 * blocks per SM). The orderings below are the ones the sizes allow; make
 * calibrate shows the rest at a size that fills the GPU.
 */
#include "gpu_test.h"

#include <math.h>

#include "tests/calibrate/literature.h"
#include "tests/calibrate/spearman.h"

#define SGEMM_N     512
#define REDUCE_N    (1L << 22) /* Harris's 4M ints */
#define TRANSPOSE_N 1024

/* Kernel `faster` of a table takes less modeled time than kernel `slower`
 * (or no more, when not strict). Kernels are numbered from 0. */
struct ordering {
    int faster, slower;
    bool strict;
};

static const struct ordering sgemm_orderings[] = {
    {1, 0, true}, /* coalescing beats naive */
    {2, 1, true}, /* shared-memory blocking beats coalescing */
    {5, 4, true}, /* vectorized beats 2D blocktiling */
};

static const struct ordering reduce_orderings[] = {
    {1, 0, true},  {2, 1, true},  {3, 2, true},  /* kernels 1 to 4: each faster */
    {4, 3, false}, {5, 4, false}, {6, 5, false}, /* 4 to 7: bandwidth-bound, none slower */
};

static const struct ordering transpose_orderings[] = {
    {2, 1, true},  /* coalesced beats naive */
    {3, 2, true},  /* conflict-free beats coalesced */
    {0, 3, false}, /* the copy bounds them all */
};

static void check_orderings(const char *table, const struct lit_outcome *out,
                            const struct ordering *orderings, size_t count)
{
    const struct lit_table *t = lit_table_named(table);
    for (size_t i = 0; i < count; i++) {
        const struct ordering *o = &orderings[i];
        double fast = out[o->faster].ms, slow = out[o->slower].ms;
        bool holds = o->strict ? fast < slow : fast <= slow;
        if (!holds)
            fprintf(stderr, "%s: %s takes %.4f ms, %s %.4f ms\n", table, t->kernels[o->faster].name,
                    fast, t->kernels[o->slower].name, slow);
        CHECK(holds);
    }
}

/* Runs every kernel of `table` at size n, each checked; fills out[]. */
static void run_table(struct lit_gpu *gpu, const char *table, long n, struct lit_outcome *out)
{
    const struct lit_table *t = lit_table_named(table);
    if (!CHECK(t != NULL))
        return;
    for (int k = 0; k < t->n_kernels; k++) {
        bool ran = t->run(gpu, &t->kernels[k], n, &out[k]);
        if (ran && out[k].mismatches)
            fprintf(stderr, "%s: %ld wrong elements\n", t->kernels[k].file, out[k].mismatches);
        CHECK(ran && out[k].mismatches == 0);
        printf("%-10s %-32s n = %-8ld %9.4f ms  %s\n", table, t->kernels[k].name, n, out[k].ms,
               out[k].counters.limiter);
    }
}

static void spearman_known_cases(void)
{
    const double x[] = {1, 2, 3, 4}, same[] = {10, 20, 30, 40}, reversed[] = {4, 3, 2, 1};
    const double tied[] = {1, 1, 3, 4}; /* ranks 1.5 1.5 3 4 */
    CHECK(fabs(spearman(x, same, 4) - 1) < 1e-12);
    CHECK(fabs(spearman(x, reversed, 4) + 1) < 1e-12);
    CHECK(fabs(spearman(x, tied, 4) - 4.5 / sqrt(22.5)) < 1e-12);
    CHECK(spearman(x, (const double[]){2, 2, 2, 2}, 4) == 0);
}

int main(void)
{
    struct lit_gpu gpu;
    spearman_known_cases();
    if (!CHECK(lit_gpu_start(&gpu)))
        return gpu_test_summary();
    struct lit_outcome out[LIT_KERNELS];
    run_table(&gpu, "sgemm", SGEMM_N, out);
    check_orderings("sgemm", out, sgemm_orderings,
                    sizeof sgemm_orderings / sizeof sgemm_orderings[0]);
    run_table(&gpu, "reduce", REDUCE_N, out);
    check_orderings("reduce", out, reduce_orderings,
                    sizeof reduce_orderings / sizeof reduce_orderings[0]);
    run_table(&gpu, "transpose", TRANSPOSE_N, out);
    check_orderings("transpose", out, transpose_orderings,
                    sizeof transpose_orderings / sizeof transpose_orderings[0]);
    lit_gpu_stop(&gpu);
    return gpu_test_summary();
}
