/*
 * The compiled tier's memory accesses (JIT.md, "Loads and stores by
 * shape"): a global or shared ld or st tests its lanes' addresses for a
 * shape (a row, a 16-wide block's repeated row, a pair, any other) and
 * takes that shape's path: the bounds test of its span, the access as a
 * vector load or store, 16 lanes repeated, two loads, or a gather or
 * scatter, and its request for the timing model (its sectors as a range,
 * a pair or windows, or lane by lane); a shared atom or red as a loop over
 * its lanes. What does not fit runs through the interpreter's checked
 * path, which records the fault.
 */
#include "jit_emit.h"

#include "exec.h"
#include "jit.h"

#include <stddef.h>
#include <stdio.h>

#define HOST_LINE_BYTES    64
#define PREFETCH_LINES_MAX 4 /* a warp's 8-byte accesses, side by side */

/* ------------------------------------------------ called from the code */

/* The fast paths' requests, for the timing model: of global addresses,
 * and of offsets in the block's shared memory. */
static void account_global(struct warp *w, struct frame *f, uint32_t pc, uint32_t m,
                           const uint64_t *address)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    struct timing_launch *t = &w->block->launch->timing;
    mem_account_global(w, insn, m, address, ptx_type_bytes((enum ptx_type)insn->type),
                       insn->op == PTX_OP_ST ? TIMING_WRITE : TIMING_READ);
    if (t->enabled)
        timing_global_load(&w->timing, t->device, f->fn, pc, f->ready);
}

/* A global request whose sectors the compiled code found (emit_global_request). */
static void account_sectors(struct warp *w, struct frame *f, uint32_t pc, uint64_t base0,
                            uint64_t bits0, uint64_t base1, uint64_t bits1)
{
    const struct ptx_insn *insn = &f->fn->code[pc];
    struct timing_launch *t = &w->block->launch->timing;
    if (!t->enabled)
        return;
    timing_global_sectors(&w->timing, t, &w->block->log, insn, base0, bits0, base1, bits1,
                          insn->op == PTX_OP_ST ? TIMING_WRITE : TIMING_READ);
    timing_global_load(&w->timing, t->device, f->fn, pc, f->ready);
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

/* A generic access that found shared memory: its banks, and a load's
 * latency in shared memory (account, interp_memory.c). */
static void account_generic_shared(struct warp *w, struct frame *f, uint32_t pc, uint32_t m,
                                   const uint64_t *offset)
{
    account_shared(w, f, pc, m, offset);
    struct timing_launch *t = &w->block->launch->timing;
    if (t->enabled && f->fn->code[pc].op == PTX_OP_LD)
        timing_generic_load(&w->timing, t->device, f->fn, pc, f->ready, TIMING_IN_SHARED);
}

/* A generic load that found local memory: the latency timing_generic_load
 * gives it (account, interp_memory.c). */
static void account_local_load(struct warp *w, struct frame *f, uint32_t pc)
{
    struct timing_launch *t = &w->block->launch->timing;
    if (t->enabled)
        timing_generic_load(&w->timing, t->device, f->fn, pc, f->ready, TIMING_IN_LOCAL);
}

/* ------------------------------------------------------------ helpers */

static LLVMValueRef reduce(struct jit_emit *e, const char *how, LLVMValueRef v)
{
    char name[64];
    snprintf(name, sizeof name, "llvm.vector.reduce.%s.v32i64", how);
    return jit_intrinsic(e, name, e->i64, &v, 1);
}

/* The lanes' addresses over the mask's lanes, as `how` combines them;
 * `none` where a lane is off. */
static LLVMValueRef over_lanes(struct jit_emit *e, const char *how, LLVMValueRef address,
                               uint64_t none)
{
    LLVMValueRef lanes = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    return reduce(e, how,
                  LLVMBuildSelect(e->b, lanes, address, jit_splat(jit_constant64(e, none)), ""));
}

/* llvm.masked.gather (value NULL) or llvm.masked.scatter of `bytes`-wide
 * values at the pointers, under the mask. */
static LLVMValueRef gather_scatter(struct jit_emit *e, LLVMValueRef pointers, LLVMValueRef value,
                                   unsigned bytes)
{
    bool gather = value == NULL;
    LLVMTypeRef vt = jit_lanes_of(LLVMIntTypeInContext(e->ctx, 8 * bytes));
    char name[64];
    snprintf(name, sizeof name, "llvm.masked.%s.v32i%u.v32p0", gather ? "gather" : "scatter",
             8 * bytes);
    LLVMValueRef lanes = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    LLVMValueRef align = LLVMConstInt(e->i32, bytes, 0);
    LLVMValueRef gather_args[] = {pointers, align, lanes, LLVMGetPoison(vt)};
    LLVMValueRef scatter_args[] = {value, pointers, align, lanes};
    return jit_intrinsic(e, name, gather ? vt : LLVMVoidTypeInContext(e->ctx),
                         gather ? gather_args : scatter_args, 4);
}

/* The request of a fast path for the timing model: of `address` (global
 * addresses, or with `shared` offsets in shared memory, which a generic
 * access found there). */
static void emit_account(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                         LLVMValueRef address, bool shared)
{
    LLVMBuildStore(e->b, address, e->addresses);
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), e->mask, e->addresses};
    void (*account)(void) = !shared ? (void (*)(void))account_global
                            : insn->space == PTX_SPACE_GENERIC
                                ? (void (*)(void))account_generic_shared
                                : (void (*)(void))account_shared;
    LLVMBuildCall2(e->b, e->account_ty, jit_constant_pointer(e, account), args, 5, "");
}

/* account_sectors's call: a request of two windows of sectors. */
static void call_account_sectors(struct jit_emit *e, uint32_t pc, LLVMValueRef base0,
                                 LLVMValueRef bits0, LLVMValueRef base1, LLVMValueRef bits1)
{
    LLVMValueRef args[] = {e->w, e->f, LLVMConstInt(e->i32, pc, 0), base0, bits0, base1, bits1};
    LLVMBuildCall2(e->b, e->sectors_ty, jit_constant_pointer(e, (void (*)(void))account_sectors),
                   args, 7, "");
}

/* The lanes' sectors in a window of 64 starting at the line of sector
 * `first` (`in`: the lanes of `lanes` inside it), as emit_global_request
 * gives them to timing_global_sectors: the window's first sector, and bit
 * j for sector base + j. */
static LLVMValueRef window(struct jit_emit *e, LLVMValueRef sector, LLVMValueRef lanes,
                           LLVMValueRef first, LLVMValueRef *base, LLVMValueRef *in)
{
    *base = LLVMBuildAnd(e->b, first, jit_constant64(e, ~(uint64_t)3), "");
    LLVMValueRef at = LLVMBuildSub(e->b, sector, jit_splat_value(e, *base), "");
    LLVMValueRef inside = LLVMBuildICmp(e->b, LLVMIntULT, at, jit_splat(jit_constant64(e, 64)), "");
    *in = LLVMBuildAnd(e->b, lanes, inside, "");
    LLVMValueRef bit =
        LLVMBuildShl(e->b, jit_splat(jit_constant64(e, 1)),
                     LLVMBuildAnd(e->b, at, jit_splat(jit_constant64(e, 63)), ""), "");
    return reduce(e, "or", LLVMBuildSelect(e->b, *in, bit, jit_splat(jit_constant64(e, 0)), ""));
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
    LLVMValueRef sector = LLVMBuildLShr(e->b, address, jit_splat(jit_constant64(e, 5)), "");
    LLVMValueRef first =
        LLVMBuildLShr(e->b, over_lanes(e, "umin", address, ~0ull), jit_constant64(e, 5), "");
    LLVMValueRef base0, base1, in0, in1;
    LLVMValueRef bits0 = window(e, sector, lanes, first, &base0, &in0);
    LLVMValueRef rest = LLVMBuildAnd(e->b, lanes, LLVMBuildNot(e->b, in0, ""), "");
    LLVMValueRef second = reduce(
        e, "umin", LLVMBuildSelect(e->b, rest, sector, jit_splat(jit_constant64(e, ~0ull)), ""));
    LLVMValueRef bits1 = window(e, sector, rest, second, &base1, &in1);
    LLVMValueRef covered = LLVMBuildBitCast(e->b, LLVMBuildOr(e->b, in0, in1, ""), e->i32, "");
    LLVMBasicBlockRef windows = jit_block(e, "windows"), lanes_apart = jit_block(e, "apart"),
                      done = jit_block(e, "accounted");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, covered, e->mask, ""), windows,
                    lanes_apart);
    LLVMPositionBuilderAtEnd(e->b, windows);
    call_account_sectors(e, pc, base0, bits0, base1, bits1);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, lanes_apart);
    emit_account(e, insn, pc, address, false);
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
    bool olds_read = !red && insn->o[0].reg != PTX_NO_REG && !jit_never_read(e->fn, insn->o[0].reg);
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    LLVMTypeRef word = LLVMIntTypeInContext(e->ctx, 8 * bytes), words = jit_lanes_of(word);
    bool cas = insn->cmp == PTX_ATOM_CAS;
    LLVMValueRef at = entry_slot(e, jit_lanes_of(e->ptr)), b = entry_slot(e, words),
                 c = cas ? entry_slot(e, words) : NULL,
                 olds = olds_read ? entry_slot(e, words) : NULL;
    LLVMBuildStore(e->b, pointers, at);
    LLVMBuildStore(e->b, jit_as_int(e, jit_row_of(e, &insn->o[red ? 1 : 2]), bytes), b);
    if (cas)
        LLVMBuildStore(e->b, jit_as_int(e, jit_row_of(e, &insn->o[red ? 2 : 3]), bytes), c);
    LLVMBasicBlockRef before = LLVMGetInsertBlock(e->b), lane = jit_block(e, "lane"),
                      after = jit_block(e, "lanes_done");
    LLVMBuildBr(e->b, lane);
    LLVMPositionBuilderAtEnd(e->b, lane);
    LLVMValueRef left = LLVMBuildPhi(e->b, e->i32, "");
    LLVMValueRef cttz_args[] = {left, LLVMConstInt(e->i1, 1, 0)};
    LLVMValueRef l =
        LLVMBuildZExt(e->b, jit_intrinsic(e, "llvm.cttz.i32", e->i32, cttz_args, 2), e->i64, "");
    LLVMValueRef p = LLVMBuildLoad2(e->b, e->ptr, slot_element(e, jit_lanes_of(e->ptr), at, l), "");
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
        jit_write_row(e, insn->o[0].reg, jit_widen(e, LLVMBuildLoad2(e->b, words, olds, "")));
    emit_account(e, insn, pc, offsets, true);
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
            LLVMBuildAdd(e->b, next, jit_constant64(e, (uint64_t)k * HOST_LINE_BYTES), "");
        LLVMValueRef args[] = {LLVMBuildIntToPtr(e->b, at, e->ptr, ""),
                               LLVMConstInt(e->i32, !load, 0), /* for writing */
                               LLVMConstInt(e->i32, 3, 0),     /* keep it close */
                               LLVMConstInt(e->i32, 1, 0)};    /* data */
        jit_intrinsic(e, "llvm.prefetch.p0", LLVMVoidTypeInContext(e->ctx), args, 4);
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
        LLVMBuildAnd(e->b, lo, jit_constant64(e, ~(uint64_t)(ADDS_LINE_BYTES - 1)), "");
    LLVMValueRef in = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, line, first, ""),
                                   LLVMBuildICmp(e->b, LLVMIntULE, line, hi, ""), "");
    LLVMValueRef pending = LLVMBuildICmp(e->b, LLVMIntNE, line, jit_constant64(e, 0), "");
    LLVMBasicBlockRef flush = jit_block(e, "flush"), go = jit_block(e, "go");
    LLVMBuildCondBr(e->b, LLVMBuildAnd(e->b, in, pending, ""), flush, go);
    LLVMPositionBuilderAtEnd(e->b, flush);
    LLVMTypeRef params[] = {e->ptr};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, 1, 0);
    LLVMValueRef args[] = {e->w};
    LLVMBuildCall2(e->b, fty, jit_constant_pointer(e, (void (*)(void))mem_flush_deferred), args, 1,
                   "");
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
        lanes[l] = jit_constant64(e, scale * (l % period));
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
    return LLVMBuildZExt(e->b, jit_intrinsic(e, name, e->i32, args, 2), e->i64, "");
}

static struct request request_of(struct jit_emit *e, LLVMValueRef address, LLVMValueRef memory,
                                 unsigned bytes)
{
    struct request r = {.address = address, .memory = memory, .bytes = bytes};
    r.on = LLVMBuildBitCast(e->b, e->mask, e->lanes, "");
    LLVMValueRef lowest = mask_bit_count(e, "cttz");
    r.highest = LLVMBuildSub(e->b, jit_constant64(e, WARP_SIZE - 1), mask_bit_count(e, "ctlz"), "");
    r.first = LLVMBuildExtractElement(e->b, address, lowest, "");
    r.start =
        LLVMBuildSub(e->b, r.first, LLVMBuildMul(e->b, lowest, jit_constant64(e, bytes), ""), "");
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
        want = LLVMBuildAdd(e->b, jit_splat_value(e, r->start),
                            lane_pattern(e, WARP_SIZE, r->bytes), "");
        return lanes_at(e, r->address, r->on, want);
    case SHAPE_REPEATED:
        want = LLVMBuildAdd(e->b, jit_splat_value(e, r->a0),
                            lane_pattern(e, WARP_SIZE / 2, r->bytes), "");
        return LLVMBuildAnd(e->b, full, lanes_at(e, r->address, all, want), "");
    case SHAPE_PAIR:
        want = LLVMBuildSelect(e->b, lower_half(e), jit_splat_value(e, r->a0),
                               jit_splat_value(e, r->a16), "");
        return LLVMBuildAnd(e->b, full, lanes_at(e, r->address, all, want), "");
    default:
        return LLVMConstInt(e->i1, 1, 0);
    }
}

static struct span span_of(struct jit_emit *e, const struct request *r, enum shape shape)
{
    LLVMValueRef elements = jit_constant64(e, (uint64_t)(WARP_SIZE / 2 - 1) * r->bytes);
    switch (shape) {
    case SHAPE_ROW:
        return (struct span){
            r->first,
            LLVMBuildAdd(e->b, r->start,
                         LLVMBuildMul(e->b, r->highest, jit_constant64(e, r->bytes), ""), ""),
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
    LLVMValueRef bytes = jit_constant64(e, r->bytes);
    LLVMValueRef misaligned = LLVMBuildAnd(e->b, s.bits, jit_constant64(e, r->bytes - 1), "");
    LLVMValueRef ok =
        LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, misaligned, jit_constant64(e, 0), ""),
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
        LLVMBuildICmp(e->b, LLVMIntULT, s.hi, jit_constant64(e, SHARED_WINDOW), ""),
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
        return LLVMBuildIntToPtr(e->b, address, jit_lanes_of(e->ptr), "");
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
    return jit_intrinsic(e, name, value ? LLVMVoidTypeInContext(e->ctx) : vt,
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
        return LLVMBuildSelect(e->b, lower_half(e), jit_splat_value(e, x0), jit_splat_value(e, x16),
                               "");
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

/* The sectors of every element from lo to hi: one window. */
static void account_range(struct jit_emit *e, uint32_t pc, struct span s)
{
    LLVMValueRef lo = LLVMBuildLShr(e->b, s.lo, jit_constant64(e, 5), "");
    LLVMValueRef hi = LLVMBuildLShr(e->b, s.hi, jit_constant64(e, 5), "");
    LLVMValueRef base = LLVMBuildAnd(e->b, lo, jit_constant64(e, ~(uint64_t)3), "");
    LLVMValueRef ones = LLVMBuildSub(
        e->b, LLVMBuildShl(e->b, jit_constant64(e, 2), LLVMBuildSub(e->b, hi, lo, ""), ""),
        jit_constant64(e, 1), "");
    LLVMValueRef bits = LLVMBuildShl(e->b, ones, LLVMBuildSub(e->b, lo, base, ""), "");
    call_account_sectors(e, pc, base, bits, jit_constant64(e, 0), jit_constant64(e, 0));
}

/* The sectors of two elements, lo and hi: one window, or two when they
 * are 64 sectors apart or more. */
static void account_pair(struct jit_emit *e, uint32_t pc, struct span s)
{
    LLVMValueRef lo = LLVMBuildLShr(e->b, s.lo, jit_constant64(e, 5), "");
    LLVMValueRef hi = LLVMBuildLShr(e->b, s.hi, jit_constant64(e, 5), "");
    LLVMValueRef line_start = jit_constant64(e, ~(uint64_t)3), six_bits = jit_constant64(e, 63);
    LLVMValueRef base0 = LLVMBuildAnd(e->b, lo, line_start, "");
    LLVMValueRef base1 = LLVMBuildAnd(e->b, hi, line_start, "");
    LLVMValueRef apart = LLVMBuildSub(e->b, hi, base0, "");
    LLVMValueRef near = LLVMBuildICmp(e->b, LLVMIntULT, apart, jit_constant64(e, 64), "");
    LLVMValueRef one = jit_constant64(e, 1), zero = jit_constant64(e, 0);
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
        LLVMBasicBlockRef range = jit_block(e, "range"), gaps = jit_block(e, "gaps"),
                          done = jit_block(e, "counted");
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
    LLVMBasicBlockRef fast = jit_block(e, "fast");
    LLVMBuildCondBr(e->b, span_fits(e, r, s, limit), fast, slow);
    LLVMPositionBuilderAtEnd(e->b, fast);
    if (!r->memory)
        emit_flush_when_deferred(e, s.lo, s.hi);
    const struct ptx_operand *v = &insn->o[load ? 0 : 1];
    if (load) {
        LLVMValueRef x = shaped_load(e, r, shape);
        if (r->bytes == 4 && ptx_type_is_signed((enum ptx_type)insn->type))
            x = LLVMBuildSExt(e->b, x, e->row, "");
        jit_write_row(e, v->reg, jit_widen(e, x));
    } else {
        shaped_store(e, r, shape, jit_as_int(e, jit_row_of(e, v), r->bytes));
    }
    if (r->memory) {
        emit_account(e, insn, pc, r->address, true);
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
    uint64_t prefetch_slot = 0; /* global accesses only: shared memory needs no hint */
    if (!memory)
        prefetch_slot = offsetof(struct warp, access_seen) +
                        (e->access_slots++ % WARP_ACCESS_SLOTS) * sizeof(uint64_t);
    for (enum shape shape = SHAPE_ROW; shape < SHAPES; shape++) {
        if (insn->op == PTX_OP_ST && (shape == SHAPE_REPEATED || shape == SHAPE_PAIR))
            continue;
        LLVMBasicBlockRef taken = jit_block(e, "shape"), next = jit_block(e, "next_shape");
        LLVMBuildCondBr(e->b, has_shape(e, &r, shape), taken, next);
        LLVMPositionBuilderAtEnd(e->b, taken);
        emit_shaped_access(e, insn, pc, &r, shape, limit, prefetch_slot, slow, done);
        LLVMPositionBuilderAtEnd(e->b, next);
    }
    LLVMBuildUnreachable(e->b);
}

/* The lanes of the mask where `bad` holds, as a mask. */
static LLVMValueRef lanes_where(struct jit_emit *e, LLVMValueRef bad)
{
    return LLVMBuildAnd(e->b, LLVMBuildBitCast(e->b, bad, e->i32, ""), e->mask, "");
}

/* A local ld or st (or a generic one whose lanes are in the local window):
 * when every lane's offset (`offset`, each lane's own local memory) is
 * aligned and inside the lane's local bytes (window_pointer's test), the
 * access as a gather or scatter at each lane's memory, and a generic
 * load's latency for the timing model (local accesses make no request);
 * else the interpreter's checked path (`slow`). */
static void emit_local_access(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                              LLVMValueRef offset, LLVMBasicBlockRef slow, LLVMBasicBlockRef done)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    bool load = insn->op == PTX_OP_LD;
    LLVMValueRef block = jit_load(e, JIT_WARP, e->ptr, e->w, offsetof(struct warp, block));
    LLVMValueRef launch = jit_load(e, JIT_WARP, e->ptr, block, offsetof(struct block, launch));
    LLVMValueRef per_lane = LLVMBuildZExt(
        e->b, jit_load(e, JIT_WARP, e->i32, launch, offsetof(struct launch_state, local_per_lane)),
        e->i64, "");
    LLVMValueRef room = LLVMBuildSub(e->b, per_lane, jit_constant64(e, bytes), "");
    LLVMValueRef misaligned = LLVMBuildICmp(
        e->b, LLVMIntNE, LLVMBuildAnd(e->b, offset, jit_splat(jit_constant64(e, bytes - 1)), ""),
        LLVMConstNull(e->row), "");
    LLVMValueRef outside = LLVMBuildICmp(e->b, LLVMIntUGT, offset, jit_splat_value(e, room), "");
    LLVMValueRef bad = lanes_where(e, LLVMBuildOr(e->b, misaligned, outside, ""));
    LLVMValueRef fits =
        LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntUGE, per_lane, jit_constant64(e, bytes), ""),
                     LLVMBuildICmp(e->b, LLVMIntEQ, bad, LLVMConstInt(e->i32, 0, 0), ""), "");
    LLVMBasicBlockRef fast = jit_block(e, "local");
    LLVMBuildCondBr(e->b, fits, fast, slow);
    LLVMPositionBuilderAtEnd(e->b, fast);
    LLVMValueRef local = jit_load(e, JIT_WARP, e->ptr, e->w, offsetof(struct warp, local));
    LLVMValueRef at = LLVMBuildAdd(
        e->b, LLVMBuildMul(e->b, lane_pattern(e, WARP_SIZE, 1), jit_splat_value(e, per_lane), ""),
        offset, "");
    LLVMValueRef pointers = LLVMBuildGEP2(e->b, e->i8, local, &at, 1, "");
    const struct ptx_operand *v = &insn->o[load ? 0 : 1];
    if (load) {
        LLVMValueRef x = gather_scatter(e, pointers, NULL, bytes);
        if (bytes == 4 && ptx_type_is_signed((enum ptx_type)insn->type))
            x = LLVMBuildSExt(e->b, x, e->row, "");
        jit_write_row(e, v->reg, jit_widen(e, x));
        if (insn->space == PTX_SPACE_GENERIC)
            LLVMBuildCall2(e->b, e->issue_ty,
                           jit_constant_pointer(e, (void (*)(void))account_local_load),
                           (LLVMValueRef[]){e->w, e->f, LLVMConstInt(e->i32, pc, 0)}, 3, "");
    } else {
        gather_scatter(e, pointers, jit_as_int(e, jit_row_of(e, v), bytes), bytes);
    }
    LLVMBuildBr(e->b, done);
}

void jit_emit_call_param(struct jit_emit *e, const struct ptx_insn *insn)
{
    bool load = insn->op == PTX_OP_LD;
    const struct ptx_operand *a = &insn->o[load ? 1 : 0], *v = &insn->o[load ? 0 : 1];
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    LLVMValueRef params = jit_load(e, JIT_FRAME, e->ptr, e->f, offsetof(struct frame, params));
    LLVMValueRef at = LLVMBuildAdd(e->b, lane_pattern(e, WARP_SIZE, e->fn->call_param_bytes),
                                   jit_splat(jit_constant64(e, (uint64_t)a->imm)), "");
    LLVMValueRef pointers = LLVMBuildGEP2(e->b, e->i8, params, &at, 1, "");
    if (!load) {
        gather_scatter(e, pointers, jit_as_int(e, jit_row_of(e, v), bytes), bytes);
        return;
    }
    LLVMValueRef x = gather_scatter(e, pointers, NULL, bytes);
    if (bytes == 4 && ptx_type_is_signed((enum ptx_type)insn->type))
        x = LLVMBuildSExt(e->b, x, e->row, "");
    jit_write_row(e, v->reg, jit_widen(e, x));
}

/* The block's shared memory and its size in bytes. */
static LLVMValueRef shared_memory(struct jit_emit *e, LLVMValueRef *limit)
{
    LLVMValueRef b = jit_load(e, JIT_WARP, e->ptr, e->w, offsetof(struct warp, block));
    *limit = LLVMBuildZExt(
        e->b, jit_load(e, JIT_WARP, e->i32, b, offsetof(struct block, shared_bytes)), e->i64, "");
    return jit_load(e, JIT_WARP, e->ptr, b, offsetof(struct block, shared));
}

/* A generic ld or st: with an address register that holds a shared
 * array's address (e->shared_pointer: numba's shared arrays), the shared
 * path at the lanes' offsets in the shared window, whose test sends lanes
 * outside the block's shared memory to the checked path; else the local
 * path when the lowest lane's address is in the local window (numba's
 * stack, libdevice's arrays), else the global one. */
static void emit_generic_access(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc,
                                LLVMValueRef address, LLVMBasicBlockRef slow,
                                LLVMBasicBlockRef done)
{
    uint32_t reg = insn->o[insn->op == PTX_OP_LD].reg;
    if (reg != PTX_NO_REG && e->shared_pointer && e->shared_pointer[reg]) {
        LLVMValueRef limit, memory = shared_memory(e, &limit);
        LLVMValueRef offset =
            LLVMBuildSub(e->b, address, jit_splat(jit_constant64(e, SHARED_WINDOW)), "");
        emit_load_store(e, insn, pc, offset, memory, limit, slow, done);
        return;
    }
    LLVMValueRef lowest = mask_bit_count(e, "cttz");
    LLVMValueRef first = LLVMBuildExtractElement(e->b, address, lowest, "");
    LLVMValueRef in_window = LLVMBuildICmp(
        e->b, LLVMIntULT, LLVMBuildSub(e->b, first, jit_constant64(e, LOCAL_WINDOW), ""),
        jit_constant64(e, WINDOW_SIZE), "");
    LLVMBasicBlockRef local = jit_block(e, "generic_local"), global = jit_block(e, "generic");
    LLVMBuildCondBr(e->b, in_window, local, global);
    LLVMPositionBuilderAtEnd(e->b, local);
    emit_local_access(e, insn, pc,
                      LLVMBuildSub(e->b, address, jit_splat(jit_constant64(e, LOCAL_WINDOW)), ""),
                      slow, done);
    LLVMPositionBuilderAtEnd(e->b, global);
    emit_load_store(e, insn, pc, address, NULL, NULL, slow, done);
}

/* A global or shared ld or st (native_memory), or a shared atom or red
 * (native_shared_atomic): the fast path when the lanes fit the cached
 * allocation or the block's shared memory, else the interpreter's checked
 * path, which records any fault. Nothing for an empty mask, as step()
 * executes nothing then. */
void jit_emit_memory(struct jit_emit *e, const struct ptx_insn *insn, uint32_t pc, uint32_t later,
                     uint32_t later_native)
{
    const struct ptx_operand *a = &insn->o[insn->op == PTX_OP_LD || insn->op == PTX_OP_ATOM];
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    LLVMBasicBlockRef check = jit_block(e, "check"), slow = jit_block(e, "slow"),
                      done = jit_block(e, "done");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, e->mask, LLVMConstInt(e->i32, 0, 0), ""),
                    check, done);
    LLVMPositionBuilderAtEnd(e->b, check);
    struct ptx_operand base_row = {.kind = PTX_OPD_REG, .reg = a->reg};
    LLVMValueRef base = a->reg != PTX_NO_REG ? jit_row_of(e, &base_row) : LLVMConstNull(e->row);
    LLVMValueRef address = LLVMBuildAdd(e->b, base, jit_splat_value(e, jit_immediate(e, a)), "");
    if (a->count == 1 && a->space == PTX_SPACE_LOCAL) { /* a .local depot: per frame */
        LLVMValueRef depot =
            jit_load(e, JIT_FRAME, e->i32, e->f, offsetof(struct frame, local_base));
        address = LLVMBuildAdd(e->b, address,
                               jit_splat_value(e, LLVMBuildZExt(e->b, depot, e->i64, "")), "");
    }
    LLVMValueRef memory = NULL, limit = NULL;
    if (insn->space == PTX_SPACE_SHARED)
        memory = shared_memory(e, &limit);
    if (insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED) {
        LLVMBasicBlockRef fast = jit_block(e, "fast");
        struct request r = request_of(e, address, memory, bytes); /* the lanes, any shape */
        LLVMBuildCondBr(e->b, span_fits(e, &r, span_of(e, &r, SHAPE_ANY), limit), fast, slow);
        LLVMPositionBuilderAtEnd(e->b, fast);
        emit_shared_atomic(e, insn, pc, LLVMBuildGEP2(e->b, e->i8, memory, &address, 1, ""),
                           address);
        LLVMBuildBr(e->b, done);
    } else if (insn->space == PTX_SPACE_LOCAL) {
        emit_local_access(e, insn, pc, address, slow, done);
    } else if (insn->space == PTX_SPACE_GENERIC) {
        emit_generic_access(e, insn, pc, address, slow, done);
    } else {
        emit_load_store(e, insn, pc, address, memory, limit, slow, done);
    }
    LLVMPositionBuilderAtEnd(e->b, slow);
    jit_emit_checked_call(e, jit_execute_checked, pc, later, later_native);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
}
