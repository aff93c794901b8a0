// polar-distance: d[i] = the distance between two points in polar coordinates. Compiles; not yet correct.
extern "C" __global__ void polar_distance(const float *rho1, const float *theta1, const float *rho2, const float *theta2, float *d, int n)
{
    int i = threadIdx.x;
    // TODO: use the block index too, guard against i >= n, and compute the formula.
    (void)i;
}
