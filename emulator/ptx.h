/*
 * Internal to emulator/: PTX decoded once into a compact form.
 *
 * The loader (ptx_lexer.c, ptx_parse.c, ptx_insn.c, ptx_cfg.c) turns PTX
 * text into a struct ptx_module: functions with their instructions as an
 * array of fixed-size struct ptx_insn, registers and symbols resolved to
 * indices and offsets, branch targets and reconvergence points as
 * instruction indices. The interpreter never touches a string.
 *
 * The operation table below is the machine: one line per operation with
 * what it computes (d = destination, a b c = sources, p = predicate).
 */
#ifndef KGRADE_EMULATOR_PTX_H
#define KGRADE_EMULATOR_PTX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith.h"
#include "ptx_types.h"

/* clang-format off */
#define PTX_OPS(X)                                                                   \
    X(MOV,       "mov")       /* d = a (a register, immediate, symbol address or vector pack/unpack) */ \
    X(ADD,       "add")       /* d = a + b   (.cc writes the carry; .sat clamps s32) */ \
    X(ADDC,      "addc")      /* d = a + b + carry (.cc writes the carry) */          \
    X(SUB,       "sub")       /* d = a - b   (.cc writes the borrow) */               \
    X(SUBC,      "subc")      /* d = a - b - borrow */                                \
    X(MUL,       "mul")       /* d = a * b   (.lo .hi .wide for integers) */          \
    X(MAD,       "mad")       /* d = a * b + c (.lo .hi .wide; .cc) */                \
    X(MADC,      "madc")      /* d = a * b + c + carry (.lo .hi; .cc) */              \
    X(MUL24,     "mul24")     /* d = a[23:0] * b[23:0] (.lo .hi) */                   \
    X(MAD24,     "mad24")     /* d = a[23:0] * b[23:0] + c */                         \
    X(SAD,       "sad")       /* d = |a - b| + c */                                   \
    X(DIV,       "div")       /* d = a / b */                                         \
    X(REM,       "rem")       /* d = a % b */                                         \
    X(ABS,       "abs")       /* d = |a| */                                           \
    X(NEG,       "neg")       /* d = -a */                                            \
    X(MIN,       "min")       /* d = min(a, b) */                                     \
    X(MAX,       "max")       /* d = max(a, b) */                                     \
    X(FMA,       "fma")       /* d = a * b + c, rounded once */                       \
    X(SQRT,      "sqrt")      /* d = sqrt(a) */                                       \
    X(RSQRT,     "rsqrt")     /* d = 1 / sqrt(a) */                                   \
    X(RCP,       "rcp")       /* d = 1 / a */                                         \
    X(EX2,       "ex2")       /* d = 2^a */                                           \
    X(LG2,       "lg2")       /* d = log2(a) */                                       \
    X(SIN,       "sin")       /* d = sin(a) */                                        \
    X(COS,       "cos")       /* d = cos(a) */                                        \
    X(TANH,      "tanh")      /* d = tanh(a) */                                       \
    X(WMMA,      "wmma")      /* a warp's matrix fragments: load.a/b/c d, [a]; store.d [a], b; mma d = a·b + c (wmma.c) */ \
    X(AND,       "and")       /* d = a & b (also on predicates) */                    \
    X(OR,        "or")        /* d = a | b */                                         \
    X(XOR,       "xor")       /* d = a ^ b */                                         \
    X(NOT,       "not")       /* d = ~a */                                            \
    X(CNOT,      "cnot")      /* d = (a == 0) */                                      \
    X(SHL,       "shl")       /* d = a << b (b >= width gives 0) */                   \
    X(SHR,       "shr")       /* d = a >> b (arithmetic for signed types) */          \
    X(SHF,       "shf")       /* d = funnel shift of {b:a} by c (.l .r, .wrap .clamp) */ \
    X(BFE,       "bfe")       /* d = bits [b, b+c) of a, extended by a's signedness */ \
    X(BFI,       "bfi")       /* d = a inserted into b at bits [c, c+d) */            \
    X(BREV,      "brev")      /* d = a with its bits reversed */                      \
    X(POPC,      "popc")      /* d = number of 1 bits of a */                         \
    X(CLZ,       "clz")       /* d = number of leading zeros of a */                  \
    X(BFIND,     "bfind")     /* d = position of the most significant non-sign bit */ \
    X(FNS,       "fns")       /* d = position of the n-th set bit */                  \
    X(BMSK,      "bmsk")      /* d = b bits set from bit a (.clamp .wrap) */          \
    X(PRMT,      "prmt")      /* d = bytes of {b, a} selected by c */                 \
    X(DP4A,      "dp4a")      /* d = c + dot product of a's and b's four bytes */     \
    X(DP2A,      "dp2a")      /* d = c + dot product of a's two halves, two bytes of b */ \
    X(VADD2,     "vadd2")     /* the SIMD video instructions (video.c): t = a + b, */ \
    X(VSUB2,     "vsub2")     /*   a - b, (a + b) / 2 (.5 away from 0), |a - b|, */   \
    X(VAVRG2,    "vavrg2")    /*   min or max per half-word of a and b (any of */    \
    X(VABSDIFF2, "vabsdiff2") /*   {b, a}'s four: .asel .bsel); .sat clamps t; */    \
    X(VMIN2,     "vmin2")     /*   d = t merged into c's lanes by .mask, or */       \
    X(VMAX2,     "vmax2")     /*   (.add) c + the sum of the masked t */             \
    X(VSET2,     "vset2")     /* the same with t = a CMP b: 1 or 0 */               \
    X(VADD4,     "vadd4")     /* the same per byte (any of {b, a}'s eight) */         \
    X(VSUB4,     "vsub4")                                                             \
    X(VAVRG4,    "vavrg4")                                                            \
    X(VABSDIFF4, "vabsdiff4")                                                         \
    X(VMIN4,     "vmin4")                                                             \
    X(VMAX4,     "vmax4")                                                             \
    X(VSET4,     "vset4")                                                             \
    X(SETP,      "setp")      /* p[|q] = (a CMP b) BOOL c */                          \
    X(SET,       "set")       /* d = (a CMP b) BOOL c ? all ones (or 1.0f) : 0 */     \
    X(SELP,      "selp")      /* d = c ? a : b */                                     \
    X(SLCT,      "slct")      /* d = c >= 0 ? a : b */                                \
    X(CVT,       "cvt")       /* d = a converted (rounding, .sat, .ftz) */            \
    X(CVTA,      "cvta")      /* d = a converted between generic and a state space */ \
    X(ISSPACEP,  "isspacep")  /* p = a is an address of the state space */            \
    X(TESTP,     "testp")     /* p = a is finite / infinite / number / NaN / normal / subnormal */ \
    X(COPYSIGN,  "copysign")  /* d = |b| with the sign of a */                        \
    X(LD,        "ld")        /* d = [a] */                                           \
    X(LDU,       "ldu")       /* d = [a] (uniform load) */                            \
    X(ST,        "st")        /* [a] = b */                                           \
    X(ATOM,      "atom")      /* d = [a]; [a] = OP([a], b[, c]) atomically */        \
    X(RED,       "red")       /* [a] = OP([a], b) atomically */                       \
    X(PREFETCH,  "prefetch")  /* nothing: a cache hint */                             \
    X(PREFETCHU, "prefetchu") /* nothing: a cache hint */                             \
    X(TEX,       "tex")       /* d = texture object a sampled at coordinates c (texture.c) */ \
    X(TLD4,      "tld4")      /* d = one component of the 4 texels a bilinear fetch of a at c weighs */ \
    X(TXQ,       "txq")       /* d = an attribute of texture object a */              \
    X(SULD,      "suld")      /* d = bytes of surface object a at coordinates b (x in bytes) */ \
    X(SUST,      "sust")      /* bytes of surface object a at coordinates b = c */    \
    X(SURED,     "sured")     /* surface a at b = OP(it, c) atomically */             \
    X(SUQ,       "suq")       /* d = an attribute of surface object a */              \
    X(BRA,       "bra")       /* pc = a */                                            \
    X(BRX,       "brx")       /* pc = table[a] (not supported) */                     \
    X(CALL,      "call")      /* call target (o[0]); args o[1] (offsets in call_args), return o[2] */ \
    X(RET,       "ret")       /* return from the function */                          \
    X(EXIT,      "exit")      /* end the thread */                                    \
    X(TRAP,      "trap")      /* abort the kernel */                                  \
    X(BRKPT,     "brkpt")     /* abort the kernel (breakpoint) */                     \
    X(BAR,       "bar")       /* barrier a of the block, for b threads */             \
    X(BARRIER,   "barrier")   /* barrier a of the block, for b threads */             \
    X(MEMBAR,    "membar")    /* nothing: memory ordering holds under lockstep */     \
    X(FENCE,     "fence")     /* nothing: memory ordering holds under lockstep */     \
    X(SHFL,      "shfl")      /* d = a of another lane (.up .down .bfly .idx) */      \
    X(VOTE,      "vote")      /* d = all / any / uni / ballot of p over the lanes */  \
    X(ACTIVEMASK,"activemask")/* d = mask of the active lanes */                      \
    X(MATCH,     "match")     /* d = lanes whose a equals mine (.any .all) */         \
    X(REDUX,     "redux")     /* d = OP of a over the lanes of the mask */           \
    X(NANOSLEEP, "nanosleep") /* nothing */                                           \
    X(PMEVENT,   "pmevent")   /* nothing */                                           \
    X(GRIDDEPCONTROL, "griddepcontrol") /* nothing: launches run one after another */ \
    X(CP,        "cp")        /* cp.async: a copy made at once; its groups (interp_async.c) */ \
    X(MBARRIER,  "mbarrier")  /* the block's mbarrier objects (interp_async.c) */
/* clang-format on */

enum ptx_op {
#define PTX_OP_ENUM(name, text) PTX_OP_##name,
    PTX_OPS(PTX_OP_ENUM)
#undef PTX_OP_ENUM
        PTX_OP_COUNT
};

/* The state spaces of ld, st, atom, cvta and symbols. */
enum ptx_space {
    PTX_SPACE_GENERIC,
    PTX_SPACE_GLOBAL,
    PTX_SPACE_SHARED,
    PTX_SPACE_LOCAL,
    PTX_SPACE_PARAM,      /* a kernel's parameters (one copy for all threads) */
    PTX_SPACE_CALL_PARAM, /* a function's parameters and call arguments (per thread) */
    PTX_SPACE_CONST,
};

enum ptx_cmp {
    PTX_CMP_EQ,
    PTX_CMP_NE,
    PTX_CMP_LT,
    PTX_CMP_LE,
    PTX_CMP_GT,
    PTX_CMP_GE,
    PTX_CMP_LO,
    PTX_CMP_LS,
    PTX_CMP_HI,
    PTX_CMP_HS, /* unsigned */
    PTX_CMP_EQU,
    PTX_CMP_NEU,
    PTX_CMP_LTU,
    PTX_CMP_LEU,
    PTX_CMP_GTU,
    PTX_CMP_GEU, /* or NaN */
    PTX_CMP_NUM,
    PTX_CMP_NAN,
};

/* An integer comparison of setp, set and vset: x and y as unsigned, sx and sy
 * as signed (when sgn). */
static inline bool ptx_compare_int(uint64_t x, uint64_t y, int64_t sx, int64_t sy, bool sgn,
                                   enum ptx_cmp c)
{
    switch (c) {
    case PTX_CMP_EQ:
        return x == y;
    case PTX_CMP_NE:
        return x != y;
    case PTX_CMP_LT:
        return sgn ? sx < sy : x < y;
    case PTX_CMP_LE:
        return sgn ? sx <= sy : x <= y;
    case PTX_CMP_GT:
        return sgn ? sx > sy : x > y;
    case PTX_CMP_GE:
        return sgn ? sx >= sy : x >= y;
    case PTX_CMP_LO:
        return x < y;
    case PTX_CMP_LS:
        return x <= y;
    case PTX_CMP_HI:
        return x > y;
    case PTX_CMP_HS:
        return x >= y;
    default:
        return false;
    }
}

enum ptx_bool_op { PTX_BOOL_NONE, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR };

enum ptx_atom_op {
    PTX_ATOM_ADD,
    PTX_ATOM_MIN,
    PTX_ATOM_MAX,
    PTX_ATOM_INC,
    PTX_ATOM_DEC,
    PTX_ATOM_AND,
    PTX_ATOM_OR,
    PTX_ATOM_XOR,
    PTX_ATOM_EXCH,
    PTX_ATOM_CAS,
    PTX_ATOM_POPC,
};

enum ptx_shfl_mode { PTX_SHFL_UP, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX };

/* The geometry of tex, tld4, suld, sust and sured (ptx_texture.c). */
enum ptx_geom {
    PTX_GEOM_NONE,
    PTX_GEOM_1D,
    PTX_GEOM_2D,
    PTX_GEOM_3D,
    PTX_GEOM_A1D, /* layered: {layer, x} */
    PTX_GEOM_A2D, /* {layer, x, y, _} */
    PTX_GEOM_CUBE,
    PTX_GEOM_ACUBE,
    PTX_GEOM_2DMS,
    PTX_GEOM_A2DMS,
};

/* What txq and suq ask (their bool_op). */
enum ptx_texture_query {
    PTX_TXQ_WIDTH,
    PTX_TXQ_HEIGHT,
    PTX_TXQ_DEPTH,
    PTX_TXQ_CHANNEL_DATA_TYPE,
    PTX_TXQ_CHANNEL_ORDER,
    PTX_TXQ_NORMALIZED_COORDS,
    PTX_TXQ_ARRAY_SIZE,
    PTX_TXQ_NUM_MIPMAP_LEVELS,
    PTX_TXQ_NUM_SAMPLES,
    PTX_TXQ_FORCE_UNNORMALIZED_COORDS,
    PTX_TXQ_FILTER_MODE,
    PTX_TXQ_ADDR_MODE_0,
    PTX_TXQ_ADDR_MODE_1,
    PTX_TXQ_ADDR_MODE_2,
    PTX_TXQ_MEMORY_LAYOUT,
};

/* suld sust sured: what an out-of-bounds coordinate does (their bool_op). */
enum ptx_surface_clamp { PTX_SU_TRAP, PTX_SU_CLAMP, PTX_SU_ZERO };

/* tex: its mipmap form (its bool_op); the level of detail is ignored, as
 * the virtual GPU's textures have one level. */
enum ptx_texture_lod { PTX_TEX_PLAIN, PTX_TEX_BASE, PTX_TEX_LEVEL, PTX_TEX_GRAD };

/* wmma's operation (insn->cmp; 0: none given) and shape (insn->shape: the
 * M×N×K of D = A·B + C, A M×K, B K×N). */
enum ptx_wmma_op {
    PTX_WMMA_LOAD_A = 1,
    PTX_WMMA_LOAD_B,
    PTX_WMMA_LOAD_C,
    PTX_WMMA_STORE_D,
    PTX_WMMA_MMA
};
enum ptx_wmma_shape {
    PTX_WMMA_M16N16K16 = 1,
    PTX_WMMA_M32N8K16,
    PTX_WMMA_M8N32K16,
    PTX_WMMA_M16N16K8, /* .tf32 */
    PTX_WMMA_M8N8K4,   /* .f64 */
    PTX_WMMA_M8N8K32,  /* .s4 .u4 */
    PTX_WMMA_M8N8K128, /* .b1 */
};
/* insn->layout: which matrices are column-major in memory (else row-major). */
enum {
    PTX_WMMA_COL = 1u << 0,   /* a load's or a store's matrix; mma's A */
    PTX_WMMA_COL_B = 1u << 1, /* mma's B */
};

/* Modifier flags of the half-precision and matrix instructions (half.h,
 * wmma.c), beside the PTX_F_* below. */
enum {
    PTX_F_RELU = 1u << 24,        /* fma, cvt: a negative result gives +0 */
    PTX_F_NAN = 1u << 25,         /* min, max .NaN: a NaN input gives NaN */
    PTX_F_XORSIGN_ABS = 1u << 26, /* min, max .xorsign.abs: |a| and |b|, the signs' xor */
    PTX_F_SATFINITE = 1u << 27,   /* cvt, wmma.mma: saturate to finite values (to s32's range) */
    PTX_F_ORDERED = 1u << 28,     /* .release, .acquire, .acq_rel or .sc: an access that orders
                                     others (the compiled tier runs it in the interpreter) */
};

/* What unit of an SM issues an instruction (the timing model's classes). */
enum ptx_issue_class {
    PTX_CLASS_FP32,    /* f32 arithmetic and comparisons */
    PTX_CLASS_FP64,    /* f64 arithmetic */
    PTX_CLASS_INT,     /* integer and bit operations, moves, conversions */
    PTX_CLASS_SFU,     /* special functions: ex2 lg2 sin cos rsqrt rcp tanh, approximate sqrt */
    PTX_CLASS_MEMORY,  /* ld st atom red, shuffles */
    PTX_CLASS_CONTROL, /* branches, calls, barriers, votes */
    PTX_CLASS_TENSOR,  /* wmma.mma: the tensor cores */
    PTX_CLASS_COUNT
};
/* The PTX instructions that ptxas turns into a sequence of SASS instructions,
 * which the timing model charges as that sequence (timing.c,
 * timing_sequences): IEEE division, reciprocal and square root, and the
 * approximate and full-range divisions. */
enum ptx_sequence {
    PTX_SEQ_NONE,
    PTX_SEQ_DIV_APPROX_F32, /* div.approx.f32 (__fdividef) */
    PTX_SEQ_DIV_FULL_F32,   /* div.full.f32 */
    PTX_SEQ_DIV_RN_F32,     /* div.rn.f32 (and .rz .rm .rp): the `/` operator */
    PTX_SEQ_RCP_RN_F32,
    PTX_SEQ_SQRT_RN_F32,
    PTX_SEQ_DIV_RN_F64,
    PTX_SEQ_RCP_RN_F64,
    PTX_SEQ_SQRT_RN_F64,
    PTX_SEQ_COUNT
};
enum ptx_vote_mode { PTX_VOTE_ALL, PTX_VOTE_ANY, PTX_VOTE_UNI, PTX_VOTE_BALLOT };
/* cp.async's forms (in insn->cmp; 0: none given) */
enum ptx_cp_mode {
    PTX_CP_COPY = 1,    /* cp.async.ca/cg [shared], [global], size{, src-size} */
    PTX_CP_COMMIT,      /* cp.async.commit_group */
    PTX_CP_WAIT,        /* cp.async.wait_group n, cp.async.wait_all */
    PTX_CP_ARRIVE,      /* cp.async.mbarrier.arrive{.noinc} [mbarrier] */
    PTX_CP_BULK,        /* cp.async.bulk [dst], [src], size{, [mbarrier]}: insn->space is dst's
                           space, bool_op how it completes (enum ptx_bulk_completion) */
    PTX_CP_BULK_TENSOR, /* cp.async.bulk.tensor: refused when it is read */
};
/* How a cp.async.bulk completes (its bool_op). */
enum ptx_bulk_completion {
    PTX_BULK_MBARRIER = 1, /* .mbarrier::complete_tx::bytes: global to shared */
    PTX_BULK_GROUP,        /* .bulk_group: shared to global */
};
/* mbarrier's operations (in insn->cmp; 0: none given) */
enum ptx_mbarrier_mode {
    PTX_MBAR_INIT = 1,         /* [a], count */
    PTX_MBAR_ARRIVE,           /* state, [a]{, count} */
    PTX_MBAR_ARRIVE_DROP,      /* state, [a]{, count}: also leaves the next phases */
    PTX_MBAR_TEST_WAIT,        /* p, [a], state (.parity: p, [a], parity) */
    PTX_MBAR_TRY_WAIT,         /* p, [a], state{, hint} */
    PTX_MBAR_PENDING,          /* count, state */
    PTX_MBAR_INVAL,            /* [a] */
    PTX_MBAR_EXPECT_TX,        /* [a], bytes: the phase waits for that many more */
    PTX_MBAR_COMPLETE_TX,      /* [a], bytes: that many arrived */
    PTX_MBAR_ARRIVE_EXPECT_TX, /* state, [a], bytes: expect_tx, then one arrival */
};

/* Modifier flags of an instruction. */
enum {
    PTX_F_FTZ = 1u << 0,
    PTX_F_SAT = 1u << 1,
    PTX_F_APPROX = 1u << 2,
    PTX_F_FULL = 1u << 3,
    PTX_F_HI = 1u << 4,
    PTX_F_LO = 1u << 5,
    PTX_F_WIDE = 1u << 6,
    PTX_F_CC = 1u << 7,           /* writes the carry flag */
    PTX_F_HAS_RND = 1u << 8,      /* a rounding modifier was given */
    PTX_F_SHIFT_LEFT = 1u << 9,   /* shf.l */
    PTX_F_CLAMP = 1u << 10,       /* shf.clamp */
    PTX_F_TO = 1u << 11,          /* cvta.to.space: generic → space */
    PTX_F_RED_POPC = 1u << 12,    /* bar.red.popc */
    PTX_F_RED_AND = 1u << 13,     /* bar.red.and */
    PTX_F_RED_OR = 1u << 14,      /* bar.red.or */
    PTX_F_ARRIVE = 1u << 15,      /* bar.arrive: no wait */
    PTX_F_SHIFTAMT = 1u << 16,    /* bfind.shiftamt */
    PTX_F_NEG_C = 1u << 17,       /* setp's third operand is negated: !p */
    PTX_F_WARP_SYNC = 1u << 18,   /* bar.warp.sync: a warp-level barrier (no-op in lockstep) */
    PTX_F_BLOCK_START = 1u << 19, /* starts a basic block: a branch target or after a branch
                                     (ptx_deps.c; the scoreboard's scheduling unit) */
    PTX_F_DRAIN = 1u << 20,       /* bar, barrier, call, ret: the scoreboard waits for every
                                     result in flight (ptx_deps.c) */
    PTX_F_PARITY = 1u << 21,      /* mbarrier.test_wait/try_wait.parity */
    PTX_F_NOINC = 1u << 22,       /* cp.async.mbarrier.arrive.noinc */
    PTX_F_INDIRECT = 1u << 23,    /* call through a register: o[0] the register, target
                                     the prototype's index in the module's prototypes */
};

/* The SIMD video instructions (vadd2 … vset4): lanes of half-words or
 * bytes. insn->type is d's type (.u32 for vset), type_a and type_b a's and
 * b's; insn->cmp vset's comparison; PTX_F_SAT, PTX_F_ACCUMULATE (.add).
 * insn->video holds the lanes' selectors: lane i of a is part
 * PTX_VIDEO_SELECT(video, PTX_VIDEO_ASEL, i) of the pair {b, a} (half-words
 * 0-3 or bytes 0-7), of b likewise, and bit i of the mask field says
 * whether lane i of the result is merged or added (ptx_video.c). */
enum { PTX_F_ACCUMULATE = 1u << 29 };
#define PTX_VIDEO_ASEL                       0  /* 3 bits a lane */
#define PTX_VIDEO_BSEL                       12 /* 3 bits a lane */
#define PTX_VIDEO_MASK                       24 /* a bit a lane */
#define PTX_VIDEO_SELECT(video, field, lane) ((video) >> ((field) + 3 * (lane)) & 7u)

static inline bool ptx_is_video_op(enum ptx_op op)
{
    return op >= PTX_OP_VADD2 && op <= PTX_OP_VSET4;
}
/* 2 (half-words) or 4 (bytes). */
static inline unsigned ptx_video_lanes(enum ptx_op op)
{
    return op >= PTX_OP_VADD4 ? 4 : 2;
}

enum ptx_operand_kind {
    PTX_OPD_NONE,
    PTX_OPD_REG,    /* reg: a register row */
    PTX_OPD_PRED,   /* reg: a predicate register; neg: written !p */
    PTX_OPD_IMM,    /* imm: the value's bits */
    PTX_OPD_SREG,   /* reg: a special register that changes (%clock …) */
    PTX_OPD_VEC,    /* vec[count]: registers ({%r1, %r2}); PTX_NO_REG for "_" */
    PTX_OPD_ADDR,   /* [reg + imm] (reg = PTX_NO_REG: [imm]); space says how to read it */
    PTX_OPD_SYMBOL, /* the address of a variable: imm (+ the frame's depot for .local) */
    PTX_OPD_LABEL,  /* imm: an instruction index */
    PTX_OPD_FUNC,   /* imm: a function index */
    PTX_OPD_SINK,   /* "_": the value is dropped */
};

#define PTX_WARP_SZ 32 /* the PTX constant WARP_SZ: threads in a warp */
/* The address of function i, as `mov.u64 %rd, f` and initializers give it:
 * outside the canonical x86-64 range, so no device or host memory has it
 * and a load or store through it faults. */
#define PTX_FUNCTION_BASE 0xF000000000000000ull
#define PTX_FUNCTION_STEP 16u
#define PTX_NO_REG        0xFFFFFFFFu
#define PTX_VAR_PLACED    (-2) /* ptx_operand.var once a global's address is in imm */
#define PTX_MAX_OPERANDS  6
#define PTX_MAX_VEC       8 /* wmma's fragments; ld and st take 4 */
#define PTX_NO_PC         0xFFFFFFFFu

/* Limits the loader holds a program to, so that no size or offset wraps:
 * a function's parameters (a kernel's, or a call's, 32,764 bytes on a real
 * GPU), a frame's local memory (512 KB a thread on a real GPU), a
 * module variable, a module's static shared memory. */
#define PTX_PARAM_SPACE_MAX (64u << 10)
#define PTX_LOCAL_SPACE_MAX (512u << 10)
#define PTX_VARIABLE_MAX    (1ull << 32)
#define PTX_SHARED_SPACE_MAX                                                                       \
    (1u << 30) /* far above any GPU's: the launch refuses what is too much */

struct ptx_operand {
    uint8_t kind;  /* enum ptx_operand_kind */
    uint8_t space; /* for ADDR and SYMBOL: enum ptx_space of what it points into */
    uint8_t neg;   /* for PRED: !p */
    uint8_t count; /* for VEC; for a call's argument list: how many */
    uint32_t reg;
    int32_t var; /* ADDR, SYMBOL: a module variable whose address imm adds to
                  * (resolved by the loader, then -1, or PTX_VAR_PLACED for a
                  * global or constant variable, whose address differs from
                  * one load of the module to the next); -1 when none */
    int64_t imm;
    uint32_t vec[PTX_MAX_VEC];
};

/* Special registers with a value fixed for a thread's life: they live in
 * reserved register rows 0..PTX_SREG_FIXED-1 of every frame, filled when a
 * warp starts, so reading %tid.x costs what reading %r1 does. */
enum ptx_sreg {
    PTX_SREG_TID_X,
    PTX_SREG_TID_Y,
    PTX_SREG_TID_Z,
    PTX_SREG_NTID_X,
    PTX_SREG_NTID_Y,
    PTX_SREG_NTID_Z,
    PTX_SREG_CTAID_X,
    PTX_SREG_CTAID_Y,
    PTX_SREG_CTAID_Z,
    PTX_SREG_NCTAID_X,
    PTX_SREG_NCTAID_Y,
    PTX_SREG_NCTAID_Z,
    PTX_SREG_LANEID,
    PTX_SREG_WARPID,
    PTX_SREG_NWARPID,
    PTX_SREG_SMID,
    PTX_SREG_NSMID,
    PTX_SREG_GRIDID,
    PTX_SREG_LANEMASK_EQ,
    PTX_SREG_LANEMASK_LT,
    PTX_SREG_LANEMASK_LE,
    PTX_SREG_LANEMASK_GT,
    PTX_SREG_LANEMASK_GE,
    PTX_SREG_DYNAMIC_SMEM,
    PTX_SREG_TOTAL_SMEM,
    PTX_SREG_FIXED, /* rows above are fixed; the ones below change (PTX_OPD_SREG) */
    PTX_SREG_CLOCK = PTX_SREG_FIXED,
    PTX_SREG_CLOCK64,
    PTX_SREG_GLOBALTIMER,
};

struct ptx_insn {
    uint8_t op;      /* enum ptx_op */
    uint8_t type;    /* enum ptx_type: the operation's type (the destination's for cvt) */
    uint8_t type2;   /* cvt, set: the source type; tex tld4: the coordinates' type */
    uint8_t space;   /* ld st atom red cvta isspacep: enum ptx_space */
    uint8_t cmp;     /* setp set: enum ptx_cmp; atom red sured: enum ptx_atom_op; shfl vote:
                        mode; wmma: enum ptx_wmma_op; vset2 vset4: enum ptx_cmp */
    uint8_t bool_op; /* setp set: enum ptx_bool_op; testp: enum arith_testp; wmma.mma .b1:
                        PTX_BOOL_AND or PTX_BOOL_XOR (.popc); txq suq: enum ptx_texture_query;
                        tld4: the component; suld sust sured: enum ptx_surface_clamp; tex: enum
                        ptx_texture_lod; vset2 vset4: 1 once a comparison was read */
    uint8_t rnd;     /* enum arith_rounding, when PTX_F_HAS_RND */
    uint8_t vec;     /* ld st suld sust: 1, 2 or 4 elements */
    uint8_t n_operands;
    uint8_t guard_neg;
    uint8_t issue_class; /* enum ptx_issue_class */
    uint8_t merge;       /* ld.shared merged as ptxas would (ptx_merge.c): the leader's
                            member count, PTX_MERGE_FOLLOWER for the others, 0 for none */
    uint8_t shape;       /* wmma: enum ptx_wmma_shape */
    uint8_t layout;      /* wmma: PTX_WMMA_COL, PTX_WMMA_COL_B */
    uint8_t type_a;      /* wmma.mma: A's and B's types (type: D's, type2: C's); the SIMD
                            video instructions: a's and b's */
    uint8_t type_b;
    uint32_t guard;  /* predicate register, or PTX_NO_REG */
    uint32_t flags;  /* PTX_F_* */
    uint32_t target; /* bra: the instruction index; call: the function index */
    uint32_t reconv; /* bra: where divergent paths meet again (PTX_NO_PC: at exit) */
    uint32_t ptx_line;
    uint32_t src_line;    /* from .loc; 0 when none */
    uint16_t merge_group; /* the merged group of an ld.shared (when merge != 0) */
    uint8_t geom;         /* tex tld4 suld sust sured: enum ptx_geom */
    uint8_t sequence;     /* enum ptx_sequence: the SASS sequence it becomes, if any */
    uint32_t video;       /* the SIMD video instructions' selectors (PTX_VIDEO_*) */
    struct ptx_operand o[PTX_MAX_OPERANDS];
};

#define PTX_MERGE_FOLLOWER 0x80u

/* An instruction's dependencies (ptx_deps.c): the rows of a frame's scoreboard
 * it reads and writes. Registers are rows 0..n_regs-1, predicates follow them;
 * PTX_DEP_WRITE marks a row the instruction writes. */
#define PTX_DEP_WRITE 0x80000000u

/* A parameter of a function: where it lives in the frame's parameter area
 * (.func) or in the launch's parameter buffer (.entry). */
struct ptx_param {
    char *name;
    uint32_t offset;
    uint32_t size;
    uint32_t align;
};

struct jit_kernel;

struct ptx_function {
    char *name;
    bool is_entry;
    bool is_extern; /* declared, not defined here (vprintf, malloc, free) */
    int builtin;    /* enum ptx_builtin for extern functions kgrade provides */
    struct ptx_param *params;
    int n_params;
    struct ptx_param *returns; /* .func's return parameters */
    int n_returns;
    uint32_t param_bytes;      /* .entry: the launch buffer; .func: formal + return params */
    uint32_t call_param_bytes; /* per thread: formal params, returns, and call-sequence .params */
    uint32_t local_bytes;      /* the .local depot of one frame */
    uint32_t n_regs;           /* register rows, the fixed special rows included */
    uint32_t n_preds;
    uint32_t n_declared_regs; /* for the register estimate */
    uint8_t *row_units;       /* per register row: the 32-bit registers it takes (1 or 2) */
    struct ptx_insn *code;
    uint32_t n_code;
    uint32_t *call_args; /* calls' argument offsets in the caller's parameter area */
    uint32_t n_call_args;
    uint32_t *zero_rows; /* registers that may be read before written: zeroed at start */
    uint32_t n_zero_rows;
    uint32_t *dep_start; /* n_code + 1: instruction i's dependencies are
                            deps[dep_start[i] .. dep_start[i + 1]) */
    uint32_t *deps;
    uint64_t *rows_read; /* bit r: some instruction reads row r (a source in deps) */
    bool uses_barrier;
    bool calls;      /* has call instructions */
    int max_threads; /* .maxntid / .reqntid product; 0 when not given */
    int reg_estimate;
    bool address_taken; /* its address is a value (a function pointer) */
    /* .entry: the .shared variables it and its callees use (ptx_shared.c) */
    uint32_t static_shared_bytes;
    uint32_t dynamic_shared_offset; /* where its extern shared array starts */
    bool uses_dynamic_shared;       /* it names the extern shared array */
    /* a .func's compiled code (jit.h), once a kernel that calls it was
     * compiled (jit_kernel_with_calls): its frames run it; NULL: interpreted */
    _Atomic(const struct jit_kernel *) jit;
};

enum ptx_builtin {
    PTX_BUILTIN_NONE,
    PTX_BUILTIN_VPRINTF,
    PTX_BUILTIN_MALLOC,
    PTX_BUILTIN_FREE,
    PTX_BUILTIN_ASSERTFAIL
};

/* An initializer element that is a variable's address (`p = generic(a)`,
 * `{a + 8}`): the module loader writes it once the variable is placed. */
struct ptx_reloc {
    int variable; /* whose initializer */
    uint32_t offset;
    int target; /* the variable whose address it is */
    int64_t addend;
};

/* A module-level variable (.global, .const, .shared). */
struct ptx_variable {
    char *name;
    enum ptx_space space;
    uint32_t size;
    uint32_t align;
    uint8_t *init;         /* size bytes of initial content, or NULL for zeros */
    bool is_extern_shared; /* the dynamic shared memory array */
    uint64_t address;      /* .global/.const: placed by the module loader; .shared: offset
                              (ptx_shared.c) */
};

struct ptx_module {
    int version_major, version_minor;
    int target_sm;
    struct ptx_function *functions;
    int n_functions;
    struct ptx_variable *variables;
    int n_variables;
    uint32_t used_sregs;             /* bit r: some function reads fixed special register r */
    struct ptx_function *prototypes; /* .callprototype: the signatures of indirect calls */
    int n_prototypes;
    struct ptx_reloc *relocs; /* addresses of variables in initializers */
    int n_relocs;
    char **files; /* .file names by index */
    int n_files;
};

static inline uint64_t ptx_function_address(int index)
{
    return PTX_FUNCTION_BASE + (uint64_t)index * PTX_FUNCTION_STEP;
}

/* Parses a PTX text. On failure returns NULL and writes "PTX line N: what" to
 * `error`; *version_unsupported says whether the .version was the reason. */
struct ptx_module *ptx_parse(const char *text, size_t length, char *error, size_t error_size,
                             bool *version_unsupported);
void ptx_module_free(struct ptx_module *module);

/* Fills each branch's reconvergence point (immediate post-dominator). */
int ptx_compute_reconvergence(struct ptx_function *function);

/* Fills zero_rows: the registers some path may read before writing. */
int ptx_find_uninitialized(struct ptx_function *function);

/* Fills reg_estimate: the most registers live at once, as ptxas would allocate. */
int ptx_estimate_registers(struct ptx_function *function);

/* Lays out the .shared variables per kernel: their offsets, and each
 * kernel's static size and dynamic offset. 1 when done, 0 out of memory, -1
 * when a kernel's variables pass PTX_SHARED_SPACE_MAX (*too_large names the
 * variable). */
int ptx_layout_shared(struct ptx_module *module, const char **too_large);

/* Fills dep_start and deps: the registers and predicates each instruction
 * reads and writes, for the timing model's scoreboard; flags the instructions
 * that start a basic block (PTX_F_BLOCK_START). */
int ptx_find_dependencies(struct ptx_function *function);

/* Marks the runs of ld.shared that ptxas would merge into 64- and 128-bit
 * loads (merge, merge_group). */
void ptx_merge_shared_loads(struct ptx_function *function);

/* True when the instruction writes its first operand (a destination). */
bool ptx_writes_first_operand(const struct ptx_insn *insn);

/* Calls `visit` on each register row the operand names (vectors: each; with
 * `with_address_base`, an address's base register too). */
void ptx_each_row(const struct ptx_operand *o, bool with_address_base,
                  void (*visit)(void *ctx, uint32_t row), void *ctx);

const char *ptx_op_name(enum ptx_op op);

/* The operations the half-precision arithmetic computes on .f16, .bf16 and
 * their pairs (half.h; ex2 and tanh in their .approx forms). */
static inline bool ptx_is_half_arithmetic(enum ptx_op op)
{
    return op == PTX_OP_ADD || op == PTX_OP_SUB || op == PTX_OP_MUL || op == PTX_OP_FMA ||
           op == PTX_OP_MIN || op == PTX_OP_MAX || op == PTX_OP_NEG || op == PTX_OP_ABS ||
           op == PTX_OP_EX2 || op == PTX_OP_TANH;
}

#endif
