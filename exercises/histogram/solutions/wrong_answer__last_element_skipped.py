# Known bad: the course's formula with a loop that stops one element short (range(start, x.shape[0] - 1, stride)): one count missing is a wrong histogram, whether the bins are computed in float32 or float64.
import numpy as np
from numba import cuda


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins
    for i in range(cuda.grid(1), x.shape[0] - 1, cuda.gridsize(1)):
        bin_number = np.int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(histogram_out, bin_number, 1)
