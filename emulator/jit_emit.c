/*
 * The compiled tier's translation of instructions (JIT.md). A region is one
 * LLVM function `int region(w, f, mask, latency)`: before its instructions
 * it takes their count from the budget's interval (or returns JIT_INTERPRET
 * when the next check falls inside, so that the interpreter makes it at the
 * same instruction), then for each instruction, in order, it does what the
 * interpreter's step() does: the timing model's issue (jit_timing.c), the
 * guard, the operation for the lanes of the mask. An instruction the
 * compiler translates is the interpreter's lane loop as LLVM vector
 * operations on whole register rows (<32 x i64>), bit for bit the
 * interpreter's arithmetic (execute_fast and the exec_* functions of
 * interp.c); any other runs through interp_execute, the interpreter's own
 * code. A fault returns JIT_FAULTED with the counts of the instructions
 * that did not run taken back. Memory accesses are jit_access.c's.
 */
#include "jit_emit.h"

#include "exec.h"
#include "half.h"
#include "jit.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A double's fields and the canonical f64 NaN, as arith.c has them. */
#define JIT_F64_SIGN          0x8000000000000000ull
#define JIT_F64_EXPONENT      0x7FF0000000000000ull
#define JIT_F64_CANONICAL_NAN 0x7FFFFFFFFFFFFFFFull

/* ------------------------------------------------ called from the code */

/* The interpreter's operation for instruction pc, for the lanes of m (not
 * 0): the checked path of a global load or store whose fast path did not
 * apply (a lane outside the cached allocations, misaligned, out of bounds:
 * mem_load and mem_store record the fault). */
int jit_execute_checked(struct warp *w, struct frame *f, uint32_t pc, uint32_t m)
{
    if (w->deferred.words)
        mem_flush_deferred(w);
    return interp_execute(w, f, &f->fn->code[pc], m) ? 0 : 1;
}

/* An instruction the compiler does not translate: what step() does for it
 * (the timing model's issue, then the operation), through the
 * interpreter's own code. */
static int interpret_one(struct warp *w, struct frame *f, uint32_t pc, uint32_t m)
{
    jit_issue_by_model(w, f, pc);
    return m == 0 ? 0 : jit_execute_checked(w, f, pc, m);
}

/* An add whose result nothing reads (native_deferred_add). */
static int add_deferred(struct warp *w, struct frame *f, uint32_t pc, uint32_t m)
{
    return mem_add_deferred(w, f, &f->fn->code[pc], m) ? 0 : 1;
}

/* -------------------------------------------------------- what compiles */

bool jit_in_region(const struct ptx_insn *insn)
{
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_BRA:
    case PTX_OP_CALL:
    case PTX_OP_RET:
    case PTX_OP_EXIT:
    case PTX_OP_TRAP:
    case PTX_OP_BRKPT:
    case PTX_OP_BAR:
    case PTX_OP_BARRIER:
    case PTX_OP_CP:
    case PTX_OP_MBARRIER:
    case PTX_OP_NANOSLEEP:
        return false;
    default:
        return true;
    }
}

/* A variable's address (but a .local depot's, which is per frame) is an
 * immediate: the module's load wrote it into the operand (a global or
 * constant variable's is read where the code runs: jit_immediate). */
static bool is_immediate(const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_IMM || (o->kind == PTX_OPD_SYMBOL && o->space != PTX_SPACE_LOCAL);
}

static bool register_or_immediate(const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_REG || is_immediate(o);
}

/* d, then n - 1 sources that are registers or immediates. */
static bool plain_operands(const struct ptx_insn *insn, int n)
{
    if (insn->n_operands != n || insn->o[0].kind != PTX_OPD_REG)
        return false;
    for (int i = 1; i < n; i++)
        if (!register_or_immediate(&insn->o[i]))
            return false;
    return true;
}

static bool is_integer(enum ptx_type t, bool wide_too)
{
    unsigned bytes = ptx_type_bytes(t);
    return !ptx_type_is_float(t) && t != PTX_PRED && (bytes == 4 || (wide_too && bytes == 8));
}

/* execute_fast's f32 operations (interp.c). */
static bool native_f32(const struct ptx_insn *insn)
{
    if (!insn_plain_rounding(insn))
        return false;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_ADD:
    case PTX_OP_SUB:
    case PTX_OP_MUL:
    case PTX_OP_DIV:
    case PTX_OP_COPYSIGN:
        return plain_operands(insn, 3);
    case PTX_OP_FMA:
    case PTX_OP_MAD:
        return plain_operands(insn, 4);
    case PTX_OP_ABS:
    case PTX_OP_NEG:
        return plain_operands(insn, 2);
    default:
        return false;
    }
}

/* The libm-backed .approx functions of exec_float_unary (interp.c), which
 * the compiled code calls lane by lane: the interpreter's own functions. */
static float (*approx_function(enum ptx_op op))(float)
{
    switch (op) {
    case PTX_OP_EX2:
        return arith_ex2_approx_f32;
    case PTX_OP_LG2:
        return arith_lg2_approx_f32;
    case PTX_OP_SIN:
        return arith_sin_approx_f32;
    case PTX_OP_COS:
        return arith_cos_approx_f32;
    case PTX_OP_TANH:
        return arith_tanh_approx_f32;
    case PTX_OP_RSQRT:
        return arith_rsqrt_approx_f32;
    default:
        return NULL;
    }
}

/* exec_float_unary's f32 operations: .ftz allowed, no .sat; rcp and sqrt
 * (approximate or rounded to nearest) are IEEE's 1/x and sqrt(x). */
static bool native_unary_f32(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    bool nearest = !(insn->flags & PTX_F_HAS_RND) || insn->rnd == ARITH_RN;
    if ((insn->flags & PTX_F_SAT) || !nearest || !plain_operands(insn, 2))
        return false;
    return op == PTX_OP_RCP || op == PTX_OP_SQRT || approx_function(op) != NULL;
}

/* exec_float_binary, exec_fma and exec_float_unary for f64 (interp.c):
 * add, sub, mul, div, fma and mad to nearest, sqrt (to nearest or
 * approximate), abs, neg and copysign as the host computes them (the
 * interpreter gives them no canonical NaN); rcp (approximate, with its
 * flushes, or to nearest) and rsqrt.approx as arith.c's, with the canonical
 * NaN. What numba's float64 math (libdevice) runs. */
static bool native_f64(const struct ptx_insn *insn)
{
    bool nearest = !(insn->flags & PTX_F_HAS_RND) || insn->rnd == ARITH_RN;
    bool approx = insn->flags & PTX_F_APPROX, sat = insn->flags & PTX_F_SAT;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_SQRT:
    case PTX_OP_RCP:
        return !sat && (approx || nearest) && plain_operands(insn, 2);
    case PTX_OP_RSQRT:
        return !sat && plain_operands(insn, 2);
    case PTX_OP_ABS:
    case PTX_OP_NEG:
        return plain_operands(insn, 2);
    case PTX_OP_ADD:
    case PTX_OP_SUB:
    case PTX_OP_MUL:
    case PTX_OP_DIV:
    case PTX_OP_COPYSIGN:
        return insn_plain_rounding(insn) && plain_operands(insn, 3);
    case PTX_OP_FMA:
    case PTX_OP_MAD:
        return insn_plain_rounding(insn) && plain_operands(insn, 4);
    default:
        return false;
    }
}

/* execute_fast's integer operations and the plain integer ones of execute. */
static bool native_integer(const struct ptx_insn *insn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    unsigned bytes = ptx_type_bytes(t);
    if (!is_integer(t, true))
        return false;
    bool plain = !(insn->flags & (PTX_F_CC | PTX_F_SAT | PTX_F_HI | PTX_F_WIDE));
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_ADD:
    case PTX_OP_SUB:
        return plain && plain_operands(insn, 3);
    case PTX_OP_MUL:
        if (insn->flags & (PTX_F_WIDE | PTX_F_HI))
            return bytes == 4 && !(insn->flags & (PTX_F_CC | PTX_F_SAT)) &&
                   !((insn->flags & PTX_F_WIDE) && (insn->flags & PTX_F_HI)) &&
                   plain_operands(insn, 3);
        return plain && plain_operands(insn, 3);
    case PTX_OP_MAD:
        return plain && plain_operands(insn, 4);
    case PTX_OP_AND:
    case PTX_OP_OR:
    case PTX_OP_XOR:
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        return plain_operands(insn, 3);
    case PTX_OP_NOT:
        return plain_operands(insn, 2);
    case PTX_OP_CVTA: /* exec_cvta, of 64-bit addresses */
        return (insn->space == PTX_SPACE_GLOBAL || insn->space == PTX_SPACE_SHARED ||
                insn->space == PTX_SPACE_LOCAL) &&
               bytes == 8 && plain_operands(insn, 2);
    default:
        return false;
    }
}

static bool native_setp(const struct ptx_insn *insn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    unsigned bytes = ptx_type_bytes(t);
    bool typed =
        ((t == PTX_F32 && !(insn->flags & PTX_F_FTZ)) || t == PTX_F64 ||
         (!ptx_type_is_float(t) && t != PTX_PRED && (bytes == 2 || bytes == 4 || bytes == 8)));
    int n = insn->bool_op == PTX_BOOL_NONE ? 3 : 4;
    if (!typed || insn->n_operands != n || insn->o[0].kind != PTX_OPD_PRED ||
        !register_or_immediate(&insn->o[1]) || !register_or_immediate(&insn->o[2]))
        return false;
    return n == 3 || insn->o[3].kind == PTX_OPD_PRED || insn->o[3].kind == PTX_OPD_IMM;
}

static bool is_cvt_integer(enum ptx_type t)
{
    unsigned bytes = ptx_type_bytes(t);
    return !ptx_type_is_float(t) && t != PTX_PRED && bytes >= 1 && bytes <= 8;
}

/* The mode a cvt rounds with: the one it names, else `fallback`. */
static enum arith_rounding cvt_mode(const struct ptx_insn *insn, enum arith_rounding fallback)
{
    return insn->flags & PTX_F_HAS_RND ? (enum arith_rounding)insn->rnd : fallback;
}

/* exec_cvt and arith_cvt: integer to integer (no .sat, no mode); f32 or
 * f64 to an integer (any integral mode, .ftz, .sat: a float source always
 * saturates); an integer to f32 or f64 rounded to nearest; between f32 and
 * f64 (widening exactly, narrowing to nearest, .ftz) and a float to an
 * integral value of its own type (.rni .rzi .rmi .rpi, .ftz); no .sat. */
static bool native_cvt(const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type, from = (enum ptx_type)insn->type2;
    if (half_converts(insn) || !plain_operands(insn, 2))
        return false;
    bool from_float = from == PTX_F32 || from == PTX_F64, to_float = to == PTX_F32 || to == PTX_F64;
    bool has_mode = insn->flags & PTX_F_HAS_RND;
    if (from_float && to_float && !(insn->flags & PTX_F_SAT)) /* cvt_to_float of a float */
        return to == from      ? has_mode && cvt_mode(insn, ARITH_RN) <= ARITH_RP
               : to == PTX_F64 ? !has_mode
                               : cvt_mode(insn, ARITH_RN) == ARITH_RN;
    if (from_float && is_cvt_integer(to))
        return cvt_mode(insn, ARITH_RZ) <= ARITH_RP;
    if (is_cvt_integer(from) && to_float)
        return cvt_mode(insn, ARITH_RN) == ARITH_RN && !(insn->flags & PTX_F_SAT);
    return !(insn->flags & (PTX_F_HAS_RND | PTX_F_SAT)) && is_cvt_integer(to) &&
           is_cvt_integer(from);
}

/* ld and st of one 4- or 8-byte register in global, shared or local memory
 * or at a generic address (global or local: jit_access.c tells them apart;
 * a local depot named by its symbol for .local): mem_load's and mem_store's
 * fast paths, compiled, and their checked path called. */
static bool native_memory(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    enum ptx_space space = (enum ptx_space)insn->space;
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    if ((op != PTX_OP_LD && op != PTX_OP_ST) || insn->n_operands != 2 ||
        (space != PTX_SPACE_GLOBAL && space != PTX_SPACE_GENERIC && space != PTX_SPACE_SHARED &&
         space != PTX_SPACE_LOCAL) ||
        (bytes != 4 && bytes != 8))
        return false;
    const struct ptx_operand *a = &insn->o[op == PTX_OP_LD ? 1 : 0];
    const struct ptx_operand *v = &insn->o[op == PTX_OP_LD ? 0 : 1];
    bool depot = a->count == 1 && a->space == PTX_SPACE_LOCAL;
    return a->kind == PTX_OPD_ADDR && (!depot || space == PTX_SPACE_LOCAL) &&
           v->kind == PTX_OPD_REG && v->reg != PTX_NO_REG;
}

/* atom and red on shared memory (atomic_lanes_fast's shared path): 4- or
 * 8-byte integers, or f32 add; the operation a plain load and store, as
 * private_apply does (one host thread runs a block). Not inc, dec. */
static bool native_shared_atomic(const struct ptx_insn *insn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    enum ptx_atom_op op = (enum ptx_atom_op)insn->cmp;
    bool red = insn->op == PTX_OP_RED;
    if ((insn->op != PTX_OP_ATOM && !red) || insn->space != PTX_SPACE_SHARED ||
        insn->n_operands != (red ? 2 : 3) + (op == PTX_ATOM_CAS))
        return false;
    bool type_ok = t == PTX_F32 ? op == PTX_ATOM_ADD : is_integer(t, true);
    bool op_ok = op == PTX_ATOM_ADD || op == PTX_ATOM_MIN || op == PTX_ATOM_MAX ||
                 op == PTX_ATOM_AND || op == PTX_ATOM_OR || op == PTX_ATOM_XOR ||
                 op == PTX_ATOM_EXCH || op == PTX_ATOM_CAS;
    const struct ptx_operand *a = &insn->o[red ? 0 : 1];
    if (!type_ok || !op_ok || a->kind != PTX_OPD_ADDR ||
        (a->count == 1 && a->space == PTX_SPACE_LOCAL))
        return false;
    if (!red && (insn->o[0].kind != PTX_OPD_REG || insn->o[0].reg == PTX_NO_REG))
        return false;
    for (int i = red ? 1 : 2; i < insn->n_operands; i++)
        if (!register_or_immediate(&insn->o[i]))
            return false;
    return true;
}

/* Whether no instruction of fn reads register `reg`. */
bool jit_never_read(const struct ptx_function *fn, uint32_t reg)
{
    return fn->rows_read && reg < fn->n_regs && !(fn->rows_read[reg / 64] >> reg % 64 & 1);
}

/* red.add, or atom.add whose result no instruction reads, of a 32-bit
 * integer in global (or generic) memory: a relaxed add whose old value
 * nothing sees, which mem_add_deferred holds back (JIT.md, "Deferred
 * adds"). */
static bool native_deferred_add(const struct ptx_insn *insn, const struct ptx_function *fn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    bool red = insn->op == PTX_OP_RED;
    if ((insn->op != PTX_OP_ATOM && !red) || (enum ptx_atom_op)insn->cmp != PTX_ATOM_ADD ||
        (insn->space != PTX_SPACE_GLOBAL && insn->space != PTX_SPACE_GENERIC) ||
        (t != PTX_U32 && t != PTX_S32 && t != PTX_B32) || insn->n_operands != (red ? 2 : 3))
        return false;
    const struct ptx_operand *a = &insn->o[red ? 0 : 1];
    if (a->kind != PTX_OPD_ADDR || (a->count == 1 && a->space == PTX_SPACE_LOCAL) ||
        !register_or_immediate(&insn->o[red ? 1 : 2]))
        return false;
    return red || (insn->o[0].kind == PTX_OPD_REG &&
                   (insn->o[0].reg == PTX_NO_REG || jit_never_read(fn, insn->o[0].reg)));
}

/* ld.param of a kernel parameter named by its symbol, into one register
 * (mem_load's first case): aligned, and inside the parameter buffer of any
 * kernel whose code this is (the cache's key covers the buffer's size, so the
 * test made here holds wherever the code runs). */
static bool native_param_load(const struct ptx_insn *insn, const struct ptx_function *fn)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    const struct ptx_operand *a = &insn->o[1];
    if (insn->op != PTX_OP_LD || insn->space != PTX_SPACE_PARAM || !fn->is_entry ||
        insn->n_operands != 2 || insn->o[0].kind != PTX_OPD_REG || insn->o[0].reg == PTX_NO_REG ||
        a->kind != PTX_OPD_ADDR || a->reg != PTX_NO_REG ||
        (a->count == 1 && a->space == PTX_SPACE_CALL_PARAM))
        return false;
    return (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) && a->imm >= 0 &&
           a->imm % bytes == 0 && (uint64_t)a->imm + bytes <= fn->param_bytes;
}

bool jit_call_param(const struct ptx_insn *insn, const struct ptx_function *fn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    if ((op != PTX_OP_LD && op != PTX_OP_ST) || insn->n_operands != 2 ||
        insn->flags & PTX_F_ORDERED)
        return false;
    const struct ptx_operand *a = &insn->o[op == PTX_OP_LD ? 1 : 0];
    const struct ptx_operand *v = &insn->o[op == PTX_OP_LD ? 0 : 1];
    bool call_param = (a->count == 1 && a->space == PTX_SPACE_CALL_PARAM) ||
                      (insn->space == PTX_SPACE_PARAM && !fn->is_entry);
    return call_param && a->kind == PTX_OPD_ADDR && a->reg == PTX_NO_REG &&
           v->kind == PTX_OPD_REG && v->reg != PTX_NO_REG && (bytes == 4 || bytes == 8) &&
           a->imm >= 0 && a->imm % bytes == 0 && (uint64_t)a->imm + bytes <= fn->call_param_bytes;
}

bool jit_branch(const struct ptx_insn *insn)
{
    return insn->op == PTX_OP_BRA && !(insn->flags & PTX_F_INDIRECT);
}

static bool predicate_or_immediate(const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_PRED || o->kind == PTX_OPD_IMM;
}

/* and, or, xor, not and mov of predicates (exec_bitwise, exec_mov). */
static bool native_predicate(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    int n = op == PTX_OP_NOT || op == PTX_OP_MOV ? 2 : 3;
    if ((op != PTX_OP_AND && op != PTX_OP_OR && op != PTX_OP_XOR && n == 3) ||
        insn->n_operands != n || insn->o[0].kind != PTX_OPD_PRED)
        return false;
    for (int i = 1; i < n; i++)
        if (!predicate_or_immediate(&insn->o[i]))
            return false;
    return true;
}

/* mov of {a, b, ...} packed into a register of up to 8 bytes, or of a
 * register (or immediate) unpacked into {a, b, ...} (exec_mov): how
 * libdevice's float64 code reads and writes a double's halves. */
static bool native_mov_vector(const struct ptx_insn *insn)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    const struct ptx_operand *d = &insn->o[0], *a = &insn->o[1];
    if (insn->op != PTX_OP_MOV || insn->n_operands != 2 || bytes < 2 || bytes > 8)
        return false;
    if (a->kind == PTX_OPD_VEC)
        return d->kind == PTX_OPD_REG && d->reg != PTX_NO_REG && a->count > 0;
    return d->kind == PTX_OPD_VEC && d->count > 0 && register_or_immediate(a);
}

bool jit_native(const struct ptx_insn *insn, const struct ptx_function *fn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    if (half_executes(insn) || insn->flags & PTX_F_ORDERED) /* ordered: JIT.md, "Deferred adds" */
        return false;
    if (t == PTX_PRED)
        return native_predicate(insn);
    if (native_param_load(insn, fn) || jit_call_param(insn, fn))
        return true;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_MOV:
        return native_mov_vector(insn) ||
               (ptx_type_bytes(t) >= 1 && ptx_type_bytes(t) <= 8 && plain_operands(insn, 2));
    case PTX_OP_SELP:
        return insn->n_operands == 4 && insn->o[0].kind == PTX_OPD_REG &&
               register_or_immediate(&insn->o[1]) && register_or_immediate(&insn->o[2]) &&
               (insn->o[3].kind == PTX_OPD_PRED || insn->o[3].kind == PTX_OPD_IMM);
    case PTX_OP_SETP:
        return native_setp(insn);
    case PTX_OP_CVT:
        return native_cvt(insn);
    case PTX_OP_LD:
    case PTX_OP_ST:
        return native_memory(insn);
    case PTX_OP_ATOM:
    case PTX_OP_RED:
        return native_shared_atomic(insn) || native_deferred_add(insn, fn);
    default:
        return t == PTX_F32   ? native_f32(insn) || native_unary_f32(insn)
               : t == PTX_F64 ? native_f64(insn)
                              : native_integer(insn);
    }
}

/* ---------------------------------------------------------- IR helpers */

LLVMValueRef jit_at(struct jit_emit *e, LLVMValueRef base, uint64_t offset)
{
    if (offset == 0)
        return base;
    LLVMValueRef off = LLVMConstInt(e->i64, offset, 0);
    return LLVMBuildGEP2(e->b, e->i8, base, &off, 1, "");
}

/* Type-based alias analysis metadata: a root, a scalar type per kind, and
 * an access tag of each. */
static void make_tbaa(struct jit_emit *e)
{
    static const char *const names[JIT_MEMORY_KINDS] = {"row",  "pred",  "ready",
                                                        "warp", "frame", "latency"};
    e->tbaa_kind = LLVMGetMDKindIDInContext(e->ctx, "tbaa", 4);
    LLVMMetadataRef root_name = LLVMMDStringInContext2(e->ctx, "kgemu", 5);
    LLVMMetadataRef root = LLVMMDNodeInContext2(e->ctx, &root_name, 1);
    LLVMMetadataRef zero = LLVMValueAsMetadata(LLVMConstInt(e->i64, 0, 0));
    for (int k = 0; k < JIT_MEMORY_KINDS; k++) {
        LLVMMetadataRef type_fields[] = {LLVMMDStringInContext2(e->ctx, names[k], strlen(names[k])),
                                         root, zero};
        LLVMMetadataRef type = LLVMMDNodeInContext2(e->ctx, type_fields, 3);
        LLVMMetadataRef tag_fields[] = {type, type, zero};
        e->tbaa[k] = LLVMMetadataAsValue(e->ctx, LLVMMDNodeInContext2(e->ctx, tag_fields, 3));
    }
}

static LLVMValueRef tagged(struct jit_emit *e, LLVMValueRef access, enum jit_memory kind)
{
    LLVMSetMetadata(access, e->tbaa_kind, e->tbaa[kind]);
    return access;
}

LLVMValueRef jit_load(struct jit_emit *e, enum jit_memory kind, LLVMTypeRef type, LLVMValueRef base,
                      uint64_t offset)
{
    return tagged(e, LLVMBuildLoad2(e->b, type, jit_at(e, base, offset), ""), kind);
}

void jit_store(struct jit_emit *e, enum jit_memory kind, LLVMValueRef value, LLVMValueRef base,
               uint64_t offset)
{
    tagged(e, LLVMBuildStore(e->b, value, jit_at(e, base, offset)), kind);
}

LLVMValueRef jit_umax(struct jit_emit *e, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntUGT, a, b, ""), a, b, "");
}

LLVMTypeRef jit_lanes_of(LLVMTypeRef element)
{
    return LLVMVectorType(element, WARP_SIZE);
}

LLVMValueRef jit_splat(LLVMValueRef constant)
{
    LLVMValueRef lanes[WARP_SIZE];
    for (int l = 0; l < WARP_SIZE; l++)
        lanes[l] = constant;
    return LLVMConstVector(lanes, WARP_SIZE);
}

LLVMValueRef jit_constant64(struct jit_emit *e, uint64_t v)
{
    return LLVMConstInt(e->i64, v, 0);
}

/* A value computed at run time, in all 32 slots. */
LLVMValueRef jit_splat_value(struct jit_emit *e, LLVMValueRef v)
{
    LLVMTypeRef type = jit_lanes_of(LLVMTypeOf(v));
    LLVMValueRef one =
        LLVMBuildInsertElement(e->b, LLVMGetPoison(type), v, LLVMConstInt(e->i32, 0, 0), "");
    return LLVMBuildShuffleVector(e->b, one, LLVMGetPoison(type),
                                  LLVMConstNull(jit_lanes_of(e->i32)), "");
}

static LLVMValueRef splat32(struct jit_emit *e, uint32_t v)
{
    return jit_splat(LLVMConstInt(e->i32, v, 0));
}

/* An operand's immediate: a constant, but for the address of a global or
 * constant variable (PTX_VAR_PLACED), which each load of the module places
 * anew: read from the running function's own instruction (jit.c's key
 * leaves it out). `o` is an operand of an instruction of e->fn. */
LLVMValueRef jit_immediate(struct jit_emit *e, const struct ptx_operand *o)
{
    if (o->var != PTX_VAR_PLACED)
        return jit_constant64(e, (uint64_t)o->imm);
    uint64_t at =
        (uint64_t)((const char *)o - (const char *)e->fn->code) + offsetof(struct ptx_operand, imm);
    LLVMValueRef fn = jit_load(e, JIT_FRAME, e->ptr, e->f, offsetof(struct frame, fn));
    LLVMValueRef code = jit_load(e, JIT_FRAME, e->ptr, fn, offsetof(struct ptx_function, code));
    return jit_load(e, JIT_FRAME, e->i64, code, at);
}

/* A source operand's 32 slots (a register's row, or the immediate in each). */
LLVMValueRef jit_row_of(struct jit_emit *e, const struct ptx_operand *o)
{
    if (is_immediate(o))
        return o->var == PTX_VAR_PLACED ? jit_splat_value(e, jit_immediate(e, o))
                                        : jit_splat(LLVMConstInt(e->i64, (uint64_t)o->imm, 0));
    LLVMValueRef v = jit_load(e, JIT_ROW, e->row, e->regs, (uint64_t)o->reg * sizeof(lanes_t));
    LLVMSetAlignment(v, 8);
    return v;
}

/* The slots as values of an integer width. */
LLVMValueRef jit_as_int(struct jit_emit *e, LLVMValueRef row, unsigned bytes)
{
    if (bytes == 8)
        return row;
    return LLVMBuildTrunc(e->b, row, jit_lanes_of(LLVMIntTypeInContext(e->ctx, 8 * bytes)), "");
}

static LLVMValueRef as_f32(struct jit_emit *e, LLVMValueRef row)
{
    return LLVMBuildBitCast(e->b, jit_as_int(e, row, 4), jit_lanes_of(e->f32), "");
}

static LLVMValueRef as_f64(struct jit_emit *e, LLVMValueRef row)
{
    return LLVMBuildBitCast(e->b, row, jit_lanes_of(e->f64), "");
}

/* Integer lanes back into slots, zero-extended as the interpreter writes. */
LLVMValueRef jit_widen(struct jit_emit *e, LLVMValueRef v)
{
    LLVMTypeRef element = LLVMGetElementType(LLVMTypeOf(v));
    return element == e->i64 ? v : LLVMBuildZExt(e->b, v, e->row, "");
}

/* f32_result: the canonical NaN for any NaN. */
static LLVMValueRef canonical_f32(struct jit_emit *e, LLVMValueRef z)
{
    LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, z, z, "");
    LLVMValueRef bits = LLVMBuildBitCast(e->b, z, jit_lanes_of(e->i32), "");
    return jit_widen(e, LLVMBuildSelect(e->b, nan, splat32(e, CANONICAL_NAN_F32), bits, ""));
}

/* f64_canonical (arith.c): the canonical NaN for any NaN; the bits as a row. */
static LLVMValueRef canonical_f64(struct jit_emit *e, LLVMValueRef z)
{
    LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, z, z, "");
    LLVMValueRef bits = LLVMBuildBitCast(e->b, z, e->row, "");
    return LLVMBuildSelect(e->b, nan, jit_splat(jit_constant64(e, JIT_F64_CANONICAL_NAN)), bits,
                           "");
}

/* arith_ftz_f64: a subnormal becomes the zero of its sign. */
static LLVMValueRef flush_f64(struct jit_emit *e, LLVMValueRef x)
{
    LLVMValueRef bits = LLVMBuildBitCast(e->b, x, e->row, "");
    LLVMValueRef exponent =
        LLVMBuildAnd(e->b, bits, jit_splat(jit_constant64(e, JIT_F64_EXPONENT)), "");
    LLVMValueRef tiny = LLVMBuildICmp(e->b, LLVMIntEQ, exponent, LLVMConstNull(e->row), "");
    LLVMValueRef sign = LLVMBuildAnd(e->b, bits, jit_splat(jit_constant64(e, JIT_F64_SIGN)), "");
    return LLVMBuildBitCast(e->b, LLVMBuildSelect(e->b, tiny, sign, bits, ""), jit_lanes_of(e->f64),
                            "");
}

/* Writes the lanes of the mask (e->mask) of register row `reg`: the row
 * with the other lanes' old values blended in, stored whole. (A masked
 * store would do the same, but a load of the row after it could not take
 * the value from the store: a plain one lets LLVM keep rows in registers
 * from one instruction to the next.) */
void jit_write_row(struct jit_emit *e, uint32_t reg, LLVMValueRef row)
{
    LLVMValueRef at = jit_at(e, e->regs, (uint64_t)reg * sizeof(lanes_t));
    LLVMValueRef old = tagged(e, LLVMBuildLoad2(e->b, e->row, at, ""), JIT_ROW);
    LLVMSetAlignment(old, 8);
    LLVMValueRef lanes = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    LLVMValueRef store =
        tagged(e, LLVMBuildStore(e->b, LLVMBuildSelect(e->b, lanes, row, old, ""), at), JIT_ROW);
    LLVMSetAlignment(store, 8);
}

static LLVMValueRef pred_at(struct jit_emit *e, uint32_t reg)
{
    return jit_at(e, e->preds, (uint64_t)reg * sizeof(uint32_t));
}

/* A predicate operand as a lane mask (pred_of). */
static LLVMValueRef pred_of(struct jit_emit *e, const struct ptx_operand *o)
{
    if (o->kind == PTX_OPD_IMM)
        return LLVMConstInt(e->i32, o->imm ? FULL_MASK : 0, 0);
    LLVMValueRef p = tagged(e, LLVMBuildLoad2(e->b, e->i32, pred_at(e, o->reg), ""), JIT_PRED);
    return o->neg ? LLVMBuildNot(e->b, p, "") : p;
}

/* set_pred: the lanes of m take the value's bits. */
static void set_pred(struct jit_emit *e, uint32_t reg, LLVMValueRef value)
{
    LLVMValueRef p = pred_at(e, reg);
    LLVMValueRef old = tagged(e, LLVMBuildLoad2(e->b, e->i32, p, ""), JIT_PRED);
    LLVMValueRef keep = LLVMBuildAnd(e->b, old, LLVMBuildNot(e->b, e->mask, ""), "");
    LLVMValueRef value_in = LLVMBuildAnd(e->b, value, e->mask, "");
    tagged(e, LLVMBuildStore(e->b, LLVMBuildOr(e->b, keep, value_in, ""), p), JIT_PRED);
}

/* A call of LLVM intrinsic `name` (declared at its first use) returning
 * `result`; its parameters' types are its arguments' (at most 4). */
LLVMValueRef jit_intrinsic(struct jit_emit *e, const char *name, LLVMTypeRef result,
                           LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef params[4];
    for (unsigned i = 0; i < n && i < 4; i++)
        params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(result, params, n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(e->mod, name);
    if (!fn)
        fn = LLVMAddFunction(e->mod, name, fty);
    return LLVMBuildCall2(e->b, fty, fn, args, n, "");
}

/* ---------------------------------------------------------- operations */

static LLVMValueRef emit_f32(struct jit_emit *e, const struct ptx_insn *insn)
{
    LLVMValueRef a = jit_row_of(e, &insn->o[1]);
    enum ptx_op op = (enum ptx_op)insn->op;
    if (op == PTX_OP_ABS || op == PTX_OP_NEG) {
        LLVMValueRef x = jit_as_int(e, a, 4);
        return jit_widen(e, op == PTX_OP_NEG ? LLVMBuildXor(e->b, x, splat32(e, 0x80000000u), "")
                                             : LLVMBuildAnd(e->b, x, splat32(e, 0x7FFFFFFFu), ""));
    }
    LLVMValueRef b = jit_row_of(e, &insn->o[2]);
    if (op == PTX_OP_COPYSIGN) { /* |b| with a's sign */
        LLVMValueRef sign = LLVMBuildAnd(e->b, jit_as_int(e, a, 4), splat32(e, 0x80000000u), "");
        LLVMValueRef magnitude =
            LLVMBuildAnd(e->b, jit_as_int(e, b, 4), splat32(e, 0x7FFFFFFFu), "");
        return jit_widen(e, LLVMBuildOr(e->b, magnitude, sign, ""));
    }
    LLVMValueRef x = as_f32(e, a), y = as_f32(e, b);
    switch (op) {
    case PTX_OP_ADD:
        return canonical_f32(e, LLVMBuildFAdd(e->b, x, y, ""));
    case PTX_OP_SUB:
        return canonical_f32(e, LLVMBuildFSub(e->b, x, y, ""));
    case PTX_OP_MUL:
        return canonical_f32(e, LLVMBuildFMul(e->b, x, y, ""));
    case PTX_OP_DIV:
        return canonical_f32(e, LLVMBuildFDiv(e->b, x, y, ""));
    default: { /* fma, mad: one rounding, as fmaf */
        LLVMValueRef args[3] = {x, y, as_f32(e, jit_row_of(e, &insn->o[3]))};
        return canonical_f32(e, jit_intrinsic(e, "llvm.fma.v32f32", jit_lanes_of(e->f32), args, 3));
    }
    }
}

/* f64_propagated (exec.h): a NaN result is the first NaN operand's, quieted
 * (w NULL for two operands), else as computed. */
static LLVMValueRef propagated_f64(struct jit_emit *e, LLVMValueRef z, LLVMValueRef x,
                                   LLVMValueRef y, LLVMValueRef w)
{
    LLVMValueRef quiet = jit_splat(jit_constant64(e, F64_QUIET_BIT)), r = NULL;
    LLVMValueRef operands[] = {w, y, x}; /* the last one chosen is the first NaN */
    r = LLVMBuildBitCast(e->b, z, e->row, "");
    for (int i = 0; i < 3; i++) {
        if (!operands[i])
            continue;
        LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, operands[i], operands[i], "");
        LLVMValueRef bits = LLVMBuildBitCast(e->b, operands[i], e->row, "");
        r = LLVMBuildSelect(e->b, nan, LLVMBuildOr(e->b, bits, quiet, ""), r, "");
    }
    LLVMValueRef z_nan = LLVMBuildFCmp(e->b, LLVMRealUNO, z, z, "");
    return LLVMBuildSelect(e->b, z_nan, r, LLVMBuildBitCast(e->b, z, e->row, ""), "");
}

/* rcp and rsqrt of f64 (native_f64): arith_rcp_approx_ftz_f64 (the input
 * and the result flushed), arith_rcp_f64 to nearest, arith_rsqrt_approx_f64
 * (then flushed with .ftz); each with the canonical NaN. */
static LLVMValueRef emit_reciprocal_f64(struct jit_emit *e, const struct ptx_insn *insn,
                                        LLVMValueRef x)
{
    LLVMValueRef one = jit_splat(LLVMConstReal(e->f64, 1.0));
    if (insn->op == PTX_OP_RSQRT) {
        LLVMValueRef root = jit_intrinsic(e, "llvm.sqrt.v32f64", jit_lanes_of(e->f64), &x, 1);
        LLVMValueRef z = LLVMBuildFDiv(e->b, one, root, "");
        if (insn->flags & PTX_F_FTZ)
            z = flush_f64(e, z);
        return canonical_f64(e, z);
    }
    if (!(insn->flags & PTX_F_APPROX))
        return canonical_f64(e, LLVMBuildFDiv(e->b, one, x, ""));
    return canonical_f64(e, flush_f64(e, LLVMBuildFDiv(e->b, one, flush_f64(e, x), "")));
}

/* The f64 operations of native_f64, as the interpreter's double arithmetic:
 * abs, neg and copysign by the bits, the others one IEEE operation. */
static LLVMValueRef emit_f64(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    LLVMValueRef a = jit_row_of(e, &insn->o[1]), sign = jit_splat(jit_constant64(e, JIT_F64_SIGN));
    LLVMTypeRef doubles = jit_lanes_of(e->f64);
    LLVMValueRef x = as_f64(e, a), z;
    switch (op) {
    case PTX_OP_ABS:
        return LLVMBuildAnd(e->b, a, LLVMBuildNot(e->b, sign, ""), "");
    case PTX_OP_NEG:
        return LLVMBuildXor(e->b, a, sign, "");
    case PTX_OP_SQRT:
        return LLVMBuildBitCast(e->b, jit_intrinsic(e, "llvm.sqrt.v32f64", doubles, &x, 1), e->row,
                                "");
    case PTX_OP_RCP:
    case PTX_OP_RSQRT:
        return emit_reciprocal_f64(e, insn, x);
    default:
        break;
    }
    LLVMValueRef b = jit_row_of(e, &insn->o[2]), y = as_f64(e, b), w = NULL;
    switch (op) {
    case PTX_OP_COPYSIGN: /* |b| with a's sign */
        return LLVMBuildOr(e->b, LLVMBuildAnd(e->b, b, LLVMBuildNot(e->b, sign, ""), ""),
                           LLVMBuildAnd(e->b, a, sign, ""), "");
    case PTX_OP_ADD:
        z = LLVMBuildFAdd(e->b, x, y, "");
        break;
    case PTX_OP_SUB:
        z = LLVMBuildFSub(e->b, x, y, "");
        break;
    case PTX_OP_MUL:
        z = LLVMBuildFMul(e->b, x, y, "");
        break;
    case PTX_OP_DIV:
        z = LLVMBuildFDiv(e->b, x, y, "");
        break;
    default: { /* fma, mad: one rounding, as fma */
        w = as_f64(e, jit_row_of(e, &insn->o[3]));
        LLVMValueRef args[3] = {x, y, w};
        z = jit_intrinsic(e, "llvm.fma.v32f64", doubles, args, 3);
        break;
    }
    }
    return propagated_f64(e, z, x, y, w);
}

/* ftz32: a subnormal becomes the zero of its sign. */
static LLVMValueRef flush_f32(struct jit_emit *e, LLVMValueRef x)
{
    LLVMValueRef bits = LLVMBuildBitCast(e->b, x, jit_lanes_of(e->i32), "");
    LLVMValueRef exponent = LLVMBuildAnd(e->b, bits, splat32(e, 0x7F800000u), "");
    LLVMValueRef tiny = LLVMBuildICmp(e->b, LLVMIntEQ, exponent, splat32(e, 0), "");
    LLVMValueRef sign = LLVMBuildAnd(e->b, bits, splat32(e, 0x80000000u), "");
    return LLVMBuildBitCast(e->b, LLVMBuildSelect(e->b, tiny, sign, bits, ""), jit_lanes_of(e->f32),
                            "");
}

/* Calls float f(float) on each lane. */
static LLVMValueRef each_lane(struct jit_emit *e, float (*f)(float), LLVMValueRef x)
{
    LLVMTypeRef fty = LLVMFunctionType(e->f32, &e->f32, 1, 0);
    LLVMValueRef callee =
        LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)f, 0), e->ptr);
    LLVMValueRef z = LLVMGetUndef(jit_lanes_of(e->f32));
    for (unsigned l = 0; l < WARP_SIZE; l++) {
        LLVMValueRef index = LLVMConstInt(e->i32, l, 0);
        LLVMValueRef lane = LLVMBuildExtractElement(e->b, x, index, "");
        z = LLVMBuildInsertElement(e->b, z, LLVMBuildCall2(e->b, fty, callee, &lane, 1, ""), index,
                                   "");
    }
    return z;
}

/* arith_ex2_approx_f32's algorithm (arith.h) on every lane, the same
 * operations in the same order, before the canonical NaN. */
static LLVMValueRef emit_ex2(struct jit_emit *e, LLVMValueRef x)
{
    LLVMTypeRef doubles = jit_lanes_of(e->f64);
    LLVMValueRef low = jit_splat(LLVMConstReal(e->f64, ARITH_EX2_LOW));
    LLVMValueRef high = jit_splat(LLVMConstReal(e->f64, ARITH_EX2_HIGH));
    LLVMValueRef rounder = jit_splat(LLVMConstReal(e->f64, ARITH_EX2_ROUNDER));
    LLVMValueRef d = LLVMBuildFPExt(e->b, x, doubles, "");
    d = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOGT, d, high, ""), high, d, "");
    d = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOLT, d, low, ""), low, d, "");
    LLVMValueRef k = LLVMBuildFSub(e->b, LLVMBuildFAdd(e->b, d, rounder, ""), rounder, "");
    LLVMValueRef r = LLVMBuildFSub(e->b, d, k, "");
    LLVMValueRef p = jit_splat(LLVMConstReal(e->f64, arith_ex2_coefficients[ARITH_EX2_DEGREE]));
    for (int n = ARITH_EX2_DEGREE - 1; n >= 0; n--)
        p = LLVMBuildFAdd(e->b, LLVMBuildFMul(e->b, p, r, ""),
                          jit_splat(LLVMConstReal(e->f64, arith_ex2_coefficients[n])), "");
    LLVMValueRef exponent = LLVMBuildAdd(e->b, LLVMBuildFPToSI(e->b, k, e->row, ""),
                                         jit_splat(jit_constant64(e, 1023)), "");
    LLVMValueRef scale = LLVMBuildBitCast(
        e->b, LLVMBuildShl(e->b, exponent, jit_splat(jit_constant64(e, 52)), ""), doubles, "");
    LLVMValueRef z =
        LLVMBuildFPTrunc(e->b, LLVMBuildFMul(e->b, p, scale, ""), jit_lanes_of(e->f32), "");
    return LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealUNO, x, x, ""), x, z, "");
}

/* exec_float_unary for f32: .ftz on the input, the operation, .ftz on the
 * result, the canonical NaN. */
static LLVMValueRef emit_unary_f32(struct jit_emit *e, const struct ptx_insn *insn)
{
    bool ftz = insn->flags & PTX_F_FTZ;
    LLVMValueRef x = as_f32(e, jit_row_of(e, &insn->o[1])), z;
    if (ftz)
        x = flush_f32(e, x);
    if (insn->op == PTX_OP_RCP)
        z = LLVMBuildFDiv(e->b, jit_splat(LLVMConstReal(e->f32, 1.0)), x, "");
    else if (insn->op == PTX_OP_SQRT)
        z = jit_intrinsic(e, "llvm.sqrt.v32f32", jit_lanes_of(e->f32), &x, 1);
    else if (insn->op == PTX_OP_EX2)
        z = emit_ex2(e, x);
    else
        z = each_lane(e, approx_function((enum ptx_op)insn->op), x);
    return canonical_f32(e, ftz ? flush_f32(e, z) : z);
}

/* shl, shr (exec_shift): a count of the width or more gives 0, or the sign
 * in every bit for a signed shr. */
static LLVMValueRef emit_shift(struct jit_emit *e, const struct ptx_insn *insn, LLVMValueRef x,
                               LLVMValueRef count_row, unsigned bytes)
{
    unsigned width = 8 * bytes;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef n =
        LLVMBuildAnd(e->b, count_row, jit_splat(LLVMConstInt(e->i64, 0xFFFFFFFFu, 0)), "");
    LLVMValueRef over =
        LLVMBuildICmp(e->b, LLVMIntUGE, n, jit_splat(LLVMConstInt(e->i64, width, 0)), "");
    LLVMValueRef last = jit_splat(LLVMConstInt(e->i64, width - 1, 0));
    LLVMValueRef k = jit_as_int(e, LLVMBuildSelect(e->b, over, last, n, ""), bytes);
    if (insn->op == PTX_OP_SHR && ptx_type_is_signed((enum ptx_type)insn->type))
        return LLVMBuildAShr(e->b, x, k, "");
    LLVMValueRef r =
        insn->op == PTX_OP_SHL ? LLVMBuildShl(e->b, x, k, "") : LLVMBuildLShr(e->b, x, k, "");
    return LLVMBuildSelect(e->b, over, LLVMConstNull(t), r, "");
}

static LLVMValueRef emit_integer(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    LLVMValueRef a = jit_row_of(e, &insn->o[1]);
    if (op == PTX_OP_CVTA) { /* exec_cvta: to or from the space's window */
        uint64_t window = insn->space == PTX_SPACE_SHARED  ? SHARED_WINDOW
                          : insn->space == PTX_SPACE_LOCAL ? LOCAL_WINDOW
                                                           : 0;
        LLVMValueRef w = jit_splat(jit_constant64(e, window));
        return insn->flags & PTX_F_TO ? LLVMBuildSub(e->b, a, w, "") : LLVMBuildAdd(e->b, a, w, "");
    }
    if (op == PTX_OP_NOT)
        return jit_widen(e, LLVMBuildNot(e->b, jit_as_int(e, a, bytes), ""));
    LLVMValueRef b = jit_row_of(e, &insn->o[2]);
    if (op == PTX_OP_MUL && (insn->flags & (PTX_F_WIDE | PTX_F_HI))) { /* of 32 bits */
        LLVMValueRef x = jit_as_int(e, a, 4), y = jit_as_int(e, b, 4);
        bool s = insn->type == PTX_S32;
        x = s ? LLVMBuildSExt(e->b, x, e->row, "") : LLVMBuildZExt(e->b, x, e->row, "");
        y = s ? LLVMBuildSExt(e->b, y, e->row, "") : LLVMBuildZExt(e->b, y, e->row, "");
        LLVMValueRef full = LLVMBuildMul(e->b, x, y, "");
        if (insn->flags & PTX_F_WIDE)
            return full;
        return LLVMBuildLShr(e->b, full, jit_splat(jit_constant64(e, 32)), ""); /* .hi */
    }
    LLVMValueRef x = jit_as_int(e, a, bytes);
    if (op == PTX_OP_SHL || op == PTX_OP_SHR)
        return jit_widen(e, emit_shift(e, insn, x, b, bytes));
    LLVMValueRef y = jit_as_int(e, b, bytes);
    switch (op) {
    case PTX_OP_ADD:
        return jit_widen(e, LLVMBuildAdd(e->b, x, y, ""));
    case PTX_OP_SUB:
        return jit_widen(e, LLVMBuildSub(e->b, x, y, ""));
    case PTX_OP_AND:
        return jit_widen(e, LLVMBuildAnd(e->b, x, y, ""));
    case PTX_OP_OR:
        return jit_widen(e, LLVMBuildOr(e->b, x, y, ""));
    case PTX_OP_XOR:
        return jit_widen(e, LLVMBuildXor(e->b, x, y, ""));
    case PTX_OP_MAD: {
        LLVMValueRef z = jit_as_int(e, jit_row_of(e, &insn->o[3]), bytes);
        return jit_widen(e, LLVMBuildAdd(e->b, LLVMBuildMul(e->b, x, y, ""), z, ""));
    }
    default:
        return jit_widen(e, LLVMBuildMul(e->b, x, y, ""));
    }
}

/* Integral doubles clamped to the range of a `bits`-wide integer (at most
 * 32: its bounds are doubles), NaN to 0: what llvm.fpto[su]i.sat gives,
 * as compares and selects, which vectorize (the intrinsic's saturation is
 * lane by lane on x86). */
static LLVMValueRef saturated(struct jit_emit *e, LLVMValueRef x, unsigned bits, bool sgn)
{
    LLVMTypeRef doubles = jit_lanes_of(e->f64);
    double lo = sgn ? -ldexp(1, (int)bits - 1) : 0,
           hi = sgn ? ldexp(1, (int)bits - 1) - 1 : ldexp(1, (int)bits) - 1;
    LLVMValueRef low = jit_splat(LLVMConstReal(e->f64, lo)),
                 high = jit_splat(LLVMConstReal(e->f64, hi));
    x = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOLT, x, low, ""), low, x, "");
    x = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOGT, x, high, ""), high, x, "");
    return LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealUNO, x, x, ""), LLVMConstNull(doubles),
                           x, "");
}

/* Floats (f32 or f64 lanes) rounded to integral values in an integral
 * mode (arith.c's round_integral). */
static LLVMValueRef round_integral(struct jit_emit *e, LLVMValueRef x, enum arith_rounding mode)
{
    static const char *const rounding[] = {
        [ARITH_RN] = "roundeven", [ARITH_RZ] = "trunc", [ARITH_RM] = "floor", [ARITH_RP] = "ceil"};
    LLVMTypeRef type = LLVMTypeOf(x);
    char name[64];
    snprintf(name, sizeof name, "llvm.%s.v32f%u", rounding[mode],
             LLVMGetElementType(type) == e->f32 ? 32 : 64);
    return jit_intrinsic(e, name, type, &x, 1);
}

/* cvt_to_float of a float source (native_cvt): the value (an f32 flushed
 * with .ftz), rounded to an integral value for a conversion to its own
 * type, widened exactly or narrowed to nearest; an f32 result flushed with
 * .ftz; the canonical NaN. */
static LLVMValueRef emit_cvt_between_floats(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type, from = (enum ptx_type)insn->type2;
    bool ftz = insn->flags & PTX_F_FTZ;
    LLVMValueRef row = jit_row_of(e, &insn->o[1]);
    LLVMValueRef x = from == PTX_F32 ? as_f32(e, row) : as_f64(e, row);
    if (from == PTX_F32 && ftz)
        x = flush_f32(e, x);
    if (to == from)
        x = round_integral(e, x, cvt_mode(insn, ARITH_RN));
    else if (to == PTX_F64)
        x = LLVMBuildFPExt(e->b, x, jit_lanes_of(e->f64), "");
    else
        x = LLVMBuildFPTrunc(e->b, x, jit_lanes_of(e->f32), "");
    if (to == PTX_F64)
        return canonical_f64(e, x);
    return canonical_f32(e, ftz ? flush_f32(e, x) : x);
}

/* cvt_to_integer for a float source: the value (an f32 flushed with .ftz)
 * as a double, rounded to an integral value in the mode, saturated to the
 * type with NaN giving 0 (`saturated`, or llvm.fpto[su]i.sat for 64 bits),
 * extended as the type is. */
static LLVMValueRef emit_cvt_from_float(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type;
    LLVMTypeRef doubles = jit_lanes_of(e->f64);
    LLVMValueRef row = jit_row_of(e, &insn->o[1]), x;
    if (insn->type2 == PTX_F32) {
        x = as_f32(e, row);
        x = LLVMBuildFPExt(e->b, insn->flags & PTX_F_FTZ ? flush_f32(e, x) : x, doubles, "");
    } else {
        x = as_f64(e, row);
    }
    x = round_integral(e, x, cvt_mode(insn, ARITH_RZ));
    char name[64];
    bool sgn = ptx_type_is_signed(to);
    unsigned bits = 8 * ptx_type_bytes(to);
    LLVMTypeRef result = jit_lanes_of(LLVMIntTypeInContext(e->ctx, bits));
    if (bits == 64) {
        snprintf(name, sizeof name, "llvm.fpto%ci.sat.v32i64.v32f64", sgn ? 's' : 'u');
        return jit_intrinsic(e, name, result, &x, 1);
    }
    LLVMValueRef v = sgn ? LLVMBuildFPToSI(e->b, saturated(e, x, bits, sgn), result, "")
                         : LLVMBuildFPToUI(e->b, saturated(e, x, bits, sgn), result, "");
    return sgn ? LLVMBuildSExt(e->b, v, e->row, "") : LLVMBuildZExt(e->b, v, e->row, "");
}

/* cvt_to_float for an integer source, to nearest: one IEEE conversion. */
static LLVMValueRef emit_cvt_to_float(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type from = (enum ptx_type)insn->type2;
    LLVMValueRef v = jit_as_int(e, jit_row_of(e, &insn->o[1]), ptx_type_bytes(from));
    LLVMTypeRef type = jit_lanes_of(insn->type == PTX_F32 ? e->f32 : e->f64);
    v = ptx_type_is_signed(from) ? LLVMBuildSIToFP(e->b, v, type, "")
                                 : LLVMBuildUIToFP(e->b, v, type, "");
    if (insn->type == PTX_F64)
        return LLVMBuildBitCast(e->b, v, e->row, "");
    return jit_widen(e, LLVMBuildBitCast(e->b, v, jit_lanes_of(e->i32), ""));
}

/* cvt between integer types (exec_cvt's direct path): the source's width,
 * extended by its sign, then the destination's width; the other native
 * conversions above. */
static LLVMValueRef emit_cvt(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type, from = (enum ptx_type)insn->type2;
    bool to_float = to == PTX_F32 || to == PTX_F64;
    if ((from == PTX_F32 || from == PTX_F64) && to_float)
        return emit_cvt_between_floats(e, insn);
    if (from == PTX_F32 || from == PTX_F64)
        return emit_cvt_from_float(e, insn);
    if (to_float)
        return emit_cvt_to_float(e, insn);
    unsigned tb = ptx_type_bytes(to), fb = ptx_type_bytes(from);
    LLVMValueRef v = jit_as_int(e, jit_row_of(e, &insn->o[1]), fb);
    if (fb < 8)
        v = ptx_type_is_signed(from) && fb < tb ? LLVMBuildSExt(e->b, v, e->row, "")
                                                : LLVMBuildZExt(e->b, v, e->row, "");
    return jit_widen(e, jit_as_int(e, v, tb));
}

/* exec_mov's pack (the parts' low bits side by side, into one row) and
 * unpack (each part's bits of the source, into its row). */
static void emit_mov_vector(struct jit_emit *e, const struct ptx_insn *insn)
{
    const struct ptx_operand *d = &insn->o[0], *a = &insn->o[1];
    const struct ptx_operand *parts = a->kind == PTX_OPD_VEC ? a : d;
    unsigned bits = 8 * ptx_type_bytes((enum ptx_type)insn->type) / parts->count;
    LLVMValueRef keep = jit_splat(jit_constant64(e, bits >= 64 ? ~0ull : (1ull << bits) - 1));
    LLVMValueRef v = a->kind == PTX_OPD_VEC ? LLVMConstNull(e->row) : jit_row_of(e, a);
    for (unsigned i = 0; i < parts->count; i++) {
        if (parts->vec[i] == PTX_NO_REG)
            continue;
        LLVMValueRef shift = jit_splat(jit_constant64(e, (uint64_t)bits * i));
        if (a->kind == PTX_OPD_VEC) {
            struct ptx_operand part = {.kind = PTX_OPD_REG, .reg = a->vec[i]};
            LLVMValueRef low = LLVMBuildAnd(e->b, jit_row_of(e, &part), keep, "");
            v = LLVMBuildOr(e->b, v, LLVMBuildShl(e->b, low, shift, ""), "");
        } else {
            jit_write_row(e, d->vec[i],
                          LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, v, shift, ""), keep, ""));
        }
    }
    if (a->kind == PTX_OPD_VEC)
        jit_write_row(e, d->reg, v);
}

static LLVMValueRef emit_mov(struct jit_emit *e, const struct ptx_insn *insn)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    return jit_widen(e, jit_as_int(e, jit_row_of(e, &insn->o[1]), bytes));
}

static LLVMIntPredicate int_predicate(enum ptx_cmp c, bool sgn)
{
    switch (c) {
    case PTX_CMP_EQ:
        return LLVMIntEQ;
    case PTX_CMP_NE:
        return LLVMIntNE;
    case PTX_CMP_LT:
        return sgn ? LLVMIntSLT : LLVMIntULT;
    case PTX_CMP_LE:
        return sgn ? LLVMIntSLE : LLVMIntULE;
    case PTX_CMP_GT:
        return sgn ? LLVMIntSGT : LLVMIntUGT;
    case PTX_CMP_GE:
        return sgn ? LLVMIntSGE : LLVMIntUGE;
    case PTX_CMP_LO:
        return LLVMIntULT;
    case PTX_CMP_LS:
        return LLVMIntULE;
    case PTX_CMP_HI:
        return LLVMIntUGT;
    default:
        return LLVMIntUGE;
    }
}

/* compare_float: ordered comparisons are false on NaN, unordered ones true. */
static LLVMRealPredicate real_predicate(enum ptx_cmp c)
{
    static const LLVMRealPredicate map[] = {
        [PTX_CMP_EQ] = LLVMRealOEQ,  [PTX_CMP_NE] = LLVMRealONE,  [PTX_CMP_LT] = LLVMRealOLT,
        [PTX_CMP_LE] = LLVMRealOLE,  [PTX_CMP_GT] = LLVMRealOGT,  [PTX_CMP_GE] = LLVMRealOGE,
        [PTX_CMP_EQU] = LLVMRealUEQ, [PTX_CMP_NEU] = LLVMRealUNE, [PTX_CMP_LTU] = LLVMRealULT,
        [PTX_CMP_LEU] = LLVMRealULE, [PTX_CMP_GTU] = LLVMRealUGT, [PTX_CMP_GEU] = LLVMRealUGE,
        [PTX_CMP_NUM] = LLVMRealORD, [PTX_CMP_NAN] = LLVMRealUNO,
    };
    return c < sizeof map / sizeof map[0] && c != PTX_CMP_LO && c != PTX_CMP_LS &&
                   c != PTX_CMP_HI && c != PTX_CMP_HS
               ? map[c]
               : LLVMRealPredicateFalse;
}

/* setp.CMP[.BOOL].type p, a, b[, c] (exec_setp, compare_lanes). */
static void emit_setp(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    enum ptx_cmp c = (enum ptx_cmp)insn->cmp;
    LLVMValueRef a = jit_row_of(e, &insn->o[1]), b = jit_row_of(e, &insn->o[2]), r;
    if (t == PTX_F32)
        r = LLVMBuildFCmp(e->b, real_predicate(c), as_f32(e, a), as_f32(e, b), "");
    else if (t == PTX_F64)
        r = LLVMBuildFCmp(e->b, real_predicate(c), as_f64(e, a), as_f64(e, b), "");
    else if (c <= PTX_CMP_HS)
        r = LLVMBuildICmp(e->b, int_predicate(c, ptx_type_is_signed(t)),
                          jit_as_int(e, a, ptx_type_bytes(t)), jit_as_int(e, b, ptx_type_bytes(t)),
                          "");
    else
        r = LLVMConstNull(e->lanes);
    LLVMValueRef v = LLVMBuildBitCast(e->b, r, e->i32, "");
    if (insn->bool_op != PTX_BOOL_NONE) {
        LLVMValueRef with = pred_of(e, &insn->o[3]);
        v = insn->bool_op == PTX_BOOL_AND  ? LLVMBuildAnd(e->b, v, with, "")
            : insn->bool_op == PTX_BOOL_OR ? LLVMBuildOr(e->b, v, with, "")
                                           : LLVMBuildXor(e->b, v, with, "");
    }
    set_pred(e, insn->o[0].reg, v);
}

/* selp d, a, b, c: a where c, else b (whole slots, exec_selp). */
static LLVMValueRef emit_selp(struct jit_emit *e, const struct ptx_insn *insn)
{
    LLVMValueRef c = LLVMBuildBitCast(e->b, pred_of(e, &insn->o[3]), e->lanes, "");
    return LLVMBuildSelect(e->b, c, jit_row_of(e, &insn->o[1]), jit_row_of(e, &insn->o[2]), "");
}

static void emit_predicate(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    LLVMValueRef x = pred_of(e, &insn->o[1]);
    LLVMValueRef y = insn->n_operands > 2 ? pred_of(e, &insn->o[2]) : NULL;
    LLVMValueRef r = op == PTX_OP_AND   ? LLVMBuildAnd(e->b, x, y, "")
                     : op == PTX_OP_OR  ? LLVMBuildOr(e->b, x, y, "")
                     : op == PTX_OP_XOR ? LLVMBuildXor(e->b, x, y, "")
                     : op == PTX_OP_NOT ? LLVMBuildNot(e->b, x, "")
                                        : x;
    set_pred(e, insn->o[0].reg, r);
}

static void emit_native(struct jit_emit *e, const struct ptx_insn *insn)
{
    LLVMValueRef v;
    if (insn->type == PTX_PRED) {
        emit_predicate(e, insn);
        return;
    }
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_SETP:
        emit_setp(e, insn);
        return;
    case PTX_OP_MOV:
        if (native_mov_vector(insn)) {
            emit_mov_vector(e, insn);
            return;
        }
        v = emit_mov(e, insn);
        break;
    case PTX_OP_SELP:
        v = emit_selp(e, insn);
        break;
    case PTX_OP_CVT:
        v = emit_cvt(e, insn);
        break;
    default:
        v = insn->type == PTX_F64   ? emit_f64(e, insn)
            : insn->type != PTX_F32 ? emit_integer(e, insn)
            : native_f32(insn)      ? emit_f32(e, insn)
                                    : emit_unary_f32(e, insn);
        break;
    }
    jit_write_row(e, insn->o[0].reg, v);
}

/* ------------------------------------------------------------- regions */

/* Whether operand o is a register that may_share marks. */
static bool marked(const uint8_t *may_share, const struct ptx_function *fn,
                   const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_REG && o->reg < fn->n_regs && may_share[o->reg];
}

/* Per register: whether it may hold a generic address in the shared window
 * (a cvta's from shared memory, or what mov, add or sub make of one: how
 * numba reaches its shared arrays, with generic loads and stores). A hint
 * for the compiled code, which tests the lanes' addresses anyway; NULL
 * when out of memory. */
static uint8_t *shared_pointers(const struct ptx_function *fn)
{
    uint8_t *may_share = calloc(fn->n_regs + 1, 1);
    bool changed = may_share != NULL;
    while (changed) { /* until no register is added: a loop's pointers */
        changed = false;
        for (uint32_t pc = 0; pc < fn->n_code; pc++) {
            const struct ptx_insn *insn = &fn->code[pc];
            const struct ptx_operand *d = &insn->o[0];
            enum ptx_op op = (enum ptx_op)insn->op;
            if (d->kind != PTX_OPD_REG || d->reg >= fn->n_regs || may_share[d->reg] ||
                !ptx_writes_first_operand(insn))
                continue;
            bool from_shared =
                op == PTX_OP_CVTA && insn->space == PTX_SPACE_SHARED && !(insn->flags & PTX_F_TO);
            bool moved = (op == PTX_OP_MOV || op == PTX_OP_ADD || op == PTX_OP_SUB) &&
                         marked(may_share, fn, &insn->o[1]);
            bool added = op == PTX_OP_ADD && marked(may_share, fn, &insn->o[2]);
            if (from_shared || moved || added) {
                may_share[d->reg] = 1;
                changed = true;
            }
        }
    }
    return may_share;
}

void jit_emit_init(struct jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod,
                   const struct ptx_function *fn)
{
    *e = (struct jit_emit){.ctx = ctx, .mod = mod, .fn = fn};
    e->b = LLVMCreateBuilderInContext(ctx);
    e->i1 = LLVMInt1TypeInContext(ctx);
    e->i8 = LLVMInt8TypeInContext(ctx);
    e->i32 = LLVMInt32TypeInContext(ctx);
    e->i64 = LLVMInt64TypeInContext(ctx);
    e->f32 = LLVMFloatTypeInContext(ctx);
    e->f64 = LLVMDoubleTypeInContext(ctx);
    e->ptr = LLVMPointerTypeInContext(ctx, 0);
    e->row = jit_lanes_of(e->i64);
    e->lanes = jit_lanes_of(e->i1);
    LLVMTypeRef region[] = {e->ptr, e->ptr, e->i32, e->ptr};
    e->region_ty = LLVMFunctionType(e->i32, region, 4, 0);
    LLVMTypeRef interpret[] = {e->ptr, e->ptr, e->i32, e->i32};
    e->interpret_ty = LLVMFunctionType(e->i32, interpret, 4, 0);
    LLVMTypeRef issue[] = {e->ptr, e->ptr, e->i32};
    e->issue_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), issue, 3, 0);
    LLVMTypeRef account[] = {e->ptr, e->ptr, e->i32, e->i32, e->ptr};
    e->account_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), account, 5, 0);
    LLVMTypeRef sectors[] = {e->ptr, e->ptr, e->i32, e->i64, e->i64, e->i64, e->i64};
    e->sectors_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), sectors, 7, 0);
    make_tbaa(e);
    e->shared_pointer = shared_pointers(fn);
}

void jit_emit_done(struct jit_emit *e)
{
    LLVMDisposeBuilder(e->b);
    free(e->shared_pointer);
}

LLVMBasicBlockRef jit_block(struct jit_emit *e, const char *name)
{
    return LLVMAppendBasicBlockInContext(e->ctx, e->func, name);
}

/* Adds `delta` to the u64 at offset of the warp. */
static void add_to_warp(struct jit_emit *e, size_t offset, int64_t delta)
{
    LLVMValueRef v = jit_load(e, JIT_WARP, e->i64, e->w, offset);
    jit_store(e, JIT_WARP, LLVMBuildAdd(e->b, v, LLVMConstInt(e->i64, (uint64_t)delta, 1), ""),
              e->w, offset);
}

/* Counts the region's instructions up front, or returns JIT_INTERPRET when
 * the budget's check would fall inside it. */
static void emit_prologue(struct jit_emit *e, uint32_t n, uint32_t native)
{
    LLVMValueRef since = jit_load(e, JIT_WARP, e->i64, e->w, offsetof(struct warp, since_check));
    LLVMValueRef after = LLVMBuildAdd(e->b, since, LLVMConstInt(e->i64, n, 0), "");
    LLVMBasicBlockRef interpret = jit_block(e, "interpret"), go = jit_block(e, "go");
    LLVMBuildCondBr(
        e->b,
        LLVMBuildICmp(e->b, LLVMIntUGE, after, LLVMConstInt(e->i64, BUDGET_CHECK_INTERVAL, 0), ""),
        interpret, go);
    LLVMPositionBuilderAtEnd(e->b, interpret);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_INTERPRET, 0));
    LLVMPositionBuilderAtEnd(e->b, go);
    jit_store(e, JIT_WARP, after, e->w, offsetof(struct warp, since_check));
    add_to_warp(e, offsetof(struct warp, instructions), n);
    add_to_warp(e, offsetof(struct warp, compiled), native);
    e->regs = jit_load(e, JIT_FRAME, e->ptr, e->f, offsetof(struct frame, regs));
    e->preds = jit_load(e, JIT_FRAME, e->ptr, e->f, offsetof(struct frame, preds));
    e->ready = jit_load(e, JIT_FRAME, e->ptr, e->f, offsetof(struct frame, ready));
}

LLVMValueRef jit_constant_pointer(struct jit_emit *e, void (*fn)(void))
{
    return LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)fn, 0), e->ptr);
}

/* Calls int helper(w, f, pc, mask) for instruction pc; when it returns
 * nonzero (a fault), the counts of the instructions after it (`later`,
 * `later_native` of them native) are taken back and the region returns
 * JIT_FAULTED. */
void jit_emit_checked_call(struct jit_emit *e,
                           int (*helper)(struct warp *, struct frame *, uint32_t, uint32_t),
                           uint32_t pc, uint32_t later, uint32_t later_native)
{
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), e->mask};
    LLVMValueRef status = LLVMBuildCall2(
        e->b, e->interpret_ty, jit_constant_pointer(e, (void (*)(void))helper), args, 4, "");
    LLVMBasicBlockRef fault = jit_block(e, "fault"), go = jit_block(e, "go");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, status, LLVMConstInt(e->i32, 0, 0), ""),
                    fault, go);
    LLVMPositionBuilderAtEnd(e->b, fault);
    add_to_warp(e, offsetof(struct warp, since_check), -(int64_t)later);
    add_to_warp(e, offsetof(struct warp, instructions), -(int64_t)later);
    add_to_warp(e, offsetof(struct warp, compiled), -(int64_t)later_native);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_FAULTED, 0));
    LLVMPositionBuilderAtEnd(e->b, go);
}

/* A kernel parameter (native_param_load): one load from the launch's
 * parameter buffer, its value in every lane of the mask. The pointers on
 * the way to the buffer are never written while a region runs. */
static void emit_param_load(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    unsigned bytes = ptx_type_bytes(t);
    LLVMValueRef block = jit_load(e, JIT_WARP, e->ptr, e->w, offsetof(struct warp, block));
    LLVMValueRef launch = jit_load(e, JIT_WARP, e->ptr, block, offsetof(struct block, launch));
    LLVMValueRef cfg = jit_load(e, JIT_WARP, e->ptr, launch, offsetof(struct launch_state, cfg));
    LLVMValueRef params = jit_load(e, JIT_WARP, e->ptr, cfg, offsetof(struct emu_launch, params));
    LLVMTypeRef type = LLVMIntTypeInContext(e->ctx, 8 * bytes);
    LLVMValueRef v = LLVMBuildLoad2(e->b, type, jit_at(e, params, (uint64_t)insn->o[1].imm), "");
    LLVMSetAlignment(v, 1);
    v = bytes == 8              ? v
        : ptx_type_is_signed(t) ? LLVMBuildSExt(e->b, v, e->i64, "")
                                : LLVMBuildZExt(e->b, v, e->i64, "");
    jit_write_row(e, insn->o[0].reg, jit_splat_value(e, v));
}

static LLVMValueRef top_entry(struct jit_emit *e)
{
    LLVMValueRef depth = jit_load(e, JIT_WARP, e->i32, e->w, offsetof(struct warp, depth));
    LLVMValueRef index =
        LLVMBuildSExt(e->b, LLVMBuildSub(e->b, depth, LLVMConstInt(e->i32, 1, 0), ""), e->i64, "");
    LLVMValueRef offset = LLVMBuildAdd(
        e->b, jit_constant64(e, offsetof(struct warp, stack)),
        LLVMBuildMul(e->b, index, jit_constant64(e, sizeof(struct simt_entry)), ""), "");
    return LLVMBuildGEP2(e->b, e->i8, e->w, &offset, 1, "");
}

static void set_pc(struct jit_emit *e, LLVMValueRef entry, uint32_t pc)
{
    jit_store(e, JIT_WARP, LLVMConstInt(e->i32, pc, 0), entry, offsetof(struct simt_entry, pc));
}

/* The branch that ends a region (branch() in interp.c): when no lane or
 * every lane of the entry takes it, the entry moves on — and a loop back to
 * the region's start runs again at once, unless the entry reconverges
 * there; a divergent branch updates the SIMT stack through interp_branch.
 * `head` is the region's prologue. */
static void emit_branch(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                        uint32_t start, LLVMValueRef entry_mask, LLVMBasicBlockRef head)
{
    LLVMValueRef entry = top_entry(e);
    LLVMBasicBlockRef none = jit_block(e, "none"), all = jit_block(e, "all"),
                      split = jit_block(e, "split"), other = jit_block(e, "other"),
                      leave = jit_block(e, "leave");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, e->mask, LLVMConstInt(e->i32, 0, 0), ""),
                    none, other);
    LLVMPositionBuilderAtEnd(e->b, other);
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, e->mask, entry_mask, ""), all, split);
    LLVMPositionBuilderAtEnd(e->b, none);
    set_pc(e, entry, pc + 1);
    LLVMBuildBr(e->b, leave);
    LLVMPositionBuilderAtEnd(e->b, all);
    set_pc(e, entry, insn->target);
    if (insn->target == start) {
        LLVMValueRef reconv =
            jit_load(e, JIT_WARP, e->i32, entry, offsetof(struct simt_entry, reconv));
        LLVMBuildCondBr(e->b,
                        LLVMBuildICmp(e->b, LLVMIntEQ, reconv, LLVMConstInt(e->i32, start, 0), ""),
                        leave, head);
    } else {
        LLVMBuildBr(e->b, leave);
    }
    LLVMPositionBuilderAtEnd(e->b, split);
    LLVMTypeRef params[] = {e->ptr, e->i32, e->i32};
    LLVMTypeRef fty = LLVMFunctionType(e->i1, params, 3, 0);
    LLVMValueRef args[] = {e->w, LLVMConstInt(e->i32, pc, 0), e->mask};
    LLVMValueRef ok = LLVMBuildCall2(
        e->b, fty, jit_constant_pointer(e, (void (*)(void))interp_branch), args, 3, "");
    LLVMBasicBlockRef fault = jit_block(e, "fault");
    LLVMBuildCondBr(e->b, ok, leave, fault);
    LLVMPositionBuilderAtEnd(e->b, fault);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_FAULTED, 0));
    LLVMPositionBuilderAtEnd(e->b, leave);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_BRANCHED, 0));
}

void jit_emit_region(struct jit_emit *e, uint32_t start, uint32_t end, const char *name)
{
    const struct ptx_insn *code = e->fn->code;
    uint32_t native = 0, n = end - start;
    for (uint32_t pc = start; pc < end; pc++)
        native += jit_native(&code[pc], e->fn) || jit_branch(&code[pc]);
    e->func = LLVMAddFunction(e->mod, name, e->region_ty);
    e->w = LLVMGetParam(e->func, 0);
    e->f = LLVMGetParam(e->func, 1);
    LLVMValueRef entry_mask = LLVMGetParam(e->func, 2);
    e->latency = LLVMGetParam(e->func, 3);
    LLVMPositionBuilderAtEnd(e->b, jit_block(e, "entry"));
    e->addresses = LLVMBuildAlloca(e->b, e->row, "addresses");
    LLVMBasicBlockRef head = jit_block(e, "head");
    LLVMBuildBr(e->b, head);
    LLVMPositionBuilderAtEnd(e->b, head);
    emit_prologue(e, n, native);
    for (uint32_t pc = start; pc < end; pc++) {
        const struct ptx_insn *insn = &code[pc];
        bool is_branch = jit_branch(insn), is_native = is_branch || jit_native(insn, e->fn);
        native -= is_native;
        if (is_native)
            jit_emit_issue(e, pc);
        e->mask = entry_mask;
        if (insn->guard != PTX_NO_REG) {
            struct ptx_operand guard = {
                .kind = PTX_OPD_PRED, .reg = insn->guard, .neg = insn->guard_neg};
            e->mask = LLVMBuildAnd(e->b, entry_mask, pred_of(e, &guard), "");
        }
        if (is_branch) /* the last one */
            emit_branch(e, insn, pc, start, entry_mask, head);
        else if (is_native && jit_call_param(insn, e->fn))
            jit_emit_call_param(e, insn);
        else if (is_native && insn->op == PTX_OP_LD && insn->space == PTX_SPACE_PARAM)
            emit_param_load(e, insn);
        else if (is_native && (insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED) &&
                 insn->space != PTX_SPACE_SHARED)
            jit_emit_checked_call(e, add_deferred, pc, end - pc - 1, native);
        else if (is_native && (insn->op == PTX_OP_LD || insn->op == PTX_OP_ST ||
                               insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED))
            jit_emit_memory(e, insn, pc, end - pc - 1, native);
        else if (is_native)
            emit_native(e, insn);
        else
            jit_emit_checked_call(e, interpret_one, pc, end - pc - 1, native);
    }
    if (!jit_branch(&code[end - 1]))
        LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_RAN, 0));
}
