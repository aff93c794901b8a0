/*
 * Unit tests of the virtual GPU's PTX loader on hand-written PTX: what a
 * decoded instruction holds, errors that name the PTX line, reconvergence
 * points, and the registers that must start at zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/ptx.h"

#include <stdio.h>
#include <string.h>

#define HEADER ".version 9.0\n.target sm_90\n.address_size 64\n"

static struct ptx_module *parse_ok(const char *text)
{
    char error[512] = "";
    bool bad_version;
    struct ptx_module *m = ptx_parse(text, strlen(text), error, sizeof error, &bad_version);
    if (!m)
        fail_msg("parse failed: %s", error);
    return m;
}

/* The text must fail to parse with `needle` in the error. */
static void assert_parse_error(const char *text, const char *needle, bool version)
{
    char error[512] = "";
    bool bad_version = false;
    struct ptx_module *m = ptx_parse(text, strlen(text), error, sizeof error, &bad_version);
    if (m || !strstr(error, needle) || bad_version != version) {
        ptx_module_free(m);
        fail_msg("wanted an error with '%s', got '%s'", needle, error);
    }
}

static const struct ptx_function *function_named(const struct ptx_module *m, const char *name)
{
    for (int i = 0; i < m->n_functions; i++)
        if (strcmp(m->functions[i].name, name) == 0)
            return &m->functions[i];
    fail_msg("no function %s", name);
    return NULL;
}

static void kernel_parameters_and_instructions_are_decoded(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(HEADER ".visible .entry k(\n"
                                           "  .param .u64 k_param_0,\n"
                                           "  .param .u32 k_param_1\n"
                                           ")\n{\n"
                                           "  .reg .pred %p<2>;\n"
                                           "  .reg .b32 %r<4>;\n"
                                           "  .reg .b64 %rd<3>;\n"
                                           "  ld.param.u64 %rd1, [k_param_0];\n"
                                           "  ld.param.u32 %r1, [k_param_1+0];\n"
                                           "  mov.u32 %r2, %tid.x;\n"
                                           "  setp.ge.s32 %p1, %r2, %r1;\n"
                                           "  @%p1 bra $L_end;\n"
                                           "  st.global.u32 [%rd1+8], -5;\n"
                                           "$L_end:\n"
                                           "  ret;\n"
                                           "}\n");
    const struct ptx_function *f = function_named(m, "k");
    assert_true(f->is_entry);
    assert_int_equal(f->n_params, 2);
    assert_int_equal(f->params[1].offset, 8);
    assert_int_equal(f->param_bytes, 12);
    assert_int_equal(f->n_code, 8); /* 7 and the implicit ret at the end */
    const struct ptx_insn *ld = &f->code[1];
    assert_int_equal(ld->op, PTX_OP_LD);
    assert_int_equal(ld->space, PTX_SPACE_PARAM);
    assert_int_equal(ld->o[1].kind, PTX_OPD_ADDR);
    assert_int_equal(ld->o[1].imm, 8);
    const struct ptx_insn *mov = &f->code[2];
    assert_int_equal(mov->o[1].kind, PTX_OPD_REG);
    assert_int_equal(mov->o[1].reg, PTX_SREG_TID_X);
    const struct ptx_insn *setp = &f->code[3];
    assert_int_equal(setp->cmp, PTX_CMP_GE);
    assert_int_equal(setp->type, PTX_S32);
    const struct ptx_insn *bra = &f->code[4];
    assert_int_equal(bra->guard, setp->o[0].reg);
    assert_int_equal(bra->target, 6);
    const struct ptx_insn *st = &f->code[5];
    assert_int_equal(st->o[0].imm, 8);
    assert_int_equal(st->o[1].kind, PTX_OPD_IMM);
    assert_int_equal(st->o[1].imm, -5);
    assert_int_equal(st->ptx_line, 17);
    ptx_module_free(m);
}

static void modifiers_are_read_by_operation(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(HEADER ".entry k()\n{\n"
                                           "  .reg .pred %p<3>;\n"
                                           "  .reg .b32 %r<4>;\n"
                                           "  .reg .f32 %f<3>;\n"
                                           "  setp.lo.and.u32 %p1|%p2, %r1, %r2, !%p0;\n"
                                           "  mul.lo.s32 %r3, %r1, %r2;\n"
                                           "  cvt.rzi.s32.f32 %r1, %f1;\n"
                                           "  fma.rm.ftz.sat.f32 %f2, %f1, 0f3F800000, %f1;\n"
                                           "  ret;\n}\n");
    const struct ptx_function *f = function_named(m, "k");
    assert_int_equal(f->code[0].cmp, PTX_CMP_LO); /* "lo" compares in setp */
    assert_int_equal(f->code[0].bool_op, PTX_BOOL_AND);
    assert_true(f->code[0].o[4].neg);         /* p|q, a, b, !c */
    assert_true(f->code[1].flags & PTX_F_LO); /* and is the low half in mul */
    assert_int_equal(f->code[2].type, PTX_S32);
    assert_int_equal(f->code[2].type2, PTX_F32);
    assert_int_equal(f->code[2].rnd, ARITH_RZ);
    assert_true(f->code[3].flags & PTX_F_FTZ);
    assert_true(f->code[3].flags & PTX_F_SAT);
    assert_int_equal(f->code[3].rnd, ARITH_RM);
    assert_int_equal(f->code[3].o[2].imm, 0x3F800000);
    ptx_module_free(m);
}

/* "::" qualifiers stay inside a modifier ("shared::cta", "L2::128B"), while
 * a label's single ':' still ends it; cp.async and mbarrier read their
 * forms and addresses. */
static void qualified_modifiers_and_async_forms_are_read(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(HEADER ".entry k()\n{\n"
                                           "  .reg .pred %p<2>;\n"
                                           "  .reg .b32 %r<4>;\n"
                                           "  .reg .b64 %rd<3>;\n"
                                           "$L__top:\n"
                                           "  mbarrier.arrive.shared::cta.b64 %rd1, [%r1];\n"
                                           "  ld.global.L2::128B.u32 %r2, [%rd2];\n"
                                           "  cp.async.cg.shared.global [%r1], [%rd2], 16, %r3;\n"
                                           "  cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];\n"
                                           "  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 1;\n"
                                           "  @!%p1 bra $L__top;\n"
                                           "  ret;\n}\n");
    const struct ptx_function *f = function_named(m, "k");
    assert_int_equal(f->code[0].op, PTX_OP_MBARRIER);
    assert_int_equal(f->code[0].cmp, PTX_MBAR_ARRIVE);
    assert_int_equal(f->code[0].space, PTX_SPACE_SHARED);
    assert_int_equal(f->code[1].op, PTX_OP_LD);
    assert_int_equal(f->code[2].cmp, PTX_CP_COPY);
    assert_int_equal(f->code[2].o[1].kind, PTX_OPD_ADDR);
    assert_int_equal(f->code[3].cmp, PTX_CP_ARRIVE);
    assert_true(f->code[3].flags & PTX_F_NOINC);
    assert_true(f->code[4].flags & PTX_F_PARITY);
    assert_int_equal(f->code[5].target, 0);
    assert_true(f->uses_barrier); /* a wait makes the block's warps take turns */
    ptx_module_free(m);
    assert_parse_error(HEADER
                       ".entry k()\n{\n  .reg .b32 %r<2>;\n  mbarrier.shared.b64 [%r1];\n}\n",
                       "'mbarrier' without a form", false);
    static const struct {
        const char *line, *says;
    } refused[] = {
        {"cp.async.bulk.shared.global [%r1], [%r1], 16;", "not this form"},
        {"cp.async.bulk.global.global.bulk_group [%r1], [%r1], 16;",
         "unsupported modifier '.global'"},
        {"cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
         "[%r1], [%r1, {%r1}], [%r1];",
         "does not implement 'cp.async.bulk.tensor"},
        {"mbarrier.arrive_drop.expect_tx.shared.b64 _, [%r1], 16;",
         "unsupported modifier '.expect_tx'"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s.entry k()\n{\n  .reg .b32 %%r<2>;\n  %s\n}\n", HEADER,
                 refused[i].line);
        assert_parse_error(text, refused[i].says, false);
    }
}

/* cp.async.bulk's two forms and the mbarrier's transaction counts: their
 * modes, spaces and operands. */
static void bulk_copies_and_transactions_are_read(void **state)
{
    (void)state;
    struct ptx_module *m =
        parse_ok(HEADER ".entry k()\n{\n"
                        "  .reg .b32 %r<4>;\n"
                        "  .reg .b64 %rd<3>;\n"
                        "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                        " [%r1], [%rd1], %r2, [%r3];\n"
                        "  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 32;\n"
                        "  cp.async.bulk.commit_group;\n"
                        "  cp.async.bulk.wait_group.read 0;\n"
                        "  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], %r2;\n"
                        "  mbarrier.complete_tx.shared::cta.b64 [%r3], 16;\n"
                        "  mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r3], 16;\n"
                        "  ret;\n}\n");
    const struct ptx_function *f = function_named(m, "k");
    assert_int_equal(f->code[0].cmp, PTX_CP_BULK);
    assert_int_equal(f->code[0].space, PTX_SPACE_SHARED); /* the destination's */
    assert_int_equal(f->code[0].bool_op, PTX_BULK_MBARRIER);
    assert_int_equal(f->code[0].o[3].kind, PTX_OPD_ADDR);
    assert_int_equal(f->code[1].space, PTX_SPACE_GLOBAL);
    assert_int_equal(f->code[1].bool_op, PTX_BULK_GROUP);
    assert_int_equal(f->code[2].cmp, PTX_CP_COMMIT);
    assert_int_equal(f->code[3].cmp, PTX_CP_WAIT);
    assert_int_equal(f->code[4].cmp, PTX_MBAR_EXPECT_TX);
    assert_int_equal(f->code[5].cmp, PTX_MBAR_COMPLETE_TX);
    assert_int_equal(f->code[6].cmp, PTX_MBAR_ARRIVE_EXPECT_TX);
    assert_int_equal(f->code[6].o[0].kind, PTX_OPD_REG);
    ptx_module_free(m);
}

#define BODY(line) HEADER ".entry k()\n{\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<3>;\n  " line "\n}\n"

/* The half-precision forms: their modifiers become flags, a pair's cvt
 * takes two sources; and what inline assembly writes (".reg.b32" without
 * a space, a 0 in a vector). */
static void half_instructions_are_decoded(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(HEADER ".entry k()\n{\n"
                                           "  .reg .b16 %rs<4>;\n"
                                           "  .reg .b32 %r<30>;\n"
                                           "  .reg .f32 %f<12>;\n"
                                           "  min.NaN.xorsign.abs.f16 %rs1, %rs2, %rs3;\n"
                                           "  fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;\n"
                                           "  cvt.rn.f16x2.f32 %r1, %f1, %f2;\n"
                                           "  cvt.rna.satfinite.tf32.f32 %r2, %f1;\n"
                                           "  { .reg.b32 t;\n"
                                           "    mov.b32 t, {0, %rs1}; }\n"
                                           "  ret;\n}\n");
    const struct ptx_function *f = function_named(m, "k");
    assert_int_equal(f->code[0].flags & (PTX_F_NAN | PTX_F_XORSIGN_ABS),
                     PTX_F_NAN | PTX_F_XORSIGN_ABS);
    assert_true(f->code[1].flags & PTX_F_RELU);
    assert_int_equal(f->code[1].type, PTX_BF16X2);
    assert_int_equal(f->code[2].n_operands, 3);
    assert_int_equal(f->code[3].type, PTX_TF32);
    assert_int_equal(f->code[3].rnd, ARITH_RNA);
    assert_true(f->code[3].flags & PTX_F_SATFINITE);
    assert_int_equal(f->code[4].o[1].kind, PTX_OPD_VEC);
    assert_int_equal(f->code[4].o[1].vec[0], PTX_NO_REG); /* the 0 reads as zero */
    ptx_module_free(m);
}

/* The half forms the ISA does not have are refused at load. */
static void malformed_half_instructions_are_refused(void **state)
{
    (void)state;
    assert_parse_error(BODY("mov.b32 %r1, {1, %r2};"), "expected a register, '_' or 0", false);
    assert_parse_error(BODY("ld.global.v4.u32 {%r1, %r2}, [%rd1];"),
                       "a .v4 'ld' takes 4 registers, not 2", false);
    assert_parse_error(BODY("cvt.rn.f16x2.f32 %r1, %r2;"), "cvt to a pair", false);
    assert_parse_error(BODY("cvt.rn.tf32.f16 %r1, %r2;"), "does not support 'cvt'", false);
    assert_parse_error(BODY("max.NaN.f64 %rd1, %rd1, %rd2;"), "these modifiers of 'max'", false);
    assert_parse_error(BODY("atom.global.min.f16 %r1, [%rd1], %r2;"), "does not support 'atom'",
                       false);
}

/* A special register is read-only: a warp fills its row once (warp_start
 * keeps it from one block to the next), so no instruction may write it. */
static void writing_a_special_register_is_refused(void **state)
{
    (void)state;
    const char *message = "cannot write a special register: they are read-only";
    assert_parse_error(BODY("mov.u32 %tid.x, %r1;"), message, false);
    assert_parse_error(BODY("add.u32 %ctaid.x, %r1, 1;"), message, false);
    assert_parse_error(BODY("ld.global.v2.u32 {%r1, %ntid.x}, [%rd1];"), message, false);
}

/* wmma: its operation, shape, layouts and types (mma's two or four, stored
 * as D, C, A, B) and fragments of up to 8 registers. */
static void matrix_instructions_are_decoded(void **state)
{
    (void)state;
    struct ptx_module *m =
        parse_ok(HEADER ".entry k()\n{\n"
                        "  .reg .b32 %r<30>;\n"
                        "  .reg .f32 %f<12>;\n"
                        "  .reg .b64 %rd<3>;\n"
                        "  wmma.load.a.sync.aligned.col.m16n16k16.global.f16 "
                        "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;\n"
                        "  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 "
                        "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4, %r5, "
                        "%r6, %r7, %r8}, "
                        "{%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18}, {%r21, %r22, %r23, "
                        "%r24};\n"
                        "  wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16.bf16.f32 "
                        "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, "
                        "{%r11, %r12, %r13, %r14}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};\n"
                        "  wmma.store.d.sync.aligned.row.m8n8k4.f64 [%rd2], {%rd1, %rd2}, 8;\n"
                        "  wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, "
                        "%r2}, {%r3}, "
                        "{%r4}, {%r5, %r6};\n"
                        "  ret;\n}\n");
    const struct ptx_function *f = function_named(m, "k");
    const struct ptx_insn *load = &f->code[0], *mma = &f->code[1], *bf16 = &f->code[2];
    assert_int_equal(load->op, PTX_OP_WMMA);
    assert_int_equal(load->cmp, PTX_WMMA_LOAD_A);
    assert_int_equal(load->shape, PTX_WMMA_M16N16K16);
    assert_int_equal(load->layout, PTX_WMMA_COL);
    assert_int_equal(load->space, PTX_SPACE_GLOBAL);
    assert_int_equal(load->o[0].count, 8);
    assert_int_equal(load->issue_class, PTX_CLASS_MEMORY);
    assert_int_equal(mma->cmp, PTX_WMMA_MMA);
    assert_int_equal(mma->layout, PTX_WMMA_COL_B);
    assert_int_equal(mma->type, PTX_F32);
    assert_int_equal(mma->type2, PTX_F16);
    assert_int_equal(mma->type_a, PTX_F16);
    assert_int_equal(mma->issue_class, PTX_CLASS_TENSOR);
    assert_int_equal(bf16->type_a, PTX_BF16);
    assert_int_equal(bf16->type_b, PTX_BF16);
    assert_int_equal(bf16->type2, PTX_F32);
    assert_int_equal(f->code[3].cmp, PTX_WMMA_STORE_D);
    assert_int_equal(f->code[3].o[2].imm, 8); /* a stride is an integer */
    assert_int_equal(f->code[4].bool_op, PTX_BOOL_AND);
    ptx_module_free(m);
}

/* wmma forms the ISA does not have are refused at load, with what is wrong. */
static void malformed_matrix_instructions_are_refused(void **state)
{
    (void)state;
    assert_parse_error(BODY("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4}, "
                            "[%rd1];"),
                       "wmma.load takes {8 registers}, [address]", false);
    assert_parse_error(BODY("wmma.load.a.sync.aligned.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, "
                            "%r6, %r7, %r8}, [%rd1];"),
                       "need one layout", false);
    assert_parse_error(BODY("wmma.load.a.sync.aligned.row.m16n16k8.f16 {%r1}, [%rd1];"),
                       "no such fragment", false);
    assert_parse_error(BODY("wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r1}, [%rd1];"),
                       "A .row and B .col only", false);
    assert_parse_error(BODY("wmma.mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f16 {%r1, "
                            "%r2, "
                            "%r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, "
                            "%r3, %r4};"),
                       "accumulators of a type these inputs do not take", false);
    assert_parse_error(BODY("wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, "
                            "{%r3}, {%r4}, {%r5, %r6};"),
                       ".b1 needs .and.popc", false);
    assert_parse_error(BODY("wmma.sync.aligned.row.m16n16k16.f16 {%r1}, [%rd1];"),
                       "wmma needs .load.a", false);
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b1 %b;\n}\n", "sub-byte type", false);
}
#undef BODY

/* Function addresses are constants outside any memory; initializers that
 * name a variable become relocations; an indirect call keeps its register
 * and its .callprototype, whose parameters the arguments must fit. */
static void function_pointers_and_address_initializers_are_read(void **state)
{
    (void)state;
    struct ptx_module *m =
        parse_ok(HEADER ".func (.param .b32 r) twice(.param .b32 x)\n{\n  ret;\n}\n"
                        ".global .align 8 .u64 ops[2] = {twice, 0};\n"
                        ".global .align 4 .b8 data[16];\n"
                        ".global .align 8 .u64 where = generic(data)+8;\n"
                        ".common .global .align 8 .u64 _ZN08NumbaEnv1k;\n"
                        ".entry k()\n{\n"
                        "  .reg .b32 %r<2>;\n"
                        "  .reg .b64 %rd<2>;\n"
                        "  mov.u64 %rd1, twice;\n"
                        "  {\n"
                        "  .param .b32 a;\n"
                        "  .param .b32 r;\n"
                        "  proto : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                        "  call (r), %rd1, (a), proto;\n"
                        "  }\n"
                        "  ret;\n}\n");
    const struct ptx_function *twice = function_named(m, "twice"), *k = function_named(m, "k");
    uint64_t address;
    assert_true(twice->address_taken);
    assert_int_equal(k->code[0].o[1].kind, PTX_OPD_IMM);
    assert_int_equal((uint64_t)k->code[0].o[1].imm,
                     ptx_function_address((int)(twice - m->functions)));
    memcpy(&address, m->variables[0].init, 8);
    assert_int_equal(address, ptx_function_address((int)(twice - m->functions)));
    assert_int_equal(m->n_relocs, 1);
    assert_int_equal(m->variables[3].space, PTX_SPACE_GLOBAL); /* .common: numba's env pointer */
    assert_int_equal(m->variables[3].size, 8);
    assert_int_equal(m->relocs[0].variable, 2);
    assert_int_equal(m->relocs[0].target, 1);
    assert_int_equal(m->relocs[0].addend, 8);
    const struct ptx_insn *call = &k->code[1];
    assert_int_equal(call->op, PTX_OP_CALL);
    assert_true(call->flags & PTX_F_INDIRECT);
    assert_int_equal(call->o[0].kind, PTX_OPD_REG);
    assert_int_equal(m->n_prototypes, 1);
    assert_int_equal(m->prototypes[call->target].n_params, 1);
    ptx_module_free(m);
    assert_parse_error(HEADER ".global .align 4 .b8 data[4];\n.global .u32 p = data;\n",
                       "the address of 'data' needs a 64-bit element", false);
    assert_parse_error(HEADER ".shared .align 4 .b8 s[4];\n.global .u64 p = s;\n", "'s' is shared",
                       false);
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b64 %rd<2>;\n"
                              "  { .param .b64 a; proto : .callprototype _ (.param .b32 _);\n"
                              "    call %rd1, (a), nothing; }\n}\n",
                       "'nothing' is not a .callprototype", false);
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b64 %rd<2>;\n"
                              "  { .param .b8 a; proto : .callprototype _ (.param .b64 _);\n"
                              "    call %rd1, (a), proto; }\n}\n",
                       "argument 1 of the call to proto does not fit", false);
}

static void unsupported_constructs_name_their_line(void **state)
{
    (void)state;
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b32 %r<2>;\n  frobnicate.u32 %r1, %r0;\n}\n",
                       "PTX line 7: unsupported instruction 'frobnicate.u32'", false);
    assert_parse_error(HEADER
                       ".entry k()\n{\n  .reg .b32 %r<2>;\n  add.wobbly.s32 %r1, %r0, 1;\n}\n",
                       "PTX line 7: unsupported modifier '.wobbly'", false);
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b32 %r<2>;\n  add.s32 %r1, %r0;\n}\n",
                       "PTX line 7: 'add' takes 3 to 3 operands, not 2", false);
    assert_parse_error(HEADER ".entry k()\n{\n  bra $nowhere;\n}\n", "unknown label '$nowhere'",
                       false);
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, %r9;\n}\n",
                       "PTX line 7: unknown name '%r9'", false);
    assert_parse_error(".version 10.0\n.target sm_100\n", "PTX version 10.0 is newer", true);
    assert_parse_error(".target sm_90\n", "not PTX", false);
    assert_parse_error(HEADER ".texref t;\n", "PTX line 4: unsupported PTX construct '.texref'",
                       false);
    assert_parse_error(HEADER ".global .texref t;\n", "references were removed in CUDA 12", false);
    assert_parse_error(HEADER ".entry k()\n{\n  ret;\n", "no closing '}'", false);
    /* the CUDA line: of the main source, where a header's code was inlined */
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .b32 %r<2>;\n"
                              "  .loc 6 177 3, function_name $L__info, inlined_at 1 35 5\n"
                              "  frobnicate.b32 %r1;\n}\n",
                       "unsupported instruction 'frobnicate.b32' (source line 35)", false);
    assert_parse_error(HEADER ".entry k()\n{\n  .reg .f16 %h<2>;\n  sqrt.rn.f16 %h1, %h0;\n}\n",
                       "does not support 'sqrt' on this type", false);
}

/* An instruction's source line is in its function's own file: code
 * inlined from a header keeps the line of the call. */
static void source_lines_stay_in_the_program(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(HEADER ".entry k()\n{\n"
                                           "  .reg .b32 %r<3>;\n"
                                           "  .loc 1 10 0\n"
                                           "  mov.u32 %r1, 1;\n"
                                           "  .loc 1 12 5\n"
                                           "  .loc 2 152 3, function_name $L0, inlined_at 1 12 5\n"
                                           "  .loc 2 145 4, function_name $L1, inlined_at 2 152 3\n"
                                           "  mov.u32 %r2, 2;\n"
                                           "  .loc 1 13 1\n"
                                           "  ret;\n}\n");
    const struct ptx_insn *code = function_named(m, "k")->code;
    assert_int_equal(code[0].src_line, 10);
    assert_int_equal(code[1].src_line, 12); /* inlined from file 2: the call's line */
    assert_int_equal(code[2].src_line, 13);
    ptx_module_free(m);
}

/* Texture and surface instructions: their modifiers and the layout of
 * their operands (ptx_texture.c); what CUDA C++ cannot emit is refused. */
static void texture_instructions_are_decoded(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(
        HEADER ".entry k(.param .u64 t)\n{\n"
               "  .reg .pred %p<2>;\n"
               "  .reg .b16 %rs<5>;\n"
               "  .reg .b32 %r<6>;\n"
               "  .reg .f32 %f<8>;\n"
               "  .reg .b64 %rd<2>;\n"
               "  ld.param.u64 %rd1, [t];\n"
               "  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f5, %f6}];\n"
               "  tex.level.a1d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %f5}], %f7;\n"
               "  tld4.a.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
               "  suld.b.2d.v4.b8.clamp {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r1, %r2}];\n"
               "  sust.b.1d.b32.zero [%rd1, {%r1}], {%r2};\n"
               "  sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;\n"
               "  txq.width.b32 %r1, [%rd1];\n"
               "  suq.memory_layout.b32 %r2, [%rd1];\n"
               "  ret;\n}\n");
    const struct ptx_insn *code = function_named(m, "k")->code;
    const struct ptx_insn *tex = &code[1], *level = &code[2], *tld4 = &code[3];
    assert_int_equal(tex->op, PTX_OP_TEX);
    assert_int_equal(tex->geom, PTX_GEOM_2D);
    assert_int_equal(tex->type, PTX_F32);
    assert_int_equal(tex->type2, PTX_F32);
    assert_int_equal(tex->o[0].kind, PTX_OPD_VEC);
    assert_int_equal(tex->o[0].count, 4);
    assert_int_equal(tex->o[1].kind, PTX_OPD_REG);
    assert_int_equal(tex->o[2].count, 2);
    assert_int_equal(tex->o[5].kind, PTX_OPD_PRED); /* d|p */
    assert_int_equal(tex->issue_class, PTX_CLASS_MEMORY);
    assert_int_equal(level->geom, PTX_GEOM_A1D);
    assert_int_equal(level->bool_op, PTX_TEX_LEVEL);
    assert_int_equal(level->o[3].kind, PTX_OPD_REG); /* the level of detail */
    assert_int_equal(tld4->bool_op, 3);              /* .a */
    const struct ptx_insn *suld = &code[4], *sust = &code[5], *sured = &code[6];
    assert_int_equal(suld->bool_op, PTX_SU_CLAMP);
    assert_int_equal(suld->vec, 4);
    assert_int_equal(suld->type, PTX_B8);
    assert_int_equal(sust->bool_op, PTX_SU_ZERO);
    assert_int_equal(sust->o[1].kind, PTX_OPD_VEC); /* a 1d coordinate is a vector of one */
    assert_int_equal(sust->o[1].count, 1);
    assert_false(ptx_writes_first_operand(sust));
    assert_int_equal(sured->cmp, PTX_ATOM_ADD);
    assert_false(ptx_writes_first_operand(sured));
    assert_int_equal(code[7].bool_op, PTX_TXQ_WIDTH);
    assert_int_equal(code[8].bool_op, PTX_TXQ_MEMORY_LAYOUT);
    ptx_module_free(m);
#define TEXTURE_BODY(line)                                                                         \
    HEADER ".entry k()\n{\n  .reg .b32 %r<5>;\n  .reg .f32 %f<5>;\n  .reg .b64 %rd<2>;\n  " line   \
           "\n}\n"
    assert_parse_error(TEXTURE_BODY("tex.2dms.v4.s32.s32 {%r1, %r2, %r3, %r4}, "
                                    "[%rd1, {%r1, %r2, %r3, %r4}];"),
                       "PTX line 9: multisample textures are not supported", false);
    assert_parse_error(TEXTURE_BODY("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, %rd1, "
                                    "{%f1, %f2}];"),
                       "an explicit sampler", false);
    assert_parse_error(TEXTURE_BODY("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], "
                                    "{%r1, %r2};"),
                       "texel offsets and depth comparison", false);
    assert_parse_error(TEXTURE_BODY("sust.p.2d.b32.trap [%rd1, {%r1, %r2}], {%r3};"),
                       "unsupported modifier '.p'", false);
    assert_parse_error(TEXTURE_BODY("suld.b.2d.v2.b32.trap {%r1}, [%rd1, {%r1, %r2}];"),
                       "must be 2 registers", false);
    assert_parse_error(TEXTURE_BODY("tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}];"),
                       "too few coordinates", false);
#undef TEXTURE_BODY
}

/* Sizes and offsets a program declares cannot wrap, and a call's arguments
 * and return value must lie inside the caller's .param space: the
 * interpreter copies them unchecked (regression: a 4 GB .param array
 * wrapped the space and let a call read and write the host's heap). */
static void parameter_spaces_cannot_wrap(void **state)
{
    (void)state;
#define CALLEE ".func (.param .b64 r) give(.param .b64 x)\n{\n  ret;\n}\n"
    assert_parse_error(HEADER CALLEE ".entry k()\n{\n"
                                     "  { .param .b64 a; .param .align 8 .b64 pad[536870849];\n"
                                     "    call.uni give, (a); }\n}\n",
                       "'pad' takes the call parameters past 65536 bytes", false);
    assert_parse_error(HEADER CALLEE ".entry k()\n{\n  .local .b8 big[600000];\n  ret;\n}\n",
                       "'big' takes the local memory past 524288 bytes", false);
    assert_parse_error(HEADER ".entry k(.param .b8 p[70000])\n{\n  ret;\n}\n",
                       "'p' takes the parameters past 65536 bytes", false);
    assert_parse_error(HEADER ".shared .b32 s1[268435457];\n", "'s1' takes shared memory past",
                       false);
    assert_parse_error(HEADER ".shared .b8 s1[1073741000];\n.shared .b8 s2[4096];\n"
                              ".entry k()\n{\n  .reg .b32 %r<2>;\n  st.shared.b32 [s1], %r1;\n"
                              "  st.shared.b32 [s2], %r1;\n}\n",
                       "a kernel's shared variables, with 's2', take more than", false);
    /* an argument smaller than the callee's parameter */
    assert_parse_error(HEADER CALLEE ".entry k()\n{\n"
                                     "  { .param .b8 a; call.uni give, (a); }\n}\n",
                       "argument 1 of the call to give does not fit its .param", false);
    assert_parse_error(HEADER CALLEE
                       ".entry k()\n{\n"
                       "  { .param .b64 a; .param .b8 r; call.uni (r), give, (a); }\n}\n",
                       "the return value of the call to give does not fit its .param", false);
    /* a built-in gets the arguments it reads, whatever its declaration says */
    assert_parse_error(HEADER ".extern .func (.param .b32 r) vprintf(.param .b8 f);\n"
                              ".entry k()\n{\n  { .param .b8 f; call.uni vprintf, (f); }\n}\n",
                       "vprintf takes 2 arguments, not 1", false);
    assert_parse_error(HEADER ".extern .func free(.param .b8 p);\n"
                              ".entry k()\n{\n  { .param .b8 p; call.uni free, (p); }\n}\n",
                       "argument 1 of the call to free does not fit its .param", false);
#undef CALLEE
}

static void branches_reconverge_at_their_post_dominator(void **state)
{
    (void)state;
    /* if (p) { a } else { b }; c  — the branch meets again at c. */
    struct ptx_module *m = parse_ok(HEADER ".entry k()\n{\n"
                                           "  .reg .pred %p<2>;\n"
                                           "  .reg .b32 %r<4>;\n"
                                           "  @%p1 bra $else;\n" /* 0 */
                                           "  mov.u32 %r1, 1;\n" /* 1 */
                                           "  bra.uni $join;\n"  /* 2 */
                                           "$else:\n"
                                           "  mov.u32 %r1, 2;\n" /* 3 */
                                           "$join:\n"
                                           "  add.s32 %r2, %r1, 1;\n" /* 4 */
                                           "$loop:\n"
                                           "  add.s32 %r2, %r2, 1;\n"      /* 5 */
                                           "  setp.lt.s32 %p1, %r2, 10;\n" /* 6 */
                                           "  @%p1 bra $loop;\n"           /* 7 */
                                           "  ret;\n}\n");                 /* 8 */
    const struct ptx_function *f = function_named(m, "k");
    assert_int_equal(f->code[0].target, 3);
    assert_int_equal(f->code[0].reconv, 4);
    assert_int_equal(f->code[7].target, 5);
    assert_int_equal(f->code[7].reconv, 8);
    ptx_module_free(m);
}

static void only_registers_read_before_written_start_at_zero(void **state)
{
    (void)state;
    /* %r1 is always written first; %r2 only on one path; %r3 never. */
    struct ptx_module *m = parse_ok(HEADER ".entry k(.param .u64 p)\n{\n"
                                           "  .reg .pred %p<2>;\n"
                                           "  .reg .b32 %r<5>;\n"
                                           "  .reg .b64 %rd<2>;\n"
                                           "  ld.param.u64 %rd1, [p];\n"
                                           "  mov.u32 %r1, %tid.x;\n"
                                           "  setp.eq.s32 %p1, %r1, 0;\n"
                                           "  @%p1 bra $skip;\n"
                                           "  mov.u32 %r2, 7;\n"
                                           "$skip:\n"
                                           "  add.s32 %r4, %r2, %r3;\n"
                                           "  add.s32 %r4, %r4, %r1;\n"
                                           "  st.global.u32 [%rd1], %r4;\n"
                                           "  ret;\n}\n");
    const struct ptx_function *f = function_named(m, "k");
    assert_int_equal(f->n_zero_rows, 2);
    uint32_t r2 = f->code[4].o[0].reg, r3 = f->code[5].o[2].reg;
    assert_true((f->zero_rows[0] == r2 && f->zero_rows[1] == r3) ||
                (f->zero_rows[0] == r3 && f->zero_rows[1] == r2));
    ptx_module_free(m);
}

static void variables_functions_and_calls_are_laid_out(void **state)
{
    (void)state;
    struct ptx_module *m =
        parse_ok(HEADER ".global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                        ".extern .shared .align 16 .b8 dyn[];\n"
                        ".func (.param .b32 ret0) twice(.param .b32 x)\n{\n"
                        "  .reg .b32 %r<3>;\n"
                        "  ld.param.b32 %r1, [x];\n"
                        "  add.s32 %r2, %r1, %r1;\n"
                        "  st.param.b32 [ret0], %r2;\n"
                        "  ret;\n}\n"
                        ".entry k()\n{\n"
                        "  .shared .align 4 .b8 tile[100];\n"
                        "  .reg .b32 %r<3>;\n"
                        "  {\n"
                        "  .param .b32 param0;\n"
                        "  st.param.b32 [param0], %r1;\n"
                        "  .param .b32 retval0;\n"
                        "  call.uni (retval0), twice, (param0);\n"
                        "  ld.param.b32 %r2, [retval0];\n"
                        "  }\n"
                        "  st.shared.b32 [tile+96], %r2;\n"
                        "  ret;\n}\n");
    assert_int_equal(m->n_variables, 3);
    assert_int_equal(m->variables[0].init[7], 8);
    const struct ptx_function *k = function_named(m, "k");
    assert_int_equal(k->static_shared_bytes, 100);
    assert_int_equal(k->dynamic_shared_offset, 112);
    assert_false(k->uses_dynamic_shared);
    const struct ptx_insn *call = &k->code[1];
    assert_int_equal(call->op, PTX_OP_CALL);
    assert_string_equal(m->functions[call->target].name, "twice");
    assert_int_equal(call->o[1].count, 1);
    assert_int_equal(call->o[2].count, 1);
    assert_true(k->calls);
    ptx_module_free(m);
}

/* Each kernel gets the shared variables it and its callees use, laid out
 * from 0 in declaration order; a variable keeps one offset for the module;
 * the extern array starts after the largest static size among its users
 * (regression: every kernel was charged the module's total, and the extern
 * array started past the block's end when static memory was not a multiple
 * of 16). */
static void shared_memory_is_laid_out_per_kernel(void **state)
{
    (void)state;
    struct ptx_module *m = parse_ok(HEADER ".shared .align 8 .b8 common[8];\n"
                                           ".extern .shared .align 16 .b8 dyn[];\n"
                                           ".func helper()\n{\n"
                                           "  .shared .align 4 .b8 helper_tile[64];\n"
                                           "  .reg .b32 %r<2>;\n"
                                           "  st.shared.b32 [helper_tile], %r1;\n"
                                           "  ret;\n}\n"
                                           ".entry big()\n{\n"
                                           "  .shared .align 4 .b8 big_tile[32768];\n"
                                           "  .reg .b32 %r<2>;\n"
                                           "  st.shared.b32 [big_tile], %r1;\n"
                                           "  ret;\n}\n"
                                           ".entry small()\n{\n"
                                           "  .shared .align 4 .b8 small_tile[128];\n"
                                           "  .reg .b32 %r<2>;\n"
                                           "  st.shared.b32 [small_tile], %r1;\n"
                                           "  ret;\n}\n"
                                           ".entry mixed()\n{\n"
                                           "  .shared .align 4 .b8 count[4];\n"
                                           "  .reg .b32 %r<2>;\n"
                                           "  st.shared.b32 [common], %r1;\n"
                                           "  st.shared.b32 [count], %r1;\n"
                                           "  st.shared.b32 [dyn], %r1;\n"
                                           "  call.uni helper, ();\n"
                                           "  ret;\n}\n"
                                           ".entry dynamic_only()\n{\n"
                                           "  .reg .b32 %r<2>;\n"
                                           "  st.shared.b32 [dyn+4], %r1;\n"
                                           "  ret;\n}\n");
    const struct ptx_function *big = function_named(m, "big"), *small = function_named(m, "small"),
                              *mixed = function_named(m, "mixed"),
                              *dynamic_only = function_named(m, "dynamic_only");
    assert_int_equal(big->static_shared_bytes, 32768);
    assert_int_equal(small->static_shared_bytes, 128);
    assert_false(small->uses_dynamic_shared);
    /* common at 0, helper_tile (the callee's) at 8, count at 72 */
    assert_int_equal(mixed->static_shared_bytes, 76);
    assert_true(mixed->uses_dynamic_shared);
    assert_int_equal(mixed->dynamic_shared_offset, 80);
    assert_int_equal(dynamic_only->static_shared_bytes, 0);
    assert_int_equal(dynamic_only->dynamic_shared_offset, 80); /* the array's one offset */
    for (int v = 0; v < m->n_variables; v++) {
        const struct ptx_variable *var = &m->variables[v];
        if (strcmp(var->name, "big_tile") == 0 || strcmp(var->name, "small_tile") == 0 ||
            strcmp(var->name, "common") == 0)
            assert_int_equal(var->address, 0);
        if (strcmp(var->name, "helper_tile") == 0)
            assert_int_equal(var->address, 8);
        if (strcmp(var->name, "dyn") == 0)
            assert_int_equal(var->address, 80);
    }
    ptx_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_parameters_and_instructions_are_decoded),
        cmocka_unit_test(modifiers_are_read_by_operation),
        cmocka_unit_test(qualified_modifiers_and_async_forms_are_read),
        cmocka_unit_test(bulk_copies_and_transactions_are_read),
        cmocka_unit_test(function_pointers_and_address_initializers_are_read),
        cmocka_unit_test(half_instructions_are_decoded),
        cmocka_unit_test(malformed_half_instructions_are_refused),
        cmocka_unit_test(writing_a_special_register_is_refused),
        cmocka_unit_test(matrix_instructions_are_decoded),
        cmocka_unit_test(malformed_matrix_instructions_are_refused),
        cmocka_unit_test(unsupported_constructs_name_their_line),
        cmocka_unit_test(texture_instructions_are_decoded),
        cmocka_unit_test(source_lines_stay_in_the_program),
        cmocka_unit_test(parameter_spaces_cannot_wrap),
        cmocka_unit_test(branches_reconverge_at_their_post_dominator),
        cmocka_unit_test(only_registers_read_before_written_start_at_zero),
        cmocka_unit_test(variables_functions_and_calls_are_laid_out),
        cmocka_unit_test(shared_memory_is_laid_out_per_kernel),
    };
    return cmocka_run_group_tests_name("emu_ptx", tests, NULL, NULL);
}
