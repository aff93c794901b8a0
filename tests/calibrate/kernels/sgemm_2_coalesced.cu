// SGEMM step 2, global-memory coalescing, written from the description in Simon Boehm,
// "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// https://siboehm.com/articles/22/CUDA-MMM), kernel 2.
//
// The same work as step 1, but a block is 1024 threads in one dimension and consecutive
// threads take consecutive columns of one 32 x 32 tile of C: a warp reads one element of
// A (a broadcast) and 32 consecutive elements of B and C (coalesced).
#define TILE 32

extern "C" __global__ void sgemm_coalesced(int M, int N, int K, float alpha, const float *A,
                                           const float *B, float beta, float *C)
{
    int row = blockIdx.x * TILE + threadIdx.x / TILE;
    int col = blockIdx.y * TILE + threadIdx.x % TILE;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
}
