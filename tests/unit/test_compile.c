/*
 * Unit tests of grader_compile(): real NVRTC compiles of small sources, each
 * checking one promise of grader.h (PTX and kernels, register counts,
 * diagnostics at the right line and column, rejections, internal errors).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/grader.h"

#include <stdlib.h>
#include <string.h>

/* Compiles a NUL-terminated source with the default options but a known file name. */
static enum grader_compile_status compile_text(const char *source, const char *arch,
                                               struct grader_compile_result *r)
{
    struct grader_compile_options options = {.arch = arch, .file_name = "student.cu"};
    return grader_compile(source, strlen(source), &options, r);
}

static const struct grader_diagnostic *find_diagnostic(const struct grader_compile_result *r,
                                                       enum grader_severity severity, int line)
{
    for (size_t i = 0; i < r->n_diagnostics; i++)
        if (r->diagnostics[i].severity == severity && r->diagnostics[i].line == line)
            return &r->diagnostics[i];
    return NULL;
}

static const char *const vector_add =
    "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

static void valid_kernel_yields_ptx_entry_and_registers(void **state)
{
    (void)state;
    struct grader_compile_result r;
    assert_int_equal(compile_text(vector_add, "sm_90", &r), GRADER_COMPILE_OK);
    assert_non_null(r.ptx);
    assert_int_equal(strlen(r.ptx), r.ptx_size);
    assert_non_null(strstr(r.ptx, ".entry vector_add("));
    assert_non_null(strstr(r.ptx, ".target sm_90"));
    assert_int_equal(r.n_kernels, 1);
    assert_string_equal(r.kernels[0].name, "vector_add");
    assert_string_equal(r.kernels[0].signature, "vector_add");
    assert_in_range(r.kernels[0].registers, 1, 255);
    assert_int_equal(grader_count_diagnostics(&r, GRADER_SEVERITY_ERROR), 0);
    assert_string_equal(r.message, "compiled: 1 kernel, 0 warnings");
    grader_compile_result_free(&r);
}

static void virtual_arch_gives_ptx_without_registers(void **state)
{
    (void)state;
    struct grader_compile_result r;
    assert_int_equal(compile_text(vector_add, "compute_90", &r), GRADER_COMPILE_OK);
    assert_non_null(strstr(r.ptx, ".entry vector_add("));
    assert_int_equal(r.n_kernels, 1);
    assert_int_equal(r.kernels[0].registers, -1);
    grader_compile_result_free(&r);
}

static void mangled_kernels_are_demangled_with_their_own_registers(void **state)
{
    (void)state;
    const char *source = "__global__ void light(int *x) { x[threadIdx.x] = 1; }\n"
                         "__global__ void heavy(double *x, int n)\n"
                         "{\n"
                         "    double s = 0;\n"
                         "    for (int i = 0; i < n; i++) s += sin(x[i]) * cos(x[i + n]);\n"
                         "    x[threadIdx.x] = s;\n"
                         "}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_OK);
    assert_int_equal(r.n_kernels, 2);
    const struct grader_kernel *light = NULL, *heavy = NULL;
    for (size_t i = 0; i < r.n_kernels; i++) {
        if (strcmp(r.kernels[i].signature, "light(int*)") == 0)
            light = &r.kernels[i];
        if (strcmp(r.kernels[i].signature, "heavy(double*, int)") == 0)
            heavy = &r.kernels[i];
    }
    assert_non_null(light);
    assert_non_null(heavy);
    assert_string_equal(light->name, "_Z5lightPi");
    /* Each kernel gets its own count: the double-precision loop needs more. */
    assert_true(light->registers > 0);
    assert_true(heavy->registers > light->registers);
    grader_compile_result_free(&r);
}

static void undeclared_identifier_on_line_4_is_an_error_at_line_4(void **state)
{
    (void)state;
    const char *source = "extern \"C\" __global__ void k(float *a, int n)\n"
                         "{\n"
                         "    int i = threadIdx.x;\n"
                         "    a[i] = undeclared_thing + 1.0f;\n"
                         "}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_ERROR);
    assert_null(r.ptx);
    const struct grader_diagnostic *d = find_diagnostic(&r, GRADER_SEVERITY_ERROR, 4);
    assert_non_null(d);
    /* "    a[i] = undeclared_thing": the identifier starts at column 12. */
    assert_int_equal(d->column, 12);
    assert_string_equal(d->message, "identifier \"undeclared_thing\" is undefined");
    assert_non_null(strstr(r.log, "student.cu(4): error"));
    assert_non_null(strstr(r.message, "line 4"));
    assert_non_null(strstr(r.message, "undeclared_thing"));
    grader_compile_result_free(&r);
}

static void missing_semicolon_is_reported_on_the_next_line(void **state)
{
    (void)state;
    const char *source = "__global__ void k(float *a)\n"
                         "{\n"
                         "    float x = 1.0f\n"
                         "    a[0] = x;\n"
                         "}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_ERROR);
    const struct grader_diagnostic *d = find_diagnostic(&r, GRADER_SEVERITY_ERROR, 4);
    assert_non_null(d);
    assert_int_equal(d->column, 5);
    assert_string_equal(d->message, "expected a \";\"");
    grader_compile_result_free(&r);
}

static void column_counts_tabs_and_characters(void **state)
{
    (void)state;
    /* A tab is one column; "é" is one character in two bytes. */
    const char *source = "__global__ void k(int *a)\n"
                         "{\n"
                         "\tconst char *s = \"\xc3\xa9t\xc3\xa9\"; a[0] = s[0] + zz;\n"
                         "}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_ERROR);
    const struct grader_diagnostic *d = find_diagnostic(&r, GRADER_SEVERITY_ERROR, 3);
    assert_non_null(d);
    /* "\tconst char *s = "été"; a[0] = s[0] + " is 38 characters, so zz is at 39. */
    assert_int_equal(d->column, 39);
    grader_compile_result_free(&r);
}

static void warnings_are_kept_as_warnings(void **state)
{
    (void)state;
    const char *source = "__global__ void k(int *a)\n"
                         "{\n"
                         "    int unused_var = 3;\n"
                         "    a[0] = 1;\n"
                         "}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_OK);
    assert_non_null(r.ptx);
    const struct grader_diagnostic *d = find_diagnostic(&r, GRADER_SEVERITY_WARNING, 3);
    assert_non_null(d);
    assert_int_equal(d->column, 9);
    assert_string_equal(d->message, "variable \"unused_var\" was declared but never referenced");
    assert_int_equal(grader_count_diagnostics(&r, GRADER_SEVERITY_ERROR), 0);
    assert_string_equal(r.message, "compiled: 1 kernel, 1 warning");
    grader_compile_result_free(&r);
}

static void empty_source_is_rejected(void **state)
{
    (void)state;
    struct grader_compile_result r;
    assert_int_equal(grader_compile("", 0, NULL, &r), GRADER_COMPILE_REJECTED);
    assert_non_null(strstr(r.message, "empty"));
    assert_null(r.ptx);
    assert_string_equal(r.log, "");
    grader_compile_result_free(&r);
    assert_int_equal(grader_compile(" \n\t\n", 4, NULL, &r), GRADER_COMPILE_REJECTED);
    assert_non_null(strstr(r.message, "empty"));
    grader_compile_result_free(&r);
}

static void source_with_nul_byte_is_rejected_naming_the_line(void **state)
{
    (void)state;
    const char source[] = "__global__ void k(int *a)\n{\n    a[0] = 1;\0 a[1] = 2;\n}\n";
    struct grader_compile_result r;
    assert_int_equal(grader_compile(source, sizeof source - 1, NULL, &r), GRADER_COMPILE_REJECTED);
    assert_non_null(strstr(r.message, "NUL byte on line 3"));
    grader_compile_result_free(&r);
}

static void source_need_not_be_nul_terminated(void **state)
{
    (void)state;
    /* The buffer goes on past `size` with text that would not compile. */
    char buffer[256];
    const char *good = "__global__ void k(int *a) { a[0] = 1; }\n";
    size_t n = strlen(good);
    memcpy(buffer, good, n);
    memset(buffer + n, '#', sizeof buffer - n);
    struct grader_compile_result r;
    assert_int_equal(grader_compile(buffer, n, NULL, &r), GRADER_COMPILE_OK);
    grader_compile_result_free(&r);
}

static void bad_option_is_an_internal_error(void **state)
{
    (void)state;
    const char *extra[] = {"--no-such-option"};
    struct grader_compile_options options = {.extra = extra, .n_extra = 1};
    struct grader_compile_result r;
    assert_int_equal(grader_compile(vector_add, strlen(vector_add), &options, &r),
                     GRADER_COMPILE_INTERNAL);
    assert_non_null(strstr(r.message, "no-such-option"));
    grader_compile_result_free(&r);
}

static void extra_options_reach_nvrtc(void **state)
{
    (void)state;
    const char *extra[] = {"-lineinfo"};
    struct grader_compile_options options = {
        .arch = "compute_90", .file_name = "student.cu", .extra = extra, .n_extra = 1};
    struct grader_compile_result r;
    assert_int_equal(grader_compile(vector_add, strlen(vector_add), &options, &r),
                     GRADER_COMPILE_OK);
    assert_non_null(strstr(r.ptx, ".loc"));
    grader_compile_result_free(&r);
}

static void ptxas_error_has_no_line_and_says_ptxas(void **state)
{
    (void)state;
    /* 400,000 bytes of static shared memory: over the 48 KB a block may have. */
    const char *source = "__global__ void k(int *a)\n"
                         "{\n"
                         "    __shared__ int s[100000];\n"
                         "    s[threadIdx.x] = a[threadIdx.x];\n"
                         "    __syncthreads();\n"
                         "    a[0] = s[a[1]];\n"
                         "}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, "sm_90", &r), GRADER_COMPILE_ERROR);
    assert_int_equal(r.n_diagnostics, 1);
    assert_int_equal(r.diagnostics[0].line, 0);
    assert_int_equal(r.diagnostics[0].severity, GRADER_SEVERITY_ERROR);
    assert_non_null(strstr(r.diagnostics[0].message, "ptxas: "));
    assert_non_null(strstr(r.diagnostics[0].message, "too much shared data"));
    grader_compile_result_free(&r);
}

static void missing_include_is_an_error_at_its_line(void **state)
{
    (void)state;
    const char *source = "// a kernel\n#include \"no_such_header.h\"\n__global__ void k() {}\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_ERROR);
    const struct grader_diagnostic *d = find_diagnostic(&r, GRADER_SEVERITY_ERROR, 2);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "cannot open source file"));
    grader_compile_result_free(&r);
}

/* What nvcc would accept: the C and C++ headers kgrade supplies, the
 * toolkit's own, int64_t as on 64-bit Linux (long), and std:: math that
 * `using namespace std` does not make ambiguous. */
static void standard_and_toolkit_headers_compile(void **state)
{
    (void)state;
    const char *source =
        "#include <cstdio>\n#include <stdio.h>\n#include <cstdlib>\n#include <cassert>\n"
        "#include <cstdint>\n#include <stdint.h>\n#include <cmath>\n#include <math.h>\n"
        "#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n"
        "using namespace std;\n"
        "__global__ void k(int64_t n, float *out)\n"
        "{\n"
        "    std::uint32_t u = UINT32_MAX; int8_t s = INT8_MIN;\n"
        "    float x = exp(1.0f) + std::sqrt(2.0f) + std::tanh(0.5f) + fabs(-1.0f) + (float)M_PI;\n"
        "    assert(n > 0);\n"
        "    if (isnan(x) || std::isinf(x)) printf(\"%f %u %d\\n\", x, u, s);\n"
        "    out[0] = x + __half2float(__float2half(1.0f)) + INFINITY;\n"
        "}\n";
    struct grader_compile_result r;
    enum grader_compile_status status = compile_text(source, "sm_90", &r);
    if (status != GRADER_COMPILE_OK)
        fail_msg("%s\n%s", r.message, r.log);
    assert_int_equal(r.n_kernels, 1);
    assert_string_equal(r.kernels[0].signature, "k(long, float*)");
    grader_compile_result_free(&r);
}

static void template_error_keeps_its_instantiation_context(void **state)
{
    (void)state;
    const char *source = "template <class T> __device__ T f(T x) { return x.foo; }\n"
                         "__global__ void k(int *a) { a[0] = f(a[1]); }\n";
    struct grader_compile_result r;
    assert_int_equal(compile_text(source, NULL, &r), GRADER_COMPILE_ERROR);
    const struct grader_diagnostic *d = find_diagnostic(&r, GRADER_SEVERITY_ERROR, 1);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "must have class type"));
    assert_non_null(strstr(d->message, "\ndetected during instantiation"));
    grader_compile_result_free(&r);
}

static void result_converts_to_the_compile_json(void **state)
{
    (void)state;
    const char *source = "__global__ void k(float *a)\n{\n    a[0] = nope;\n}\n";
    struct grader_compile_result r;
    compile_text(source, NULL, &r);
    json_t *j = grader_compile_result_to_json(&r);
    assert_non_null(j);
    assert_true(json_is_false(json_object_get(j, "ok")));
    assert_string_equal(json_string_value(json_object_get(j, "status")), "compile_error");
    json_t *d = json_array_get(json_object_get(j, "diagnostics"), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "line")), 3);
    assert_int_equal(json_integer_value(json_object_get(d, "column")), 12);
    assert_string_equal(json_string_value(json_object_get(d, "severity")), "error");
    assert_non_null(strstr(json_string_value(json_object_get(j, "log")), "nope"));
    json_decref(j);
    grader_compile_result_free(&r);

    compile_text(vector_add, "compute_90", &r);
    j = grader_compile_result_to_json(&r);
    json_t *k = json_array_get(json_object_get(j, "kernels"), 0);
    assert_true(json_is_null(json_object_get(k, "registers")));
    assert_true(json_is_true(json_object_get(j, "ok")));
    json_decref(j);
    grader_compile_result_free(&r);
}

/* A compile of many warnings (unused variables with long names; NVRTC
 * stops at 100 errors, not warnings): the JSON keeps the first 64 KB of the log with
 * a note, and the first GRADER_DIAGNOSTICS_SHOWN diagnostics. */
static void a_huge_log_is_cut_with_a_note(void **state)
{
    (void)state;
    size_t size = 0, cap = 64 * 1024;
    char *source = malloc(cap), name[401];
    memset(name, 'v', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    size += (size_t)snprintf(source, cap, "__global__ void k(float *a)\n{\n");
    for (int i = 0; i < 120; i++) /* each warning echoes its long name and line */
        size += (size_t)snprintf(source + size, cap - size, "    int %s%d;\n", name, i);
    size += (size_t)snprintf(source + size, cap - size, "}\n");
    struct grader_compile_result r;
    compile_text(source, NULL, &r);
    assert_true(strlen(r.log) > GRADER_COMPILE_LOG_MAX);
    assert_true(r.n_diagnostics > GRADER_DIAGNOSTICS_SHOWN);
    json_t *j = grader_compile_result_to_json(&r);
    const char *log = json_string_value(json_object_get(j, "log"));
    assert_true(strlen(log) <= GRADER_COMPILE_LOG_MAX);
    assert_non_null(strstr(log, "[kgrade: compile log truncated]"));
    assert_int_equal(json_array_size(json_object_get(j, "diagnostics")), GRADER_DIAGNOSTICS_SHOWN);
    json_decref(j);
    grader_compile_result_free(&r);
    free(source);
}

static void kernels_are_found_by_name_whatever_their_linkage(void **state)
{
    (void)state;
    const char *source = "__global__ void scale(float *a, int n) { a[threadIdx.x] *= n; }\n"
                         "extern \"C\" __global__ void plain(int *a) { a[0] = 1; }\n";
    const char *names[] = {"scale", "plain"};
    struct grader_compile_options options = {.kernel_names = names, .n_kernel_names = 2};
    struct grader_compile_result r;
    assert_int_equal(grader_compile(source, strlen(source), &options, &r), GRADER_COMPILE_OK);
    assert_int_equal(r.n_lowered_names, 2);
    assert_string_equal(r.lowered_names[0], "_Z5scalePfi");
    assert_string_equal(r.lowered_names[1], "plain");
    grader_compile_result_free(&r);
}

static void a_missing_kernel_rejects_the_source_by_name(void **state)
{
    (void)state;
    const char *source = "__global__ void scale(float *a) { a[0] = 1; }\n";
    const char *names[] = {"hidden_layer", "scale", "histogram"};
    struct grader_compile_options options = {.kernel_names = names, .n_kernel_names = 3};
    struct grader_compile_result r;
    assert_int_equal(grader_compile(source, strlen(source), &options, &r), GRADER_COMPILE_REJECTED);
    assert_non_null(strstr(r.message, "no kernel named 'hidden_layer', 'histogram'"));
    grader_compile_result_free(&r);
    /* a real compile error stays a compile error */
    const char *broken = "__global__ void scale(float *a) { a[0] = nope; }\n";
    assert_int_equal(grader_compile(broken, strlen(broken), &options, &r), GRADER_COMPILE_ERROR);
    grader_compile_result_free(&r);
}

/* Regression: a compile error beside a missing kernel listed NVRTC's
 * "__nv_name_map(2): ..." errors too, lines the student never wrote. */
static void a_compile_error_hides_the_name_map_echo(void **state)
{
    (void)state;
    const char *names[] = {"vector_add"};
    struct grader_compile_options options = {.kernel_names = names, .n_kernel_names = 1};
    struct grader_compile_result r;
    const char *broken = "extern \"C\" __global__ void add(int x) { y; }\n";
    assert_int_equal(grader_compile(broken, strlen(broken), &options, &r), GRADER_COMPILE_ERROR);
    assert_int_equal(r.n_diagnostics, 1);
    assert_int_equal(r.diagnostics[0].line, 1);
    assert_null(strstr(r.diagnostics[0].message, "__nv_name_map"));
    assert_non_null(strstr(r.message, "1 compile error; the first, at line 1"));
    grader_compile_result_free(&r);
}

static void architectures_are_checked(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    assert_true(grader_arch_supported("sm_90", why));
    assert_true(grader_arch_supported("compute_90", why));
    assert_true(grader_arch_supported("sm_90a", why));
    const char *bad[] = {"sm_999", "sm_", "sm_9x", "90", "compute_", "sm_090", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(grader_arch_supported(bad[i], why));
        assert_non_null(strstr(why, "sm_NN"));
    }
}

static void nvrtc_reports_its_version(void **state)
{
    (void)state;
    char version[32];
    assert_true(grader_nvrtc_version(version, sizeof version));
    assert_true(atoi(version) >= 13);
    assert_non_null(strchr(version, '.'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_kernel_yields_ptx_entry_and_registers),
        cmocka_unit_test(virtual_arch_gives_ptx_without_registers),
        cmocka_unit_test(mangled_kernels_are_demangled_with_their_own_registers),
        cmocka_unit_test(undeclared_identifier_on_line_4_is_an_error_at_line_4),
        cmocka_unit_test(missing_semicolon_is_reported_on_the_next_line),
        cmocka_unit_test(column_counts_tabs_and_characters),
        cmocka_unit_test(warnings_are_kept_as_warnings),
        cmocka_unit_test(empty_source_is_rejected),
        cmocka_unit_test(source_with_nul_byte_is_rejected_naming_the_line),
        cmocka_unit_test(source_need_not_be_nul_terminated),
        cmocka_unit_test(bad_option_is_an_internal_error),
        cmocka_unit_test(extra_options_reach_nvrtc),
        cmocka_unit_test(ptxas_error_has_no_line_and_says_ptxas),
        cmocka_unit_test(missing_include_is_an_error_at_its_line),
        cmocka_unit_test(standard_and_toolkit_headers_compile),
        cmocka_unit_test(template_error_keeps_its_instantiation_context),
        cmocka_unit_test(result_converts_to_the_compile_json),
        cmocka_unit_test(kernels_are_found_by_name_whatever_their_linkage),
        cmocka_unit_test(a_missing_kernel_rejects_the_source_by_name),
        cmocka_unit_test(a_compile_error_hides_the_name_map_echo),
        cmocka_unit_test(a_huge_log_is_cut_with_a_note),
        cmocka_unit_test(architectures_are_checked),
        cmocka_unit_test(nvrtc_reports_its_version),
    };
    return cmocka_run_group_tests_name("grader_compile", tests, NULL, NULL);
}
