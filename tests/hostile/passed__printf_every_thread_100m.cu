// Right, and prints from every thread of the 100M-element launch: the
// device's printf buffer (1 MB a launch) and the result's output (16 KB)
// are capped, the job's memory stays bounded, and printf costs nothing in
// the timing model, so the verdict is passed.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        printf("element %d is %f\n", i, c[i]);
    }
}
