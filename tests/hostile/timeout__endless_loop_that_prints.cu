// Never ends and prints all the while: the output is capped, the job stopped.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    for (unsigned long i = 0;; i++)
        printf("thread %d, line %lu: all work and no play\n", threadIdx.x, i);
}
