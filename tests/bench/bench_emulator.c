/*
 * Benchmark: the virtual GPU's speed on the course's first assessment, the
 * hidden layer (out[i] = tanhf(g[i] / 255 * w[i])), against baselines
 * measured in the same run:
 * - a plain C loop computing the same outputs, compiled with -O2, on as many
 *   host threads as the emulator uses;
 * - numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, Debian's python3-numba)
 *   running the same kernel at a small size, when it is installed.
 * - the same launch with the timing model off (KGEMU_TIMING=off), to show
 *   what counting for the model costs.
 * Prints emulated threads per second and the ratios. Written against cuda.h
 * and NVRTC only, like the GPU tests.
 *
 *   bench_emulator [N]        (default 100,000,000)
 */
#include <cuda.h>
#include <math.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_N 100000000LL
#define NUMBA_N   100000
#define BLOCK     256

static const char *const kernel =
    "extern \"C\" __global__ void hidden_layer(const float *g, const float *w, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = tanhf(g[i] / 255.0f * w[i]);\n"
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

static CUfunction load_kernel(void)
{
    nvrtcProgram p;
    const char *opts[] = {"-arch=compute_90"};
    DIE_IF(nvrtcCreateProgram(&p, kernel, "hidden_layer.cu", 0, NULL, NULL) != NVRTC_SUCCESS ||
               nvrtcCompileProgram(p, 1, opts) != NVRTC_SUCCESS,
           "NVRTC failed\n");
    size_t n;
    nvrtcGetPTXSize(p, &n);
    char *ptx = malloc(n);
    nvrtcGetPTX(p, ptx);
    nvrtcDestroyProgram(&p);
    CUmodule m;
    CUfunction f;
    DIE_IF(cuModuleLoadData(&m, ptx) != CUDA_SUCCESS, "cannot load the PTX\n");
    DIE_IF(cuModuleGetFunction(&f, m, "hidden_layer") != CUDA_SUCCESS, "no kernel\n");
    free(ptx);
    return f;
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

/* Seconds one launch of the hidden layer takes on the host. */
static double launch_seconds(CUfunction f, long long n, void **args)
{
    double start = now();
    DIE_IF(cuLaunchKernel(f, (unsigned)((n + BLOCK - 1) / BLOCK), 1, 1, BLOCK, 1, 1, 0, NULL, args,
                          NULL) ||
               cuCtxSynchronize(),
           "the launch failed\n");
    return now() - start;
}

/* The plain C loop on `threads` host threads; seconds. */
static double c_loop(const float *g, const float *w, float *out, long long n, int threads)
{
    pthread_t t[64];
    struct loop_part parts[64];
    double start = now();
    for (int i = 0; i < threads; i++) {
        parts[i] = (struct loop_part){g, w, out, n * i / threads, n * (i + 1) / threads};
        pthread_create(&t[i], NULL, loop_worker, &parts[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return now() - start;
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

int main(int argc, char **argv)
{
    long long n = argc > 1 ? atoll(argv[1]) : DEFAULT_N;
    int threads = getenv("KGEMU_THREADS") ? atoi(getenv("KGEMU_THREADS"))
                                          : (int)sysconf(_SC_NPROCESSORS_ONLN);
    CUdevice d;
    CUcontext ctx;
    DIE_IF(cuInit(0) || cuDeviceGet(&d, 0) || cuCtxCreate(&ctx, NULL, 0, d), "no device\n");
    CUfunction f = load_kernel();
    size_t bytes = (size_t)n * sizeof(float);
    float *g = malloc(bytes), *w = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
    DIE_IF(!g || !w || !out || !ref, "out of memory\n");
    for (long long i = 0; i < n; i++) {
        g[i] = (float)(i * 7 % 255);
        w[i] = 0.4f + (float)(i % 13) * 0.015f;
    }
    CUdeviceptr dg, dw, dout;
    DIE_IF(cuMemAlloc(&dg, bytes) || cuMemAlloc(&dw, bytes) || cuMemAlloc(&dout, bytes) ||
               cuMemcpyHtoD(dg, g, bytes) || cuMemcpyHtoD(dw, w, bytes),
           "cannot set up device memory\n");
    int n32 = (int)n;
    void *args[] = {&dg, &dw, &dout, &n32};
    setenv("KGEMU_TIMING", "off", 1);
    double untimed = launch_seconds(f, n, args);
    unsetenv("KGEMU_TIMING");
    double emulated = launch_seconds(f, n, args);
    DIE_IF(cuMemcpyDtoH(out, dout, bytes), "cannot copy back\n");
    double native = c_loop(g, w, ref, n, threads);
    long long wrong = 0;
    for (long long i = 0; i < n; i++)
        wrong += fabsf(out[i] - ref[i]) > 1e-6f;
    printf("hidden layer, n = %lld, %d host threads (%lld outputs differ from the C loop's)\n", n,
           threads, wrong);
    printf("virtual GPU:       %8.3f s  %10.3g threads/s\n", emulated, (double)n / emulated);
    printf("  timing model off: %7.3f s  %10.3g threads/s   the model costs %.0f %%\n", untimed,
           (double)n / untimed, (emulated / untimed - 1) * 100);
    printf("plain C loop (-O2): %7.3f s  %10.3g threads/s   ratio emulator/C: %.1f\n", native,
           (double)n / native, emulated / native);
    double numba = numba_seconds();
    if (numba > 0)
        printf("numba CUDA simulator (n = %d): %.3f s  %10.3g threads/s   speed-up of the virtual "
               "GPU: %.0fx\n",
               NUMBA_N, numba, NUMBA_N / numba, ((double)n / emulated) / (NUMBA_N / numba));
    else
        printf("numba CUDA simulator: not installed (apt-get install python3-numba)\n");
    return 0;
}
