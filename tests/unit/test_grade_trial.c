/*
 * Unit tests of two grader requests, graded for real on the virtual GPU
 * (build/emulator beside this binary's build folder) with the service
 * tests' small exercise, tiny-add (correctness at n = 100, assessed at
 * n = 1000):
 * - correctness_only (a trial): the correctness cases only, no assessment
 *   case and no time, "passed" for a correct kernel, the same verdict and
 *   first mismatch as a full grading for a wrong one;
 * - the first mismatch's "inputs": each input's value at the wrong element,
 *   in its own type, which give the reference's answer (a + b) there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/grader.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXERCISES "tests/service/exercises"
#define SEED      12345

static const char good[] =
    "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";
static const char wrong[] =
    "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] - b[i]; }\n";

static char emulator[PATH_MAX];

/* build/tests/unit/THIS or build/asan/tests/unit/THIS ->
 * build/emulator/libcuda.so.1 */
static int find_emulator(void **state)
{
    (void)state;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    const char *folder = dirname(self);
    static const char *const up[] = {"../..", "../../.."};
    for (int i = 0; i < 2; i++) {
        snprintf(emulator, sizeof emulator, "%s/%s/emulator/libcuda.so.1", folder, up[i]);
        if (access(emulator, R_OK) == 0)
            return 0;
    }
    fprintf(stderr, "no virtual GPU beside %s: make build/emulator/libcuda.so.1\n", folder);
    return -1;
}

static json_t *grade(const char *source, bool correctness_only, enum grader_verdict *verdict)
{
    struct grader_request request = {
        .exercises = EXERCISES,
        .exercise = "tiny-add",
        .source = source,
        .size = strlen(source),
        .seed_given = true,
        .seed = SEED,
        .device = GRADER_DEVICE_EMULATOR,
        .emulator = emulator,
        .correctness_only = correctness_only,
    };
    char error[GRADER_MESSAGE_MAX];
    json_t *result = grader_grade(&request, verdict, error, sizeof error);
    if (!result)
        fail_msg("grader_grade: %s", error);
    return result;
}

static json_t *cases_of(const json_t *result)
{
    return json_object_get(json_object_get(result, "correctness"), "cases");
}

static void test_a_trial_grades_the_correctness_cases_only(void **state)
{
    (void)state;
    enum grader_verdict verdict;
    json_t *result = grade(good, true, &verdict);
    assert_int_equal(verdict, GRADER_VERDICT_PASSED);
    assert_true(json_is_true(json_object_get(result, "correctness_only")));
    assert_true(json_is_false(json_object_get(result, "assessment")));
    json_t *cases = cases_of(result);
    assert_int_equal(json_array_size(cases), 1);
    json_t *n = json_object_get(json_object_get(json_array_get(cases, 0), "sizes"), "n");
    assert_int_equal(json_integer_value(n), 100); /* the largest correctness case, no more */
    json_t *performance = json_object_get(result, "performance");
    assert_true(json_is_null(json_object_get(performance, "student_ms")));
    assert_true(json_is_null(json_object_get(performance, "ratio")));
    assert_non_null(strstr(json_string_value(json_object_get(result, "message")), "up to n = 100"));
    json_decref(result);
}

static void test_a_full_grading_is_not_correctness_only(void **state)
{
    (void)state;
    enum grader_verdict verdict;
    json_t *result = grade(good, false, &verdict);
    assert_int_equal(verdict, GRADER_VERDICT_PASSED);
    assert_true(json_is_false(json_object_get(result, "correctness_only")));
    assert_true(json_is_true(json_object_get(result, "assessment")));
    assert_int_equal(json_array_size(cases_of(result)), 2);
    assert_true(json_is_number(json_object_get(json_object_get(result, "performance"), "ratio")));
    json_decref(result);
}

/* The wrong kernel: the same verdict and first mismatch in a trial as in a
 * full grading (same seed), and the inputs a and b at the wrong element. */
static void test_a_wrong_answer_shows_the_inputs_at_the_element(void **state)
{
    (void)state;
    enum grader_verdict trial_verdict, full_verdict;
    json_t *trial = grade(wrong, true, &trial_verdict);
    json_t *full = grade(wrong, false, &full_verdict);
    assert_int_equal(trial_verdict, GRADER_VERDICT_WRONG_ANSWER);
    assert_int_equal(full_verdict, GRADER_VERDICT_WRONG_ANSWER);
    json_t *first = json_object_get(json_array_get(cases_of(trial), 0), "first_mismatch");
    json_t *first_full = json_object_get(json_array_get(cases_of(full), 0), "first_mismatch");
    assert_true(json_equal(first, first_full));
    json_t *inputs = json_object_get(first, "inputs");
    assert_int_equal(json_array_size(inputs), 2);
    json_t *a = json_array_get(inputs, 0), *b = json_array_get(inputs, 1);
    assert_string_equal(json_string_value(json_object_get(a, "name")), "a");
    assert_string_equal(json_string_value(json_object_get(b, "name")), "b");
    assert_string_equal(json_string_value(json_object_get(a, "type")), "f32");
    float x = strtof(json_string_value(json_object_get(a, "value")), NULL);
    float y = strtof(json_string_value(json_object_get(b, "value")), NULL);
    assert_true((double)(x + y) == json_real_value(json_object_get(first, "expected")));
    assert_true((double)(x - y) == json_real_value(json_object_get(first, "actual")));
    json_decref(trial);
    json_decref(full);
}

/* A compile error: no case ran, so no mismatch and no inputs, trial or not. */
static void test_a_trial_of_a_compile_error(void **state)
{
    (void)state;
    enum grader_verdict verdict;
    json_t *result = grade("__global__ void vector_add(", true, &verdict);
    assert_int_equal(verdict, GRADER_VERDICT_COMPILE_ERROR);
    assert_int_equal(json_array_size(cases_of(result)), 0);
    json_decref(result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_trial_grades_the_correctness_cases_only),
        cmocka_unit_test(test_a_full_grading_is_not_correctness_only),
        cmocka_unit_test(test_a_wrong_answer_shows_the_inputs_at_the_element),
        cmocka_unit_test(test_a_trial_of_a_compile_error),
    };
    return cmocka_run_group_tests(tests, find_emulator, NULL);
}
