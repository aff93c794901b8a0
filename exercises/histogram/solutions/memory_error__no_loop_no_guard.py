# Known bad: one element per thread with no loop and no guard: the 262,144 threads read past the end of a shorter x (line 10).
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = float32((xmax - xmin) / nbins)
    i = cuda.grid(1)
    bin_number = int32((x[i] - xmin) / bin_width)
    if bin_number >= 0 and bin_number < nbins:
        cuda.atomic.add(histogram_out, bin_number, 1)
