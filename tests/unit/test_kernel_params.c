/*
 * Unit tests of a kernel's parameters as the grader passes them
 * (grader/kernel_params.c): the layout of a C form and of numba's ABI,
 * packing into one buffer, and the comparison with what the driver says
 * the kernel takes (here a table standing for cuFuncGetParamInfo; the
 * virtual GPU's own answer is tested in tests/gpu/test_launch_errors.c and,
 * through forged kernels, in tests/integration/test_numba.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/kernel_params.h"

#include <string.h>

static struct exercise load(const char *id)
{
    struct exercise e;
    char path[128], error[512];
    snprintf(path, sizeof path, "exercises/%s", id);
    assert_true(exercise_load(path, &e, error, sizeof error));
    return e;
}

/* vector_add(const float *a, const float *b, float *c, int n) */
static void a_c_form_is_one_value_per_parameter(void **state)
{
    (void)state;
    struct exercise e = load("vector-add");
    struct kernel_params p;
    kernel_params_layout(&e, 0, KERNEL_FORM_C, &p);
    assert_int_equal(p.count, 4);
    const uint32_t offsets[] = {0, 8, 16, 24}, sizes[] = {8, 8, 8, 4};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(p.offset[i], offsets[i]);
        assert_int_equal(p.size[i], sizes[i]);
    }
    assert_int_equal(p.bytes, 28);
}

/* cuda_histogram(x, xmin, xmax, histogram_out): 7 values, two float32, 7 */
static void a_numba_form_is_numbas_abi(void **state)
{
    (void)state;
    struct exercise e = load("histogram");
    struct kernel_params p;
    kernel_params_layout(&e, 0, KERNEL_FORM_NUMBA, &p);
    assert_int_equal(p.count, 16);
    assert_int_equal(p.offset[7], 56);
    assert_int_equal(p.size[7], 4);
    assert_int_equal(p.offset[8], 60);
    assert_int_equal(p.size[8], 4);
    assert_int_equal(p.offset[9], 64);
    assert_int_equal(p.size[9], 8);
    assert_int_equal(p.bytes, 120);
    struct exercise t = load("transpose"); /* two 2-D arrays: 9 values each */
    kernel_params_layout(&t, 0, KERNEL_FORM_NUMBA, &p);
    assert_int_equal(p.count, 18);
    assert_int_equal(p.bytes, 144);
}

static void values_are_packed_at_their_offsets(void **state)
{
    (void)state;
    struct exercise e = load("vector-add");
    struct kernel_params p;
    kernel_params_layout(&e, 0, KERNEL_FORM_C, &p);
    uint64_t a = 0x1111, b = 0x2222, c = 0x3333;
    int32_t n = -7;
    void *args[] = {&a, &b, &c, &n};
    unsigned char packed[KERNEL_PARAMS_BYTES_MAX];
    memset(packed, 0xAB, sizeof packed);
    kernel_params_pack(&p, args, packed);
    uint64_t got;
    memcpy(&got, packed + 8, 8);
    assert_int_equal(got, 0x2222);
    int32_t count;
    memcpy(&count, packed + 24, 4);
    assert_int_equal(count, -7);
}

/* What the driver says of the kernel under test. */
static struct {
    int count;
    size_t offset[4], size[4];
} driver_kernel;

static CUresult fake_param_info(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    (void)f;
    if (index >= (size_t)driver_kernel.count)
        return CUDA_ERROR_INVALID_VALUE;
    *offset = driver_kernel.offset[index];
    if (size)
        *size = driver_kernel.size[index];
    return CUDA_SUCCESS;
}

static bool driver_kernel_matches(int count, const size_t sizes[], char why[256])
{
    struct exercise e = load("vector-add");
    struct kernel_params want;
    kernel_params_layout(&e, 0, KERNEL_FORM_C, &want);
    struct cuda_api api = {.cuFuncGetParamInfo = fake_param_info};
    driver_kernel.count = count;
    size_t at = 0;
    for (int i = 0; i < count; i++) {
        at = (at + sizes[i] - 1) / sizes[i] * sizes[i];
        driver_kernel.offset[i] = at;
        driver_kernel.size[i] = sizes[i];
        at += sizes[i];
    }
    why[0] = '\0';
    return kernel_params_match(&api, NULL, &want, why, 256);
}

static void the_kernel_must_take_exactly_the_forms_parameters(void **state)
{
    (void)state;
    char why[256];
    assert_true(driver_kernel_matches(4, (const size_t[]){8, 8, 8, 4}, why));
    assert_false(driver_kernel_matches(3, (const size_t[]){8, 8, 8}, why));
    assert_string_equal(why, "it takes 3 parameter values where the exercise passes 4");
    assert_false(driver_kernel_matches(4, (const size_t[]){8192, 8, 8, 4}, why));
    assert_string_equal(why, "its parameter value 1 is 8192 bytes at offset 0 where the exercise "
                             "passes 8 bytes at offset 0");
    assert_false(driver_kernel_matches(4, (const size_t[]){8, 8, 8, 8}, why));
    assert_false(driver_kernel_matches(4, (const size_t[]){4, 8, 8, 4}, why)); /* offsets move */
}

static void a_kernel_with_more_parameters_is_refused(void **state)
{
    (void)state;
    char why[256];
    struct exercise e = load("vector-add");
    struct kernel_params want;
    kernel_params_layout(&e, 0, KERNEL_FORM_C, &want);
    want.count = 3; /* the form passes 3; the kernel takes 4 */
    struct cuda_api api = {.cuFuncGetParamInfo = fake_param_info};
    driver_kernel.count = 4;
    memcpy(driver_kernel.offset, (size_t[]){0, 8, 16, 24}, sizeof driver_kernel.offset);
    memcpy(driver_kernel.size, (size_t[]){8, 8, 8, 4}, sizeof driver_kernel.size);
    assert_false(kernel_params_match(&api, NULL, &want, why, sizeof why));
    assert_string_equal(why, "it takes more than the 3 parameter values the exercise passes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_c_form_is_one_value_per_parameter),
        cmocka_unit_test(a_numba_form_is_numbas_abi),
        cmocka_unit_test(values_are_packed_at_their_offsets),
        cmocka_unit_test(the_kernel_must_take_exactly_the_forms_parameters),
        cmocka_unit_test(a_kernel_with_more_parameters_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
