// Known bad: hist[bin]++ is a read, an add and a write, not atomic, so threads counting into the same bin lose updates.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    float bin_width = (xmax - xmin) / nbins;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int bin = (int)((x[i] - xmin) / bin_width);
        if (bin >= 0 && bin < nbins)
            hist[bin]++;
    }
}
