// Known bad: the kernel takes five parameters (nbins hard-coded to 10) where the exercise passes six, so it is rejected before running.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax, int *hist)
{
    const int nbins = 10;
    float bin_width = (xmax - xmin) / nbins;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int bin = (int)((x[i] - xmin) / bin_width);
        if (bin >= 0 && bin < nbins)
            atomicAdd(&hist[bin], 1);
    }
}
