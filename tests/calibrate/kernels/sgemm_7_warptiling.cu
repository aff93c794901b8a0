// SGEMM step 7, warptiling, written from the description in Simon Boehm, "How to
// Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// https://siboehm.com/articles/22/CUDA-MMM), kernel 10, with the parameters the worklog
// gives for the A6000 (128 threads, 128 x 128 block tile, BK = 16, 64 x 64 warp tile
// iterated as 1 x 4 sub-tiles of 64 x 16, 8 x 4 elements per thread and sub-tile).
//
// Between the block tile of step 6 and the thread tile sits a warp tile: each of the 4
// warps owns a 64 x 64 part of the block's 128 x 128 tile of C and computes it in 4
// steps of 64 x 16, each thread an 8 x 4 piece of each, so the 32 lanes of a warp read
// neighbouring words of shared memory and each thread holds 8 x 16 results. A is stored
// transposed in shared memory, global and shared accesses are 128-bit. Assumes M and N
// are multiples of 128, K of 16.
#define THREADS 128
#define BM      128
#define BN      128
#define BK      16
#define WM      64
#define WN      64
#define WNITER  4
#define TM      8
#define TN      4
#define WMITER  ((WM * WN) / (32 * TM * TN * WNITER)) /* 1 */
#define WSUBM   (WM / WMITER)                         /* 64 */
#define WSUBN   (WN / WNITER)                         /* 16 */

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemm_warptiling(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                     float *C)
{
    __shared__ float As[BK * BM];
    __shared__ float Bs[BK * BN];
    int tileRow = blockIdx.y, tileCol = blockIdx.x;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int warpCol = warp % (BN / WN), warpRow = warp / (BN / WN);
    int laneCol = lane % (WSUBN / TN), laneRow = lane / (WSUBN / TN); /* 4 x 8 lanes */
    int aCol = threadIdx.x % (BK / 4), aRow = threadIdx.x / (BK / 4); /* 32 rows a pass */
    int bCol = threadIdx.x % (BN / 4), bRow = threadIdx.x / (BN / 4); /* 4 rows a pass */
    A += tileRow * BM * K;
    B += tileCol * BN;
    C += (tileRow * BM + warpRow * WM) * N + tileCol * BN + warpCol * WN;
    float results[WMITER * TM * WNITER * TN] = {0.0f};
    float regM[WMITER * TM], regN[WNITER * TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int off = 0; off < BM; off += THREADS * 4 / BK) {
            float4 a = *(const float4 *)&A[(aRow + off) * K + aCol * 4];
            As[(aCol * 4 + 0) * BM + aRow + off] = a.x;
            As[(aCol * 4 + 1) * BM + aRow + off] = a.y;
            As[(aCol * 4 + 2) * BM + aRow + off] = a.z;
            As[(aCol * 4 + 3) * BM + aRow + off] = a.w;
        }
        for (int off = 0; off < BK; off += THREADS / (BN / 4))
            *(float4 *)&Bs[(bRow + off) * BN + bCol * 4] =
                *(const float4 *)&B[(bRow + off) * N + bCol * 4];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; k++) {
            for (int wm = 0; wm < WMITER; wm++)
                for (int i = 0; i < TM; i++)
                    regM[wm * TM + i] =
                        As[k * BM + warpRow * WM + wm * WSUBM + laneRow * TM + i];
            for (int wn = 0; wn < WNITER; wn++)
                for (int j = 0; j < TN; j++)
                    regN[wn * TN + j] =
                        Bs[k * BN + warpCol * WN + wn * WSUBN + laneCol * TN + j];
            for (int wm = 0; wm < WMITER; wm++)
                for (int wn = 0; wn < WNITER; wn++)
                    for (int i = 0; i < TM; i++)
                        for (int j = 0; j < TN; j++)
                            results[(wm * TM + i) * (WNITER * TN) + wn * TN + j] +=
                                regM[wm * TM + i] * regN[wn * TN + j];
        }
        __syncthreads();
    }
    for (int wm = 0; wm < WMITER; wm++)
        for (int wn = 0; wn < WNITER; wn++)
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j += 4) {
                    float4 *at = (float4 *)&C[(wm * WSUBM + laneRow * TM + i) * N + wn * WSUBN +
                                              laneCol * TN + j];
                    const float *r = &results[(wm * TM + i) * (WNITER * TN) + wn * TN + j];
                    float4 c = *at;
                    c.x = alpha * r[0] + beta * c.x;
                    c.y = alpha * r[1] + beta * c.y;
                    c.z = alpha * r[2] + beta * c.z;
                    c.w = alpha * r[3] + beta * c.w;
                    *at = c;
                }
}
