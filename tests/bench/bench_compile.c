/*
 * Benchmark: what asking ptxas for register counts costs per compile.
 *
 * The grader compiles for a real architecture (sm_90) so that ptxas reports
 * registers per kernel. The baseline, measured in the same run, compiles the
 * same source to PTX only (compute_90). Prints the time of each and the ratio.
 */
#include "grader/grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_ROUNDS 20

static const char *const source =
    "extern \"C\" __global__ void hidden_layer(const float *g, const float *w, float *out, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[i] = tanhf(g[i] / 255.0f * w[i]);\n"
    "}\n";

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds per compile for `arch`, or a negative number when a compile fails. */
static double time_compiles(const char *arch)
{
    struct grader_compile_options options = {.arch = arch};
    double start = now_seconds();
    for (int i = 0; i < BENCH_ROUNDS; i++) {
        struct grader_compile_result r;
        enum grader_compile_status status = grader_compile(source, strlen(source), &options, &r);
        if (status != GRADER_COMPILE_OK) {
            fprintf(stderr, "bench_compile: %s: %s\n", arch, r.message);
            grader_compile_result_free(&r);
            return -1;
        }
        grader_compile_result_free(&r);
    }
    return (now_seconds() - start) / BENCH_ROUNDS;
}

int main(void)
{
    time_compiles("compute_90"); /* warm NVRTC up: the first compile loads its builtins */
    double ptx_only = time_compiles("compute_90");
    double with_ptxas = time_compiles("sm_90");
    if (ptx_only <= 0 || with_ptxas <= 0)
        return 1;
    printf("compile to PTX only (compute_90, baseline): %8.2f ms\n", ptx_only * 1e3);
    printf("compile with ptxas registers (sm_90):        %8.2f ms\n", with_ptxas * 1e3);
    printf("ratio sm_90 / compute_90:                    %8.2f\n", with_ptxas / ptx_only);
    return 0;
}
