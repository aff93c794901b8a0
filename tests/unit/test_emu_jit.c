/*
 * Unit tests of what the virtual GPU's compiled tier translates
 * (emulator/jit_emit.c, jit_native; JIT.md): an access that orders others
 * (.release, .acquire, .acq_rel, .sc) is flagged by the parser and left to
 * the interpreter, which writes the warp's deferred adds first; a global
 * 32-bit add compiles, held back, as red or as an atom whose result no
 * instruction reads, and not when one does or for other operations and
 * widths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/jit_emit.h"

#include <string.h>

static const char kernel[] = ".version 9.0\n.target sm_90\n.address_size 64\n"
                             ".visible .entry k(.param .u64 p)\n{\n"
                             "  .reg .b32 %r<8>;\n"
                             "  .reg .b64 %rd<4>;\n"
                             "  ld.param.u64 %rd1, [p];\n"
                             "  st.global.u32 [%rd1], %r1;\n"
                             "  st.release.gpu.global.u32 [%rd1], %r1;\n"
                             "  st.relaxed.gpu.global.u32 [%rd1], %r1;\n"
                             "  ld.acquire.gpu.global.u32 %r2, [%rd1];\n"
                             "  ld.global.u32 %r2, [%rd1];\n"
                             "  red.global.add.u32 [%rd1], %r1;\n"
                             "  red.release.gpu.global.add.u32 [%rd1], %r1;\n"
                             "  atom.acq_rel.gpu.global.add.u32 %r3, [%rd1], %r1;\n"
                             "  atom.sc.gpu.global.add.u32 %r3, [%rd1], %r1;\n"
                             "  atom.global.add.u32 %r4, [%rd1], %r1;\n"
                             "  atom.global.add.u32 %r5, [%rd1], %r1;\n"
                             "  atom.global.max.u32 %r6, [%rd1], %r1;\n"
                             "  atom.global.add.u64 %rd2, [%rd1], %rd3;\n"
                             "  st.global.u32 [%rd1], %r5;\n"
                             "  ret;\n}\n";

/* Each instruction after ld.param, in order: ordered, and compiled. */
static const struct {
    bool ordered, native;
} want[] = {
    {false, true},  /* st */
    {true, false},  /* st.release */
    {false, true},  /* st.relaxed */
    {true, false},  /* ld.acquire */
    {false, true},  /* ld */
    {false, true},  /* red.add */
    {true, false},  /* red.release.add */
    {true, false},  /* atom.acq_rel.add, its result unread */
    {true, false},  /* atom.sc.add, its result unread */
    {false, true},  /* atom.add, its result unread: held back */
    {false, false}, /* atom.add whose result the last st reads */
    {false, false}, /* atom.max on global memory */
    {false, false}, /* atom.add.u64 */
    {false, true},  /* st */
};

static void orders_and_unread_results_decide(void **state)
{
    (void)state;
    char error[512] = "";
    bool bad_version;
    struct ptx_module *m = ptx_parse(kernel, strlen(kernel), error, sizeof error, &bad_version);
    if (!m)
        fail_msg("parse failed: %s", error);
    const struct ptx_function *f = &m->functions[0];
    assert_true(f->n_code > 1 + sizeof want / sizeof want[0]); /* ld.param, them, ret */
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct ptx_insn *insn = &f->code[1 + i];
        if (!!(insn->flags & PTX_F_ORDERED) != want[i].ordered ||
            jit_native(insn, f) != want[i].native)
            fail_msg("instruction %zu (PTX line %u): ordered %d, compiled %d; wanted %d, %d", i,
                     insn->ptx_line, !!(insn->flags & PTX_F_ORDERED), jit_native(insn, f),
                     want[i].ordered, want[i].native);
    }
    ptx_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(orders_and_unread_results_decide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
