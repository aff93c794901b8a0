/*
 * The remote driver (emulator/README.md, "The remote driver"): a program
 * whose CUDA driver is build/emulator/remote/libcuda.so.1 runs on the
 * virtual GPU of another process, which serves its calls (kgemu_serve).
 *
 * This program is that other process: it makes a socketpair, forks a
 * child that runs with the client library as its libcuda.so.1 and the
 * socket in KGEMU_REMOTE_FD, and serves it; then it reads the client's
 * device time (kgemu_device_time), which must have grown. The children:
 * - this program again ("client"), a C program against cuda.h: device
 *   queries, copies of 68 MB (more than the 64 MB window: in chunks),
 *   memsets, a device-to-device copy, an NVRTC kernel launched between
 *   events on a stream, a link with its logs, a module variable, pointer
 *   and function attributes, and handles the server refuses; and once
 *   with no socket, where every call is CUDA_ERROR_NO_DEVICE;
 * - numba's runtime (tests/numba/numba_remote_program.py, in Debian's
 *   python3 when numba is there): a CUDA ufunc and a @cuda.jit kernel on
 *   device arrays.
 */
#include <libgen.h>
#include <limits.h>
#include <sys/socket.h>

#include "emulator/remote_protocol.h"
#include "gpu_test.h"

#define BIG_FLOATS   ((size_t)17 << 20) /* 68 MB: two chunks of the window */
#define KERNEL_N     (1 << 20)          /* the elements the kernel computes */
#define KERNEL_BLOCK 256
#define PYTHON       "/usr/bin/python3"
#define NUMBA_SCRIPT "tests/numba/numba_remote_program.py"

static const char *axpy_source =
    "__device__ float bias = 1.0f;\n"
    "extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i] + bias;\n"
    "}\n";

/* ------------------------------------------------------------ the client */

static void client_devices(void)
{
    int count = 0, major = 0, minor = 0, version = 0;
    CUdevice device;
    char name[256] = "";
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDriverGetVersion(&version));
    CHECK(version >= 12000);
    CHECK_CU(cuDeviceGetCount(&count));
    CHECK_EQ(count, 1);
    CHECK_CU(cuDeviceGet(&device, 0));
    CHECK_CU_IS(cuDeviceGet(&device, 5), CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU(cuDeviceGetName(name, sizeof name, 0));
    CHECK(name[0] != '\0');
    CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    CHECK(major >= 7);
    size_t total = 0;
    CHECK_CU(cuDeviceTotalMem(&total, 0));
    CHECK(total > ((size_t)1 << 30));
    const char *text = NULL;
    CHECK_CU(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &text));
    CHECK(text != NULL && strcmp(text, "CUDA_ERROR_INVALID_HANDLE") == 0);
}

static CUcontext client_context(void)
{
    CUcontext context = NULL, current = NULL;
    CHECK_CU_IS(cuMemAlloc(&(CUdeviceptr){0}, 16), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU(cuDevicePrimaryCtxRetain(&context, 0));
    CHECK_CU(cuCtxPushCurrent(context));
    CHECK_CU(cuCtxGetCurrent(&current));
    CHECK(current == context);
    CHECK_CU_IS(cuCtxPushCurrent((CUcontext)(uintptr_t)0x1000), CUDA_ERROR_INVALID_CONTEXT);
    return context;
}

/* 68 MB there and back, and the device's own copies and memsets. */
static void client_copies(void)
{
    float *host = malloc(BIG_FLOATS * sizeof *host), *back = malloc(BIG_FLOATS * sizeof *back);
    for (size_t i = 0; i < BIG_FLOATS; i++)
        host[i] = (float)(i % 65521);
    CUdeviceptr a = 0, b = 0;
    CHECK_CU(cuMemAlloc(&a, BIG_FLOATS * sizeof *host));
    CHECK_CU(cuMemAlloc(&b, BIG_FLOATS * sizeof *host));
    CHECK_CU(cuMemcpyHtoD(a, host, BIG_FLOATS * sizeof *host));
    CHECK_CU(cuMemcpyDtoD(b, a, BIG_FLOATS * sizeof *host));
    CHECK_CU(cuMemsetD8(a, 0, BIG_FLOATS * sizeof *host));
    CHECK_CU(cuMemcpyDtoH(back, b, BIG_FLOATS * sizeof *back));
    CHECK(memcmp(back, host, BIG_FLOATS * sizeof *host) == 0);
    CHECK_CU(cuMemcpyDtoH(back, a, BIG_FLOATS * sizeof *back));
    CHECK(back[0] == 0 && back[BIG_FLOATS - 1] == 0);
    CHECK_CU_IS(cuMemcpyHtoD(a + 8, host, BIG_FLOATS * sizeof *host), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoH(back, (CUdeviceptr)(uintptr_t)host, 64), CUDA_ERROR_INVALID_VALUE);
    size_t free_bytes = 0, total = 0;
    CHECK_CU(cuMemGetInfo(&free_bytes, &total));
    CHECK(free_bytes < total);
    CUdeviceptr base = 0;
    size_t size = 0;
    CHECK_CU(cuMemGetAddressRange(&base, &size, b + 100));
    CHECK(base == b && size == BIG_FLOATS * sizeof *host);
    unsigned type = 0;
    CHECK_CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, b));
    CHECK_EQ(type, CU_MEMORYTYPE_DEVICE);
    CHECK_CU(cuMemFree(a));
    CHECK_CU(cuMemFree(b));
    CHECK_CU_IS(cuMemFree(b), CUDA_ERROR_INVALID_VALUE);
    free(host);
    free(back);
}

/* The kernel through a link (its info log), its variable, a launch between
 * events on a stream. */
static CUmodule client_module(void)
{
    char *ptx = gpu_test_compile(axpy_source, "axpy.cu");
    char info[1024] = "", error[1024] = "";
    CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {info, (void *)sizeof info, error, (void *)sizeof error};
    CUlinkState link = NULL;
    void *image = NULL;
    size_t image_size = 0;
    CUmodule module = NULL;
    CHECK_CU(cuLinkCreate(4, options, values, &link));
    CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, strlen(ptx), "axpy.ptx", 0, NULL, NULL));
    CHECK_CU_IS(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, ptx, 16, "x.cubin", 0, NULL, NULL),
                CUDA_ERROR_NO_BINARY_FOR_GPU);
    CHECK(strstr(error, "x.cubin") != NULL);
    CHECK_CU(cuLinkComplete(link, &image, &image_size));
    CHECK(image_size > 0 && strstr(image, ".entry axpy") != NULL);
    CHECK_CU(gpu_test_load_ptx(&module, image, "the linked image"));
    CHECK_CU(cuLinkDestroy(link));
    CHECK_CU_IS(cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
    char bad_log[256] = "";
    CUmodule bad = NULL;
    CHECK(gpu_test_load_ptx_log(&bad, ".version 8.0\n.target sm_90\nnonsense", bad_log,
                                sizeof bad_log) != CUDA_SUCCESS);
    CHECK(bad_log[0] != '\0');
    free(ptx);
    return module;
}

static void client_launch(CUmodule module)
{
    CUfunction axpy = NULL;
    CHECK_CU(cuModuleGetFunction(&axpy, module, "axpy"));
    CHECK_CU_IS(cuModuleGetFunction(&axpy, module, "nope"), CUDA_ERROR_NOT_FOUND);
    CUdeviceptr bias = 0;
    size_t bias_bytes = 0;
    float two = 2.0f;
    CHECK_CU(cuModuleGetGlobal(&bias, &bias_bytes, module, "bias"));
    CHECK_EQ(bias_bytes, sizeof(float));
    CHECK_CU(cuMemcpyHtoD(bias, &two, sizeof two));
    int threads = 0;
    CHECK_CU(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, axpy));
    CHECK(threads >= KERNEL_BLOCK);
    float *x = malloc(KERNEL_N * sizeof *x), *y = malloc(KERNEL_N * sizeof *y);
    for (int i = 0; i < KERNEL_N; i++)
        x[i] = (float)i, y[i] = 1.0f;
    CUdeviceptr dx = gpu_test_upload(x, KERNEL_N * sizeof *x);
    CUdeviceptr dy = gpu_test_upload(y, KERNEL_N * sizeof *y);
    CUstream stream = NULL;
    CUevent start = NULL, end = NULL;
    CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK_CU(cuEventCreate(&start, 0));
    CHECK_CU(cuEventCreate(&end, 0));
    float a = 3.0f;
    int n = KERNEL_N;
    void *args[] = {&a, &dx, &dy, &n};
    CHECK_CU(cuEventRecord(start, stream));
    CHECK_CU(cuLaunchKernel(axpy, KERNEL_N / KERNEL_BLOCK, 1, 1, KERNEL_BLOCK, 1, 1, 0, stream,
                            args, NULL));
    CHECK_CU(cuMemcpyDtoHAsync(y, dy, KERNEL_N * sizeof *y, stream));
    CHECK_CU(cuEventRecord(end, stream));
    CHECK_CU(cuEventSynchronize(end));
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuStreamQuery(stream));
    CHECK_CU(cuEventQuery(end));
    float ms = 0;
    CHECK_CU(cuEventElapsedTime(&ms, start, end));
    CHECK(ms > 0);
    int wrong = 0;
    for (int i = 0; i < KERNEL_N; i++)
        wrong += y[i] != 3.0f * (float)i + 1.0f + 2.0f;
    CHECK_EQ(wrong, 0);
    CHECK_CU_IS(cuLaunchKernel(axpy, 1, 1, 1, 1, 1, 1, 0, (CUstream)(uintptr_t)0x5000, args, NULL),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuEventDestroy(start));
    CHECK_CU(cuEventDestroy(end));
    CHECK_CU(cuStreamDestroy(stream));
    CHECK_CU_IS(cuStreamDestroy(stream), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuMemFree(dx));
    CHECK_CU(cuMemFree(dy));
    CHECK_CU(cuModuleUnload(module));
    CHECK_CU_IS(cuModuleUnload(module), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemHostAlloc(&(void *){NULL}, 64, 0), CUDA_ERROR_NOT_SUPPORTED);
    free(x);
    free(y);
}

static int run_client(void)
{
    client_devices();
    CUcontext context = client_context();
    client_copies();
    client_launch(client_module());
    CHECK_CU(cuCtxPopCurrent(&context));
    CHECK_CU(cuDevicePrimaryCtxRelease(0));
    return gpu_test_summary();
}

/* Without the variable the client reaches nothing, and says so. */
static int run_alone(void)
{
    CHECK_CU_IS(cuInit(0), CUDA_ERROR_NO_DEVICE);
    CHECK_CU_IS(cuMemAlloc(&(CUdeviceptr){0}, 16), CUDA_ERROR_NO_DEVICE);
    return gpu_test_summary();
}

/* ------------------------------------------------------------ the server */

typedef int (*serve_fn)(int fd);
typedef int (*device_time_fn)(double *milliseconds);

/* Serves `argv` run with the client library (in `remote_dir`) as its
 * driver; one check of the child's exit status, one of the session's,
 * one that its device time grew. */
static void serve(serve_fn serve_client, const char *remote_dir, char *const argv[])
{
    int sv[2];
    if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0))
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char fd[16], driver[PATH_MAX];
        int child_fd = dup(sv[1]); /* without CLOEXEC */
        snprintf(fd, sizeof fd, "%d", child_fd);
        snprintf(driver, sizeof driver, "%s/libcuda.so.1", remote_dir);
        setenv(REMOTE_FD_VARIABLE, fd, 1);
        setenv("LD_LIBRARY_PATH", remote_dir, 1);
        setenv("NUMBA_CUDA_DRIVER", driver, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(sv[1]);
    int rc = serve_client(sv[0]);
    close(sv[0]);
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fprintf(stderr, "  (the client %s failed: status %#x)\n", argv[0], (unsigned)status);
    CHECK_EQ(rc, 0);
    device_time_fn device_time = (device_time_fn)dlsym(RTLD_DEFAULT, "kgemu_device_time");
    double ms = 0;
    CHECK(device_time != NULL && device_time(&ms) == CUDA_SUCCESS);
    CHECK(ms > 0);
    CUcontext context = NULL;
    CHECK_CU(cuCtxGetCurrent(&context));
    CHECK_CU(cuCtxDestroy(context));
}

/* This program as a client with no socket: one check of its exit status. */
static void run_unserved(const char *remote_dir, const char *self)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        unsetenv(REMOTE_FD_VARIABLE);
        setenv("LD_LIBRARY_PATH", remote_dir, 1);
        execl(self, self, "alone", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int numba_present(void)
{
    return access(PYTHON, X_OK) == 0 && system(PYTHON " -c 'import numba' >/dev/null 2>&1") == 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "client") == 0)
        return run_client();
    if (argc > 1 && strcmp(argv[1], "alone") == 0)
        return run_alone();
    serve_fn serve_client = (serve_fn)dlsym(RTLD_DEFAULT, "kgemu_serve");
    Dl_info where;
    if (serve_client == NULL || dladdr((void *)serve_client, &where) == 0) {
        printf("skipped: the driver is not kgrade's virtual GPU\n");
        return gpu_test_summary();
    }
    char library[PATH_MAX], remote_dir[PATH_MAX], self[PATH_MAX];
    snprintf(library, sizeof library, "%s", where.dli_fname);
    snprintf(remote_dir, sizeof remote_dir, "%s/remote", dirname(library));
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    serve(serve_client, remote_dir, (char *const[]){self, "client", NULL});
    run_unserved(remote_dir, self);
    if (numba_present())
        serve(serve_client, remote_dir, (char *const[]){PYTHON, NUMBA_SCRIPT, NULL});
    else
        printf("numba part skipped: no %s with numba\n", PYTHON);
    return gpu_test_summary();
}
