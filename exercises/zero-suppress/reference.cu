// zero-suppress, the reference: out[i] = waveform[i] below threshold ? 0 : waveform[i], one thread per element.
extern "C" __global__ void zero_suppress(const short *waveform, short *out, int threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = waveform[i] < threshold ? 0 : waveform[i];
}
