// Known good: each block counts into its own 256-entry shared-memory histogram, then adds it to hist with one atomicAdd per bin.
#define MAX_BINS 256

extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    __shared__ int local[MAX_BINS];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    float bin_width = (xmax - xmin) / nbins;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int bin = (int)((x[i] - xmin) / bin_width);
        if (bin >= 0 && bin < nbins)
            atomicAdd(&local[bin], 1);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}
