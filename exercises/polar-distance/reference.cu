// polar-distance, the reference: d[i] = the distance between two points in polar coordinates, one thread per element.
__device__ void to_cartesian(float rho, float theta, float *x, float *y)
{
    float s, c;
    sincosf(theta, &s, &c);
    *x = rho * c;
    *y = rho * s;
}

extern "C" __global__ void polar_distance(const float *rho1, const float *theta1, const float *rho2, const float *theta2, float *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x1, y1, x2, y2;
    to_cartesian(rho1[i], theta1[i], &x1, &y1);
    to_cartesian(rho2[i], theta2[i], &x2, &y2);
    d[i] = sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
}
