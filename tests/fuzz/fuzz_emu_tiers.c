/*
 * Fuzz target (libFuzzer): the virtual GPU's two tiers against each other.
 * The input becomes a random but valid PTX kernel: straight-line integer,
 * f32 and f64 arithmetic, setp/selp, cvt, shifts, min/max, division,
 * predicated instructions, global loads and stores at in-bounds and
 * out-of-bounds addresses and in the shapes of rows and halves, global adds to the input (red.add,
 * which the compiled tier holds back until the warp reads the line or leaves), shared loads, stores
 * and atomics (atom and red: add, min, max, and, or, xor, exch, cas of 32 and 64 bits and f32 add;
 * in bounds, past the end, misaligned), and control flow: data-dependent forward branches (if and
 * if/else, so lanes diverge and reconverge) and bounded loops whose trip count differs per lane,
 * nested two deep. It runs on a small grid with inputs seeded from the input, in compare mode
 * (tier_compare_run: the interpreter, then the compiled tier, from the same
 * memory), which aborts on any difference of memory, fault, counters or
 * modeled time: a crash the fuzzer reports. A kernel that does not load is
 * a bug of the generator, and aborts too.
 *
 * Input layout: byte 0 the grid, byte 1 the block, bytes 2..9 the inputs'
 * seed, the rest the kernel's instructions. To see the kernel of a crash:
 * FUZZ_PRINT_PTX=1 build/fuzz/fuzz_emu_tiers crash-<hash> (it goes to stderr).
 */
#include "emulator/tier.h"
#include "fuzz_input.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_BYTES  10
#define BLOCKS_MAX    3
#define THREADS_MAX   80 /* up to three warps, the last partial */
#define IN_PER_THREAD 16 /* input words per thread */
#define SLOTS         29 /* 8-byte output slots per thread: every value register and a predicate */
#define ITEMS_MAX     48 /* instructions and structures in one kernel */
#define DEPTH_MAX     2  /* nesting of branches and loops */
#define TRIPS_MASK    3  /* loops run 1 to 4 times per lane */
#define CAPACITY      ((size_t)1 << 28)

/* ------------------------------------------------------------ the text */

struct text {
    char *data;
    size_t used, capacity;
};

static __attribute__((format(printf, 2, 3))) void emit(struct text *t, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    if (t->used + (size_t)n + 1 > t->capacity) {
        size_t cap = t->capacity ? t->capacity : 4096;
        while (cap < t->used + (size_t)n + 1)
            cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown)
            abort();
        t->data = grown;
        t->capacity = cap;
    }
    va_start(ap, format);
    vsnprintf(t->data + t->used, (size_t)n + 1, format, ap);
    va_end(ap);
    t->used += (size_t)n;
}

/* ------------------------------------------------------- the generator */

struct gen {
    const uint8_t *data;
    size_t size, at;
    struct text ptx;
    unsigned labels, items;
    unsigned in_words; /* of the input buffer: the bound of in-bounds loads */
};

static bool exhausted(const struct gen *g)
{
    return g->at >= g->size || g->items >= ITEMS_MAX;
}

static unsigned byte(struct gen *g)
{
    return g->at < g->size ? g->data[g->at++] : 0;
}

/* Value registers: %r0-7 (b32), %f0-7, %fd0-3, %rd0-7, %p0-5. Reserved:
 * %r8-9 loop counters, %r12 and %rd10 scratch, %r13 an atom's result that
 * nothing reads, %rd8 the input, %rd9 the
 * thread's output slots, %p6-7 loop and branch conditions. */
static const char *const f32_constants[] = {
    "0f00000000", "0f80000000", "0f3F800000", "0fBF800000", "0f7F800000", "0fFF800000",
    "0f7FC00000", "0f00000001", "0f7F7FFFFF", "0f4B000000", "0f3EAAAAAB", "0fC2F6E979",
};
static const int int_constants[] = {0, 1, -1, 2, 31, 32, 255, 0x7fffffff, (int)0x80000000, -7};

/* The value registers' classes, by their letter in a template. */
static const struct {
    char letter;
    const char *prefix;
    unsigned count;
} register_classes[] = {
    {'r', "%r", 8}, {'f', "%f", 8}, {'d', "%fd", 4}, {'l', "%rd", 8}, {'p', "%p", 6},
};

/* Operand `letter` of a template, chosen by b. */
static void operand(struct gen *g, char letter, unsigned b)
{
    for (size_t i = 0; i < sizeof register_classes / sizeof *register_classes; i++)
        if (register_classes[i].letter == letter) {
            emit(&g->ptx, "%s%u", register_classes[i].prefix, b % register_classes[i].count);
            return;
        }
    if (letter == 'i')
        emit(&g->ptx, "%d", int_constants[b % (sizeof int_constants / sizeof *int_constants)]);
    else if (letter == 's')
        emit(&g->ptx, "%u", b % 40);
    else if (letter == 'F')
        emit(&g->ptx, "%s", f32_constants[b % (sizeof f32_constants / sizeof *f32_constants)]);
    else
        abort(); /* a template's mistake */
}

/* One instruction from `template`, whose $x are operands: $r $f $d $l $p
 * registers of those classes (b32, f32, f64, b64, pred), $i an integer,
 * $s a shift or bit position, $F an f32 constant; a guard now and then. */
static void instruction(struct gen *g, const char *template)
{
    unsigned guard = byte(g);
    emit(&g->ptx, "    ");
    if (guard % 8 == 0)
        emit(&g->ptx, "@%s%%p%u ", guard & 8 ? "!" : "", guard / 16 % 6);
    for (const char *c = template; *c; c++) {
        if (*c == '$') {
            c++;
            operand(g, *c, byte(g));
        } else {
            emit(&g->ptx, "%c", *c);
        }
    }
    emit(&g->ptx, "\n");
}

/* The straight-line instructions, a PTX template each. */
static const char *const operations[] = {
    /* 32-bit integers */
    "add.s32 $r, $r, $r;",
    "sub.s32 $r, $r, $r;",
    "add.s32 $r, $r, $i;",
    "mul.lo.s32 $r, $r, $r;",
    "mul.hi.s32 $r, $r, $r;",
    "mul.hi.u32 $r, $r, $r;",
    "mad.lo.s32 $r, $r, $r, $r;",
    "mul.wide.s32 $l, $r, $r;",
    "mul.wide.u32 $l, $r, $r;",
    "div.s32 $r, $r, $r;",
    "div.u32 $r, $r, $r;",
    "rem.s32 $r, $r, $r;",
    "rem.u32 $r, $r, $r;",
    "and.b32 $r, $r, $r;",
    "or.b32 $r, $r, $i;",
    "xor.b32 $r, $r, $r;",
    "not.b32 $r, $r;",
    "neg.s32 $r, $r;",
    "abs.s32 $r, $r;",
    "min.s32 $r, $r, $r;",
    "max.s32 $r, $r, $r;",
    "min.u32 $r, $r, $r;",
    "max.u32 $r, $r, $i;",
    "shl.b32 $r, $r, $s;",
    "shr.u32 $r, $r, $s;",
    "shr.s32 $r, $r, $r;",
    "shl.b32 $r, $r, $r;",
    "popc.b32 $r, $r;",
    "clz.b32 $r, $r;",
    "brev.b32 $r, $r;",
    "bfe.u32 $r, $r, $s, $s;",
    "bfe.s32 $r, $r, $r, $r;",
    "mov.u32 $r, $i;",
    "mov.b32 $r, $r;",
    "selp.b32 $r, $r, $r, $p;",
    "setp.lt.s32 $p, $r, $r;",
    "setp.ge.u32 $p, $r, $r;",
    "setp.eq.s32 $p, $r, $i;",
    "setp.ne.b32 $p, $r, $r;",
    "setp.gt.s32 $p, $r, $r;",
    "setp.le.u32 $p, $r, $i;",
    "setp.lt.and.s32 $p, $r, $r, $p;",
    "setp.gt.or.u32 $p, $r, $r, !$p;",
    /* 64-bit integers */
    "add.s64 $l, $l, $l;",
    "sub.s64 $l, $l, $l;",
    "mul.lo.s64 $l, $l, $l;",
    "mad.lo.s64 $l, $l, $l, $l;",
    "and.b64 $l, $l, $l;",
    "xor.b64 $l, $l, $l;",
    "shl.b64 $l, $l, $s;",
    "shr.s64 $l, $l, $s;",
    "shr.u64 $l, $l, $r;",
    "min.s64 $l, $l, $l;",
    "max.u64 $l, $l, $l;",
    "div.u64 $l, $l, $l;",
    "rem.s64 $l, $l, $l;",
    "cvt.u64.u32 $l, $r;",
    "cvt.s64.s32 $l, $r;",
    "cvt.u32.u64 $r, $l;",
    "setp.lt.u64 $p, $l, $l;",
    "setp.ge.s64 $p, $l, $l;",
    "selp.b64 $l, $l, $l, $p;",
    /* f32 */
    "add.f32 $f, $f, $f;",
    "add.rn.f32 $f, $f, $f;",
    "sub.f32 $f, $f, $f;",
    "mul.f32 $f, $f, $f;",
    "mul.rn.f32 $f, $f, $F;",
    "fma.rn.f32 $f, $f, $f, $f;",
    "div.rn.f32 $f, $f, $f;",
    "div.full.f32 $f, $f, $f;",
    "div.approx.f32 $f, $f, $f;",
    "min.f32 $f, $f, $f;",
    "max.f32 $f, $f, $f;",
    "neg.f32 $f, $f;",
    "abs.f32 $f, $f;",
    "sqrt.rn.f32 $f, $f;",
    "rcp.rn.f32 $f, $f;",
    "add.ftz.f32 $f, $f, $f;",
    "mul.sat.f32 $f, $f, $f;",
    "ex2.approx.f32 $f, $f;",
    "ex2.approx.ftz.f32 $f, $f;",
    "mov.f32 $f, $F;",
    "mov.b32 $f, $r;",
    "mov.b32 $r, $f;",
    "selp.f32 $f, $f, $f, $p;",
    "setp.lt.f32 $p, $f, $f;",
    "setp.geu.f32 $p, $f, $f;",
    "setp.nan.f32 $p, $f, $f;",
    "setp.eq.f32 $p, $f, $F;",
    "setp.neu.f32 $p, $f, $f;",
    "cvt.rn.f32.s32 $f, $r;",
    "cvt.rn.f32.u32 $f, $r;",
    "cvt.rzi.s32.f32 $r, $f;",
    "cvt.rni.s32.f32 $r, $f;",
    "cvt.rmi.u32.f32 $r, $f;",
    "cvt.rn.f32.s64 $f, $l;",
    "cvt.rzi.s64.f32 $l, $f;",
    "cvt.rzi.ftz.s32.f32 $r, $f;",
    "cvt.rpi.u32.f32 $r, $f;",
    "cvt.rni.u64.f64 $l, $d;",
    "cvt.rmi.s64.f64 $l, $d;",
    "cvt.rn.f64.u32 $d, $r;",
    "cvt.rn.f32.u64 $f, $l;",
    /* f64 */
    "add.f64 $d, $d, $d;",
    "add.rn.f64 $d, $d, $d;",
    "sub.f64 $d, $d, $d;",
    "mul.rn.f64 $d, $d, $d;",
    "fma.rn.f64 $d, $d, $d, $d;",
    "div.rn.f64 $d, $d, $d;",
    "min.f64 $d, $d, $d;",
    "max.f64 $d, $d, $d;",
    "neg.f64 $d, $d;",
    "abs.f64 $d, $d;",
    "sqrt.rn.f64 $d, $d;",
    "cvt.f64.f32 $d, $f;",
    "cvt.rn.f32.f64 $f, $d;",
    "cvt.rn.f64.s32 $d, $r;",
    "cvt.rzi.s32.f64 $r, $d;",
    "cvt.rn.f64.u64 $d, $l;",
    "copysign.f64 $d, $d, $d;",
    "rcp.rn.f64 $d, $d;",
    "rcp.approx.ftz.f64 $d, $d;",
    "rsqrt.approx.f64 $d, $d;",
    "rsqrt.approx.ftz.f64 $d, $d;",
    "cvt.ftz.f64.f32 $d, $f;",
    "cvt.rn.ftz.f32.f64 $f, $d;",
    "cvt.rni.f32.f32 $f, $f;",
    "cvt.rzi.ftz.f32.f32 $f, $f;",
    "cvt.rmi.f64.f64 $d, $d;",
    "mov.b64 $l, $d;",
    "mov.b64 $d, $l;",
    "mov.b64 {$r, $r}, $d;",
    "mov.b64 $d, {$r, $r};",
    "setp.gt.f64 $p, $d, $d;",
    "setp.leu.f64 $p, $d, $d;",
    "selp.f64 $d, $d, $d, $p;",
    /* predicates */
    "and.pred $p, $p, $p;",
    "or.pred $p, $p, $p;",
    "xor.pred $p, $p, $p;",
    "not.pred $p, $p;",
};

/* A load or store of the input whose lanes' addresses have one of the
 * shapes the compiled tier loads and stores without a gather (JIT.md,
 * "Loads and stores by shape"): a row of the block's threads (4 or 8
 * bytes each), a 16-wide row that both halves of a warp read, an element
 * per half; a block's last warp partial. */
static void shaped_access(struct gen *g, unsigned wild, unsigned reg)
{
    static const char *const index[] = {"", "    and.b32 %r12, %r12, 15;\n",
                                        "    shr.u32 %r12, %r12, 4;\n", ""};
    unsigned shape = wild % 4, bytes = shape == 3 ? 8 : 4;
    emit(&g->ptx, "    mov.u32 %%r12, %%tid.x;\n%s", index[shape]);
    emit(&g->ptx, "    mul.wide.u32 %%rd10, %%r12, %u;\n    add.s64 %%rd10, %%rd8, %%rd10;\n",
         bytes);
    bool load = wild / 4 % 2;
    if (bytes == 8)
        emit(&g->ptx,
             load ? "    ld.global.u64 %%rd%u, [%%rd10];\n"
                  : "    st.global.u64 [%%rd10], %%rd%u;\n",
             reg);
    else
        emit(&g->ptx,
             load ? "    ld.global.u32 %%r%u, [%%rd10];\n" : "    st.global.u32 [%%rd10], %%r%u;\n",
             reg);
}

/* A global load or store. Loads mostly read the input in bounds (an index
 * reduced modulo its size, or its first words, where most adds go),
 * sometimes past its end or before it; stores
 * mostly write the thread's own slots, sometimes at an address made from
 * data: another thread's slot, out of bounds, misaligned; and some loads
 * and stores have a shape (shaped_access). */
static void memory_access(struct gen *g)
{
    unsigned kind = byte(g), reg = byte(g) % 8;
    unsigned wild = byte(g);
    if (kind % 8 == 7) {
        shaped_access(g, wild, reg);
        return;
    }
    if (kind % 2 == 0) {
        const char *type = kind % 4 == 0 ? "u32" : "f32";
        const char *dest = kind % 4 == 0 ? "r" : "f";
        if (wild % 32 == 0) /* at the end: the index has its low bits from data */
            emit(&g->ptx, "    and.b32 %%r12, %%r%u, 15;\n    add.s32 %%r12, %%r12, %u;\n", reg,
                 g->in_words - 8 + wild / 32 % 8);
        else if (wild % 32 == 1) /* before the start */
            emit(&g->ptx, "    or.b32 %%r12, %%r%u, -64;\n", reg);
        else if (wild % 8 == 2) /* the first words, where adds go (below); native code */
            emit(&g->ptx, "    and.b32 %%r12, %%r%u, 7;\n", reg);
        else
            emit(&g->ptx, "    rem.u32 %%r12, %%r%u, %u;\n", reg, g->in_words);
        emit(&g->ptx, "    mul.wide.s32 %%rd10, %%r12, 4;\n    add.s64 %%rd10, %%rd8, %%rd10;\n");
        emit(&g->ptx, "    ld.global.%s %%%s%u, [%%rd10];\n", type, dest, byte(g) % 8);
        return;
    }
    if (kind % 8 == 3) { /* an add to the input, which later loads read: a line's words, or any */
        if (wild % 2)
            emit(&g->ptx, "    rem.u32 %%r12, %%r%u, %u;\n", reg, g->in_words);
        else
            emit(&g->ptx, "    and.b32 %%r12, %%r%u, 7;\n", reg);
        emit(&g->ptx, "    mul.wide.u32 %%rd10, %%r12, 4;\n");
        emit(&g->ptx, "    add.s64 %%rd10, %%rd8, %%rd10;\n");
        if (wild % 8 < 6)
            emit(&g->ptx, "    red.global.add.u32 [%%rd10], %%r%u;\n", byte(g) % 8);
        else /* into %r13, which no instruction reads: held back too */
            emit(&g->ptx, "    atom.global.add.u32 %%r13, [%%rd10], %%r%u;\n", byte(g) % 8);
        if (wild % 4 < 2) /* read back at once, before any interpreted instruction */
            emit(&g->ptx, "    ld.global.u32 %%r%u, [%%rd10];\n", byte(g) % 8);
        return;
    }
    if (wild % 32 < 2) { /* near the thread's slots (others', past the end) or anywhere */
        emit(&g->ptx, "    and.b32 %%r12, %%r%u, %d;\n", reg, wild % 32 == 0 ? 0xffc : -1);
        emit(&g->ptx, "    cvt.s64.s32 %%rd10, %%r12;\n    add.s64 %%rd10, %%rd9, %%rd10;\n");
        emit(&g->ptx, "    st.global.u32 [%%rd10], %%r%u;\n", byte(g) % 8);
    } else if (kind % 4 == 1) {
        emit(&g->ptx, "    st.global.u32 [%%rd9+%u], %%r%u;\n", wild % SLOTS * 8, reg);
    } else {
        emit(&g->ptx, "    st.global.f64 [%%rd9+%u], %%fd%u;\n", wild % SLOTS * 8, reg % 4);
    }
}

/* A shared load, store or atomic at an offset made from data: lanes on
 * one word, along a row, spread over the 1 KiB array, at a fixed word
 * (named by the array's symbol), sometimes past its end or misaligned;
 * some under a predicate. %r11 holds the array's address. */
static void shared_access(struct gen *g)
{
    unsigned kind = byte(g), reg = byte(g) % 8, wild = byte(g), guard = byte(g);
    static const unsigned spread[] = {0, 0x7c, 0x3fc, 0x3f8};
    char at[32] = "[%r12]";
    if (wild % 16 == 0) /* the last word or one past it; or far past the end */
        emit(&g->ptx, "    and.b32 %%r12, %%r%u, %u;\n    add.s32 %%r12, %%r12, %u;\n", reg,
             wild & 16 ? 4 : 2044, wild & 16 ? 1020 : 1024);
    else if (wild % 16 == 1) /* misaligned */
        emit(&g->ptx, "    and.b32 %%r12, %%r%u, 1020;\n    or.b32 %%r12, %%r12, 2;\n", reg);
    else if (wild % 16 == 2) /* a fixed word */
        snprintf(at, sizeof at, "[smem+%u]", wild / 16 * 8);
    else
        emit(&g->ptx, "    and.b32 %%r12, %%r%u, %u;\n", reg, spread[wild / 16 % 4]);
    if (wild % 16 != 2)
        emit(&g->ptx, "    add.s32 %%r12, %%r12, %%r11;\n");
    emit(&g->ptx, "    ");
    if (guard % 4 == 0)
        emit(&g->ptx, "@%s%%p%u ", guard & 4 ? "!" : "", guard / 8 % 6);
    unsigned value = byte(g) % 8, op = byte(g);
    static const char *const words[] = {"min.s32", "max.u32",  "and.b32", "or.b32",
                                        "xor.b32", "exch.b32", "min.u32", "max.s32"};
    static const char *const wides[] = {"add.u64", "max.s64", "min.u64", "exch.b64"};
    switch (kind % 10) {
    case 0:
        emit(&g->ptx, "ld.shared.u32 %%r%u, %s;\n", value, at);
        break;
    case 1:
        emit(&g->ptx, "st.shared.u32 %s, %%r%u;\n", at, value);
        break;
    case 2:
        emit(&g->ptx, "ld.shared.f32 %%f%u, %s;\n", value, at);
        break;
    case 3:
        emit(&g->ptx, "st.shared.f64 %s, %%fd%u;\n", at, value % 4);
        break;
    case 4:
        emit(&g->ptx, "atom.shared.add.u32 %%r%u, %s, %%r%u;\n", value, at, reg);
        break;
    case 5:
        emit(&g->ptx, "atom.shared.%s %%r%u, %s, %%r%u;\n", words[op % 8], value, at, reg);
        break;
    case 6:
        emit(&g->ptx, "atom.shared.cas.b32 %%r%u, %s, %%r%u, %%r%u;\n", value, at, reg, op % 8);
        break;
    case 7:
        emit(&g->ptx, "red.shared.%s %s, %%r%u;\n", op & 1 ? "add.u32" : "max.s32", at, reg);
        break;
    case 8:
        emit(&g->ptx, "atom.shared.add.f32 %%f%u, %s, %%f%u;\n", value, at, reg);
        break;
    default: /* 8 bytes: misaligned at most offsets but those of the 0x3f8 spread */
        if (op % 5 == 4)
            emit(&g->ptx, "atom.shared.cas.b64 %%rd%u, %s, %%rd%u, %%rd%u;\n", value, at, reg,
                 op / 8 % 8);
        else
            emit(&g->ptx, "atom.shared.%s %%rd%u, %s, %%rd%u;\n", wides[op % 5], value, at, reg);
        break;
    }
}

static void block(struct gen *g, unsigned depth);

/* A data-dependent condition in %p6 or %p7: lanes go different ways. */
static void condition(struct gen *g, unsigned p)
{
    unsigned b = byte(g);
    static const char *const tests[] = {"lt.s32", "ge.u32", "eq.s32", "ne.s32"};
    emit(&g->ptx, "    and.b32 %%r12, %%r%u, %u;\n    setp.%s %%p%u, %%r12, %u;\n", b % 8,
         1u << (b / 8 % 4 + 1), tests[b / 32 % 4], p, b / 128 + 1);
}

static void if_then(struct gen *g, unsigned depth)
{
    unsigned skip = g->labels++;
    condition(g, 6);
    emit(&g->ptx, "    @%%p6 bra L%u;\n", skip);
    block(g, depth + 1);
    emit(&g->ptx, "L%u:\n", skip);
}

static void if_else(struct gen *g, unsigned depth)
{
    unsigned other = g->labels++, end = g->labels++;
    condition(g, 6);
    emit(&g->ptx, "    @!%%p6 bra L%u;\n", other);
    block(g, depth + 1);
    emit(&g->ptx, "    bra.uni L%u;\nL%u:\n", end, other);
    block(g, depth + 1);
    emit(&g->ptx, "L%u:\n", end);
}

/* Runs 1 to 4 times, as each lane's data says: lanes leave at different trips. */
static void loop(struct gen *g, unsigned depth)
{
    unsigned top = g->labels++, counter = 8 + depth;
    emit(&g->ptx, "    and.b32 %%r%u, %%r%u, %u;\n", counter, byte(g) % 8, TRIPS_MASK);
    emit(&g->ptx, "L%u:\n", top);
    block(g, depth + 1);
    emit(&g->ptx, "    sub.s32 %%r%u, %%r%u, 1;\n    setp.ge.s32 %%p7, %%r%u, 0;\n", counter,
         counter, counter);
    emit(&g->ptx, "    @%%p7 bra L%u;\n", top);
}

/* A run of items: instructions mostly, memory accesses, and (above the
 * nesting limit) branches and loops; ends when the input or the item
 * budget runs out, or at random. */
static void block(struct gen *g, unsigned depth)
{
    while (!exhausted(g)) {
        unsigned choice = byte(g);
        g->items++;
        if (choice < 168)
            instruction(g, operations[byte(g) % (sizeof operations / sizeof *operations)]);
        else if (choice < 190)
            memory_access(g);
        else if (choice < 200)
            shared_access(g);
        else if (choice < 212 && depth < DEPTH_MAX)
            if_then(g, depth);
        else if (choice < 222 && depth < DEPTH_MAX)
            if_else(g, depth);
        else if (choice < 232 && depth < DEPTH_MAX)
            loop(g, depth);
        else if (depth > 0 && choice >= 244)
            return;
    }
}

static void prologue(struct gen *g)
{
    emit(&g->ptx,
         ".version 7.0\n.target sm_80\n.address_size 64\n\n"
         ".visible .entry fuzz(.param .u64 p_in, .param .u64 p_out)\n{\n"
         "    .reg .pred %%p<8>;\n    .reg .b32 %%r<14>;\n    .reg .f32 %%f<8>;\n"
         "    .reg .f64 %%fd<4>;\n    .reg .b64 %%rd<12>;\n"
         "    .shared .align 8 .b8 smem[1024];\n    mov.u32 %%r11, smem;\n"
         "    ld.param.u64 %%rd8, [p_in];\n    ld.param.u64 %%rd9, [p_out];\n"
         "    cvta.to.global.u64 %%rd8, %%rd8;\n    cvta.to.global.u64 %%rd9, %%rd9;\n"
         "    mov.u32 %%r0, %%ctaid.x;\n    mov.u32 %%r1, %%ntid.x;\n"
         "    mov.u32 %%r2, %%tid.x;\n    mad.lo.s32 %%r0, %%r0, %%r1, %%r2;\n"
         "    mul.wide.u32 %%rd10, %%r0, %u;\n    add.s64 %%rd9, %%rd9, %%rd10;\n"
         "    mul.wide.u32 %%rd10, %%r0, %u;\n    add.s64 %%rd11, %%rd8, %%rd10;\n",
         SLOTS * 8, IN_PER_THREAD * 4);
    for (unsigned k = 0; k < 8; k++)
        emit(&g->ptx, "    ld.global.u32 %%r%u, [%%rd11+%u];\n", k, 4 * k);
    for (unsigned k = 0; k < 8; k++)
        emit(&g->ptx, "    ld.global.f32 %%f%u, [%%rd11+%u];\n", k, 32 + 4 * k);
    for (unsigned k = 0; k < 4; k++)
        emit(&g->ptx, "    cvt.f64.f32 %%fd%u, %%f%u;\n", k, k + 4);
    for (unsigned k = 0; k < 8; k++)
        emit(&g->ptx, "    mul.wide.s32 %%rd%u, %%r%u, %%r%u;\n", k, k, (k + 3) % 8);
    for (unsigned k = 0; k < 6; k++)
        emit(&g->ptx, "    setp.lt.s32 %%p%u, %%r%u, %%r%u;\n", k, k, k + 1);
}

/* Every value register to the thread's slots, so that memory shows them. */
static void epilogue(struct gen *g)
{
    unsigned slot = 0;
    for (unsigned k = 0; k < 8; k++)
        emit(&g->ptx, "    st.global.u32 [%%rd9+%u], %%r%u;\n", 8 * slot++, k);
    for (unsigned k = 0; k < 8; k++)
        emit(&g->ptx, "    st.global.f32 [%%rd9+%u], %%f%u;\n", 8 * slot++, k);
    for (unsigned k = 0; k < 4; k++)
        emit(&g->ptx, "    st.global.f64 [%%rd9+%u], %%fd%u;\n", 8 * slot++, k);
    for (unsigned k = 0; k < 8; k++)
        emit(&g->ptx, "    st.global.u64 [%%rd9+%u], %%rd%u;\n", 8 * slot++, k);
    emit(&g->ptx, "    mov.u32 %%r12, 0;\n");
    for (unsigned k = 0; k < 6; k++)
        emit(&g->ptx, "    @%%p%u or.b32 %%r12, %%r12, %u;\n", k, 1u << k);
    emit(&g->ptx, "    st.global.u32 [%%rd9+%u], %%r12;\n    ret;\n}\n", 8 * slot++);
    _Static_assert(8 + 8 + 4 + 8 + 1 == SLOTS, "a slot per register and one for the predicates");
}

/* ------------------------------------------------------------ the inputs */

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Words that find edges: zeros, signs, extremes, NaN, infinities,
 * subnormals, small integers, and plain random bits. */
static uint32_t input_word(uint64_t *state)
{
    static const uint32_t edges[] = {0,          1,          0xffffffff, 0x80000000, 0x7fffffff,
                                     0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x3f800000,
                                     0xbf000000, 0x4f000000, 0xcf000000, 31,         32};
    uint64_t r = next_random(state);
    if (r % 4 == 0)
        return edges[r / 4 % (sizeof edges / sizeof *edges)];
    if (r % 4 == 1)
        return (uint32_t)(r >> 40) % 64 - 16;
    return (uint32_t)(r >> 32);
}

/* ---------------------------------------------------------------- a run */

static void run(const char *ptx, unsigned blocks, unsigned threads, uint64_t seed)
{
    struct emu_memory *memory = emu_memory_create(CAPACITY);
    struct emu_module *module;
    char log[512] = "";
    if (!memory ||
        emu_module_load(ptx, strlen(ptx), memory, &module, log, sizeof log) != CUDA_SUCCESS) {
        fprintf(stderr, "the generated kernel did not load: %s\n%s", log, ptx);
        abort();
    }
    size_t total = (size_t)blocks * threads;
    uint64_t in, out;
    if (emu_memory_alloc(memory, total * IN_PER_THREAD * 4, EMU_ALLOC_USER, &in) != CUDA_SUCCESS ||
        emu_memory_alloc(memory, total * SLOTS * 8, EMU_ALLOC_USER, &out) != CUDA_SUCCESS)
        abort();
    uint32_t *words = (uint32_t *)(uintptr_t)in;
    uint64_t state = seed | 1;
    for (size_t i = 0; i < total * IN_PER_THREAD; i++)
        words[i] = input_word(&state);
    uint64_t params[2] = {in, out};
    struct emu_launch cfg = {
        .function = emu_module_function(module, "fuzz"),
        .grid = {blocks, 1, 1},
        .block = {threads, 1, 1},
        .shared_carveout = -1,
        .params = params,
        .memory = memory,
        .device = emu_device_model_find("h100"),
        .printf_bytes = 1 << 16,
        .instruction_budget = 1 << 20,
    };
    struct emu_launch_result result;
    tier_compare_run(&cfg, &result); /* aborts when the tiers differ */
    emu_module_unload(module);
    emu_memory_destroy(memory);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER_BYTES)
        return 0;
    unsigned blocks = data[0] % BLOCKS_MAX + 1, threads = data[1] % THREADS_MAX + 1;
    uint64_t seed;
    memcpy(&seed, data + 2, sizeof seed);
    struct gen g = {.data = data, .size = size, .at = HEADER_BYTES};
    g.in_words = blocks * threads * IN_PER_THREAD;
    prologue(&g);
    block(&g, 0);
    epilogue(&g);
    if (getenv("FUZZ_PRINT_PTX"))
        fprintf(stderr, "%s", g.ptx.data);
    run(g.ptx.data, blocks, threads, seed);
    free(g.ptx.data);
    return 0;
}
