/*
 * Conversions on the virtual GPU, in every rounding mode, against the host:
 * - float and double to int, unsigned, long long and unsigned long long
 *   (__float2int_rn/rz/rd/ru ... __double2ull_ru, and C casts): rounded in
 *   the named mode, clamped to the destination's range, NaN to 0 (the CUDA
 *   Programming Guide: out-of-range conversions "clamp to the end of the
 *   supported range"; PTX cvt: NaN converts to 0);
 * - int, unsigned, long long, unsigned long long to float and double
 *   (__int2float_rn ... __ull2double_ru), and double to float
 *   (__double2float_rn/rz/rd/ru): rounded in the named mode (the host sets
 *   its rounding mode with fesetround and converts the exact value);
 * - float to half and bfloat16 in each mode (cuda_fp16.h/cuda_bf16.h with
 *   -I$(CUDA_HOME)/include), half to float;
 * - saturating integer narrowing (cvt.sat.s8.s32 and friends, by inline PTX);
 * - the bit-level helpers __double2hiint, __double2loint, __hiloint2double.
 * Inputs: halfway cases, the edges of every integer range and their float
 * neighbours, ±0, subnormals, ±Inf, NaN, and random values.
 */
#pragma GCC optimize("rounding-math") /* the references switch rounding modes */

#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <math.h>

#include "gpu_test.h"

#define THREADS  128
#define N_RANDOM 8192
#define SHOW     4

enum mode { RN, RZ, RD, RU };
static const int fe_modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
enum int_kind { S32, U32, S64, U64 };

/* Rounds v to an integral value in `m`. */
static double round_in(double v, enum mode m)
{
    switch (m) {
    case RN:
        return rint(v); /* the default environment: ties to even */
    case RZ:
        return trunc(v);
    case RD:
        return floor(v);
    default:
        return ceil(v);
    }
}

/* cvt.rXi.{s,u}{32,64}.f{32,64}: rounded, clamped, NaN to 0; the result's
 * bits, 32-bit ones zero-extended. */
static uint64_t to_int(double v, enum mode m, enum int_kind kind)
{
    if (isnan(v))
        return 0;
    double r = round_in(v, m);
    switch (kind) {
    case S32:
        return (uint32_t)(r <= INT_MIN ? INT_MIN : r >= INT_MAX ? INT_MAX : (int)r);
    case U32:
        return r <= 0 ? 0 : r >= UINT_MAX ? UINT_MAX : (uint32_t)r;
    case S64:
        return (uint64_t)(r <= -0x1p63 ? LLONG_MIN : r >= 0x1p63 ? LLONG_MAX : (long long)r);
    default:
        return r <= 0 ? 0 : r >= 0x1p64 ? ULLONG_MAX : (uint64_t)r;
    }
}

/* The exact value `v` (a long double holds every 64-bit integer and every
 * double exactly) rounded to float or double in mode m. */
static uint64_t to_float(long double v, enum mode m)
{
    volatile long double vv = v;
    fesetround(fe_modes[m]);
    volatile float r = (float)vv;
    fesetround(FE_TONEAREST);
    return gpu_test_float_bits(r);
}

static uint64_t to_double(long double v, enum mode m)
{
    volatile long double vv = v;
    fesetround(fe_modes[m]);
    volatile double r = (double)vv;
    fesetround(FE_TONEAREST);
    return gpu_test_double_bits(r);
}

/* float to a format with `mant` fraction bits, exponent bias `bias` and
 * `exp_bits` exponent bits (half: 10, 15, 5; bfloat16: 7, 127, 8), rounded
 * in mode m; NaN gives a NaN (compared as NaN only). */
static uint16_t to_small(float f, enum mode m, int mant, int bias, int exp_bits)
{
    uint16_t sign = signbit(f) ? (uint16_t)(1u << 15) : 0;
    uint16_t inf = (uint16_t)(((1u << exp_bits) - 1) << mant);
    if (isnan(f))
        return (uint16_t)(sign | inf | (1u << (mant - 1)));
    if (isinf(f))
        return sign | inf;
    double d = fabs((double)f);
    if (d == 0)
        return sign;
    int min_exp = 1 - bias;
    int e = ilogb(d) < min_exp ? min_exp : ilogb(d);
    double q = ldexp(1.0, e - mant), t = d / q, r;
    int up = m == RU ? !sign : m == RD ? !!sign : 0;
    if (m == RN)
        r = rint(t);
    else if (m == RZ || !up)
        r = floor(t);
    else
        r = ceil(t);
    double mag = r * q;
    double max = ldexp(2.0 - ldexp(1.0, -mant), bias); /* the largest finite value */
    if (mag > max) {
        int to_inf = m == RN || up;
        return to_inf ? (uint16_t)(sign | inf) : (uint16_t)(sign | (inf - 1));
    }
    if (mag < ldexp(1.0, min_exp)) /* subnormal (or the smallest normal after rounding) */
        return (uint16_t)(sign | (uint16_t)(mag / ldexp(1.0, min_exp - mant)));
    int exp = ilogb(mag);
    uint16_t frac = (uint16_t)(mag / ldexp(1.0, exp - mant) - ldexp(1.0, mant));
    return (uint16_t)(sign | (uint16_t)((exp + bias) << mant) | frac);
}

static float half_to_float(uint16_t h)
{
    int exp = (h >> 10) & 31, frac = h & 1023;
    double mag = exp == 0    ? ldexp(frac, -24)
                 : exp == 31 ? (frac ? NAN : INFINITY)
                             : ldexp(1024 + frac, exp - 25);
    return (float)(h & 0x8000 ? -mag : mag);
}

static int64_t saturate(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The operations: the CUDA expression (an unsigned long long of the
 * result's bits) and the host's. In both, x is a float, X a double, L a
 * long long, I = (int)L, U = (unsigned)L, UL = (unsigned long long)L, and
 * h = (unsigned short)L a half's bits. */
enum source { F32, F64, I32, U32_, I64, U64_, HALF, BITS };
enum result { R_S32, R_U32, R_S64, R_U64, R_F32, R_F64, R_F16, R_BF16, R_OTHER };

struct op {
    const char *expression;
    enum source from;
    enum result to;
    enum mode mode;
};

static const struct op ops[] = {
    {"(ull)(unsigned)__float2int_rn(x)", F32, R_S32, RN},
    {"(ull)(unsigned)__float2int_rz(x)", F32, R_S32, RZ},
    {"(ull)(unsigned)__float2int_rd(x)", F32, R_S32, RD},
    {"(ull)(unsigned)__float2int_ru(x)", F32, R_S32, RU},
    {"(ull)__float2uint_rn(x)", F32, R_U32, RN},
    {"(ull)__float2uint_rz(x)", F32, R_U32, RZ},
    {"(ull)__float2uint_rd(x)", F32, R_U32, RD},
    {"(ull)__float2uint_ru(x)", F32, R_U32, RU},
    {"(ull)__float2ll_rn(x)", F32, R_S64, RN},
    {"(ull)__float2ll_rz(x)", F32, R_S64, RZ},
    {"(ull)__float2ll_rd(x)", F32, R_S64, RD},
    {"(ull)__float2ll_ru(x)", F32, R_S64, RU},
    {"(ull)__float2ull_rn(x)", F32, R_U64, RN},
    {"(ull)__float2ull_rz(x)", F32, R_U64, RZ},
    {"(ull)__float2ull_rd(x)", F32, R_U64, RD},
    {"(ull)__float2ull_ru(x)", F32, R_U64, RU},
    {"(ull)(unsigned)(int)x", F32, R_S32, RZ},
    {"(ull)(unsigned)x", F32, R_U32, RZ},
    {"(ull)(long long)x", F32, R_S64, RZ},
    {"(ull)x", F32, R_U64, RZ},
    {"(ull)(unsigned)__double2int_rn(X)", F64, R_S32, RN},
    {"(ull)(unsigned)__double2int_rz(X)", F64, R_S32, RZ},
    {"(ull)(unsigned)__double2int_rd(X)", F64, R_S32, RD},
    {"(ull)(unsigned)__double2int_ru(X)", F64, R_S32, RU},
    {"(ull)__double2uint_rn(X)", F64, R_U32, RN},
    {"(ull)__double2uint_rz(X)", F64, R_U32, RZ},
    {"(ull)__double2uint_rd(X)", F64, R_U32, RD},
    {"(ull)__double2uint_ru(X)", F64, R_U32, RU},
    {"(ull)__double2ll_rn(X)", F64, R_S64, RN},
    {"(ull)__double2ll_rz(X)", F64, R_S64, RZ},
    {"(ull)__double2ll_rd(X)", F64, R_S64, RD},
    {"(ull)__double2ll_ru(X)", F64, R_S64, RU},
    {"(ull)__double2ull_rn(X)", F64, R_U64, RN},
    {"(ull)__double2ull_rz(X)", F64, R_U64, RZ},
    {"(ull)__double2ull_rd(X)", F64, R_U64, RD},
    {"(ull)__double2ull_ru(X)", F64, R_U64, RU},
    {"(ull)(unsigned)(int)X", F64, R_S32, RZ},
    {"(ull)(long long)X", F64, R_S64, RZ},
    {"(ull)X", F64, R_U64, RZ},
    {"(ull)__float_as_uint(__double2float_rn(X))", F64, R_F32, RN},
    {"(ull)__float_as_uint(__double2float_rz(X))", F64, R_F32, RZ},
    {"(ull)__float_as_uint(__double2float_rd(X))", F64, R_F32, RD},
    {"(ull)__float_as_uint(__double2float_ru(X))", F64, R_F32, RU},
    {"(ull)__float_as_uint((float)X)", F64, R_F32, RN},
    {"(ull)__double_as_longlong((double)x)", F32, R_F64, RN},
    {"(ull)__float_as_uint(__int2float_rn(I))", I32, R_F32, RN},
    {"(ull)__float_as_uint(__int2float_rz(I))", I32, R_F32, RZ},
    {"(ull)__float_as_uint(__int2float_rd(I))", I32, R_F32, RD},
    {"(ull)__float_as_uint(__int2float_ru(I))", I32, R_F32, RU},
    {"(ull)__float_as_uint(__uint2float_rn(U))", U32_, R_F32, RN},
    {"(ull)__float_as_uint(__uint2float_rz(U))", U32_, R_F32, RZ},
    {"(ull)__float_as_uint(__uint2float_rd(U))", U32_, R_F32, RD},
    {"(ull)__float_as_uint(__uint2float_ru(U))", U32_, R_F32, RU},
    {"(ull)__float_as_uint(__ll2float_rn(L))", I64, R_F32, RN},
    {"(ull)__float_as_uint(__ll2float_rz(L))", I64, R_F32, RZ},
    {"(ull)__float_as_uint(__ll2float_rd(L))", I64, R_F32, RD},
    {"(ull)__float_as_uint(__ll2float_ru(L))", I64, R_F32, RU},
    {"(ull)__float_as_uint(__ull2float_rn(UL))", U64_, R_F32, RN},
    {"(ull)__float_as_uint(__ull2float_rz(UL))", U64_, R_F32, RZ},
    {"(ull)__float_as_uint(__ull2float_rd(UL))", U64_, R_F32, RD},
    {"(ull)__float_as_uint(__ull2float_ru(UL))", U64_, R_F32, RU},
    {"(ull)__float_as_uint((float)I)", I32, R_F32, RN},
    {"(ull)__float_as_uint((float)UL)", U64_, R_F32, RN},
    {"(ull)__double_as_longlong(__int2double_rn(I))", I32, R_F64, RN},
    {"(ull)__double_as_longlong(__uint2double_rn(U))", U32_, R_F64, RN},
    {"(ull)__double_as_longlong(__ll2double_rn(L))", I64, R_F64, RN},
    {"(ull)__double_as_longlong(__ll2double_rz(L))", I64, R_F64, RZ},
    {"(ull)__double_as_longlong(__ll2double_rd(L))", I64, R_F64, RD},
    {"(ull)__double_as_longlong(__ll2double_ru(L))", I64, R_F64, RU},
    {"(ull)__double_as_longlong(__ull2double_rn(UL))", U64_, R_F64, RN},
    {"(ull)__double_as_longlong(__ull2double_rz(UL))", U64_, R_F64, RZ},
    {"(ull)__double_as_longlong(__ull2double_rd(UL))", U64_, R_F64, RD},
    {"(ull)__double_as_longlong(__ull2double_ru(UL))", U64_, R_F64, RU},
    {"(ull)__half_as_ushort(__float2half_rn(x))", F32, R_F16, RN},
    {"(ull)__half_as_ushort(__float2half_rz(x))", F32, R_F16, RZ},
    {"(ull)__half_as_ushort(__float2half_rd(x))", F32, R_F16, RD},
    {"(ull)__half_as_ushort(__float2half_ru(x))", F32, R_F16, RU},
    {"(ull)__bfloat16_as_ushort(__float2bfloat16_rn(x))", F32, R_BF16, RN},
    {"(ull)__bfloat16_as_ushort(__float2bfloat16_rz(x))", F32, R_BF16, RZ},
    {"(ull)__bfloat16_as_ushort(__float2bfloat16_rd(x))", F32, R_BF16, RD},
    {"(ull)__bfloat16_as_ushort(__float2bfloat16_ru(x))", F32, R_BF16, RU},
    {"(ull)__float_as_uint(__half2float(__ushort_as_half(h)))", HALF, R_F32, RN},
    {"(ull)(unsigned)__double2hiint(X)", BITS, R_OTHER, RN},
    {"(ull)(unsigned)__double2loint(X)", BITS, R_OTHER, RZ},
    {"(ull)__double_as_longlong(__hiloint2double(I, (int)(L >> 32)))", BITS, R_OTHER, RD},
    {"sat", BITS, R_OTHER, RU},
};
#define N_OPS ((int)(sizeof ops / sizeof ops[0]))

static const char prelude[] = "#include <cuda_fp16.h>\n"
                              "#include <cuda_bf16.h>\n"
                              "typedef unsigned long long ull;\n";

/* The saturating narrowings of I, by inline PTX, packed into `sat`. */
static const char saturations[] =
    "    int sa, sb, sc, sd, se;\n"
    "    asm(\"cvt.sat.s8.s32 %0, %1;\" : \"=r\"(sa) : \"r\"(I));\n"
    "    asm(\"cvt.sat.u8.s32 %0, %1;\" : \"=r\"(sb) : \"r\"(I));\n"
    "    asm(\"cvt.sat.s16.s32 %0, %1;\" : \"=r\"(sc) : \"r\"(I));\n"
    "    asm(\"cvt.sat.u16.s32 %0, %1;\" : \"=r\"(sd) : \"r\"(I));\n"
    "    asm(\"cvt.sat.u32.s32 %0, %1;\" : \"=r\"(se) : \"r\"(I));\n"
    "    ull sat = (ull)(unsigned char)sa | (ull)(unsigned char)sb << 8 |\n"
    "              (ull)(unsigned short)sc << 16 | (ull)(unsigned short)sd << 32 |\n"
    "              (ull)((unsigned)se >> 16) << 48;\n";

/* The host's value of operation k. */
static uint64_t reference(const struct op *op, float x, double X, long long L)
{
    int I = (int)L;
    unsigned U = (unsigned)L;
    unsigned long long UL = (unsigned long long)L;
    enum int_kind kinds[] = {S32, U32, S64, U64};
    switch (op->to) {
    case R_S32:
    case R_U32:
    case R_S64:
    case R_U64:
        return to_int(op->from == F32 ? (double)x : X, op->mode, kinds[op->to]);
    case R_F32:
        switch (op->from) {
        case F64:
            return to_float(X, op->mode);
        case I32:
            return to_float(I, op->mode);
        case U32_:
            return to_float(U, op->mode);
        case I64:
            return to_float(L, op->mode);
        case U64_:
            return to_float(UL, op->mode);
        default: /* HALF */
            return gpu_test_float_bits(half_to_float((uint16_t)L));
        }
    case R_F64:
        switch (op->from) {
        case F32:
            return gpu_test_double_bits((double)x);
        case I32:
            return to_double(I, op->mode);
        case U32_:
            return to_double(U, op->mode);
        case I64:
            return to_double(L, op->mode);
        default:
            return to_double(UL, op->mode);
        }
    case R_F16:
        return to_small(x, op->mode, 10, 15, 5);
    case R_BF16:
        return to_small(x, op->mode, 7, 127, 8);
    default: /* R_OTHER: told apart by mode */
        switch (op->mode) {
        case RN:
            return (uint32_t)(gpu_test_double_bits(X) >> 32);
        case RZ:
            return (uint32_t)gpu_test_double_bits(X);
        case RD:
            return (uint64_t)(uint32_t)I << 32 | (uint32_t)(L >> 32);
        default:
            return (uint64_t)(uint8_t)saturate(I, -128, 127) |
                   (uint64_t)(uint8_t)saturate(I, 0, 255) << 8 |
                   (uint64_t)(uint16_t)saturate(I, -32768, 32767) << 16 |
                   (uint64_t)(uint16_t)saturate(I, 0, 65535) << 32 |
                   (uint64_t)((uint32_t)saturate(I, 0, INT_MAX) >> 16) << 48;
        }
    }
}

/* NaN results of narrowing to half/bfloat16 or to float: any NaN. */
static int same(const struct op *op, uint64_t got, uint64_t want)
{
    if (op->to == R_F16)
        return ((want & 0x7c00) == 0x7c00 && (want & 0x3ff))
                   ? (got & 0x7c00) == 0x7c00 && (got & 0x3ff) && got < 0x10000
                   : got == want;
    if (op->to == R_BF16)
        return ((want & 0x7f80) == 0x7f80 && (want & 0x7f))
                   ? (got & 0x7f80) == 0x7f80 && (got & 0x7f) && got < 0x10000
                   : got == want;
    if (op->to == R_F32)
        return isnan(gpu_test_float_of((uint32_t)want))
                   ? got < (1ull << 32) && isnan(gpu_test_float_of((uint32_t)got))
                   : got == want;
    if (op->to == R_F64)
        return isnan(gpu_test_double_of(want)) ? isnan(gpu_test_double_of(got)) : got == want;
    return got == want;
}

static char *kernel_source(void)
{
    size_t size = sizeof prelude + sizeof saturations + 1024;
    for (int k = 0; k < N_OPS; k++)
        size += strlen(ops[k].expression) + 48;
    char *s = malloc(size);
    if (s == NULL)
        return NULL;
    int used = snprintf(s, size,
                        "%s"
                        "extern \"C\" __global__ void conversions(const float *xf,\n"
                        "    const double *xd, const long long *xl, ull *out, int n)\n"
                        "{\n"
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "    if (i >= n) return;\n"
                        "    float x = xf[i];\n"
                        "    double X = xd[i];\n"
                        "    long long L = xl[i];\n"
                        "    int I = (int)L;\n"
                        "    unsigned U = (unsigned)L;\n"
                        "    ull UL = (ull)L;\n"
                        "    unsigned short h = (unsigned short)L;\n"
                        "%s",
                        prelude, saturations);
    for (int k = 0; k < N_OPS; k++)
        used += snprintf(s + used, size - (size_t)used, "    out[(size_t)%d * n + i] = %s;\n", k,
                         ops[k].expression);
    snprintf(s + used, size - (size_t)used, "}\n");
    return s;
}

/* ---------------------------------------------------------------- inputs */

static const float float_edges[] = {
    0.0f,
    -0.0f,
    0.5f,
    -0.5f,
    1.5f,
    -1.5f,
    2.5f,
    -2.5f,
    0.49999997f,
    -0.49999997f,
    0.50000006f,
    1.0f,
    -1.0f,
    0.99999994f,
    8388607.5f,
    -8388607.5f,
    16777216.0f,
    16777218.0f,
    0x1p31f,
    -0x1p31f,
    0x1.fffffep30f,
    -0x1.fffffep30f,
    0x1p32f,
    0x1.fffffep31f,
    0x1p63f,
    -0x1p63f,
    0x1.fffffep62f,
    0x1p64f,
    0x1.fffffep63f,
    1e-45f,
    -1e-45f,
    FLT_MIN,
    FLT_MAX,
    -FLT_MAX,
    INFINITY,
    -INFINITY,
    NAN,
    65504.0f,
    65519.99f,
    65520.0f,
    -65520.0f,
    6.1035156e-05f,
    5.9604645e-08f,
    2.9802322e-08f,
    2.9802326e-08f,
    1.0009766f,
    1.0004883f,
    0x1.fefffep127f,
    3.3895314e38f,
    -3.3961775e38f,
    0.1f,
    -2147483520.0f,
    4294967040.0f,
    1e10f,
};
#define N_FLOAT_EDGES (sizeof float_edges / sizeof float_edges[0])

static const double double_edges[] = {
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    2147483647.0,
    2147483647.5,
    2147483648.0,
    -2147483648.0,
    -2147483648.5,
    -2147483649.0,
    4294967295.0,
    4294967295.5,
    4294967296.0,
    -0.9999999999999999,
    0x1p63,
    -0x1p63,
    0x1.fffffffffffffp62,
    0x1p64,
    0x1.fffffffffffffp63,
    1e300,
    -1e300,
    4.9e-324,
    DBL_MIN,
    DBL_MAX,
    -DBL_MAX,
    INFINITY,
    -INFINITY,
    NAN,
    FLT_MAX,
    3.4028235677973366e38,
    3.4028235677973362e38,
    1.401298464324817e-45,
    7.006492321624085e-46,
    7.006492321624087e-46,
    1.0000000596046448,
    1.0000000596046450,
    -1.0000000596046448,
    0.1,
    16777217.0,
    1e-40,
    -1e-40,
};
#define N_DOUBLE_EDGES (sizeof double_edges / sizeof double_edges[0])

static const long long int_edges[] = {
    0,
    1,
    -1,
    16777216,
    16777217,
    16777219,
    -16777217,
    2147483647,
    -2147483647 - 1,
    2147483583,
    2147483584,
    (long long)0x80000001u,
    0xffffffffll,
    0xffffff80ll,
    0xffffff7fll,
    9007199254740993ll,
    -9007199254740993ll,
    0x7fffffffffffffffll,
    (long long)0x8000000000000000ull,
    (long long)0xffffffffffffffffull,
    (long long)0xfffffffffffff800ull,
    (long long)0x7ffffffffffffe00ull,
    0x7ffffe8000000000ll,
    0x3c00,
    0x7bff,
    0x0001,
    0x8001,
    0x7c00,
    0xfc00,
    0x7e00,
    0x03ff,
    200,
    -200,
    70000,
    -70000,
    255,
    65535,
    -129,
};
#define N_INT_EDGES (sizeof int_edges / sizeof int_edges[0])

static int make_inputs(float *xf, double *xd, long long *xl)
{
    int n = 0;
    size_t edges = N_FLOAT_EDGES > N_DOUBLE_EDGES ? N_FLOAT_EDGES : N_DOUBLE_EDGES;
    edges = edges > N_INT_EDGES ? edges : N_INT_EDGES;
    for (size_t i = 0; i < edges; i++, n++) {
        xf[n] = float_edges[i % N_FLOAT_EDGES];
        xd[n] = double_edges[i % N_DOUBLE_EDGES];
        xl[n] = int_edges[i % N_INT_EDGES];
    }
    for (int i = 0; i < N_RANDOM; i++, n++) {
        switch (i % 4) {
        case 0:
            xf[n] = gpu_test_float_of((uint32_t)gpu_test_rng());
            xd[n] = gpu_test_double_of(gpu_test_rng());
            xl[n] = (long long)gpu_test_rng();
            break;
        case 1: /* halfway cases and their neighbours */
            xf[n] = (float)((int)(gpu_test_rng() % 2001) - 1000) * 0.5f +
                    (float)((int)(gpu_test_rng() % 3) - 1) * 0x1p-20f;
            xd[n] = (double)((long long)(gpu_test_rng() % 200001) - 100000) * 0.5 +
                    (double)((int)(gpu_test_rng() % 3) - 1) * 0x1p-40;
            xl[n] = (long long)(gpu_test_rng() >> (gpu_test_rng() % 64)) *
                    (gpu_test_rng() & 1 ? 1 : -1);
            break;
        case 2: /* near the ends of the integer ranges */
            xf[n] = ldexpf((float)(uint32_t)gpu_test_rng() / 4294967296.0f + 1.0f,
                           29 + (int)(gpu_test_rng() % 36)) *
                    (gpu_test_rng() & 1 ? 1.0f : -1.0f);
            xd[n] = ldexp((double)(gpu_test_rng() >> 11) / 9007199254740992.0 + 1.0,
                          29 + (int)(gpu_test_rng() % 36)) *
                    (gpu_test_rng() & 1 ? 1.0 : -1.0);
            xl[n] = (long long)((gpu_test_rng() & ~0ull << (gpu_test_rng() % 40)) |
                                1ull << (24 + gpu_test_rng() % 39));
            break;
        default: /* the half and bfloat16 ranges, doubles near float precision */
            xf[n] = ldexpf((float)(gpu_test_rng() % 16777216) / 16777216.0f,
                           (int)(gpu_test_rng() % 50) - 26) *
                    (gpu_test_rng() & 1 ? 1.0f : -1.0f);
            xd[n] = (double)gpu_test_float_of((uint32_t)gpu_test_rng()) *
                    (1.0 + ldexp((double)(gpu_test_rng() % 4), -25));
            xl[n] = (long long)(gpu_test_rng() % 65536);
            break;
        }
    }
    return n;
}

int main(void)
{
    enum { CAP = 64 + N_RANDOM };
    static float xf[CAP];
    static double xd[CAP];
    static long long xl[CAP];
    CUcontext context;
    CUmodule module;
    CUfunction f;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    int n = make_inputs(xf, xd, xl);
    unsigned long long *out = malloc((size_t)n * N_OPS * sizeof *out);
    char *source = kernel_source();
    /* cuda_fp16.h and cuda_bf16.h come from the toolkit's include directory */
    const char *options[] = {gpu_test_toolkit_include()};
    if (CHECK(out != NULL && source != NULL) &&
        CHECK_CU(gpu_test_load_source_options(&module, source, "conversions.cu", 1, options)) &&
        CHECK_CU(cuModuleGetFunction(&f, module, "conversions"))) {
        CUdeviceptr df = gpu_test_upload(xf, n * sizeof(float));
        CUdeviceptr dd = gpu_test_upload(xd, n * sizeof(double));
        CUdeviceptr dl = gpu_test_upload(xl, n * sizeof(long long));
        CUdeviceptr dout = gpu_test_upload(NULL, (size_t)n * N_OPS * sizeof *out);
        void *args[] = {&df, &dd, &dl, &dout, &n};
        if (gpu_test_run(f, (unsigned)(n + THREADS - 1) / THREADS, THREADS, args) &&
            gpu_test_download(out, dout, (size_t)n * N_OPS * sizeof *out)) {
            for (int k = 0; k < N_OPS; k++) {
                int wrong = 0;
                for (int i = 0; i < n; i++) {
                    uint64_t want = reference(&ops[k], xf[i], xd[i], xl[i]);
                    uint64_t got = out[(size_t)k * n + i];
                    if (same(&ops[k], got, want))
                        continue;
                    if (wrong++ < SHOW)
                        fprintf(stderr,
                                "  %s with x=%a (0x%08x) X=%a L=%lld (0x%llx)\n    gave 0x%llx, "
                                "expected 0x%llx\n",
                                ops[k].expression, (double)xf[i], gpu_test_float_bits(xf[i]), xd[i],
                                xl[i], (unsigned long long)xl[i], (unsigned long long)got,
                                (unsigned long long)want);
                }
                if (wrong)
                    fprintf(stderr, "  %s: %d of %d wrong\n", ops[k].expression, wrong, n);
                CHECK(wrong == 0);
            }
        }
        cuMemFree(df);
        cuMemFree(dd);
        cuMemFree(dl);
        CHECK_CU(cuModuleUnload(module));
    }
    free(out);
    free(source);
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
