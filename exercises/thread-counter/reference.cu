// thread-counter, the reference: one atomic add per thread.
extern "C" __global__ void count_threads(int *counter)
{
    atomicAdd(counter, 1);
}
