// Corpus: half precision as samples write it (cuda_fp16.h, cuda_bf16.h):
// a __half2 saxpy, a dot product accumulated in float, conversions,
// comparisons, the math functions and atomics.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void haxpy(int n, __half a, const __half2 *x, __half2 *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2)
        y[i] = __hfma2(__half2half2(a), x[i], y[i]);
}

__global__ void half_dot(int n, const __half *x, const __half *y, float *result)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += __half2float(__hmul(x[i], y[i]));
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x % 32 == 0)
        atomicAdd(result, sum);
}

__global__ void half_functions(const __half *in, __half *out, __nv_bfloat16 *bout, int *flags)
{
    int i = threadIdx.x;
    __half x = in[i];
    out[i * 6 + 0] = hsqrt(__habs(x));
    out[i * 6 + 1] = hexp(x) + hlog(__habs(x));
    out[i * 6 + 2] = __hmax_nan(x, __float2half(0.5f)) / __int2half_rn(i + 1);
    out[i * 6 + 3] = htanh_approx(x);
    out[i * 6 + 4] = __hge(x, __ushort_as_half(0)) ? hrcp(x) : __hneg(x);
    out[i * 6 + 5] = __float2half_rz(__half2float(x) * 3.0f);
    __nv_bfloat162 b = __floats2bfloat162_rn(__half2float(x), 1.0f);
    bout[i] = __hadd(__low2bfloat16(b), __high2bfloat16(__hmul2(b, b)));
    flags[i] = __hisnan(x) + 2 * __hisinf(x) + 4 * __half2int_rd(x);
    atomicAdd(&out[0], x);
    atomicAdd(reinterpret_cast<__half2 *>(out) + 1, __halves2half2(x, x));
    atomicAdd(bout + 64, __float2bfloat16(1.0f));
}
