// Known bad: no guard, so the last block's extra threads go past the end.
extern "C" __global__ void zero_suppress(const short *waveform, short *out, int threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = waveform[i] < threshold ? 0 : waveform[i];
}
