/*
 * Unit tests of the signature check: real NVRTC compiles of kernels for the
 * vector-add exercise, with right and wrong parameter lists, in C and C++
 * linkage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/exercise.h"
#include "grader/signature.h"

#include <string.h>

static struct exercise exercise;

static int load(void **state)
{
    (void)state;
    char error[512];
    return exercise_load("exercises/vector-add", &exercise, error, sizeof error) ? 0 : -1;
}

/* Compiles `source` and checks its vector_add; returns the check's verdict. */
static bool check(const char *source, char why[GRADER_MESSAGE_MAX])
{
    const char *names[] = {"vector_add"};
    struct grader_compile_options options = {.kernel_names = names, .n_kernel_names = 1};
    struct grader_compile_result r;
    if (grader_compile(source, strlen(source), &options, &r) != GRADER_COMPILE_OK)
        fail_msg("did not compile: %s", r.message);
    bool ok = signature_check(&exercise, 0, r.ptx, r.lowered_names[0], why);
    grader_compile_result_free(&r);
    return ok;
}

#define BODY "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n"

static void right_parameter_lists_pass(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    assert_true(check("extern \"C\" __global__ void vector_add(const float *a, const float *b, "
                      "float *c, int n)" BODY,
                      why));
    assert_true(check("__global__ void vector_add(const float *a, const float *b, float *c, "
                      "int n)" BODY,
                      why));
    assert_true(check("__global__ void vector_add(float *a, float *b, float *c, int n)" BODY, why));
}

static void wrong_types_are_refused_with_both_signatures(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    assert_false(check("__global__ void vector_add(const double *a, const double *b, double *c, "
                       "int n)" BODY,
                       why));
    assert_non_null(strstr(why, "vector_add(double const*, double const*, double*, int)"));
    assert_non_null(strstr(why, "__global__ void vector_add(const float *a"));
    assert_false(check("__global__ void vector_add(const float *a, const float *b, float *c, "
                       "unsigned n)" BODY,
                       why));
}

static void wrong_counts_and_sizes_are_refused_in_c_linkage(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    assert_false(check("extern \"C\" __global__ void vector_add(const float *a, float *c, int n)"
                       "{ int i = threadIdx.x; if (i < n) c[i] = a[i]; }\n",
                       why));
    assert_non_null(strstr(why, "the kernel vector_add does not take"));
    assert_false(check("extern \"C\" __global__ void vector_add(const float *a, const float *b, "
                       "float *c, long long n)" BODY,
                       why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(right_parameter_lists_pass),
        cmocka_unit_test(wrong_types_are_refused_with_both_signatures),
        cmocka_unit_test(wrong_counts_and_sizes_are_refused_in_c_linkage),
    };
    return cmocka_run_group_tests_name("signature", tests, load, NULL);
}
