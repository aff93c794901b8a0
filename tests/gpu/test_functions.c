/*
 * Device functions on the virtual GPU: calls that stay calls in the PTX
 * (__noinline__), recursion (factorial, Fibonacci, mutual recursion, frames
 * with local arrays), functions with many parameters of mixed types,
 * structs passed and returned by value, calls through function pointers,
 * and an ordinary inlined helper compiled with -lineinfo.
 *
 * The device functions are one block of C (FUNCTIONS) compiled twice: by
 * the host compiler as the reference, and, stringified, by NVRTC with
 * NOINLINE meaning __device__ __noinline__. Every thread calls them with
 * its own arguments, so calls happen under divergence and recursion depth
 * differs between the lanes of a warp.
 */
#include "gpu_test.h"

#define N       4096
#define THREADS 128
#define SHOW    5

/* clang-format off */
#define FUNCTIONS(X) X(                                                                            \
typedef struct { int a; float b; double c; signed char d; } small_t;                               \
typedef struct { int v[12]; long long sum; } big_t;                                                \
                                                                                                   \
NOINLINE unsigned long long factorial(int n)                                                       \
{                                                                                                  \
    return n <= 1 ? 1ull : (unsigned long long)n * factorial(n - 1);                               \
}                                                                                                  \
NOINLINE int fib(int n)                                                                            \
{                                                                                                  \
    return n < 2 ? n : fib(n - 1) + fib(n - 2);                                                    \
}                                                                                                  \
NOINLINE int is_odd(unsigned n);                                                                   \
NOINLINE int is_even(unsigned n)                                                                   \
{                                                                                                  \
    return n == 0 ? 1 : is_odd(n - 1);                                                             \
}                                                                                                  \
NOINLINE int is_odd(unsigned n)                                                                    \
{                                                                                                  \
    return n == 0 ? 0 : is_even(n - 1);                                                            \
}                                                                                                  \
/* Each frame has its own local array, indexed by data. */                                         \
NOINLINE int frames(int depth, int seed)                                                           \
{                                                                                                  \
    int buf[8];                                                                                    \
    for (int k = 0; k < 8; k++)                                                                    \
        buf[k] = seed * (k + 1) + depth;                                                           \
    int below = depth > 0 ? frames(depth - 1, seed ^ (depth * 77)) : 0;                            \
    return buf[(seed + depth) & 7] - buf[(unsigned)seed % 5u] + below;                             \
}                                                                                                  \
NOINLINE double many(int a, signed char b, short c, long long d, float e, double f,                \
                     unsigned char g, int h, float i2, double j, int k, long long l,               \
                     unsigned m, short n, float o, double p, signed char q, long long r)           \
{                                                                                                  \
    double s = (double)a - b + c * 2.0 + (double)(d % 1000) + e + f * 0.5 + g;                     \
    s += (double)h * 3.0 - i2 + j / 4.0 + (double)(k ^ 5) + (double)(l >> 20) + (double)m;         \
    return s + n - o + p * 2.0 + q + (double)(r & 0xffff);                                         \
}                                                                                                  \
NOINLINE small_t make_small(int x)                                                                 \
{                                                                                                  \
    small_t s;                                                                                     \
    s.a = x * 3 - 1;                                                                               \
    s.b = (float)x * 0.25f;                                                                        \
    s.c = (double)x / 8.0 + 1.0;                                                                   \
    s.d = (signed char)(x & 0x7f);                                                                 \
    return s;                                                                                      \
}                                                                                                  \
NOINLINE double use_small(small_t s, int scale)                                                    \
{                                                                                                  \
    return (double)s.a * scale + (double)s.b + s.c - (double)s.d;                                  \
}                                                                                                  \
NOINLINE big_t make_big(int x)                                                                     \
{                                                                                                  \
    big_t b;                                                                                       \
    b.sum = 0;                                                                                     \
    for (int k = 0; k < 12; k++) {                                                                 \
        b.v[k] = x * (k + 1) - k * k;                                                              \
        b.sum += b.v[k];                                                                           \
    }                                                                                              \
    return b;                                                                                      \
}                                                                                                  \
NOINLINE big_t reverse_big(big_t b)                                                                \
{                                                                                                  \
    big_t r;                                                                                       \
    r.sum = -b.sum;                                                                                \
    for (int k = 0; k < 12; k++)                                                                   \
        r.v[k] = b.v[11 - k];                                                                      \
    return r;                                                                                      \
}                                                                                                  \
NOINLINE int op_add(int a, int b) { return a + b; }                                                \
NOINLINE int op_sub(int a, int b) { return a - b; }                                                \
NOINLINE int op_mul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }                     \
NOINLINE int op_max(int a, int b) { return a > b ? a : b; }                                        \
)
/* clang-format on */

#define NOINLINE     static
#define AS_CODE(...) __VA_ARGS__
#define AS_TEXT(...) #__VA_ARGS__
FUNCTIONS(AS_CODE)
#undef NOINLINE

/* What each thread computes, for element i and input v: one record. */
struct record {
    unsigned long long factorial;
    int fib, parity, frames, pad;
    double many, small, big_sum;
    int big[12];
};

static void host_record(int i, int v, struct record *r)
{
    memset(r, 0, sizeof *r);
    r->factorial = factorial(v % 25);
    r->fib = fib(v % 18);
    r->parity = is_even((unsigned)(v % 100)) * 2 + is_odd((unsigned)(v % 7));
    r->frames = frames(v % 20, v);
    r->many = many(v, (signed char)i, (short)(v * 3), (long long)v * 1000003, (float)i * 0.5f,
                   v / 3.0, (unsigned char)(v + 1), -v, 1.5f, (double)i, v ^ i, (long long)v << 30,
                   (unsigned)i * 7u, (short)-i, 0.125f, -2.5, (signed char)-v, (long long)i * v);
    r->small = use_small(make_small(v), i % 5);
    big_t b = reverse_big(make_big(v - i));
    r->big_sum = (double)b.sum;
    memcpy(r->big, b.v, sizeof r->big);
}

static const char kernel_text[] =
    "extern \"C\" __global__ void call_all(const int *in, struct record *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    int v = in[i];\n"
    "    struct record *r = out + i;\n"
    "    /* lanes of a warp take different paths to the same calls */\n"
    "    if (v & 1) {\n"
    "        r->factorial = factorial(v % 25);\n"
    "        r->fib = fib(v % 18);\n"
    "    } else {\n"
    "        r->fib = fib(v % 18);\n"
    "        r->factorial = factorial(v % 25);\n"
    "    }\n"
    "    r->parity = is_even((unsigned)(v % 100)) * 2 + is_odd((unsigned)(v % 7));\n"
    "    r->frames = frames(v % 20, v);\n"
    "    r->many = many(v, (signed char)i, (short)(v * 3), (long long)v * 1000003,\n"
    "        (float)i * 0.5f, v / 3.0, (unsigned char)(v + 1), -v, 1.5f, (double)i, v ^ i,\n"
    "        (long long)v << 30, (unsigned)i * 7u, (short)-i, 0.125f, -2.5, (signed char)-v,\n"
    "        (long long)i * v);\n"
    "    r->small = use_small(make_small(v), i % 5);\n"
    "    big_t b = reverse_big(make_big(v - i));\n"
    "    r->big_sum = (double)b.sum;\n"
    "    for (int k = 0; k < 12; k++)\n"
    "        r->big[k] = b.v[k];\n"
    "}\n";

/* Calls through pointers: chosen by a conditional (mov of a function's
 * address, then call through a register with a .callprototype) ... */
static const char selected_text[] =
    "typedef int (*binary_op)(int, int);\n"
    "__device__ binary_op pick(int k)\n"
    "{ return k == 0 ? op_add : k == 1 ? op_sub : k == 2 ? op_mul : op_max; }\n"
    "extern \"C\" __global__ void call_pointers(const int *in, int *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    int v = in[i];\n"
    "    binary_op f = pick(v & 3), g = pick((v >> 2) & 3);\n"
    "    out[i] = g(f(v, i), v >> 4);\n"
    "}\n";

/* ... and from a table in global memory initialized with their addresses. */
static const char pointer_text[] =
    "typedef int (*binary_op)(int, int);\n"
    "__device__ binary_op table[4] = {op_add, op_sub, op_mul, op_max};\n"
    "extern \"C\" __global__ void call_pointers(const int *in, int *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    int v = in[i];\n"
    "    binary_op f = table[v & 3], g = table[(v >> 2) & 3];\n"
    "    out[i] = g(f(v, i), v >> 4);\n"
    "}\n";

static const char record_text[] = "struct record {\n"
                                  "    unsigned long long factorial;\n"
                                  "    int fib, parity, frames, pad;\n"
                                  "    double many, small, big_sum;\n"
                                  "    int big[12];\n"
                                  "};\n";

/* The functions and then `kernels`, as NVRTC compiles them. */
static char *full_source(const char *kernels)
{
    static const char functions[] = FUNCTIONS(AS_TEXT);
    size_t size = sizeof functions + strlen(kernels) + sizeof record_text + 256;
    char *s = malloc(size);
    if (s != NULL)
        snprintf(s, size, "#define NOINLINE __device__ __noinline__\n%s\n%s\n%s", record_text,
                 functions, kernels);
    return s;
}

/* Loads `kernels` with the functions. --fmad=false: the host does not
 * contract a * b + c into an fma either. */
static int load(CUmodule *module, const char *kernels, const char *name)
{
    static const char *const options[] = {"--fmad=false"};
    char *source = full_source(kernels);
    int ok = CHECK(source != NULL) &&
             CHECK_CU(gpu_test_load_source_options(module, source, name, 1, options));
    free(source);
    return ok;
}

static int record_same(const struct record *a, const struct record *b)
{
    return a->factorial == b->factorial && a->fib == b->fib && a->parity == b->parity &&
           a->frames == b->frames && memcmp(&a->many, &b->many, sizeof a->many) == 0 &&
           memcmp(&a->small, &b->small, sizeof a->small) == 0 && a->big_sum == b->big_sum &&
           memcmp(a->big, b->big, sizeof a->big) == 0;
}

static void test_calls(CUmodule module, const int *in)
{
    static struct record out[N], want[N];
    CUfunction f;
    int n = N;
    for (int i = 0; i < N; i++)
        host_record(i, in[i], &want[i]);
    CUdeviceptr din = gpu_test_upload(in, N * sizeof(int)),
                dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout, &n};
    if (CHECK_CU(cuModuleGetFunction(&f, module, "call_all")) &&
        gpu_test_run(f, N / THREADS, THREADS, args) && gpu_test_download(out, dout, sizeof out)) {
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            if (record_same(&out[i], &want[i]))
                continue;
            if (wrong++ < SHOW)
                fprintf(stderr,
                        "  thread %d (v=%d): factorial %llu/%llu fib %d/%d parity %d/%d "
                        "frames %d/%d many %.17g/%.17g small %.17g/%.17g big_sum %g/%g "
                        "big[0] %d/%d big[11] %d/%d (got/expected)\n",
                        i, in[i], out[i].factorial, want[i].factorial, out[i].fib, want[i].fib,
                        out[i].parity, want[i].parity, out[i].frames, want[i].frames, out[i].many,
                        want[i].many, out[i].small, want[i].small, out[i].big_sum, want[i].big_sum,
                        out[i].big[0], want[i].big[0], out[i].big[11], want[i].big[11]);
        }
        if (wrong)
            fprintf(stderr, "  call_all: %d of %d threads wrong\n", wrong, N);
        CHECK(wrong == 0);
    }
    cuMemFree(din);
}

static void test_pointers(CUmodule module, const int *in)
{
    static int out[N], want[N];
    static int (*const table[4])(int, int) = {op_add, op_sub, op_mul, op_max};
    CUfunction f;
    int n = N;
    for (int i = 0; i < N; i++) {
        int v = in[i];
        want[i] = table[(v >> 2) & 3](table[v & 3](v, i), v >> 4);
    }
    CUdeviceptr din = gpu_test_upload(in, sizeof out), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout, &n};
    if (CHECK_CU(cuModuleGetFunction(&f, module, "call_pointers")) &&
        gpu_test_run(f, N / THREADS, THREADS, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, N);
    cuMemFree(din);
}

/* Recursion 300 calls deep, lanes at different depths: legal CUDA (a few
 * bytes of stack per level, well inside the 16 KB set here). In a context
 * of its own, since a fault would be sticky. */
static void test_deep_recursion(void)
{
    static const char kernels[] =
        "extern \"C\" __global__ void deep(int *out, int n)\n"
        "{\n"
        "    int i = threadIdx.x;\n"
        "    out[i] = is_even(300u - (unsigned)(i % 3)) + 2 * is_odd(299u - (unsigned)(i % 5));\n"
        "}\n";
    CUcontext context;
    CUmodule module;
    CUfunction f;
    int out[64], want[64], n = 64;
    if (!CHECK_CU(cuCtxCreate(&context, NULL, 0, 0)))
        return;
    CHECK_CU(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 16384));
    for (int i = 0; i < 64; i++)
        want[i] = is_even(300u - (unsigned)(i % 3)) + 2 * is_odd(299u - (unsigned)(i % 5));
    if (load(&module, kernels, "deep_recursion.cu") &&
        CHECK_CU(cuModuleGetFunction(&f, module, "deep"))) {
        CUdeviceptr d = gpu_test_upload(NULL, sizeof out);
        void *args[] = {&d, &n};
        if (gpu_test_run(f, 1, 64, args) && gpu_test_download(out, d, sizeof out))
            CHECK_SAME(out, want, 64);
    }
    CHECK_CU(cuCtxDestroy(context));
}

/* An ordinary helper the compiler inlines: with -lineinfo NVRTC records it
 * in a .section .debug_str block, which the loader must accept. */
static void test_inlined_helper(const int *in)
{
    static const char source[] = "__device__ int twice(int v) { return 2 * v; }\n"
                                 "__device__ int plus_one(int v) { return twice(v) / 2 + 1; }\n"
                                 "extern \"C\" __global__ void inlined(const int *in, int *out)\n"
                                 "{\n"
                                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "    out[i] = plus_one(twice(in[i]));\n"
                                 "}\n";
    static int out[N], want[N];
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, source, "inlined.cu")))
        return;
    for (int i = 0; i < N; i++)
        want[i] = (int)((unsigned)in[i] * 2u) + 1;
    CUdeviceptr din = gpu_test_upload(in, sizeof out), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout};
    if (CHECK_CU(cuModuleGetFunction(&f, module, "inlined")) &&
        gpu_test_run(f, N / THREADS, THREADS, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, N);
    cuMemFree(din);
    CHECK_CU(cuModuleUnload(module));
}

/* Addresses in initializers: a pointer to an element of another
 * __device__ array (generic(table)+8 in the PTX), which the loader writes
 * once the array is placed; and a function through a pointer that uses
 * __shared__ memory of its own, which counts in the kernel's shared size
 * (regression: both refused at load, graded internal_error). */
static void test_pointer_initializers(void)
{
    static const char source[] =
        "__device__ int table[4] = {10, 20, 30, 40};\n"
        "__device__ int *third = &table[2];\n"
        "__device__ __noinline__ int staged(int v)\n"
        "{\n"
        "    __shared__ int stage[64];\n"
        "    stage[threadIdx.x] = v;\n"
        "    __syncwarp();\n"
        "    return stage[threadIdx.x ^ 31];\n"
        "}\n"
        "typedef int (*unary_op)(int);\n"
        "__device__ unary_op ops[1] = {staged};\n"
        "extern \"C\" __global__ void read_through(int *out, int which)\n"
        "{\n"
        "    out[threadIdx.x] = third[0] + third[1] + ops[which](threadIdx.x);\n"
        "}\n";
    CUmodule module;
    CUfunction f;
    int out[64], want[64], which = 0, shared = 0;
    if (!CHECK_CU(gpu_test_load_source(&module, source, "pointer_initializers.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "read_through")))
        return;
    CHECK_CU(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    CHECK(shared >= 64 * 4);
    for (int t = 0; t < 64; t++)
        want[t] = 30 + 40 + (t ^ 31);
    CUdeviceptr d = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&d, &which};
    if (gpu_test_run(f, 1, 64, args) && gpu_test_download(out, d, sizeof out))
        CHECK_SAME(out, want, 64);
    cuMemFree(d);
    CHECK_CU(cuModuleUnload(module));
}

/* A call through a pointer that holds no function faults with a message
 * that says so, and the host is untouched. In a context of its own: the
 * fault is sticky. */
static void test_bad_pointer(void)
{
    static const char source[] =
        "typedef int (*binary_op)(int, int);\n"
        "extern \"C\" __global__ void call_garbage(int *out, unsigned long long bits)\n"
        "{\n"
        "    binary_op f = (binary_op)bits;\n"
        "    out[threadIdx.x] = f(1, 2);\n"
        "}\n";
    CUcontext context;
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(cuCtxCreate(&context, NULL, 0, 0)))
        return;
    if (CHECK_CU(gpu_test_load_source(&module, source, "bad_pointer.cu")) &&
        CHECK_CU(cuModuleGetFunction(&f, module, "call_garbage"))) {
        CUdeviceptr d = gpu_test_upload(NULL, 32 * sizeof(int));
        unsigned long long bits = d; /* a data address, not a function's */
        void *args[] = {&d, &bits};
        CHECK_CU(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
        CUresult rc = cuCtxSynchronize();
        CHECK(rc == CUDA_ERROR_ILLEGAL_ADDRESS || rc == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
              rc == CUDA_ERROR_INVALID_PC);
        struct kgemu_fault fault;
        int (*last_fault)(struct kgemu_fault *) = NULL;
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (driver)
            *(void **)&last_fault = dlsym(driver, "kgemu_last_fault");
        if (last_fault && last_fault(&fault) == 1) {
            CHECK(strstr(fault.message, "holds no device function") != NULL);
            CHECK(gpu_test_no_host_address(fault.message));
        }
    }
    cuCtxDestroy(context);
}

int main(void)
{
    static int in[N];
    CUcontext context;
    CUmodule module;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    for (int i = 0; i < N; i++)
        in[i] = i < 64 ? i : (int)(gpu_test_rng() % 100000);
    /* frames() recurses 20 deep with a local array per frame */
    CHECK_CU(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 8192));
    if (load(&module, kernel_text, "functions.cu")) {
        test_calls(module, in);
        CHECK_CU(cuModuleUnload(module));
    }
    /* Calls through function pointers, lanes of a warp calling different
     * functions (regression: the virtual GPU refused them at load). */
    const char *const pointer_cases[][2] = {{selected_text, "selected_pointers.cu"},
                                            {pointer_text, "function_pointers.cu"}};
    for (int c = 0; c < 2; c++) {
        if (load(&module, pointer_cases[c][0], pointer_cases[c][1])) {
            test_pointers(module, in);
            CHECK_CU(cuModuleUnload(module));
        }
    }
    test_pointer_initializers();
    test_inlined_helper(in);
    CHECK_CU(cuCtxDestroy(context));
    test_deep_recursion();
    test_bad_pointer();
    return gpu_test_summary();
}
