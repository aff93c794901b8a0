// monte-carlo-pi: count the samples inside the quarter circle, then estimate pi. Compiles; not yet correct.
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
    // TODO: every sample s from 0 to n - 1, counted once, with atomics.
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *inside = in_circle(0);
}

extern "C" __global__ void estimate_pi(const unsigned int *inside, float *pi, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *pi = 4.0f * (float)*inside / (float)n;
}
