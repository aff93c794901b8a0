# Known bad: histogram_out[b] += 1 is a read, an add and a write: threads counting into the same bin at once lose counts.
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = float32((xmax - xmin) / nbins)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            histogram_out[bin_number] += 1
