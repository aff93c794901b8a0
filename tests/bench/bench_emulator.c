/*
 * Benchmark: the virtual GPU's speed, its compiled tier against its
 * interpreter, and both against baselines measured in the same run (issue
 * 19's targets):
 * - elementwise: the course's hidden layer (out[i] = tanhf(g[i] / 255 *
 *   w[i])) at n = 100M under each tier, in threads per second; the ratio
 *   compiled / interpreter (target >= 4x) and the plain C loop computing the
 *   same outputs (-O2) on one core (target: the compiled tier within 1.5x of
 *   it) and on every core; the first launch's time (one block), which holds
 *   the kernel's compile; the cost of the timing model (KGEMU_TIMING=off);
 * - a naive SGEMM (one thread per output element, a k loop of global loads
 *   and multiply-adds) at 1024^3 under each tier (target >= 5x). The
 *   interpreter takes about half a minute for the whole product, so by
 *   default a band of its rows is timed (a smaller grid, the same work per
 *   thread), which the output says; each tier's fastest of 3 launches;
 * - numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, Debian's python3-numba)
 *   on the hidden layer at a small size, when it is installed.
 * Each tier runs in a child process of its own (this program again, with
 * KGEMU_TIER set), so neither depends on when the driver reads the
 * variable; the children also say the tiers agree: the same outputs and
 * modeled times, bit for bit. Written against cuda.h and NVRTC only, like
 * the GPU tests.
 *
 *   bench_emulator [N [SGEMM_ROWS]]   (defaults 100,000,000 and 128; rows
 *                                      1024: the whole SGEMM)
 */
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emulator/kgemu.h"

#define DEFAULT_N          100000000LL
#define NUMBA_N            100000
#define BLOCK              256
#define SGEMM_N            1024
#define SGEMM_TILE         16
#define DEFAULT_SGEMM_ROWS 128
#define SGEMM_RUNS         3 /* timed launches per tier: the fastest counts (the host is noisy) */
#define MAX_THREADS        64
#define TARGET_ELEMENTWISE 4.0 /* compiled / interpreter, threads/s */
#define TARGET_VS_C        1.5 /* compiled time / one core's C loop time */
#define TARGET_SGEMM       5.0 /* compiled / interpreter */

static const char *const kernels =
    "extern \"C\" __global__ void hidden_layer(const float *g, const float *w, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = tanhf(g[i] / 255.0f * w[i]);\n"
    "}\n"
    "extern \"C\" __global__ void sgemm(const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (row < n && col < n) {\n"
    "        float sum = 0.0f;\n"
    "        for (int k = 0; k < n; k++)\n"
    "            sum += a[row * n + k] * b[k * n + col];\n"
    "        c[row * n + col] = sum;\n"
    "    }\n"
    "}\n";

static const char *const numba_script =
    "import os, sys, time\n"
    "os.environ['NUMBA_ENABLE_CUDASIM'] = '1'\n"
    "import numpy as np\n"
    "from numba import cuda\n"
    "import math\n"
    "@cuda.jit\n"
    "def hidden_layer(g, w, out):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = math.tanh(g[i] / 255.0 * w[i])\n"
    "n = int(sys.argv[1])\n"
    "g = np.floor(np.random.uniform(0, 255, n)).astype(np.float32)\n"
    "w = np.random.normal(0.5, 0.1, n).astype(np.float32)\n"
    "out = np.zeros(n, dtype=np.float32)\n"
    "t = time.time()\n"
    "hidden_layer[(n + 255) // 256, 256](g, w, out)\n"
    "print(time.time() - t)\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#define DIE_IF(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond) {                                                                                \
            fprintf(stderr, "bench_emulator: " __VA_ARGS__);                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t fnv1a(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* ------------------------------------------------- inputs and the C loop */

static void hidden_inputs(float *g, float *w, long long n)
{
    for (long long i = 0; i < n; i++) {
        g[i] = (float)(i * 7 % 255);
        w[i] = 0.4f + (float)(i % 13) * 0.015f;
    }
}

struct loop_part {
    const float *g, *w;
    float *out;
    long long begin, end;
};

static void *loop_worker(void *arg)
{
    struct loop_part *p = arg;
    for (long long i = p->begin; i < p->end; i++)
        p->out[i] = tanhf(p->g[i] / 255.0f * p->w[i]);
    return NULL;
}

/* The plain C loop on `threads` host threads; seconds. */
static double c_loop(const float *g, const float *w, float *out, long long n, int threads)
{
    pthread_t t[MAX_THREADS];
    struct loop_part parts[MAX_THREADS];
    double start = now();
    for (int i = 0; i < threads; i++) {
        parts[i] = (struct loop_part){g, w, out, n * i / threads, n * (i + 1) / threads};
        pthread_create(&t[i], NULL, loop_worker, &parts[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return now() - start;
}

/* ------------------------------------------- a child: one tier's launches */

static CUfunction load_kernel(const char *name)
{
    static CUmodule module;
    if (!module) {
        nvrtcProgram p;
        const char *opts[] = {"-arch=compute_90"};
        DIE_IF(nvrtcCreateProgram(&p, kernels, "bench.cu", 0, NULL, NULL) != NVRTC_SUCCESS ||
                   nvrtcCompileProgram(p, 1, opts) != NVRTC_SUCCESS,
               "NVRTC failed\n");
        size_t n;
        nvrtcGetPTXSize(p, &n);
        char *ptx = malloc(n);
        nvrtcGetPTX(p, ptx);
        nvrtcDestroyProgram(&p);
        DIE_IF(cuModuleLoadData(&module, ptx) != CUDA_SUCCESS, "cannot load the PTX\n");
        free(ptx);
    }
    CUfunction f;
    DIE_IF(cuModuleGetFunction(&f, module, name) != CUDA_SUCCESS, "no kernel %s\n", name);
    return f;
}

/* Seconds one launch takes on the host. */
static double launch_seconds(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
                             void **args)
{
    double start = now();
    DIE_IF(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, NULL, args, NULL) || cuCtxSynchronize(),
           "the launch failed\n");
    return now() - start;
}

static CUdeviceptr upload(const void *host, size_t bytes)
{
    CUdeviceptr d;
    DIE_IF(cuMemAlloc(&d, bytes) || (host && cuMemcpyHtoD(d, host, bytes)),
           "cannot set up device memory\n");
    return d;
}

/* The modeled time of the last launch (kgemu.h, looked up as a grader
 * does), or -1 on another driver. */
static double modeled_ms(void)
{
    int (*last_counters)(struct kgemu_counters *) =
        (int (*)(struct kgemu_counters *))dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    struct kgemu_counters c;
    return last_counters && last_counters(&c) ? c.modeled_ms : -1;
}

/* Prints "hidden FIRST TIMED UNTIMED WRONG HASH MODELED". */
static void child_hidden(long long n)
{
    CUfunction f = load_kernel("hidden_layer");
    size_t bytes = (size_t)n * sizeof(float);
    float *g = malloc(bytes), *w = malloc(bytes), *out = malloc(bytes);
    DIE_IF(!g || !w || !out, "out of memory\n");
    hidden_inputs(g, w, n);
    CUdeviceptr dg = upload(g, bytes), dw = upload(w, bytes), dout = upload(NULL, bytes);
    int n32 = (int)n;
    void *args[] = {&dg, &dw, &dout, &n32};
    double first = launch_seconds(f, 1, 1, BLOCK, 1, args); /* compiles, on the compiled tier */
    setenv("KGEMU_TIMING", "off", 1);
    unsigned blocks = (unsigned)((n + BLOCK - 1) / BLOCK);
    double untimed = launch_seconds(f, blocks, 1, BLOCK, 1, args);
    unsetenv("KGEMU_TIMING");
    double timed = launch_seconds(f, blocks, 1, BLOCK, 1, args);
    double model = modeled_ms();
    DIE_IF(cuMemcpyDtoH(out, dout, bytes), "cannot copy back\n");
    uint64_t hash = fnv1a(out, bytes);
    c_loop(g, w, g, n, 1); /* the C loop's outputs, in place of g */
    long long wrong = 0;
    for (long long i = 0; i < n; i++)
        wrong += fabsf(out[i] - g[i]) > 1e-6f;
    printf("hidden %.6f %.6f %.6f %lld %016llx %a\n", first, timed, untimed, wrong,
           (unsigned long long)hash, model);
    free(g);
    free(w);
    free(out);
}

/* Prints "sgemm SECONDS HASH MODELED" for rows [0, rows) of the product,
 * SECONDS the fastest of SGEMM_RUNS launches. */
static void child_sgemm(int rows)
{
    CUfunction f = load_kernel("sgemm");
    size_t bytes = (size_t)SGEMM_N * SGEMM_N * sizeof(float);
    float *a = malloc(bytes), *c = malloc(bytes);
    DIE_IF(!a || !c, "out of memory\n");
    for (size_t i = 0; i < (size_t)SGEMM_N * SGEMM_N; i++)
        a[i] = (float)(i % 17) * 0.125f - 1.0f;
    CUdeviceptr da = upload(a, bytes), dc = upload(NULL, bytes);
    int n = SGEMM_N;
    void *args[] = {&da, &da, &dc, &n};
    launch_seconds(f, 1, 1, SGEMM_TILE, SGEMM_TILE, args); /* compiles, on the compiled tier */
    double seconds = 0;
    for (int run = 0; run < SGEMM_RUNS; run++) {
        double t = launch_seconds(f, SGEMM_N / SGEMM_TILE, (unsigned)rows / SGEMM_TILE, SGEMM_TILE,
                                  SGEMM_TILE, args);
        seconds = run == 0 || t < seconds ? t : seconds;
    }
    double model = modeled_ms();
    DIE_IF(cuMemcpyDtoH(c, dc, bytes), "cannot copy back\n");
    printf("sgemm %.6f %016llx %a\n", seconds, (unsigned long long)fnv1a(c, bytes), model);
    free(a);
    free(c);
}

static int child_main(const char *what, long long size)
{
    CUdevice d;
    CUcontext ctx;
    DIE_IF(cuInit(0) || cuDeviceGet(&d, 0) || cuCtxCreate(&ctx, NULL, 0, d), "no device\n");
    if (strcmp(what, "hidden") == 0)
        child_hidden(size);
    else
        child_sgemm((int)size);
    return 0;
}

/* ------------------------------------------------ the parent: the report */

struct hidden_run {
    double first, timed, untimed, model;
    long long wrong;
    unsigned long long hash;
};

struct sgemm_run {
    double seconds, model;
    unsigned long long hash;
};

/* Runs this program as a child on `tier` and reads its one line. The
 * compiled tier compiles at the first launch (KGEMU_JIT_AFTER=0), so that
 * launch's time is the compile and the timed ones run compiled code. */
static void run_child(const char *tier, const char *what, long long size, char *line, size_t cap)
{
    char command[512];
    snprintf(command, sizeof command,
             "KGEMU_JIT_AFTER=0 KGEMU_TIER=%s /proc/%d/exe --child %s %lld", tier, (int)getpid(),
             what, size);
    FILE *p = popen(command, "r");
    DIE_IF(!p, "cannot run a child\n");
    bool got = fgets(line, (int)cap, p) != NULL;
    DIE_IF(pclose(p) != 0 || !got, "the child on tier %s (%s) failed\n", tier, what);
}

static struct hidden_run hidden_on(const char *tier, long long n)
{
    char line[512];
    struct hidden_run r;
    run_child(tier, "hidden", n, line, sizeof line);
    DIE_IF(sscanf(line, "hidden %lf %lf %lf %lld %llx %la", &r.first, &r.timed, &r.untimed,
                  &r.wrong, &r.hash, &r.model) != 6,
           "unexpected child output: %s", line);
    return r;
}

static struct sgemm_run sgemm_on(const char *tier, int rows)
{
    char line[512];
    struct sgemm_run r;
    run_child(tier, "sgemm", rows, line, sizeof line);
    DIE_IF(sscanf(line, "sgemm %lf %llx %la", &r.seconds, &r.hash, &r.model) != 3,
           "unexpected child output: %s", line);
    return r;
}

/* Seconds numba's simulator takes at NUMBA_N, or a negative number. */
static double numba_seconds(void)
{
    char path[] = "/tmp/kgrade-bench-numba-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    if (write(fd, numba_script, strlen(numba_script)) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    char command[256];
    snprintf(command, sizeof command, "/usr/bin/python3 %s %d 2>/dev/null", path, NUMBA_N);
    FILE *p = popen(command, "r");
    double seconds = -1;
    if (p && fscanf(p, "%lf", &seconds) != 1)
        seconds = -1;
    if (p)
        pclose(p);
    unlink(path);
    return seconds;
}

static const char *verdict(bool met)
{
    return met ? "met" : "not met";
}

static void report_hidden(long long n, int threads)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *g = malloc(bytes), *w = malloc(bytes), *out = malloc(bytes);
    DIE_IF(!g || !w || !out, "out of memory\n");
    hidden_inputs(g, w, n);
    double c_one = c_loop(g, w, out, n, 1), c_all = c_loop(g, w, out, n, threads);
    free(g);
    free(w);
    free(out);
    struct hidden_run in = hidden_on("interp", n), jit = hidden_on("jit", n);
    printf("elementwise: hidden layer, n = %lld, %d host threads\n", n, threads);
    printf("  interpreter:       %8.3f s  %10.3g threads/s   first launch (one block) %7.1f ms\n",
           in.timed, (double)n / in.timed, in.first * 1e3);
    printf("  compiled tier:     %8.3f s  %10.3g threads/s   first launch (one block, the "
           "compile) %7.1f ms\n",
           jit.timed, (double)n / jit.timed, jit.first * 1e3);
    printf("  plain C loop (-O2), 1 core:  %6.3f s  %10.3g threads/s\n", c_one, (double)n / c_one);
    printf("  plain C loop (-O2), %d cores: %6.3f s  %10.3g threads/s\n", threads, c_all,
           (double)n / c_all);
    double speedup = in.timed / jit.timed, vs_c = jit.timed / c_one;
    printf("  ratio compiled / interpreter (threads/s): %.2fx   (target >= %.0fx: %s)\n", speedup,
           TARGET_ELEMENTWISE, verdict(speedup >= TARGET_ELEMENTWISE));
    printf("  ratio compiled / C loop on 1 core (time): %.2fx   (target <= %.1fx: %s)\n", vs_c,
           TARGET_VS_C, verdict(vs_c <= TARGET_VS_C));
    printf("  ratio compiled / C loop on %d cores (time): %.2fx\n", threads, jit.timed / c_all);
    printf("  timing model off: interpreter %.3f s, compiled %.3f s (the model costs %.0f %% and "
           "%.0f %%)\n",
           in.untimed, jit.untimed, (in.timed / in.untimed - 1) * 100,
           (jit.timed / jit.untimed - 1) * 100);
    printf("  tiers agree (outputs, modeled time): %s; outputs off the C loop's by > 1e-6: %lld\n",
           in.hash == jit.hash && in.model == jit.model ? "yes" : "NO", jit.wrong);
    double numba = numba_seconds();
    if (numba > 0)
        printf("  numba CUDA simulator (n = %d): %.3f s  %10.3g threads/s   the compiled tier is "
               "%.0fx faster, the interpreter %.0fx\n",
               NUMBA_N, numba, NUMBA_N / numba, ((double)n / jit.timed) / (NUMBA_N / numba),
               ((double)n / in.timed) / (NUMBA_N / numba));
    else
        printf("  numba CUDA simulator: not installed (apt-get install python3-numba)\n");
}

static void report_sgemm(int rows)
{
    struct sgemm_run in = sgemm_on("interp", rows), jit = sgemm_on("jit", rows);
    if (rows < SGEMM_N)
        printf("naive SGEMM %d^3: a band of %d of its %d rows (%d threads, each %d multiply-adds; "
               "the whole product takes %d times as long)\n",
               SGEMM_N, rows, SGEMM_N, rows * SGEMM_N, SGEMM_N, SGEMM_N / rows);
    else
        printf("naive SGEMM %d^3 (%d threads, each %d multiply-adds)\n", SGEMM_N, SGEMM_N * SGEMM_N,
               SGEMM_N);
    double flops = 2.0 * rows * SGEMM_N * SGEMM_N;
    printf("  (each tier's fastest of %d launches)\n", SGEMM_RUNS);
    printf("  interpreter:   %8.3f s  %8.3g flop/s\n", in.seconds, flops / in.seconds);
    printf("  compiled tier: %8.3f s  %8.3g flop/s\n", jit.seconds, flops / jit.seconds);
    double speedup = in.seconds / jit.seconds;
    printf("  ratio compiled / interpreter: %.2fx   (target >= %.0fx: %s)\n", speedup, TARGET_SGEMM,
           verdict(speedup >= TARGET_SGEMM));
    printf("  tiers agree (outputs, modeled time): %s\n",
           in.hash == jit.hash && in.model == jit.model ? "yes" : "NO");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], atoll(argv[3]));
    long long n = argc > 1 ? atoll(argv[1]) : DEFAULT_N;
    int rows = argc > 2 ? atoi(argv[2]) : DEFAULT_SGEMM_ROWS;
    DIE_IF(n <= 0 || n > 0x7fffffffLL, "N must be in 1..2^31-1\n");
    DIE_IF(rows < SGEMM_TILE || rows > SGEMM_N || rows % SGEMM_TILE != 0,
           "SGEMM_ROWS must be a multiple of %d up to %d\n", SGEMM_TILE, SGEMM_N);
    int threads = getenv("KGEMU_THREADS") ? atoi(getenv("KGEMU_THREADS"))
                                          : (int)sysconf(_SC_NPROCESSORS_ONLN);
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    report_hidden(n, threads);
    fflush(stdout);
    report_sgemm(rows);
    return 0;
}
