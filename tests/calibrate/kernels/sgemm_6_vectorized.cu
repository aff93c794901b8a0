// SGEMM step 6, vectorized memory access, written from the description in Simon Boehm,
// "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// https://siboehm.com/articles/22/CUDA-MMM), kernel 6.
//
// Step 5's tiling (128 x 128 tiles of C, K in steps of 8, 8 x 8 per thread) with 128-bit
// accesses: A and B are read from global memory as float4, and A's tile is stored
// transposed in shared memory (As[k][m]) so that a thread's 8 elements of As are
// contiguous and, like its 8 elements of Bs, are read with 128-bit shared loads. C is
// read and written as float4. Assumes M and N are multiples of 128, K of 8.
#define BM      128
#define BN      128
#define BK      8
#define TM      8
#define TN      8
#define THREADS (BM * BN / (TM * TN))

extern "C" __global__ void sgemm_vectorized(int M, int N, int K, float alpha, const float *A,
                                            const float *B, float beta, float *C)
{
    __shared__ float As[BK * BM];
    __shared__ float Bs[BK * BN];
    int tileRow = blockIdx.y, tileCol = blockIdx.x;
    int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
    int aCol = threadIdx.x % (BK / 4), aRow = threadIdx.x / (BK / 4); /* 128 rows x 2 float4 */
    int bCol = threadIdx.x % (BN / 4), bRow = threadIdx.x / (BN / 4); /* 8 rows x 32 float4 */
    A += tileRow * BM * K;
    B += tileCol * BN;
    C += tileRow * BM * N + tileCol * BN;
    float results[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 a = *(const float4 *)&A[aRow * K + aCol * 4];
        As[(aCol * 4 + 0) * BM + aRow] = a.x;
        As[(aCol * 4 + 1) * BM + aRow] = a.y;
        As[(aCol * 4 + 2) * BM + aRow] = a.z;
        As[(aCol * 4 + 3) * BM + aRow] = a.w;
        *(float4 *)&Bs[bRow * BN + bCol * 4] = *(const float4 *)&B[bRow * N + bCol * 4];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; k++) {
            for (int i = 0; i < TM; i++)
                regM[i] = As[k * BM + threadRow * TM + i];
            for (int j = 0; j < TN; j++)
                regN[j] = Bs[k * BN + threadCol * TN + j];
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++)
                    results[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j += 4) {
            float4 *at = (float4 *)&C[(threadRow * TM + i) * N + threadCol * TN + j];
            float4 c = *at;
            c.x = alpha * results[i * TN + j + 0] + beta * c.x;
            c.y = alpha * results[i * TN + j + 1] + beta * c.y;
            c.z = alpha * results[i * TN + j + 2] + beta * c.z;
            c.w = alpha * results[i * TN + j + 3] + beta * c.w;
            *at = c;
        }
}
