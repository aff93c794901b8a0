/*
 * vectorAddDrv, as in the CUDA samples: host code written against the
 * driver API alone adds two vectors on the GPU and checks the sum. Here the
 * kernel is compiled at run time with NVRTC to PTX, and the GPU is the
 * virtual one.
 */
#include <math.h>

#include "gpu_test.h"

#define N                 50000
#define THREADS_PER_BLOCK 256

static const char vec_add_source[] =
    "extern \"C\" __global__ void VecAdd_kernel(const float *A, const float *B, float *C, int N)\n"
    "{\n"
    "    int i = blockDim.x * blockIdx.x + threadIdx.x;\n"
    "    if (i < N)\n"
    "        C[i] = A[i] + B[i];\n"
    "}\n";

static void random_init(float *data, int n)
{
    for (int i = 0; i < n; i++)
        data[i] = (float)rand() / (float)RAND_MAX;
}

static int verify(const float *a, const float *b, const float *c, int n)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (fabsf(a[i] + b[i] - c[i]) > 1e-7f) {
            if (wrong++ == 0)
                fprintf(stderr, "C[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
        }
    }
    return wrong;
}

/* Allocates, copies, launches, copies back and frees; returns whether
 * the kernel ran (the result is checked by the caller). */
static int run(CUfunction vec_add, const float *h_a, const float *h_b, float *h_c)
{
    size_t size = N * sizeof(float);
    CUdeviceptr d_a = 0, d_b = 0, d_c = 0;
    CHECK_CU(cuMemAlloc(&d_a, size));
    CHECK_CU(cuMemAlloc(&d_b, size));
    CHECK_CU(cuMemAlloc(&d_c, size));
    CHECK_CU(cuMemcpyHtoD(d_a, h_a, size));
    CHECK_CU(cuMemcpyHtoD(d_b, h_b, size));
    int n = N;
    void *args[] = {&d_a, &d_b, &d_c, &n};
    int blocks = (N + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    int ran = CHECK_CU(cuLaunchKernel(vec_add, blocks, 1, 1, THREADS_PER_BLOCK, 1, 1, 0, NULL, args,
                                      NULL)) &&
              CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuMemcpyDtoH(h_c, d_c, size));
    CHECK_CU(cuMemFree(d_a));
    CHECK_CU(cuMemFree(d_b));
    CHECK_CU(cuMemFree(d_c));
    return ran;
}

int main(void)
{
    printf("Vector Addition (Driver API)\n");
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction vec_add;
    if (!CHECK_CU(cuInit(0)) || !CHECK_CU(cuDeviceGet(&device, 0)) ||
        !CHECK_CU(cuCtxCreate(&context, NULL, 0, device)))
        return gpu_test_summary();
    if (CHECK_CU(gpu_test_load_source(&module, vec_add_source, "vectorAdd_kernel.cu")) &&
        CHECK_CU(cuModuleGetFunction(&vec_add, module, "VecAdd_kernel"))) {
        float *h_a = malloc(N * sizeof(float));
        float *h_b = malloc(N * sizeof(float));
        float *h_c = calloc(N, sizeof(float));
        CHECK(h_a != NULL && h_b != NULL && h_c != NULL);
        random_init(h_a, N);
        random_init(h_b, N);
        if (run(vec_add, h_a, h_b, h_c))
            CHECK_EQ(verify(h_a, h_b, h_c, N), 0);
        free(h_a);
        free(h_b);
        free(h_c);
        CHECK_CU(cuModuleUnload(module));
    }
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
