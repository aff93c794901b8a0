/*
 * The compiled tier's part of the timing model (JIT.md "Counters and the
 * timing model"): before each instruction of a region, the scoreboard
 * update of timing_issue (timing.h) written out for that instruction — its
 * dependency rows, latency, issue class and basic-block flags are known
 * when the region is compiled, so only the clocks are computed when it
 * runs. It reads and writes the warp's struct timing_warp and the frame's
 * scoreboard in the same order as timing_issue, so the modeled times are
 * the interpreter's bit for bit. The rare cases (an instruction that
 * drains the warp, a merged ld.shared follower, whose count depends on
 * what its leader found, and one that ptxas turns into a sequence, a
 * division or a square root) call timing_issue itself.
 */
#include "jit_emit.h"

#include "exec.h"

#include <stddef.h>

#define TW(field) (offsetof(struct warp, timing) + offsetof(struct timing_warp, field))

void jit_issue_by_model(struct warp *w, struct frame *f, uint32_t pc)
{
    timing_issue(&w->timing, w->block->launch->cfg->device, f->fn, pc, f->ready);
}

static void call_model(struct jit_emit *e, uint32_t pc)
{
    LLVMValueRef fn = jit_constant_pointer(e, (void (*)(void))jit_issue_by_model);
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0)};
    LLVMBuildCall2(e->b, e->issue_ty, fn, args, 3, "");
}

/* timing_next_block: the basic block issues after the current one. */
static LLVMValueRef next_block(struct jit_emit *e, LLVMValueRef floor)
{
    LLVMValueRef count = jit_load(e, JIT_WARP, e->i64, e->w, TW(count));
    LLVMValueRef last = jit_load(e, JIT_WARP, e->i64, e->w, TW(last));
    floor = jit_umax(e, LLVMBuildAdd(e->b, floor, count, ""), last);
    jit_store(e, JIT_WARP, floor, e->w, TW(floor));
    jit_store(e, JIT_WARP, jit_constant64(e, 0), e->w, TW(count));
    return floor;
}

/* timing_schedule: when the instruction's sources are ready; its results
 * are ready `latency` after that. */
static LLVMValueRef schedule(struct jit_emit *e, uint32_t pc, LLVMValueRef at, LLVMValueRef latency)
{
    const struct ptx_function *fn = e->fn;
    for (uint32_t i = fn->dep_start[pc]; i < fn->dep_start[pc + 1]; i++) {
        uint32_t dep = fn->deps[i];
        uint64_t offset = (uint64_t)(dep & ~PTX_DEP_WRITE) * sizeof(uint64_t);
        if (dep & PTX_DEP_WRITE)
            jit_store(e, JIT_READY, LLVMBuildAdd(e->b, at, latency, ""), e->ready, offset);
        else
            at = jit_umax(e, at, jit_load(e, JIT_READY, e->i64, e->ready, offset));
    }
    return at;
}

void jit_emit_issue(struct jit_emit *e, uint32_t pc)
{
    const struct ptx_insn *insn = &e->fn->code[pc];
    if ((insn->flags & PTX_F_DRAIN) || insn->merge == PTX_MERGE_FOLLOWER ||
        insn->sequence != PTX_SEQ_NONE) {
        call_model(e, pc);
        return;
    }
    LLVMValueRef latency = LLVMBuildSExt(
        e->b, jit_load(e, JIT_LATENCY, e->i32, e->latency, timing_latency_field(insn)), e->i64, "");
    LLVMValueRef floor = jit_load(e, JIT_WARP, e->i64, e->w, TW(floor));
    if (insn->flags & PTX_F_BLOCK_START)
        floor = next_block(e, floor);
    LLVMValueRef at = schedule(e, pc, LLVMBuildAdd(e->b, floor, jit_constant64(e, 1), ""), latency);
    jit_store(e, JIT_WARP, at, e->w, TW(issued_at));
    LLVMValueRef path = jit_load(e, JIT_WARP, e->i64, e->w, TW(path));
    jit_store(e, JIT_WARP, path, e->w, TW(path_before));
    uint64_t issued = TW(issued) + insn->issue_class * sizeof(uint64_t);
    jit_store(
        e, JIT_WARP,
        LLVMBuildAdd(e->b, jit_load(e, JIT_WARP, e->i64, e->w, issued), jit_constant64(e, 1), ""),
        e->w, issued);
    LLVMValueRef count = LLVMBuildAdd(e->b, jit_load(e, JIT_WARP, e->i64, e->w, TW(count)),
                                      jit_constant64(e, 1), "");
    jit_store(e, JIT_WARP, count, e->w, TW(count));
    jit_store(e, JIT_WARP, jit_umax(e, jit_load(e, JIT_WARP, e->i64, e->w, TW(last)), at), e->w,
              TW(last));
    LLVMValueRef done =
        jit_umax(e, LLVMBuildAdd(e->b, at, latency, ""), LLVMBuildAdd(e->b, floor, count, ""));
    LLVMValueRef since_start =
        LLVMBuildSub(e->b, done, jit_load(e, JIT_WARP, e->i64, e->w, TW(start)), "");
    jit_store(e, JIT_WARP, jit_umax(e, path, since_start), e->w, TW(path));
}
