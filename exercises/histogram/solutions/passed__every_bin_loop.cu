// Passes, though it looks slow: for each element every thread tries all nbins bins in turn (an atomicAdd of 0 or 1 to each), nbins times the reference's atomic instructions; but each of them has one address for the whole warp, which the compiler reduces over the warp first (one atomic per warp, not 32), so only the bins' one line slows it: 0.87x the reference's time measured on an H200 (it was a too_slow example until then).
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    float bin_width = (xmax - xmin) / nbins;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int bin = (int)((x[i] - xmin) / bin_width);
        for (int b = 0; b < nbins; b++)
            atomicAdd(&hist[b], b == bin ? 1 : 0);
    }
}
