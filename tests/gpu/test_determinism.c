/*
 * The virtual GPU runs blocks on a pool of host threads (KGEMU_THREADS).
 * Kernels without races must give the same bits whatever the pool's size:
 * this program runs the same set of kernels in child processes with
 * KGEMU_THREADS=1, 2 and 4, collects every output byte through a pipe, and
 * compares the runs byte for byte (and the first run against the host, so
 * that agreeing on a wrong answer does not pass).
 *
 * The kernels: per-thread float math, a shared-memory tree reduction of
 * floats, a tiled matrix multiply, an integer histogram with atomics (its
 * result does not depend on the order), warp shuffles, and a grid-stride
 * loop over more blocks than any pool has threads.
 */
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_test.h"

#define N          65536
#define BINS       64
#define MAT        96 /* matrix side: 6 x 6 tiles of 16 */
#define CHILD_MAX  (16 << 20)
#define N_OUTPUTS  6
#define THREAD_SET 3

static const int pools[THREAD_SET] = {1, 2, 4};

static const char source[] =
    "extern \"C\" __global__ void math(const float *x, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = sinf(x[i]) * expf(-x[i] * x[i]) + sqrtf(fabsf(x[i])) / 3.0f;\n"
    "}\n"
    "extern \"C\" __global__ void reduce(const float *x, float *out)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    int i = blockIdx.x * 256 + threadIdx.x;\n"
    "    s[threadIdx.x] = x[i];\n"
    "    __syncthreads();\n"
    "    for (int stride = 128; stride > 0; stride >>= 1) {\n"
    "        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s[0];\n"
    "}\n"
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C, int n)\n"
    "{\n"
    "    __shared__ float As[16][16], Bs[16][16];\n"
    "    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    for (int t = 0; t < n; t += 16) {\n"
    "        As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];\n"
    "        Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];\n"
    "        __syncthreads();\n"
    "        for (int k = 0; k < 16; k++) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], "
    "acc);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    C[row * n + col] = acc;\n"
    "}\n"
    "extern \"C\" __global__ void histogram(const float *x, unsigned *h, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        atomicAdd(&h[__float_as_uint(x[i]) % 64u], 1u);\n"
    "}\n"
    "extern \"C\" __global__ void shuffles(const float *x, float *out)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float v = x[i];\n"
    "    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);\n"
    "    out[i] = v + __shfl_up_sync(0xffffffffu, x[i], 3);\n"
    "}\n"
    "extern \"C\" __global__ void strided(const float *x, double *out, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[i] = (double)x[i] * x[(i * 7) % n] + i;\n"
    "}\n";

/* Sizes of the outputs, in the order the child writes them. */
static const size_t output_bytes[N_OUTPUTS] = {
    N * sizeof(float),       N / 256 * sizeof(float), MAT *MAT * sizeof(float),
    BINS * sizeof(unsigned), N * sizeof(float),       N * sizeof(double),
};
static const char *const output_names[N_OUTPUTS] = {"math",      "reduce",   "matmul",
                                                    "histogram", "shuffles", "strided"};

static void make_input(float *x)
{
    uint64_t s = 0x243f6a8885a308d3ull;
    for (int i = 0; i < N; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (float)((int)(s % 20001) - 10000) / 1000.0f;
    }
}

/* In the child: runs every kernel and writes its outputs to fd. */
static int child(int fd)
{
    static float x[N];
    make_input(x);
    CUcontext context;
    CUmodule module;
    if (cuInit(0) != CUDA_SUCCESS || cuCtxCreate(&context, NULL, 0, 0) != CUDA_SUCCESS ||
        gpu_test_load_source(&module, source, "determinism.cu") != CUDA_SUCCESS)
        return 2;
    CUdeviceptr dx, out[N_OUTPUTS];
    if (cuMemAlloc(&dx, sizeof x) != CUDA_SUCCESS || cuMemcpyHtoD(dx, x, sizeof x) != CUDA_SUCCESS)
        return 3;
    for (int k = 0; k < N_OUTPUTS; k++)
        if (cuMemAlloc(&out[k], output_bytes[k]) != CUDA_SUCCESS ||
            cuMemsetD8(out[k], 0, output_bytes[k]) != CUDA_SUCCESS)
            return 3;
    int n = N, mat = MAT;
    void *math_args[] = {&dx, &out[0], &n};
    void *reduce_args[] = {&dx, &out[1]};
    void *matmul_args[] = {&dx, &out[5], &out[2], &mat}; /* B: the start of x again */
    void *hist_args[] = {&dx, &out[3], &n};
    void *shfl_args[] = {&dx, &out[4]};
    void *strided_args[] = {&dx, &out[5], &n};
    struct {
        const char *name;
        unsigned grid[2], block[2];
        void **args;
    } launches[] = {
        {"math", {N / 128, 1}, {128, 1}, math_args},
        {"reduce", {N / 256, 1}, {256, 1}, reduce_args},
        {"matmul", {MAT / 16, MAT / 16}, {16, 16}, matmul_args},
        {"histogram", {37, 1}, {96, 1}, hist_args},
        {"shuffles", {N / 64, 1}, {64, 1}, shfl_args},
        {"strided", {45, 1}, {160, 1}, strided_args},
    };
    /* matmul reads B from out[5], which strided fills: copy x there first */
    if (cuMemcpyDtoD(out[5], dx, MAT * MAT * sizeof(float)) != CUDA_SUCCESS)
        return 3;
    for (int k = 0; k < N_OUTPUTS; k++) {
        CUfunction f;
        if (cuModuleGetFunction(&f, module, launches[k].name) != CUDA_SUCCESS ||
            cuLaunchKernel(f, launches[k].grid[0], launches[k].grid[1], 1, launches[k].block[0],
                           launches[k].block[1], 1, 0, NULL, launches[k].args,
                           NULL) != CUDA_SUCCESS ||
            cuCtxSynchronize() != CUDA_SUCCESS)
            return 4;
    }
    for (int k = 0; k < N_OUTPUTS; k++) {
        char *host = malloc(output_bytes[k]);
        if (host == NULL || cuMemcpyDtoH(host, out[k], output_bytes[k]) != CUDA_SUCCESS)
            return 5;
        for (size_t done = 0; done < output_bytes[k];) {
            ssize_t w = write(fd, host + done, output_bytes[k] - done);
            if (w <= 0)
                return 6;
            done += (size_t)w;
        }
        free(host);
    }
    cuCtxDestroy(context);
    return 0;
}

/* Runs the child with KGEMU_THREADS=threads; `bytes` gets its outputs. */
static int run(int threads, char *bytes, size_t size)
{
    int fds[2];
    if (!CHECK(pipe(fds) == 0))
        return 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char value[16];
        snprintf(value, sizeof value, "%d", threads);
        setenv("KGEMU_THREADS", value, 1);
        int rc = child(fds[1]);
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    size_t got = 0;
    for (;;) {
        ssize_t k = read(fds[0], bytes + got, got < size ? size - got : 1);
        if (k <= 0)
            break;
        got += got < size ? (size_t)k : 0;
    }
    close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (!CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        fprintf(stderr, "  the child with KGEMU_THREADS=%d failed (status %d)\n", threads, status);
        return 0;
    }
    return CHECK_EQ(got, size);
}

/* The host's results of the exact kernels, against the first run. */
static void check_against_host(const char *bytes)
{
    static float x[N];
    make_input(x);
    const char *p = bytes + output_bytes[0];
    /* reduce: the same tree order */
    float sums[N / 256];
    for (int b = 0; b < N / 256; b++) {
        float s[256];
        memcpy(s, x + b * 256, sizeof s);
        for (int stride = 128; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; t++)
                s[t] += s[t + stride];
        sums[b] = s[0];
    }
    CHECK(memcmp(p, sums, sizeof sums) == 0);
    p += output_bytes[1];
    /* matmul: fmaf in k order, B = x */
    static float c[MAT * MAT];
    for (int r = 0; r < MAT; r++)
        for (int col = 0; col < MAT; col++) {
            float acc = 0.0f;
            for (int k = 0; k < MAT; k++)
                acc = fmaf(x[r * MAT + k], x[k * MAT + col], acc);
            c[r * MAT + col] = acc;
        }
    CHECK(memcmp(p, c, sizeof c) == 0);
    p += output_bytes[2];
    unsigned h[BINS] = {0};
    for (int i = 0; i < N; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        h[u % 64u]++;
    }
    CHECK(memcmp(p, h, sizeof h) == 0);
    p += output_bytes[3] + output_bytes[4];
    static double strided[N];
    for (int i = 0; i < N; i++)
        strided[i] = (double)x[i] * x[(i * 7) % N] + i;
    CHECK(memcmp(p, strided, sizeof strided) == 0);
}

int main(void)
{
    /* no CUDA call in this process: the children make their own */
    size_t size = 0;
    for (int k = 0; k < N_OUTPUTS; k++)
        size += output_bytes[k];
    char *runs[THREAD_SET];
    int ok = 1;
    for (int r = 0; r < THREAD_SET; r++) {
        runs[r] = calloc(1, size);
        ok = CHECK(runs[r] != NULL) && run(pools[r], runs[r], size) && ok;
    }
    if (ok) {
        check_against_host(runs[0]);
        for (int r = 1; r < THREAD_SET; r++) {
            size_t offset = 0;
            for (int k = 0; k < N_OUTPUTS; k++) {
                if (!CHECK(memcmp(runs[0] + offset, runs[r] + offset, output_bytes[k]) == 0))
                    fprintf(stderr, "  %s differs between KGEMU_THREADS=%d and %d\n",
                            output_names[k], pools[0], pools[r]);
                offset += output_bytes[k];
            }
        }
    }
    for (int r = 0; r < THREAD_SET; r++)
        free(runs[r]);
    return gpu_test_summary();
}
