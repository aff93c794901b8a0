// Corpus: the CUDA math library in single and double precision, the fast
// intrinsics, and integer division by constants, as the course's
// elementwise exercises and the samples use them.
__global__ void math_table(const float *x, const double *y, float *f, double *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i];
    double b = y[i];
    float s, c;
    sincosf(a, &s, &c);
    f[i * 8 + 0] = expf(a) + logf(fabsf(a) + 1) + powf(fabsf(a), 1.5f);
    f[i * 8 + 1] = __expf(a) + __logf(fabsf(a) + 1) + __sinf(a) + __cosf(a) + __fdividef(a, 3);
    f[i * 8 + 2] = tanhf(a) + erff(a) + erfcf(a) + lgammaf(fabsf(a) + 1) + tgammaf(fabsf(a) + 1);
    f[i * 8 + 3] = rsqrtf(fabsf(a) + 1) + cbrtf(a) + hypotf(a, 2) + atan2f(a, 1) + s + c;
    f[i * 8 + 4] = sinpif(a) + cospif(a) + exp2f(a) + log2f(fabsf(a) + 1) + log1pf(fabsf(a));
    f[i * 8 + 5] = fmaf(a, a, 1) + fminf(a, 0) + fmaxf(a, 0) + truncf(a) + roundf(a) + rintf(a);
    f[i * 8 + 6] = normcdff(a) + erfinvf(a / 4) + asinhf(a) + acoshf(fabsf(a) + 1);
    f[i * 8 + 7] = (float)(i / 7 + i % 13) + __saturatef(a) + copysignf(1, a);
    d[i * 4 + 0] = exp(b) + log(fabs(b) + 1) + pow(fabs(b), 1.5) + sqrt(fabs(b));
    d[i * 4 + 1] = sin(b) + cos(b) + tan(b / 4) + atan(b) + tanh(b) + erf(b);
    d[i * 4 + 2] = fma(b, b, 1.0) + rsqrt(fabs(b) + 1) + cbrt(b) + lgamma(fabs(b) + 1);
    d[i * 4 + 3] = (double)a * b + floor(b) + ceil(b) + fmod(b, 0.3) + remainder(b, 0.7);
}
