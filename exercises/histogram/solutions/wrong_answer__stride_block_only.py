# Known bad: steps by the block's size (cuda.blockDim.x) instead of the grid's, so every element is counted by many blocks.
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = float32((xmax - xmin) / nbins)
    for i in range(cuda.grid(1), x.shape[0], cuda.blockDim.x):
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(histogram_out, bin_number, 1)
