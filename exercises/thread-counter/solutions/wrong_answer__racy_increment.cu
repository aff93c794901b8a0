// Known bad: a plain increment: threads that run together lose each other's updates.
extern "C" __global__ void count_threads(int *counter)
{
    *counter += 1;
}
