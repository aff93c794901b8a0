/*
 * Internal to emulator/: translating a region of a function's decoded PTX
 * into one LLVM function (JIT.md). jit.c finds the regions, drives this and
 * hands the module to LLJIT; this file knows what each instruction means.
 */
#ifndef KGRADE_EMULATOR_JIT_EMIT_H
#define KGRADE_EMULATOR_JIT_EMIT_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "ptx.h"

/* What a load or store of the compiled code touches: kinds never alias each
 * other (LLVM's type-based alias analysis is told so), which lets it keep
 * rows, predicates and clocks in registers between calls. */
enum jit_memory {
    JIT_ROW,
    JIT_PRED,
    JIT_READY,
    JIT_WARP,
    JIT_FRAME,
    JIT_LATENCY,
    JIT_MEMORY_KINDS
};

struct jit_emit {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    const struct ptx_function *fn;
    LLVMTypeRef i1, i8, i32, i64, f32, f64, ptr, row, lanes, region_ty, interpret_ty, issue_ty,
        account_ty, sectors_ty;
    /* the region being emitted: its function and parameters, and the frame's
     * rows loaded at its start */
    LLVMValueRef func, w, f, mask, latency, regs, preds, ready;
    LLVMValueRef addresses; /* the region's 32 x u64 on the stack: a request's addresses */
    LLVMValueRef tbaa[JIT_MEMORY_KINDS]; /* the access tags */
    unsigned tbaa_kind;
    unsigned access_slots; /* global accesses given a prefetch slot so far */
    /* per register: it may hold a generic address in the shared window (a
     * shared array's, as numba reaches them); NULL when not known */
    uint8_t *shared_pointer;
};

/* Whether an instruction may be inside a region: it does not change the
 * warp's control state (no branch, call, return, exit, trap, barrier or
 * wait). */
bool jit_in_region(const struct ptx_insn *insn);

/* Whether it is an ld or st of one 4- or 8-byte register in the frame's
 * call parameters (a call's arguments and return value, or a .func's own
 * parameters) at an offset inside them, aligned. */
bool jit_call_param(const struct ptx_insn *insn, const struct ptx_function *fn);

/* Whether it is a branch a region may end with (a direct bra). */
bool jit_branch(const struct ptx_insn *insn);

/* Whether the compiler translates it (JIT.md "What is compiled"); a region's
 * other instructions run through interp_execute. */
bool jit_native(const struct ptx_insn *insn, const struct ptx_function *fn);

void jit_emit_init(struct jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod,
                   const struct ptx_function *fn);
void jit_emit_done(struct jit_emit *e);

/* Adds function `name` (jit_region_fn, jit.h) running instructions
 * [start, end) of the function. */
void jit_emit_region(struct jit_emit *e, uint32_t start, uint32_t end, const char *name);

/* IR helpers shared with jit_timing.c: the address `offset` bytes past
 * `base`, and a scalar of `type` loaded from or stored there. */
LLVMValueRef jit_at(struct jit_emit *e, LLVMValueRef base, uint64_t offset);
LLVMValueRef jit_load(struct jit_emit *e, enum jit_memory kind, LLVMTypeRef type, LLVMValueRef base,
                      uint64_t offset);
void jit_store(struct jit_emit *e, enum jit_memory kind, LLVMValueRef value, LLVMValueRef base,
               uint64_t offset);
LLVMValueRef jit_umax(struct jit_emit *e, LLVMValueRef a, LLVMValueRef b);

/* IR helpers shared with jit_access.c: a vector of 32 lanes of `element`;
 * a constant in every lane; an i64 constant; a value in every lane; a
 * source operand's row; an operand's immediate (a placed variable's address
 * read at run time); a row's low `bytes` as integers; a result widened
 * to a row (zero-extended); a row written under the mask (the other lanes
 * blended back); a call of an LLVM intrinsic; a new basic block; a
 * function's address as a pointer constant. */
LLVMTypeRef jit_lanes_of(LLVMTypeRef element);
LLVMValueRef jit_splat(LLVMValueRef constant);
LLVMValueRef jit_constant64(struct jit_emit *e, uint64_t v);
LLVMValueRef jit_splat_value(struct jit_emit *e, LLVMValueRef v);
LLVMValueRef jit_row_of(struct jit_emit *e, const struct ptx_operand *o);
LLVMValueRef jit_immediate(struct jit_emit *e, const struct ptx_operand *o);
LLVMValueRef jit_as_int(struct jit_emit *e, LLVMValueRef row, unsigned bytes);
LLVMValueRef jit_widen(struct jit_emit *e, LLVMValueRef v);
void jit_write_row(struct jit_emit *e, uint32_t reg, LLVMValueRef row);
LLVMValueRef jit_intrinsic(struct jit_emit *e, const char *name, LLVMTypeRef result,
                           LLVMValueRef *args, unsigned n);
LLVMBasicBlockRef jit_block(struct jit_emit *e, const char *name);
LLVMValueRef jit_constant_pointer(struct jit_emit *e, void (*fn)(void));

struct warp;
struct frame;
/* Calls int helper(w, f, pc, mask) for instruction pc; when it returns
 * nonzero (a fault), the counts of the instructions after it (`later`,
 * `later_native` of them native) are taken back and the region returns
 * JIT_FAULTED. */
void jit_emit_checked_call(struct jit_emit *e,
                           int (*helper)(struct warp *, struct frame *, uint32_t, uint32_t),
                           uint32_t pc, uint32_t later, uint32_t later_native);
/* The interpreter's operation for instruction pc, for the lanes of m (not
 * 0), the fault recorded: what a memory access whose fast path did not
 * apply runs. Returns nonzero on a fault. */
int jit_execute_checked(struct warp *w, struct frame *f, uint32_t pc, uint32_t m);

/* Whether no instruction of the function reads register `reg` (an atomic's
 * old value nothing needs). */
bool jit_never_read(const struct ptx_function *fn, uint32_t reg);

/* jit_access.c: a global or shared ld or st, or a shared atom or red
 * (jit_native's memory accesses), instruction pc, with `later` instructions
 * (`later_native` of them native) after it in the region. */
void jit_emit_memory(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc, uint32_t later,
                     uint32_t later_native);

/* jit_access.c: a jit_call_param access: each lane's own parameters
 * (window_pointer's, tested when compiling), gathered or scattered; no
 * request for the timing model, as for the interpreter. */
void jit_emit_call_param(struct jit_emit *e, const struct ptx_insn *insn);

/* jit_timing.c: what step() hands the timing model before instruction pc
 * (timing_issue, timing.h). */
void jit_emit_issue(struct jit_emit *e, uint32_t pc);

/* jit_timing.c: timing_issue itself for instruction pc of frame f (what
 * step() calls), for the instructions whose issue is not written inline. */
void jit_issue_by_model(struct warp *w, struct frame *f, uint32_t pc);

#endif
