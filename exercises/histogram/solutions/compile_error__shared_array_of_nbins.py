# Known bad: a shared array's shape must be a constant numba knows when it compiles; histogram_out.shape[0] is known only at launch.
from numba import cuda, float32, int32


@cuda.jit
def cuda_histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    local = cuda.shared.array(nbins, int32)
    if cuda.threadIdx.x < nbins:
        local[cuda.threadIdx.x] = 0
    cuda.syncthreads()
    bin_width = float32((xmax - xmin) / nbins)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(local, bin_number, 1)
    cuda.syncthreads()
    if cuda.threadIdx.x < nbins:
        cuda.atomic.add(histogram_out, cuda.threadIdx.x, local[cuda.threadIdx.x])
