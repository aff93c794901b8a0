// Known bad (speed): one atomic per sample inside. The compiler reduces a warp's atomicAdd to one address to a single atomic, so over a few thousand samples it keeps up with the reference; the tests grade it at n = 2000000 (7x the reference's time), the assessment at 100M (19x).
// The statement's generator: sample s draws u = hash(2s) / 2^32 and
// v = hash(2s + 1) / 2^32.
__device__ unsigned int hash(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__device__ bool in_circle(unsigned int s)
{
    float u = hash(2u * s) * 2.3283064e-10f, v = hash(2u * s + 1u) * 2.3283064e-10f;
    return u * u + v * v < 1.0f;
}

extern "C" __global__ void count_inside(unsigned int *inside, int n)
{
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < n; s += gridDim.x * blockDim.x)
        if (in_circle((unsigned int)s))
            atomicAdd(inside, 1u);
}

extern "C" __global__ void estimate_pi(const unsigned int *inside, float *pi, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *pi = 4.0f * (float)*inside / (float)n;
}
