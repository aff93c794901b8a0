/*
 * Single-precision arithmetic on the virtual GPU, element by element
 * against the host.
 *
 * Three groups, each a table that generates both the kernel (one output
 * array per operation) and the host reference, so the two cannot drift:
 * - exactly rounded operations (IEEE add, sub, mul, div, fma, sqrt, rcp in
 *   all four rounding modes, min/max, saturate, abs/neg/copysign, the
 *   integral roundings, fmodf, fdimf): bit-exact, the host computing the
 *   directed modes with fesetround. A NaN result of an arithmetic operation
 *   must be the canonical 0x7fffffff (CUDA Programming Guide, "Floating-Point
 *   Standard");
 * - the math library (expf, logf, sinf, tanhf, powf, ...): within the maximum
 *   ulp error the CUDA Programming Guide's table of single-precision functions
 *   gives, measured against the host's double-precision result;
 * - the fast intrinsics (__expf, __logf, __sinf, __fdividef, ...) within the
 *   guide's intrinsic bounds, and one kernel compiled with --use_fast_math
 *   (flush-to-zero, approximate division and square root).
 * Inputs: every pair of a list of special values (±0, subnormals, FLT_MIN,
 * FLT_MAX, ±Inf, NaNs, halfway cases), random bit patterns, and random
 * values chosen for cancellation, subnormal results and fma residues.
 * KGRADE_TEST_VERBOSE=1 prints the worst error seen for each math function.
 */
#pragma GCC optimize("rounding-math") /* the references switch rounding modes */

#include <fenv.h>
#include <float.h>
#include <math.h>

#include "gpu_test.h"

#define N_RANDOM_BITS 4096
#define N_CLOSE       3072
#define N_TINY        2048
#define N_FMA_RESIDUE 2048
#define N_MATH        12288
#define SHOW          4 /* mismatches printed per operation */
#define CANONICAL_NAN 0x7fffffffu

/* ------------------------------------------------------------- helpers */

/* A random finite float with any exponent (NaN/Inf patterns redrawn). */
static float random_finite(void)
{
    for (;;) {
        float f = gpu_test_float_of((uint32_t)gpu_test_rng());
        if (isfinite(f))
            return f;
    }
}

static const uint32_t special_bits[] = {
    0x00000000, 0x80000000,             /* ±0 */
    0x00000001, 0x80000001,             /* ±smallest subnormal */
    0x007fffff, 0x807fffff,             /* ±largest subnormal */
    0x00400000,                         /* 2^-127 */
    0x00800000, 0x80800000,             /* ±FLT_MIN */
    0x3f800000, 0xbf800000,             /* ±1 */
    0x3f800001, 0x3f7fffff,             /* 1 + ulp, 1 - ulp/2 */
    0x3f000000, 0x40000000,             /* 0.5, 2 */
    0x40400000, 0xc0400000,             /* ±3 */
    0x3fc00000, 0x40200000, 0xc0200000, /* 1.5, 2.5, -2.5 */
    0x3effffff,                         /* 0.49999997 */
    0x4b000001, 0xcafffffe,             /* 2^23 + 1, -(2^23 - 1) */
    0x4b7fffff, 0x4b800000,             /* 2^24 - 1, 2^24 */
    0x3dcccccd, 0x40490fdb,             /* 0.1, pi */
    0x5f800000, 0x1f800000,             /* 2^64, 2^-64 */
    0x7f7fffff, 0xff7fffff,             /* ±FLT_MAX */
    0x7f000000,                         /* 2^127 */
    0x7f800000, 0xff800000,             /* ±Inf */
    0x7fc00000, 0xffc00001, 0x7f800001, /* quiet NaN, negative NaN, signaling NaN */
};
#define N_SPECIAL (sizeof special_bits / sizeof special_bits[0])

/* A float's position on a line where consecutive floats are 1 apart
 * (-0.0 just below +0.0, +Inf just above FLT_MAX). */
static int64_t float_order(float f)
{
    uint32_t u = gpu_test_float_bits(f);
    return u & 0x80000000u ? -(int64_t)(u & 0x7fffffffu) - 1 : (int64_t)u;
}

static const char *hexf(float f, char *buf)
{
    snprintf(buf, 48, "%a (0x%08x)", (double)f, gpu_test_float_bits(f));
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
    RSQRT,
    FMIN,
    FMAX,
    SATURATE,
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
    int mode;      /* FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD */
    int canonical; /* a NaN result must be 0x7fffffff */
};

#define ROUNDED(name, kind, args)                                                                  \
    {"__" name "_rn" args, kind, FE_TONEAREST, 1}, {"__" name "_rz" args, kind, FE_TOWARDZERO, 1}, \
        {"__" name "_rd" args, kind, FE_DOWNWARD, 1},                                              \
    {                                                                                              \
        "__" name "_ru" args, kind, FE_UPWARD, 1                                                   \
    }

static const struct exact_op exact_ops[] = {
    {"x + y", ADD, FE_TONEAREST, 1},
    {"x - y", SUB, FE_TONEAREST, 1},
    {"x * y", MUL, FE_TONEAREST, 1},
    {"x / y", DIV, FE_TONEAREST, 1},
    {"fmaf(x, y, z)", FMA, FE_TONEAREST, 1},
    {"sqrtf(x)", SQRT, FE_TONEAREST, 1},
    {"1.0f / x", RCP, FE_TONEAREST, 1},
    ROUNDED("fadd", ADD, "(x, y)"),
    ROUNDED("fsub", SUB, "(x, y)"),
    ROUNDED("fmul", MUL, "(x, y)"),
    ROUNDED("fdiv", DIV, "(x, y)"),
    ROUNDED("fmaf", FMA, "(x, y, z)"),
    ROUNDED("fsqrt", SQRT, "(x)"),
    ROUNDED("frcp", RCP, "(x)"),
    {"__frsqrt_rn(x)", RSQRT, FE_TONEAREST, 1},
    {"fminf(x, y)", FMIN, FE_TONEAREST, 0},
    {"fmaxf(x, y)", FMAX, FE_TONEAREST, 0},
    {"__saturatef(x)", SATURATE, FE_TONEAREST, 0},
    {"fabsf(x)", ABS, FE_TONEAREST, 0},
    {"-x", NEG, FE_TONEAREST, 0},
    {"copysignf(x, y)", COPYSIGN, FE_TONEAREST, 0},
    {"floorf(x)", FLOOR, FE_TONEAREST, 0},
    {"ceilf(x)", CEIL, FE_TONEAREST, 0},
    {"truncf(x)", TRUNC, FE_TONEAREST, 0},
    {"rintf(x)", RINT, FE_TONEAREST, 0},
    {"roundf(x)", ROUND, FE_TONEAREST, 0},
    {"fmodf(x, y)", FMOD, FE_TONEAREST, 0},
    {"fdimf(x, y)", FDIM, FE_TONEAREST, 0},
};
#define N_EXACT ((int)(sizeof exact_ops / sizeof exact_ops[0]))

/* PTX min/max: a NaN operand loses to a number; -0.0 < +0.0. */
static float ptx_min(float x, float y, int want_max)
{
    if (isnan(x))
        return isnan(y) ? gpu_test_float_of(CANONICAL_NAN) : y;
    if (isnan(y))
        return x;
    int x_first = float_order(x) < float_order(y);
    return x_first != want_max ? x : y;
}

/* The host's result, rounded in `mode`. The operands go through volatile
 * and the file is built with rounding-math, so nothing is computed before
 * the mode is set or folded at compile time. */
static float exact_reference(const struct exact_op *op, float x, float y, float z)
{
    volatile float vx = x, vy = y, vz = z;
    float r;
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
        r = fmaf(vx, vy, vz);
        break;
    case SQRT:
        r = sqrtf(vx);
        break;
    case RCP:
        r = 1.0f / vx;
        break;
    case RSQRT:
        /* 1/sqrt(x) in long double (64-bit significand), then rounded once
         * more: exact to far below a float's half ulp. */
        r = (float)(1.0L / sqrtl((long double)vx));
        break;
    case FMIN:
        r = ptx_min(vx, vy, 0);
        break;
    case FMAX:
        r = ptx_min(vx, vy, 1);
        break;
    case SATURATE:
        r = isnan(vx) ? 0.0f : vx < 0.0f ? 0.0f : vx > 1.0f ? 1.0f : vx;
        break;
    case ABS:
        r = fabsf(vx);
        break;
    case NEG:
        r = -vx;
        break;
    case COPYSIGN:
        r = copysignf(vx, vy);
        break;
    case FLOOR:
        r = floorf(vx);
        break;
    case CEIL:
        r = ceilf(vx);
        break;
    case TRUNC:
        r = truncf(vx);
        break;
    case RINT:
        r = rintf(vx);
        break;
    case ROUND:
        r = roundf(vx);
        break;
    case FMOD:
        r = fmodf(vx, vy);
        break;
    case FDIM:
        r = fdimf(vx, vy);
        break;
    default:
        r = 0.0f;
    }
    volatile float vr = r;
    fesetround(FE_TONEAREST);
    return vr;
}

/* How many of x, y, z the operation reads. */
static int arity(enum exact_kind kind)
{
    return kind == FMA ? 3 : kind <= DIV || kind == FMIN || kind == FMAX || kind >= FMOD ? 2 : 1;
}

/* The guide: "The result of a single-precision floating-point operation
 * involving one or more input NaNs is the quiet NaN of bit pattern
 * 0x7fffffff." A NaN made from numbers (0/0, sqrt(-1)) has no stated
 * pattern. */
static int nan_must_be_canonical(const struct exact_op *op, float x, float y, float z)
{
    int n = arity(op->kind);
    return op->canonical && (isnan(x) || (n > 1 && isnan(y)) || (n > 2 && isnan(z)));
}

static int same_result(const struct exact_op *op, float x, float y, float z, float got, float want)
{
    if (isnan(want))
        return nan_must_be_canonical(op, x, y, z) ? gpu_test_float_bits(got) == CANONICAL_NAN
                                                  : isnan(got);
    /* __saturatef(-0.0): the guide says "clamped to [0.0, 1.0]" and leaves
     * the sign of a zero result unstated. */
    if (op->kind == SATURATE && x == 0.0f)
        return got == 0.0f;
    return gpu_test_float_bits(got) == gpu_test_float_bits(want);
}

static void check_exact(const struct gpu_test_table *t, int n)
{
    const float *a = t->a, *b = t->b, *c = t->c, *out = t->out;
    for (int k = 0; k < N_EXACT; k++) {
        const struct exact_op *op = &exact_ops[k];
        struct exact_op nearest = *op;
        nearest.mode = FE_TONEAREST;
        int wrong = 0, directed = 0;
        for (int i = 0; i < n; i++) {
            float want = exact_reference(op, a[i], b[i], c[i]);
            directed += gpu_test_float_bits(want) !=
                        gpu_test_float_bits(exact_reference(&nearest, a[i], b[i], c[i]));
            float got = out[(size_t)k * n + i];
            if (same_result(op, a[i], b[i], c[i], got, want))
                continue;
            if (isnan(want) && nan_must_be_canonical(op, a[i], b[i], c[i]))
                want = gpu_test_float_of(CANONICAL_NAN);
            if (wrong++ < SHOW) {
                char s[5][48];
                fprintf(stderr, "  %s with x=%s y=%s z=%s\n    gave %s, expected %s\n",
                        op->expression, hexf(a[i], s[0]), hexf(b[i], s[1]), hexf(c[i], s[2]),
                        hexf(got, s[3]), hexf(want, s[4]));
            }
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results wrong\n", op->expression, wrong, n);
        CHECK(wrong == 0);
        if (op->mode != FE_TONEAREST) /* the inputs do tell the modes apart */
            CHECK(directed > n / 20);
    }
}

/* The exact group's inputs: the special pairs and the random groups. */
#define N_EXACT_IN ((int)(N_SPECIAL * N_SPECIAL) + N_RANDOM_BITS + N_CLOSE + N_TINY + N_FMA_RESIDUE)

/* The inputs of the exact group: special pairs, then random groups. */
static int exact_inputs(const struct gpu_test_table *t)
{
    float *a = t->a, *b = t->b, *c = t->c;
    int n = gpu_test_table_special_pairs(t, special_bits, N_SPECIAL);
    for (int i = 0; i < N_RANDOM_BITS; i++, n++) {
        a[n] = gpu_test_float_of((uint32_t)gpu_test_rng());
        b[n] = gpu_test_float_of((uint32_t)gpu_test_rng());
        c[n] = gpu_test_float_of((uint32_t)gpu_test_rng());
    }
    /* Close values: cancellation in x - y, quotients near 1. */
    for (int i = 0; i < N_CLOSE; i++, n++) {
        a[n] = (float)ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 16) - 8);
        uint32_t delta = (uint32_t)(gpu_test_rng() % 64);
        b[n] =
            gpu_test_float_of(gpu_test_float_bits(a[n]) + (gpu_test_rng() & 1 ? delta : -delta)) *
            (gpu_test_rng() & 1 ? 1.0f : -1.0f);
        c[n] = -a[n];
    }
    /* Subnormal and near-underflow operands and results. */
    for (int i = 0; i < N_TINY; i++, n++) {
        a[n] = gpu_test_float_of((uint32_t)(gpu_test_rng() % 0x01800000u) |
                                 (uint32_t)(gpu_test_rng() & 0x80000000u));
        b[n] = (float)ldexp(gpu_test_uniform(0.5, 2.0), (int)(gpu_test_rng() % 40) - 20);
        c[n] = gpu_test_float_of((uint32_t)(gpu_test_rng() % 0x00800000u));
    }
    /* fma residues: z = -(x*y rounded), so fma(x, y, z) is the rounding error. */
    for (int i = 0; i < N_FMA_RESIDUE; i++, n++) {
        a[n] = (float)ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 60) - 30);
        b[n] = (float)ldexp(gpu_test_uniform(-2.0, 2.0), (int)(gpu_test_rng() % 60) - 30);
        c[n] = -(a[n] * b[n]);
    }
    return n;
}

/* ---------------------------------------------- the math library, in ulp */

/* The guide states errors as "the absolute value of the difference in ulps
 * between the result returned by the CUDA library function and a correctly
 * rounded single-precision result": floats between `got` and the exact
 * result (a double, far more accurate than a float) rounded to a float. */
static double ulp_error(float got, double exact)
{
    return (double)llabs(float_order(got) - float_order((float)exact));
}

/* `got` is within `bound` ulp of the exact `exact`. Special results (NaN,
 * ±Inf and exact zeros) must be exactly right. */
static int within_ulp(float got, double exact, double bound)
{
    if (isnan(exact))
        return isnan(got);
    if (isnan(got))
        return 0;
    if (isinf(exact) || exact == 0.0)
        return gpu_test_float_bits(got) == gpu_test_float_bits((float)exact);
    return ulp_error(got, exact) <= bound;
}

static double host_exp10(double x)
{
    return pow(10.0, x);
}

static double host_rsqrt(double x)
{
    return 1.0 / sqrt(x);
}

struct math_op {
    const char *expression;
    double (*unary)(double);
    double (*binary)(double, double);
    double ulp; /* CUDA Programming Guide, single-precision functions */
};

static const struct math_op math_ops[] = {
    {"expf(x)", exp, NULL, 2},          {"exp2f(x)", exp2, NULL, 2},
    {"exp10f(x)", host_exp10, NULL, 2}, {"expm1f(x)", expm1, NULL, 1},
    {"logf(x)", log, NULL, 1},          {"log2f(x)", log2, NULL, 1},
    {"log10f(x)", log10, NULL, 2},      {"log1pf(x)", log1p, NULL, 1},
    {"sinf(x)", sin, NULL, 2},          {"cosf(x)", cos, NULL, 2},
    {"tanf(x)", tan, NULL, 4},          {"tanhf(x)", tanh, NULL, 2},
    {"sinhf(x)", sinh, NULL, 3},        {"coshf(x)", cosh, NULL, 2},
    {"asinf(x)", asin, NULL, 2},        {"acosf(x)", acos, NULL, 2},
    {"atanf(x)", atan, NULL, 2},        {"atan2f(x, y)", NULL, atan2, 3},
    {"powf(x, y)", NULL, pow, 4},       {"cbrtf(x)", cbrt, NULL, 1},
    {"rsqrtf(x)", host_rsqrt, NULL, 2}, {"erff(x)", erf, NULL, 2},
    {"hypotf(x, y)", NULL, hypot, 3},
};
#define N_MATH_OPS ((int)(sizeof math_ops / sizeof math_ops[0]))

/* The math group's inputs at most: the special pairs, pow's bases × powers, random. */
#define N_MATH_IN ((int)(N_SPECIAL * N_SPECIAL) + 64 + N_MATH)

static int math_inputs(const struct gpu_test_table *t)
{
    float *a = t->a, *b = t->b, *c = t->c;
    int n = gpu_test_table_special_pairs(t, special_bits, N_SPECIAL); /* z: 0, below */
    /* pow's special cases: negative bases with integral exponents, 1 and -1. */
    static const float bases[] = {-8.0f, -2.0f, -1.0f, -0.5f, 0.5f, 1.0f, 10.0f};
    static const float powers[] = {-3.0f, -2.0f, -1.0f, 0.5f, 1.0f, 3.0f, 1.0f / 3.0f, 127.0f};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
        for (size_t j = 0; j < sizeof powers / sizeof powers[0]; j++, n++) {
            a[n] = bases[i];
            b[n] = powers[j];
        }
    for (int i = 0; i < N_MATH; i++, n++) {
        switch (i % 4) {
        case 0: /* anywhere */
            a[n] = random_finite();
            b[n] = random_finite();
            break;
        case 1: /* where the functions are interesting */
            a[n] = (float)gpu_test_uniform(-10.0, 10.0);
            b[n] = (float)gpu_test_uniform(-10.0, 10.0);
            break;
        case 2: /* wider, and pow with moderate results */
            a[n] = (float)gpu_test_uniform(-100.0, 100.0);
            b[n] = (float)gpu_test_uniform(-20.0, 20.0);
            break;
        default: /* near 0 and 1: log1p, expm1, erf, asin */
            a[n] = (float)(gpu_test_rng() & 1 ? gpu_test_uniform(-1.0, 1.0)
                                              : ldexp(gpu_test_uniform(-1.0, 1.0), -20));
            b[n] = (float)gpu_test_uniform(0.0, 3.0);
            break;
        }
    }
    for (int i = 0; i < n; i++)
        c[i] = 0.0f;
    return n;
}

static void check_math(const struct gpu_test_table *t, int n)
{
    const float *a = t->a, *b = t->b, *out = t->out;
    for (int k = 0; k < N_MATH_OPS; k++) {
        const struct math_op *op = &math_ops[k];
        int wrong = 0;
        double worst = 0;
        for (int i = 0; i < n; i++) {
            double exact = op->unary ? op->unary(a[i]) : op->binary(a[i], b[i]);
            float got = out[(size_t)k * n + i];
            if (isfinite(exact) && exact != 0.0 && isfinite(got) && ulp_error(got, exact) > worst)
                worst = ulp_error(got, exact);
            if (within_ulp(got, exact, op->ulp))
                continue;
            if (wrong++ < SHOW) {
                char s[3][48];
                fprintf(stderr, "  %s with x=%s y=%s gave %s, exact %.17g (%.1f ulp, bound %g)\n",
                        op->expression, hexf(a[i], s[0]), hexf(b[i], s[1]), hexf(got, s[2]), exact,
                        ulp_error(got, exact), op->ulp);
            }
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results outside %g ulp\n", op->expression, wrong, n,
                    op->ulp);
        if (getenv("KGRADE_TEST_VERBOSE"))
            printf("  %-14s worst %.3f ulp\n", op->expression, worst);
        CHECK(wrong == 0);
    }
}

/* ------------------------------------------------ the fast intrinsics */

/* What the guide's table of intrinsic functions bounds, on inputs where the
 * bound applies: results are normal floats (the intrinsics flush
 * subnormals), arguments of __sinf/__cosf in [-pi, pi], divisors of
 * __fdividef in [2^-126, 2^126]. An absolute bound is used where the guide
 * gives one (for x in [0.5, 2] for the logarithms). */
enum fast_kind {
    FAST_EXP,
    FAST_EXP10,
    FAST_LOG,
    FAST_LOG2,
    FAST_LOG10,
    FAST_SIN,
    FAST_COS,
    FAST_DIV
};

struct fast_op {
    const char *expression;
    enum fast_kind kind;
};

static const struct fast_op fast_ops[] = {
    {"__expf(x)", FAST_EXP},   {"__exp10f(x)", FAST_EXP10},    {"__logf(x)", FAST_LOG},
    {"__log2f(x)", FAST_LOG2}, {"__log10f(x)", FAST_LOG10},    {"__sinf(x)", FAST_SIN},
    {"__cosf(x)", FAST_COS},   {"__fdividef(x, y)", FAST_DIV},
};
#define N_FAST_OPS ((int)(sizeof fast_ops / sizeof fast_ops[0]))
#define N_FAST     8192

/* Inputs: x in its kind's domain is chosen per element from the thread
 * index's kind, so every op sees inputs of its own domain in its own slice. */
static int fast_inputs(const struct gpu_test_table *t)
{
    float *a = t->a, *b = t->b, *c = t->c;
    for (int i = 0; i < N_FAST; i++) {
        switch (i % 5) {
        case 0: /* __expf domain with normal results */
            a[i] = (float)gpu_test_uniform(-87.0, 88.0);
            break;
        case 1: /* __exp10f */
            a[i] = (float)gpu_test_uniform(-37.0, 38.0);
            break;
        case 2: /* logarithms near 1 */
            a[i] = (float)gpu_test_uniform(0.5, 2.0);
            break;
        case 3: /* logarithms of any positive normal */
            a[i] = (float)ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 250) - 125);
            break;
        default: /* sin/cos */
            a[i] = (float)gpu_test_uniform(-M_PI, M_PI);
            break;
        }
        /* __fdividef: quotients stay normal */
        b[i] = (float)ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 120) - 60) *
               (gpu_test_rng() & 1 ? 1 : -1);
        c[i] = 0.0f;
    }
    return N_FAST;
}

static int fast_applies(enum fast_kind kind, int i)
{
    switch (kind) {
    case FAST_EXP:
        return i % 5 == 0;
    case FAST_EXP10:
        return i % 5 == 1;
    case FAST_LOG:
    case FAST_LOG2:
    case FAST_LOG10:
        return i % 5 == 2 || i % 5 == 3;
    case FAST_SIN:
    case FAST_COS:
        return i % 5 == 4;
    default:
        return i % 5 != 3; /* quotients that stay normal */
    }
}

static int fast_ok(enum fast_kind kind, float x, float y, float got, double *error)
{
    double exact = 0, abs_bound = 0, ulp_bound = 0;
    int near_one = x >= 0.5f && x <= 2.0f;
    switch (kind) {
    case FAST_EXP:
        exact = exp(x);
        ulp_bound = 2 + floor(fabs(1.173 * x));
        break;
    case FAST_EXP10:
        exact = pow(10.0, x);
        ulp_bound = 2 + floor(fabs(2.97 * x));
        break;
    case FAST_LOG:
        exact = log(x);
        near_one ? (abs_bound = exp2(-21.41)) : (ulp_bound = 3);
        break;
    case FAST_LOG2:
        exact = log2(x);
        near_one ? (abs_bound = 0x1p-22) : (ulp_bound = 2);
        break;
    case FAST_LOG10:
        exact = log10(x);
        near_one ? (abs_bound = 0x1p-24) : (ulp_bound = 3);
        break;
    case FAST_SIN:
        exact = sin(x);
        abs_bound = exp2(-21.41);
        break;
    case FAST_COS:
        exact = cos(x);
        abs_bound = exp2(-21.19);
        break;
    case FAST_DIV:
        exact = (double)x / y;
        ulp_bound = 2;
        break;
    }
    if (!isfinite(got))
        return 0;
    if (abs_bound > 0) {
        *error = fabs(got - exact);
        return *error <= abs_bound;
    }
    *error = ulp_error(got, exact);
    return *error <= ulp_bound;
}

static void check_fast(const struct gpu_test_table *t, int n)
{
    const float *a = t->a, *b = t->b, *out = t->out;
    for (int k = 0; k < N_FAST_OPS; k++) {
        const struct fast_op *op = &fast_ops[k];
        int wrong = 0, checked = 0;
        for (int i = 0; i < n; i++) {
            if (!fast_applies(op->kind, i))
                continue;
            checked++;
            double error = 0;
            float got = out[(size_t)k * n + i];
            if (fast_ok(op->kind, a[i], b[i], got, &error))
                continue;
            if (wrong++ < SHOW) {
                char s[3][48];
                fprintf(stderr, "  %s with x=%s y=%s gave %s (error %g)\n", op->expression,
                        hexf(a[i], s[0]), hexf(b[i], s[1]), hexf(got, s[2]), error);
            }
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results outside the guide's bound\n", op->expression,
                    wrong, checked);
        CHECK(wrong == 0 && checked > 0);
    }
}

/* __fdividef's documented special cases: for 2^126 < |y| < 2^128 the
 * result is a zero (NaN when x is infinite). */
static void test_fdividef_large_divisor(void)
{
    static const char source[] =
        "extern \"C\" __global__ void fdividef_large(const float *a, const float *b, float *out)\n"
        "{\n"
        "    int i = threadIdx.x;\n"
        "    out[i] = __fdividef(a[i], b[i]);\n"
        "}\n";
    float a[4] = {1.0f, -3.0f, 1e30f, INFINITY};
    float b[4] = {0x1.8p126f, 0x1.8p126f, -0x1.fffffep127f, 0x1p127f};
    float out[4];
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, source, "fdividef_large.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "fdividef_large")))
        return;
    CUdeviceptr da = gpu_test_upload(a, sizeof a), db = gpu_test_upload(b, sizeof b);
    CUdeviceptr dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&da, &db, &dout};
    if (gpu_test_run(f, 1, 4, args) && gpu_test_download(out, dout, sizeof out)) {
        CHECK_EQ(gpu_test_float_bits(out[0]), 0x00000000u);
        CHECK_EQ(gpu_test_float_bits(out[1]), 0x80000000u);
        CHECK_EQ(gpu_test_float_bits(out[2]), 0x80000000u);
        CHECK(isnan(out[3]));
    }
    cuMemFree(da);
    cuMemFree(db);
    CHECK_CU(cuModuleUnload(module));
}

/* ------------------------------------------------------ --use_fast_math */

/* With --use_fast_math, NVRTC flushes subnormals (-ftz=true), divides and
 * takes square roots approximately and maps expf/sinf/logf to the
 * intrinsics. The kernel's own PTX must say so (.ftz, .approx), and the
 * results must be what those instructions give. */
struct fast_math_op {
    const char *expression;
};

static const struct fast_math_op fast_math_ops[] = {
    {"x * y"},    /* 0: mul.ftz: subnormal inputs and results flush to signed zero */
    {"x + y"},    /* 1: add.ftz */
    {"x / y"},    /* 2: approximate, 2 ulp */
    {"sqrtf(x)"}, /* 3: sqrt.approx */
    {"expf(x)"},  /* 4: __expf */
    {"sinf(x)"},  /* 5: __sinf */
};
#define N_FAST_MATH    ((int)(sizeof fast_math_ops / sizeof fast_math_ops[0]))
#define N_FAST_MATH_IN 4096

static int fast_math_ptx_says(const char *ptx, const char *what)
{
    if (strstr(ptx, what) != NULL)
        return 1;
    fprintf(stderr, "  the --use_fast_math PTX has no \"%s\"\n", what);
    return 0;
}

/* The table's PTX has the flushing and approximate instructions; 0 when
 * it could not be compiled. */
static int fast_math_ptx_check(const struct gpu_test_table *t)
{
    char *source = gpu_test_table_source(t);
    char *ptx =
        source ? gpu_test_compile_options(source, "fast_math.cu", t->n_options, t->options) : NULL;
    free(source);
    if (!CHECK(ptx != NULL))
        return 0;
    CHECK(fast_math_ptx_says(ptx, "mul.ftz.f32") && fast_math_ptx_says(ptx, "add.ftz.f32"));
    CHECK(fast_math_ptx_says(ptx, "sqrt.approx.ftz.f32"));
    CHECK(fast_math_ptx_says(ptx, "ex2.approx.ftz.f32"));
    CHECK(fast_math_ptx_says(ptx, "sin.approx.ftz.f32"));
    free(ptx);
    return 1;
}

static int fast_math_inputs(const struct gpu_test_table *t)
{
    float *a = t->a, *b = t->b, *c = t->c;
    for (int i = 0; i < N_FAST_MATH_IN; i++) {
        switch (i % 4) {
        case 0: /* subnormal operands: flushed before the operation */
            a[i] = gpu_test_float_of((uint32_t)(gpu_test_rng() % 0x00800000u) |
                                     (uint32_t)(gpu_test_rng() & 0x80000000u));
            b[i] = (float)gpu_test_uniform(1.0, 4.0);
            break;
        case 1: /* products deep in the subnormal range: flushed after */
            a[i] = (float)ldexp(gpu_test_uniform(1.0, 2.0), -70);
            b[i] = (float)ldexp(gpu_test_uniform(-2.0, -1.0), -70);
            break;
        case 2: /* ordinary values */
            a[i] = (float)gpu_test_uniform(0.0, 80.0);
            b[i] = (float)gpu_test_uniform(-50.0, 50.0);
            break;
        default:
            a[i] = (float)gpu_test_uniform(-M_PI, M_PI) + 4.0f;
            b[i] = (float)ldexp(gpu_test_uniform(1.0, 2.0), (int)(gpu_test_rng() % 40) - 20);
            break;
        }
        c[i] = 0.0f;
    }
    return N_FAST_MATH_IN;
}

static float ftz(float x)
{
    return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

static void check_fast_math(const struct gpu_test_table *t, int n)
{
    const float *a = t->a, *b = t->b, *out = t->out;
    int wrong[N_FAST_MATH] = {0};
    for (int i = 0; i < n; i++) {
        float x = a[i], y = b[i], xf = ftz(x), yf = ftz(y);
        const float *r = out + i;
        char s[3][48];
        if (gpu_test_float_bits(r[0]) != gpu_test_float_bits(ftz(xf * yf)) && wrong[0]++ < SHOW)
            fprintf(stderr, "  fast x * y with x=%s y=%s gave %s\n", hexf(x, s[0]), hexf(y, s[1]),
                    hexf(r[0], s[2]));
        if (gpu_test_float_bits(r[n]) != gpu_test_float_bits(ftz(xf + yf)) && wrong[1]++ < SHOW)
            fprintf(stderr, "  fast x + y with x=%s y=%s gave %s\n", hexf(x, s[0]), hexf(y, s[1]),
                    hexf(r[n], s[2]));
        if (i % 4 >= 2) { /* normal operands and results */
            double e;
            if (ulp_error(r[2 * n], (double)x / y) > 2 && wrong[2]++ < SHOW)
                fprintf(stderr, "  fast x / y with x=%s y=%s gave %s\n", hexf(x, s[0]),
                        hexf(y, s[1]), hexf(r[2 * n], s[2]));
            /* sqrt.approx.f32: relative error 2^-23 (PTX ISA), ~1 ulp */
            e = fabs(r[3 * n] - sqrt(x)) / sqrt(x);
            if (x > 0 && e > 0x1p-23 && wrong[3]++ < SHOW)
                fprintf(stderr, "  fast sqrtf(%s) gave %s\n", hexf(x, s[0]), hexf(r[3 * n], s[1]));
            if (i % 4 == 2 && ulp_error(r[4 * n], exp(x)) > 2 + floor(fabs(1.173 * x)) &&
                wrong[4]++ < SHOW)
                fprintf(stderr, "  fast expf(%s) gave %s\n", hexf(x, s[0]), hexf(r[4 * n], s[1]));
            if (i % 4 == 3 && fabsf(x) <= (float)M_PI && fabs(r[5 * n] - sin(x)) > exp2(-21.41) &&
                wrong[5]++ < SHOW)
                fprintf(stderr, "  fast sinf(%s) gave %s\n", hexf(x, s[0]), hexf(r[5 * n], s[1]));
        }
    }
    for (int k = 0; k < N_FAST_MATH; k++) {
        if (wrong[k])
            fprintf(stderr, "  --use_fast_math %s: %d wrong\n", fast_math_ops[k].expression,
                    wrong[k]);
        CHECK(wrong[k] == 0);
    }
}

static void test_use_fast_math(void)
{
    static const char *const options[] = {"--use_fast_math"};
    struct gpu_test_table t = GPU_TEST_TABLE("fast_math", float, fast_math_ops, N_FAST_MATH_IN,
                                             fast_math_inputs, check_fast_math);
    t.n_options = 1;
    t.options = options;
    if (fast_math_ptx_check(&t))
        gpu_test_table_run(t);
}

int main(void)
{
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    gpu_test_table_run(
        GPU_TEST_TABLE("exact_ops", float, exact_ops, N_EXACT_IN, exact_inputs, check_exact));
    gpu_test_table_run(
        GPU_TEST_TABLE("math_ops", float, math_ops, N_MATH_IN, math_inputs, check_math));
    gpu_test_table_run(
        GPU_TEST_TABLE("fast_ops", float, fast_ops, N_FAST, fast_inputs, check_fast));
    test_fdividef_large_divisor();
    test_use_fast_math();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
