# histogram: count the elements of x in each of the histogram_out.shape[0] equal
# bins over [xmin, xmax). Compiles; not yet correct.
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = float32((xmax - xmin) / nbins)
    i = cuda.grid(1)
    # TODO: the grid has only 1024 x 256 threads, far fewer than the elements:
    #       turn this `if` into a grid-stride loop (cuda.gridsize(1)) so every element is counted.
    if i < x.shape[0]:
        bin_number = int32((x[i] - xmin) / bin_width)
        # TODO: ignore bins outside [0, nbins), and count with cuda.atomic.add:
        #       many threads update the same bin at the same time.
        histogram_out[bin_number] += 1
