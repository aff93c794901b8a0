// Known bad: subtracts the radii.
extern "C" __global__ void polar_distance(const float *rho1, const float *theta1, const float *rho2, const float *theta2, float *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = fabsf(rho1[i] - rho2[i]);
}
