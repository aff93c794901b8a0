// Corpus: nvcuda::wmma as the CUDA samples use it (simpleTensorCoreGEMM,
// cudaTensorCoreGemm): f16 tiles with a float accumulator, alpha and beta
// applied element by element, a shared-memory stage; the other shapes and
// types (bf16, tf32, int8, double, the sub-byte experimental ones).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void wmma_gemm(const half *a, const half *b, float *c, int m, int n, int k,
                          float alpha, float beta)
{
    int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warp_n = blockIdx.y * blockDim.y + threadIdx.y;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);
    for (int i = 0; i < k; i += 16) {
        int a_row = warp_m * 16, b_col = warp_n * 16;
        if (a_row < m && b_col < n) {
            wmma::load_matrix_sync(a_frag, a + a_row + i * m, m);
            wmma::load_matrix_sync(b_frag, b + i + b_col * k, k);
            wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        }
    }
    int c_row = warp_m * 16, c_col = warp_n * 16;
    if (c_row < m && c_col < n) {
        wmma::load_matrix_sync(c_frag, c + c_row + c_col * m, m, wmma::mem_col_major);
        for (int i = 0; i < c_frag.num_elements; i++)
            c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
        wmma::store_matrix_sync(c + c_row + c_col * m, c_frag, m, wmma::mem_col_major);
    }
}

__global__ void wmma_staged(const half *a, const half *b, half *d)
{
    __shared__ half tile[32][16 + 8];
    for (int e = threadIdx.x; e < 32 * 16; e += blockDim.x)
        tile[e / 16][e % 16] = a[e];
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
    wmma::fill_fragment(acc, __float2half(0.0f));
    wmma::load_matrix_sync(fa, &tile[0][0], 16 + 8);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);
}

__global__ void wmma_other_types(const __nv_bfloat16 *bf, const float *tf, const signed char *s8,
                                 const double *f64, const void *bits, float *out, int *iout,
                                 double *dout)
{
    wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::col_major> bb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> bc;
    wmma::load_matrix_sync(ba, bf, 16);
    wmma::load_matrix_sync(bb, bf + 128, 16);
    wmma::fill_fragment(bc, 0.0f);
    wmma::mma_sync(bc, ba, bb, bc);
    wmma::store_matrix_sync(out, bc, 32, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
    wmma::load_matrix_sync(ta, tf, 8);
    wmma::load_matrix_sync(tb, tf + 128, 16);
    for (int i = 0; i < ta.num_elements; i++)
        ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
    wmma::load_matrix_sync(tc, out, 16, wmma::mem_col_major);
    wmma::mma_sync(tc, ta, tb, tc);
    wmma::store_matrix_sync(out + 256, tc, 16, wmma::mem_col_major);

    wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::col_major> ia;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::row_major> ib;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> ic;
    wmma::load_matrix_sync(ia, s8, 32);
    wmma::load_matrix_sync(ib, s8 + 512, 16);
    wmma::fill_fragment(ic, 7);
    wmma::mma_sync(ic, ia, ib, ic, true);
    wmma::store_matrix_sync(iout, ic, 8, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> da;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> db;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
    wmma::load_matrix_sync(da, f64, 8);
    wmma::load_matrix_sync(db, f64 + 32, 8);
    wmma::fill_fragment(dc, 1.0);
    wmma::mma_sync(dc, da, db, dc);
    wmma::store_matrix_sync(dout, dc, 8, wmma::mem_col_major);

    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> ua;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> ub;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> uc;
    wmma::load_matrix_sync(ua, bits, 32);
    wmma::load_matrix_sync(ub, bits, 32);
    wmma::fill_fragment(uc, 0);
    wmma::mma_sync(uc, ua, ub, uc);
    wmma::store_matrix_sync(iout + 256, uc, 8, wmma::mem_col_major);
}
