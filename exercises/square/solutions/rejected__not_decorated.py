# Known bad: the course's CPU function, not decorated with @cuda.jit (nor @vectorize): nothing for the GPU to run.
def square_device(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] ** 2
