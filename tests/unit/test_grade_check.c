/*
 * Unit tests of the check after a student's run (run_check_student): the
 * guard zones, as a real GPU leaves them (the virtual GPU faults on the
 * guards first, so only this test double reaches this path), then the
 * outputs. The "device" is host memory behind a fake cuMemcpyDtoH.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/compare.h"
#include "grader/grade_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 100

static const char exercise_json[] =
    "{\"id\": \"t\", \"title\": \"t\", \"course\": \"c\", \"assessment\": false,"
    " \"sizes\": [\"n\"], \"correctness\": [{\"n\": 100}], \"assessed\": {\"n\": 100},"
    " \"buffers\": [{\"name\": \"c\", \"type\": \"f32\", \"length\": \"n\","
    "   \"output\": {\"initial\": \"poison\", \"check\": \"exact\"}}],"
    " \"kernels\": [{\"name\": \"k\", \"params\": [\"c\"], \"signature\": \"k(float *c)\"}],"
    " \"launches\": [{\"kernel\": \"k\", \"grid\": [1], \"block\": [1]}],"
    " \"speed\": {\"max_ratio\": 1.25}}";

struct fixture {
    struct grading g;
    struct run r;
    struct case_outcome out;
    unsigned char device[GUARD_BYTES + COUNT * sizeof(float) + GUARD_BYTES];
    float expected[COUNT];
    char error[256];
};

static CUresult fake_dtoh(void *host, CUdeviceptr device, size_t bytes)
{
    memcpy(host, (const void *)(uintptr_t)device, bytes);
    return CUDA_SUCCESS;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char why[256];
    if (!f || !exercise_parse(exercise_json, sizeof exercise_json - 1, "t.json", &f->g.exercise,
                              why, sizeof why))
        return -1;
    f->g.api.cuMemcpyDtoH = fake_dtoh;
    f->r.g = &f->g;
    f->r.c = &f->g.exercise.cases[0];
    f->r.error = f->error;
    f->r.error_size = sizeof f->error;
    struct run_buffer *b = &f->r.buffers[0];
    b->spec = &f->g.exercise.buffers[0];
    b->count = COUNT;
    b->bytes = COUNT * sizeof(float);
    b->base = (CUdeviceptr)(uintptr_t)f->device;
    b->data = b->base + GUARD_BYTES;
    b->expected = f->expected;
    f->r.current[0] = b->data;
    for (int i = 0; i < COUNT; i++)
        f->expected[i] = (float)i / 4;
    guard_fill(f->device, GUARD_BYTES);
    memcpy(f->device + GUARD_BYTES, f->expected, sizeof f->expected);
    guard_fill(f->device + GUARD_BYTES + sizeof f->expected, GUARD_BYTES);
    f->out.json = json_object();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    json_decref(f->out.json);
    free(f->r.check_part);
    free(f);
    return 0;
}

static void test_intact_guards_and_right_outputs_pass(void **state)
{
    struct fixture *f = *state;
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_PASSED);
    assert_true(json_is_true(json_object_get(f->out.json, "passed")));
}

static void test_write_past_the_end_names_the_element(void **state)
{
    struct fixture *f = *state;
    f->device[GUARD_BYTES + COUNT * sizeof(float) + 4] ^= 0x01; /* c[101] */
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_MEMORY_ERROR);
    assert_string_equal(f->out.message,
                        "the kernel wrote c[101], past the end of the 100-element buffer 'c'");
}

static void test_write_before_the_start_names_the_element(void **state)
{
    struct fixture *f = *state;
    f->device[GUARD_BYTES - 1] ^= 0x80; /* the last byte of c[-1] */
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_MEMORY_ERROR);
    assert_string_equal(f->out.message,
                        "the kernel wrote c[-1], before the start of the 100-element buffer 'c'");
}

static void test_far_write_before_the_start(void **state)
{
    struct fixture *f = *state;
    f->device[0] = (unsigned char)~f->device[0]; /* the first guard byte: c[-1024] */
    assert_true(run_check_student(&f->r, &f->out));
    assert_string_equal(
        f->out.message,
        "the kernel wrote c[-1024], before the start of the 100-element buffer 'c'");
}

static void test_guards_are_checked_before_outputs(void **state)
{
    struct fixture *f = *state;
    f->device[GUARD_BYTES] ^= 0xFF; /* c[0] wrong too */
    f->device[GUARD_BYTES + COUNT * sizeof(float)] ^= 0xFF;
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_MEMORY_ERROR);
}

static void test_wrong_output_with_intact_guards(void **state)
{
    struct fixture *f = *state;
    float wrong = -1;
    memcpy(f->device + GUARD_BYTES + 7 * sizeof(float), &wrong, sizeof wrong);
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_WRONG_ANSWER);
    assert_string_equal(f->out.message, "1 of 100 elements of 'c' are wrong; the first is [7]: "
                                        "expected 1.75, got -1");
    assert_int_equal(json_integer_value(json_object_get(f->out.json, "mismatches")), 1);
}

/* The fixture's buffer as elements of `type` (of 4 or 8 bytes), equal,
 * but for element `index`: `expected` in the reference, `actual` in the
 * student's output (their low bytes). Then the check. */
static void check_typed(struct fixture *f, enum value_type type, size_t index, uint64_t expected,
                        uint64_t actual)
{
    size_t size = value_type_bytes(type);
    struct run_buffer *b = &f->r.buffers[0];
    f->g.exercise.buffers[0].type = type;
    b->count = sizeof f->expected / size;
    memcpy((unsigned char *)f->expected + index * size, &expected, size);
    memcpy(f->device + GUARD_BYTES, f->expected, sizeof f->expected);
    memcpy(f->device + GUARD_BYTES + index * size, &actual, size);
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_WRONG_ANSWER);
}

static json_t *first_mismatch(struct fixture *f, const char *key)
{
    return json_object_get(json_object_get(f->out.json, "first_mismatch"), key);
}

/* An int32 count above 2^24 (a histogram's bin at 100M): exact in the
 * JSON and the sentence, not a double's 6 significant digits (1.57054e7). */
static void test_integers_are_exact_in_the_json_and_the_sentence(void **state)
{
    struct fixture *f = *state;
    check_typed(f, VALUE_I32, 3, 15705399, 15705408);
    assert_true(json_is_integer(first_mismatch(f, "expected")));
    assert_int_equal(json_integer_value(first_mismatch(f, "expected")), 15705399);
    assert_int_equal(json_integer_value(first_mismatch(f, "actual")), 15705408);
    char *dumped = json_dumps(f->out.json, JSON_REAL_PRECISION(6)); /* as the grade report */
    assert_non_null(strstr(dumped, "\"expected\": 15705399, \"actual\": 15705408"));
    free(dumped);
    assert_string_equal(f->out.message, "1 of 100 elements of 'c' are wrong; the first is [3]: "
                                        "expected 15705399, got 15705408");
}

static void test_negative_and_64_bit_integers_are_exact(void **state)
{
    struct fixture *f = *state;
    check_typed(f, VALUE_I64, 5, (uint64_t)INT64_C(-9007199254740993), 7);
    assert_int_equal(json_integer_value(first_mismatch(f, "expected")),
                     INT64_C(-9007199254740993)); /* -(2^53 + 1): no double holds it */
    assert_int_equal(json_integer_value(first_mismatch(f, "actual")), 7);
    assert_non_null(strstr(f->out.message, "expected -9007199254740993, got 7"));
}

/* A uint64 above INT64_MAX, which a JSON integer of jansson cannot hold:
 * its decimal digits as a string; one below it stays an integer. */
static void test_a_uint64_beyond_int64_is_its_digits(void **state)
{
    struct fixture *f = *state;
    check_typed(f, VALUE_U64, 0, UINT64_MAX, UINT64_C(9007199254740993));
    assert_string_equal(json_string_value(first_mismatch(f, "expected")), "18446744073709551615");
    assert_int_equal(json_integer_value(first_mismatch(f, "actual")), INT64_C(9007199254740993));
    assert_non_null(strstr(f->out.message, "expected 18446744073709551615, got 9007199254740993"));
}

/* Floats stay JSON numbers; a NaN, which JSON has no number for, is "nan"
 * (the first mismatch was dropped whole before). */
static void test_floats_stay_numbers_and_a_nan_is_text(void **state)
{
    struct fixture *f = *state;
    float nan_value = NAN, one = 1;
    uint32_t nan_bits, one_bits;
    memcpy(&nan_bits, &nan_value, sizeof nan_bits);
    memcpy(&one_bits, &one, sizeof one_bits);
    check_typed(f, VALUE_F32, 9, one_bits, nan_bits);
    assert_true(json_is_real(first_mismatch(f, "expected")));
    assert_true(json_real_value(first_mismatch(f, "expected")) == 1.0);
    assert_string_equal(json_string_value(first_mismatch(f, "actual")), "nan");
}

/* An output longer than the part the check reads at a time: a wrong
 * element in a later part is found, with its index in the whole buffer. */
static void test_wrong_output_in_a_later_part(void **state)
{
    struct fixture *f = *state;
    const size_t n = ((size_t)16 << 20) / sizeof(float) * 2 + 1000; /* two parts and a bit */
    float *expected = malloc(n * sizeof *expected);
    unsigned char *device = malloc(GUARD_BYTES + n * sizeof(float) + GUARD_BYTES);
    assert_non_null(expected);
    assert_non_null(device);
    for (size_t i = 0; i < n; i++)
        expected[i] = (float)(i % 1000);
    guard_fill(device, GUARD_BYTES);
    memcpy(device + GUARD_BYTES, expected, n * sizeof(float));
    guard_fill(device + GUARD_BYTES + n * sizeof(float), GUARD_BYTES);
    float wrong = -1;
    memcpy(device + GUARD_BYTES + (n - 5) * sizeof(float), &wrong, sizeof wrong);
    struct run_buffer *b = &f->r.buffers[0];
    b->count = n;
    b->bytes = n * sizeof(float);
    b->base = (CUdeviceptr)(uintptr_t)device;
    b->data = b->base + GUARD_BYTES;
    b->expected = expected;
    f->r.current[0] = b->data;
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_WRONG_ANSWER);
    char want[160];
    snprintf(want, sizeof want,
             "1 of %zu elements of 'c' are wrong; the first is [%zu]: expected %g, got -1", n,
             n - 5, (double)((n - 5) % 1000));
    assert_string_equal(f->out.message, want);
    free(expected);
    free(device);
}

/* An exercise with an alternative: an output that equals the
 * alternative's passes; one that equals neither is reported against the
 * reference's, and one element of the alternative's mixed into the
 * reference's output is wrong (each output is judged against one side). */
static void test_an_output_may_match_the_alternative(void **state)
{
    struct fixture *f = *state;
    float alternative[COUNT];
    memcpy(alternative, f->expected, sizeof alternative);
    alternative[3] = 99;
    alternative[8] = 98;
    f->r.buffers[0].alternative = alternative;
    float *device = (float *)(void *)(f->device + GUARD_BYTES);
    memcpy(device, alternative, sizeof alternative);
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_PASSED);
    device[8] = f->expected[8];
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_WRONG_ANSWER);
    assert_string_equal(f->out.message, "1 of 100 elements of 'c' are wrong; the first is [3]: "
                                        "expected 0.75, got 99");
    memcpy(device, f->expected, sizeof f->expected);
    device[50] = -1;
    f->out.verdict = GRADER_VERDICT_PASSED;
    assert_true(run_check_student(&f->r, &f->out));
    assert_int_equal(f->out.verdict, GRADER_VERDICT_WRONG_ANSWER);
    assert_string_equal(f->out.message, "1 of 100 elements of 'c' are wrong; the first is [50]: "
                                        "expected 12.5, got -1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_intact_guards_and_right_outputs_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_past_the_end_names_the_element, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_before_the_start_names_the_element, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_far_write_before_the_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_guards_are_checked_before_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_output_with_intact_guards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_output_in_a_later_part, setup, teardown),
        cmocka_unit_test_setup_teardown(test_integers_are_exact_in_the_json_and_the_sentence, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_negative_and_64_bit_integers_are_exact, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_uint64_beyond_int64_is_its_digits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floats_stay_numbers_and_a_nan_is_text, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_output_may_match_the_alternative, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
