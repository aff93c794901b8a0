// SGEMM step 5, 2D blocktiling, written from the description in Simon Boehm, "How to
// Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// https://siboehm.com/articles/22/CUDA-MMM), kernel 5.
//
// A block of 256 threads computes a 128 x 128 tile of C, walking K in steps of 8 through
// a 128 x 8 tile of A and an 8 x 128 tile of B in shared memory (each thread loads 4
// elements of each). Each thread computes an 8 x 8 sub-tile of C: for each k it loads 8
// elements of As and 8 of Bs into registers and does their 64 multiply-adds (an outer
// product). Assumes M and N are multiples of 128, K of 8.
#define BM      128
#define BN      128
#define BK      8
#define TM      8
#define TN      8
#define THREADS (BM * BN / (TM * TN))

extern "C" __global__ void sgemm_blocktile_2d(int M, int N, int K, float alpha, const float *A,
                                              const float *B, float beta, float *C)
{
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    int tileRow = blockIdx.y, tileCol = blockIdx.x;
    int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
    int aCol = threadIdx.x % BK, aRow = threadIdx.x / BK; /* rows of A a pass covers: 32 */
    int bCol = threadIdx.x % BN, bRow = threadIdx.x / BN; /* rows of B a pass covers: 2 */
    A += tileRow * BM * K;
    B += tileCol * BN;
    C += tileRow * BM * N + tileCol * BN;
    float results[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int off = 0; off < BM; off += THREADS / BK)
            As[(aRow + off) * BK + aCol] = A[(aRow + off) * K + aCol];
        for (int off = 0; off < BK; off += THREADS / BN)
            Bs[(bRow + off) * BN + bCol] = B[(bRow + off) * N + bCol];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; k++) {
            for (int i = 0; i < TM; i++)
                regM[i] = As[(threadRow * TM + i) * BK + k];
            for (int j = 0; j < TN; j++)
                regN[j] = Bs[k * BN + threadCol * TN + j];
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++)
                    results[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) {
            int at = (threadRow * TM + i) * N + threadCol * TN + j;
            C[at] = alpha * results[i * TN + j] + beta * C[at];
        }
}
