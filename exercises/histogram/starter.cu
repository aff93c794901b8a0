// histogram: count the elements of x in each of nbins equal bins over
// [xmin, xmax). Compiles; not yet correct.
extern "C" __global__ void histogram(const float *x, int n, float xmin, float xmax,
                                     int *hist, int nbins)
{
    float bin_width = (xmax - xmin) / nbins;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: the grid has only 1024 x 256 threads, far fewer than n elements:
    //       turn this `if` into a grid-stride loop so every element is counted.
    if (i < n) {
        int bin = (int)((x[i] - xmin) / bin_width);
        // TODO: ignore bins outside [0, nbins), and count with atomicAdd:
        //       many threads update the same bin at the same time.
        hist[bin] += 1;
    }
}
