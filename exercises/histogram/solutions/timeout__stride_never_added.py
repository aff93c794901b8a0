# Known bad: a while loop that never adds the stride to i: every thread with an element counts it forever.
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = float32((xmax - xmin) / nbins)
    i = cuda.grid(1)
    while i < x.shape[0]:
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(histogram_out, bin_number, 1)
