/*
 * The compiled tier (JIT.md): a kernel's regions — maximal runs of
 * straight-line instructions that the compiler covers, inside one basic
 * block — become LLVM functions, compiled once by ORC LLJIT and cached per
 * hash of the decoded code. Each instruction is the interpreter's lane loop
 * as LLVM vector operations on whole register rows (<32 x i64>) under the
 * guard-narrowed mask; before it the region calls jit_issue (what step()
 * does before executing: the instruction count, the timing model's
 * scoreboard, the budget), and loads and stores call the interpreter's
 * checked mem_load / mem_store, so faults and counters are the same.
 */
#include "jit.h"

#include "exec.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ helpers */

/* What step() does before it executes instruction pc: 1 when the warp
 * must stop (the budget ran out; a fault is recorded). */
static int jit_issue(struct warp *w, struct frame *f, uint32_t pc)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    w->instructions++;
    if (w->block->launch->timing.enabled)
        timing_issue(&w->timing, w->block->launch->cfg->device, f->fn, pc, f->ready);
    if (++w->since_check >= BUDGET_CHECK_INTERVAL && !launch_check_budget(w, insn))
        return 1;
    return 0;
}

/* A load or store for the lanes of m, through the interpreter's checks. */
static int jit_memory(struct warp *w, struct frame *f, uint32_t pc, uint32_t m)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    if (m == 0)
        return 0;
    bool ok = insn->op == PTX_OP_ST ? mem_store(w, f, insn, m) : mem_load(w, f, insn, m);
    return ok ? 0 : 1;
}

/* ------------------------------------------------------- what compiles */

static bool plain_rounding(const struct ptx_insn *insn)
{
    return !(insn->flags & (PTX_F_FTZ | PTX_F_SAT | PTX_F_APPROX | PTX_F_FULL)) &&
           (!(insn->flags & PTX_F_HAS_RND) || insn->rnd == ARITH_RN);
}

static bool row_or_imm(const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_REG || o->kind == PTX_OPD_IMM;
}

static bool sources_ok(const struct ptx_insn *insn, int from)
{
    for (int i = from; i < insn->n_operands; i++)
        if (!row_or_imm(&insn->o[i]))
            return false;
    return true;
}

/* Whether the compiler covers the instruction (JIT.md: "What falls back"). */
static bool jit_covers(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    enum ptx_type t = (enum ptx_type)insn->type;
    unsigned bytes = ptx_type_bytes(t);
    if (op == PTX_OP_LD || op == PTX_OP_ST)
        return insn->space == PTX_SPACE_GLOBAL || insn->space == PTX_SPACE_PARAM;
    if (op == PTX_OP_SETP)
        return insn->n_operands == 3 && insn->o[0].kind == PTX_OPD_PRED &&
               insn->bool_op == PTX_BOOL_NONE && sources_ok(insn, 1) &&
               ((t == PTX_F32 && !(insn->flags & PTX_F_FTZ)) ||
                (!ptx_type_is_float(t) && t != PTX_PRED && (bytes == 4 || bytes == 8)));
    if (insn->n_operands < 2 || insn->o[0].kind != PTX_OPD_REG || !sources_ok(insn, 1))
        return false;
    if (op == PTX_OP_MOV)
        return t != PTX_PRED && (bytes == 4 || bytes == 8) && insn->n_operands == 2;
    if (op == PTX_OP_CVTA)
        return insn->space == PTX_SPACE_GLOBAL && bytes == 8;
    if (t == PTX_F32) {
        if (!plain_rounding(insn))
            return false;
        switch (op) {
        case PTX_OP_ADD:
        case PTX_OP_SUB:
        case PTX_OP_MUL:
        case PTX_OP_DIV:
            return insn->n_operands == 3;
        case PTX_OP_FMA:
        case PTX_OP_MAD:
            return insn->n_operands == 4;
        case PTX_OP_NEG:
        case PTX_OP_ABS:
            return insn->n_operands == 2;
        default:
            return false;
        }
    }
    if (ptx_type_is_float(t) || t == PTX_PRED || (bytes != 4 && bytes != 8))
        return false;
    if (op == PTX_OP_MUL && (insn->flags & PTX_F_WIDE))
        return bytes == 4 && !(insn->flags & (PTX_F_CC | PTX_F_SAT | PTX_F_HI));
    if (insn->flags & (PTX_F_CC | PTX_F_SAT | PTX_F_HI | PTX_F_WIDE))
        return false;
    switch (op) {
    case PTX_OP_ADD:
    case PTX_OP_SUB:
    case PTX_OP_MUL:
    case PTX_OP_AND:
    case PTX_OP_OR:
    case PTX_OP_XOR:
        return insn->n_operands == 3;
    case PTX_OP_MAD:
        return insn->n_operands == 4;
    default:
        return false;
    }
}

/* ------------------------------------------------------------- codegen */

struct gen {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i32, i64, f32, ptr, row, mask_vec, region_ty, issue_ty, memory_ty;
    LLVMValueRef w, f, regs, preds;
};

static LLVMValueRef row_ptr(struct gen *g, uint32_t reg)
{
    LLVMValueRef off = LLVMConstInt(g->i64, (uint64_t)reg * sizeof(lanes_t), 0);
    return LLVMBuildGEP2(g->b, g->i8, g->regs, &off, 1, "");
}

static LLVMValueRef load_row(struct gen *g, const struct ptx_operand *o)
{
    if (o->kind == PTX_OPD_IMM) {
        LLVMValueRef v = LLVMConstInt(g->i64, (uint64_t)o->imm, 0);
        LLVMValueRef lanes[WARP_SIZE];
        for (int l = 0; l < WARP_SIZE; l++)
            lanes[l] = v;
        return LLVMConstVector(lanes, WARP_SIZE);
    }
    LLVMValueRef v = LLVMBuildLoad2(g->b, g->row, row_ptr(g, o->reg), "");
    LLVMSetAlignment(v, 8);
    return v;
}

/* Writes the lanes of mask m (an i32) of row `reg`. */
static void store_row(struct gen *g, uint32_t reg, LLVMValueRef v, LLVMValueRef m)
{
    LLVMValueRef p = row_ptr(g, reg);
    LLVMValueRef old = LLVMBuildLoad2(g->b, g->row, p, "");
    LLVMSetAlignment(old, 8);
    LLVMValueRef sel =
        LLVMBuildSelect(g->b, LLVMBuildBitCast(g->b, m, g->mask_vec, ""), v, old, "");
    LLVMValueRef st = LLVMBuildStore(g->b, sel, p);
    LLVMSetAlignment(st, 8);
}

static LLVMTypeRef vec(struct gen *g, LLVMTypeRef t)
{
    (void)g;
    return LLVMVectorType(t, WARP_SIZE);
}

static LLVMValueRef as_f32(struct gen *g, LLVMValueRef row)
{
    return LLVMBuildBitCast(g->b, LLVMBuildTrunc(g->b, row, vec(g, g->i32), ""), vec(g, g->f32),
                            "");
}

/* f32_result: NaN is the canonical one; zero-extended into the slot. */
static LLVMValueRef f32_row(struct gen *g, LLVMValueRef z)
{
    LLVMValueRef nan = LLVMBuildFCmp(g->b, LLVMRealUNO, z, z, "");
    LLVMValueRef bits = LLVMBuildBitCast(g->b, z, vec(g, g->i32), "");
    LLVMValueRef canon[WARP_SIZE];
    for (int l = 0; l < WARP_SIZE; l++)
        canon[l] = LLVMConstInt(g->i32, CANONICAL_NAN_F32, 0);
    bits = LLVMBuildSelect(g->b, nan, LLVMConstVector(canon, WARP_SIZE), bits, "");
    return LLVMBuildZExt(g->b, bits, g->row, "");
}

static LLVMValueRef splat32(struct gen *g, uint32_t v)
{
    LLVMValueRef lanes[WARP_SIZE];
    for (int l = 0; l < WARP_SIZE; l++)
        lanes[l] = LLVMConstInt(g->i32, v, 0);
    return LLVMConstVector(lanes, WARP_SIZE);
}

static LLVMValueRef gen_f32(struct gen *g, const struct ptx_insn *insn)
{
    LLVMValueRef a = load_row(g, &insn->o[1]);
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_NEG:
    case PTX_OP_ABS: {
        LLVMValueRef x = LLVMBuildTrunc(g->b, a, vec(g, g->i32), "");
        x = insn->op == PTX_OP_NEG ? LLVMBuildXor(g->b, x, splat32(g, 0x80000000u), "")
                                   : LLVMBuildAnd(g->b, x, splat32(g, 0x7FFFFFFFu), "");
        return LLVMBuildZExt(g->b, x, g->row, "");
    }
    default:
        break;
    }
    LLVMValueRef x = as_f32(g, a), y = as_f32(g, load_row(g, &insn->o[2])), z;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_ADD:
        z = LLVMBuildFAdd(g->b, x, y, "");
        break;
    case PTX_OP_SUB:
        z = LLVMBuildFSub(g->b, x, y, "");
        break;
    case PTX_OP_MUL:
        z = LLVMBuildFMul(g->b, x, y, "");
        break;
    case PTX_OP_DIV:
        z = LLVMBuildFDiv(g->b, x, y, "");
        break;
    default: { /* fma, mad */
        LLVMTypeRef vt = vec(g, g->f32);
        LLVMTypeRef fty = LLVMFunctionType(vt, (LLVMTypeRef[]){vt, vt, vt}, 3, 0);
        LLVMValueRef fma = LLVMGetNamedFunction(g->mod, "llvm.fma.v32f32");
        if (!fma)
            fma = LLVMAddFunction(g->mod, "llvm.fma.v32f32", fty);
        LLVMValueRef c = as_f32(g, load_row(g, &insn->o[3]));
        z = LLVMBuildCall2(g->b, fty, fma, (LLVMValueRef[]){x, y, c}, 3, "");
    }
    }
    return f32_row(g, z);
}

static LLVMValueRef gen_int(struct gen *g, const struct ptx_insn *insn)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    LLVMTypeRef it = ptx_type_bytes(t) == 4 ? vec(g, g->i32) : g->row;
    LLVMValueRef a = load_row(g, &insn->o[1]);
    if ((enum ptx_op)insn->op == PTX_OP_MOV)
        return it == g->row ? a : LLVMBuildZExt(g->b, LLVMBuildTrunc(g->b, a, it, ""), g->row, "");
    if ((enum ptx_op)insn->op == PTX_OP_CVTA)
        return a;
    LLVMValueRef b = load_row(g, &insn->o[2]);
    if (insn->op == PTX_OP_MUL && (insn->flags & PTX_F_WIDE)) {
        LLVMValueRef x = LLVMBuildTrunc(g->b, a, it, ""), y = LLVMBuildTrunc(g->b, b, it, "");
        bool s = t == PTX_S32;
        x = s ? LLVMBuildSExt(g->b, x, g->row, "") : LLVMBuildZExt(g->b, x, g->row, "");
        y = s ? LLVMBuildSExt(g->b, y, g->row, "") : LLVMBuildZExt(g->b, y, g->row, "");
        return LLVMBuildMul(g->b, x, y, "");
    }
    LLVMValueRef x = it == g->row ? a : LLVMBuildTrunc(g->b, a, it, "");
    LLVMValueRef y = it == g->row ? b : LLVMBuildTrunc(g->b, b, it, ""), z;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_ADD:
        z = LLVMBuildAdd(g->b, x, y, "");
        break;
    case PTX_OP_SUB:
        z = LLVMBuildSub(g->b, x, y, "");
        break;
    case PTX_OP_AND:
        z = LLVMBuildAnd(g->b, x, y, "");
        break;
    case PTX_OP_OR:
        z = LLVMBuildOr(g->b, x, y, "");
        break;
    case PTX_OP_XOR:
        z = LLVMBuildXor(g->b, x, y, "");
        break;
    case PTX_OP_MAD: {
        LLVMValueRef c = load_row(g, &insn->o[3]);
        c = it == g->row ? c : LLVMBuildTrunc(g->b, c, it, "");
        z = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, x, y, ""), c, "");
        break;
    }
    default:
        z = LLVMBuildMul(g->b, x, y, "");
        break;
    }
    return it == g->row ? z : LLVMBuildZExt(g->b, z, g->row, "");
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

static LLVMRealPredicate real_predicate(enum ptx_cmp c)
{
    static const LLVMRealPredicate map[] = {
        [PTX_CMP_EQ] = LLVMRealOEQ,  [PTX_CMP_NE] = LLVMRealONE,  [PTX_CMP_LT] = LLVMRealOLT,
        [PTX_CMP_LE] = LLVMRealOLE,  [PTX_CMP_GT] = LLVMRealOGT,  [PTX_CMP_GE] = LLVMRealOGE,
        [PTX_CMP_EQU] = LLVMRealUEQ, [PTX_CMP_NEU] = LLVMRealUNE, [PTX_CMP_LTU] = LLVMRealULT,
        [PTX_CMP_LEU] = LLVMRealULE, [PTX_CMP_GTU] = LLVMRealUGT, [PTX_CMP_GEU] = LLVMRealUGE,
        [PTX_CMP_NUM] = LLVMRealORD, [PTX_CMP_NAN] = LLVMRealUNO,
    };
    return c < sizeof map / sizeof map[0] && map[c] ? map[c] : LLVMRealPredicateFalse;
}

/* setp p, a, b: p's lanes of m = the comparison (set_pred). */
static void gen_setp(struct gen *g, const struct ptx_insn *insn, LLVMValueRef m)
{
    enum ptx_type t = (enum ptx_type)insn->type;
    enum ptx_cmp c = (enum ptx_cmp)insn->cmp;
    LLVMValueRef a = load_row(g, &insn->o[1]), b = load_row(g, &insn->o[2]), r;
    if (t == PTX_F32) {
        r = LLVMBuildFCmp(g->b, real_predicate(c), as_f32(g, a), as_f32(g, b), "");
    } else {
        bool is_int_cmp = c <= PTX_CMP_HS;
        if (ptx_type_bytes(t) == 4) {
            a = LLVMBuildTrunc(g->b, a, vec(g, g->i32), "");
            b = LLVMBuildTrunc(g->b, b, vec(g, g->i32), "");
        }
        r = is_int_cmp ? LLVMBuildICmp(g->b, int_predicate(c, ptx_type_is_signed(t)), a, b, "")
                       : LLVMConstNull(g->mask_vec);
    }
    LLVMValueRef v = LLVMBuildBitCast(g->b, r, g->i32, "");
    LLVMValueRef pp = LLVMBuildGEP2(
        g->b, g->i32, g->preds, (LLVMValueRef[]){LLVMConstInt(g->i64, insn->o[0].reg, 0)}, 1, "");
    LLVMValueRef old = LLVMBuildLoad2(g->b, g->i32, pp, "");
    LLVMValueRef keep = LLVMBuildAnd(g->b, old, LLVMBuildNot(g->b, m, ""), "");
    LLVMBuildStore(g->b, LLVMBuildOr(g->b, keep, LLVMBuildAnd(g->b, v, m, ""), ""), pp);
}

static LLVMValueRef helper(struct gen *g, void *fn)
{
    return LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)fn, 0), g->ptr);
}

/* Returns 1 from the region when `status` (i32) is nonzero. */
static void bail_if(struct gen *g, LLVMValueRef fn, LLVMValueRef status)
{
    LLVMBasicBlockRef stop = LLVMAppendBasicBlockInContext(g->ctx, fn, "stop");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(g->ctx, fn, "go");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, status, LLVMConstInt(g->i32, 0, 0), ""),
                    stop, go);
    LLVMPositionBuilderAtEnd(g->b, stop);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, 1, 0));
    LLVMPositionBuilderAtEnd(g->b, go);
}

static void gen_region(struct gen *g, const struct ptx_function *fn, uint32_t start, uint32_t end,
                       const char *name)
{
    LLVMValueRef func = LLVMAddFunction(g->mod, name, g->region_ty);
    LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->ctx, func, "entry"));
    g->w = LLVMGetParam(func, 0);
    g->f = LLVMGetParam(func, 1);
    LLVMValueRef mask = LLVMGetParam(func, 2);
    LLVMValueRef off_regs = LLVMConstInt(g->i64, offsetof(struct frame, regs), 0);
    LLVMValueRef off_preds = LLVMConstInt(g->i64, offsetof(struct frame, preds), 0);
    g->regs = LLVMBuildLoad2(g->b, g->ptr, LLVMBuildGEP2(g->b, g->i8, g->f, &off_regs, 1, ""), "");
    g->preds =
        LLVMBuildLoad2(g->b, g->ptr, LLVMBuildGEP2(g->b, g->i8, g->f, &off_preds, 1, ""), "");
    for (uint32_t pc = start; pc < end; pc++) {
        const struct ptx_insn *insn = &fn->code[pc];
        LLVMValueRef pcv = LLVMConstInt(g->i32, pc, 0);
        bail_if(g, func,
                LLVMBuildCall2(g->b, g->issue_ty, helper(g, (void *)jit_issue),
                               (LLVMValueRef[]){g->w, g->f, pcv}, 3, ""));
        LLVMValueRef m = mask;
        if (insn->guard != PTX_NO_REG) {
            LLVMValueRef pp =
                LLVMBuildGEP2(g->b, g->i32, g->preds,
                              (LLVMValueRef[]){LLVMConstInt(g->i64, insn->guard, 0)}, 1, "");
            LLVMValueRef p = LLVMBuildLoad2(g->b, g->i32, pp, "");
            if (insn->guard_neg)
                p = LLVMBuildNot(g->b, p, "");
            m = LLVMBuildAnd(g->b, m, p, "");
        }
        enum ptx_op op = (enum ptx_op)insn->op;
        if (op == PTX_OP_LD || op == PTX_OP_ST) {
            bail_if(g, func,
                    LLVMBuildCall2(g->b, g->memory_ty, helper(g, (void *)jit_memory),
                                   (LLVMValueRef[]){g->w, g->f, pcv, m}, 4, ""));
        } else if (op == PTX_OP_SETP) {
            gen_setp(g, insn, m);
        } else {
            LLVMValueRef v = insn->type == PTX_F32 && op != PTX_OP_MOV && op != PTX_OP_CVTA
                                 ? gen_f32(g, insn)
                                 : gen_int(g, insn);
            store_row(g, insn->o[0].reg, v, m);
        }
    }
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
}

/* ------------------------------------------------------ regions, cache */

/* Marks the pcs where a region must start: leaders and reconvergence points. */
static uint8_t *region_starts(const struct ptx_function *fn)
{
    uint8_t *s = calloc(fn->n_code + 1, 1);
    if (!s)
        return NULL;
    for (uint32_t pc = 0; pc < fn->n_code; pc++) {
        const struct ptx_insn *insn = &fn->code[pc];
        if (insn->flags & PTX_F_BLOCK_START)
            s[pc] = 1;
        if (insn->op == PTX_OP_BRA) {
            if (insn->target < fn->n_code)
                s[insn->target] = 1;
            if (insn->reconv < fn->n_code)
                s[insn->reconv] = 1;
            s[pc + 1] = 1;
        }
    }
    return s;
}

struct jit_entry {
    uint64_t hash;
    struct jit_kernel *kernel; /* NULL: nothing compiles (a fallback) */
    struct jit_entry *next;
};

/* The process's compiler and cache (JIT.md "The cache"): code lives until exit. */
static struct {
    pthread_mutex_t lock;
    LLVMOrcLLJITRef jit;
    bool failed;
    struct jit_entry *entries;
    unsigned serial;
    unsigned compiled, fallbacks;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

bool jit_enabled(void)
{
    const char *tier = getenv("KGEMU_TIER");
    return tier && strcmp(tier, "jit") == 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t kernel_hash(const struct ptx_function *fn)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, &fn->n_code, sizeof fn->n_code);
    h = fnv(h, &fn->n_regs, sizeof fn->n_regs);
    return fnv(h, fn->code, (size_t)fn->n_code * sizeof *fn->code);
}

static bool report(LLVMErrorRef err, const char *what)
{
    if (!err)
        return true;
    char *msg = LLVMGetErrorMessage(err);
    if (getenv("KGEMU_JIT_STATS"))
        fprintf(stderr, "kgemu jit: %s: %s\n", what, msg);
    LLVMDisposeErrorMessage(msg);
    return false;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool start_jit(void)
{
    if (cache.jit || cache.failed)
        return cache.jit != NULL;
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    cache.failed = !report(LLVMOrcCreateLLJIT(&cache.jit, NULL), "starting LLJIT");
    return !cache.failed;
}

static struct jit_kernel *compile(const struct ptx_function *fn)
{
    double t0 = now_seconds();
    uint8_t *starts = region_starts(fn);
    struct jit_kernel *k = calloc(1, sizeof *k);
    if (!starts || !k)
        goto err;
    k->n_code = fn->n_code;
    k->region = calloc(fn->n_code + 1, sizeof *k->region);
    k->region_end = calloc(fn->n_code + 1, sizeof *k->region_end);
    if (!k->region || !k->region_end)
        goto err;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    struct gen g = {.ctx = LLVMOrcThreadSafeContextGetContext(tsc)};
    g.mod = LLVMModuleCreateWithNameInContext("kgemu", g.ctx);
    LLVMSetDataLayout(g.mod, LLVMOrcLLJITGetDataLayoutStr(cache.jit));
    LLVMSetTarget(g.mod, LLVMOrcLLJITGetTripleString(cache.jit));
    g.b = LLVMCreateBuilderInContext(g.ctx);
    g.i1 = LLVMInt1TypeInContext(g.ctx);
    g.i8 = LLVMInt8TypeInContext(g.ctx);
    g.i32 = LLVMInt32TypeInContext(g.ctx);
    g.i64 = LLVMInt64TypeInContext(g.ctx);
    g.f32 = LLVMFloatTypeInContext(g.ctx);
    g.ptr = LLVMPointerTypeInContext(g.ctx, 0);
    g.row = LLVMVectorType(g.i64, WARP_SIZE);
    g.mask_vec = LLVMVectorType(g.i1, WARP_SIZE);
    g.region_ty = LLVMFunctionType(g.i32, (LLVMTypeRef[]){g.ptr, g.ptr, g.i32}, 3, 0);
    g.issue_ty = g.region_ty;
    g.memory_ty = LLVMFunctionType(g.i32, (LLVMTypeRef[]){g.ptr, g.ptr, g.i32, g.i32}, 4, 0);
    unsigned serial = cache.serial++;
    char name[64];
    for (uint32_t pc = 0; pc < fn->n_code;) {
        if (!jit_covers(&fn->code[pc])) {
            pc++;
            continue;
        }
        uint32_t end = pc + 1;
        while (end < fn->n_code && !starts[end] && jit_covers(&fn->code[end]))
            end++;
        snprintf(name, sizeof name, "k%u_r%u", serial, pc);
        gen_region(&g, fn, pc, end, name);
        k->region_end[pc] = end;
        k->n_regions++;
        pc = end;
    }
    LLVMDisposeBuilder(g.b);
    bool ok = k->n_regions > 0;
    if (ok) {
        LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
        ok = report(LLVMRunPasses(g.mod, "default<O2>", NULL, opts), "optimizing");
        LLVMDisposePassBuilderOptions(opts);
    }
    if (ok) {
        LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(g.mod, tsc);
        ok = report(
            LLVMOrcLLJITAddLLVMIRModule(cache.jit, LLVMOrcLLJITGetMainJITDylib(cache.jit), tsm),
            "adding the module");
        if (!ok)
            LLVMOrcDisposeThreadSafeModule(tsm);
    } else {
        LLVMDisposeModule(g.mod);
    }
    LLVMOrcDisposeThreadSafeContext(tsc);
    for (uint32_t pc = 0; ok && pc < fn->n_code; pc++) {
        if (!k->region_end[pc])
            continue;
        LLVMOrcExecutorAddress addr = 0;
        snprintf(name, sizeof name, "k%u_r%u", serial, pc);
        ok = report(LLVMOrcLLJITLookup(cache.jit, &addr, name), "looking up a region");
        k->region[pc] = (jit_region_fn)(uintptr_t)addr;
    }
    if (!ok)
        goto err;
    free(starts);
    k->compile_seconds = now_seconds() - t0;
    if (getenv("KGEMU_JIT_STATS"))
        fprintf(stderr, "kgemu jit: %s: %u regions compiled in %.1f ms\n", fn->name, k->n_regions,
                k->compile_seconds * 1e3);
    return k;
err:
    free(starts);
    if (k) {
        free(k->region);
        free(k->region_end);
        free(k);
    }
    return NULL;
}

const struct jit_kernel *jit_kernel_get(const struct ptx_function *fn)
{
    uint64_t h = kernel_hash(fn);
    pthread_mutex_lock(&cache.lock);
    struct jit_entry *e = cache.entries;
    while (e && e->hash != h)
        e = e->next;
    if (!e && start_jit() && (e = calloc(1, sizeof *e)) != NULL) {
        e->hash = h;
        e->kernel = compile(fn);
        e->next = cache.entries;
        cache.entries = e;
        if (e->kernel)
            cache.compiled++;
        else
            cache.fallbacks++;
        if (getenv("KGEMU_JIT_STATS"))
            fprintf(stderr, "kgemu jit: %u kernels compiled, %u fell back to the interpreter\n",
                    cache.compiled, cache.fallbacks);
    }
    const struct jit_kernel *k = e ? e->kernel : NULL;
    pthread_mutex_unlock(&cache.lock);
    return k;
}
