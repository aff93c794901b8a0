// Known bad: traps when it finds the launch not as it expects (it wants 128-thread blocks, the exercise launches 256), aborting the kernel.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    if (blockDim.x != 128)
        __trap();
    float bin_width = (xmax - xmin) / nbins;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int bin = (int)((x[i] - xmin) / bin_width);
        if (bin >= 0 && bin < nbins)
            atomicAdd(&hist[bin], 1);
    }
}
