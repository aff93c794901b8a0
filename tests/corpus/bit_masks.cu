// Corpus: bit-field instructions the integer intrinsics compile to (bmsk,
// bfind, brev, bfe, bfi, prmt, funnel shifts).
__global__ void bit_fields(const unsigned *in, unsigned *out)
{
    unsigned x = in[threadIdx.x], mask;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(mask) : "r"(x & 31), "r"(x >> 27));
    out[threadIdx.x * 6 + 0] = mask;
    out[threadIdx.x * 6 + 1] = __brev(x);
    out[threadIdx.x * 6 + 2] = __clz(x) + __ffs(x);
    out[threadIdx.x * 6 + 3] = __byte_perm(x, ~x, 0x5140);
    out[threadIdx.x * 6 + 4] = __funnelshift_l(x, ~x, x & 31);
    out[threadIdx.x * 6 + 5] = __popc(x) + __fns(x, 0, 1);
}
