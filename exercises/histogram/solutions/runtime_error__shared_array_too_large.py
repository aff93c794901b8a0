# Known bad: a shared histogram 'big enough for any nbins', 65536 int32 = 256 KB per block, more shared memory than a block may have: the launch is refused.
from numba import cuda, float32, int32

MAX_BINS = 65536


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    local = cuda.shared.array(MAX_BINS, int32)
    nbins = histogram_out.shape[0]
    t = cuda.threadIdx.x
    if t < nbins:
        local[t] = 0
    cuda.syncthreads()
    bin_width = float32((xmax - xmin) / nbins)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(local, bin_number, 1)
    cuda.syncthreads()
    if t < nbins:
        cuda.atomic.add(histogram_out, t, local[t])
