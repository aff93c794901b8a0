// Known bad: a missing semicolon after the bin computation, which NVRTC reports as a compile error.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    float bin_width = (xmax - xmin) / nbins;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int bin = (int)((x[i] - xmin) / bin_width)
        if (bin >= 0 && bin < nbins)
            atomicAdd(&hist[bin], 1);
    }
}
