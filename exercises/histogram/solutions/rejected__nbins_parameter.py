# Known bad: takes the number of bins as a fifth parameter; the course's form is cuda_histogram(x, xmin, xmax, histogram_out), where nbins is histogram_out.shape[0].
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, nbins, histogram_out):
    bin_width = float32((xmax - xmin) / nbins)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(histogram_out, bin_number, 1)
