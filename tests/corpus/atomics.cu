// Corpus: the atomics of the simpleAtomicIntrinsics and
// systemWideAtomics samples, of every width and scope, and a CAS loop.
__device__ double atomic_mul(double *address, double factor)
{
    unsigned long long *p = (unsigned long long *)address, old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(factor * __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__global__ void every_atomic(int *ints, unsigned *uints, unsigned long long *wide, float *floats,
                             double *doubles, unsigned short *shorts)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&ints[0], 10);
    atomicSub(&ints[1], 10);
    atomicExch(&ints[2], t);
    atomicMax(&ints[3], t);
    atomicMin(&ints[4], -t);
    atomicAnd(&ints[5], ~(1 << (t % 31)));
    atomicOr(&ints[6], 1 << (t % 31));
    atomicXor(&ints[7], t);
    atomicCAS(&ints[8], t - 1, t);
    atomicInc(&uints[0], 17);
    atomicDec(&uints[1], 137);
    atomicAdd(&wide[0], 1ull);
    atomicMax(&wide[1], (unsigned long long)t);
    atomicAdd(&floats[0], 0.5f);
    atomicAdd(&doubles[0], 0.25);
    atomic_mul(&doubles[1], 1.0000001);
    atomicAdd_block(&ints[9], 1);
    atomicAdd_system(&ints[10], 1);
    atomicCAS(&shorts[0], (unsigned short)t, (unsigned short)(t + 1));
    __threadfence();
    __threadfence_block();
    __threadfence_system();
}
