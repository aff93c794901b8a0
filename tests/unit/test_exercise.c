/*
 * Unit tests of the exercise loader: a complete exercise.json read field by
 * field, the bundled exercises, and every malformed field refused with the
 * file, the field and what is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/exercise.h"
#include "grader/grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A valid exercise; the malformed cases replace one piece of it. */
#define VALID_HEADER                                                                               \
    "\"id\": \"demo\", \"title\": \"Demo\", \"course\": \"c\", \"assessment\": true, "             \
    "\"sizes\": [\"rows\", \"cols\"], "                                                            \
    "\"correctness\": [{\"rows\": 3, \"cols\": 5}, {\"rows\": 33, \"cols\": 31}], "                \
    "\"assessed\": {\"rows\": 1000, \"cols\": 1000}, "
#define VALID_BUFFERS                                                                              \
    "\"buffers\": ["                                                                               \
    "{\"name\": \"in\", \"type\": \"f32\", \"length\": \"rows * cols\", "                          \
    "\"input\": {\"distribution\": \"normal\", \"a\": 0, \"b\": 1}}, "                             \
    "{\"name\": \"tmp\", \"type\": \"f32\", \"length\": \"rows * cols\", "                         \
    "\"input\": {\"distribution\": \"zero\"}}, "                                                   \
    "{\"name\": \"out\", \"type\": \"f32\", \"length\": \"rows * cols\", \"columns\": \"rows\", "  \
    "\"output\": {\"initial\": \"poison\", \"check\": {\"rtol\": 1e-5, \"atol\": 1e-6}}}], "
#define VALID_REST                                                                                 \
    "\"scalars\": [{\"name\": \"r\", \"type\": \"i32\", \"value\": \"rows\"}, "                    \
    "{\"name\": \"scale\", \"type\": \"f32\", \"value\": 0.5}], "                                  \
    "\"kernels\": [{\"name\": \"step\", \"params\": [\"in\", \"out\", \"r\", \"scale\"]}], "       \
    "\"launches\": [{\"kernel\": \"step\", \"grid\": [\"ceil_div(cols, 32)\", "                    \
    "\"ceil_div(rows, 32)\"], \"block\": [32, 8], \"repeat\": 4, \"swap\": [\"in\", \"tmp\"]}], "  \
    "\"speed\": {\"max_ratio\": 1.25}"

static const char valid[] = "{" VALID_HEADER VALID_BUFFERS VALID_REST "}";

static bool parse(const char *text, struct exercise *e, char *error)
{
    return exercise_parse(text, strlen(text), "demo/exercise.json", e, error, 512);
}

static void a_complete_exercise_is_read(void **state)
{
    (void)state;
    struct exercise e;
    char error[512] = "";
    if (!parse(valid, &e, error))
        fail_msg("%s", error);
    assert_string_equal(e.id, "demo");
    assert_true(e.assessment);
    assert_int_equal(e.n_sizes, 2);
    assert_int_equal(e.n_cases, 2);
    assert_int_equal(e.cases[1].values[0], 33);
    assert_int_equal(e.assessed.values[1], 1000);
    assert_int_equal(e.n_buffers, 3);
    assert_int_equal(e.buffers[0].content.distribution, INPUT_NORMAL);
    assert_true(e.buffers[2].is_output);
    assert_int_equal(e.buffers[2].content.distribution, INPUT_POISON);
    assert_int_equal(e.buffers[2].check.kind, CHECK_TOLERANCE);
    assert_true(e.buffers[2].check.rtol == 1e-5);
    assert_string_equal(e.buffers[2].columns, "rows");
    assert_int_equal(e.n_scalars, 2);
    assert_string_equal(e.scalars[1].value, "0.5");
    assert_int_equal(e.kernels[0].n_params, 4);
    assert_string_equal(e.launches[0].grid[1], "ceil_div(rows, 32)");
    assert_string_equal(e.launches[0].grid[2], "1");
    assert_string_equal(e.launches[0].block[0], "32");
    assert_string_equal(e.launches[0].repeat, "4");
    assert_int_equal(e.launches[0].swap[0], 0);
    assert_int_equal(e.launches[0].swap[1], 1);
    assert_true(e.max_ratio == 1.25);
    struct expr_binding b[EXERCISE_SIZES_MAX];
    struct expr_env env;
    int64_t v;
    exercise_env(&e, &e.assessed, b, &env);
    assert_true(expr_eval("rows * cols", &env, &v, error, sizeof error));
    assert_int_equal(v, 1000000);
}

static void the_bundled_exercises_load(void **state)
{
    (void)state;
    struct exercise e;
    char error[512] = "";
    if (!exercise_load("exercises/vector-add", &e, error, sizeof error))
        fail_msg("%s", error);
    assert_string_equal(e.kernels[0].name, "vector_add");
    assert_string_equal(e.folder, "exercises/vector-add");
}

/* `text` must be refused with `needle` in the message. */
static void refused(const char *text, const char *needle)
{
    struct exercise e;
    char error[512] = "";
    if (parse(text, &e, error) || !strstr(error, needle) ||
        strncmp(error, "demo/exercise.json: ", 20) != 0)
        fail_msg("wanted an error with '%s' for\n%s\ngot '%s'", needle, text, error);
}

/* The valid exercise with `from` replaced by `to`. */
static void refused_with(const char *from, const char *to, const char *needle)
{
    char text[sizeof valid + 512];
    const char *at = strstr(valid, from);
    if (!at)
        fail_msg("'%s' is not in the valid exercise", from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - valid), valid, to, at + strlen(from));
    refused(text, needle);
}

static void malformed_fields_are_named(void **state)
{
    (void)state;
    refused("{", "line 1");
    refused("[]", "(top): an exercise is a JSON object");
    refused_with("\"id\": \"demo\"", "\"id\": \"Demo!\"", "id: 'Demo!' may hold lowercase");
    refused_with("\"id\": \"demo\", ", "", "'id' must be a string");
    refused_with("\"title\": \"Demo\"", "\"title\": 3", "title: 'title' must be a string");
    refused_with("\"assessment\": true", "\"assessment\": \"yes\"", "assessment: must be true");
    refused_with("\"course\": \"c\"", "\"cours\": \"c\"", "unknown field 'cours'");
    refused_with("[\"rows\", \"cols\"]", "[]", "'sizes' must be an array of 1 to 8");
    refused_with("[\"rows\", \"cols\"]", "[\"rows\", \"rows\"]", "sizes[1]: 'rows' is named twice");
    refused_with("[\"rows\", \"cols\"]", "[\"2d\", \"cols\"]", "sizes[0]: a size is named by a C");
    refused_with("{\"rows\": 3, \"cols\": 5}", "{\"rows\": 3}",
                 "correctness[0]: must give exactly the sizes (2 of them)");
    refused_with("{\"rows\": 3, \"cols\": 5}", "{\"rows\": 0, \"cols\": 5}",
                 "correctness[0]: 'rows' must be a whole number from 1");
    refused_with("{\"rows\": 3, \"cols\": 5}", "{\"rows\": 3.5, \"cols\": 5}",
                 "'rows' must be a whole number");
    refused_with("\"assessed\": {\"rows\": 1000, \"cols\": 1000}", "\"assessed\": 7",
                 "assessed: must be an object");
    refused_with("\"type\": \"f32\", \"length\": \"rows * cols\", \"input\"",
                 "\"type\": \"f33\", \"length\": \"rows * cols\", \"input\"",
                 "buffers[0]: 'f33' is not a type (use i16");
    refused_with("\"length\": \"rows * cols\", \"input\": {\"distribution\": \"normal\"",
                 "\"length\": \"rows * colz\", \"input\": {\"distribution\": \"normal\"",
                 "buffers[0]: 'rows * colz': column");
    refused_with("\"length\": \"rows * cols\", \"input\": {\"distribution\": \"normal\"",
                 "\"length\": \"rows - 1000\", \"input\": {\"distribution\": \"normal\"",
                 "it must be from 1 to");
    refused_with("\"distribution\": \"normal\"", "\"distribution\": \"gauss\"",
                 "buffers[0]: 'gauss' is not a distribution");
    refused_with("\"a\": 0, \"b\": 1}", "\"a\": 0, \"b\": 0}", "needs a standard deviation");
    refused_with("\"a\": 0, \"b\": 1}", "\"a\": 0}", "'b' must be a number");
    refused_with("\"a\": 0, \"b\": 1}", "\"a\": 0, \"b\": 1, \"c\": 2}", "unknown field 'c'");
    refused_with("\"input\": {\"distribution\": \"zero\"}", "\"output\": {\"initial\": \"zero\"}",
                 "buffers[1]: 'check' is \"exact\"");
    refused_with("\"initial\": \"poison\"", "\"initial\": \"garbage\"",
                 "'initial' is \"poison\" or \"zero\"");
    refused_with("{\"rtol\": 1e-5, \"atol\": 1e-6}", "{\"rtol\": -1}", "tolerances are non-neg");
    refused_with("{\"rtol\": 1e-5, \"atol\": 1e-6}", "{\"rtoll\": 1e-5}", "unknown field 'rtoll'");
    refused_with("{\"rtol\": 1e-5, \"atol\": 1e-6}", "{\"value\": 3.14}", "'tolerance' must be");
    refused_with(
        "\"output\": {\"initial\": \"poison\", \"check\": {\"rtol\": 1e-5, \"atol\": 1e-6}}",
        "\"input\": {\"distribution\": \"zero\"}", "buffers: no buffer is an output");
    refused_with("{\"name\": \"tmp\"", "{\"name\": \"in\"", "buffers[1]: 'in' is already a name");
    refused_with("{\"name\": \"r\", \"type\": \"i32\"", "{\"name\": \"in\", \"type\": \"i32\"",
                 "scalars[0]: 'in' is already a name");
    refused_with("\"value\": \"rows\"", "\"value\": \"rows / 0\"", "division by zero");
    refused_with("\"params\": [\"in\", \"out\", \"r\", \"scale\"]",
                 "\"params\": [\"in\", \"nope\"]", "kernels[0]: params[1] must name a buffer");
    refused_with("\"kernel\": \"step\"", "\"kernel\": \"jump\"", "launches[0]: 'kernel' must name");
    refused_with("\"block\": [32, 8]", "\"block\": [32, 8, 1, 1]",
                 "'block' must be an array of 1 to 3");
    refused_with("\"block\": [32, 8]", "\"block\": [0]", "it must be from 1 to");
    refused_with("\"swap\": [\"in\", \"tmp\"]", "\"swap\": [\"in\", \"in\"]",
                 "'swap' names two different buffers");
    refused_with("\"swap\": [\"in\", \"tmp\"]", "\"swap\": [\"in\", \"zzz\"]",
                 "launches[0]: 'swap' names two different");
    refused_with("\"swap\": [\"in\", \"tmp\"]", "\"swap\": \"in\"", "'swap' names two buffers");
    refused_with("\"repeat\": 4", "\"repeat\": 0", "it must be from 1 to 1000000");
    refused_with("\"max_ratio\": 1.25", "\"max_ratio\": 0.5", "'max_ratio' is at least 1");
    refused_with("\"speed\": {\"max_ratio\": 1.25}", "\"speed\": 2", "speed: must be");
}

/* A kernel's Numba form: its parameters as the course names them, arrays
 * with their shapes, and the signature and definition the grader derives. */
static void the_numba_form_is_read(void **state)
{
    (void)state;
    static const char numba[] =
        "\"kernels\": [{\"name\": \"step\", \"params\": [\"in\", \"out\", \"r\", \"scale\"], "
        "\"numba\": {\"name\": \"tile_step\", \"params\": [{\"name\": \"in\", \"as\": \"a\", "
        "\"shape\": [\"rows\", \"cols\"]}, \"out\", \"scale\"]}}], ";
    char text[sizeof valid + 512];
    const char *from = "\"kernels\": [{\"name\": \"step\", \"params\": [\"in\", \"out\", \"r\", "
                       "\"scale\"]}], ";
    const char *at = strstr(valid, from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - valid), valid, numba, at + strlen(from));
    struct exercise e;
    char error[512] = "", signature[256], form[128];
    assert_true(parse(text, &e, error));
    assert_true(e.kernels[0].has_numba);
    assert_int_equal(e.kernels[0].numba.n_params, 3);
    assert_int_equal(e.kernels[0].numba.params[0].n_dims, 2);
    assert_int_equal(e.kernels[0].numba.params[1].n_dims, 1);
    assert_int_equal(e.kernels[0].numba.params[2].n_dims, 0);
    assert_true(exercise_numba_signature(&e, 0, signature, sizeof signature));
    assert_string_equal(signature, "void(float32[:, ::1], float32[::1], float32)");
    assert_true(exercise_numba_form(&e, 0, form, sizeof form));
    assert_string_equal(form, "tile_step(a, out, scale)");
    assert_false(exercise_numba_signature(&e, 0, signature, 10)); /* does not fit */
    /* the C form alone has no Numba form */
    assert_true(parse(valid, &e, error));
    assert_false(e.kernels[0].has_numba);
    const char *bad[][2] = {
        {"\"numba\": {\"name\": \"k\", \"params\": [\"nothing\"]}", "'nothing' names no buffer"},
        {"\"numba\": {\"name\": \"k\", \"params\": [{\"name\": \"in\", \"shape\": [\"rows\"]}]}",
         "the shape of 'in' has 3 elements, its buffer 15"},
        {"\"numba\": {\"name\": \"k\", \"params\": [{\"name\": \"r\", \"shape\": [1]}]}",
         "a scalar has no shape"},
        {"\"numba\": {\"name\": \"k\", \"params\": [], \"extra\": 1}", "unknown field 'extra'"},
        {"\"numba\": {\"name\": \"k!\", \"params\": []}", "'name' must be a C identifier"},
        {"\"numba\": {\"name\": \"k\", \"params\": [{\"name\": \"in\", \"shape\": [1, 2, 3]}]}",
         "an array of 1 or 2 size expressions"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char kernels[256];
        snprintf(kernels, sizeof kernels,
                 "\"kernels\": [{\"name\": \"step\", \"params\": [\"in\", \"out\", \"r\", "
                 "\"scale\"], %s}], ",
                 bad[i][0]);
        refused_with(from, kernels, bad[i][1]);
    }
}

/* A kernel's alternative: a C identifier other than the kernel's name. */
static void the_alternative_is_read(void **state)
{
    (void)state;
    const char *from = "\"kernels\": [{\"name\": \"step\", ";
    char text[sizeof valid + 128];
    const char *at = strstr(valid, from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s\"alternative\": \"step_f64\", %s", (int)(at - valid), valid,
             from, at + strlen(from));
    struct exercise e;
    char error[512] = "";
    if (!parse(text, &e, error))
        fail_msg("%s", error);
    assert_string_equal(e.kernels[0].alternative, "step_f64");
    assert_true(exercise_has_alternative(&e));
    assert_true(parse(valid, &e, error));
    assert_string_equal(e.kernels[0].alternative, "");
    assert_false(exercise_has_alternative(&e));
    char with[96];
    snprintf(with, sizeof with, "%s\"alternative\": \"step\", ", from);
    refused_with(from, with, "'alternative' names another kernel of reference.cu than 'step'");
    snprintf(with, sizeof with, "%s\"alternative\": \"step-2\", ", from);
    refused_with(from, with, "'alternative' must be a C identifier");
}

static void the_folder_must_match_the_id(void **state)
{
    (void)state;
    char folder[] = "/tmp/kgrade-test-exercise-XXXXXX";
    assert_non_null(mkdtemp(folder));
    char path[256];
    snprintf(path, sizeof path, "%s/exercise.json", folder);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(valid, f);
    fclose(f);
    struct exercise e;
    char error[512] = "";
    assert_false(exercise_load(folder, &e, error, sizeof error));
    assert_non_null(strstr(error, "id: 'demo' must be the folder's name"));
    remove(path);
    rmdir(folder);
    assert_false(exercise_load("/nonexistent", &e, error, sizeof error));
    assert_non_null(strstr(error, "/nonexistent/exercise.json: cannot be read"));
}

/* "numba_host": the function, its arguments in order and the output it
 * returns; each malformed piece refused with the field and what to do. */
static void the_host_form_is_read(void **state)
{
    (void)state;
    static const char host[] = ", \"numba_host\": {\"function\": \"create_layer\", "
                               "\"arguments\": [\"rows\", \"in\", \"exp\"], \"returns\": \"out\"}";
    char text[sizeof valid + sizeof host];
    snprintf(text, sizeof text, "%.*s%s}", (int)sizeof valid - 2, valid, host);
    struct exercise e;
    char error[512] = "";
    assert_true(parse(text, &e, error));
    assert_true(e.has_numba_host);
    assert_string_equal(e.numba_host.function, "create_layer");
    assert_int_equal(e.numba_host.argument_count, 3);
    assert_string_equal(e.numba_host.returns, "out");
    int index;
    assert_int_equal(exercise_host_argument(&e, 0, &index), HOST_ARGUMENT_SIZE);
    assert_int_equal(index, 0);
    assert_int_equal(exercise_host_argument(&e, 1, &index), HOST_ARGUMENT_BUFFER);
    assert_int_equal(index, 0);
    assert_int_equal(exercise_host_argument(&e, 2, &index), HOST_ARGUMENT_MODULE);
    char form[EXERCISE_HOST_FORM_MAX];
    assert_true(exercise_numba_host_form(&e, form, sizeof form));
    assert_string_equal(form, "create_layer(rows, in, exp)");
    assert_false(exercise_numba_host_form(&e, form, 20)); /* does not fit */
    assert_true(parse(valid, &e, error));
    assert_false(e.has_numba_host);
    assert_false(exercise_numba_host_form(&e, form, sizeof form)); /* none declared */
    static const char *const bad[][2] = {
        {"\"returns\": \"out\"", "\"returns\": \"in\"}"},
        {"\"returns\": \"out\"", "\"returns\": \"zzz\"}"},
        {"\"function\": \"create_layer\"", "\"function\": \"create-layer\""},
        {"\"arguments\": [\"rows\", \"in\", \"exp\"]", "\"arguments\": [\"rows\", \"out\"]"},
        {"\"arguments\": [\"rows\", \"in\", \"exp\"]", "\"arguments\": [\"r\"]"},
        {"\"arguments\": [\"rows\", \"in\", \"exp\"]", "\"arguments\": [\"in\", \"in\"]"},
        {"\"arguments\": [\"rows\", \"in\", \"exp\"]", "\"arguments\": \"rows\""},
        {"\"returns\": \"out\"", "\"returns\": \"out\", \"kernel\": 1}"},
    };
    static const char *const why[] = {
        "numba_host.returns: 'in' names no output buffer",
        "numba_host.returns: 'zzz' names no output buffer",
        "numba_host.function: must be a Python identifier",
        "numba_host.arguments[1]: 'out' is an output buffer: the function returns it",
        "numba_host.arguments[0]: 'r' is a scalar: pass a size or an input buffer",
        "numba_host.arguments[1]: 'in' is passed twice",
        "numba_host: 'arguments' must be an array of at most 16 names",
        "numba_host: unknown field 'kernel'",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char broken[sizeof text + 64];
        const char *at = strstr(text, bad[i][0]);
        assert_non_null(at);
        size_t tail = strlen(bad[i][0]) + (bad[i][1][strlen(bad[i][1]) - 1] == '}' ? 1 : 0);
        snprintf(broken, sizeof broken, "%.*s%s%s", (int)(at - text), text, bad[i][1], at + tail);
        refused(broken, why[i]);
    }
}

/* A file of the exercise folder `folder`/demo. */
static void write_file(const char *folder, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/demo/%s", folder, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *folder, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/demo/%s", folder, name);
    remove(path);
}

/* The trusted side reads reference_host.py when the exercise declares a
 * host form: required then, and part of the exercise's version. */
static void the_host_reference_is_read(void **state)
{
    (void)state;
    char folder[] = "/tmp/kgrade-test-host-XXXXXX", path[256];
    assert_non_null(mkdtemp(folder));
    snprintf(path, sizeof path, "%s/demo", folder);
    assert_int_equal(mkdir(path, 0700), 0);
    write_file(folder, "exercise.json", "{\"id\": \"demo\", \"numba_host\": {}}");
    write_file(folder, "reference.cu", "// reference");
    struct grader_exercise_files files;
    char error[512] = "";
    assert_false(grader_exercise_read(folder, "demo", &files, error, sizeof error));
    assert_non_null(strstr(error, "demo/reference_host.py: cannot be read"));
    write_file(folder, "reference_host.py", "def f(): pass\n");
    assert_true(grader_exercise_read(folder, "demo", &files, error, sizeof error));
    assert_string_equal(files.host_reference, "def f(): pass\n");
    char version[sizeof files.version];
    memcpy(version, files.version, sizeof version);
    grader_exercise_files_free(&files);
    write_file(folder, "reference_host.py", "def f(): return 1\n");
    assert_true(grader_exercise_read(folder, "demo", &files, error, sizeof error));
    assert_string_not_equal(files.version, version);
    grader_exercise_files_free(&files);
    write_file(folder, "exercise.json", "{\"id\": \"demo\"}"); /* no host form: not read */
    assert_true(grader_exercise_read(folder, "demo", &files, error, sizeof error));
    assert_null(files.host_reference);
    grader_exercise_files_free(&files);
    remove_file(folder, "exercise.json");
    remove_file(folder, "reference.cu");
    remove_file(folder, "reference_host.py");
    rmdir(path);
    rmdir(folder);
}

/* "opens" and "deadline": read as instants; a bad one refused with its key. */
static void dates_are_read_and_checked(void **state)
{
    (void)state;
    char text[sizeof valid + 512], error[512] = "";
    struct exercise e;
    const char *at = strstr(valid, "\"sizes\"");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - valid), valid,
             "\"opens\": \"2026-09-01T00:00:00+02:00\", \"deadline\": \"2027-01-15T23:59:00Z\", ",
             at);
    if (!parse(text, &e, error))
        fail_msg("%s", error);
    assert_true(e.dates.has_opens && e.dates.has_deadline);
    assert_int_equal(e.dates.opens_ms, INT64_C(1788213600000));
    assert_true(parse(valid, &e, error));
    assert_false(e.dates.has_opens || e.dates.has_deadline);
    refused_with("\"assessment\": true", "\"assessment\": true, \"deadline\": \"2026-12-15T23:59\"",
                 "demo/exercise.json: deadline: '2026-12-15T23:59' has no time zone");
    refused_with("\"assessment\": true", "\"assessment\": true, \"opens\": \"2026-02-30T00:00Z\"",
                 "opens: '2026-02-30T00:00Z' names no such day");
    refused_with("\"assessment\": true", "\"assessment\": true, \"opens\": 20260901",
                 "opens: must be a string");
    refused_with("\"assessment\": true",
                 "\"assessment\": true, \"opens\": \"2027-01-01T00:00Z\", \"deadline\": "
                 "\"2026-12-01T00:00Z\"",
                 "deadline: must come after 'opens'");
}

/* A course's dates come back in UTC; a bad one names the file and the key. */
/* A course file's text with `extra` keys at its end. */
static json_t *course_with(const char *extra)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"id\": \"c\", \"title\": \"C\", \"sections\": [{\"title\": \"1\", "
             "\"exercises\": [\"a\"]}], \"assessments\": [\"a\"]%s}",
             extra);
    return grader_course_parse(text, strlen(text), "c");
}

/* A course's dates come back in UTC; a bad one names the file and the key. */
static void course_dates_are_read_and_checked(void **state)
{
    (void)state;
    json_t *c = course_with(
        ", \"opens\": \"2026-09-01T02:00:00+02:00\", \"deadline\": \"2027-01-15T23:59:00Z\"");
    assert_null(json_object_get(c, "error"));
    assert_string_equal(json_string_value(json_object_get(c, "opens")), "2026-09-01T00:00:00.000Z");
    json_decref(c);
    c = course_with("");
    assert_true(json_is_null(json_object_get(c, "deadline")));
    json_decref(c);
    c = course_with(", \"deadline\": \"2027-01-15 23:59\"");
    assert_non_null(strstr(json_string_value(json_object_get(c, "error")),
                           "courses/c.json: deadline: '2027-01-15 23:59' is not a date-time"));
    json_decref(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_complete_exercise_is_read),
        cmocka_unit_test(the_bundled_exercises_load),
        cmocka_unit_test(malformed_fields_are_named),
        cmocka_unit_test(the_numba_form_is_read),
        cmocka_unit_test(the_alternative_is_read),
        cmocka_unit_test(the_host_form_is_read),
        cmocka_unit_test(the_host_reference_is_read),
        cmocka_unit_test(the_folder_must_match_the_id),
        cmocka_unit_test(dates_are_read_and_checked),
        cmocka_unit_test(course_dates_are_read_and_checked),
    };
    return cmocka_run_group_tests_name("exercise", tests, NULL, NULL);
}
