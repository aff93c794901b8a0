# Known bad (speed): correct, but thread 0 of the grid counts every element alone, as the course's 'single thread on the device' timing does.
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    if cuda.grid(1) == 0:
        nbins = histogram_out.shape[0]
        bin_width = float32((xmax - xmin) / nbins)
        for i in range(x.shape[0]):
            bin_number = int32((x[i] - xmin) / bin_width)
            if bin_number >= 0 and bin_number < nbins:
                histogram_out[bin_number] += 1
