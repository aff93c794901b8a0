// Known bad: correct, but thread 0 of block 0 walks the whole array alone while the other 262143 threads return at once.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    float bin_width = (xmax - xmin) / nbins;
    for (int i = 0; i < n; i++) {
        int bin = (int)((x[i] - xmin) / bin_width);
        if (bin >= 0 && bin < nbins)
            atomicAdd(&hist[bin], 1);
    }
}
