/*
 * Double-precision arithmetic and math on the virtual GPU, element by
 * element against the host.
 *
 * As in test_float.c, tables generate both the kernel (one output array
 * per operation) and the host reference:
 * - exactly rounded operations (add, sub, mul, div, fma, sqrt, rcp in the
 *   four rounding modes of __dadd_rn etc., fmin/fmax, the integral
 *   roundings, fmod, fabs, copysign): bit-exact, the host computing the
 *   directed modes with fesetround;
 * - the math library (exp, log, sin, pow, tanh, ...): within the maximum ulp
 *   error of the CUDA Programming Guide's double-precision table, which
 *   counts ulps between the result and the correctly rounded one; the
 *   host's long double result (11 more bits) stands for the exact value, so
 *   a result may be `bound` + 0.5 ulps from it.
 * Inputs: every pair of special values (±0, subnormals, DBL_MIN, DBL_MAX,
 * ±Inf, NaN, halfway cases), random bit patterns, close values for
 * cancellation, subnormal operands, fma residues, and ranges where each
 * function is interesting.
 * KGRADE_TEST_VERBOSE=1 prints the worst error seen for each math function.
 */
#pragma GCC optimize("rounding-math") /* the references switch rounding modes */

#include <fenv.h>
#include <float.h>
#include <math.h>

#include "gpu_test.h"

#define N_RANDOM_BITS 4096
#define N_CLOSE       2048
#define N_TINY        2048
#define N_FMA_RESIDUE 2048
#define N_MATH        8192
#define SHOW          4

/* ------------------------------------------------------------- helpers */

static double random_finite(void)
{
    for (;;) {
        double d = gpu_test_double_of(gpu_test_rng());
        if (isfinite(d))
            return d;
    }
}

static const uint64_t special_bits[] = {
    0x0000000000000000, 0x8000000000000000, /* ±0 */
    0x0000000000000001, 0x8000000000000001, /* ±smallest subnormal */
    0x000fffffffffffff, 0x800fffffffffffff, /* ±largest subnormal */
    0x0010000000000000, 0x8010000000000000, /* ±DBL_MIN */
    0x3ff0000000000000, 0xbff0000000000000, /* ±1 */
    0x3ff0000000000001, 0x3fefffffffffffff, /* 1 + ulp, 1 - ulp/2 */
    0x3fe0000000000000, 0x4000000000000000, /* 0.5, 2 */
    0x4008000000000000, 0xc008000000000000, /* ±3 */
    0x3ff8000000000000, 0x4004000000000000, /* 1.5, 2.5 */
    0xc004000000000000, 0x3fdfffffffffffff, /* -2.5, 0.49999999999999994 */
    0x4330000000000001, 0xc32ffffffffffffe, /* 2^52 + 1, -(2^51 - 1) */
    0x3fb999999999999a, 0x400921fb54442d18, /* 0.1, pi */
    0x43f0000000000000, 0x3bf0000000000000, /* 2^64, 2^-64 */
    0x7fefffffffffffff, 0xffefffffffffffff, /* ±DBL_MAX */
    0x7fe0000000000000,                     /* 2^1023 */
    0x7ff0000000000000, 0xfff0000000000000, /* ±Inf */
    0x7ff8000000000000, 0xfff8000000000001, /* NaNs */
};
#define N_SPECIAL (sizeof special_bits / sizeof special_bits[0])

static int64_t double_order(double d)
{
    uint64_t u = gpu_test_double_bits(d);
    return u >> 63 ? -(int64_t)(u & ~(1ull << 63)) - 1 : (int64_t)u;
}

static const char *hexd(double d, char *buf)
{
    snprintf(buf, 64, "%a (0x%016llx)", d, (unsigned long long)gpu_test_double_bits(d));
    return buf;
}

/* ------------------------------------------ exactly rounded operations */

enum exact_kind {
    ADD,
    SUB,
    MUL,
    DIV,
    FMA,
    SQRT,
    RCP,
    FMIN,
    FMAX,
    ABS,
    NEG,
    COPYSIGN,
    FLOOR,
    CEIL,
    TRUNC,
    RINT,
    ROUND,
    FMOD,
    FDIM,
};

struct exact_op {
    const char *expression;
    enum exact_kind kind;
    int mode;
};

#define ROUNDED(name, kind, args)                                                                  \
    {"__" name "_rn" args, kind, FE_TONEAREST}, {"__" name "_rz" args, kind, FE_TOWARDZERO},       \
        {"__" name "_rd" args, kind, FE_DOWNWARD},                                                 \
    {                                                                                              \
        "__" name "_ru" args, kind, FE_UPWARD                                                      \
    }

static const struct exact_op exact_ops[] = {
    {"x + y", ADD, FE_TONEAREST},
    {"x - y", SUB, FE_TONEAREST},
    {"x * y", MUL, FE_TONEAREST},
    {"x / y", DIV, FE_TONEAREST},
    {"fma(x, y, z)", FMA, FE_TONEAREST},
    {"sqrt(x)", SQRT, FE_TONEAREST},
    {"1.0 / x", RCP, FE_TONEAREST},
    ROUNDED("dadd", ADD, "(x, y)"),
    ROUNDED("dsub", SUB, "(x, y)"),
    ROUNDED("dmul", MUL, "(x, y)"),
    ROUNDED("ddiv", DIV, "(x, y)"),
    ROUNDED("fma", FMA, "(x, y, z)"),
    ROUNDED("dsqrt", SQRT, "(x)"),
    ROUNDED("drcp", RCP, "(x)"),
    {"fmin(x, y)", FMIN, FE_TONEAREST},
    {"fmax(x, y)", FMAX, FE_TONEAREST},
    {"fabs(x)", ABS, FE_TONEAREST},
    {"-x", NEG, FE_TONEAREST},
    {"copysign(x, y)", COPYSIGN, FE_TONEAREST},
    {"floor(x)", FLOOR, FE_TONEAREST},
    {"ceil(x)", CEIL, FE_TONEAREST},
    {"trunc(x)", TRUNC, FE_TONEAREST},
    {"rint(x)", RINT, FE_TONEAREST},
    {"round(x)", ROUND, FE_TONEAREST},
    {"fmod(x, y)", FMOD, FE_TONEAREST},
    {"fdim(x, y)", FDIM, FE_TONEAREST},
};
#define N_EXACT ((int)(sizeof exact_ops / sizeof exact_ops[0]))

/* PTX min/max: a NaN operand loses to a number; -0.0 < +0.0. */
static double ptx_min(double x, double y, int want_max)
{
    if (isnan(x))
        return y;
    if (isnan(y))
        return x;
    int x_first = double_order(x) < double_order(y);
    return x_first != want_max ? x : y;
}

static double exact_reference(const struct exact_op *op, double x, double y, double z)
{
    volatile double vx = x, vy = y, vz = z;
    double r;
    fesetround(op->mode);
    switch (op->kind) {
    case ADD:
        r = vx + vy;
        break;
    case SUB:
        r = vx - vy;
        break;
    case MUL:
        r = vx * vy;
        break;
    case DIV:
        r = vx / vy;
        break;
    case FMA:
        r = fma(vx, vy, vz);
        break;
    case SQRT:
        r = sqrt(vx);
        break;
    case RCP:
        r = 1.0 / vx;
        break;
    case FMIN:
        r = ptx_min(vx, vy, 0);
        break;
    case FMAX:
        r = ptx_min(vx, vy, 1);
        break;
    case ABS:
        r = fabs(vx);
        break;
    case NEG:
        r = -vx;
        break;
    case COPYSIGN:
        r = copysign(vx, vy);
        break;
    case FLOOR:
        r = floor(vx);
        break;
    case CEIL:
        r = ceil(vx);
        break;
    case TRUNC:
        r = trunc(vx);
        break;
    case RINT:
        r = rint(vx);
        break;
    case ROUND:
        r = round(vx);
        break;
    case FMOD:
        r = fmod(vx, vy);
        break;
    default:
        r = fdim(vx, vy);
        break;
    }
    volatile double vr = r;
    fesetround(FE_TONEAREST);
    return vr;
}

static void check_exact(const struct gpu_test_table *t, int n)
{
    const double *a = t->a, *b = t->b, *c = t->c, *out = t->out;
    for (int k = 0; k < N_EXACT; k++) {
        const struct exact_op *op = &exact_ops[k];
        struct exact_op nearest = *op;
        nearest.mode = FE_TONEAREST;
        int wrong = 0, directed = 0;
        for (int i = 0; i < n; i++) {
            double want = exact_reference(op, a[i], b[i], c[i]);
            double got = out[(size_t)k * n + i];
            directed += gpu_test_double_bits(want) !=
                        gpu_test_double_bits(exact_reference(&nearest, a[i], b[i], c[i]));
            /* NaN payloads of doubles are not specified */
            if (isnan(want) ? isnan(got) : gpu_test_double_bits(got) == gpu_test_double_bits(want))
                continue;
            if (wrong++ < SHOW) {
                char s[5][64];
                fprintf(stderr, "  %s with x=%s y=%s z=%s\n    gave %s, expected %s\n",
                        op->expression, hexd(a[i], s[0]), hexd(b[i], s[1]), hexd(c[i], s[2]),
                        hexd(got, s[3]), hexd(want, s[4]));
            }
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results wrong\n", op->expression, wrong, n);
        CHECK(wrong == 0);
        if (op->mode != FE_TONEAREST)
            CHECK(directed > n / 20);
    }
}

/* The exact group's inputs: the special pairs and the random groups. */
#define N_EXACT_IN ((int)(N_SPECIAL * N_SPECIAL) + N_RANDOM_BITS + N_CLOSE + N_TINY + N_FMA_RESIDUE)

static int exact_inputs(const struct gpu_test_table *t)
{
    double *a = t->a, *b = t->b, *c = t->c;
    int n = gpu_test_table_special_pairs(t, special_bits, N_SPECIAL);
    for (int i = 0; i < N_RANDOM_BITS; i++, n++) {
        a[n] = gpu_test_double_of(gpu_test_rng());
        b[n] = gpu_test_double_of(gpu_test_rng());
        c[n] = gpu_test_double_of(gpu_test_rng());
    }
    for (int i = 0; i < N_CLOSE; i++, n++) {
        a[n] = ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 16) - 8);
        uint64_t delta = gpu_test_rng() % 64;
        b[n] =
            gpu_test_double_of(gpu_test_double_bits(a[n]) + (gpu_test_rng() & 1 ? delta : -delta)) *
            (gpu_test_rng() & 1 ? 1.0 : -1.0);
        c[n] = -a[n];
    }
    for (int i = 0; i < N_TINY; i++, n++) {
        a[n] = gpu_test_double_of((gpu_test_rng() % 0x0030000000000000ull) |
                                  (gpu_test_rng() & (1ull << 63)));
        b[n] = ldexp(gpu_test_uniform(0.5, 2.0), (int)(gpu_test_rng() % 120) - 60);
        c[n] = gpu_test_double_of(gpu_test_rng() % 0x0010000000000000ull);
    }
    for (int i = 0; i < N_FMA_RESIDUE; i++, n++) {
        a[n] = ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 200) - 100);
        b[n] = ldexp(gpu_test_uniform(-2.0, 2.0), (int)(gpu_test_rng() % 200) - 100);
        c[n] = -(a[n] * b[n]);
    }
    return n;
}

/* ---------------------------------------------- the math library, in ulp */

/* |got - exact| in units of the last place of a double at `exact`; +Inf
 * stands for 2^1024. */
static long double ulp_error(double got, long double exact)
{
    int e = exact == 0 ? -1022 : ilogbl(exact);
    if (e < -1022)
        e = -1022;
    long double g = isinf(got) ? copysignl(0x1p1024L, got) : (long double)got;
    return fabsl(g - exact) / ldexpl(1.0L, e - 52);
}

/* The slack for the reference's own error: glibc's long double functions
 * are within a few units of a 64-bit significand, 2^-11 of a double's ulp. */
#define REFERENCE_SLACK 0.01L

static int within_ulp(double got, long double exact, double bound)
{
    if (isnan(exact))
        return isnan(got);
    if (isnan(got))
        return 0;
    if (isinf(exact) || exact == 0)
        return gpu_test_double_bits(got) == gpu_test_double_bits((double)exact);
    if (isinf((double)exact) && gpu_test_double_bits(got) == gpu_test_double_bits((double)exact))
        return 1; /* past DBL_MAX: Inf is the correctly rounded result */
    return ulp_error(got, exact) <= (long double)bound + 0.5L + REFERENCE_SLACK;
}

static long double host_exp10(long double x)
{
    return exp10l(x);
}

static long double host_rsqrt(long double x)
{
    return 1.0L / sqrtl(x);
}

struct math_op {
    const char *expression;
    long double (*unary)(long double);
    long double (*binary)(long double, long double);
    double ulp; /* CUDA Programming Guide, double-precision functions */
};

static const struct math_op math_ops[] = {
    {"exp(x)", expl, NULL, 1},         {"exp2(x)", exp2l, NULL, 1},
    {"exp10(x)", host_exp10, NULL, 1}, {"expm1(x)", expm1l, NULL, 1},
    {"log(x)", logl, NULL, 1},         {"log2(x)", log2l, NULL, 1},
    {"log10(x)", log10l, NULL, 1},     {"log1p(x)", log1pl, NULL, 1},
    {"sin(x)", sinl, NULL, 2},         {"cos(x)", cosl, NULL, 2},
    {"tan(x)", tanl, NULL, 2},         {"sinh(x)", sinhl, NULL, 2},
    {"cosh(x)", coshl, NULL, 1},       {"tanh(x)", tanhl, NULL, 1},
    {"asin(x)", asinl, NULL, 2},       {"acos(x)", acosl, NULL, 2},
    {"atan(x)", atanl, NULL, 2},       {"atan2(x, y)", NULL, atan2l, 2},
    {"pow(x, y)", NULL, powl, 2},      {"cbrt(x)", cbrtl, NULL, 1},
    {"rsqrt(x)", host_rsqrt, NULL, 1}, {"erf(x)", erfl, NULL, 2},
    {"hypot(x, y)", NULL, hypotl, 2},
};
#define N_MATH_OPS ((int)(sizeof math_ops / sizeof math_ops[0]))

/* The math group's inputs at most: the special pairs, pow's bases × powers, random. */
#define N_MATH_IN ((int)(N_SPECIAL * N_SPECIAL) + 64 + N_MATH)

static int math_inputs(const struct gpu_test_table *t)
{
    double *a = t->a, *b = t->b, *c = t->c;
    int n = gpu_test_table_special_pairs(t, special_bits, N_SPECIAL); /* z: 0, below */
    static const double bases[] = {-8.0, -2.0, -1.0, -0.5, 0.5, 1.0, 10.0};
    static const double powers[] = {-3.0, -2.0, -1.0, 0.5, 1.0, 3.0, 1.0 / 3.0, 1023.0};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
        for (size_t j = 0; j < sizeof powers / sizeof powers[0]; j++, n++) {
            a[n] = bases[i];
            b[n] = powers[j];
        }
    for (int i = 0; i < N_MATH; i++, n++) {
        switch (i % 4) {
        case 0:
            a[n] = random_finite();
            b[n] = random_finite();
            break;
        case 1:
            a[n] = gpu_test_uniform(-10.0, 10.0);
            b[n] = gpu_test_uniform(-10.0, 10.0);
            break;
        case 2:
            a[n] = gpu_test_uniform(-750.0, 750.0);
            b[n] = gpu_test_uniform(-100.0, 100.0);
            break;
        default:
            a[n] = gpu_test_rng() & 1 ? gpu_test_uniform(-1.0, 1.0)
                                      : ldexp(gpu_test_uniform(-1.0, 1.0), -40);
            b[n] = gpu_test_uniform(0.0, 3.0);
            break;
        }
    }
    for (int i = 0; i < n; i++)
        c[i] = 0.0;
    return n;
}

static void check_math(const struct gpu_test_table *t, int n)
{
    const double *a = t->a, *b = t->b, *out = t->out;
    for (int k = 0; k < N_MATH_OPS; k++) {
        const struct math_op *op = &math_ops[k];
        int wrong = 0;
        long double worst = 0;
        for (int i = 0; i < n; i++) {
            long double exact = op->unary ? op->unary(a[i]) : op->binary(a[i], b[i]);
            double got = out[(size_t)k * n + i];
            if (isfinite(exact) && exact != 0 && isfinite(got) && ulp_error(got, exact) > worst)
                worst = ulp_error(got, exact);
            if (within_ulp(got, exact, op->ulp))
                continue;
            if (wrong++ < SHOW) {
                char s[3][64];
                fprintf(stderr, "  %s with x=%s y=%s gave %s, exact %.21Lg (%.2Lf ulp, bound %g)\n",
                        op->expression, hexd(a[i], s[0]), hexd(b[i], s[1]), hexd(got, s[2]), exact,
                        ulp_error(got, exact), op->ulp);
            }
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results outside %g ulp\n", op->expression, wrong, n,
                    op->ulp);
        if (getenv("KGRADE_TEST_VERBOSE"))
            printf("  %-12s worst %.3Lf ulp from the exact value\n", op->expression, worst);
        CHECK(wrong == 0);
    }
}

int main(void)
{
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    gpu_test_table_run(
        GPU_TEST_TABLE("exact_ops", double, exact_ops, N_EXACT_IN, exact_inputs, check_exact));
    gpu_test_table_run(
        GPU_TEST_TABLE("math_ops", double, math_ops, N_MATH_IN, math_inputs, check_math));
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
