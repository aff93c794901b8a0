/*
 * Unit tests of the readers of NVRTC's outputs other than diagnostics: the
 * kernels of a PTX text, its static data, ptxas's register counts, and
 * demangling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/compile_output.h"

#include <stdlib.h>
#include <string.h>

static const char *const ptx = ".version 9.0\n"
                               ".target sm_90\n"
                               ".address_size 64\n"
                               "\t// .globl\tvec_add\n"
                               ".visible .entry vec_add(\n"
                               "\t.param .u64 vec_add_param_0\n"
                               ")\n{\n\tret;\n}\n"
                               ".func helper(.param .b32 x)\n{\n\tret;\n}\n"
                               ".weak .entry _Z5otherPi(.param .u64 p)\n{\n\tret;\n}\n"
                               "// .entry commented_out(\n"
                               "\tmov.u32 %r1, %r2; // not .entry x\n"
                               ".entry $plain%1\n(\n)\n";

static void ptx_entries_are_listed_in_order(void **state)
{
    (void)state;
    char **names;
    size_t n;
    assert_int_equal(grader_ptx_entries(ptx, strlen(ptx), &names, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "vec_add");
    assert_string_equal(names[1], "_Z5otherPi");
    assert_string_equal(names[2], "$plain%1");
    grader_names_free(names, n);
}

static void ptx_without_entries_lists_none(void **state)
{
    (void)state;
    char **names;
    size_t n;
    const char *empty[] = {"", ".entry", ".entry (", ".visible .entry\n", ".func f()\n"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        assert_int_equal(grader_ptx_entries(empty[i], strlen(empty[i]), &names, &n), 0);
        assert_int_equal(n, 0);
        grader_names_free(names, n);
    }
}

static const char *const ptxas_log =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z5otherPi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z5otherPi\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers\n"
    "ptxas info    : Function properties for _Z6helperv\n"
    "ptxas         .     16 bytes stack frame\n"
    "ptxas info    : Compiling entry function 'vec_add' for 'sm_90'\n"
    "ptxas info    : Function properties for vec_add\n"
    "ptxas info    : Used 128 registers, used 1 barriers, 400 bytes smem\n"
    "ptxas info    : Compiling entry function 'vec' for 'sm_90'\n"
    "ptxas info    : Compiling entry function 'broken' for 'sm_90'\n"
    "ptxas info    : Used lots of registers\n";

static void registers_belong_to_their_entry(void **state)
{
    (void)state;
    size_t len = strlen(ptxas_log);
    assert_int_equal(grader_ptxas_registers(ptxas_log, len, "_Z5otherPi"), 10);
    assert_int_equal(grader_ptxas_registers(ptxas_log, len, "vec_add"), 128);
    /* "vec" is a prefix of "vec_add" and has no count of its own. */
    assert_int_equal(grader_ptxas_registers(ptxas_log, len, "vec"), -1);
    assert_int_equal(grader_ptxas_registers(ptxas_log, len, "broken"), -1);
    assert_int_equal(grader_ptxas_registers(ptxas_log, len, "absent"), -1);
    assert_int_equal(grader_ptxas_registers("", 0, "vec_add"), -1);
}

static void names_are_demangled_when_mangled(void **state)
{
    (void)state;
    char *s = grader_demangle("_Z5scalePfi");
    assert_string_equal(s, "scale(float*, int)");
    free(s);
    s = grader_demangle("vector_add");
    assert_string_equal(s, "vector_add");
    free(s);
    s = grader_demangle("_Zbroken");
    assert_string_equal(s, "_Zbroken");
    free(s);
}

static uint64_t static_bytes(const char *text, char *largest)
{
    struct ptx_static_data data;
    grader_ptx_static_data(text, strlen(text), &data);
    if (largest)
        strcpy(largest, data.largest);
    assert_true(data.largest_bytes <= data.total_bytes);
    return data.total_bytes;
}

static void static_data_counts_global_and_const_variables(void **state)
{
    (void)state;
    char largest[128];
    assert_int_equal(static_bytes(".visible .global .align 1 .b8 scratch[2147483648];\n", largest),
                     2147483648ull);
    assert_string_equal(largest, "scratch");
    /* an initializer's braces, a vector type, two dimensions, constant memory */
    assert_int_equal(static_bytes(".const .align 16 .v4 .f32 table[2][3] = {1.0, 2.0};\n"
                                  ".global .align 8 .u64 counter;\n",
                                  largest),
                     2 * 3 * 16 + 8);
    assert_string_equal(largest, "table");
    assert_int_equal(static_bytes(".global .align 4 .f16x2 pairs[10];\n", NULL), 40);
}

static void static_data_ignores_what_takes_no_global_memory(void **state)
{
    (void)state;
    const char *text = ".extern .global .align 4 .b32 elsewhere[1000000];\n"
                       ".visible .entry k(\n"
                       "\t.param .u64 k_param_0\n"
                       ")\n"
                       "{\n"
                       "\t.shared .align 4 .b8 tile[4096];\n"
                       "\t.global .align 4 .b8 not_module_scope[99];\n"
                       "\tret;\n"
                       "}\n"
                       ".shared .align 4 .b8 module_shared[8];\n";
    assert_int_equal(static_bytes(text, NULL), 0);
}

static void static_data_saturates(void **state)
{
    (void)state;
    assert_int_equal(static_bytes(".global .b64 a[18446744073709551615][4];\n"
                                  ".global .b64 b[99999999999999999999999];\n",
                                  NULL),
                     UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ptx_entries_are_listed_in_order),
        cmocka_unit_test(ptx_without_entries_lists_none),
        cmocka_unit_test(registers_belong_to_their_entry),
        cmocka_unit_test(names_are_demangled_when_mangled),
        cmocka_unit_test(static_data_counts_global_and_const_variables),
        cmocka_unit_test(static_data_ignores_what_takes_no_global_memory),
        cmocka_unit_test(static_data_saturates),
    };
    return cmocka_run_group_tests_name("compile_output", tests, NULL, NULL);
}
