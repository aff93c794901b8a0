/*
 * Unit tests of the readers of NVRTC's outputs other than diagnostics: the
 * kernels of a PTX text, ptxas's register counts, and demangling.
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ptx_entries_are_listed_in_order),
        cmocka_unit_test(ptx_without_entries_lists_none),
        cmocka_unit_test(registers_belong_to_their_entry),
        cmocka_unit_test(names_are_demangled_when_mangled),
    };
    return cmocka_run_group_tests_name("compile_output", tests, NULL, NULL);
}
