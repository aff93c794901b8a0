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
 * that did not run taken back.
 */
#include "jit_emit.h"

#include "exec.h"
#include "half.h"
#include "jit.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define HOST_LINE_BYTES    64
#define PREFETCH_LINES_MAX 4 /* a warp's 8-byte accesses, side by side */

/* ------------------------------------------------ called from the code */

/* The interpreter's operation for instruction pc, for the lanes of m (not
 * 0): the checked path of a global load or store whose fast path did not
 * apply (a lane outside the cached allocations, misaligned, out of bounds:
 * mem_load and mem_store record the fault). */
static int execute_checked(struct warp *w, struct frame *f, uint32_t pc, uint32_t m)
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
    return m == 0 ? 0 : execute_checked(w, f, pc, m);
}

/* An add whose result nothing reads (native_deferred_add). */
static int add_deferred(struct warp *w, struct frame *f, uint32_t pc, uint32_t m)
{
    return mem_add_deferred(w, f, &f->fn->code[pc], m) ? 0 : 1;
}

/* The fast paths' requests, for the timing model: of global addresses,
 * and of offsets in the block's shared memory. */
static void account_global(struct warp *w, struct frame *f, uint32_t pc, uint32_t m,
                           const uint64_t *address)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    mem_account_global(w, insn, m, address, ptx_type_bytes((enum ptx_type)insn->type),
                       insn->op == PTX_OP_ST ? TIMING_WRITE : TIMING_READ);
}

/* A global request whose sectors the compiled code found (emit_global_request). */
static void account_sectors(struct warp *w, struct frame *f, uint32_t pc, uint64_t base0,
                            uint64_t bits0, uint64_t base1, uint64_t bits1)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    struct timing_launch *t = &w->block->launch->timing;
    timing_global_sectors(&w->timing, t, &w->block->log, insn, base0, bits0, base1, bits1,
                          insn->op == PTX_OP_ST ? TIMING_WRITE : TIMING_READ);
}

static void account_shared(struct warp *w, struct frame *f, uint32_t pc, uint32_t m,
                           const uint64_t *offset)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    enum timing_access kind = insn->op == PTX_OP_ST   ? TIMING_WRITE
                              : insn->op == PTX_OP_LD ? TIMING_READ
                                                      : TIMING_ATOMIC;
    mem_account_shared(w, insn, m, offset, ptx_type_bytes((enum ptx_type)insn->type), kind);
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
 * immediate: the module's load wrote it into the operand, and the cache's
 * key covers it. */
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
        if (insn->flags & PTX_F_WIDE)
            return bytes == 4 && plain_operands(insn, 3);
        return plain && plain_operands(insn, 3);
    case PTX_OP_MAD:
        return plain && bytes == 4 && plain_operands(insn, 4);
    case PTX_OP_AND:
    case PTX_OP_OR:
    case PTX_OP_XOR:
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        return plain_operands(insn, 3);
    case PTX_OP_NOT:
        return plain_operands(insn, 2);
    case PTX_OP_CVTA:
        return insn->space == PTX_SPACE_GLOBAL && bytes == 8 && plain_operands(insn, 2);
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
 * saturates); an integer to f32 or f64 rounded to nearest. */
static bool native_cvt(const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type, from = (enum ptx_type)insn->type2;
    if (half_converts(insn) || !plain_operands(insn, 2))
        return false;
    bool from_float = from == PTX_F32 || from == PTX_F64, to_float = to == PTX_F32 || to == PTX_F64;
    if (from_float && is_cvt_integer(to))
        return cvt_mode(insn, ARITH_RZ) <= ARITH_RP;
    if (is_cvt_integer(from) && to_float)
        return cvt_mode(insn, ARITH_RN) == ARITH_RN && !(insn->flags & PTX_F_SAT);
    return !(insn->flags & (PTX_F_HAS_RND | PTX_F_SAT)) && is_cvt_integer(to) &&
           is_cvt_integer(from);
}

/* ld and st of one 4- or 8-byte register in global memory (or generic,
 * which the fast path takes only for global addresses) or shared memory:
 * mem_load's and mem_store's fast paths, compiled, and their checked path
 * called. */
static bool native_memory(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    if ((op != PTX_OP_LD && op != PTX_OP_ST) || insn->n_operands != 2 ||
        (insn->space != PTX_SPACE_GLOBAL && insn->space != PTX_SPACE_GENERIC &&
         insn->space != PTX_SPACE_SHARED) ||
        (bytes != 4 && bytes != 8))
        return false;
    const struct ptx_operand *a = &insn->o[op == PTX_OP_LD ? 1 : 0];
    const struct ptx_operand *v = &insn->o[op == PTX_OP_LD ? 0 : 1];
    return a->kind == PTX_OPD_ADDR && !(a->count == 1 && a->space == PTX_SPACE_LOCAL) &&
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
static bool never_read(const struct ptx_function *fn, uint32_t reg)
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
                   (insn->o[0].reg == PTX_NO_REG || never_read(fn, insn->o[0].reg)));
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

bool jit_native(const struct ptx_insn *insn, const struct ptx_function *fn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    if (half_executes(insn) || insn->flags & PTX_F_ORDERED) /* ordered: JIT.md, "Deferred adds" */
        return false;
    if (t == PTX_PRED)
        return native_predicate(insn);
    if (native_param_load(insn, fn))
        return true;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_MOV:
        return t != PTX_PRED && ptx_type_bytes(t) >= 1 && ptx_type_bytes(t) <= 8 &&
               plain_operands(insn, 2);
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
        return t == PTX_F32 ? native_f32(insn) || native_unary_f32(insn) : native_integer(insn);
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

static LLVMTypeRef lanes_of(LLVMTypeRef element)
{
    return LLVMVectorType(element, WARP_SIZE);
}

static LLVMValueRef splat(LLVMValueRef constant)
{
    LLVMValueRef lanes[WARP_SIZE];
    for (int l = 0; l < WARP_SIZE; l++)
        lanes[l] = constant;
    return LLVMConstVector(lanes, WARP_SIZE);
}

static LLVMValueRef constant64(struct jit_emit *e, uint64_t v)
{
    return LLVMConstInt(e->i64, v, 0);
}

/* A value computed at run time, in all 32 slots. */
static LLVMValueRef splat_value(struct jit_emit *e, LLVMValueRef v)
{
    LLVMTypeRef type = lanes_of(LLVMTypeOf(v));
    LLVMValueRef one =
        LLVMBuildInsertElement(e->b, LLVMGetPoison(type), v, LLVMConstInt(e->i32, 0, 0), "");
    return LLVMBuildShuffleVector(e->b, one, LLVMGetPoison(type), LLVMConstNull(lanes_of(e->i32)),
                                  "");
}

static LLVMValueRef splat32(struct jit_emit *e, uint32_t v)
{
    return splat(LLVMConstInt(e->i32, v, 0));
}

/* A source operand's 32 slots (a register's row, or the immediate in each). */
static LLVMValueRef row_of(struct jit_emit *e, const struct ptx_operand *o)
{
    if (is_immediate(o))
        return splat(LLVMConstInt(e->i64, (uint64_t)o->imm, 0));
    LLVMValueRef v = jit_load(e, JIT_ROW, e->row, e->regs, (uint64_t)o->reg * sizeof(lanes_t));
    LLVMSetAlignment(v, 8);
    return v;
}

/* The slots as values of an integer width. */
static LLVMValueRef as_int(struct jit_emit *e, LLVMValueRef row, unsigned bytes)
{
    if (bytes == 8)
        return row;
    return LLVMBuildTrunc(e->b, row, lanes_of(LLVMIntTypeInContext(e->ctx, 8 * bytes)), "");
}

static LLVMValueRef as_f32(struct jit_emit *e, LLVMValueRef row)
{
    return LLVMBuildBitCast(e->b, as_int(e, row, 4), lanes_of(e->f32), "");
}

static LLVMValueRef as_f64(struct jit_emit *e, LLVMValueRef row)
{
    return LLVMBuildBitCast(e->b, row, lanes_of(e->f64), "");
}

/* Integer lanes back into slots, zero-extended as the interpreter writes. */
static LLVMValueRef widen(struct jit_emit *e, LLVMValueRef v)
{
    LLVMTypeRef element = LLVMGetElementType(LLVMTypeOf(v));
    return element == e->i64 ? v : LLVMBuildZExt(e->b, v, e->row, "");
}

/* f32_result: the canonical NaN for any NaN. */
static LLVMValueRef canonical_f32(struct jit_emit *e, LLVMValueRef z)
{
    LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, z, z, "");
    LLVMValueRef bits = LLVMBuildBitCast(e->b, z, lanes_of(e->i32), "");
    return widen(e, LLVMBuildSelect(e->b, nan, splat32(e, CANONICAL_NAN_F32), bits, ""));
}

/* Writes the lanes of the mask (e->mask) of register row `reg`: the row
 * with the other lanes' old values blended in, stored whole. (A masked
 * store would do the same, but a load of the row after it could not take
 * the value from the store: a plain one lets LLVM keep rows in registers
 * from one instruction to the next.) */
static void write_row(struct jit_emit *e, uint32_t reg, LLVMValueRef row)
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
static LLVMValueRef intrinsic(struct jit_emit *e, const char *name, LLVMTypeRef result,
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
    LLVMValueRef a = row_of(e, &insn->o[1]);
    enum ptx_op op = (enum ptx_op)insn->op;
    if (op == PTX_OP_ABS || op == PTX_OP_NEG) {
        LLVMValueRef x = as_int(e, a, 4);
        return widen(e, op == PTX_OP_NEG ? LLVMBuildXor(e->b, x, splat32(e, 0x80000000u), "")
                                         : LLVMBuildAnd(e->b, x, splat32(e, 0x7FFFFFFFu), ""));
    }
    LLVMValueRef b = row_of(e, &insn->o[2]);
    if (op == PTX_OP_COPYSIGN) { /* |b| with a's sign */
        LLVMValueRef sign = LLVMBuildAnd(e->b, as_int(e, a, 4), splat32(e, 0x80000000u), "");
        LLVMValueRef magnitude = LLVMBuildAnd(e->b, as_int(e, b, 4), splat32(e, 0x7FFFFFFFu), "");
        return widen(e, LLVMBuildOr(e->b, magnitude, sign, ""));
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
        LLVMValueRef args[3] = {x, y, as_f32(e, row_of(e, &insn->o[3]))};
        return canonical_f32(e, intrinsic(e, "llvm.fma.v32f32", lanes_of(e->f32), args, 3));
    }
    }
}

/* ftz32: a subnormal becomes the zero of its sign. */
static LLVMValueRef flush_f32(struct jit_emit *e, LLVMValueRef x)
{
    LLVMValueRef bits = LLVMBuildBitCast(e->b, x, lanes_of(e->i32), "");
    LLVMValueRef exponent = LLVMBuildAnd(e->b, bits, splat32(e, 0x7F800000u), "");
    LLVMValueRef tiny = LLVMBuildICmp(e->b, LLVMIntEQ, exponent, splat32(e, 0), "");
    LLVMValueRef sign = LLVMBuildAnd(e->b, bits, splat32(e, 0x80000000u), "");
    return LLVMBuildBitCast(e->b, LLVMBuildSelect(e->b, tiny, sign, bits, ""), lanes_of(e->f32),
                            "");
}

/* Calls float f(float) on each lane. */
static LLVMValueRef each_lane(struct jit_emit *e, float (*f)(float), LLVMValueRef x)
{
    LLVMTypeRef fty = LLVMFunctionType(e->f32, &e->f32, 1, 0);
    LLVMValueRef callee =
        LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)f, 0), e->ptr);
    LLVMValueRef z = LLVMGetUndef(lanes_of(e->f32));
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
    LLVMTypeRef doubles = lanes_of(e->f64);
    LLVMValueRef low = splat(LLVMConstReal(e->f64, ARITH_EX2_LOW));
    LLVMValueRef high = splat(LLVMConstReal(e->f64, ARITH_EX2_HIGH));
    LLVMValueRef rounder = splat(LLVMConstReal(e->f64, ARITH_EX2_ROUNDER));
    LLVMValueRef d = LLVMBuildFPExt(e->b, x, doubles, "");
    d = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOGT, d, high, ""), high, d, "");
    d = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOLT, d, low, ""), low, d, "");
    LLVMValueRef k = LLVMBuildFSub(e->b, LLVMBuildFAdd(e->b, d, rounder, ""), rounder, "");
    LLVMValueRef r = LLVMBuildFSub(e->b, d, k, "");
    LLVMValueRef p = splat(LLVMConstReal(e->f64, arith_ex2_coefficients[ARITH_EX2_DEGREE]));
    for (int n = ARITH_EX2_DEGREE - 1; n >= 0; n--)
        p = LLVMBuildFAdd(e->b, LLVMBuildFMul(e->b, p, r, ""),
                          splat(LLVMConstReal(e->f64, arith_ex2_coefficients[n])), "");
    LLVMValueRef exponent =
        LLVMBuildAdd(e->b, LLVMBuildFPToSI(e->b, k, e->row, ""), splat(constant64(e, 1023)), "");
    LLVMValueRef scale = LLVMBuildBitCast(
        e->b, LLVMBuildShl(e->b, exponent, splat(constant64(e, 52)), ""), doubles, "");
    LLVMValueRef z =
        LLVMBuildFPTrunc(e->b, LLVMBuildFMul(e->b, p, scale, ""), lanes_of(e->f32), "");
    return LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealUNO, x, x, ""), x, z, "");
}

/* exec_float_unary for f32: .ftz on the input, the operation, .ftz on the
 * result, the canonical NaN. */
static LLVMValueRef emit_unary_f32(struct jit_emit *e, const struct ptx_insn *insn)
{
    bool ftz = insn->flags & PTX_F_FTZ;
    LLVMValueRef x = as_f32(e, row_of(e, &insn->o[1])), z;
    if (ftz)
        x = flush_f32(e, x);
    if (insn->op == PTX_OP_RCP)
        z = LLVMBuildFDiv(e->b, splat(LLVMConstReal(e->f32, 1.0)), x, "");
    else if (insn->op == PTX_OP_SQRT)
        z = intrinsic(e, "llvm.sqrt.v32f32", lanes_of(e->f32), &x, 1);
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
    LLVMValueRef n = LLVMBuildAnd(e->b, count_row, splat(LLVMConstInt(e->i64, 0xFFFFFFFFu, 0)), "");
    LLVMValueRef over =
        LLVMBuildICmp(e->b, LLVMIntUGE, n, splat(LLVMConstInt(e->i64, width, 0)), "");
    LLVMValueRef last = splat(LLVMConstInt(e->i64, width - 1, 0));
    LLVMValueRef k = as_int(e, LLVMBuildSelect(e->b, over, last, n, ""), bytes);
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
    LLVMValueRef a = row_of(e, &insn->o[1]);
    if (op == PTX_OP_CVTA)
        return a;
    if (op == PTX_OP_NOT)
        return widen(e, LLVMBuildNot(e->b, as_int(e, a, bytes), ""));
    LLVMValueRef b = row_of(e, &insn->o[2]);
    if (op == PTX_OP_MUL && (insn->flags & PTX_F_WIDE)) {
        LLVMValueRef x = as_int(e, a, 4), y = as_int(e, b, 4);
        bool s = insn->type == PTX_S32;
        x = s ? LLVMBuildSExt(e->b, x, e->row, "") : LLVMBuildZExt(e->b, x, e->row, "");
        y = s ? LLVMBuildSExt(e->b, y, e->row, "") : LLVMBuildZExt(e->b, y, e->row, "");
        return LLVMBuildMul(e->b, x, y, "");
    }
    LLVMValueRef x = as_int(e, a, bytes);
    if (op == PTX_OP_SHL || op == PTX_OP_SHR)
        return widen(e, emit_shift(e, insn, x, b, bytes));
    LLVMValueRef y = as_int(e, b, bytes);
    switch (op) {
    case PTX_OP_ADD:
        return widen(e, LLVMBuildAdd(e->b, x, y, ""));
    case PTX_OP_SUB:
        return widen(e, LLVMBuildSub(e->b, x, y, ""));
    case PTX_OP_AND:
        return widen(e, LLVMBuildAnd(e->b, x, y, ""));
    case PTX_OP_OR:
        return widen(e, LLVMBuildOr(e->b, x, y, ""));
    case PTX_OP_XOR:
        return widen(e, LLVMBuildXor(e->b, x, y, ""));
    case PTX_OP_MAD: {
        LLVMValueRef z = as_int(e, row_of(e, &insn->o[3]), bytes);
        return widen(e, LLVMBuildAdd(e->b, LLVMBuildMul(e->b, x, y, ""), z, ""));
    }
    default:
        return widen(e, LLVMBuildMul(e->b, x, y, ""));
    }
}

/* Integral doubles clamped to the range of a `bits`-wide integer (at most
 * 32: its bounds are doubles), NaN to 0: what llvm.fpto[su]i.sat gives,
 * as compares and selects, which vectorize (the intrinsic's saturation is
 * lane by lane on x86). */
static LLVMValueRef saturated(struct jit_emit *e, LLVMValueRef x, unsigned bits, bool sgn)
{
    LLVMTypeRef doubles = lanes_of(e->f64);
    double lo = sgn ? -ldexp(1, (int)bits - 1) : 0,
           hi = sgn ? ldexp(1, (int)bits - 1) - 1 : ldexp(1, (int)bits) - 1;
    LLVMValueRef low = splat(LLVMConstReal(e->f64, lo)), high = splat(LLVMConstReal(e->f64, hi));
    x = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOLT, x, low, ""), low, x, "");
    x = LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealOGT, x, high, ""), high, x, "");
    return LLVMBuildSelect(e->b, LLVMBuildFCmp(e->b, LLVMRealUNO, x, x, ""), LLVMConstNull(doubles),
                           x, "");
}

/* cvt_to_integer for a float source: the value (an f32 flushed with .ftz)
 * as a double, rounded to an integral value in the mode, saturated to the
 * type with NaN giving 0 (`saturated`, or llvm.fpto[su]i.sat for 64 bits),
 * extended as the type is. */
static LLVMValueRef emit_cvt_from_float(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type;
    LLVMTypeRef doubles = lanes_of(e->f64);
    LLVMValueRef row = row_of(e, &insn->o[1]), x;
    if (insn->type2 == PTX_F32) {
        x = as_f32(e, row);
        x = LLVMBuildFPExt(e->b, insn->flags & PTX_F_FTZ ? flush_f32(e, x) : x, doubles, "");
    } else {
        x = as_f64(e, row);
    }
    static const char *const rounding[] = {
        [ARITH_RN] = "roundeven", [ARITH_RZ] = "trunc", [ARITH_RM] = "floor", [ARITH_RP] = "ceil"};
    char name[64];
    snprintf(name, sizeof name, "llvm.%s.v32f64", rounding[cvt_mode(insn, ARITH_RZ)]);
    x = intrinsic(e, name, doubles, &x, 1);
    bool sgn = ptx_type_is_signed(to);
    unsigned bits = 8 * ptx_type_bytes(to);
    LLVMTypeRef result = lanes_of(LLVMIntTypeInContext(e->ctx, bits));
    if (bits == 64) {
        snprintf(name, sizeof name, "llvm.fpto%ci.sat.v32i64.v32f64", sgn ? 's' : 'u');
        return intrinsic(e, name, result, &x, 1);
    }
    LLVMValueRef v = sgn ? LLVMBuildFPToSI(e->b, saturated(e, x, bits, sgn), result, "")
                         : LLVMBuildFPToUI(e->b, saturated(e, x, bits, sgn), result, "");
    return sgn ? LLVMBuildSExt(e->b, v, e->row, "") : LLVMBuildZExt(e->b, v, e->row, "");
}

/* cvt_to_float for an integer source, to nearest: one IEEE conversion. */
static LLVMValueRef emit_cvt_to_float(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type from = (enum ptx_type)insn->type2;
    LLVMValueRef v = as_int(e, row_of(e, &insn->o[1]), ptx_type_bytes(from));
    LLVMTypeRef type = lanes_of(insn->type == PTX_F32 ? e->f32 : e->f64);
    v = ptx_type_is_signed(from) ? LLVMBuildSIToFP(e->b, v, type, "")
                                 : LLVMBuildUIToFP(e->b, v, type, "");
    if (insn->type == PTX_F64)
        return LLVMBuildBitCast(e->b, v, e->row, "");
    return widen(e, LLVMBuildBitCast(e->b, v, lanes_of(e->i32), ""));
}

/* cvt between integer types (exec_cvt's direct path): the source's width,
 * extended by its sign, then the destination's width; the other native
 * conversions above. */
static LLVMValueRef emit_cvt(struct jit_emit *e, const struct ptx_insn *insn)
{
    enum ptx_type to = (enum ptx_type)insn->type, from = (enum ptx_type)insn->type2;
    if (from == PTX_F32 || from == PTX_F64)
        return emit_cvt_from_float(e, insn);
    if (to == PTX_F32 || to == PTX_F64)
        return emit_cvt_to_float(e, insn);
    unsigned tb = ptx_type_bytes(to), fb = ptx_type_bytes(from);
    LLVMValueRef v = as_int(e, row_of(e, &insn->o[1]), fb);
    if (fb < 8)
        v = ptx_type_is_signed(from) && fb < tb ? LLVMBuildSExt(e->b, v, e->row, "")
                                                : LLVMBuildZExt(e->b, v, e->row, "");
    return widen(e, as_int(e, v, tb));
}

static LLVMValueRef emit_mov(struct jit_emit *e, const struct ptx_insn *insn)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    return widen(e, as_int(e, row_of(e, &insn->o[1]), bytes));
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
    LLVMValueRef a = row_of(e, &insn->o[1]), b = row_of(e, &insn->o[2]), r;
    if (t == PTX_F32)
        r = LLVMBuildFCmp(e->b, real_predicate(c), as_f32(e, a), as_f32(e, b), "");
    else if (t == PTX_F64)
        r = LLVMBuildFCmp(e->b, real_predicate(c), as_f64(e, a), as_f64(e, b), "");
    else if (c <= PTX_CMP_HS)
        r = LLVMBuildICmp(e->b, int_predicate(c, ptx_type_is_signed(t)),
                          as_int(e, a, ptx_type_bytes(t)), as_int(e, b, ptx_type_bytes(t)), "");
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
    return LLVMBuildSelect(e->b, c, row_of(e, &insn->o[1]), row_of(e, &insn->o[2]), "");
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
        v = emit_mov(e, insn);
        break;
    case PTX_OP_SELP:
        v = emit_selp(e, insn);
        break;
    case PTX_OP_CVT:
        v = emit_cvt(e, insn);
        break;
    default:
        v = insn->type != PTX_F32 ? emit_integer(e, insn)
            : native_f32(insn)    ? emit_f32(e, insn)
                                  : emit_unary_f32(e, insn);
        break;
    }
    write_row(e, insn->o[0].reg, v);
}

/* ------------------------------------------------------------- regions */

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
    e->row = lanes_of(e->i64);
    e->lanes = lanes_of(e->i1);
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
}

void jit_emit_done(struct jit_emit *e)
{
    LLVMDisposeBuilder(e->b);
}

static LLVMBasicBlockRef block(struct jit_emit *e, const char *name)
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
    LLVMBasicBlockRef interpret = block(e, "interpret"), go = block(e, "go");
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

static LLVMValueRef constant_pointer(struct jit_emit *e, void (*fn)(void))
{
    return LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)fn, 0), e->ptr);
}

/* Calls int helper(w, f, pc, mask) for instruction pc; when it returns
 * nonzero (a fault), the counts of the instructions after it (`later`,
 * `later_native` of them native) are taken back and the region returns
 * JIT_FAULTED. */
static void emit_checked_call(struct jit_emit *e,
                              int (*helper)(struct warp *, struct frame *, uint32_t, uint32_t),
                              uint32_t pc, uint32_t later, uint32_t later_native)
{
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), e->mask};
    LLVMValueRef status = LLVMBuildCall2(e->b, e->interpret_ty,
                                         constant_pointer(e, (void (*)(void))helper), args, 4, "");
    LLVMBasicBlockRef fault = block(e, "fault"), go = block(e, "go");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, status, LLVMConstInt(e->i32, 0, 0), ""),
                    fault, go);
    LLVMPositionBuilderAtEnd(e->b, fault);
    add_to_warp(e, offsetof(struct warp, since_check), -(int64_t)later);
    add_to_warp(e, offsetof(struct warp, instructions), -(int64_t)later);
    add_to_warp(e, offsetof(struct warp, compiled), -(int64_t)later_native);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_FAULTED, 0));
    LLVMPositionBuilderAtEnd(e->b, go);
}

static LLVMValueRef reduce(struct jit_emit *e, const char *how, LLVMValueRef v)
{
    char name[64];
    snprintf(name, sizeof name, "llvm.vector.reduce.%s.v32i64", how);
    return intrinsic(e, name, e->i64, &v, 1);
}

/* The lanes' addresses over the mask's lanes, as `how` combines them;
 * `none` where a lane is off. */
static LLVMValueRef over_lanes(struct jit_emit *e, const char *how, LLVMValueRef address,
                               uint64_t none)
{
    LLVMValueRef lanes = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    return reduce(e, how, LLVMBuildSelect(e->b, lanes, address, splat(constant64(e, none)), ""));
}

/* shared_lanes_fit (interp_memory.c) on the lanes' offsets: aligned, and
 * inside the block's `limit` bytes of shared memory. */
static LLVMValueRef shared_lanes_fit(struct jit_emit *e, LLVMValueRef offset, LLVMValueRef limit,
                                     unsigned bytes)
{
    LLVMValueRef hi = over_lanes(e, "umax", offset, 0);
    LLVMValueRef bits = over_lanes(e, "or", offset, 0);
    LLVMValueRef misaligned = LLVMBuildAnd(e->b, bits, constant64(e, bytes - 1), "");
    LLVMValueRef room = LLVMBuildSub(e->b, limit, constant64(e, bytes), "");
    LLVMValueRef tests[] = {
        LLVMBuildICmp(e->b, LLVMIntEQ, misaligned, constant64(e, 0), ""),
        LLVMBuildICmp(e->b, LLVMIntUGE, limit, constant64(e, bytes), ""),
        LLVMBuildICmp(e->b, LLVMIntULE, hi, room, ""),
    };
    return LLVMBuildAnd(e->b, LLVMBuildAnd(e->b, tests[0], tests[1], ""), tests[2], "");
}

/* llvm.masked.gather (value NULL) or llvm.masked.scatter of `bytes`-wide
 * values at the pointers, under the mask. */
static LLVMValueRef gather_scatter(struct jit_emit *e, LLVMValueRef pointers, LLVMValueRef value,
                                   unsigned bytes)
{
    bool gather = value == NULL;
    LLVMTypeRef vt = lanes_of(LLVMIntTypeInContext(e->ctx, 8 * bytes));
    char name[64];
    snprintf(name, sizeof name, "llvm.masked.%s.v32i%u.v32p0", gather ? "gather" : "scatter",
             8 * bytes);
    LLVMValueRef lanes = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    LLVMValueRef align = LLVMConstInt(e->i32, bytes, 0);
    LLVMValueRef gather_args[] = {pointers, align, lanes, LLVMGetPoison(vt)};
    LLVMValueRef scatter_args[] = {value, pointers, align, lanes};
    return intrinsic(e, name, gather ? vt : LLVMVoidTypeInContext(e->ctx),
                     gather ? gather_args : scatter_args, 4);
}

/* The request of a fast path for the timing model: of `address` (global
 * addresses, or offsets in shared memory). */
static void emit_account(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                         LLVMValueRef address)
{
    LLVMBuildStore(e->b, address, e->addresses);
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), e->mask, e->addresses};
    void (*account)(void) = insn->space == PTX_SPACE_SHARED ? (void (*)(void))account_shared
                                                            : (void (*)(void))account_global;
    LLVMBuildCall2(e->b, e->account_ty, constant_pointer(e, account), args, 5, "");
}

/* The lanes' sectors in a window of 64 starting at the line of sector
 * `first` (`in`: the lanes of `lanes` inside it), as emit_global_request
 * gives them to timing_global_sectors: the window's first sector, and bit
 * j for sector base + j. */
static LLVMValueRef window(struct jit_emit *e, LLVMValueRef sector, LLVMValueRef lanes,
                           LLVMValueRef first, LLVMValueRef *base, LLVMValueRef *in)
{
    *base = LLVMBuildAnd(e->b, first, constant64(e, ~(uint64_t)3), "");
    LLVMValueRef at = LLVMBuildSub(e->b, sector, splat_value(e, *base), "");
    LLVMValueRef inside = LLVMBuildICmp(e->b, LLVMIntULT, at, splat(constant64(e, 64)), "");
    *in = LLVMBuildAnd(e->b, lanes, inside, "");
    LLVMValueRef bit = LLVMBuildShl(e->b, splat(constant64(e, 1)),
                                    LLVMBuildAnd(e->b, at, splat(constant64(e, 63)), ""), "");
    return reduce(e, "or", LLVMBuildSelect(e->b, *in, bit, splat(constant64(e, 0)), ""));
}

/* The request of a global fast path for the timing model. Each lane's
 * access (aligned, of 4 or 8 bytes) is one sector; when the lanes' sectors
 * fall in two windows of 64 (a warp's row of elements; a 16-wide block's
 * two rows, or the two elements its halves read), the compiled code finds
 * them, with vector operations where timing_global_request loops over the
 * lanes, and timing_global_sectors counts and logs them; other requests
 * (a column's 32 lines) go to timing_global_request. */
static void emit_global_request(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                                LLVMValueRef address)
{
    LLVMValueRef lanes = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    LLVMValueRef sector = LLVMBuildLShr(e->b, address, splat(constant64(e, 5)), "");
    LLVMValueRef first =
        LLVMBuildLShr(e->b, over_lanes(e, "umin", address, ~0ull), constant64(e, 5), "");
    LLVMValueRef base0, base1, in0, in1;
    LLVMValueRef bits0 = window(e, sector, lanes, first, &base0, &in0);
    LLVMValueRef rest = LLVMBuildAnd(e->b, lanes, LLVMBuildNot(e->b, in0, ""), "");
    LLVMValueRef second =
        reduce(e, "umin", LLVMBuildSelect(e->b, rest, sector, splat(constant64(e, ~0ull)), ""));
    LLVMValueRef bits1 = window(e, sector, rest, second, &base1, &in1);
    LLVMValueRef covered = LLVMBuildBitCast(e->b, LLVMBuildOr(e->b, in0, in1, ""), e->i32, "");
    LLVMBasicBlockRef windows = block(e, "windows"), lanes_apart = block(e, "apart"),
                      done = block(e, "accounted");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, covered, e->mask, ""), windows,
                    lanes_apart);
    LLVMPositionBuilderAtEnd(e->b, windows);
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), base0, bits0, base1, bits1};
    LLVMBuildCall2(e->b, e->sectors_ty, constant_pointer(e, (void (*)(void))account_sectors), args,
                   7, "");
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, lanes_apart);
    emit_account(e, insn, pc, address);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
}

/* What private_result leaves of `old` and the lane's operands b and c
 * (integers of the access's width; f32 add on their bits). */
static LLVMValueRef atomic_result(struct jit_emit *e, const struct ptx_insn *insn, LLVMValueRef old,
                                  LLVMValueRef b, LLVMValueRef c)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    bool sgn = ptx_type_is_signed(t);
    switch ((enum ptx_atom_op)insn->cmp) {
    case PTX_ATOM_ADD:
        if (t == PTX_F32) {
            LLVMValueRef z = LLVMBuildFAdd(e->b, LLVMBuildBitCast(e->b, old, e->f32, ""),
                                           LLVMBuildBitCast(e->b, b, e->f32, ""), "");
            LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, z, z, "");
            return LLVMBuildSelect(e->b, nan, LLVMConstInt(e->i32, CANONICAL_NAN_F32, 0),
                                   LLVMBuildBitCast(e->b, z, e->i32, ""), "");
        }
        return LLVMBuildAdd(e->b, old, b, "");
    case PTX_ATOM_MIN:
        return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, sgn ? LLVMIntSLT : LLVMIntULT, old, b, ""),
                               old, b, "");
    case PTX_ATOM_MAX:
        return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, sgn ? LLVMIntSGT : LLVMIntUGT, old, b, ""),
                               old, b, "");
    case PTX_ATOM_AND:
        return LLVMBuildAnd(e->b, old, b, "");
    case PTX_ATOM_OR:
        return LLVMBuildOr(e->b, old, b, "");
    case PTX_ATOM_XOR:
        return LLVMBuildXor(e->b, old, b, "");
    case PTX_ATOM_EXCH:
        return b;
    default: /* PTX_ATOM_CAS (native_shared_atomic) */
        return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, old, b, ""), c, old, "");
    }
}

/* A stack slot of `type` in the region's entry block (where LLVM keeps
 * such slots in registers when it can). */
static LLVMValueRef entry_slot(struct jit_emit *e, LLVMTypeRef type)
{
    LLVMBuilderRef at = LLVMCreateBuilderInContext(e->ctx);
    LLVMPositionBuilderBefore(at, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(e->func)));
    LLVMValueRef slot = LLVMBuildAlloca(at, type, "");
    LLVMDisposeBuilder(at);
    return slot;
}

/* Element `index` of the vector of `type` at `slot`. */
static LLVMValueRef slot_element(struct jit_emit *e, LLVMTypeRef type, LLVMValueRef slot,
                                 LLVMValueRef index)
{
    return LLVMBuildGEP2(e->b, LLVMGetElementType(type), slot, &index, 1, "");
}

/* The fast path of a shared atom or red (native_shared_atomic): a loop over
 * the lanes of the mask (not empty) in ascending order, each reading its
 * word, writing the result and keeping the old value, as private_apply
 * does; then the request, for the bank conflicts. */
static void emit_shared_atomic(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                               LLVMValueRef pointers, LLVMValueRef offsets)
{
    /* the old values, unless nothing reads them (red, or atom into a
     * register no instruction reads, as NVRTC writes an unused atomicAdd) */
    bool red = insn->op == PTX_OP_RED;
    bool olds_read = !red && insn->o[0].reg != PTX_NO_REG && !never_read(e->fn, insn->o[0].reg);
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    LLVMTypeRef word = LLVMIntTypeInContext(e->ctx, 8 * bytes), words = lanes_of(word);
    bool cas = insn->cmp == PTX_ATOM_CAS;
    LLVMValueRef at = entry_slot(e, lanes_of(e->ptr)), b = entry_slot(e, words),
                 c = cas ? entry_slot(e, words) : NULL,
                 olds = olds_read ? entry_slot(e, words) : NULL;
    LLVMBuildStore(e->b, pointers, at);
    LLVMBuildStore(e->b, as_int(e, row_of(e, &insn->o[red ? 1 : 2]), bytes), b);
    if (cas)
        LLVMBuildStore(e->b, as_int(e, row_of(e, &insn->o[red ? 2 : 3]), bytes), c);
    LLVMBasicBlockRef before = LLVMGetInsertBlock(e->b), lane = block(e, "lane"),
                      after = block(e, "lanes_done");
    LLVMBuildBr(e->b, lane);
    LLVMPositionBuilderAtEnd(e->b, lane);
    LLVMValueRef left = LLVMBuildPhi(e->b, e->i32, "");
    LLVMValueRef cttz_args[] = {left, LLVMConstInt(e->i1, 1, 0)};
    LLVMValueRef l =
        LLVMBuildZExt(e->b, intrinsic(e, "llvm.cttz.i32", e->i32, cttz_args, 2), e->i64, "");
    LLVMValueRef p = LLVMBuildLoad2(e->b, e->ptr, slot_element(e, lanes_of(e->ptr), at, l), "");
    LLVMValueRef old = LLVMBuildLoad2(e->b, word, p, "");
    LLVMSetAlignment(old, bytes);
    LLVMValueRef bl = LLVMBuildLoad2(e->b, word, slot_element(e, words, b, l), "");
    LLVMValueRef cl = cas ? LLVMBuildLoad2(e->b, word, slot_element(e, words, c, l), "") : NULL;
    LLVMSetAlignment(LLVMBuildStore(e->b, atomic_result(e, insn, old, bl, cl), p), bytes);
    if (olds_read)
        LLVMBuildStore(e->b, old, slot_element(e, words, olds, l));
    LLVMValueRef rest =
        LLVMBuildAnd(e->b, left, LLVMBuildSub(e->b, left, LLVMConstInt(e->i32, 1, 0), ""), "");
    LLVMValueRef incoming[] = {e->mask, rest};
    LLVMBasicBlockRef from[] = {before, lane};
    LLVMAddIncoming(left, incoming, from, 2);
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, rest, LLVMConstInt(e->i32, 0, 0), ""),
                    lane, after);
    LLVMPositionBuilderAtEnd(e->b, after);
    if (olds_read) /* the lanes outside the mask are blended back by write_row */
        write_row(e, insn->o[0].reg, widen(e, LLVMBuildLoad2(e->b, words, olds, "")));
    emit_account(e, insn, pc, offsets);
}

/* A software stride prefetcher for global accesses. A grid-stride loop
 * moves each warp a whole grid ahead per iteration (a megabyte at 100M
 * elements), a stride no host prefetcher follows, so each compiled load
 * waited for memory (a quarter of histogram's kernel time). Each global
 * access of the kernel has a slot in the warp (its lowest address last
 * time, `access_seen`); the lines at the same distance ahead are fetched
 * into the host's cache. A hint only: nothing is read, no fault, no count. */
static void emit_prefetch(struct jit_emit *e, LLVMValueRef lo, uint64_t slot, bool load,
                          unsigned bytes)
{
    LLVMValueRef last = jit_load(e, JIT_WARP, e->i64, e->w, slot);
    jit_store(e, JIT_WARP, lo, e->w, slot);
    LLVMValueRef next = LLVMBuildSub(e->b, LLVMBuildAdd(e->b, lo, lo, ""), last, "");
    unsigned lines = WARP_SIZE * bytes / HOST_LINE_BYTES;
    for (unsigned k = 0; k < lines && k < PREFETCH_LINES_MAX; k++) {
        LLVMValueRef at =
            LLVMBuildAdd(e->b, next, constant64(e, (uint64_t)k * HOST_LINE_BYTES), "");
        LLVMValueRef args[] = {LLVMBuildIntToPtr(e->b, at, e->ptr, ""),
                               LLVMConstInt(e->i32, !load, 0), /* for writing */
                               LLVMConstInt(e->i32, 3, 0),     /* keep it close */
                               LLVMConstInt(e->i32, 1, 0)};    /* data */
        intrinsic(e, "llvm.prefetch.p0", LLVMVoidTypeInContext(e->ctx), args, 4);
    }
}

/* Before a global access of the lanes' addresses from lo to hi: the warp's
 * deferred adds go to memory first when their line is in that range (lanes
 * may skip it, which only costs the call). */
static void emit_flush_when_deferred(struct jit_emit *e, LLVMValueRef lo, LLVMValueRef hi)
{
    LLVMValueRef line =
        jit_load(e, JIT_WARP, e->i64, e->w,
                 offsetof(struct warp, deferred) + offsetof(struct deferred_adds, line));
    LLVMValueRef first =
        LLVMBuildAnd(e->b, lo, constant64(e, ~(uint64_t)(ADDS_LINE_BYTES - 1)), "");
    LLVMValueRef in = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, line, first, ""),
                                   LLVMBuildICmp(e->b, LLVMIntULE, line, hi, ""), "");
    LLVMValueRef pending = LLVMBuildICmp(e->b, LLVMIntNE, line, constant64(e, 0), "");
    LLVMBasicBlockRef flush = block(e, "flush"), go = block(e, "go");
    LLVMBuildCondBr(e->b, LLVMBuildAnd(e->b, in, pending, ""), flush, go);
    LLVMPositionBuilderAtEnd(e->b, flush);
    LLVMTypeRef params[] = {e->ptr};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, 1, 0);
    LLVMValueRef args[] = {e->w};
    LLVMBuildCall2(e->b, fty, constant_pointer(e, (void (*)(void))mem_flush_deferred), args, 1, "");
    LLVMBuildBr(e->b, go);
    LLVMPositionBuilderAtEnd(e->b, go);
}

/* ------------------------------------------------ loads and stores by shape */

/* The shapes of a request's addresses that load or store without a gather
 * or a scatter (a 32-lane gather costs the host some 40 clocks; these, a
 * few), and whose sectors are found without looking at each lane:
 * - a row: the active lanes at consecutive elements (an elementwise
 *   kernel, a row of a matrix);
 * - repeated: a full warp's halves at the same 16 consecutive elements (a
 *   16-wide block's two rows of threads reading a row of B);
 * - a pair: a full warp's halves each at one element (the two rows of
 *   threads each reading their row's element of A);
 * - any other, lane by lane. */
enum shape { SHAPE_ROW, SHAPE_REPEATED, SHAPE_PAIR, SHAPE_ANY, SHAPES };

/* What the shapes are tested with, found once per access. */
struct request {
    LLVMValueRef address; /* the lanes' global addresses, or offsets in shared memory */
    LLVMValueRef memory;  /* shared memory's host address; NULL for global */
    LLVMValueRef on;      /* the mask's lanes, <32 x i1> */
    LLVMValueRef first;   /* the address of the mask's lowest lane */
    LLVMValueRef highest; /* the mask's highest lane (i64) */
    LLVMValueRef start;   /* where lane 0's address is, if the lanes are a row */
    LLVMValueRef a0, a16; /* lanes 0 and 16's addresses */
    unsigned bytes;
};

/* The addresses a shape spans: the lowest, the highest, and a value whose
 * low bits are set where any lane's address has them (for alignment). */
struct span {
    LLVMValueRef lo, hi, bits;
};

/* A row of constants: lane l's is `scale` × (l % period). */
static LLVMValueRef lane_pattern(struct jit_emit *e, unsigned period, uint64_t scale)
{
    LLVMValueRef lanes[WARP_SIZE];
    for (unsigned l = 0; l < WARP_SIZE; l++)
        lanes[l] = constant64(e, scale * (l % period));
    return LLVMConstVector(lanes, WARP_SIZE);
}

/* Lanes 0-15 true, 16-31 false. */
static LLVMValueRef lower_half(struct jit_emit *e)
{
    LLVMValueRef lanes[WARP_SIZE];
    for (unsigned l = 0; l < WARP_SIZE; l++)
        lanes[l] = LLVMConstInt(e->i1, l < WARP_SIZE / 2, 0);
    return LLVMConstVector(lanes, WARP_SIZE);
}

static LLVMValueRef lane_value(struct jit_emit *e, LLVMValueRef v, unsigned lane)
{
    return LLVMBuildExtractElement(e->b, v, LLVMConstInt(e->i32, lane, 0), "");
}

/* Whether every lane of `on` has address `want` (a row). */
static LLVMValueRef lanes_at(struct jit_emit *e, LLVMValueRef address, LLVMValueRef on,
                             LLVMValueRef want)
{
    LLVMValueRef off =
        LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntNE, address, want, ""), on, "");
    return LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildBitCast(e->b, off, e->i32, ""),
                         LLVMConstInt(e->i32, 0, 0), "");
}

static LLVMValueRef mask_bit_count(struct jit_emit *e, const char *which)
{
    char name[32];
    snprintf(name, sizeof name, "llvm.%s.i32", which);
    LLVMValueRef args[] = {e->mask, LLVMConstInt(e->i1, 1, 0)}; /* the mask is not empty */
    return LLVMBuildZExt(e->b, intrinsic(e, name, e->i32, args, 2), e->i64, "");
}

static struct request request_of(struct jit_emit *e, LLVMValueRef address, LLVMValueRef memory,
                                 unsigned bytes)
{
    struct request r = {.address = address, .memory = memory, .bytes = bytes};
    r.on = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    LLVMValueRef lowest = mask_bit_count(e, "cttz");
    r.highest = LLVMBuildSub(e->b, constant64(e, WARP_SIZE - 1), mask_bit_count(e, "ctlz"), "");
    r.first = LLVMBuildExtractElement(e->b, address, lowest, "");
    r.start = LLVMBuildSub(e->b, r.first, LLVMBuildMul(e->b, lowest, constant64(e, bytes), ""), "");
    r.a0 = lane_value(e, address, 0);
    r.a16 = lane_value(e, address, WARP_SIZE / 2);
    return r;
}

/* Whether the request has the shape. */
static LLVMValueRef has_shape(struct jit_emit *e, const struct request *r, enum shape shape)
{
    LLVMValueRef full = LLVMBuildICmp(e->b, LLVMIntEQ, e->mask, LLVMConstAllOnes(e->i32), "");
    LLVMValueRef all = LLVMConstAllOnes(e->lanes), want;
    switch (shape) {
    case SHAPE_ROW:
        want =
            LLVMBuildAdd(e->b, splat_value(e, r->start), lane_pattern(e, WARP_SIZE, r->bytes), "");
        return lanes_at(e, r->address, r->on, want);
    case SHAPE_REPEATED:
        want =
            LLVMBuildAdd(e->b, splat_value(e, r->a0), lane_pattern(e, WARP_SIZE / 2, r->bytes), "");
        return LLVMBuildAnd(e->b, full, lanes_at(e, r->address, all, want), "");
    case SHAPE_PAIR:
        want =
            LLVMBuildSelect(e->b, lower_half(e), splat_value(e, r->a0), splat_value(e, r->a16), "");
        return LLVMBuildAnd(e->b, full, lanes_at(e, r->address, all, want), "");
    default:
        return LLVMConstInt(e->i1, 1, 0);
    }
}

static struct span span_of(struct jit_emit *e, const struct request *r, enum shape shape)
{
    LLVMValueRef elements = constant64(e, (uint64_t)(WARP_SIZE / 2 - 1) * r->bytes);
    switch (shape) {
    case SHAPE_ROW:
        return (struct span){
            r->first,
            LLVMBuildAdd(e->b, r->start,
                         LLVMBuildMul(e->b, r->highest, constant64(e, r->bytes), ""), ""),
            r->start};
    case SHAPE_REPEATED:
        return (struct span){r->a0, LLVMBuildAdd(e->b, r->a0, elements, ""), r->a0};
    case SHAPE_PAIR:
        return (struct span){LLVMBuildSelect(e->b,
                                             LLVMBuildICmp(e->b, LLVMIntULT, r->a0, r->a16, ""),
                                             r->a0, r->a16, ""),
                             jit_umax(e, r->a0, r->a16), LLVMBuildOr(e->b, r->a0, r->a16, "")};
    default:
        return (struct span){over_lanes(e, "umin", r->address, ~0ull),
                             over_lanes(e, "umax", r->address, 0),
                             over_lanes(e, "or", r->address, 0)};
    }
}

/* global_lanes_fit and shared_lanes_fit (interp_memory.c) on a span:
 * aligned, in order, and for global memory below the shared window, not
 * wrapping, inside the warp's cached allocation (which is outside the guard
 * zones); for shared memory, inside the block's `limit` bytes. */
static LLVMValueRef span_fits(struct jit_emit *e, const struct request *r, struct span s,
                              LLVMValueRef limit)
{
    LLVMValueRef bytes = constant64(e, r->bytes);
    LLVMValueRef misaligned = LLVMBuildAnd(e->b, s.bits, constant64(e, r->bytes - 1), "");
    LLVMValueRef ok =
        LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, misaligned, constant64(e, 0), ""),
                     LLVMBuildICmp(e->b, LLVMIntULE, s.lo, s.hi, ""), "");
    if (r->memory) {
        LLVMValueRef room = LLVMBuildSub(e->b, limit, bytes, "");
        LLVMValueRef inside = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, limit, bytes, ""),
                                           LLVMBuildICmp(e->b, LLVMIntULE, s.hi, room, ""), "");
        return LLVMBuildAnd(e->b, ok, inside, "");
    }
    LLVMValueRef end = LLVMBuildAdd(e->b, s.hi, bytes, "");
    LLVMValueRef cached = LLVMConstInt(e->i1, 0, 0);
    for (unsigned i = 0; i < WARP_CACHE; i++) { /* warp_cache_holds */
        uint64_t at = i * sizeof(uint64_t);
        LLVMValueRef base =
            jit_load(e, JIT_WARP, e->i64, e->w, offsetof(struct warp, cache_base) + at);
        LLVMValueRef cache_end =
            jit_load(e, JIT_WARP, e->i64, e->w, offsetof(struct warp, cache_end) + at);
        LLVMValueRef inside = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, s.lo, base, ""),
                                           LLVMBuildICmp(e->b, LLVMIntULE, end, cache_end, ""), "");
        cached = LLVMBuildOr(e->b, cached, inside, "");
    }
    LLVMValueRef tests[] = {
        LLVMBuildICmp(e->b, LLVMIntULT, s.hi, constant64(e, SHARED_WINDOW), ""),
        LLVMBuildICmp(e->b, LLVMIntUGE, end, s.hi, ""),
        cached,
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        ok = LLVMBuildAnd(e->b, ok, tests[i], "");
    return ok;
}

/* The host address of a request's address. */
static LLVMValueRef host_at(struct jit_emit *e, const struct request *r, LLVMValueRef address)
{
    if (!r->memory)
        return LLVMBuildIntToPtr(e->b, address, e->ptr, "");
    return LLVMBuildGEP2(e->b, e->i8, r->memory, &address, 1, "");
}

static LLVMValueRef host_lanes(struct jit_emit *e, const struct request *r)
{
    LLVMValueRef address = r->address;
    if (!r->memory)
        return LLVMBuildIntToPtr(e->b, address, lanes_of(e->ptr), "");
    return LLVMBuildGEP2(e->b, e->i8, r->memory, &address, 1, "");
}

/* A vector of `n` elements of the request's width at host address `at`,
 * read or written (value) under `on` (lanes outside it are not touched). */
static LLVMValueRef masked_access(struct jit_emit *e, const struct request *r, LLVMValueRef at,
                                  unsigned n, LLVMValueRef on, LLVMValueRef value)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMIntTypeInContext(e->ctx, 8 * r->bytes), n);
    char name[64];
    snprintf(name, sizeof name, "llvm.masked.%s.v%ui%u.p0", value ? "store" : "load", n,
             8 * r->bytes);
    LLVMValueRef align = LLVMConstInt(e->i32, r->bytes, 0);
    LLVMValueRef load_args[] = {at, align, on, LLVMGetPoison(vt)};
    LLVMValueRef store_args[] = {value, at, align, on};
    return intrinsic(e, name, value ? LLVMVoidTypeInContext(e->ctx) : vt,
                     value ? store_args : load_args, 4);
}

/* The lanes' values, loaded as the shape allows. */
static LLVMValueRef shaped_load(struct jit_emit *e, const struct request *r, enum shape shape)
{
    LLVMTypeRef element = LLVMIntTypeInContext(e->ctx, 8 * r->bytes);
    switch (shape) {
    case SHAPE_ROW:
        return masked_access(e, r, host_at(e, r, r->start), WARP_SIZE, r->on, NULL);
    case SHAPE_REPEATED: {
        LLVMValueRef all = LLVMConstAllOnes(LLVMVectorType(e->i1, WARP_SIZE / 2));
        LLVMValueRef half = masked_access(e, r, host_at(e, r, r->a0), WARP_SIZE / 2, all, NULL);
        LLVMValueRef twice[WARP_SIZE];
        for (unsigned l = 0; l < WARP_SIZE; l++)
            twice[l] = LLVMConstInt(e->i32, l % (WARP_SIZE / 2), 0);
        return LLVMBuildShuffleVector(e->b, half, LLVMGetPoison(LLVMTypeOf(half)),
                                      LLVMConstVector(twice, WARP_SIZE), "");
    }
    case SHAPE_PAIR: {
        LLVMValueRef x0 = LLVMBuildLoad2(e->b, element, host_at(e, r, r->a0), "");
        LLVMValueRef x16 = LLVMBuildLoad2(e->b, element, host_at(e, r, r->a16), "");
        LLVMSetAlignment(x0, r->bytes);
        LLVMSetAlignment(x16, r->bytes);
        return LLVMBuildSelect(e->b, lower_half(e), splat_value(e, x0), splat_value(e, x16), "");
    }
    default:
        return gather_scatter(e, host_lanes(e, r), NULL, r->bytes);
    }
}

/* Stores the lanes' values: a row at once, else a scatter (which writes
 * lanes in ascending order, as the interpreter does). */
static void shaped_store(struct jit_emit *e, const struct request *r, enum shape shape,
                         LLVMValueRef value)
{
    if (shape == SHAPE_ROW)
        masked_access(e, r, host_at(e, r, r->start), WARP_SIZE, r->on, value);
    else
        gather_scatter(e, host_lanes(e, r), value, r->bytes);
}

static void call_account_sectors(struct jit_emit *e, uint32_t pc, LLVMValueRef base0,
                                 LLVMValueRef bits0, LLVMValueRef base1, LLVMValueRef bits1)
{
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), base0, bits0, base1, bits1};
    LLVMBuildCall2(e->b, e->sectors_ty, constant_pointer(e, (void (*)(void))account_sectors), args,
                   7, "");
}

/* The sectors of every element from lo to hi: one window. */
static void account_range(struct jit_emit *e, uint32_t pc, struct span s)
{
    LLVMValueRef lo = LLVMBuildLShr(e->b, s.lo, constant64(e, 5), "");
    LLVMValueRef hi = LLVMBuildLShr(e->b, s.hi, constant64(e, 5), "");
    LLVMValueRef base = LLVMBuildAnd(e->b, lo, constant64(e, ~(uint64_t)3), "");
    LLVMValueRef ones =
        LLVMBuildSub(e->b, LLVMBuildShl(e->b, constant64(e, 2), LLVMBuildSub(e->b, hi, lo, ""), ""),
                     constant64(e, 1), "");
    LLVMValueRef bits = LLVMBuildShl(e->b, ones, LLVMBuildSub(e->b, lo, base, ""), "");
    call_account_sectors(e, pc, base, bits, constant64(e, 0), constant64(e, 0));
}

/* The sectors of two elements, lo and hi: one window, or two when they
 * are 64 sectors apart or more. */
static void account_pair(struct jit_emit *e, uint32_t pc, struct span s)
{
    LLVMValueRef lo = LLVMBuildLShr(e->b, s.lo, constant64(e, 5), "");
    LLVMValueRef hi = LLVMBuildLShr(e->b, s.hi, constant64(e, 5), "");
    LLVMValueRef line_start = constant64(e, ~(uint64_t)3), six_bits = constant64(e, 63);
    LLVMValueRef base0 = LLVMBuildAnd(e->b, lo, line_start, "");
    LLVMValueRef base1 = LLVMBuildAnd(e->b, hi, line_start, "");
    LLVMValueRef apart = LLVMBuildSub(e->b, hi, base0, "");
    LLVMValueRef near = LLVMBuildICmp(e->b, LLVMIntULT, apart, constant64(e, 64), "");
    LLVMValueRef one = constant64(e, 1), zero = constant64(e, 0);
    LLVMValueRef lo_bit = LLVMBuildShl(e->b, one, LLVMBuildSub(e->b, lo, base0, ""), "");
    LLVMValueRef hi_near = LLVMBuildShl(e->b, one, LLVMBuildAnd(e->b, apart, six_bits, ""), "");
    LLVMValueRef hi_far = LLVMBuildShl(e->b, one, LLVMBuildSub(e->b, hi, base1, ""), "");
    call_account_sectors(
        e, pc, base0, LLVMBuildOr(e->b, lo_bit, LLVMBuildSelect(e->b, near, hi_near, zero, ""), ""),
        base1, LLVMBuildSelect(e->b, near, zero, hi_far, ""));
}

/* A global request's sectors, for the timing model, as its shape gives
 * them; a row whose mask has gaps, and any other shape, by
 * emit_global_request. */
static void account_shaped(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                           const struct request *r, enum shape shape, struct span s)
{
    switch (shape) {
    case SHAPE_ROW: {
        LLVMValueRef lowest = mask_bit_count(e, "cttz");
        LLVMValueRef run =
            LLVMBuildLShr(e->b, e->mask, LLVMBuildTrunc(e->b, lowest, e->i32, ""), "");
        LLVMValueRef gapless = LLVMBuildICmp(
            e->b, LLVMIntEQ,
            LLVMBuildAnd(e->b, run, LLVMBuildAdd(e->b, run, LLVMConstInt(e->i32, 1, 0), ""), ""),
            LLVMConstInt(e->i32, 0, 0), "");
        LLVMBasicBlockRef range = block(e, "range"), gaps = block(e, "gaps"),
                          done = block(e, "counted");
        LLVMBuildCondBr(e->b, gapless, range, gaps);
        LLVMPositionBuilderAtEnd(e->b, range);
        account_range(e, pc, s);
        LLVMBuildBr(e->b, done);
        LLVMPositionBuilderAtEnd(e->b, gaps);
        emit_global_request(e, insn, pc, r->address);
        LLVMBuildBr(e->b, done);
        LLVMPositionBuilderAtEnd(e->b, done);
        return;
    }
    case SHAPE_REPEATED:
        account_range(e, pc, s);
        return;
    case SHAPE_PAIR:
        account_pair(e, pc, s);
        return;
    default:
        emit_global_request(e, insn, pc, r->address);
    }
}

/* One shape's path: when the span fits, the access, then its request for
 * the timing model; else the interpreter's checked path (`slow`). */
static void emit_shaped_access(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                               const struct request *r, enum shape shape, LLVMValueRef limit,
                               uint64_t prefetch_slot, LLVMBasicBlockRef slow,
                               LLVMBasicBlockRef done)
{
    bool load = insn->op == PTX_OP_LD;
    struct span s = span_of(e, r, shape);
    LLVMBasicBlockRef fast = block(e, "fast");
    LLVMBuildCondBr(e->b, span_fits(e, r, s, limit), fast, slow);
    LLVMPositionBuilderAtEnd(e->b, fast);
    if (!r->memory)
        emit_flush_when_deferred(e, s.lo, s.hi);
    const struct ptx_operand *v = &insn->o[load ? 0 : 1];
    if (load) {
        LLVMValueRef x = shaped_load(e, r, shape);
        if (r->bytes == 4 && ptx_type_is_signed((enum ptx_type)insn->type))
            x = LLVMBuildSExt(e->b, x, e->row, "");
        write_row(e, v->reg, widen(e, x));
    } else {
        shaped_store(e, r, shape, as_int(e, row_of(e, v), r->bytes));
    }
    if (r->memory) {
        emit_account(e, insn, pc, r->address);
    } else {
        emit_prefetch(e, s.lo, prefetch_slot, load, r->bytes);
        account_shaped(e, insn, pc, r, shape, s);
    }
    LLVMBuildBr(e->b, done);
}

/* A global or shared ld or st (native_memory): each shape's path in turn
 * (a store's: a row or any other), else the interpreter's checked path,
 * which records any fault. */
static void emit_load_store(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                            LLVMValueRef address, LLVMValueRef memory, LLVMValueRef limit,
                            LLVMBasicBlockRef slow, LLVMBasicBlockRef done)
{
    struct request r = request_of(e, address, memory, ptx_type_bytes((enum ptx_type)insn->type));
    uint64_t prefetch_slot = offsetof(struct warp, access_seen) +
                             (e->access_slots++ % WARP_ACCESS_SLOTS) * sizeof(uint64_t);
    for (enum shape shape = SHAPE_ROW; shape < SHAPES; shape++) {
        if (insn->op == PTX_OP_ST && (shape == SHAPE_REPEATED || shape == SHAPE_PAIR))
            continue;
        LLVMBasicBlockRef taken = block(e, "shape"), next = block(e, "next_shape");
        LLVMBuildCondBr(e->b, has_shape(e, &r, shape), taken, next);
        LLVMPositionBuilderAtEnd(e->b, taken);
        emit_shaped_access(e, insn, pc, &r, shape, limit, prefetch_slot, slow, done);
        LLVMPositionBuilderAtEnd(e->b, next);
    }
    LLVMBuildUnreachable(e->b);
}

/* A global or shared ld or st (native_memory), or a shared atom or red
 * (native_shared_atomic): the fast path when the lanes fit the cached
 * allocation or the block's shared memory, else the interpreter's checked
 * path, which records any fault. Nothing for an empty mask, as step()
 * executes nothing then. */
static void emit_memory(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                        uint32_t later, uint32_t later_native)
{
    const struct ptx_operand *a = &insn->o[insn->op == PTX_OP_LD || insn->op == PTX_OP_ATOM];
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    LLVMBasicBlockRef check = block(e, "check"), slow = block(e, "slow"), done = block(e, "done");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, e->mask, LLVMConstInt(e->i32, 0, 0), ""),
                    check, done);
    LLVMPositionBuilderAtEnd(e->b, check);
    struct ptx_operand base_row = {.kind = PTX_OPD_REG, .reg = a->reg};
    LLVMValueRef base = a->reg != PTX_NO_REG ? row_of(e, &base_row) : LLVMConstNull(e->row);
    LLVMValueRef address = LLVMBuildAdd(e->b, base, splat(constant64(e, (uint64_t)a->imm)), "");
    LLVMValueRef memory = NULL, limit = NULL;
    if (insn->space == PTX_SPACE_SHARED) {
        LLVMValueRef b = jit_load(e, JIT_WARP, e->ptr, e->w, offsetof(struct warp, block));
        memory = jit_load(e, JIT_WARP, e->ptr, b, offsetof(struct block, shared));
        limit = LLVMBuildZExt(
            e->b, jit_load(e, JIT_WARP, e->i32, b, offsetof(struct block, shared_bytes)), e->i64,
            "");
    }
    if (insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED) {
        LLVMBasicBlockRef fast = block(e, "fast");
        LLVMBuildCondBr(e->b, shared_lanes_fit(e, address, limit, bytes), fast, slow);
        LLVMPositionBuilderAtEnd(e->b, fast);
        emit_shared_atomic(e, insn, pc, LLVMBuildGEP2(e->b, e->i8, memory, &address, 1, ""),
                           address);
        LLVMBuildBr(e->b, done);
    } else {
        emit_load_store(e, insn, pc, address, memory, limit, slow, done);
    }
    LLVMPositionBuilderAtEnd(e->b, slow);
    emit_checked_call(e, execute_checked, pc, later, later_native);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
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
    write_row(e, insn->o[0].reg, splat_value(e, v));
}

static LLVMValueRef top_entry(struct jit_emit *e)
{
    LLVMValueRef depth = jit_load(e, JIT_WARP, e->i32, e->w, offsetof(struct warp, depth));
    LLVMValueRef index =
        LLVMBuildSExt(e->b, LLVMBuildSub(e->b, depth, LLVMConstInt(e->i32, 1, 0), ""), e->i64, "");
    LLVMValueRef offset =
        LLVMBuildAdd(e->b, constant64(e, offsetof(struct warp, stack)),
                     LLVMBuildMul(e->b, index, constant64(e, sizeof(struct simt_entry)), ""), "");
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
    LLVMBasicBlockRef none = block(e, "none"), all = block(e, "all"), split = block(e, "split"),
                      other = block(e, "other"), leave = block(e, "leave");
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
    LLVMValueRef ok =
        LLVMBuildCall2(e->b, fty, constant_pointer(e, (void (*)(void))interp_branch), args, 3, "");
    LLVMBasicBlockRef fault = block(e, "fault");
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
    LLVMPositionBuilderAtEnd(e->b, block(e, "entry"));
    e->addresses = LLVMBuildAlloca(e->b, e->row, "addresses");
    LLVMBasicBlockRef head = block(e, "head");
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
        else if (is_native && insn->op == PTX_OP_LD && insn->space == PTX_SPACE_PARAM)
            emit_param_load(e, insn);
        else if (is_native && (insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED) &&
                 insn->space != PTX_SPACE_SHARED)
            emit_checked_call(e, add_deferred, pc, end - pc - 1, native);
        else if (is_native && (insn->op == PTX_OP_LD || insn->op == PTX_OP_ST ||
                               insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED))
            emit_memory(e, insn, pc, end - pc - 1, native);
        else if (is_native)
            emit_native(e, insn);
        else
            emit_checked_call(e, interpret_one, pc, end - pc - 1, native);
    }
    if (!jit_branch(&code[end - 1]))
        LLVMBuildRet(e->b, LLVMConstInt(e->i32, JIT_RAN, 0));
}
