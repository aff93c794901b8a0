// Corpus: texture and surface objects as the CUDA samples use them
// (simpleTexture, simpleLayeredTexture, simpleCubemapTexture,
// simpleSurfaceWrite, bicubicTexture, boxFilter, marchingCubes, ...):
// every fetch function, the sparse and mipmapped forms, gathers, surface
// reads and writes in each boundary mode, and the queries.
#include <cuda_runtime.h>

__global__ void transform_kernel(float *out, cudaTextureObject_t tex, int width, int height,
                                 float theta)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    float u = (float)x / width - 0.5f, v = (float)y / height - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
    out[y * width + x] = tex2D<float>(tex, tu, tv);
}

__global__ void fetch_every_kind(cudaTextureObject_t tex, float4 *out, int *iout, float x)
{
    int i = threadIdx.x;
    out[8 * i + 0] = tex1D<float4>(tex, x);
    out[8 * i + 1] = tex3D<float4>(tex, x, x, x);
    out[8 * i + 2] = tex2DLayered<float4>(tex, x, x, i % 4);
    out[8 * i + 3] = tex1DLayered<float4>(tex, x, i % 4);
    out[8 * i + 4] = texCubemap<float4>(tex, x, -x, 0.5f);
    out[8 * i + 5] = texCubemapLayered<float4>(tex, x, -x, 0.5f, 1);
    out[8 * i + 6] = tex2Dgather<float4>(tex, x, x, 2);
    out[8 * i + 7] = tex2DLod<float4>(tex, x, x, 1.5f);
    iout[4 * i + 0] = tex1Dfetch<int>(tex, i);
    iout[4 * i + 1] = tex2D<uchar4>(tex, x, x).y;
    iout[4 * i + 2] = tex2D<short2>(tex, x, x).x;
    bool resident = false;
    iout[4 * i + 3] = (int)tex2D<float>(tex, x, x, &resident) + resident;
}

__global__ void grad(cudaTextureObject_t tex, float *out, float x)
{
    out[threadIdx.x] = tex2DGrad<float>(tex, x, x, make_float2(1, 0), make_float2(0, 1)) +
                       tex3DLod<float>(tex, x, x, x, 0.0f);
}

__global__ void surface_write(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int width,
                              int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float v = surf2Dread<float>(in, x * 4, y);
    surf2Dwrite(-v, out, x * 4, y);
    uchar4 c = surf2Dread<uchar4>(in, x * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite(c, out, x * 4, y, cudaBoundaryModeZero);
    float2 f2 = surf1Dread<float2>(in, x * 8);
    surf1Dwrite(f2, out, x * 8);
    short s = surf3Dread<short>(in, x * 2, y, 1);
    surf3Dwrite(s, out, x * 2, y, 1);
    surf2DLayeredwrite(surf2DLayeredread<int>(in, x * 4, y, 2), out, x * 4, y, 2);
    surfCubemapwrite(surfCubemapread<float>(in, x * 4, y, 3), out, x * 4, y, 3);
    longlong2 wide = surf2Dread<longlong2>(in, x * 16, y);
    surf2Dwrite(wide, out, x * 16, y);
}

__global__ void queries(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int *out)
{
    int w, h, d;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(tex));
    asm("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(tex));
    asm("suq.height.b32 %0, [%1];" : "=r"(h) : "l"(surf));
    asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(surf), "r"(0), "r"(0), "r"(1)
                 : "memory");
    out[0] = w + h + d;
}
