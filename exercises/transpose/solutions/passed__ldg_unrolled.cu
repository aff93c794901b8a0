// Known good: 32x33 tile, loads through __ldg, the 4 rows unrolled and the edge test hoisted.
extern "C" __global__ void transpose(const float *__restrict__ in, float *__restrict__ out,
                                     int rows, int cols)
{
    __shared__ float tile[32][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    const bool full = c0 + 32 <= cols && r0 + 32 <= rows;
    if (full) {
#pragma unroll
        for (int j = 0; j < 32; j += 8)
            tile[ty + j][tx] = __ldg(&in[(size_t)(r0 + ty + j) * cols + c0 + tx]);
    } else {
#pragma unroll
        for (int j = 0; j < 32; j += 8)
            if (c0 + tx < cols && r0 + ty + j < rows)
                tile[ty + j][tx] = __ldg(&in[(size_t)(r0 + ty + j) * cols + c0 + tx]);
    }
    __syncthreads();
    if (full) {
#pragma unroll
        for (int j = 0; j < 32; j += 8)
            out[(size_t)(c0 + ty + j) * rows + r0 + tx] = tile[tx][ty + j];
    } else {
#pragma unroll
        for (int j = 0; j < 32; j += 8)
            if (r0 + tx < rows && c0 + ty + j < cols)
                out[(size_t)(c0 + ty + j) * rows + r0 + tx] = tile[tx][ty + j];
    }
}
