// SGEMM step 3, shared-memory cache-blocking, written from the description in Simon
// Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog"
// (2022, https://siboehm.com/articles/22/CUDA-MMM), kernel 3.
//
// A block of 1024 threads computes a 32 x 32 tile of C. It walks K in steps of 32: each
// thread loads one element of A's and one of B's 32 x 32 tile into shared memory
// (coalesced), the block synchronizes, and each thread adds the 32 products of its row
// of As and its column of Bs. Assumes M, N and K are multiples of 32.
#define TILE 32

extern "C" __global__ void sgemm_shared(int M, int N, int K, float alpha, const float *A,
                                        const float *B, float beta, float *C)
{
    __shared__ float As[TILE * TILE];
    __shared__ float Bs[TILE * TILE];
    int tileRow = blockIdx.x, tileCol = blockIdx.y;
    int r = threadIdx.x / TILE, c = threadIdx.x % TILE;
    A += tileRow * TILE * K;
    B += tileCol * TILE;
    C += tileRow * TILE * N + tileCol * TILE;
    float sum = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[r * TILE + c] = A[r * K + c];
        Bs[r * TILE + c] = B[r * N + c];
        __syncthreads();
        A += TILE;
        B += TILE * N;
        for (int k = 0; k < TILE; k++)
            sum += As[r * TILE + k] * Bs[k * TILE + c];
        __syncthreads();
    }
    C[r * N + c] = alpha * sum + beta * C[r * N + c];
}
