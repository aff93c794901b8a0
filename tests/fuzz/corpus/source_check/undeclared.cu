extern "C" __global__ void k(float* a, int n)
{
    int i = threadIdx.x;
    a[i] = undeclared_thing + 1.0f;
    int unused_var = 3;
    float x = 1.0
    a[0] = x;
}
