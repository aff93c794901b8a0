/*
 * Kernels that go wrong, on the virtual GPU: each must end with the right
 * CUresult from cuCtxSynchronize (the launch itself succeeds), a fault
 * record (kgemu_last_fault) that names the kernel, block, thread, address
 * and CUDA source line where it applies, and never a crash or a hang of the
 * host; and afterwards a new context must work.
 *
 * - guard zones (kgemu_guard): a write into the tail zone and a read from
 *   the head zone fault, name the element and record the access's size and
 *   direction, while copies still reach the whole allocation;
 * - a write one past the end of a buffer, a read just before the start of
 *   one, a read through a null pointer, a write to freed memory, a write
 *   through a wild pointer, out-of-range shared and local accesses;
 * - misaligned 4- and 8-byte accesses (CUDA_ERROR_MISALIGNED_ADDRESS);
 * - in every fault's message, never a host address (a device pointer is
 *   one): a buffer and its element ("element [1000] of the 1000-element
 *   buffer #1"), whose start the record gives (`buffer`), or "an address
 *   outside every buffer";
 * - threads of a block waiting at different barriers (a deadlock), and a
 *   warp spinning on a flag that a warp waiting at a barrier would set;
 * - a runaway loop under a small KGEMU_INSTRUCTION_BUDGET (set in the
 *   child's environment before cuInit): CUDA_ERROR_LAUNCH_TIMEOUT, quickly;
 * - assert() (CUDA_ERROR_ASSERT) and __trap();
 * - unbounded recursion (a stack overflow error, not a crash);
 * - device malloc: blocks that work, NULL beyond the heap, free;
 * - PTX the loader must refuse (a made-up instruction, a syntax error, an
 *   instruction the virtual GPU does not implement): CUDA_ERROR_INVALID_PTX
 *   and an error log that names the PTX line.
 * Each case runs in a child process with an alarm, so a hang fails the
 * test instead of blocking it; the child sends its pass and fail counts
 * back through a pipe.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_test.h"

#define CASE_SECONDS   60 /* the alarm of each child */
#define QUICK_SECONDS  10 /* a runaway kernel under a small budget ends sooner */
#define SMALL_BUDGET   "5000000"
#define N              1000
#define THREADS        128
#define ROUND_UP(n, m) (((n) + (m)-1) / (m) * (m))

static int (*last_fault)(struct kgemu_fault *);
static int (*is_virtual)(void);
static int (*guard)(unsigned long long, unsigned long long, unsigned long long);

/* ------------------------------------------------------------ the kernels */

/* Line numbers matter: the fault records name the CUDA source line. */
static const char source[] =
    "extern \"C\" __global__ void one_past(int *p, int n)\n" /* 1 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i <= n)\n"
    "        p[i] = i;\n" /* 5: the faulting store */
    "}\n"
    "extern \"C\" __global__ void read_null(const int *p, int *out)\n"
    "{\n"
    "    if (threadIdx.x == 3)\n"
    "        out[0] = p[0];\n" /* 10 */
    "}\n"
    "extern \"C\" __global__ void misaligned(char *p, int *out, int offset)\n"
    "{\n"
    "    out[threadIdx.x] = *(int *)(p + offset + 4 * threadIdx.x);\n" /* 14 */
    "}\n"
    "extern \"C\" __global__ void misaligned64(char *p, double *out)\n"
    "{\n"
    "    out[0] = *(double *)(p + 4);\n" /* 18 */
    "}\n"
    "extern \"C\" __global__ void shared_oob(int *out, int index)\n"
    "{\n"
    "    extern __shared__ int s[];\n"
    "    s[threadIdx.x] = threadIdx.x;\n"
    "    __syncthreads();\n"
    "    out[threadIdx.x] = s[threadIdx.x + index];\n" /* 25 */
    "}\n"
    "extern \"C\" __global__ void local_oob(int *out, int index)\n"
    "{\n"
    "    int t[16];\n"
    "    for (int k = 0; k < 16; k++) t[k] = k * out[k];\n"
    "    out[threadIdx.x] = t[index];\n" /* 31 */
    "}\n"
    "extern \"C\" __global__ void named_barriers(int *out)\n"
    "{\n"
    "    if (threadIdx.x < 32) asm volatile(\"bar.sync 1;\");\n" /* 35 */
    "    else asm volatile(\"bar.sync 2;\");\n"
    "    out[threadIdx.x] = 1;\n"
    "}\n"
    "extern \"C\" __global__ void spin_at_barrier(volatile int *flag, int *out)\n"
    "{\n"
    "    if (threadIdx.x < 32) {\n"
    "        __syncthreads();\n"
    "        flag[0] = 1;\n"
    "    } else {\n"
    "        while (flag[0] == 0)\n"
    "            out[threadIdx.x]++;\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void runaway(volatile int *flag, int *out)\n"
    "{\n"
    "    int k = 0;\n"
    "    while (flag[0] == 0)\n"
    "        out[threadIdx.x] = ++k;\n"
    "}\n"
    "extern \"C\" __global__ void asserts(int *out, int bad)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    assert(i != bad);\n" /* 58 */
    "    out[i] = i;\n"
    "}\n"
    "extern \"C\" __global__ void traps(int *out)\n"
    "{\n"
    "    if (threadIdx.x == 7) __trap();\n"
    "    out[threadIdx.x] = 1;\n"
    "}\n"
    "__device__ __noinline__ int deeper(int n, int *out)\n"
    "{\n"
    "    int buf[8];\n"
    "    for (int k = 0; k < 8; k++) buf[k] = n + k + out[k];\n"
    "    int r = deeper(n + 1, out);\n"
    "    return r + buf[r & 7];\n"
    "}\n"
    "extern \"C\" __global__ void recurse(int *out)\n"
    "{\n"
    "    out[threadIdx.x] = deeper(threadIdx.x, out);\n"
    "}\n"
    "/* Each thread takes `count` blocks of `bytes`, fills and checks them,\n"
    " * records them, and frees them unless told to keep them. */\n"
    "extern \"C\" __global__ void heap(unsigned long long *ptrs, int count, int bytes,\n"
    "                                 int keep, int *bad)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    for (int k = 0; k < count; k++) {\n"
    "        int *p = (int *)malloc(bytes);\n"
    "        ptrs[i * count + k] = (unsigned long long)p;\n"
    "        if (p == 0) continue;\n"
    "        for (int j = 0; j < bytes / 4; j++) p[j] = i * 1000 + j;\n"
    "        for (int j = 0; j < bytes / 4; j++) if (p[j] != i * 1000 + j) atomicAdd(bad, 1);\n"
    "        if (!keep) free(p);\n"
    "    }\n"
    "    free(0);\n"
    "}\n"
    "extern \"C\" __global__ void free_all(unsigned long long *ptrs, int count)\n"
    "{\n"
    "    for (int k = 0; k < count; k++) free((void *)ptrs[k]);\n"
    "}\n"
    "extern \"C\" __global__ void healthy(int *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = 3 * i + 1;\n"
    "}\n";

/* ----------------------------------------------------- running the cases */

/* The current context's module and its kernels, in a child. */
static CUmodule module;

static CUfunction kernel(const char *name)
{
    CUfunction f = NULL;
    CHECK_CU(cuModuleGetFunction(&f, module, name));
    return f;
}

static int start(CUcontext *context)
{
    return CHECK_CU(cuInit(0)) && CHECK_CU(cuCtxCreate(context, NULL, 0, 0)) &&
           CHECK_CU(gpu_test_load_source(&module, source, "faults.cu"));
}

/* start(), and a new device buffer of `bytes`. */
static int start_with(CUcontext *context, CUdeviceptr *buffer, size_t bytes)
{
    return start(context) && CHECK_CU(cuMemAlloc(buffer, bytes));
}

/* The fault record says `code`, names `kernel_name`, and, when thread is
 * not NULL, that block and thread; source_line when not 0. Skipped when
 * the driver is not the virtual GPU. */
static void check_record(CUresult code, const char *kernel_name, const unsigned *block,
                         const unsigned *thread, int source_line)
{
    if (last_fault == NULL)
        return;
    struct kgemu_fault f;
    memset(&f, 0, sizeof f);
    if (!CHECK_EQ(last_fault(&f), 1))
        return;
    printf("    fault: %s\n", f.message);
    CHECK_EQ(f.code, code);
    CHECK(strcmp(f.kernel, kernel_name) == 0);
    CHECK(f.message[0] != '\0');
    CHECK(gpu_test_no_host_address(f.message));
    if (thread != NULL) {
        CHECK_EQ(f.has_thread, 1);
        CHECK(memcmp(f.block, block, 3 * sizeof *block) == 0);
        CHECK(memcmp(f.thread, thread, 3 * sizeof *thread) == 0);
    }
    if (source_line != 0)
        CHECK_EQ(f.source_line, source_line);
}

/* After a fault: the faulting context stays broken (sticky), and a new
 * context runs a kernel correctly. */
static void check_recovery(CUcontext broken)
{
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, 16) != CUDA_SUCCESS);
    CHECK_CU(cuCtxDestroy(broken));
    CUcontext fresh;
    CUmodule fresh_module;
    CUfunction f;
    if (!CHECK_CU(cuCtxCreate(&fresh, NULL, 0, 0)))
        return;
    if (CHECK_CU(gpu_test_load_source(&fresh_module, source, "faults.cu")) &&
        CHECK_CU(cuModuleGetFunction(&f, fresh_module, "healthy"))) {
        int out[N], want[N], n = N;
        for (int i = 0; i < N; i++)
            want[i] = 3 * i + 1;
        CUdeviceptr dout = gpu_test_upload(NULL, sizeof out);
        void *args[] = {&dout, &n};
        if (gpu_test_run(f, (N + THREADS - 1) / THREADS, THREADS, args) &&
            gpu_test_download(out, dout, sizeof out))
            CHECK_SAME(out, want, N);
        if (last_fault != NULL)
            CHECK_EQ(last_fault(NULL), 0); /* the new context has had no fault */
    }
    CHECK_CU(cuCtxDestroy(fresh));
}

/* Launches (which must succeed) and expects `code` from the sync. */
static int launch_expect(CUfunction f, unsigned blocks, unsigned threads, unsigned shared,
                         void **args, CUresult code)
{
    int launched =
        CHECK_CU(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, shared, NULL, args, NULL));
    CUresult rc = cuCtxSynchronize();
    if (rc != code)
        gpu_test_print_fault();
    return CHECK_CU_IS(rc, code) && launched;
}

/* Launches `name` (which must succeed) on `blocks` of `threads` and returns
 * what the sync says. */
static CUresult launch_and_sync(const char *name, unsigned blocks, unsigned threads, void **args)
{
    CUresult rc = CUDA_SUCCESS;
    if (CHECK_CU(cuLaunchKernel(kernel(name), blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL)))
        rc = cuCtxSynchronize();
    return rc;
}

/* A kernel that cannot finish: any error, and on the virtual GPU `code`
 * with a fault record naming `name`. */
static void check_launch_failed(CUresult rc, CUresult code, const char *name)
{
    CHECK(rc != CUDA_SUCCESS);
    if (is_virtual != NULL) {
        CHECK_CU_IS(rc, code);
        check_record(rc, name, NULL, NULL, 0);
    }
}

/* Runs `body` in a child with an alarm (and `env` set, when not NULL, as
 * "NAME=value"), adds its pass and fail counts to ours. */
static void run_case(const char *name, void (*body)(void), const char *env)
{
    int fds[2];
    printf("  %s\n", name);
    fflush(stdout);
    fflush(stderr);
    if (!CHECK(pipe(fds) == 0))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (env != NULL)
            putenv((char *)env);
        alarm(CASE_SECONDS);
        gpu_test.passed = gpu_test.failed = 0;
        body();
        int counts[2] = {gpu_test.passed, gpu_test.failed};
        ssize_t w = write(fds[1], counts, sizeof counts);
        fflush(stdout);
        _exit(w == sizeof counts ? 0 : 1);
    }
    close(fds[1]);
    int counts[2] = {0, 0}, status = 0;
    ssize_t got = pid > 0 ? read(fds[0], counts, sizeof counts) : -1;
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (got == (ssize_t)sizeof counts && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        gpu_test.passed += counts[0];
        gpu_test.failed += counts[1];
        return;
    }
    gpu_test.failed++;
    if (WIFSIGNALED(status))
        fprintf(stderr, "%s:%d: FAILED: case \"%s\" died of signal %d%s\n", __FILE__, __LINE__,
                name, WTERMSIG(status), WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
    else
        fprintf(stderr, "%s:%d: FAILED: case \"%s\" did not report\n", __FILE__, __LINE__, name);
}

/* ----------------------------------------------------------- the cases */

/* The memory fault's message has `needle`, and its record the access's
 * size and direction and the start of the buffer it names (0: none). */
static void check_access(const char *needle, unsigned bytes, int write, CUdeviceptr buffer)
{
    struct kgemu_fault f;
    memset(&f, 0, sizeof f);
    if (last_fault == NULL || !CHECK_EQ(last_fault(&f), 1))
        return;
    if (!CHECK(strstr(f.message, needle) != NULL))
        fprintf(stderr, "  the message was: %s\n", f.message);
    CHECK(gpu_test_no_host_address(f.message));
    CHECK_EQ(f.access_bytes, bytes);
    CHECK_EQ(f.access_write, write);
    CHECK_EQ(f.buffer, buffer);
}

/* Launches `name` on one block of 32 threads, which must stop with an
 * illegal address: a 4-byte access of thread `lane` at CUDA line `line`,
 * whose message has `needle` (check_access). */
static void expect_memory_fault(const char *name, void **args, unsigned lane, int line,
                                const char *needle, int write, CUdeviceptr buffer)
{
    if (!launch_expect(kernel(name), 1, 32, 0, args, CUDA_ERROR_ILLEGAL_ADDRESS))
        return;
    unsigned block[3] = {0, 0, 0}, thread[3] = {lane, 0, 0};
    check_record(CUDA_ERROR_ILLEGAL_ADDRESS, name, block, thread, line);
    check_access(needle, 4, write, buffer);
}

static void case_one_past(void)
{
    CUcontext context;
    CUdeviceptr p;
    if (!start_with(&context, &p, N * sizeof(int)))
        return;
    int n = N;
    void *args[] = {&p, &n};
    /* 8 blocks of 128 cover 0..1023; only thread 1000 (block 7, thread 104) is one past */
    if (launch_expect(kernel("one_past"), (N + THREADS) / THREADS, THREADS, 0, args,
                      CUDA_ERROR_ILLEGAL_ADDRESS)) {
        unsigned block[3] = {N / THREADS, 0, 0}, thread[3] = {N % THREADS, 0, 0};
        check_record(CUDA_ERROR_ILLEGAL_ADDRESS, "one_past", block, thread, 5);
        check_access("wrote 4 bytes at element [1000] of the 1000-element buffer #1 (one past "
                     "its end)",
                     4, 1, p);
        struct kgemu_fault f;
        if (last_fault != NULL && last_fault(&f) == 1)
            CHECK_EQ(f.address, p + N * sizeof(int));
    }
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS); /* sticky */
    check_recovery(context);
}

/* A buffer of N ints with GUARD bytes of guard zone either side. */
#define GUARD 256
static int guarded_buffer(CUcontext *context, CUdeviceptr *base)
{
    if (!start(context) || !CHECK_CU(cuMemAlloc(base, N * sizeof(int) + 2 * GUARD)))
        return 0;
    CHECK_CU_IS((CUresult)guard(*base + 4, GUARD, GUARD), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS((CUresult)guard(*base, N * sizeof(int), 2 * GUARD + 1), CUDA_ERROR_INVALID_VALUE);
    return CHECK_CU((CUresult)guard(*base, GUARD, GUARD)) &&
           CHECK_CU(cuMemsetD8(*base, 0, N * sizeof(int) + 2 * GUARD)); /* copies reach all */
}

static void case_guard_write(void)
{
    CUcontext context;
    CUdeviceptr base;
    if (guard == NULL || !guarded_buffer(&context, &base))
        return;
    CUdeviceptr p = base + GUARD;
    int n = N - 1;
    void *args[] = {&p, &n};
    CHECK(launch_expect(kernel("one_past"), (N + THREADS) / THREADS, THREADS, 0, args,
                        CUDA_SUCCESS)); /* the window itself is open */
    n = N;
    if (launch_expect(kernel("one_past"), (N + THREADS) / THREADS, THREADS, 0, args,
                      CUDA_ERROR_ILLEGAL_ADDRESS)) {
        unsigned block[3] = {N / THREADS, 0, 0}, thread[3] = {N % THREADS, 0, 0};
        check_record(CUDA_ERROR_ILLEGAL_ADDRESS, "one_past", block, thread, 5);
        check_access("element [1000] of the 1000-element buffer #", 4, 1, p);
    }
    check_recovery(context);
}

static void case_guard_read(void)
{
    CUcontext context;
    CUdeviceptr base, out;
    if (guard == NULL || !guarded_buffer(&context, &base) || !CHECK_CU(cuMemAlloc(&out, 16)))
        return;
    CUdeviceptr p = base + GUARD - 4; /* read_null's thread 3 reads p[0] */
    void *args[] = {&p, &out};
    if (launch_expect(kernel("read_null"), 1, 32, 0, args, CUDA_ERROR_ILLEGAL_ADDRESS)) {
        unsigned block[3] = {0, 0, 0}, thread[3] = {3, 0, 0};
        check_record(CUDA_ERROR_ILLEGAL_ADDRESS, "read_null", block, thread, 10);
        check_access("element [-1] of the 1000-element buffer #", 4, 0, base + GUARD);
        check_access("(before its start)", 4, 0, base + GUARD);
    }
    check_recovery(context);
}

static void case_read_null(void)
{
    CUcontext context;
    CUdeviceptr out;
    if (!start_with(&context, &out, 16))
        return;
    CUdeviceptr null = 0;
    void *args[] = {&null, &out};
    expect_memory_fault("read_null", args, 3, 10, "read 4 bytes at address 0, a null pointer", 0,
                        0);
    struct kgemu_fault f;
    if (last_fault != NULL && last_fault(&f) == 1)
        CHECK_EQ(f.address, 0);
    check_recovery(context);
}

/* read_null's thread 3 reads just before a buffer that has no guard zone. */
static void case_read_before_start(void)
{
    CUcontext context;
    CUdeviceptr out, b;
    if (!start_with(&context, &out, 16) || !CHECK_CU(cuMemAlloc(&b, N * sizeof(int))))
        return;
    CUdeviceptr p = b - sizeof(int);
    void *args[] = {&p, &out};
    expect_memory_fault("read_null", args, 3, 10,
                        "read 4 bytes at element [-1] of the 1000-element buffer #2 (before its "
                        "start)",
                        0, b);
    check_recovery(context);
}

/* one_past's thread 0 writes through a pointer a terabyte past a buffer. */
static void case_wild_pointer(void)
{
    CUcontext context;
    CUdeviceptr p;
    if (!start_with(&context, &p, N * sizeof(int)))
        return;
    CUdeviceptr wild = p + ((CUdeviceptr)1 << 40);
    int n = 0;
    void *args[] = {&wild, &n};
    expect_memory_fault("one_past", args, 0, 5, "wrote 4 bytes at an address outside every buffer",
                        1, 0);
    check_recovery(context);
}

static void case_use_after_free(void)
{
    CUcontext context;
    CUdeviceptr p;
    if (!start_with(&context, &p, N * sizeof(int)))
        return;
    CHECK_CU(cuMemFree(p));
    int n = 10;
    void *args[] = {&p, &n};
    if (launch_expect(kernel("one_past"), 1, 32, 0, args, CUDA_ERROR_ILLEGAL_ADDRESS)) {
        check_record(CUDA_ERROR_ILLEGAL_ADDRESS, "one_past", NULL, NULL, 5);
        check_access("element [0] of the 1000-element buffer #1, which was freed before the launch",
                     4, 1, p);
    }
    check_recovery(context);
}

static void case_misaligned(void)
{
    CUcontext context;
    CUdeviceptr p, out;
    if (!start_with(&context, &p, 4096) || !CHECK_CU(cuMemAlloc(&out, 4096)))
        return;
    int offset = 0;
    void *args[] = {&p, &out, &offset};
    /* aligned first: it works */
    CHECK(launch_expect(kernel("misaligned"), 1, 32, 0, args, CUDA_SUCCESS));
    offset = 2;
    if (launch_expect(kernel("misaligned"), 1, 32, 0, args, CUDA_ERROR_MISALIGNED_ADDRESS)) {
        unsigned block[3] = {0, 0, 0}, thread[3] = {0, 0, 0};
        check_record(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned", block, thread, 14);
        check_access("read 4 bytes at byte 2 of the 4096-byte buffer #1, an address that is not "
                     "a multiple of 4",
                     4, 0, p);
    }
    check_recovery(context);
    if (!start_with(&context, &p, 4096) || !CHECK_CU(cuMemAlloc(&out, 4096)))
        return;
    void *args64[] = {&p, &out};
    if (launch_expect(kernel("misaligned64"), 1, 1, 0, args64, CUDA_ERROR_MISALIGNED_ADDRESS)) {
        check_record(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned64", NULL, NULL, 18);
        check_access("read 8 bytes at byte 4 of the 4096-byte buffer #1, an address that is not "
                     "a multiple of 8",
                     8, 0, p);
    }
    check_recovery(context);
}

static void case_shared_oob(void)
{
    CUcontext context;
    CUdeviceptr out;
    if (!start_with(&context, &out, 4096))
        return;
    int index = 0;
    void *args[] = {&out, &index};
    CHECK(launch_expect(kernel("shared_oob"), 1, 64, 64 * sizeof(int), args, CUDA_SUCCESS));
    index = 1000; /* 64 ints of dynamic shared memory */
    if (launch_expect(kernel("shared_oob"), 1, 64, 64 * sizeof(int), args,
                      CUDA_ERROR_ILLEGAL_ADDRESS))
        check_record(CUDA_ERROR_ILLEGAL_ADDRESS, "shared_oob", NULL, NULL, 25);
    check_recovery(context);
}

static void case_local_oob(void)
{
    CUcontext context;
    CUdeviceptr out;
    if (!start_with(&context, &out, 4096))
        return;
    int index = 1 << 24;
    void *args[] = {&out, &index};
    if (launch_expect(kernel("local_oob"), 1, 32, 0, args, CUDA_ERROR_ILLEGAL_ADDRESS))
        check_record(CUDA_ERROR_ILLEGAL_ADDRESS, "local_oob", NULL, NULL, 31);
    check_recovery(context);
}

static void case_named_barriers(void)
{
    CUcontext context;
    CUdeviceptr out;
    if (!start_with(&context, &out, 4096))
        return;
    void *args[] = {&out};
    /* a deadlock: an error, whichever (the virtual GPU says LAUNCH_FAILED) */
    check_launch_failed(launch_and_sync("named_barriers", 1, 64, args), CUDA_ERROR_LAUNCH_FAILED,
                        "named_barriers");
    struct kgemu_fault f;
    if (is_virtual != NULL && last_fault(&f) == 1)
        CHECK(strstr(f.message, "barrier") != NULL);
    check_recovery(context);
}

static void case_spin_at_barrier(void)
{
    CUcontext context;
    CUdeviceptr flag, out;
    if (!start_with(&context, &flag, 4) || !CHECK_CU(cuMemsetD32(flag, 0, 1)) ||
        !CHECK_CU(cuMemAlloc(&out, 4096)))
        return;
    void *args[] = {&flag, &out};
    time_t t0 = time(NULL);
    CUresult rc = launch_and_sync("spin_at_barrier", 1, 64, args);
    /* warp 1 waits for a flag warp 0 sets after a barrier warp 1 never
     * reaches: it cannot finish; under the small budget it must end soon */
    CHECK(rc == CUDA_ERROR_LAUNCH_TIMEOUT || rc == CUDA_ERROR_LAUNCH_FAILED);
    CHECK(time(NULL) - t0 <= QUICK_SECONDS);
    check_recovery(context);
}

static void case_runaway(void)
{
    CUcontext context;
    CUdeviceptr flag, out;
    if (!start_with(&context, &flag, 4) || !CHECK_CU(cuMemsetD32(flag, 0, 1)) ||
        !CHECK_CU(cuMemAlloc(&out, 1 << 16)))
        return;
    void *args[] = {&flag, &out};
    time_t t0 = time(NULL);
    if (launch_expect(kernel("runaway"), 4, 256, 0, args, CUDA_ERROR_LAUNCH_TIMEOUT))
        check_record(CUDA_ERROR_LAUNCH_TIMEOUT, "runaway", NULL, NULL, 0);
    long took = (long)(time(NULL) - t0);
    printf("    stopped after %ld s\n", took);
    CHECK(took <= QUICK_SECONDS);
    check_recovery(context);
}

static void case_assert(void)
{
    CUcontext context;
    CUdeviceptr out;
    /* room for every thread of the grid: the assert must be the only fault
     * (a write past the end in another block could be reported first) */
    if (!start_with(&context, &out, ROUND_UP(N, THREADS) * sizeof(int)))
        return;
    int bad = 777;
    void *args[] = {&out, &bad};
    if (launch_expect(kernel("asserts"), (N + THREADS - 1) / THREADS, THREADS, 0, args,
                      CUDA_ERROR_ASSERT)) {
        unsigned block[3] = {777 / THREADS, 0, 0}, thread[3] = {777 % THREADS, 0, 0};
        check_record(CUDA_ERROR_ASSERT, "asserts", block, thread, 58);
    }
    check_recovery(context);
}

static void case_trap(void)
{
    CUcontext context;
    CUdeviceptr out;
    if (!start_with(&context, &out, 4096))
        return;
    void *args[] = {&out};
    CUresult rc = launch_and_sync("traps", 2, 32, args);
    CHECK_CU_EITHER(rc, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ILLEGAL_INSTRUCTION);
    check_record(rc, "traps", NULL, NULL, 0);
    check_recovery(context);
}

static void case_stack_overflow(void)
{
    CUcontext context;
    CUdeviceptr out;
    if (!start_with(&context, &out, 4096) || !CHECK_CU(cuMemsetD8(out, 0, 4096)))
        return;
    void *args[] = {&out};
    /* an error, not a crash; the virtual GPU says HARDWARE_STACK_ERROR */
    check_launch_failed(launch_and_sync("recurse", 1, 32, args), CUDA_ERROR_HARDWARE_STACK_ERROR,
                        "recurse");
    check_recovery(context);
}

static int compare_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static void case_malloc(void)
{
    enum { HEAP = 1 << 20, BLOCK_BYTES = 1000, THREADS_M = 64, PER_THREAD = 40 };
    CUcontext context;
    CUdeviceptr ptrs, bad;
    static unsigned long long p[THREADS_M * PER_THREAD];
    if (!start(&context))
        return;
    /* the heap's size is fixed at the first launch */
    CHECK_CU(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, HEAP));
    size_t heap = 0;
    CHECK_CU(cuCtxGetLimit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE));
    CHECK_EQ(heap, HEAP);
    if (!CHECK_CU(cuMemAlloc(&ptrs, sizeof p)) || !CHECK_CU(cuMemAlloc(&bad, 4)) ||
        !CHECK_CU(cuMemsetD32(bad, 0, 1)))
        return;
    CUfunction f = kernel("heap");
    /* 1. Small blocks, freed at once: all succeed and hold what was written. */
    int count = 4, bytes = 256, keep = 0;
    void *args[] = {&ptrs, &count, &bytes, &keep, &bad};
    if (!gpu_test_run(f, 1, THREADS_M, args))
        return;
    int bad_count = -1;
    CHECK_CU(cuMemcpyDtoH(p, ptrs, THREADS_M * 4 * sizeof *p));
    int nulls = 0;
    for (int i = 0; i < THREADS_M * 4; i++)
        nulls += p[i] == 0;
    CHECK_EQ(nulls, 0);
    /* 2. Kept blocks of 1000 bytes until the 1 MB heap runs out: some
     * succeed, then NULL; the ones that succeed do not overlap. */
    count = PER_THREAD;
    bytes = BLOCK_BYTES;
    keep = 1;
    if (!gpu_test_run(f, 1, THREADS_M, args))
        return;
    CHECK_CU(cuMemcpyDtoH(p, ptrs, sizeof p));
    CHECK_CU(cuMemcpyDtoH(&bad_count, bad, sizeof bad_count));
    CHECK_EQ(bad_count, 0);
    int got = 0;
    for (int i = 0; i < THREADS_M * PER_THREAD; i++)
        if (p[i] != 0)
            p[got++] = p[i];
    printf("    %d of %d blocks of %d bytes fit in the %d-byte heap\n", got, THREADS_M * PER_THREAD,
           BLOCK_BYTES, HEAP);
    CHECK(got > 0 && got < THREADS_M * PER_THREAD);
    CHECK((size_t)got * BLOCK_BYTES <= HEAP);
    CHECK((size_t)got * BLOCK_BYTES >= HEAP / 2); /* most of the heap is usable */
    qsort(p, (size_t)got, sizeof *p, compare_u64);
    int overlaps = 0;
    for (int i = 0; i + 1 < got; i++)
        overlaps += p[i + 1] - p[i] < BLOCK_BYTES;
    CHECK_EQ(overlaps, 0);
    /* 3. One block bigger than the heap: NULL. */
    count = 1;
    bytes = HEAP * 2;
    keep = 0;
    if (gpu_test_run(f, 1, 1, args)) {
        unsigned long long big = 1;
        CHECK_CU(cuMemcpyDtoH(&big, ptrs, sizeof big));
        CHECK_EQ(big, 0);
    }
    /* 4. Free everything, then the heap has room again. */
    CUdeviceptr kept;
    if (CHECK_CU(cuMemAlloc(&kept, (size_t)got * sizeof *p)) &&
        CHECK_CU(cuMemcpyHtoD(kept, p, (size_t)got * sizeof *p))) {
        void *free_args[] = {&kept, &got};
        gpu_test_run(kernel("free_all"), 1, 1, free_args);
    }
    count = 4;
    bytes = BLOCK_BYTES;
    keep = 0;
    if (gpu_test_run(f, 1, THREADS_M, args)) {
        CHECK_CU(cuMemcpyDtoH(p, ptrs, THREADS_M * 4 * sizeof *p));
        nulls = 0;
        for (int i = 0; i < THREADS_M * 4; i++)
            nulls += p[i] == 0;
        CHECK_EQ(nulls, 0);
    }
    CHECK_CU(cuMemcpyDtoH(&bad_count, bad, sizeof bad_count));
    CHECK_EQ(bad_count, 0);
    CHECK_CU(cuCtxDestroy(context));
}

/* Hand-written PTX the loader must refuse, and the line it must name. */
static void refuse_ptx(const char *ptx, int line, const char *what)
{
    char error_log[4096] = "";
    CUmodule m = NULL;
    CHECK_CU_IS(gpu_test_load_ptx_log(&m, ptx, error_log, sizeof error_log),
                CUDA_ERROR_INVALID_PTX);
    char needle[32];
    snprintf(needle, sizeof needle, "line %d", line);
    printf("    %s: %s\n", what, error_log);
    if (!CHECK(strstr(error_log, needle) != NULL))
        fprintf(stderr, "  the log of %s does not name \"%s\": %s\n", what, needle, error_log);
    CHECK_CU_IS(cuModuleLoadData(&m, ptx), CUDA_ERROR_INVALID_PTX);
}

static void case_bad_ptx(void)
{
    static const char made_up[] = ".version 8.0\n"
                                  ".target sm_90\n"
                                  ".address_size 64\n"
                                  "\n"
                                  ".visible .entry bogus(.param .u64 p)\n"
                                  "{\n"
                                  "    .reg .b32 %r<3>;\n"
                                  "    mov.u32 %r1, 5;\n"
                                  "    frobnicate.b32 %r2, %r1;\n" /* 9 */
                                  "    ret;\n"
                                  "}\n";
    static const char syntax[] = ".version 8.0\n"
                                 ".target sm_90\n"
                                 ".address_size 64\n"
                                 ".visible .entry broken(.param .u64 p)\n"
                                 "{\n"
                                 "    .reg .b32 %r<3>;\n"
                                 "    add.s32 %r1, %r2, ;\n" /* 7 */
                                 "    ret;\n"
                                 "}\n";
    static const char texture[] = ".version 8.0\n"
                                  ".target sm_90\n"
                                  ".address_size 64\n"
                                  ".global .texref tex;\n"
                                  ".visible .entry sample(.param .u64 out)\n"
                                  "{\n"
                                  "    .reg .f32 %f<9>;\n"
                                  "    .reg .b64 %rd<2>;\n"
                                  "    ld.param.u64 %rd1, [out];\n"
                                  "    mov.f32 %f1, 0f00000000;\n"
                                  "    tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [tex, {%f1, %f1}];\n"
                                  "    st.global.f32 [%rd1], %f2;\n"
                                  "    ret;\n"
                                  "}\n";
    CUcontext context;
    if (!CHECK_CU(cuInit(0)) || !CHECK_CU(cuCtxCreate(&context, NULL, 0, 0)))
        return;
    refuse_ptx(made_up, 9, "a made-up instruction");
    refuse_ptx(syntax, 7, "a syntax error");
    /* a real GPU samples textures; the virtual one refuses them, by line */
    if (is_virtual != NULL)
        refuse_ptx(texture, 4, "a texture reference");
    /* the context is unharmed */
    CUmodule m;
    CHECK_CU(gpu_test_load_source(&m, source, "faults.cu"));
    CHECK_CU(cuCtxDestroy(context));
}

int main(void)
{
    /* no CUDA call here: every case forks first */
    *(void **)&last_fault = dlsym(RTLD_DEFAULT, "kgemu_last_fault");
    *(void **)&is_virtual = dlsym(RTLD_DEFAULT, "kgemu_is_virtual");
    *(void **)&guard = dlsym(RTLD_DEFAULT, "kgemu_guard");
    setenv("KGEMU_SECONDS_BUDGET", "30", 0); /* no case may take the default 10 minutes */
    run_case("a write one past the end", case_one_past, NULL);
    run_case("a write into a guard zone", case_guard_write, NULL);
    run_case("a read from a guard zone", case_guard_read, NULL);
    run_case("a read through a null pointer", case_read_null, NULL);
    run_case("a read just before a buffer", case_read_before_start, NULL);
    run_case("a write through a wild pointer", case_wild_pointer, NULL);
    run_case("a write to freed memory", case_use_after_free, NULL);
    run_case("misaligned accesses", case_misaligned, NULL);
    run_case("shared memory out of range", case_shared_oob, NULL);
    run_case("local memory out of range", case_local_oob, NULL);
    run_case("warps at different barriers", case_named_barriers, NULL);
    run_case("a warp spinning while another waits at a barrier", case_spin_at_barrier,
             "KGEMU_INSTRUCTION_BUDGET=" SMALL_BUDGET);
    run_case("a runaway loop", case_runaway, "KGEMU_INSTRUCTION_BUDGET=" SMALL_BUDGET);
    run_case("assert", case_assert, NULL);
    run_case("__trap", case_trap, NULL);
    run_case("unbounded recursion", case_stack_overflow, NULL);
    run_case("device malloc and free", case_malloc, NULL);
    run_case("PTX the loader refuses", case_bad_ptx, NULL);
    return gpu_test_summary();
}
