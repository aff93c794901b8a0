// block-reverse: reverse each block's 256 elements. Compiles; not yet correct.
extern "C" __global__ void block_reverse(const float *in, float *out)
{
    int base = blockIdx.x * 256;
    // TODO: stage the block's elements in __shared__ memory, wait for the whole block, write them reversed.
    out[base + threadIdx.x] = in[base + threadIdx.x];
}
