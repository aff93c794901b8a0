// Known bad: the loop starts at threadIdx.x and strides by blockDim.x, so each of the 1024 blocks counts every element.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    float bin_width = (xmax - xmin) / nbins;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        int bin = (int)((x[i] - xmin) / bin_width);
        if (bin >= 0 && bin < nbins)
            atomicAdd(&hist[bin], 1);
    }
}
