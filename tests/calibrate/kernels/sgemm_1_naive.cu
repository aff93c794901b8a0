// SGEMM step 1, naive: one thread per element of C, written from the description in
// Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a
// Worklog" (2022, https://siboehm.com/articles/22/CUDA-MMM), kernel 1.
//
// C = alpha * A * B + beta * C, row-major, M x K times K x N. Blocks of 32 x 32 threads;
// threadIdx.x picks the row, so the 32 lanes of a warp walk 32 different rows of A (a
// K-float stride: uncoalesced) and write 32 rows of C, and all read one element of B.
extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A,
                                       const float *B, float beta, float *C)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
}
