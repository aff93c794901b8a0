/*
 * Unit tests of the virtual GPU's arithmetic (emulator/arith.c, and the
 * half-precision formats of emulator/half.c): every rounding mode, fma's
 * single rounding, .ftz and .sat, min/max NaN rules, every cvt family at its
 * edges, the .approx bounds, testp and copysign, f16/bf16 arithmetic and
 * .tf32 rounding, and that no result depends on the caller's floating-point
 * environment.
 *
 * Results are compared bit for bit (a +0 is not a −0, NaNs are canonical).
 * Expected values of inexact cases come from exact rational arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/arith.h"
#include "emulator/half.h"

#include <fenv.h>
#include <immintrin.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

static uint32_t bits32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint64_t bits64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double f64(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static bool f32_bits_are_nan(uint32_t u)
{
    return (u & 0x7fffffff) > 0x7f800000;
}

#define assert_f32_bits(value, bits) assert_int_equal(bits32(value), (bits))
#define assert_f64_bits(value, bits) assert_int_equal(bits64(value), (bits))

/* The four modes in enum order: every expected[4] below is {rn, rz, rm, rp}. */
static const enum arith_rounding MODES[4] = {ARITH_RN, ARITH_RZ, ARITH_RM, ARITH_RP};

#define F32_NAN   UINT32_C(0x7fffffff) /* the canonical NaNs */
#define F64_NAN   UINT64_C(0x7fffffffffffffff)
#define F32_QNAN  UINT32_C(0x7fc01234) /* a NaN with a payload, as an input */
#define F32_SNAN  UINT32_C(0x7f800001)
#define F64_QNAN  UINT64_C(0x7ff8000000005678)
#define F32_MIN   UINT32_C(0x00800000) /* smallest normal */
#define F32_MAX   UINT32_C(0x7f7fffff)
#define F32_TINY  UINT32_C(0x00000001) /* smallest subnormal */
#define F32_INF   UINT32_C(0x7f800000)
#define F32_NINF  UINT32_C(0xff800000)
#define F32_NZERO UINT32_C(0x80000000)

/* MXCSR bits the caller may set behind our back. */
#define MXCSR_DEFAULT 0x1f80u
#define MXCSR_FTZ     0x8000u
#define MXCSR_DAZ     0x0040u

/* A small deterministic generator for the cross-checks (state on the stack). */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static uint64_t cvt_mode(uint64_t bits, enum ptx_type to, enum ptx_type from, enum arith_rounding r)
{
    return arith_cvt(bits, to, from, true, r, false, false);
}

static uint64_t cvt_plain(uint64_t bits, enum ptx_type to, enum ptx_type from)
{
    return arith_cvt(bits, to, from, false, ARITH_RN, false, false);
}

static uint64_t cvt_sat(uint64_t bits, enum ptx_type to, enum ptx_type from)
{
    return arith_cvt(bits, to, from, false, ARITH_RN, true, false);
}

/* Puts back the default environment whatever a test changed, even when an
 * assertion left it half way. */
static int restore_fp_environment(void **state)
{
    (void)state;
    fedisableexcept(FE_ALL_EXCEPT);
    fesetround(FE_TONEAREST);
    _mm_setcsr(MXCSR_DEFAULT);
    feclearexcept(FE_ALL_EXCEPT);
    return 0;
}

/* ------------------------------------------------- f32 rounding modes */

struct f32_binary_case {
    float a, b;
    uint32_t expected[4];
};

static void f32_add_and_sub_round_in_each_mode(void **state)
{
    (void)state;
    static const struct f32_binary_case adds[] = {
        {1.0f, 0x1.8p-24f, {0x3f800001, 0x3f800000, 0x3f800000, 0x3f800001}},
        {-1.0f, -0x1.8p-24f, {0xbf800001, 0xbf800000, 0xbf800001, 0xbf800000}},
        /* a tie: to even under rn, then the directions */
        {1.0f, 0x1p-24f, {0x3f800000, 0x3f800000, 0x3f800000, 0x3f800001}},
        {-1.0f, -0x1p-24f, {0xbf800000, 0xbf800000, 0xbf800001, 0xbf800000}},
    };
    for (size_t i = 0; i < sizeof adds / sizeof adds[0]; i++) {
        for (int m = 0; m < 4; m++) {
            assert_f32_bits(arith_add_f32(adds[i].a, adds[i].b, MODES[m]), adds[i].expected[m]);
            assert_f32_bits(arith_sub_f32(adds[i].a, -adds[i].b, MODES[m]), adds[i].expected[m]);
        }
    }
}

static void f32_mul_div_rcp_round_in_each_mode(void **state)
{
    (void)state;
    const float one_ulp_up = 0x1.000002p0f; /* 1 + 2^-23 */
    static const uint32_t square[4] = {0x3f800002, 0x3f800002, 0x3f800002, 0x3f800003};
    static const uint32_t third[4] = {0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab};
    static const uint32_t minus_third[4] = {0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, 0xbeaaaaaa};
    static const uint32_t seventh[4] = {0x3e124925, 0x3e124924, 0x3e124924, 0x3e124925};
    for (int m = 0; m < 4; m++) {
        assert_f32_bits(arith_mul_f32(one_ulp_up, one_ulp_up, MODES[m]), square[m]);
        assert_f32_bits(arith_div_f32(1.0f, 3.0f, MODES[m]), third[m]);
        assert_f32_bits(arith_div_f32(-1.0f, 3.0f, MODES[m]), minus_third[m]);
        assert_f32_bits(arith_div_f32(1.0f, -3.0f, MODES[m]), minus_third[m]);
        assert_f32_bits(arith_rcp_f32(3.0f, MODES[m]), third[m]);
        assert_f32_bits(arith_rcp_f32(-3.0f, MODES[m]), minus_third[m]);
        assert_f32_bits(arith_rcp_f32(7.0f, MODES[m]), seventh[m]);
    }
    /* rz and rp of 1/3 are one ulp apart */
    assert_int_equal(bits32(arith_div_f32(1.0f, 3.0f, ARITH_RP)) -
                         bits32(arith_div_f32(1.0f, 3.0f, ARITH_RZ)),
                     1);
}

static void f32_sqrt_rounds_in_each_mode(void **state)
{
    (void)state;
    static const uint32_t root2[4] = {0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4};
    static const uint32_t root3[4] = {0x3fddb3d7, 0x3fddb3d7, 0x3fddb3d7, 0x3fddb3d8};
    for (int m = 0; m < 4; m++) {
        assert_f32_bits(arith_sqrt_f32(2.0f, MODES[m]), root2[m]);
        assert_f32_bits(arith_sqrt_f32(3.0f, MODES[m]), root3[m]);
        assert_f32_bits(arith_sqrt_f32(-0.0f, MODES[m]), F32_NZERO);
        assert_f32_bits(arith_sqrt_f32(-1.0f, MODES[m]), F32_NAN);
        assert_f32_bits(arith_sqrt_f32(f32(F32_INF), MODES[m]), F32_INF);
    }
}

static void f32_fma_rounds_once(void **state)
{
    (void)state;
    const float a = 0x1.000002p0f;  /* 1 + 2^-23 */
    const float b = 0x1.fffffcp-1f; /* 1 - 2^-23 */
    /* a*b = 1 - 2^-46 rounds to 1 on its own, so mul then add gives 0 ... */
    float product = arith_mul_f32(a, b, ARITH_RN);
    assert_f32_bits(arith_add_f32(product, -1.0f, ARITH_RN), 0x00000000);
    /* ... but fma keeps the product exact: -2^-46 in every mode */
    for (int m = 0; m < 4; m++)
        assert_f32_bits(arith_fma_f32(a, b, -1.0f, MODES[m]), 0xa8800000);
    /* an inexact fma follows the mode: (1 + 2^-23)^2 + 0 */
    static const uint32_t square[4] = {0x3f800002, 0x3f800002, 0x3f800002, 0x3f800003};
    for (int m = 0; m < 4; m++)
        assert_f32_bits(arith_fma_f32(a, a, 0.0f, MODES[m]), square[m]);
    /* the addend's sign decides the direction of rm on a negative result */
    assert_f32_bits(arith_fma_f32(-a, a, -0x1p-30f, ARITH_RM), 0xbf800003);
    assert_f32_bits(arith_fma_f32(-a, a, -0x1p-30f, ARITH_RP), 0xbf800002);
}

static void exact_results_do_not_depend_on_mode(void **state)
{
    (void)state;
    for (int m = 0; m < 4; m++) {
        enum arith_rounding r = MODES[m];
        assert_f32_bits(arith_add_f32(1.0f, 2.0f, r), 0x40400000);
        assert_f32_bits(arith_sub_f32(1.0f, 0.25f, r), 0x3f400000);
        assert_f32_bits(arith_mul_f32(0.5f, -4.0f, r), 0xc0000000);
        assert_f32_bits(arith_div_f32(6.0f, 3.0f, r), 0x40000000);
        assert_f32_bits(arith_sqrt_f32(4.0f, r), 0x40000000);
        assert_f32_bits(arith_fma_f32(2.0f, 3.0f, 1.0f, r), 0x40e00000);
        assert_f32_bits(arith_rcp_f32(4.0f, r), 0x3e800000);
        assert_f64_bits(arith_add_f64(1.0, 2.0, r), UINT64_C(0x4008000000000000));
        assert_f64_bits(arith_mul_f64(0.5, -4.0, r), UINT64_C(0xc000000000000000));
        assert_f64_bits(arith_div_f64(6.0, 3.0, r), UINT64_C(0x4000000000000000));
        assert_f64_bits(arith_sqrt_f64(4.0, r), UINT64_C(0x4000000000000000));
        assert_f64_bits(arith_fma_f64(2.0, 3.0, 1.0, r), UINT64_C(0x401c000000000000));
        assert_f64_bits(arith_rcp_f64(-4.0, r), UINT64_C(0xbfd0000000000000));
    }
    /* x − x is +0, except toward −∞ where IEEE makes it −0 */
    assert_f32_bits(arith_sub_f32(1.0f, 1.0f, ARITH_RN), 0x00000000);
    assert_f32_bits(arith_sub_f32(1.0f, 1.0f, ARITH_RZ), 0x00000000);
    assert_f32_bits(arith_sub_f32(1.0f, 1.0f, ARITH_RP), 0x00000000);
    assert_f32_bits(arith_sub_f32(1.0f, 1.0f, ARITH_RM), F32_NZERO);
    assert_f64_bits(arith_add_f64(1.0, -1.0, ARITH_RM), UINT64_C(0x8000000000000000));
    assert_f64_bits(arith_add_f64(1.0, -1.0, ARITH_RN), 0);
}

static void signed_zeros_follow_ieee(void **state)
{
    (void)state;
    for (int m = 0; m < 4; m++) {
        assert_f32_bits(arith_add_f32(-0.0f, -0.0f, MODES[m]), F32_NZERO);
        assert_f32_bits(arith_mul_f32(-1.0f, 0.0f, MODES[m]), F32_NZERO);
        assert_f32_bits(arith_div_f32(1.0f, f32(F32_NINF), MODES[m]), F32_NZERO);
        assert_f32_bits(arith_fma_f32(-0.0f, 1.0f, -0.0f, MODES[m]), F32_NZERO);
    }
    assert_f32_bits(arith_add_f32(-0.0f, 0.0f, ARITH_RN), 0x00000000);
    assert_f32_bits(arith_add_f32(-0.0f, 0.0f, ARITH_RM), F32_NZERO);
    assert_f32_bits(arith_rcp_f32(-0.0f, ARITH_RN), F32_NINF);
}

static void overflow_follows_the_mode(void **state)
{
    (void)state;
    static const uint32_t up[4] = {F32_INF, F32_MAX, F32_MAX, F32_INF};
    static const uint32_t down[4] = {F32_NINF, 0xff7fffff, F32_NINF, 0xff7fffff};
    static const uint64_t up64[4] = {UINT64_C(0x7ff0000000000000), UINT64_C(0x7fefffffffffffff),
                                     UINT64_C(0x7fefffffffffffff), UINT64_C(0x7ff0000000000000)};
    for (int m = 0; m < 4; m++) {
        assert_f32_bits(arith_mul_f32(f32(F32_MAX), 2.0f, MODES[m]), up[m]);
        assert_f32_bits(arith_add_f32(f32(F32_MAX), f32(F32_MAX), MODES[m]), up[m]);
        assert_f32_bits(arith_mul_f32(f32(F32_MAX), -2.0f, MODES[m]), down[m]);
        assert_f32_bits(arith_div_f32(f32(F32_MAX), 0.5f, MODES[m]), up[m]);
        assert_f64_bits(arith_mul_f64(f64(UINT64_C(0x7fefffffffffffff)), 2.0, MODES[m]), up64[m]);
    }
}

static void subnormal_results_are_kept(void **state)
{
    (void)state;
    for (int m = 0; m < 4; m++) {
        assert_f32_bits(arith_mul_f32(f32(F32_MIN), 0.5f, MODES[m]), 0x00400000);
        assert_f32_bits(arith_add_f32(f32(F32_TINY), f32(F32_TINY), MODES[m]), 0x00000002);
        assert_f32_bits(arith_div_f32(1.0f, 0x1p127f, MODES[m]), 0x00400000);
        assert_f64_bits(arith_mul_f64(0x1p-1022, 0.5, MODES[m]), UINT64_C(0x0008000000000000));
    }
    /* and rounding inside the subnormals: 3 × 2^-149 / 2 */
    static const uint32_t half_of_three[4] = {0x00000002, 0x00000001, 0x00000001, 0x00000002};
    for (int m = 0; m < 4; m++)
        assert_f32_bits(arith_mul_f32(f32(0x00000003), 0.5f, MODES[m]), half_of_three[m]);
}

/* ------------------------------------------------------------------ f64 */

static void f64_ops_round_in_each_mode(void **state)
{
    (void)state;
    static const uint64_t third[4] = {UINT64_C(0x3fd5555555555555), UINT64_C(0x3fd5555555555555),
                                      UINT64_C(0x3fd5555555555555), UINT64_C(0x3fd5555555555556)};
    static const uint64_t minus_ten_thirds[4] = {
        UINT64_C(0xc00aaaaaaaaaaaab), UINT64_C(0xc00aaaaaaaaaaaaa), UINT64_C(0xc00aaaaaaaaaaaab),
        UINT64_C(0xc00aaaaaaaaaaaaa)};
    static const uint64_t sum[4] = {UINT64_C(0x3ff0000000000001), UINT64_C(0x3ff0000000000000),
                                    UINT64_C(0x3ff0000000000000), UINT64_C(0x3ff0000000000001)};
    static const uint64_t square[4] = {UINT64_C(0x3ff0000000000002), UINT64_C(0x3ff0000000000002),
                                       UINT64_C(0x3ff0000000000002), UINT64_C(0x3ff0000000000003)};
    static const uint64_t root2[4] = {UINT64_C(0x3ff6a09e667f3bcd), UINT64_C(0x3ff6a09e667f3bcc),
                                      UINT64_C(0x3ff6a09e667f3bcc), UINT64_C(0x3ff6a09e667f3bcd)};
    static const uint64_t seventh[4] = {UINT64_C(0x3fc2492492492492), UINT64_C(0x3fc2492492492492),
                                        UINT64_C(0x3fc2492492492492), UINT64_C(0x3fc2492492492493)};
    const double a = 0x1.0000000000001p0; /* 1 + 2^-52 */
    for (int m = 0; m < 4; m++) {
        enum arith_rounding r = MODES[m];
        assert_f64_bits(arith_div_f64(1.0, 3.0, r), third[m]);
        assert_f64_bits(arith_div_f64(-10.0, 3.0, r), minus_ten_thirds[m]);
        assert_f64_bits(arith_add_f64(1.0, 0x1.8p-53, r), sum[m]);
        assert_f64_bits(arith_sub_f64(1.0, -0x1.8p-53, r), sum[m]);
        assert_f64_bits(arith_mul_f64(a, a, r), square[m]);
        assert_f64_bits(arith_fma_f64(a, a, 0.0, r), square[m]);
        assert_f64_bits(arith_sqrt_f64(2.0, r), root2[m]);
        assert_f64_bits(arith_rcp_f64(7.0, r), seventh[m]);
        /* single rounding: (1 + 2^-52)(1 − 2^-52) − 1 = −2^-104 exactly */
        assert_f64_bits(arith_fma_f64(a, 0x1.ffffffffffffep-1, -1.0, r),
                        UINT64_C(0xb970000000000000));
    }
    assert_f64_bits(arith_sqrt_f64(-1.0, ARITH_RN), F64_NAN);
}

/* ------------------------------------------------------------- NaNs */

static void nan_results_are_canonical(void **state)
{
    (void)state;
    for (int m = 0; m < 4; m++) {
        enum arith_rounding r = MODES[m];
        assert_f32_bits(arith_add_f32(f32(F32_INF), f32(F32_NINF), r), F32_NAN);
        assert_f32_bits(arith_add_f32(f32(F32_QNAN), 1.0f, r), F32_NAN);
        assert_f32_bits(arith_sub_f32(1.0f, f32(F32_SNAN), r), F32_NAN);
        assert_f32_bits(arith_mul_f32(0.0f, f32(F32_INF), r), F32_NAN);
        assert_f32_bits(arith_div_f32(0.0f, 0.0f, r), F32_NAN);
        assert_f32_bits(arith_fma_f32(0.0f, f32(F32_INF), 1.0f, r), F32_NAN);
        assert_f32_bits(arith_fma_f32(1.0f, 1.0f, f32(F32_QNAN | 0x80000000), r), F32_NAN);
        assert_f64_bits(arith_sub_f64(INFINITY, INFINITY, r), F64_NAN);
        assert_f64_bits(arith_add_f64(f64(F64_QNAN), 1.0, r), F64_NAN);
        assert_f64_bits(arith_fma_f64(0.0, INFINITY, 1.0, r), F64_NAN);
        assert_f64_bits(arith_div_f64(INFINITY, -INFINITY, r), F64_NAN);
    }
}

/* ------------------------------------------------------------ ftz, sat */

static void ftz_flushes_subnormals_to_signed_zero(void **state)
{
    (void)state;
    assert_f32_bits(arith_ftz_f32(f32(F32_TINY)), 0x00000000);
    assert_f32_bits(arith_ftz_f32(f32(0x007fffff)), 0x00000000);
    assert_f32_bits(arith_ftz_f32(f32(0x80000001)), F32_NZERO);
    assert_f32_bits(arith_ftz_f32(f32(0x807fffff)), F32_NZERO);
    /* normals, zeros, infinities and NaNs pass unchanged */
    assert_f32_bits(arith_ftz_f32(f32(F32_MIN)), F32_MIN);
    assert_f32_bits(arith_ftz_f32(f32(0x80800000)), 0x80800000);
    assert_f32_bits(arith_ftz_f32(1.5f), 0x3fc00000);
    assert_f32_bits(arith_ftz_f32(-0.0f), F32_NZERO);
    assert_f32_bits(arith_ftz_f32(f32(F32_NINF)), F32_NINF);
    assert_f32_bits(arith_ftz_f32(f32(F32_QNAN)), F32_QNAN);
}

static void sat_clamps_to_the_unit_interval(void **state)
{
    (void)state;
    assert_f32_bits(arith_sat_f32(1.5f), 0x3f800000);
    assert_f32_bits(arith_sat_f32(f32(0x3f800001)), 0x3f800000);
    assert_f32_bits(arith_sat_f32(1.0f), 0x3f800000);
    assert_f32_bits(arith_sat_f32(0.5f), 0x3f000000);
    assert_f32_bits(arith_sat_f32(f32(F32_TINY)), F32_TINY);
    assert_f32_bits(arith_sat_f32(0.0f), 0x00000000);
    assert_f32_bits(arith_sat_f32(-0.0f), 0x00000000);
    assert_f32_bits(arith_sat_f32(-0.5f), 0x00000000);
    assert_f32_bits(arith_sat_f32(f32(0x80000001)), 0x00000000);
    assert_f32_bits(arith_sat_f32(f32(F32_INF)), 0x3f800000);
    assert_f32_bits(arith_sat_f32(f32(F32_NINF)), 0x00000000);
    assert_f32_bits(arith_sat_f32(f32(F32_QNAN)), 0x00000000);
    assert_f32_bits(arith_sat_f32(f32(F32_QNAN | 0x80000000)), 0x00000000);
}

/* ---------------------------------------------------------- min, max */

static void min_max_f32_nan_and_zero_rules(void **state)
{
    (void)state;
    const float nan = f32(F32_QNAN);
    assert_f32_bits(arith_min_f32(nan, 1.0f), 0x3f800000);
    assert_f32_bits(arith_min_f32(1.0f, nan), 0x3f800000);
    assert_f32_bits(arith_max_f32(nan, -2.0f), 0xc0000000);
    assert_f32_bits(arith_max_f32(-2.0f, f32(F32_SNAN)), 0xc0000000);
    assert_f32_bits(arith_min_f32(nan, nan), F32_NAN);
    assert_f32_bits(arith_max_f32(nan, f32(F32_SNAN)), F32_NAN);
    assert_f32_bits(arith_min_f32(-0.0f, 0.0f), F32_NZERO);
    assert_f32_bits(arith_min_f32(0.0f, -0.0f), F32_NZERO);
    assert_f32_bits(arith_max_f32(-0.0f, 0.0f), 0x00000000);
    assert_f32_bits(arith_max_f32(0.0f, -0.0f), 0x00000000);
    assert_f32_bits(arith_min_f32(-1.0f, 2.0f), 0xbf800000);
    assert_f32_bits(arith_max_f32(-1.0f, 2.0f), 0x40000000);
    assert_f32_bits(arith_min_f32(-1.0f, -2.0f), 0xc0000000);
    assert_f32_bits(arith_max_f32(-1.0f, -2.0f), 0xbf800000);
    assert_f32_bits(arith_min_f32(f32(F32_NINF), f32(F32_MAX)), F32_NINF);
    assert_f32_bits(arith_max_f32(f32(F32_INF), f32(F32_MAX)), F32_INF);
    /* subnormals are ordered too (no DAZ) */
    assert_f32_bits(arith_min_f32(f32(0x00000002), f32(F32_TINY)), F32_TINY);
    assert_f32_bits(arith_max_f32(f32(0x80000002), f32(0x80000001)), 0x80000001);
    assert_f32_bits(arith_min_f32(f32(0x80000001), 0.0f), 0x80000001);
}

static void min_max_f64_nan_and_zero_rules(void **state)
{
    (void)state;
    const double nan = f64(F64_QNAN);
    assert_f64_bits(arith_min_f64(nan, 1.0), UINT64_C(0x3ff0000000000000));
    assert_f64_bits(arith_max_f64(1.0, nan), UINT64_C(0x3ff0000000000000));
    assert_f64_bits(arith_min_f64(nan, nan), F64_NAN);
    assert_f64_bits(arith_max_f64(nan, nan), F64_NAN);
    assert_f64_bits(arith_min_f64(0.0, -0.0), UINT64_C(0x8000000000000000));
    assert_f64_bits(arith_max_f64(-0.0, 0.0), 0);
    assert_f64_bits(arith_min_f64(-1.0, -2.0), UINT64_C(0xc000000000000000));
    assert_f64_bits(arith_max_f64(f64(1), f64(2)), 2);
    assert_f64_bits(arith_min_f64(-INFINITY, 0.0), UINT64_C(0xfff0000000000000));
}

/* ------------------------------------------------------------- .approx */

static void approx_special_values(void **state)
{
    (void)state;
    assert_f32_bits(arith_ex2_approx_f32(f32(F32_NINF)), 0x00000000);
    assert_f32_bits(arith_ex2_approx_f32(f32(F32_INF)), F32_INF);
    assert_f32_bits(arith_ex2_approx_f32(0.0f), 0x3f800000);
    assert_f32_bits(arith_ex2_approx_f32(-0.0f), 0x3f800000);
    assert_f32_bits(arith_ex2_approx_f32(f32(F32_QNAN)), F32_NAN);
    assert_f32_bits(arith_lg2_approx_f32(0.0f), F32_NINF);
    assert_f32_bits(arith_lg2_approx_f32(-0.0f), F32_NINF);
    assert_f32_bits(arith_lg2_approx_f32(-1.0f), F32_NAN);
    assert_f32_bits(arith_lg2_approx_f32(f32(F32_INF)), F32_INF);
    assert_f32_bits(arith_lg2_approx_f32(1.0f), 0x00000000);
    assert_f32_bits(arith_sin_approx_f32(f32(F32_INF)), F32_NAN);
    assert_f32_bits(arith_sin_approx_f32(f32(F32_NINF)), F32_NAN);
    assert_f32_bits(arith_cos_approx_f32(f32(F32_INF)), F32_NAN);
    assert_f32_bits(arith_cos_approx_f32(f32(F32_NINF)), F32_NAN);
    assert_f32_bits(arith_sin_approx_f32(-0.0f), F32_NZERO);
    assert_f32_bits(arith_cos_approx_f32(0.0f), 0x3f800000);
    assert_f32_bits(arith_tanh_approx_f32(f32(F32_INF)), 0x3f800000);
    assert_f32_bits(arith_tanh_approx_f32(f32(F32_NINF)), 0xbf800000);
    assert_f32_bits(arith_tanh_approx_f32(-0.0f), F32_NZERO);
    assert_f32_bits(arith_rsqrt_approx_f32(0.0f), F32_INF);
    assert_f32_bits(arith_rsqrt_approx_f32(-0.0f), F32_NINF);
    assert_f32_bits(arith_rsqrt_approx_f32(-1.0f), F32_NAN);
    assert_f32_bits(arith_rsqrt_approx_f32(f32(F32_INF)), 0x00000000);
    assert_f32_bits(arith_rsqrt_approx_f32(4.0f), 0x3f000000);
    assert_f32_bits(arith_rcp_approx_f32(0.0f), F32_INF);
    assert_f32_bits(arith_rcp_approx_f32(-0.0f), F32_NINF);
    assert_f32_bits(arith_rcp_approx_f32(-4.0f), 0xbe800000);
    assert_f32_bits(arith_rcp_approx_f32(f32(F32_INF)), 0x00000000);
    assert_f32_bits(arith_sqrt_approx_f32(4.0f), 0x40000000);
    assert_f32_bits(arith_sqrt_approx_f32(-0.0f), F32_NZERO);
    assert_f32_bits(arith_sqrt_approx_f32(-4.0f), F32_NAN);
}

/* |got − reference| in units of the last place of a float near reference
 * (subnormal spacing below FLT_MIN). */
static double ulp_error(float got, double reference)
{
    double spacing = reference == 0 ? 0x1p-149 : fmax(ldexp(1.0, ilogb(reference) - 23), 0x1p-149);
    return fabs((double)got - reference) / spacing;
}

/* ex2.approx.f32 is kgemu's own algorithm (arith.h), not libm's: 2^k is
 * exact for every integer k a float holds, the rest within one ulp of
 * 2^x and correctly rounded but for a few inputs in 10^5, over every
 * float of [-150, 128) in steps of 2^-12 (and past both ends). */
static void ex2_is_exact_on_integers_and_within_an_ulp(void **state)
{
    (void)state;
    for (int k = -149; k <= 127; k++)
        assert_true(arith_ex2_approx_f32((float)k) == (float)ldexp(1.0, k));
    assert_f32_bits(arith_ex2_approx_f32(128.0f), F32_INF);
    assert_f32_bits(arith_ex2_approx_f32(-150.0f), 0x00000000); /* 2^-150: a tie, to even */
    assert_f32_bits(arith_ex2_approx_f32(-1e30f), 0x00000000);
    assert_f32_bits(arith_ex2_approx_f32(1e30f), F32_INF);
    assert_f32_bits(arith_ex2_approx_f32(0x1p-140f), 0x3f800000); /* a subnormal: 1 */
    long off = 0, n = 0;
    for (double x = -150.0; x < 128.0; x += 0x1p-12, n++) {
        float got = arith_ex2_approx_f32((float)x), rounded = (float)exp2(x);
        assert_true(ulp_error(got, exp2(x)) <= 1.0);
        off += got != rounded;
    }
    assert_true(off * 10000 < n); /* measured: well under 1 in 10^4 */
}

static void approx_functions_stay_within_ptx_bounds(void **state)
{
    (void)state;
    const int steps = 20000;
    for (int i = 0; i <= steps; i++) {
        float x = (float)(-149.0 + 276.0 * i / steps); /* ex2 over its whole range */
        assert_true(ulp_error(arith_ex2_approx_f32(x), exp2((double)x)) <= 2.0);
        float y = (float)(0.5 + 1.5 * i / steps); /* lg2 in [0.5, 2] */
        assert_true(fabs(arith_lg2_approx_f32(y) - log2((double)y)) <= exp2(-22.6));
        float t = (float)(-M_PI + 2 * M_PI * i / steps); /* sin, cos in [-pi, pi] */
        assert_true(fabs(arith_sin_approx_f32(t) - sin((double)t)) <= exp2(-20.5));
        assert_true(fabs(arith_cos_approx_f32(t) - cos((double)t)) <= exp2(-20.5));
        float h = (float)(-20.0 + 40.0 * i / steps); /* tanh, relative */
        if (h != 0) {
            double exact = tanh((double)h);
            assert_true(fabs((arith_tanh_approx_f32(h) - exact) / exact) <= exp2(-10.987));
        }
        float r = (float)ldexp(1.0 + (double)i / steps, i % 250 - 125); /* rcp, sqrt, rsqrt */
        assert_true(ulp_error(arith_rcp_approx_f32(r), 1.0 / r) <= 1.0);
        assert_true(ulp_error(arith_sqrt_approx_f32(r), sqrt((double)r)) <= 1.0);
        assert_true(ulp_error(arith_rsqrt_approx_f32(r), 1.0 / sqrt((double)r)) <= 1.0);
        float a = (float)ldexp(-1.0 - (double)i / steps, i % 64 - 32); /* div */
        float b = (float)ldexp(1.0 + (double)(steps - i) / steps, i % 180 - 90);
        assert_true(ulp_error(arith_div_approx_f32(a, b), (double)a / b) <= 2.0);
        assert_true(ulp_error(arith_div_full_f32(a, b), (double)a / b) <= 2.0);
    }
}

static void div_approx_is_zero_for_huge_divisors(void **state)
{
    (void)state;
    assert_f32_bits(arith_div_approx_f32(1.0f, 0x1p127f), 0x00000000);
    assert_f32_bits(arith_div_approx_f32(-1.0f, 0x1p127f), F32_NZERO);
    assert_f32_bits(arith_div_approx_f32(1.0f, -0x1.fffffep127f), F32_NZERO);
    assert_f32_bits(arith_div_approx_f32(0x1p100f, 0x1.000002p126f), 0x00000000);
    assert_f32_bits(arith_div_approx_f32(f32(F32_INF), 0x1p127f), F32_NAN);
    /* 2^126 itself is still in range: its reciprocal is normal */
    assert_f32_bits(arith_div_approx_f32(1.0f, 0x1p126f), 0x00800000);
    assert_f32_bits(arith_div_approx_f32(6.0f, 2.0f), 0x40400000);
    assert_f32_bits(arith_div_approx_f32(1.0f, 0.0f), F32_INF);
    assert_f32_bits(arith_div_approx_f32(0.0f, 0.0f), F32_NAN);
    /* div.full has no such gap */
    assert_f32_bits(arith_div_full_f32(1.0f, 0x1p127f), 0x00400000);
    assert_f32_bits(arith_div_full_f32(0x1p100f, 0x1p127f), 0x32000000);
    assert_f32_bits(arith_div_full_f32(6.0f, 2.0f), 0x40400000);
}

static void f64_approx_functions(void **state)
{
    (void)state;
    assert_f64_bits(arith_rcp_approx_ftz_f64(4.0), UINT64_C(0x3fd0000000000000));
    assert_f64_bits(arith_rcp_approx_ftz_f64(-0.5), UINT64_C(0xc000000000000000));
    assert_f64_bits(arith_rcp_approx_ftz_f64(0.0), UINT64_C(0x7ff0000000000000));
    /* a subnormal input is a zero: ±Inf */
    assert_f64_bits(arith_rcp_approx_ftz_f64(f64(1)), UINT64_C(0x7ff0000000000000));
    assert_f64_bits(arith_rcp_approx_ftz_f64(f64(UINT64_C(0x8000000000000001))),
                    UINT64_C(0xfff0000000000000));
    /* a subnormal output (|a| > 2^1022) is a zero of its sign */
    assert_f64_bits(arith_rcp_approx_ftz_f64(0x1p1023), 0);
    assert_f64_bits(arith_rcp_approx_ftz_f64(-0x1p1023), UINT64_C(0x8000000000000000));
    assert_f64_bits(arith_rcp_approx_ftz_f64(0x1p1022), UINT64_C(0x0010000000000000));
    assert_f64_bits(arith_rcp_approx_ftz_f64(INFINITY), 0);
    assert_f64_bits(arith_rcp_approx_ftz_f64(f64(F64_QNAN)), F64_NAN);
    double third = arith_rcp_approx_ftz_f64(3.0);
    assert_true(fabs(third - 1.0 / 3.0) <= 0x1p-50 / 3.0);

    assert_f64_bits(arith_rsqrt_approx_f64(4.0), UINT64_C(0x3fe0000000000000));
    assert_f64_bits(arith_rsqrt_approx_f64(0.0), UINT64_C(0x7ff0000000000000));
    assert_f64_bits(arith_rsqrt_approx_f64(-0.0), UINT64_C(0xfff0000000000000));
    assert_f64_bits(arith_rsqrt_approx_f64(-1.0), F64_NAN);
    assert_f64_bits(arith_rsqrt_approx_f64(INFINITY), 0);
    double root = arith_rsqrt_approx_f64(2.0);
    assert_true(fabs(root - 0x1.6a09e667f3bcdp-1) <= 0x1p-52);
    /* a subnormal input is not flushed here: 1/sqrt(2^-1074) = 2^537 */
    assert_f64_bits(arith_rsqrt_approx_f64(f64(1)), UINT64_C(0x6180000000000000));
}

/* ------------------------------------------------------ cvt float → int */

struct halfway_case {
    float x;
    int32_t expected[4]; /* rni, rzi, rmi, rpi */
};

static const struct halfway_case HALFWAY[] = {
    {0.5f, {0, 0, 0, 1}},      {1.5f, {2, 1, 1, 2}},      {2.5f, {2, 2, 2, 3}},
    {-0.5f, {0, 0, -1, 0}},    {-1.5f, {-2, -1, -2, -1}}, {-2.5f, {-2, -2, -3, -2}},
    {0.75f, {1, 0, 0, 1}},     {-0.25f, {0, 0, -1, 0}},   {3.0f, {3, 3, 3, 3}},
    {-7.0f, {-7, -7, -7, -7}}, {0.0f, {0, 0, 0, 0}},      {-0.0f, {0, 0, 0, 0}},
};

static void cvt_float_to_int_rounds_in_each_mode(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof HALFWAY / sizeof HALFWAY[0]; i++) {
        float x = HALFWAY[i].x;
        for (int m = 0; m < 4; m++) {
            uint64_t want = (uint64_t)(int64_t)HALFWAY[i].expected[m];
            assert_int_equal(cvt_mode(bits32(x), PTX_S32, PTX_F32, MODES[m]), want);
            assert_int_equal(cvt_mode(bits64(x), PTX_S64, PTX_F64, MODES[m]), want);
            assert_int_equal(cvt_mode(arith_f32_to_f16(x, ARITH_RN), PTX_S16, PTX_F16, MODES[m]),
                             want);
            assert_int_equal(cvt_mode(arith_f32_to_bf16(x, ARITH_RN), PTX_S8, PTX_BF16, MODES[m]),
                             want);
        }
    }
    /* bf16 −123.5 is a tie between −124 and −123 */
    assert_int_equal(cvt_mode(0xc2f7, PTX_S32, PTX_BF16, ARITH_RN), (uint64_t)-124);
    assert_int_equal(cvt_mode(0xc2f7, PTX_S32, PTX_BF16, ARITH_RZ), (uint64_t)-123);
    /* no mode named: toward zero */
    assert_int_equal(cvt_plain(bits32(-2.75f), PTX_S32, PTX_F32), (uint64_t)-2);
}

struct saturation_case {
    uint32_t f32_bits;
    enum ptx_type to;
    uint64_t expected;
};

static void cvt_float_to_int_saturates(void **state)
{
    (void)state;
    static const struct saturation_case cases[] = {
        {0x4f32d05e, PTX_S32, 0x7fffffff}, /* 3e9 */
        {0x4f32d05e, PTX_U32, 3000000000u},
        {0xcf32d05e, PTX_S32, UINT64_C(0xffffffff80000000)},
        {0xcf32d05e, PTX_U32, 0},
        {0xbf800000, PTX_U32, 0}, /* −1 */
        {0xbf800000, PTX_U64, 0},
        {0xbf800000, PTX_S32, UINT64_C(0xffffffffffffffff)},
        {0x4f000000, PTX_S32, 0x7fffffff}, /* 2^31 */
        {0x4f000000, PTX_U32, 0x80000000},
        {0xcf000000, PTX_S32, UINT64_C(0xffffffff80000000)},
        {0x4f800000, PTX_U32, 0xffffffff},                   /* 2^32 */
        {0x5f000000, PTX_S64, UINT64_C(0x7fffffffffffffff)}, /* 2^63 */
        {0x5f000000, PTX_U64, UINT64_C(0x8000000000000000)},
        {0xdf000000, PTX_S64, UINT64_C(0x8000000000000000)},
        {0x5f800000, PTX_U64, UINT64_C(0xffffffffffffffff)}, /* 2^64 */
        {0x5f800000, PTX_S64, UINT64_C(0x7fffffffffffffff)},
        {F32_INF, PTX_S32, 0x7fffffff},
        {F32_INF, PTX_U64, UINT64_C(0xffffffffffffffff)},
        {F32_NINF, PTX_S64, UINT64_C(0x8000000000000000)},
        {F32_NINF, PTX_U8, 0},
        {F32_QNAN, PTX_S32, 0},
        {F32_QNAN, PTX_U64, 0},
        {F32_SNAN | 0x80000000, PTX_S8, 0},
        {F32_NZERO, PTX_S32, 0},
        {F32_NZERO, PTX_U32, 0},
        {0x43960000, PTX_S8, 127}, /* 300 */
        {0x43960000, PTX_U8, 255},
        {0xc3960000, PTX_S8, UINT64_C(0xffffffffffffff80)},
        {0xc3960000, PTX_U8, 0},
        {0x4788b800, PTX_U16, 65535}, /* 70000 */
        {0x4788b800, PTX_S16, 32767},
        {0xc71c4000, PTX_S16, UINT64_C(0xffffffffffff8000)}, /* −40000 */
        {0x4788b800, PTX_B16, 65535},                        /* bit types: as unsigned */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(cvt_mode(cases[i].f32_bits, cases[i].to, PTX_F32, ARITH_RZ),
                         cases[i].expected);

    /* f64 sources at the 64-bit edges */
    assert_int_equal(cvt_mode(bits64(0x1.fffffffffffffp63), PTX_U64, PTX_F64, ARITH_RZ),
                     UINT64_C(0xfffffffffffff800));
    assert_int_equal(cvt_mode(bits64(0x1.fffffffffffffp62), PTX_S64, PTX_F64, ARITH_RZ),
                     UINT64_C(0x7ffffffffffffc00));
    assert_int_equal(cvt_mode(bits64(-0x1p63), PTX_S64, PTX_F64, ARITH_RZ),
                     UINT64_C(0x8000000000000000));
    assert_int_equal(cvt_mode(bits64(2147483647.0), PTX_S32, PTX_F64, ARITH_RZ), 0x7fffffff);
    /* rounding happens before saturation: 2^31 − 0.5 rounds up out of range */
    assert_int_equal(cvt_mode(bits64(2147483647.5), PTX_S32, PTX_F64, ARITH_RZ), 0x7fffffff);
    assert_int_equal(cvt_mode(bits64(2147483646.5), PTX_S32, PTX_F64, ARITH_RP), 0x7fffffff);
    assert_int_equal(cvt_mode(bits64(2147483646.5), PTX_S32, PTX_F64, ARITH_RZ), 0x7ffffffe);
    assert_int_equal(cvt_mode(bits64(-0.5), PTX_U32, PTX_F64, ARITH_RM), 0);
    assert_int_equal(cvt_mode(bits64(255.5), PTX_U8, PTX_F64, ARITH_RN), 255);
    assert_int_equal(cvt_mode(bits64(254.5), PTX_U8, PTX_F64, ARITH_RN), 254);
    /* f16 and bf16 sources */
    assert_int_equal(cvt_mode(0x7bff, PTX_S16, PTX_F16, ARITH_RZ), 32767); /* 65504 */
    assert_int_equal(cvt_mode(0x7bff, PTX_U16, PTX_F16, ARITH_RZ), 65504);
    assert_int_equal(cvt_mode(0xfc00, PTX_S32, PTX_F16, ARITH_RZ), UINT64_C(0xffffffff80000000));
    assert_int_equal(cvt_mode(0x4f80, PTX_U32, PTX_BF16, ARITH_RZ), 0xffffffff); /* 2^32 */
    assert_int_equal(cvt_mode(0x7fc0, PTX_S32, PTX_BF16, ARITH_RZ), 0);
}

static void cvt_float_to_int_flushes_with_ftz(void **state)
{
    (void)state;
    assert_int_equal(cvt_mode(F32_TINY, PTX_S32, PTX_F32, ARITH_RP), 1);
    assert_int_equal(arith_cvt(F32_TINY, PTX_S32, PTX_F32, true, ARITH_RP, false, true), 0);
    assert_int_equal(cvt_mode(0x80000001, PTX_S32, PTX_F32, ARITH_RM), (uint64_t)-1);
    assert_int_equal(arith_cvt(0x80000001, PTX_S32, PTX_F32, true, ARITH_RM, false, true), 0);
    /* a normal input is not affected */
    assert_int_equal(arith_cvt(F32_MIN, PTX_S32, PTX_F32, true, ARITH_RP, false, true), 1);
}

/* ------------------------------------------------------- cvt int → int */

struct int_case {
    uint64_t in;
    enum ptx_type from, to;
    uint64_t expected;
};

static void cvt_int_to_int_truncates_and_extends(void **state)
{
    (void)state;
    static const struct int_case cases[] = {
        {0x80, PTX_S8, PTX_S32, UINT64_C(0xffffffffffffff80)},
        {0x80, PTX_U8, PTX_S32, 0x80},
        {0xff, PTX_S8, PTX_U16, 0xffff},
        {0x12345678, PTX_S32, PTX_U8, 0x78},
        {0x180, PTX_S32, PTX_S8, UINT64_C(0xffffffffffffff80)},
        {0x18000, PTX_S32, PTX_S16, UINT64_C(0xffffffffffff8000)},
        {0xffffffff, PTX_U32, PTX_S32, UINT64_C(0xffffffffffffffff)},
        {0xffffffff, PTX_S32, PTX_U32, 0xffffffff},
        {0xffffffff, PTX_S32, PTX_U64, UINT64_C(0xffffffffffffffff)},
        {0xffffffff, PTX_U32, PTX_U64, 0xffffffff},
        {0xffffffff, PTX_B32, PTX_S64, 0xffffffff},
        {0x80000000, PTX_S32, PTX_S64, UINT64_C(0xffffffff80000000)},
        {0xdead7fff, PTX_S16, PTX_S32, 0x7fff}, /* bits above the source type are ignored */
        {0xdeadbeef8000, PTX_S16, PTX_S32, UINT64_C(0xffffffffffff8000)},
        {UINT64_C(0x123456789abcdef0), PTX_S64, PTX_S32, UINT64_C(0xffffffff9abcdef0)},
        {UINT64_C(0x123456789abcdef0), PTX_U64, PTX_U32, 0x9abcdef0},
        {0x1ff, PTX_U64, PTX_S8, UINT64_C(0xffffffffffffffff)},
        {UINT64_C(0x8000000000000000), PTX_S64, PTX_U64, UINT64_C(0x8000000000000000)},
        {0x7f, PTX_S8, PTX_S8, 0x7f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(cvt_plain(cases[i].in, cases[i].to, cases[i].from), cases[i].expected);
}

static void cvt_int_to_int_saturates(void **state)
{
    (void)state;
    static const struct int_case cases[] = {
        {384, PTX_S32, PTX_S8, 127},
        {(uint32_t)-1000, PTX_S32, PTX_S8, UINT64_C(0xffffffffffffff80)},
        {(uint32_t)-5, PTX_S32, PTX_U8, 0},
        {300, PTX_S32, PTX_U8, 255},
        {0xffffffff, PTX_U32, PTX_S32, 0x7fffffff},
        {0xffffffff, PTX_S32, PTX_U32, 0},
        {UINT64_C(0xffffffffffffffff), PTX_U64, PTX_S64, UINT64_C(0x7fffffffffffffff)},
        {UINT64_C(0x8000000000000000), PTX_S64, PTX_U64, 0},
        {UINT64_C(0x8000000000000000), PTX_S64, PTX_S32, UINT64_C(0xffffffff80000000)},
        {UINT64_C(0x7fffffffffffffff), PTX_S64, PTX_S32, 0x7fffffff},
        {0xffff, PTX_U16, PTX_S16, 0x7fff},
        {0xffff, PTX_S16, PTX_U16, 0},
        {0x80, PTX_S8, PTX_U64, 0},
        {UINT64_C(0x100000000), PTX_U64, PTX_U32, 0xffffffff},
        {0xffffffff, PTX_S32, PTX_S64, UINT64_C(0xffffffffffffffff)}, /* in range: unchanged */
        {0x7f, PTX_U8, PTX_S8, 0x7f},
        {0x80, PTX_U8, PTX_S8, 0x7f},
        {(uint16_t)-129, PTX_S16, PTX_S8, UINT64_C(0xffffffffffffff80)},
        {(uint16_t)-128, PTX_S16, PTX_S8, UINT64_C(0xffffffffffffff80)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(cvt_sat(cases[i].in, cases[i].to, cases[i].from), cases[i].expected);
}

/* ----------------------------------------------------- cvt int → float */

struct int_to_float_case {
    uint64_t in;
    enum ptx_type from, to;
    uint64_t expected[4];
};

static void cvt_int_to_float_rounds_in_each_mode(void **state)
{
    (void)state;
    static const struct int_to_float_case cases[] = {
        {16777217, PTX_S32, PTX_F32, {0x4b800000, 0x4b800000, 0x4b800000, 0x4b800001}},
        {(uint32_t)-16777217, PTX_S32, PTX_F32, {0xcb800000, 0xcb800000, 0xcb800001, 0xcb800000}},
        {UINT64_C(0xffffffffffffffff),
         PTX_U64,
         PTX_F32,
         {0x5f800000, 0x5f7fffff, 0x5f7fffff, 0x5f800000}},
        {UINT64_C(0xffffffffffffffff),
         PTX_U64,
         PTX_F64,
         {UINT64_C(0x43f0000000000000), UINT64_C(0x43efffffffffffff), UINT64_C(0x43efffffffffffff),
          UINT64_C(0x43f0000000000000)}},
        {UINT64_C(0x20000000000001),
         PTX_S64,
         PTX_F64,
         {UINT64_C(0x4340000000000000), UINT64_C(0x4340000000000000), UINT64_C(0x4340000000000000),
          UINT64_C(0x4340000000000001)}},
        {UINT64_C(0x7fffffffffffffff),
         PTX_S64,
         PTX_F32,
         {0x5f000000, 0x5effffff, 0x5effffff, 0x5f000000}},
        {UINT64_C(0x8000000000000000),
         PTX_S64,
         PTX_F64,
         {UINT64_C(0xc3e0000000000000), UINT64_C(0xc3e0000000000000), UINT64_C(0xc3e0000000000000),
          UINT64_C(0xc3e0000000000000)}},
        {0xffffffff, PTX_U32, PTX_F32, {0x4f800000, 0x4f7fffff, 0x4f7fffff, 0x4f800000}},
        {0xffffffff, PTX_S32, PTX_F32, {0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000}},
        {0xff,
         PTX_S8,
         PTX_F64,
         {UINT64_C(0xbff0000000000000), UINT64_C(0xbff0000000000000), UINT64_C(0xbff0000000000000),
          UINT64_C(0xbff0000000000000)}},
        {0, PTX_S32, PTX_F32, {0, 0, 0, 0}},
        {65519, PTX_S32, PTX_F16, {0x7bff, 0x7bff, 0x7bff, 0x7c00}},
        {65520, PTX_U32, PTX_F16, {0x7c00, 0x7bff, 0x7bff, 0x7c00}},
        {(uint32_t)-70000, PTX_S32, PTX_F16, {0xfc00, 0xfbff, 0xfc00, 0xfbff}},
        {2049, PTX_U16, PTX_F16, {0x6800, 0x6800, 0x6800, 0x6801}},
        {257, PTX_S32, PTX_BF16, {0x4380, 0x4380, 0x4380, 0x4381}},
        {259, PTX_S32, PTX_BF16, {0x4382, 0x4381, 0x4381, 0x4382}},
        {UINT64_C(0xffffffffffffffff), PTX_U64, PTX_BF16, {0x5f80, 0x5f7f, 0x5f7f, 0x5f80}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int m = 0; m < 4; m++)
            assert_int_equal(cvt_mode(cases[i].in, cases[i].to, cases[i].from, MODES[m]),
                             cases[i].expected[m]);
    /* no mode named: to nearest */
    assert_int_equal(cvt_plain(16777217, PTX_F32, PTX_S32), 0x4b800000);
    assert_int_equal(cvt_plain(16777219, PTX_F32, PTX_U32), 0x4b800002);
}

/* --------------------------------------------------- cvt float → float */

struct narrowing_case {
    uint64_t in;
    uint32_t expected[4];
};

static void cvt_f64_to_f32_rounds_and_overflows(void **state)
{
    (void)state;
    static const struct narrowing_case cases[] = {
        {UINT64_C(0x3fd5555555555555), {0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab}}, /* 1/3 */
        {UINT64_C(0x7fefffffffffffff), {F32_INF, F32_MAX, F32_MAX, F32_INF}}, /* DBL_MAX */
        {UINT64_C(0xffefffffffffffff), {F32_NINF, 0xff7fffff, F32_NINF, 0xff7fffff}},
        {UINT64_C(0x47effffff0000000), {F32_INF, F32_MAX, F32_MAX, F32_INF}}, /* FLT_MAX + ½ulp */
        {UINT64_C(0x47efffffefffffff), {F32_MAX, F32_MAX, F32_MAX, F32_INF}},
        {UINT64_C(0x358dee7a4ad4b81f), {0, 0, 0, F32_TINY}}, /* 1e-50 */
        {UINT64_C(0xb58dee7a4ad4b81f), {F32_NZERO, F32_NZERO, 0x80000001, F32_NZERO}},
        {UINT64_C(0x37a16c262777579c),
         {0x000116c2, 0x000116c2, 0x000116c2, 0x000116c3}},  /* 1e-40 */
        {UINT64_C(0x0000000000000001), {0, 0, 0, F32_TINY}}, /* a subnormal double */
        {UINT64_C(0x7ff0000000000001), {F32_NAN, F32_NAN, F32_NAN, F32_NAN}},
        {UINT64_C(0xfff0000000000000), {F32_NINF, F32_NINF, F32_NINF, F32_NINF}},
        {UINT64_C(0x8000000000000000), {F32_NZERO, F32_NZERO, F32_NZERO, F32_NZERO}},
        {UINT64_C(0x3ff0000000000000), {0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int m = 0; m < 4; m++)
            assert_int_equal(cvt_mode(cases[i].in, PTX_F32, PTX_F64, MODES[m]),
                             cases[i].expected[m]);
    /* .ftz flushes the subnormal result */
    assert_int_equal(
        arith_cvt(UINT64_C(0x37a16c262777579c), PTX_F32, PTX_F64, true, ARITH_RN, false, true), 0);
    assert_int_equal(
        arith_cvt(UINT64_C(0xb7a16c262777579c), PTX_F32, PTX_F64, true, ARITH_RN, false, true),
        F32_NZERO);
    /* no mode named: to nearest */
    assert_int_equal(cvt_plain(UINT64_C(0x3fd5555555555555), PTX_F32, PTX_F64), 0x3eaaaaab);
}

static void cvt_widening_is_exact(void **state)
{
    (void)state;
    assert_int_equal(cvt_plain(0x3dcccccd, PTX_F64, PTX_F32), UINT64_C(0x3fb99999a0000000));
    assert_int_equal(cvt_plain(F32_TINY, PTX_F64, PTX_F32), UINT64_C(0x36a0000000000000));
    assert_int_equal(cvt_plain(0x80000001, PTX_F64, PTX_F32), UINT64_C(0xb6a0000000000000));
    assert_int_equal(arith_cvt(F32_TINY, PTX_F64, PTX_F32, false, ARITH_RN, false, true), 0);
    assert_int_equal(cvt_plain(F32_NZERO, PTX_F64, PTX_F32), UINT64_C(0x8000000000000000));
    assert_int_equal(cvt_plain(F32_QNAN, PTX_F64, PTX_F32), F64_NAN);
    assert_int_equal(cvt_plain(F32_NINF, PTX_F64, PTX_F32), UINT64_C(0xfff0000000000000));
    assert_int_equal(cvt_plain(0x7bff, PTX_F64, PTX_F16), UINT64_C(0x40effc0000000000));
    assert_int_equal(cvt_plain(0x0001, PTX_F32, PTX_F16), 0x33800000);
    assert_int_equal(cvt_plain(0x8001, PTX_F64, PTX_F16), UINT64_C(0xbe70000000000000));
    assert_int_equal(cvt_plain(0x0001, PTX_F32, PTX_BF16), 0x00010000);
    assert_int_equal(cvt_plain(0xff80, PTX_F64, PTX_BF16), UINT64_C(0xfff0000000000000));
    /* a mode on a widening conversion changes nothing */
    assert_int_equal(cvt_mode(0x3dcccccd, PTX_F64, PTX_F32, ARITH_RP),
                     UINT64_C(0x3fb99999a0000000));
}

struct integral_case {
    uint32_t in;
    uint32_t expected[4];
};

static void cvt_same_type_rounds_to_integral(void **state)
{
    (void)state;
    static const struct integral_case cases[] = {
        {0x40200000, {0x40000000, 0x40000000, 0x40000000, 0x40400000}}, /* 2.5 */
        {0xc0200000, {0xc0000000, 0xc0000000, 0xc0400000, 0xc0000000}}, /* −2.5 */
        {0x3fc00000, {0x40000000, 0x3f800000, 0x3f800000, 0x40000000}}, /* 1.5 */
        {0xbe99999a, {F32_NZERO, F32_NZERO, 0xbf800000, F32_NZERO}},    /* −0.3 */
        {0x3e99999a, {0, 0, 0, 0x3f800000}},                            /* 0.3 */
        {0xbf000000, {F32_NZERO, F32_NZERO, 0xbf800000, F32_NZERO}},    /* −0.5 */
        {F32_TINY, {0, 0, 0, 0x3f800000}},
        {0x60ad78ec, {0x60ad78ec, 0x60ad78ec, 0x60ad78ec, 0x60ad78ec}}, /* 1e20 */
        {0x4b7fffff, {0x4b7fffff, 0x4b7fffff, 0x4b7fffff, 0x4b7fffff}}, /* 2^24 − 1 */
        {0x4affffff, {0x4b000000, 0x4afffffe, 0x4afffffe, 0x4b000000}}, /* 2^23 − 0.5 */
        {F32_NINF, {F32_NINF, F32_NINF, F32_NINF, F32_NINF}},
        {F32_QNAN, {F32_NAN, F32_NAN, F32_NAN, F32_NAN}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int m = 0; m < 4; m++)
            assert_int_equal(cvt_mode(cases[i].in, PTX_F32, PTX_F32, MODES[m]),
                             cases[i].expected[m]);
    /* f64: 2^52 − 0.5 is the largest double with a fraction */
    assert_int_equal(cvt_mode(UINT64_C(0x432fffffffffffff), PTX_F64, PTX_F64, ARITH_RN),
                     UINT64_C(0x4330000000000000));
    assert_int_equal(cvt_mode(UINT64_C(0x432fffffffffffff), PTX_F64, PTX_F64, ARITH_RZ),
                     UINT64_C(0x432ffffffffffffe));
    assert_int_equal(cvt_mode(bits64(-2.5), PTX_F64, PTX_F64, ARITH_RM),
                     UINT64_C(0xc008000000000000));
    /* f16 1.5 */
    assert_int_equal(cvt_mode(0x3e00, PTX_F16, PTX_F16, ARITH_RN), 0x4000);
    assert_int_equal(cvt_mode(0x3e00, PTX_F16, PTX_F16, ARITH_RZ), 0x3c00);
    /* with no mode, a same-type cvt keeps the value */
    assert_int_equal(cvt_plain(0x40200000, PTX_F32, PTX_F32), 0x40200000);
    /* .ftz on f32 → f32 flushes, .sat clamps */
    assert_int_equal(arith_cvt(0x00000005, PTX_F32, PTX_F32, false, ARITH_RN, false, true), 0);
    assert_int_equal(arith_cvt(0x80000005, PTX_F32, PTX_F32, false, ARITH_RN, false, true),
                     F32_NZERO);
}

static void cvt_to_f16_rounds_once(void **state)
{
    (void)state;
    static const struct narrowing_case cases[] = {
        {0x477fe000, {0x7bff, 0x7bff, 0x7bff, 0x7bff}}, /* 65504 */
        {0x477ff000, {0x7c00, 0x7bff, 0x7bff, 0x7c00}}, /* 65520: a tie, to even is 2^16 */
        {0x477fef00, {0x7bff, 0x7bff, 0x7bff, 0x7c00}}, /* 65519 */
        {0x49742400, {0x7c00, 0x7bff, 0x7bff, 0x7c00}}, /* 1e6 */
        {0xc9742400, {0xfc00, 0xfbff, 0xfc00, 0xfbff}}, /* −1e6 */
        {0x33800000, {0x0001, 0x0001, 0x0001, 0x0001}}, /* 2^-24, the smallest subnormal */
        {0x33000000, {0x0000, 0x0000, 0x0000, 0x0001}}, /* 2^-25: a tie with zero */
        {0x33400000, {0x0001, 0x0000, 0x0000, 0x0001}}, /* 1.5 × 2^-25 */
        {0xb3000000, {0x8000, 0x8000, 0x8001, 0x8000}}, /* −2^-25 */
        {0x387fc000, {0x03ff, 0x03ff, 0x03ff, 0x03ff}}, /* the largest subnormal */
        {0x387fe000, {0x0400, 0x03ff, 0x03ff, 0x0400}}, /* 2^-14 − 2^-25: carries to normal */
        {0x3eaaaaab, {0x3555, 0x3555, 0x3555, 0x3556}}, /* 1/3 */
        {F32_TINY, {0x0000, 0x0000, 0x0000, 0x0001}},
        {F32_NZERO, {0x8000, 0x8000, 0x8000, 0x8000}},
        {F32_INF, {0x7c00, 0x7c00, 0x7c00, 0x7c00}},
        {F32_NINF, {0xfc00, 0xfc00, 0xfc00, 0xfc00}},
        {F32_QNAN, {0x7fff, 0x7fff, 0x7fff, 0x7fff}},
        {F32_MAX, {0x7c00, 0x7bff, 0x7bff, 0x7c00}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int m = 0; m < 4; m++) {
            assert_int_equal(arith_f32_to_f16(f32(cases[i].in), MODES[m]), cases[i].expected[m]);
            assert_int_equal(cvt_mode(cases[i].in, PTX_F16, PTX_F32, MODES[m]),
                             cases[i].expected[m]);
            assert_int_equal(cvt_mode(bits64(f32(cases[i].in)), PTX_F16, PTX_F64, MODES[m]),
                             cases[i].expected[m]);
        }
    }
    /* 1 + 2^-11 + 2^-40 is just above the tie: f64 → f16 rounds up, but
     * through f32 (which drops the 2^-40) it would become a tie and round
     * to even */
    assert_int_equal(cvt_mode(UINT64_C(0x3ff0020000001000), PTX_F16, PTX_F64, ARITH_RN), 0x3c01);
    assert_int_equal(arith_f32_to_f16(0x1.002p0f, ARITH_RN), 0x3c00);
    /* no mode named: to nearest */
    assert_int_equal(cvt_plain(0x3eaaaaab, PTX_F16, PTX_F32), 0x3555);
}

static void bf16_conversions(void **state)
{
    (void)state;
    static const struct narrowing_case cases[] = {
        {0x3f800000, {0x3f80, 0x3f80, 0x3f80, 0x3f80}},
        {0x3f808000, {0x3f80, 0x3f80, 0x3f80, 0x3f81}}, /* a tie, even below */
        {0x3f818000, {0x3f82, 0x3f81, 0x3f81, 0x3f82}}, /* a tie, even above */
        {0x3f800001, {0x3f80, 0x3f80, 0x3f80, 0x3f81}},
        {0xbf800001, {0xbf80, 0xbf80, 0xbf81, 0xbf80}},
        {0x3eaaaaab, {0x3eab, 0x3eaa, 0x3eaa, 0x3eab}},
        {F32_MAX, {0x7f80, 0x7f7f, 0x7f7f, 0x7f80}},
        {0x00010000, {0x0001, 0x0001, 0x0001, 0x0001}}, /* a subnormal, exact */
        {0x00008000, {0x0000, 0x0000, 0x0000, 0x0001}},
        {F32_NINF, {0xff80, 0xff80, 0xff80, 0xff80}},
        {F32_QNAN, {0x7fff, 0x7fff, 0x7fff, 0x7fff}},
        {F32_NZERO, {0x8000, 0x8000, 0x8000, 0x8000}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int m = 0; m < 4; m++) {
            assert_int_equal(arith_f32_to_bf16(f32(cases[i].in), MODES[m]), cases[i].expected[m]);
            assert_int_equal(cvt_mode(cases[i].in, PTX_BF16, PTX_F32, MODES[m]),
                             cases[i].expected[m]);
        }
    }
    assert_f32_bits(arith_bf16_to_f32(0x3f80), 0x3f800000);
    assert_f32_bits(arith_bf16_to_f32(0xc2f7), 0xc2f70000);
    assert_f32_bits(arith_bf16_to_f32(0x0001), 0x00010000);
    assert_f32_bits(arith_bf16_to_f32(0x8000), F32_NZERO);
    assert_f32_bits(arith_bf16_to_f32(0xff80), F32_NINF);
    assert_f32_bits(arith_bf16_to_f32(0x7fc1), F32_NAN);
    assert_f32_bits(arith_bf16_to_f32(0xff81), F32_NAN);
    /* f16 ↔ bf16: f16's precision is lost, bf16's range overflows */
    assert_int_equal(cvt_mode(0x3c01, PTX_BF16, PTX_F16, ARITH_RN), 0x3f80);
    assert_int_equal(cvt_mode(0x3c01, PTX_BF16, PTX_F16, ARITH_RP), 0x3f81);
    assert_int_equal(cvt_mode(0x4780, PTX_F16, PTX_BF16, ARITH_RN), 0x7c00); /* 65536 */
    assert_int_equal(cvt_mode(0x4780, PTX_F16, PTX_BF16, ARITH_RZ), 0x7bff);
}

static void f16_to_f32_is_exact(void **state)
{
    (void)state;
    assert_f32_bits(arith_f16_to_f32(0x3c00), 0x3f800000);
    assert_f32_bits(arith_f16_to_f32(0xc000), 0xc0000000);
    assert_f32_bits(arith_f16_to_f32(0x0001), 0x33800000); /* 2^-24 */
    assert_f32_bits(arith_f16_to_f32(0x8001), 0xb3800000);
    assert_f32_bits(arith_f16_to_f32(0x0200), 0x38000000); /* 2^-15 */
    assert_f32_bits(arith_f16_to_f32(0x03ff), 0x387fc000); /* the largest subnormal */
    assert_f32_bits(arith_f16_to_f32(0x0400), 0x38800000); /* 2^-14 */
    assert_f32_bits(arith_f16_to_f32(0x7bff), 0x477fe000); /* 65504 */
    assert_f32_bits(arith_f16_to_f32(0x3555), 0x3eaaa000);
    assert_f32_bits(arith_f16_to_f32(0x0000), 0x00000000);
    assert_f32_bits(arith_f16_to_f32(0x8000), F32_NZERO);
    assert_f32_bits(arith_f16_to_f32(0x7c00), F32_INF);
    assert_f32_bits(arith_f16_to_f32(0xfc00), F32_NINF);
    assert_f32_bits(arith_f16_to_f32(0x7e00), F32_NAN);
    assert_f32_bits(arith_f16_to_f32(0xfc01), F32_NAN);
}

static void f16_and_bf16_round_trip(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xffff; h++) {
        bool f16_nan = (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
        bool bf16_nan = (h & 0x7f80) == 0x7f80 && (h & 0x007f) != 0;
        for (int m = 0; m < 4; m++) {
            uint16_t back = arith_f32_to_f16(arith_f16_to_f32((uint16_t)h), MODES[m]);
            assert_int_equal(back, f16_nan ? 0x7fff : h);
            back = arith_f32_to_bf16(arith_bf16_to_f32((uint16_t)h), MODES[m]);
            assert_int_equal(back, bf16_nan ? 0x7fff : h);
        }
        if (!f16_nan)
            assert_int_equal(cvt_plain(cvt_plain(h, PTX_F64, PTX_F16), PTX_F16, PTX_F64), h);
    }
}

static void cvt_sat_on_float_destinations(void **state)
{
    (void)state;
    assert_int_equal(cvt_sat(0x3fc00000, PTX_F32, PTX_F32), 0x3f800000); /* 1.5 */
    assert_int_equal(cvt_sat(0xbf000000, PTX_F32, PTX_F32), 0);          /* −0.5 */
    assert_int_equal(cvt_sat(F32_NZERO, PTX_F32, PTX_F32), 0);
    assert_int_equal(cvt_sat(F32_QNAN, PTX_F32, PTX_F32), 0);
    assert_int_equal(cvt_sat(F32_INF, PTX_F32, PTX_F32), 0x3f800000);
    assert_int_equal(cvt_sat(0x3e800000, PTX_F32, PTX_F32), 0x3e800000); /* 0.25 */
    assert_int_equal(cvt_sat(0x40000000, PTX_F16, PTX_F32), 0x3c00);
    assert_int_equal(cvt_sat(5, PTX_F32, PTX_S32), 0x3f800000);
    assert_int_equal(cvt_sat((uint32_t)-3, PTX_F32, PTX_S32), 0);
    assert_int_equal(cvt_sat(bits64(-1e-300), PTX_F32, PTX_F64), 0);
    assert_int_equal(cvt_sat(UINT64_C(0x7ff8000000000000), PTX_F64, PTX_F64), 0);
    assert_int_equal(arith_cvt(bits64(1.000000001), PTX_F32, PTX_F64, true, ARITH_RP, true, false),
                     0x3f800000);
    /* .sat with .ftz: a subnormal in [0, 1] is flushed to +0 */
    assert_int_equal(arith_cvt(F32_TINY, PTX_F32, PTX_F32, false, ARITH_RN, true, true), 0);
}

static void cvt_unsupported_types_give_zero(void **state)
{
    (void)state;
    assert_int_equal(cvt_plain(1, PTX_PRED, PTX_S32), 0);
    assert_int_equal(cvt_plain(0x3c003c00, PTX_F32, PTX_F16X2), 0);
    assert_int_equal(cvt_plain(1, PTX_B128, PTX_U32), 0);
    assert_int_equal(cvt_plain(1, PTX_U32, PTX_TYPE_NONE), 0);
}

/* ------------------------------------------------------------- testp */

struct testp_case {
    uint32_t f32_bits;
    bool finite, infinite, number, notanumber, normal, subnormal;
};

static void testp_classifies(void **state)
{
    (void)state;
    static const struct testp_case cases[] = {
        {0x00000000, true, false, true, false, false, false},
        {F32_NZERO, true, false, true, false, false, false},
        {F32_TINY, true, false, true, false, false, true},
        {0x807fffff, true, false, true, false, false, true},
        {F32_MIN, true, false, true, false, true, false},
        {0xbf800000, true, false, true, false, true, false},
        {F32_MAX, true, false, true, false, true, false},
        {F32_INF, false, true, true, false, false, false},
        {F32_NINF, false, true, true, false, false, false},
        {F32_QNAN, false, false, false, true, false, false},
        {F32_SNAN, false, false, false, true, false, false},
        {0xffffffff, false, false, false, true, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct testp_case *c = &cases[i];
        float x = f32(c->f32_bits);
        /* the same class in f64: widen the value, or scale a subnormal into f64's */
        double y = c->subnormal ? ldexp((double)x, -900) : (double)x;
        if (c->notanumber)
            y = f64(F64_QNAN);
        bool expected[] = {c->finite,     c->infinite, c->number,
                           c->notanumber, c->normal,   c->subnormal};
        for (int op = ARITH_TESTP_FINITE; op <= ARITH_TESTP_SUBNORMAL; op++) {
            assert_int_equal(arith_testp_f32(x, (enum arith_testp)op), expected[op]);
            assert_int_equal(arith_testp_f64(y, (enum arith_testp)op), expected[op]);
        }
    }
    assert_true(arith_testp_f64(f64(1), ARITH_TESTP_SUBNORMAL));
    assert_false(arith_testp_f64(0x1p-1022, ARITH_TESTP_SUBNORMAL));
    assert_true(arith_testp_f64(0x1p-1022, ARITH_TESTP_NORMAL));
    /* a subnormal f32 is a normal f64 */
    assert_true(arith_testp_f64(0x1p-149, ARITH_TESTP_NORMAL));
}

/* ---------------------------------------------------------- copysign */

static void copysign_takes_the_sign_from_the_first_operand(void **state)
{
    (void)state;
    assert_f32_bits(arith_copysign_f32(-1.0f, 2.0f), 0xc0000000);
    assert_f32_bits(arith_copysign_f32(1.0f, -2.0f), 0x40000000);
    assert_f32_bits(arith_copysign_f32(-0.0f, 3.0f), 0xc0400000);
    assert_f32_bits(arith_copysign_f32(3.0f, -0.0f), 0x00000000);
    assert_f32_bits(arith_copysign_f32(1.0f, f32(F32_NINF)), F32_INF);
    /* a NaN magnitude keeps its payload; a NaN's sign bit counts */
    assert_f32_bits(arith_copysign_f32(-1.0f, f32(F32_QNAN)), F32_QNAN | 0x80000000);
    assert_f32_bits(arith_copysign_f32(f32(F32_QNAN | 0x80000000), 1.0f), 0xbf800000);
    assert_f64_bits(arith_copysign_f64(-1.0, 2.0), UINT64_C(0xc000000000000000));
    assert_f64_bits(arith_copysign_f64(1.0, -2.0), UINT64_C(0x4000000000000000));
    assert_f64_bits(arith_copysign_f64(-0.0, f64(F64_QNAN)), F64_QNAN | UINT64_C(1) << 63);
}

/* ------------------------------------------- the caller's environment */

/* Results of one of each kind of call that must not change with the
 * caller's environment (the values are checked elsewhere). */
#define ENVIRONMENT_PROBES 24

static void environment_probes(uint64_t out[ENVIRONMENT_PROBES])
{
    int n = 0;
    out[n++] = bits32(arith_div_f32(1.0f, 3.0f, ARITH_RN));
    out[n++] = bits32(arith_div_f32(-1.0f, 3.0f, ARITH_RN));
    out[n++] = bits32(arith_add_f32(1.0f, 0x1.8p-24f, ARITH_RN));
    out[n++] = bits32(arith_mul_f32(0x1.000002p0f, 0x1.000002p0f, ARITH_RP));
    out[n++] = bits32(arith_sqrt_f32(2.0f, ARITH_RN));
    out[n++] = bits32(arith_fma_f32(0x1.000002p0f, 0x1.000002p0f, 0.0f, ARITH_RZ));
    out[n++] = bits32(arith_rcp_f32(-3.0f, ARITH_RM));
    out[n++] = bits64(arith_div_f64(-10.0, 3.0, ARITH_RN));
    out[n++] = bits64(arith_sqrt_f64(2.0, ARITH_RN));
    out[n++] = bits64(arith_fma_f64(0x1.0000000000001p0, 0x1.0000000000001p0, 0.0, ARITH_RP));
    out[n++] = bits32(arith_ex2_approx_f32(0.3f));
    out[n++] = bits32(arith_lg2_approx_f32(3.0f));
    out[n++] = bits32(arith_sin_approx_f32(1.0f));
    out[n++] = bits32(arith_tanh_approx_f32(0.5f));
    out[n++] = bits32(arith_rsqrt_approx_f32(3.0f));
    out[n++] = bits32(arith_div_approx_f32(1.0f, 3.0f));
    out[n++] = bits64(arith_rcp_approx_ftz_f64(3.0));
    out[n++] = bits64(arith_rsqrt_approx_f64(3.0));
    out[n++] = cvt_mode(UINT64_C(0x3fd5555555555555), PTX_F32, PTX_F64, ARITH_RN);
    out[n++] = cvt_mode(UINT64_C(0xffffffffffffffff), PTX_F64, PTX_U64, ARITH_RZ);
    out[n++] = cvt_mode(bits32(2.5f), PTX_S32, PTX_F32, ARITH_RN);
    out[n++] = arith_f32_to_f16(f32(0x3eaaaaab), ARITH_RN);
    out[n++] = arith_f32_to_bf16(f32(0x3f818000), ARITH_RN);
    out[n++] = bits32(arith_add_f32(f32(F32_TINY), f32(F32_TINY), ARITH_RN));
    assert_int_equal(n, ENVIRONMENT_PROBES);
}

static void caller_rounding_mode_is_ignored(void **state)
{
    (void)state;
    uint64_t reference[ENVIRONMENT_PROBES], probe[ENVIRONMENT_PROBES];
    environment_probes(reference);
    /* rn results that every other mode would change */
    assert_int_equal(reference[0], 0x3eaaaaab);
    assert_int_equal(reference[1], 0xbeaaaaab);
    assert_int_equal(reference[4], 0x3fb504f3);
    static const int caller_modes[] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO, FE_TONEAREST};
    for (size_t i = 0; i < sizeof caller_modes / sizeof caller_modes[0]; i++) {
        assert_int_equal(fesetround(caller_modes[i]), 0);
        environment_probes(probe);
        assert_int_equal(fegetround(), caller_modes[i]); /* and left as it was */
        fesetround(FE_TONEAREST);
        for (int k = 0; k < ENVIRONMENT_PROBES; k++)
            assert_int_equal(probe[k], reference[k]);
    }
}

static void caller_ftz_daz_and_traps_are_ignored(void **state)
{
    (void)state;
    uint64_t reference[ENVIRONMENT_PROBES], probe[ENVIRONMENT_PROBES];
    environment_probes(reference);
    /* what -ffast-math's start-up code does */
    unsigned hostile = _mm_getcsr() | MXCSR_FTZ | MXCSR_DAZ;
    _mm_setcsr(hostile);
    environment_probes(probe);
    assert_f32_bits(arith_mul_f32(f32(F32_MIN), 0.5f, ARITH_RN), 0x00400000);
    assert_f64_bits(arith_add_f64(f64(1), f64(1), ARITH_RN), 2);
    assert_int_equal(cvt_plain(F32_TINY, PTX_F64, PTX_F32), UINT64_C(0x36a0000000000000));
    assert_int_equal(cvt_mode(F32_TINY, PTX_S32, PTX_F32, ARITH_RP), 1);
    assert_int_equal(arith_f32_to_bf16(f32(0x00010000), ARITH_RN), 0x0001);
    assert_f32_bits(arith_rsqrt_approx_f32(f32(0x00000008)), 0x64000000); /* 2^-146 → 2^73 */
    assert_int_equal(_mm_getcsr() & ~0x3fu, hostile & ~0x3fu);
    _mm_setcsr(MXCSR_DEFAULT);
    for (int k = 0; k < ENVIRONMENT_PROBES; k++)
        assert_int_equal(probe[k], reference[k]);

    /* unmasked exceptions must not trap (a trap kills this test with SIGFPE) */
    int traps = FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INEXACT;
    feclearexcept(FE_ALL_EXCEPT);
    assert_int_not_equal(feenableexcept(traps), -1);
    environment_probes(probe);
    assert_f32_bits(arith_div_f32(1.0f, 0.0f, ARITH_RN), F32_INF);
    assert_f32_bits(arith_sqrt_f32(-1.0f, ARITH_RZ), F32_NAN);
    assert_f32_bits(arith_mul_f32(f32(F32_MAX), 2.0f, ARITH_RN), F32_INF);
    assert_f32_bits(arith_mul_f32(f32(0x00000003), 0.5f, ARITH_RN), 0x00000002);
    assert_f32_bits(arith_lg2_approx_f32(-1.0f), F32_NAN);
    assert_f32_bits(arith_div_approx_f32(f32(F32_INF), 0x1p127f), F32_NAN);
    assert_int_equal(cvt_mode(F32_SNAN, PTX_S32, PTX_F32, ARITH_RN), 0);
    assert_int_equal(cvt_mode(UINT64_C(0x7ff0000000000001), PTX_F16, PTX_F64, ARITH_RN), 0x7fff);
    assert_int_equal(cvt_mode(0x7f7fffff, PTX_F16, PTX_F32, ARITH_RN), 0x7c00);
    assert_int_equal(fegetexcept(), traps);
    fedisableexcept(traps);
    feclearexcept(FE_ALL_EXCEPT);
    for (int k = 0; k < ENVIRONMENT_PROBES; k++)
        assert_int_equal(probe[k], reference[k]);
}

static void directed_modes_leave_the_environment_as_it_was(void **state)
{
    (void)state;
    unsigned before = _mm_getcsr();
    assert_f32_bits(arith_div_f32(1.0f, 3.0f, ARITH_RZ), 0x3eaaaaaa);
    assert_f64_bits(arith_div_f64(1.0, 3.0, ARITH_RP), UINT64_C(0x3fd5555555555556));
    assert_f32_bits(arith_fma_f32(3.0f, 3.0f, 0x1p-30f, ARITH_RM), 0x41100000);
    assert_int_equal(_mm_getcsr(), before);
    assert_int_equal(fegetround(), FE_TONEAREST);
}

/* ------------------------------------------------------ cross-checks */

/* The hardware path (mul under MXCSR) and the hand rounding (cvt's
 * format_encode) must agree: an f32 product is exact in f64. */
static void directed_mul_and_add_agree_with_cvt_rounding(void **state)
{
    (void)state;
    uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
    for (int i = 0; i < 200000; i++) {
        uint64_t r = next_random(&seed);
        float a = f32((uint32_t)r), b = f32((uint32_t)(r >> 32));
        double product = (double)a * (double)b;
        /* c's exponent is 0 to 15 above a's: their significands span at
         * most 24 + 15 + 1 bits, so the sum is exact in f64 */
        uint32_t c_exponent = ((uint32_t)(r >> 23) & 0xff) + (uint32_t)(r >> 60);
        float c = f32(((uint32_t)(r >> 32) & 0x807fffff) | (c_exponent & 0xff) << 23);
        double sum = (double)a + (double)c;
        bool exact_sum = c_exponent < 255 && isfinite(sum);
        for (int m = 0; m < 4; m++) {
            assert_int_equal(bits32(arith_mul_f32(a, b, MODES[m])),
                             cvt_mode(bits64(product), PTX_F32, PTX_F64, MODES[m]));
            if (exact_sum)
                assert_int_equal(bits32(arith_add_f32(a, c, MODES[m])),
                                 cvt_mode(bits64(sum), PTX_F32, PTX_F64, MODES[m]));
        }
    }
}

__attribute__((target("f16c"))) static uint16_t hardware_f32_to_f16(float x, enum arith_rounding r)
{
    switch (r) {
    case ARITH_RZ:
        return (uint16_t)_cvtss_sh(x, _MM_FROUND_TO_ZERO);
    case ARITH_RM:
        return (uint16_t)_cvtss_sh(x, _MM_FROUND_TO_NEG_INF);
    case ARITH_RP:
        return (uint16_t)_cvtss_sh(x, _MM_FROUND_TO_POS_INF);
    default:
        return (uint16_t)_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT);
    }
}

/* ------------------------------------------------------ f16, bf16, tf32 */

static void half_values_are_exact(void **state)
{
    (void)state;
    assert_f64_bits(half_value(HALF_F16, 0x0001), bits64(0x1p-24));
    assert_f64_bits(half_value(HALF_F16, 0x03ff), bits64(1023 * 0x1p-24));
    assert_f64_bits(half_value(HALF_F16, 0x0400), bits64(0x1p-14));
    assert_f64_bits(half_value(HALF_F16, 0x7bff), bits64(65504));
    assert_f64_bits(half_value(HALF_F16, 0x8000), bits64(-0.0));
    assert_f64_bits(half_value(HALF_F16, 0xfc00), bits64(-INFINITY));
    assert_true(isnan(half_value(HALF_F16, 0x7c01)));
    assert_f64_bits(half_value(HALF_BF16, 0x0001), bits64(0x1p-133));
    assert_f64_bits(half_value(HALF_BF16, 0x7f7f), bits64(0x1.fep127));
    assert_f64_bits(half_value(HALF_BF16, 0xbf80), bits64(-1.0));
    assert_true(isnan(half_value(HALF_BF16, 0xffc1)));
}

/* Round to nearest even at ties, subnormals, the overflow threshold, and
 * the modifiers: .sat (NaN to +0), .relu, .satfinite, .ftz of the result. */
static void half_round_follows_the_modes_and_modifiers(void **state)
{
    (void)state;
    assert_int_equal(half_round(HALF_F16, 2049, ARITH_RN, 0), 0x6800); /* a tie: to even 2048 */
    assert_int_equal(half_round(HALF_F16, 2051, ARITH_RN, 0), 0x6802); /* a tie: to even 2052 */
    assert_int_equal(half_round(HALF_F16, 65519.99, ARITH_RN, 0), 0x7bff);
    assert_int_equal(half_round(HALF_F16, 65520, ARITH_RN, 0), 0x7c00);
    assert_int_equal(half_round(HALF_F16, 65520, ARITH_RZ, 0), 0x7bff);
    assert_int_equal(half_round(HALF_F16, 0x1p-25, ARITH_RN, 0), 0x0000);
    assert_int_equal(half_round(HALF_F16, 0x1.8p-25, ARITH_RN, 0), 0x0001);
    assert_int_equal(half_round(HALF_F16, -0x1p-30, ARITH_RM, 0), 0x8001);
    assert_int_equal(half_round(HALF_BF16, 1 + 0x1p-8, ARITH_RN, 0), 0x3f80);
    assert_int_equal(half_round(HALF_BF16, 0x1p128, ARITH_RN, 0), 0x7f80);
    assert_int_equal(half_round(HALF_F16, NAN, ARITH_RN, 0), HALF_CANONICAL_NAN);
    assert_int_equal(half_round(HALF_F16, NAN, ARITH_RN, HALF_SAT), 0x0000);
    assert_int_equal(half_round(HALF_F16, 1.5, ARITH_RN, HALF_SAT), 0x3c00);
    assert_int_equal(half_round(HALF_F16, -0.25, ARITH_RN, HALF_SAT), 0x0000);
    assert_int_equal(half_round(HALF_F16, -3, ARITH_RN, HALF_RELU), 0x0000);
    assert_int_equal(half_round(HALF_F16, NAN, ARITH_RN, HALF_RELU), HALF_CANONICAL_NAN);
    assert_int_equal(half_round(HALF_F16, -1e6, ARITH_RN, HALF_SATFINITE), 0xfbff);
    assert_int_equal(half_round(HALF_BF16, INFINITY, ARITH_RN, HALF_SATFINITE), 0x7f7f);
    assert_int_equal(half_round(HALF_F16, -0x1p-20, ARITH_RN, HALF_FTZ), 0x8000);
    assert_int_equal(half_from_f32(HALF_BF16, 0x00010000, ARITH_RN, 0), 0x0001);
}

/* A product at a tie plus a term far below it: the sum is not a double,
 * and only rounding it to odd keeps which side of the tie it lies on. */
static void half_fma_rounds_once(void **state)
{
    (void)state;
    /* 1.5 × (1 + 2^-7) = 1.5 + 3 × 2^-8, halfway between two bf16 values */
    assert_int_equal(half_fma(HALF_BF16, 0x3fc0, 0x3f81, 0x0000, 0), 0x3fc2); /* to even */
    assert_int_equal(half_fma(HALF_BF16, 0x3fc0, 0x3f81, 0x8002, 0), 0x3fc1); /* − 2^-132 */
    assert_int_equal(half_fma(HALF_BF16, 0x3fc0, 0x3f81, 0x0002, 0), 0x3fc2); /* + 2^-132 */
    /* f16: (1 + 2^-10)(1 − 2^-11) − 1 = 2^-11 − 2^-21, exact */
    assert_int_equal(half_fma(HALF_F16, 0x3c01, 0x3bff, 0xbc00, 0), 0x0ffe);
    assert_int_equal(half_add(HALF_F16, 0x7c00, 0xfc00, 0), HALF_CANONICAL_NAN); /* ∞ − ∞ */
    assert_int_equal(half_add(HALF_F16, 0x3c00, 0xbc00, 0), 0x0000);             /* x − x is +0 */
    assert_int_equal(half_sub(HALF_F16, 0x8000, 0x0000, 0), 0x8000);             /* −0 − +0 */
    assert_int_equal(half_mul(HALF_F16, 0x0001, 0x3800, 0), 0x0000); /* 2^-25: a tie, to 0 */
    assert_int_equal(half_add(HALF_F16, 0x0001, 0x0001, HALF_FTZ), 0x0000);
    assert_int_equal(half_mul(HALF_F16, 0x4000, 0x3c00, HALF_SAT), 0x3c00);
}

static void half_min_max_nan_and_sign_rules(void **state)
{
    (void)state;
    assert_int_equal(half_min(HALF_F16, 0x7e00, 0x3c00, 0), 0x3c00); /* NaN: the other */
    assert_int_equal(half_max(HALF_F16, 0x7e00, 0xfe00, 0), HALF_CANONICAL_NAN);
    assert_int_equal(half_min(HALF_F16, 0x0000, 0x8000, 0), 0x8000); /* −0 below +0 */
    assert_int_equal(half_max(HALF_F16, 0x8000, 0x0000, 0), 0x0000);
    assert_int_equal(half_min(HALF_F16, 0x7e00, 0x3c00, HALF_NAN), HALF_CANONICAL_NAN);
    /* .xorsign.abs: the smaller magnitude, with the signs' xor */
    assert_int_equal(half_min(HALF_F16, 0xc000, 0x3c00, HALF_XORSIGN_ABS), 0xbc00);
    assert_int_equal(half_max(HALF_BF16, 0xc000, 0xbf80, HALF_XORSIGN_ABS), 0x4000);
    assert_int_equal(half_min(HALF_F16, 0x0001, 0x0002, HALF_FTZ), 0x0000);
    assert_int_equal(half_neg(HALF_BF16, 0x3f80, 0), 0xbf80);
    assert_int_equal(half_abs(HALF_F16, 0x8001, HALF_FTZ), 0x0000);
    assert_int_equal(half_ex2_approx(HALF_F16, 0x4000, 0), 0x4400); /* 2^2 */
    assert_int_equal(half_ex2_approx(HALF_F16, 0xfc00, 0), 0x0000); /* 2^-∞ */
    assert_int_equal(half_tanh_approx(HALF_BF16, 0x7f80), 0x3f80);
}

static void tf32_rounds_its_ten_fraction_bits(void **state)
{
    (void)state;
    assert_int_equal(half_f32_to_tf32(0x3f801000, ARITH_RNA, 0), 0x3f802000); /* a tie: away */
    assert_int_equal(half_f32_to_tf32(0x3f801000, ARITH_RN, 0), 0x3f800000);  /* to even */
    assert_int_equal(half_f32_to_tf32(0x3f803000, ARITH_RN, 0), 0x3f804000);
    assert_int_equal(half_f32_to_tf32(0xbf801fff, ARITH_RZ, 0), 0xbf800000);
    assert_int_equal(half_f32_to_tf32(0xbf800001, ARITH_RM, 0), 0xbf802000);
    assert_int_equal(half_f32_to_tf32(0x7f7ff000, ARITH_RNA, 0), 0x7f800000); /* overflows */
    assert_int_equal(half_f32_to_tf32(0x7f7ff000, ARITH_RNA, HALF_SATFINITE), 0x7f7fe000);
    assert_int_equal(half_f32_to_tf32(0x00001000, ARITH_RNA, 0), 0x00002000); /* subnormal */
    assert_int_equal(half_f32_to_tf32(0xc0000000, ARITH_RN, HALF_RELU), 0x00000000);
    assert_int_equal(half_f32_to_tf32(F32_QNAN, ARITH_RN, 0), TF32_CANONICAL_NAN);
    assert_int_equal(half_tf32_operand(0x3f801fff), 0x3f800000);
}

/* The caller's rounding mode, FTZ and DAZ change nothing. */
static void half_arithmetic_ignores_the_caller_environment(void **state)
{
    (void)state;
    _mm_setcsr(_mm_getcsr() | MXCSR_FTZ | MXCSR_DAZ);
    fesetround(FE_UPWARD);
    assert_int_equal(half_fma(HALF_BF16, 0x3fc0, 0x3f81, 0x8002, 0), 0x3fc1);
    assert_int_equal(half_add(HALF_BF16, 0x0001, 0x0001, 0), 0x0002); /* subnormals */
    assert_int_equal(half_from_f32(HALF_BF16, 0x00010000, ARITH_RN, 0), 0x0001);
    assert_int_equal(half_mul(HALF_F16, 0x3c01, 0x3c01, 0), 0x3c02); /* 1 + 2^-9 + 2^-20 */
    fesetround(FE_TONEAREST);
    _mm_setcsr(MXCSR_DEFAULT);
}

/* f32 → f16 against the CPU's own converter (F16C), when it has one. */
static void f32_to_f16_agrees_with_f16c(void **state)
{
    (void)state;
    if (!__builtin_cpu_supports("f16c"))
        skip();
    uint64_t seed = UINT64_C(0x243f6a8885a308d3);
    for (int i = 0; i < 300000; i++) {
        uint32_t bits = (uint32_t)next_random(&seed);
        if (i % 2 == 0) /* half of them near f16's range: exponents 2^-30 .. 2^17 */
            bits = (bits & 0x807fffff) | (uint32_t)(97 + (bits >> 8) % 48) << 23;
        if (f32_bits_are_nan(bits))
            continue;
        for (int m = 0; m < 4; m++)
            assert_int_equal(arith_f32_to_f16(f32(bits), MODES[m]),
                             hardware_f32_to_f16(f32(bits), MODES[m]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_add_and_sub_round_in_each_mode),
        cmocka_unit_test(f32_mul_div_rcp_round_in_each_mode),
        cmocka_unit_test(f32_sqrt_rounds_in_each_mode),
        cmocka_unit_test(f32_fma_rounds_once),
        cmocka_unit_test(exact_results_do_not_depend_on_mode),
        cmocka_unit_test(signed_zeros_follow_ieee),
        cmocka_unit_test(overflow_follows_the_mode),
        cmocka_unit_test(subnormal_results_are_kept),
        cmocka_unit_test(f64_ops_round_in_each_mode),
        cmocka_unit_test(nan_results_are_canonical),
        cmocka_unit_test(ftz_flushes_subnormals_to_signed_zero),
        cmocka_unit_test(sat_clamps_to_the_unit_interval),
        cmocka_unit_test(min_max_f32_nan_and_zero_rules),
        cmocka_unit_test(min_max_f64_nan_and_zero_rules),
        cmocka_unit_test(approx_special_values),
        cmocka_unit_test(ex2_is_exact_on_integers_and_within_an_ulp),
        cmocka_unit_test(approx_functions_stay_within_ptx_bounds),
        cmocka_unit_test(div_approx_is_zero_for_huge_divisors),
        cmocka_unit_test(f64_approx_functions),
        cmocka_unit_test(cvt_float_to_int_rounds_in_each_mode),
        cmocka_unit_test(cvt_float_to_int_saturates),
        cmocka_unit_test(cvt_float_to_int_flushes_with_ftz),
        cmocka_unit_test(cvt_int_to_int_truncates_and_extends),
        cmocka_unit_test(cvt_int_to_int_saturates),
        cmocka_unit_test(cvt_int_to_float_rounds_in_each_mode),
        cmocka_unit_test(cvt_f64_to_f32_rounds_and_overflows),
        cmocka_unit_test(cvt_widening_is_exact),
        cmocka_unit_test(cvt_same_type_rounds_to_integral),
        cmocka_unit_test(cvt_to_f16_rounds_once),
        cmocka_unit_test(bf16_conversions),
        cmocka_unit_test(f16_to_f32_is_exact),
        cmocka_unit_test(f16_and_bf16_round_trip),
        cmocka_unit_test(cvt_sat_on_float_destinations),
        cmocka_unit_test(cvt_unsupported_types_give_zero),
        cmocka_unit_test(testp_classifies),
        cmocka_unit_test(copysign_takes_the_sign_from_the_first_operand),
        cmocka_unit_test_teardown(caller_rounding_mode_is_ignored, restore_fp_environment),
        cmocka_unit_test_teardown(caller_ftz_daz_and_traps_are_ignored, restore_fp_environment),
        cmocka_unit_test_teardown(directed_modes_leave_the_environment_as_it_was,
                                  restore_fp_environment),
        cmocka_unit_test(directed_mul_and_add_agree_with_cvt_rounding),
        cmocka_unit_test(f32_to_f16_agrees_with_f16c),
        cmocka_unit_test(half_values_are_exact),
        cmocka_unit_test(half_round_follows_the_modes_and_modifiers),
        cmocka_unit_test(half_fma_rounds_once),
        cmocka_unit_test(half_min_max_nan_and_sign_rules),
        cmocka_unit_test(tf32_rounds_its_ten_fraction_bits),
        cmocka_unit_test_teardown(half_arithmetic_ignores_the_caller_environment,
                                  restore_fp_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
