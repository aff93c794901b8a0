/*
 * Loading code as programs built with nvcc and runtimes such as numba do:
 * fatbinaries holding PTX (nvcc -fatbin -arch=compute_90, compressed with
 * Zstandard as nvcc does by default, with LZ4, or not at all, and one with
 * PTX for three architectures, of which each device takes the newest it
 * runs) through cuModuleLoadData, cuModuleLoadFatBinary and its wrapper,
 * cuModuleLoad from a file, and the JIT linker cuLink* with its log
 * buffers; then what is refused and why (cubins, damaged fatbinaries,
 * linking two modules that call each other), and the error paths.
 *
 * The fatbinaries are fatbin_fixtures.h (tests/gpu/fixtures/make_fatbins.sh).
 * Written against cuda.h and NVRTC only; see gpu_test.h.
 */
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fatbin_fixtures.h"
#include "gpu_test.h"

#define N        1000
#define LOG_SIZE 2048

static const char kernel_source[] = "extern \"C\" __global__ void scale(float *x, float a, int n)\n"
                                    "{\n"
                                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "    if (i < n) x[i] *= a;\n"
                                    "}\n";

/* Device functions nobody calls: a library the kernel leaves alone. */
static const char helper_source[] = "extern \"C\" __device__ float unused_helper(float x)\n"
                                    "{ return x * 3.0f; }\n";

/* A kernel that calls a function of another module, and that module. */
static const char caller_source[] = "extern \"C\" __device__ float twice(float x);\n"
                                    "extern \"C\" __global__ void call(float *x)\n"
                                    "{ x[threadIdx.x] = twice(x[threadIdx.x]); }\n";
static const char callee_source[] = "extern \"C\" __device__ float twice(float x)\n"
                                    "{ return 2.0f * x; }\n";

static const char *const relocatable[] = {"-rdc=true"};

/* Runs `scale` of `module` on 1..N by 2 and checks it doubled them. */
static void check_scale(CUmodule module)
{
    CUfunction f;
    if (!CHECK_CU(cuModuleGetFunction(&f, module, "scale")))
        return;
    float host[N], want[N];
    for (int i = 0; i < N; i++) {
        host[i] = (float)i;
        want[i] = 2.0f * (float)i;
    }
    CUdeviceptr d = gpu_test_upload(host, sizeof host);
    float a = 2.0f;
    int n = N;
    void *args[] = {&d, &a, &n};
    if (d != 0 && gpu_test_run(f, (N + 127) / 128, 128, args) &&
        gpu_test_download(host, d, sizeof host))
        CHECK_SAME(host, want, N);
}

static int ptx_target(CUmodule module)
{
    CUfunction f;
    int target = -1;
    if (CHECK_CU(cuModuleGetFunction(&f, module, "scale")))
        CHECK_CU(cuFuncGetAttribute(&target, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
    return target;
}

/* ------------------------------------------------------------ fatbinaries */

static void load_fatbin(const unsigned char *image, int want_target)
{
    CUmodule module;
    if (!CHECK_CU(cuModuleLoadData(&module, image)))
        return;
    CHECK_EQ(ptx_target(module), want_target);
    check_scale(module);
    CHECK_CU(cuModuleUnload(module));
}

/* What nvcc puts around an embedded fatbinary (fatbinary_section.h). */
struct fatbin_wrapper {
    int magic;
    int version;
    const void *data;
    void *filename_or_fatbins;
};

/* A load that must fail with `want` and a log line containing `says`. */
static void check_refused(const void *image, CUresult want, const char *says)
{
    char log[LOG_SIZE] = "";
    CUmodule module;
    CHECK_CU_IS(gpu_test_load_ptx_log(&module, image, log, sizeof log), want);
    if (!CHECK(strstr(log, says) != NULL))
        fprintf(stderr, "  the log says: %s\n", log);
}

static void test_fatbins(void)
{
    load_fatbin(fatbin_zstd, 90);
    load_fatbin(fatbin_lz4, 90);
    load_fatbin(fatbin_plain, 90);
    load_fatbin(fatbin_multi, 90); /* compute_80, _90 and _100: the H100 takes 90 */
    struct fatbin_wrapper wrapper = {0x466243B1, 1, fatbin_zstd, NULL};
    CUmodule module;
    if (CHECK_CU(cuModuleLoadFatBinary(&module, &wrapper))) {
        check_scale(module);
        CHECK_CU(cuModuleUnload(module));
    }
    if (CHECK_CU(cuModuleLoadFatBinary(&module, fatbin_lz4)))
        CHECK_CU(cuModuleUnload(module));
    CHECK_CU_IS(cuModuleLoadFatBinary(NULL, fatbin_zstd), CUDA_ERROR_INVALID_VALUE);
    check_refused(fatbin_cubin, CUDA_ERROR_NO_BINARY_FOR_GPU, "only cubins");

    unsigned char damaged[sizeof fatbin_zstd];
    memcpy(damaged, fatbin_zstd, sizeof damaged);
    damaged[0x70] ^= 0x5a; /* inside the compressed PTX */
    CUmodule m = NULL;
    CUresult rc = cuModuleLoadData(&m, damaged);
    CHECK(rc != CUDA_SUCCESS); /* refused, never a crash */
    memcpy(damaged, fatbin_zstd, sizeof damaged);
    damaged[0x18] = 0xff; /* the entry's payload runs past the fatbinary */
    check_refused(damaged, CUDA_ERROR_INVALID_IMAGE, "damaged");
    memcpy(damaged, fatbin_zstd, sizeof damaged);
    damaged[0x17] = 0x7f; /* the entry's header runs past it (found by fuzz_emu_fatbin) */
    check_refused(damaged, CUDA_ERROR_INVALID_IMAGE, "damaged");
    memcpy(damaged, fatbin_zstd, sizeof damaged);
    damaged[0x48] += 1; /* one byte more than the PTX unpacks to */
    check_refused(damaged, CUDA_ERROR_INVALID_IMAGE, "does not unpack");
    CHECK_CU(cuCtxSynchronize()); /* none of that is sticky */
}

/* --------------------------------------------------- other devices */

static void child_a100(void)
{
    CUcontext ctx;
    CUmodule module;
    if (gpu_test_start(&ctx) && CHECK_CU(cuModuleLoadData(&module, fatbin_multi)))
        CHECK_EQ(ptx_target(module), 80); /* the newest PTX an A100 runs */
}

static void child_t4(void)
{
    CUcontext ctx;
    if (gpu_test_start(&ctx)) /* sm_75: every PTX of the fatbinary is newer */
        check_refused(fatbin_multi, CUDA_ERROR_NO_BINARY_FOR_GPU, "newer than the device");
}

/* ------------------------------------------------- the compiled tier's cache */

/* The same kernel three ways: as written, with its source lines moved down
 * (other .loc lines in the PTX), and with one constant changed. */
#define BUMP_SOURCE(lead, k)                                                                       \
    lead "extern \"C\" __global__ void bump(float *x, int n)\n"                                    \
         "{\n"                                                                                     \
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                    \
         "    if (i < n) x[i] = x[i] * " k " + 1.0f;\n"                                            \
         "}\n"
#define BUMP_BIG (1 << 22) /* enough warp instructions to compile during the launch */

/* Loads `bump` from a new module of `source`. */
static bool bump_load(const char *source, CUmodule *module, CUfunction *f)
{
    return CHECK_CU(gpu_test_load_source(module, source, "bump.cu")) &&
           CHECK_CU(cuModuleGetFunction(f, *module, "bump"));
}

/* Runs `bump` on n floats 0..n-1 and checks the result; returns the
 * launch's compiled instructions, or -1. */
static long long bump_run(CUfunction f, int n, float k)
{
    int (*counters_of)(struct kgemu_counters *);
    *(void **)&counters_of = dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    float *host = malloc((size_t)n * sizeof *host);
    if (!CHECK(counters_of != NULL) || !CHECK(host != NULL)) {
        free(host);
        return -1;
    }
    for (int i = 0; i < n; i++)
        host[i] = (float)(i % 1000);
    CUdeviceptr d = gpu_test_upload(host, (size_t)n * sizeof *host);
    void *args[] = {&d, &n};
    struct kgemu_counters c = {0};
    long long compiled = -1;
    bool ran = d != 0 && gpu_test_run(f, (unsigned)(n + 255) / 256, 256, args);
    if (d != 0 && gpu_test_download(host, d, (size_t)n * sizeof *host) && ran &&
        CHECK_EQ(counters_of(&c), 1)) { /* the download frees d */
        int wrong = 0;
        for (int i = 0; i < n; i++)
            wrong += host[i] != (float)(i % 1000) * k + 1.0f;
        CHECK_EQ(wrong, 0);
        compiled = (long long)c.compiled_instructions;
    }
    free(host);
    return compiled;
}

/* Runs `bump` of a new module of `source` on n floats (compiled first by
 * kgemu_compile when `compile` says); returns the launch's compiled
 * instructions, or -1. */
static long long bump_compiled(const char *source, int n, float k, bool compile)
{
    CUmodule module;
    CUfunction f;
    if (!bump_load(source, &module, &f))
        return -1;
    int (*compile_now)(void *);
    *(void **)&compile_now = dlsym(RTLD_DEFAULT, "kgemu_compile");
    long long compiled = -1;
    if (!compile || (CHECK(compile_now != NULL) && CHECK_EQ(compile_now(f), CUDA_SUCCESS)))
        compiled = bump_run(f, n, k);
    CHECK_CU(cuModuleUnload(module));
    return compiled;
}

/* A kernel whose threads all leave at once when n is 0. */
static const char idle_source[] = "extern \"C\" __global__ void idle(float *x, int n)\n"
                                  "{\n"
                                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "    if (i >= n) return;\n"
                                  "    float v = x[i];\n"
                                  "    for (int j = 1; j < 8; j++) v = v * 0.5f + x[(i + j) % n];\n"
                                  "    x[i] = v;\n"
                                  "}\n";
#define IDLE_WARPS 80000 /* twice the default threshold's warps (40,000 per instruction) */

/* A launch of that many warps compiles its kernel at its first block, though
 * they run far fewer warp instructions than the threshold (a few each). */
static void many_warps_compile_at_once(int (*counters_of)(struct kgemu_counters *))
{
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, idle_source, "idle.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "idle")))
        return;
    CUdeviceptr d = gpu_test_upload(NULL, sizeof(float));
    int n = 0;
    void *args[] = {&d, &n};
    struct kgemu_counters c = {0};
    if (d != 0 && gpu_test_run(f, IDLE_WARPS / 8, 256, args) && CHECK_EQ(counters_of(&c), 1)) {
        CHECK(c.compiled_instructions > 0);
        /* far below the threshold of the kernel's 57 instructions: a few a warp */
        CHECK(c.compiled_instructions + c.interpreted_instructions < 40000ull * 20);
    }
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuModuleUnload(module));
}

/* On the compiled tier with its default threshold: a big launch compiles
 * `bump`; a small launch of the same kernel loaded again from other source
 * lines runs that code at once (the cache's key leaves the lines out),
 * and one of the kernel with another constant does not (it is another
 * kernel, and too small to compile), unless kgemu_compile compiled it
 * first; kgemu_compile refuses what is not a kernel. */
static void child_compiled_cache(void)
{
    setenv("KGEMU_TIER", "jit", 1);
    unsetenv("KGEMU_JIT_AFTER");
    CUcontext ctx;
    if (!gpu_test_start(&ctx))
        return;
    CHECK(bump_compiled(BUMP_SOURCE("", "3.0f"), BUMP_BIG, 3.0f, false) > 0);
    CHECK(bump_compiled(BUMP_SOURCE("\n\n// moved down\n", "3.0f"), 256, 3.0f, false) > 0);
    CHECK_EQ(bump_compiled(BUMP_SOURCE("", "5.0f"), 256, 5.0f, false), 0);
    CHECK(bump_compiled(BUMP_SOURCE("", "7.0f"), 256, 7.0f, true) > 0);
    int (*compile_now)(void *);
    *(void **)&compile_now = dlsym(RTLD_DEFAULT, "kgemu_compile");
    if (CHECK(compile_now != NULL))
        CHECK_EQ(compile_now(NULL), CUDA_ERROR_INVALID_HANDLE);
    int (*counters_of)(struct kgemu_counters *);
    *(void **)&counters_of = dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    if (CHECK(counters_of != NULL))
        many_warps_compile_at_once(counters_of);
}

/* Six kernels, more than kgemu_compile_all compiles at once (four), the
 * first two the same code from other source lines (one thread compiles it,
 * the other waits for it): a small launch of each then runs compiled and
 * right. */
#define COMPILE_ALL_KERNELS 6
static void child_compile_all(void)
{
    setenv("KGEMU_TIER", "jit", 1);
    unsetenv("KGEMU_JIT_AFTER");
    static const char *const sources[COMPILE_ALL_KERNELS] = {
        BUMP_SOURCE("", "11.0f"), BUMP_SOURCE("\n// moved\n", "11.0f"),
        BUMP_SOURCE("", "12.0f"), BUMP_SOURCE("", "13.0f"),
        BUMP_SOURCE("", "14.0f"), BUMP_SOURCE("", "15.0f"),
    };
    static const float factors[COMPILE_ALL_KERNELS] = {11, 11, 12, 13, 14, 15};
    int (*compile_all)(void *const *, int);
    *(void **)&compile_all = dlsym(RTLD_DEFAULT, "kgemu_compile_all");
    CUcontext ctx;
    CUmodule modules[COMPILE_ALL_KERNELS];
    CUfunction functions[COMPILE_ALL_KERNELS];
    if (!CHECK(compile_all != NULL) || !gpu_test_start(&ctx))
        return;
    for (int i = 0; i < COMPILE_ALL_KERNELS; i++)
        if (!bump_load(sources[i], &modules[i], &functions[i]))
            return;
    CHECK_EQ(compile_all(NULL, 0), CUDA_SUCCESS);
    CHECK_EQ(compile_all(NULL, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(compile_all((void *const *)functions, -1), CUDA_ERROR_INVALID_VALUE);
    CUfunction with_stale[] = {functions[0], NULL};
    CHECK_EQ(compile_all((void *const *)with_stale, 2), CUDA_ERROR_INVALID_HANDLE);
    CHECK_EQ(bump_run(functions[0], 256, factors[0]), 0); /* the refusal compiled nothing */
    CHECK_EQ(compile_all((void *const *)functions, COMPILE_ALL_KERNELS), CUDA_SUCCESS);
    for (int i = 0; i < COMPILE_ALL_KERNELS; i++) {
        CHECK(bump_run(functions[i], 256, factors[i]) > 0);
        CHECK_CU(cuModuleUnload(modules[i]));
    }
}

/* ------------------------------------------------------------ files */

/* Writes `bytes` of `data` to a new temporary file; its path goes to `path`. */
static bool write_temp(const void *data, size_t bytes, char *path, size_t size)
{
    snprintf(path, size, "/tmp/kgrade-test-modules-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    bool ok = write(fd, data, bytes) == (ssize_t)bytes;
    close(fd);
    return ok;
}

static void test_module_load(void)
{
    char *ptx = gpu_test_compile(kernel_source, "scale.cu");
    char path[64];
    CUmodule module;
    if (ptx != NULL && CHECK(write_temp(ptx, strlen(ptx), path, sizeof path))) {
        if (CHECK_CU(cuModuleLoad(&module, path))) {
            check_scale(module);
            CHECK_CU(cuModuleUnload(module));
        }
        unlink(path);
    }
    free(ptx);
    if (CHECK(write_temp(fatbin_zstd, fatbin_zstd_len, path, sizeof path))) {
        if (CHECK_CU(cuModuleLoad(&module, path))) {
            check_scale(module);
            CHECK_CU(cuModuleUnload(module));
        }
        unlink(path);
    }
    CHECK_CU_IS(cuModuleLoad(&module, "/nonexistent/kernel.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
    CHECK_CU_IS(cuModuleLoad(&module, "/tmp"), CUDA_ERROR_FILE_NOT_FOUND); /* a directory */
    CHECK_CU_IS(cuModuleLoad(NULL, "/tmp/x.ptx"), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuModuleLoad(&module, NULL), CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------------------ linking */

struct link_logs {
    char info[LOG_SIZE];
    char error[LOG_SIZE];
    CUjit_option options[4];
    void *values[4];
};

static CUresult link_create(struct link_logs *l, CUlinkState *link)
{
    memset(l, 0, sizeof *l);
    CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {l->info, (void *)(uintptr_t)LOG_SIZE, l->error, (void *)(uintptr_t)LOG_SIZE};
    memcpy(l->options, options, sizeof options);
    memcpy(l->values, values, sizeof values);
    return cuLinkCreate(4, l->options, l->values, link);
}

static CUresult link_add_source(CUlinkState link, const char *source, const char *name, bool rdc)
{
    char *ptx = gpu_test_compile_options(source, name, rdc ? 1 : 0, relocatable);
    if (ptx == NULL)
        return CUDA_ERROR_INVALID_SOURCE;
    CUresult rc = cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, strlen(ptx) + 1, name, 0, NULL, NULL);
    free(ptx);
    return rc;
}

/* Completes `link` and loads what it made; checks `scale` when asked. */
static void link_load(CUlinkState link, bool scale)
{
    void *image = NULL;
    size_t size = 0;
    if (!CHECK_CU(cuLinkComplete(link, &image, &size)))
        return;
    CHECK(image != NULL && size == strlen(image) + 1);
    CUmodule module;
    if (!CHECK_CU(cuModuleLoadData(&module, image)))
        return;
    if (scale)
        check_scale(module);
    CHECK_CU(cuModuleUnload(module));
}

static void test_link_one(void)
{
    struct link_logs l;
    CUlinkState link;
    if (!CHECK_CU(link_create(&l, &link)))
        return;
    CHECK_CU(link_add_source(link, kernel_source, "scale.cu", false));
    link_load(link, true);
    CHECK_EQ((uintptr_t)l.values[3], 0); /* no error: the error log is empty */
    CHECK_CU(cuLinkDestroy(link));

    /* The kernel beside a library of helpers it does not call (numba, cupy). */
    if (!CHECK_CU(link_create(&l, &link)))
        return;
    CHECK_CU(link_add_source(link, helper_source, "helpers.cu", true));
    CHECK_CU(link_add_source(link, kernel_source, "scale.cu", true));
    link_load(link, true);
    CHECK(strstr(l.info, "helpers.cu: left out") != NULL);
    CHECK_EQ((uintptr_t)l.values[1], strlen(l.info) + 1);
    CHECK_CU(cuLinkDestroy(link));

    /* PTX whose size does not count a terminator, as numba passes it
     * (len(ptx)): the text is the `size` bytes, nothing read past them. */
    char *text = gpu_test_compile(kernel_source, "scale.cu");
    char *unterminated = text != NULL ? malloc(strlen(text)) : NULL;
    if (unterminated != NULL && CHECK_CU(link_create(&l, &link))) {
        memcpy(unterminated, text, strlen(text));
        CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, unterminated, strlen(text), "numba.ptx", 0,
                               NULL, NULL));
        link_load(link, true);
        CHECK_CU(cuLinkDestroy(link));
    }
    free(unterminated);
    free(text);

    /* A fatbinary holding PTX, and a PTX file. */
    if (!CHECK_CU(link_create(&l, &link)))
        return;
    CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_FATBINARY, (void *)fatbin_lz4, fatbin_lz4_len,
                           "lz4.fatbin", 0, NULL, NULL));
    link_load(link, true);
    CHECK_CU(cuLinkDestroy(link));
    char *ptx = gpu_test_compile(kernel_source, "scale.cu");
    char path[64];
    if (ptx != NULL && CHECK(write_temp(ptx, strlen(ptx), path, sizeof path)) &&
        CHECK_CU(link_create(&l, &link))) {
        CHECK_CU(cuLinkAddFile(link, CU_JIT_INPUT_PTX, path, 0, NULL, NULL));
        link_load(link, true);
        CHECK_CU(cuLinkDestroy(link));
        unlink(path);
    }
    free(ptx);
}

/* What cannot be linked: refused with a reason in the error log. */
static void test_link_refused(void)
{
    struct link_logs l;
    CUlinkState link;
    void *image;
    if (!CHECK_CU(link_create(&l, &link)))
        return;
    CHECK_CU(link_add_source(link, caller_source, "caller.cu", true));
    CHECK_CU(link_add_source(link, callee_source, "callee.cu", true));
    CHECK_CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(strstr(l.error, "caller.cu refers to twice, which callee.cu defines") != NULL);
    CHECK_EQ((uintptr_t)l.values[3], strlen(l.error) + 1);
    CHECK_CU(cuLinkDestroy(link));

    if (!CHECK_CU(link_create(&l, &link)))
        return;
    CHECK_CU(link_add_source(link, kernel_source, "one.cu", false));
    CHECK_CU(link_add_source(link, caller_source, "two.cu", true));
    CHECK_CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(strstr(l.error, "one.cu and two.cu both define kernels") != NULL);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, (void *)fatbin_cubin, fatbin_cubin_len,
                              "k.cubin", 0, NULL, NULL),
                CUDA_ERROR_NO_BINARY_FOR_GPU);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_FATBINARY, (void *)fatbin_cubin, fatbin_cubin_len,
                              "sm90.fatbin", 0, NULL, NULL),
                CUDA_ERROR_NO_BINARY_FOR_GPU);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_LIBRARY, (void *)fatbin_plain, fatbin_plain_len,
                              "libcudadevrt.a", 0, NULL, NULL),
                CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_NVVM, (void *)fatbin_plain, fatbin_plain_len,
                              "k.ltoir", 0, NULL, NULL),
                CUDA_ERROR_NOT_SUPPORTED);
    CHECK(strstr(l.error, "libcudadevrt.a: the virtual GPU links PTX") != NULL);
    CHECK_CU_IS(cuLinkAddFile(link, CU_JIT_INPUT_PTX, "/nonexistent.ptx", 0, NULL, NULL),
                CUDA_ERROR_FILE_NOT_FOUND);
    CHECK(strstr(l.error, "/nonexistent.ptx: cannot be read") != NULL);
    CHECK_CU(cuLinkDestroy(link));
}

/* A log never runs past the size the caller gave. */
static void test_link_log_bounds(void)
{
    struct {
        char error[16];
        char canary[16];
    } small;
    memset(&small, 'x', sizeof small);
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {small.error, (void *)(uintptr_t)sizeof small.error};
    CUlinkState link;
    if (!CHECK_CU(cuLinkCreate(2, options, values, &link)))
        return;
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_LIBRARY, (void *)fatbin_plain, 8,
                              "a-long-library-name.a", 0, NULL, NULL),
                CUDA_ERROR_NOT_SUPPORTED);
    CHECK_EQ(strlen(small.error), sizeof small.error - 1);
    CHECK_EQ((uintptr_t)values[1], sizeof small.error);
    CHECK(small.canary[0] == 'x' && small.canary[15] == 'x');
    CHECK_CU(cuLinkDestroy(link));
}

static void test_link_errors(void)
{
    CUlinkState link = NULL;
    CUjit_option bad[] = {CU_JIT_NUM_OPTIONS};
    void *bad_values[] = {NULL};
    CHECK_CU_IS(cuLinkCreate(0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuLinkCreate(2, NULL, NULL, &link), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuLinkCreate(1, bad, bad_values, &link), CUDA_ERROR_INVALID_VALUE);
    CUmodule module;
    CHECK_CU_IS(cuModuleLoadDataEx(&module, fatbin_zstd, 1, bad, bad_values),
                CUDA_ERROR_INVALID_VALUE);
    if (!CHECK_CU(cuLinkCreate(0, NULL, NULL, &link)))
        return;
    void *image;
    char text[] = "not PTX";
    CHECK_CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_VALUE); /* no input */
    CHECK_CU_IS(cuLinkComplete(link, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_PTX, NULL, 8, "x", 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_PTX, text, 0, "x", 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, text, 3, "x", 0, NULL, NULL)); /* "not" */
    CHECK_CU_IS(cuLinkAddData(link, (CUjitInputType)99, text, sizeof text, "x", 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    CUjit_option log_option[] = {CU_JIT_ERROR_LOG_BUFFER};
    CHECK_CU_IS(
        cuLinkAddData(link, CU_JIT_INPUT_PTX, text, sizeof text, "x", 1, log_option, bad_values),
        CUDA_ERROR_INVALID_VALUE); /* logs belong to cuLinkCreate */
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_PTX, text, sizeof text, "x", 1, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuLinkAddFile(link, CU_JIT_INPUT_PTX, NULL, 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuLinkDestroy(link));
    CHECK_CU_IS(cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_PTX, text, sizeof text, "x", 0, NULL, NULL),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_HANDLE);
    int bogus_storage[16] = {0};
    CHECK_CU_IS(cuLinkDestroy((CUlinkState)(void *)bogus_storage), CUDA_ERROR_INVALID_HANDLE);
    /* A link the program forgets is freed with its context. */
    CHECK_CU(cuLinkCreate(0, NULL, NULL, &link));
}

int main(void)
{
    gpu_test_in_child("a100", child_a100);
    gpu_test_in_child("t4", child_t4);
    if (gpu_test_is_virtual())
        gpu_test_in_child("h100", child_compiled_cache);
    gpu_test_in_child("h100", child_compile_all);
    CUcontext ctx;
    if (!gpu_test_start(&ctx))
        return gpu_test_summary();
    test_fatbins();
    test_module_load();
    test_link_one();
    test_link_refused();
    test_link_log_bounds();
    test_link_errors();
    CHECK_CU(cuCtxDestroy(ctx));
    return gpu_test_summary();
}
