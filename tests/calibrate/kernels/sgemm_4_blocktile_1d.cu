// SGEMM step 4, 1D blocktiling, written from the description in Simon Boehm, "How to
// Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// https://siboehm.com/articles/22/CUDA-MMM), kernel 4.
//
// A block of 512 threads computes a 64 x 64 tile of C, walking K in steps of 8 through
// a 64 x 8 tile of A and an 8 x 64 tile of B in shared memory. Each thread computes 8
// elements of one column of C: for each k it reads one element of Bs into a register
// and reuses it for its 8 elements, so it does 8 multiply-adds per shared load of B.
// Assumes M and N are multiples of 64, K of 8.
#define BM 64
#define BN 64
#define BK 8
#define TM 8

extern "C" __global__ void sgemm_blocktile_1d(int M, int N, int K, float alpha, const float *A,
                                              const float *B, float beta, float *C)
{
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    int tileRow = blockIdx.y, tileCol = blockIdx.x;
    int threadCol = threadIdx.x % BN, threadRow = threadIdx.x / BN; /* 64 x 8 threads */
    int aCol = threadIdx.x % BK, aRow = threadIdx.x / BK;           /* 64 x 8: one each */
    int bCol = threadIdx.x % BN, bRow = threadIdx.x / BN;           /* 8 x 64: one each */
    A += tileRow * BM * K;
    B += tileCol * BN;
    C += tileRow * BM * N + tileCol * BN;
    float results[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[aRow * BK + aCol] = A[aRow * K + aCol];
        Bs[bRow * BN + bCol] = B[bRow * N + bCol];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; k++) {
            float b = Bs[k * BN + threadCol];
            for (int m = 0; m < TM; m++)
                results[m] += As[(threadRow * TM + m) * BK + k] * b;
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; m++) {
        int at = (threadRow * TM + m) * N + threadCol;
        C[at] = alpha * results[m] + beta * C[at];
    }
}
