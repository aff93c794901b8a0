/*
 * Unit tests of the grader's side of the Numba front end: the request it
 * is given for an exercise's Numba form (grader_numba_request), its result
 * read back as hostile by the service (grader_numba_answer) and into the
 * student's side (numba_student_side), and
 * numba's kernel ABI packed from the exercise's buffers
 * (numba_kernel_args).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/exercise.h"
#include "grader/kernel_params.h"
#include "grader/numba_front.h"

#include <stdlib.h>
#include <string.h>

/* grader_numba_request for exercises/<id> and a reference built for `arch`. */
static json_t *request_for(const char *id, const char *arch, char error[512])
{
    char path[256];
    size_t size;
    snprintf(path, sizeof path, "exercises/%s/exercise.json", id);
    char *definition = exercise_file_read(path, EXERCISE_DEFINITION_MAX, &size, error, 512);
    assert_non_null(definition);
    struct grader_request request = {
        .definition = definition,
        .definition_size = size,
        .source = "from numba import cuda\n",
        .size = strlen("from numba import cuda\n"),
        .file_name = "mine.py",
        .language = GRADER_LANGUAGE_NUMBA,
    };
    json_t *reference = json_pack("{s:s}", "arch", arch);
    json_t *asked = grader_numba_request(&request, reference, "/usr/local/cuda", error, 512);
    json_decref(reference);
    free(definition);
    return asked;
}

static void the_request_carries_the_form_and_the_devices_capability(void **state)
{
    (void)state;
    char error[512];
    json_t *asked = request_for("transpose", "sm_90", error);
    assert_non_null(asked);
    json_t *kernel = json_array_get(json_object_get(asked, "kernels"), 0);
    assert_string_equal(json_string_value(json_object_get(kernel, "name")), "tile_transpose");
    assert_string_equal(json_string_value(json_object_get(kernel, "signature")),
                        "void(float32[:, ::1], float32[:, ::1])");
    assert_string_equal(json_string_value(json_array_get(json_object_get(kernel, "params"), 1)),
                        "transposed");
    assert_true(json_is_false(json_object_get(kernel, "elementwise")));
    assert_true(json_is_true(json_object_get(kernel, "gufunc")));
    assert_int_equal(json_integer_value(json_array_get(json_object_get(asked, "cc"), 0)), 9);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(asked, "cc"), 1)), 0);
    assert_string_equal(json_string_value(json_object_get(asked, "file_name")), "mine.py");
    assert_string_equal(json_string_value(json_object_get(asked, "source")),
                        "from numba import cuda\n");
    json_decref(asked);
    asked = request_for("hidden-layer", "sm_120", error);
    assert_non_null(asked);
    kernel = json_array_get(json_object_get(asked, "kernels"), 0);
    assert_true(json_is_true(json_object_get(kernel, "elementwise")));
    assert_int_equal(json_integer_value(json_array_get(json_object_get(asked, "cc"), 0)), 12);
    json_decref(asked);
}

/* The exercise's host form goes to the front end as its function's name:
 * hidden-layer's create_hidden_layer; an exercise without one sends none. */
static void the_request_names_the_host_forms_function(void **state)
{
    (void)state;
    char error[512];
    json_t *asked = request_for("hidden-layer", "sm_90", error);
    assert_non_null(asked);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(asked, "numba_host"), "function")),
        "create_hidden_layer");
    json_decref(asked);
    asked = request_for("vector-add", "sm_90", error);
    assert_non_null(asked);
    assert_null(json_object_get(asked, "numba_host"));
    json_decref(asked);
}

static void a_reference_without_architecture_is_refused(void **state)
{
    (void)state;
    char error[512] = "";
    assert_null(request_for("vector-add", "compute", error));
    assert_non_null(strstr(error, "architecture"));
}

static void elementwise_means_same_length_arrays_with_the_output_last(void **state)
{
    (void)state;
    struct exercise e;
    char error[512];
    assert_true(exercise_load("exercises/vector-add", &e, error, sizeof error));
    assert_true(numba_kernel_elementwise(&e, 0));
    assert_true(exercise_load("exercises/histogram", &e, error, sizeof error));
    assert_false(numba_kernel_elementwise(&e, 0)); /* scalars, a shorter output */
    assert_true(exercise_load("exercises/transpose", &e, error, sizeof error));
    assert_false(numba_kernel_elementwise(&e, 0)); /* 2-D */
}

static void a_gufunc_fits_a_form_of_arrays_with_the_output_last(void **state)
{
    (void)state;
    struct exercise e;
    char error[512];
    assert_true(exercise_load("exercises/l2-norm", &e, error, sizeof error));
    assert_true(numba_kernel_gufunc(&e, 0)); /* m[rows, cols], out[rows] */
    assert_false(numba_kernel_elementwise(&e, 0));
    assert_true(exercise_load("exercises/vector-add", &e, error, sizeof error));
    assert_true(numba_kernel_gufunc(&e, 0));
    assert_true(exercise_load("exercises/histogram", &e, error, sizeof error));
    assert_false(numba_kernel_gufunc(&e, 0)); /* xmin, xmax are scalars */
    assert_true(exercise_load("exercises/reduce-sum", &e, error, sizeof error));
    assert_true(numba_kernel_gufunc(&e, 0));
    assert_true(exercise_load("exercises/hidden-layer", &e, error, sizeof error));
    e.buffers[exercise_buffer_index(&e, "greyscales")].is_output = true;
    assert_false(numba_kernel_gufunc(&e, 0)); /* an output that is not the last */
}

static void a_reduction_fits_one_array_into_a_one_element_output(void **state)
{
    (void)state;
    struct exercise e;
    char error[512];
    assert_true(exercise_load("exercises/reduce-sum", &e, error, sizeof error));
    assert_true(numba_kernel_reduces(&e, 0)); /* reduce_sum(x, out[1]) */
    e.buffers[exercise_buffer_index(&e, "sum")].type = VALUE_F64;
    assert_false(numba_kernel_reduces(&e, 0)); /* an output of another type */
    assert_true(exercise_load("exercises/l2-norm", &e, error, sizeof error));
    assert_false(numba_kernel_reduces(&e, 0)); /* a 2-D input, an output per row */
    assert_true(exercise_load("exercises/vector-add", &e, error, sizeof error));
    assert_false(numba_kernel_reduces(&e, 0)); /* three arrays */
}

/* ---------------------------------------------------- the front end's result */

static struct grading *grading_of(const char *id, struct grader_request *request, const char *json)
{
    static struct grading g;
    char path[256], error[512];
    memset(&g, 0, sizeof g);
    snprintf(path, sizeof path, "exercises/%s", id);
    assert_true(exercise_load(path, &g.exercise, error, sizeof error));
    request->numba = json_loads(json, 0, NULL);
    g.request = request;
    return &g;
}

static void release(struct grading *g, struct grader_request *request)
{
    grader_compile_result_free(&g->compiled[1]);
    numba_side_free(&g->numba[1]);
    json_decref((json_t *)request->numba);
}

static void an_ok_result_gives_each_kernel_its_ptx_and_entry(void **state)
{
    (void)state;
    struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA};
    struct grading *g =
        grading_of("vector-add", &request,
                   "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \".version 8.0\"}, \"entries\": "
                   "{\"add_kernel\": \"_ZN6cudapy8add\"}, \"vectorized\": {\"add_kernel\": true}, "
                   "\"numba\": \"0.56.4\"}");
    char message[GRADER_MESSAGE_MAX];
    assert_int_equal(numba_student_side(g, message, sizeof message), GRADER_VERDICT_PASSED);
    assert_int_equal(g->compiled[1].status, GRADER_COMPILE_OK);
    assert_string_equal(g->compiled[1].lowered_names[0], "_ZN6cudapy8add");
    assert_string_equal(g->numba[1].ptx[0], ".version 8.0");
    assert_true(g->numba[1].is_numba && g->numba[1].vectorized[0]);
    assert_non_null(strstr(g->compiled[1].message, "0.56.4"));
    release(g, &request);
}

static void a_compile_error_keeps_its_line_column_and_log(void **state)
{
    (void)state;
    struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA};
    struct grading *g = grading_of("vector-add", &request,
                                   "{\"status\": \"compile_error\", \"message\": \"SyntaxError: "
                                   "expected ':'\", \"log\": \"the whole story\", \"line\": 4, "
                                   "\"column\": 26}");
    char message[GRADER_MESSAGE_MAX];
    assert_int_equal(numba_student_side(g, message, sizeof message), GRADER_VERDICT_COMPILE_ERROR);
    assert_string_equal(message, "SyntaxError: expected ':'");
    assert_string_equal(g->compiled[1].log, "the whole story");
    assert_int_equal(g->compiled[1].n_diagnostics, 1);
    assert_int_equal(g->compiled[1].diagnostics[0].line, 4);
    assert_int_equal(g->compiled[1].diagnostics[0].column, 26);
    release(g, &request);
}

static void a_refusal_is_rejected_with_its_sentence(void **state)
{
    (void)state;
    struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA};
    struct grading *g = grading_of(
        "vector-add", &request,
        "{\"status\": \"rejected\", \"message\": \"the module defines no 'add_kernel'\"}");
    char message[GRADER_MESSAGE_MAX];
    assert_int_equal(numba_student_side(g, message, sizeof message), GRADER_VERDICT_REJECTED);
    assert_string_equal(message, "the module defines no 'add_kernel'");
    release(g, &request);
}

/* A result that lies is the module's doing: the student's compile_error,
 * never kgrade's internal_error, never a pass. */
static void a_result_that_is_not_valid_is_refused(void **state)
{
    (void)state;
    static const char *const lies[] = {
        "{}",
        "{\"status\": \"ok\"}",
        "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": 3}, \"entries\": {\"add_kernel\": \"x\"}}",
        "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \"p\"}, \"entries\": {\"other\": \"x\"}}",
        "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \"\"}, \"entries\": {\"add_kernel\": "
        "\"x\"}}",
        "{\"status\": \"passed\"}",
    };
    for (size_t i = 0; i < sizeof lies / sizeof *lies; i++) {
        struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA};
        struct grading *g = grading_of("vector-add", &request, lies[i]);
        char message[GRADER_MESSAGE_MAX];
        assert_int_equal(numba_student_side(g, message, sizeof message),
                         GRADER_VERDICT_COMPILE_ERROR);
        assert_int_equal(g->compiled[1].status, GRADER_COMPILE_ERROR);
        json_t *compile = grader_compile_result_to_json(&g->compiled[1]); /* it crashed once */
        assert_non_null(compile);
        json_decref(compile);
        release(g, &request);
    }
    /* a @vectorize kernel claimed for an exercise that is not elementwise,
     * a reduction for one that does not reduce */
    static const char *const claims[][2] = {
        {"histogram", "{\"status\": \"ok\", \"ptx\": {\"cuda_histogram\": \"p\"}, \"entries\": "
                      "{\"cuda_histogram\": \"x\"}, \"vectorized\": {\"cuda_histogram\": true}}"},
        {"vector-add", "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \"p\"}, \"entries\": "
                       "{\"add_kernel\": \"x\"}, \"reduce\": {\"add_kernel\": true}}"},
    };
    for (size_t i = 0; i < sizeof claims / sizeof *claims; i++) {
        struct grader_request request = {.language = GRADER_LANGUAGE_NUMBA};
        struct grading *g = grading_of(claims[i][0], &request, claims[i][1]);
        char message[GRADER_MESSAGE_MAX];
        assert_int_equal(numba_student_side(g, message, sizeof message),
                         GRADER_VERDICT_COMPILE_ERROR);
        release(g, &request);
    }
}

/* ------------------------------------------- the service's reading of it */

/* grader_numba_answer of `said` for exercise `id`'s request. */
static json_t *answer_for(const char *id, const char *said, bool started, char error[512])
{
    json_t *asked = request_for(id, "sm_90", error);
    json_t *line = json_loads(said, 0, NULL);
    json_t *answer = grader_numba_answer(asked, line, started, error, 512);
    json_decref(line);
    json_decref(asked);
    return answer;
}

/* grader_numba_answer of `said` for vector-add's request. */
static json_t *answer_to(const char *said, bool started, char error[512])
{
    return answer_for("vector-add", said, started, error);
}

static const char *status_of(const json_t *answer)
{
    return json_string_value(json_object_get(answer, "status"));
}

/* Before "started" only kgrade's code ran: its failure, in its words. */
static void a_failure_before_the_module_ran_is_kgrades(void **state)
{
    (void)state;
    char error[512] = "";
    assert_null(answer_to("{\"status\": \"internal_error\", \"message\": \"numba 0.99 is not "
                          "supported\"}",
                          false, error));
    assert_string_equal(error, "the Numba front end failed: numba 0.99 is not supported");
}

/* After it, "internal_error" or any status kgrade never writes is the
 * module's: a compile_error in kgrade's words, never the module's. */
static void a_forged_failure_is_the_students_compile_error(void **state)
{
    (void)state;
    static const char *const forged[] = {
        "{\"status\": \"internal_error\", \"message\": \"kgrade is down: see evil.example\"}",
        "{\"status\": \"passed\", \"message\": \"evil.example\"}",
        "{\"message\": \"evil.example\"}",
        "{\"status\": \"rejected\", \"message\": 7}",
        "{\"status\": \"ok\"}",
        "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \"p\"}, \"entries\": {\"add_kernel\": "
        "\"e\"}, \"vectorized\": {\"add_kernel\": \"yes\"}}",
        "{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \"p\"}, \"entries\": {\"add_kernel\": "
        "\"e\"}, \"reduce\": {\"add_kernel\": 1}}",
    };
    for (size_t i = 0; i < sizeof forged / sizeof *forged; i++) {
        char error[512] = "";
        json_t *answer = answer_to(forged[i], true, error);
        assert_string_equal(status_of(answer), "compile_error");
        const char *message = json_string_value(json_object_get(answer, "message"));
        assert_non_null(strstr(message, "the module wrote on kgrade's channel"));
        assert_null(strstr(message, "evil.example"));
        json_decref(answer);
    }
}

/* An ok answer holds the asked kernels only, each text within its limit. */
static void an_ok_answer_keeps_only_the_asked_kernels(void **state)
{
    (void)state;
    char error[512] = "";
    json_t *answer = answer_to("{\"status\": \"ok\", \"ptx\": {\"add_kernel\": \"p\", \"other\": "
                               "\"q\"}, \"entries\": {\"add_kernel\": \"e\", \"other\": \"f\"}, "
                               "\"numba\": \"0.56.4\", \"extra\": [1, 2]}",
                               true, error);
    assert_string_equal(status_of(answer), "ok");
    assert_int_equal(json_object_size(json_object_get(answer, "ptx")), 1);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(answer, "ptx"), "add_kernel")), "p");
    assert_true(
        json_is_false(json_object_get(json_object_get(answer, "vectorized"), "add_kernel")));
    assert_null(json_object_get(answer, "extra"));
    json_decref(answer);
    /* a PTX over 4 MB is no PTX */
    size_t huge = (4u << 20) + 1;
    char *ptx = malloc(huge + 1);
    assert_non_null(ptx);
    memset(ptx, '/', huge);
    ptx[huge] = '\0';
    json_t *asked = request_for("vector-add", "sm_90", error);
    json_t *said = json_pack("{s:s, s:{s:s}, s:{s:s}}", "status", "ok", "ptx", "add_kernel", ptx,
                             "entries", "add_kernel", "e");
    answer = grader_numba_answer(asked, said, true, error, 512);
    assert_string_equal(status_of(answer), "compile_error");
    json_decref(answer);
    json_decref(said);
    json_decref(asked);
    free(ptx);
}

/* The host form's ok keeps "form" and "function" (the exercise's) and the
 * numba version, nothing else. */
static void a_host_form_answer_keeps_the_exercises_function(void **state)
{
    (void)state;
    char error[512] = "";
    json_t *answer = answer_for("hidden-layer",
                                "{\"status\": \"ok\", \"form\": \"host\", \"function\": "
                                "\"create_hidden_layer\", \"numba\": \"0.56.4\", \"ptx\": "
                                "{\"evil\": \"p\"}, \"extra\": 1}",
                                true, error);
    assert_string_equal(status_of(answer), "ok");
    assert_string_equal(json_string_value(json_object_get(answer, "form")), "host");
    assert_string_equal(json_string_value(json_object_get(answer, "function")),
                        "create_hidden_layer");
    assert_string_equal(json_string_value(json_object_get(answer, "numba")), "0.56.4");
    assert_int_equal(json_object_size(answer), 4);
    json_decref(answer);
}

/* "form" and "function" other than "host" and the exercise's function are
 * dropped: without the kernels' PTX, the module wrote on the channel. */
static void a_host_form_claimed_otherwise_is_dropped(void **state)
{
    (void)state;
    static const char *const claims[][2] = {
        {"hidden-layer",
         "{\"status\": \"ok\", \"form\": \"host\", \"function\": \"hidden_layer\"}"},
        {"hidden-layer", "{\"status\": \"ok\", \"form\": \"kernel\", \"function\": "
                         "\"create_hidden_layer\"}"},
        {"hidden-layer", "{\"status\": \"ok\", \"form\": \"host\"}"},
        {"hidden-layer", "{\"status\": \"ok\", \"form\": \"host\", \"function\": 7}"},
        {"vector-add", "{\"status\": \"ok\", \"form\": \"host\", \"function\": "
                       "\"create_hidden_layer\"}"},
    };
    for (size_t i = 0; i < sizeof claims / sizeof *claims; i++) {
        char error[512] = "";
        json_t *answer = answer_for(claims[i][0], claims[i][1], true, error);
        assert_string_equal(status_of(answer), "compile_error");
        assert_null(json_object_get(answer, "form"));
        json_decref(answer);
    }
    /* the kernel form's ok for an exercise with a host form: no form */
    char error[512] = "";
    json_t *answer = answer_for("hidden-layer",
                                "{\"status\": \"ok\", \"ptx\": {\"hidden_layer\": \"p\"}, "
                                "\"entries\": {\"hidden_layer\": \"e\"}, \"form\": \"host\", "
                                "\"function\": \"evil\"}",
                                true, error);
    assert_string_equal(status_of(answer), "ok");
    assert_null(json_object_get(answer, "form"));
    assert_null(json_object_get(answer, "function"));
    json_decref(answer);
}

/* A sentence over its limit is cut at a character, not refused: numba's
 * long errors in French or Italian are the student's, not tampering. */
static void a_long_sentence_is_cut_at_a_character(void **state)
{
    (void)state;
    char error[512] = "";
    char said[2048] = "{\"status\": \"compile_error\", \"message\": \"";
    for (int i = 0; i < 300; i++)
        strcat(said, "\xc3\xa9"); /* é: 600 bytes */
    strcat(said, "\"}");
    json_t *answer = answer_to(said, true, error);
    assert_string_equal(status_of(answer), "compile_error");
    const char *message = json_string_value(json_object_get(answer, "message"));
    assert_int_equal(strlen(message), 400);
    assert_int_equal((unsigned char)message[398], 0xc3);
    json_decref(answer);
}

/* A compile error keeps the module's sentence, log and position. */
static void a_compile_error_answer_keeps_its_sentence(void **state)
{
    (void)state;
    char error[512] = "";
    json_t *answer = answer_to("{\"status\": \"compile_error\", \"message\": \"NameError: x\", "
                               "\"log\": \"all of it\", \"line\": 3, \"column\": -2}",
                               true, error);
    assert_string_equal(status_of(answer), "compile_error");
    assert_string_equal(json_string_value(json_object_get(answer, "message")), "NameError: x");
    assert_string_equal(json_string_value(json_object_get(answer, "log")), "all of it");
    assert_int_equal(json_integer_value(json_object_get(answer, "line")), 3);
    assert_null(json_object_get(answer, "column"));
    json_decref(answer);
}

/* ----------------------------------------------------------- numba's ABI */

static void arrays_are_packed_as_numba_passes_them(void **state)
{
    (void)state;
    struct exercise e;
    char error[512];
    assert_true(exercise_load("exercises/transpose", &e, error, sizeof error));
    struct exercise_case c = {.values = {3, 5}}; /* rows, cols */
    struct expr_binding bindings[EXERCISE_SIZES_MAX];
    struct expr_env env;
    exercise_env(&e, &c, bindings, &env);
    CUdeviceptr current[EXERCISE_BUFFERS_MAX] = {0x1000, 0x2000};
    unsigned char scalars[EXERCISE_SCALARS_MAX][8] = {{0}};
    uint64_t values[NUMBA_ARGS_MAX];
    void *args[NUMBA_ARGS_MAX] = {0};
    numba_kernel_args(&e, 0, &env, current, scalars, values, args);
    /* a (rows × cols) then transposed (cols × rows): 9 values each */
    const uint64_t a[] = {0, 0, 15, 4, 0x1000, 3, 5, 20, 4};
    const uint64_t t[] = {0, 0, 15, 4, 0x2000, 5, 3, 12, 4};
    for (int i = 0; i < 9; i++) {
        assert_int_equal(*(uint64_t *)args[i], a[i]);
        assert_int_equal(*(uint64_t *)args[9 + i], t[i]);
    }
    assert_null(args[18]);
}

static void numbas_reduction_kernel_takes_two_arrays_its_init_and_a_flag(void **state)
{
    (void)state;
    struct exercise e;
    char error[512];
    assert_true(exercise_load("exercises/reduce-sum", &e, error, sizeof error));
    struct kernel_params p;
    kernel_params_layout(&e, 0, KERNEL_FORM_NUMBA_REDUCE, &p);
    assert_int_equal(p.count, 16); /* arr, partials: 7 values each; init; use_init */
    assert_int_equal(p.size[14], 4);
    assert_int_equal(p.offset[14], 112);
    assert_int_equal(p.size[15], 1);
    assert_int_equal(p.offset[15], 116);
    assert_int_equal(p.bytes, 117);
    uint64_t fields[7];
    numba_array_1d(4, 65, 0x3000, fields);
    const uint64_t view[] = {0, 0, 65, 4, 0x3000, 65, 4};
    for (int i = 0; i < 7; i++)
        assert_int_equal(fields[i], view[i]);
}

static void scalars_are_passed_as_themselves(void **state)
{
    (void)state;
    struct exercise e;
    char error[512];
    assert_true(exercise_load("exercises/histogram", &e, error, sizeof error));
    struct exercise_case c = {.values = {100}};
    struct expr_binding bindings[EXERCISE_SIZES_MAX];
    struct expr_env env;
    exercise_env(&e, &c, bindings, &env);
    CUdeviceptr current[EXERCISE_BUFFERS_MAX] = {0x1000, 0x2000};
    unsigned char scalars[EXERCISE_SCALARS_MAX][8] = {{0}};
    uint64_t values[NUMBA_ARGS_MAX];
    void *args[NUMBA_ARGS_MAX] = {0};
    numba_kernel_args(&e, 0, &env, current, scalars, values, args);
    /* cuda_histogram(x, xmin, xmax, histogram_out): 7 + 1 + 1 + 7 */
    assert_int_equal(*(uint64_t *)args[2], 100);
    assert_ptr_equal(args[7], scalars[exercise_scalar_index(&e, "xmin")]);
    assert_ptr_equal(args[8], scalars[exercise_scalar_index(&e, "xmax")]);
    assert_int_equal(*(uint64_t *)args[12], 4);      /* int32 bins */
    assert_int_equal(*(uint64_t *)args[13], 0x2000); /* their data */
    assert_int_equal(*(uint64_t *)args[15], 4);      /* their stride */
    assert_null(args[16]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_request_carries_the_form_and_the_devices_capability),
        cmocka_unit_test(the_request_names_the_host_forms_function),
        cmocka_unit_test(a_reference_without_architecture_is_refused),
        cmocka_unit_test(elementwise_means_same_length_arrays_with_the_output_last),
        cmocka_unit_test(a_gufunc_fits_a_form_of_arrays_with_the_output_last),
        cmocka_unit_test(a_reduction_fits_one_array_into_a_one_element_output),
        cmocka_unit_test(an_ok_result_gives_each_kernel_its_ptx_and_entry),
        cmocka_unit_test(a_compile_error_keeps_its_line_column_and_log),
        cmocka_unit_test(a_refusal_is_rejected_with_its_sentence),
        cmocka_unit_test(a_result_that_is_not_valid_is_refused),
        cmocka_unit_test(a_failure_before_the_module_ran_is_kgrades),
        cmocka_unit_test(a_forged_failure_is_the_students_compile_error),
        cmocka_unit_test(an_ok_answer_keeps_only_the_asked_kernels),
        cmocka_unit_test(a_compile_error_answer_keeps_its_sentence),
        cmocka_unit_test(a_host_form_answer_keeps_the_exercises_function),
        cmocka_unit_test(a_host_form_claimed_otherwise_is_dropped),
        cmocka_unit_test(a_long_sentence_is_cut_at_a_character),
        cmocka_unit_test(arrays_are_packed_as_numba_passes_them),
        cmocka_unit_test(numbas_reduction_kernel_takes_two_arrays_its_init_and_a_flag),
        cmocka_unit_test(scalars_are_passed_as_themselves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
