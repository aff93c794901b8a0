/*
 * The loader's side of wmma: decoding "wmma.mma.sync.aligned.row.col.
 * m16n16k16.f32.f32" into a struct ptx_insn, the fragments of every shape
 * and type nvcuda::wmma offers (wmma.h), and the checks that let the
 * interpreter (wmma.c) trust an instruction: a valid combination of shape,
 * types and layouts, and operands of the fragments' sizes.
 *
 * The ISA's combinations, D = A·B + C:
 *   .m16n16k16 .m32n8k16 .m8n32k16   A, B .f16: C, D .f16 or .f32
 *                                    A, B .bf16: C, D .f32
 *                                    A, B .s8 or .u8: C, D .s32
 *   .m16n16k8                        A, B .tf32: C, D .f32
 *   .m8n8k4                          A, B, C, D .f64 (with .rn .rz .rm .rp)
 *   .m8n8k32                         A, B .s4 or .u4: C, D .s32 (A .row, B .col)
 *   .m8n8k128                        A, B .b1: C, D .s32 (.and.popc or .xor.popc; A .row, B .col)
 */
#include "ptx_parser.h"
#include "wmma.h"

#include <string.h>

/* Decoding states of insn->cmp before the matrix's letter ("load.a"). */
#define WMMA_LOAD_PENDING  0x40
#define WMMA_STORE_PENDING 0x41
/* insn->layout while decoding: which of mma's two layouts were read. */
#define WMMA_FIRST_LAYOUT  0x10
#define WMMA_SECOND_LAYOUT 0x20

static const struct {
    const char *word;
    enum ptx_wmma_shape shape;
    uint8_t m, n, k;
} shapes[] = {
    {"m16n16k16", PTX_WMMA_M16N16K16, 16, 16, 16}, {"m32n8k16", PTX_WMMA_M32N8K16, 32, 8, 16},
    {"m8n32k16", PTX_WMMA_M8N32K16, 8, 32, 16},    {"m16n16k8", PTX_WMMA_M16N16K8, 16, 16, 8},
    {"m8n8k4", PTX_WMMA_M8N8K4, 8, 8, 4},          {"m8n8k32", PTX_WMMA_M8N8K32, 8, 8, 32},
    {"m8n8k128", PTX_WMMA_M8N8K128, 8, 8, 128},
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

static bool is_half_shape(enum ptx_wmma_shape s)
{
    return s == PTX_WMMA_M16N16K16 || s == PTX_WMMA_M32N8K16 || s == PTX_WMMA_M8N32K16;
}

static unsigned element_bits(enum ptx_type t)
{
    switch (t) {
    case PTX_B1:
        return 1;
    case PTX_U4:
    case PTX_S4:
        return 4;
    default:
        return 8 * ptx_type_bytes(t);
    }
}

/* Whether the ISA has an A or B fragment of type t in shape s. */
static bool input_type_fits(enum ptx_wmma_shape s, enum ptx_type t)
{
    switch (t) {
    case PTX_F16:
    case PTX_BF16:
    case PTX_S8:
    case PTX_U8:
        return is_half_shape(s);
    case PTX_TF32:
        return s == PTX_WMMA_M16N16K8;
    case PTX_F64:
        return s == PTX_WMMA_M8N8K4;
    case PTX_S4:
    case PTX_U4:
        return s == PTX_WMMA_M8N8K32;
    case PTX_B1:
        return s == PTX_WMMA_M8N8K128;
    default:
        return false;
    }
}

/* Whether the ISA has a C or D fragment of type t in shape s. */
static bool accumulator_type_fits(enum ptx_wmma_shape s, enum ptx_type t)
{
    switch (t) {
    case PTX_F16:
        return is_half_shape(s);
    case PTX_F32:
        return is_half_shape(s) || s == PTX_WMMA_M16N16K8;
    case PTX_S32:
        return is_half_shape(s) || s == PTX_WMMA_M8N8K32 || s == PTX_WMMA_M8N8K128;
    case PTX_F64:
        return s == PTX_WMMA_M8N8K4;
    default:
        return false;
    }
}

bool wmma_fragment_of(enum ptx_wmma_shape shape, enum ptx_wmma_op matrix, enum ptx_type type,
                      struct wmma_fragment *out)
{
    if (shape < 1 || shape > N_SHAPES)
        return false;
    unsigned m = shapes[shape - 1].m, n = shapes[shape - 1].n, k = shapes[shape - 1].k;
    bool input = matrix == PTX_WMMA_LOAD_A || matrix == PTX_WMMA_LOAD_B;
    if (input ? !input_type_fits(shape, type) : !accumulator_type_fits(shape, type))
        return false;
    memset(out, 0, sizeof *out);
    out->rows = (uint16_t)(matrix == PTX_WMMA_LOAD_A ? m : matrix == PTX_WMMA_LOAD_B ? k : m);
    out->cols = (uint16_t)(matrix == PTX_WMMA_LOAD_A ? k : n);
    out->bits = (uint8_t)element_bits(type);
    out->register_bits = type == PTX_F64 ? 64 : 32;
    out->per_register = (uint8_t)(out->register_bits / out->bits);
    unsigned elements = out->rows * out->cols / WMMA_LANES;
    out->elements = (uint16_t)(input && type == PTX_F16 ? WMMA_F16_AB_ELEMENTS : elements);
    out->registers = (uint8_t)(out->elements / out->per_register);
    return true;
}

/* ---------------------------------------------------------- decoding */

static bool set_shape(struct ptx_insn *insn, const char *word)
{
    for (size_t i = 0; i < N_SHAPES; i++)
        if (strcmp(shapes[i].word, word) == 0)
            return insn->shape = (uint8_t)shapes[i].shape, true;
    return false;
}

/* Types in the order given, into type, type2, type_a, type_b. */
static bool add_type(struct ptx_insn *insn, enum ptx_type t)
{
    uint8_t *slots[] = {&insn->type, &insn->type2, &insn->type_a, &insn->type_b};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (*slots[i] == PTX_TYPE_NONE)
            return *slots[i] = (uint8_t)t, true;
    return false; /* a fifth type */
}

static bool set_layout(struct ptx_insn *insn, bool column_major)
{
    if (!(insn->layout & WMMA_FIRST_LAYOUT)) {
        insn->layout |= WMMA_FIRST_LAYOUT | (column_major ? PTX_WMMA_COL : 0);
        return true;
    }
    if (insn->layout & WMMA_SECOND_LAYOUT)
        return false;
    insn->layout |= WMMA_SECOND_LAYOUT | (column_major ? PTX_WMMA_COL_B : 0);
    return true;
}

/* The matrix's letter after load or store. */
static bool set_matrix(struct ptx_insn *insn, char letter)
{
    if (insn->cmp == WMMA_LOAD_PENDING && letter >= 'a' && letter <= 'c')
        return insn->cmp = (uint8_t)(PTX_WMMA_LOAD_A + (letter - 'a')), true;
    if (insn->cmp == WMMA_STORE_PENDING && letter == 'd')
        return insn->cmp = PTX_WMMA_STORE_D, true;
    return false;
}

bool ptx_wmma_modifier(struct ptx_insn *insn, const char *word)
{
    char dotted[16];
    if (strlen(word) < sizeof dotted - 1) {
        dotted[0] = '.';
        strcpy(dotted + 1, word);
        enum ptx_type t = ptx_type_of(dotted, strlen(dotted));
        if (t != PTX_TYPE_NONE)
            return add_type(insn, t);
    }
    if (insn->cmp == 0 && strcmp(word, "load") == 0)
        return insn->cmp = WMMA_LOAD_PENDING, true;
    if (insn->cmp == 0 && strcmp(word, "store") == 0)
        return insn->cmp = WMMA_STORE_PENDING, true;
    if (insn->cmp == 0 && strcmp(word, "mma") == 0)
        return insn->cmp = PTX_WMMA_MMA, true;
    if (word[0] != '\0' && word[1] == '\0' && set_matrix(insn, word[0]))
        return true;
    if (strcmp(word, "row") == 0 || strcmp(word, "col") == 0)
        return set_layout(insn, word[0] == 'c');
    if (insn->cmp == PTX_WMMA_MMA && strcmp(word, "and") == 0)
        return insn->bool_op = PTX_BOOL_AND, true;
    if (insn->cmp == PTX_WMMA_MMA && strcmp(word, "xor") == 0)
        return insn->bool_op = PTX_BOOL_XOR, true;
    if (insn->cmp == PTX_WMMA_MMA && strcmp(word, "popc") == 0)
        return true;
    return set_shape(insn, word);
}

/* ---------------------------------------------------------- checking */

/* A vector operand of n registers (no immediates: a fragment is registers). */
static bool is_fragment(const struct ptx_operand *o, unsigned n)
{
    return o->kind == PTX_OPD_VEC && o->count == n;
}

static bool is_stride(const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_REG || o->kind == PTX_OPD_IMM;
}

/* mma's types given as D, A, B, C (four) or D, C (two, A and B .f16),
 * stored as type = D, type2 = C, type_a, type_b. */
static bool normalize_mma_types(struct ptx_insn *insn)
{
    uint8_t d = insn->type, second = insn->type2, third = insn->type_a, fourth = insn->type_b;
    if (third == PTX_TYPE_NONE) {
        insn->type_a = insn->type_b = PTX_F16;
        return second != PTX_TYPE_NONE;
    }
    if (fourth == PTX_TYPE_NONE)
        return false;
    insn->type = d;
    insn->type2 = fourth;
    insn->type_a = second;
    insn->type_b = third;
    return true;
}

static bool is_integer_input(enum ptx_type t)
{
    return t == PTX_S8 || t == PTX_U8 || t == PTX_S4 || t == PTX_U4;
}

/* The ISA's pairings of A and B with C and D, and their modifiers. */
static const char *mma_combination_error(const struct ptx_insn *insn)
{
    enum ptx_type a = insn->type_a, b = insn->type_b, c = insn->type2, d = insn->type;
    bool integer =
        is_integer_input(a) && is_integer_input(b) && (element_bits(a) == element_bits(b));
    bool same = a == b;
    if (!(integer || same))
        return "A and B of different types";
    if (a == PTX_F16   ? !((c == PTX_F16 || c == PTX_F32) && (d == PTX_F16 || d == PTX_F32))
        : a == PTX_F64 ? c != PTX_F64 || d != PTX_F64
        : integer || a == PTX_B1 ? c != PTX_S32 || d != PTX_S32
                                 : c != PTX_F32 || d != PTX_F32)
        return "accumulators of a type these inputs do not take";
    if ((a == PTX_B1) != (insn->bool_op != PTX_BOOL_NONE))
        return ".b1 needs .and.popc or .xor.popc, and only .b1 takes them";
    if ((insn->flags & PTX_F_HAS_RND) && a != PTX_F64)
        return "a rounding mode on other types than .f64";
    if ((insn->flags & PTX_F_SATFINITE) && !integer && a != PTX_F16)
        return ".satfinite on these types";
    return NULL;
}

/* Sub-byte fragments are A row-major and B column-major only. */
static bool layout_allowed(enum ptx_wmma_op matrix, enum ptx_type t, bool column_major)
{
    bool sub_byte = t == PTX_S4 || t == PTX_U4 || t == PTX_B1;
    return !sub_byte || (matrix == PTX_WMMA_LOAD_A && !column_major) ||
           (matrix == PTX_WMMA_LOAD_B && column_major);
}

static bool check_memory_op(struct ptx_parser *ps, const struct ptx_insn *insn, int line)
{
    bool store = insn->cmp == PTX_WMMA_STORE_D;
    enum ptx_wmma_op matrix = store ? PTX_WMMA_LOAD_C : (enum ptx_wmma_op)insn->cmp;
    struct wmma_fragment f;
    if (insn->type2 != PTX_TYPE_NONE ||
        !wmma_fragment_of((enum ptx_wmma_shape)insn->shape, matrix, (enum ptx_type)insn->type, &f))
        return ptx_fail(ps, line, "wmma: no such fragment of this shape and type");
    if (!layout_allowed(matrix, (enum ptx_type)insn->type, insn->layout & PTX_WMMA_COL))
        return ptx_fail(ps, line, "wmma: .s4, .u4 and .b1 take A .row and B .col only");
    if (insn->space != PTX_SPACE_GENERIC && insn->space != PTX_SPACE_GLOBAL &&
        insn->space != PTX_SPACE_SHARED)
        return ptx_fail(ps, line, "wmma reads and writes global or shared memory only");
    const struct ptx_operand *fragment = &insn->o[store ? 1 : 0],
                             *address = &insn->o[store ? 0 : 1];
    if (insn->n_operands < 2 || insn->n_operands > 3 || address->kind != PTX_OPD_ADDR ||
        !is_fragment(fragment, f.registers) || (insn->n_operands == 3 && !is_stride(&insn->o[2])))
        return ptx_fail(ps, line, "wmma.%s takes %s{%u registers}%s and an optional stride",
                        store ? "store" : "load", store ? "[address], " : "", f.registers,
                        store ? "" : ", [address]");
    return true;
}

static bool check_mma(struct ptx_parser *ps, struct ptx_insn *insn, int line)
{
    if (!normalize_mma_types(insn))
        return ptx_fail(ps, line,
                        "wmma.mma names its types as .dtype.ctype or "
                        ".dtype.atype.btype.ctype");
    const char *error = mma_combination_error(insn);
    if (error)
        return ptx_fail(ps, line, "wmma.mma: %s", error);
    enum ptx_wmma_shape shape = (enum ptx_wmma_shape)insn->shape;
    struct wmma_fragment fd, fa, fb, fc;
    if (!wmma_fragment_of(shape, PTX_WMMA_LOAD_C, (enum ptx_type)insn->type, &fd) ||
        !wmma_fragment_of(shape, PTX_WMMA_LOAD_A, (enum ptx_type)insn->type_a, &fa) ||
        !wmma_fragment_of(shape, PTX_WMMA_LOAD_B, (enum ptx_type)insn->type_b, &fb) ||
        !wmma_fragment_of(shape, PTX_WMMA_LOAD_C, (enum ptx_type)insn->type2, &fc))
        return ptx_fail(ps, line, "wmma.mma: no such fragments of this shape and type");
    if (!(insn->layout & WMMA_SECOND_LAYOUT) ||
        !layout_allowed(PTX_WMMA_LOAD_A, (enum ptx_type)insn->type_a,
                        insn->layout & PTX_WMMA_COL) ||
        !layout_allowed(PTX_WMMA_LOAD_B, (enum ptx_type)insn->type_b,
                        insn->layout & PTX_WMMA_COL_B))
        return ptx_fail(ps, line,
                        "wmma.mma needs A's and B's layouts (.s4, .u4 and .b1: "
                        ".row.col)");
    if (insn->n_operands != 4 || !is_fragment(&insn->o[0], fd.registers) ||
        !is_fragment(&insn->o[1], fa.registers) || !is_fragment(&insn->o[2], fb.registers) ||
        !is_fragment(&insn->o[3], fc.registers))
        return ptx_fail(ps, line, "wmma.mma takes {%u}, {%u}, {%u}, {%u} registers", fd.registers,
                        fa.registers, fb.registers, fc.registers);
    return true;
}

bool ptx_wmma_validate(struct ptx_parser *ps, struct ptx_insn *insn, int line)
{
    if (insn->cmp < PTX_WMMA_LOAD_A || insn->cmp > PTX_WMMA_MMA)
        return ptx_fail(ps, line, "wmma needs .load.a, .load.b, .load.c, .store.d or .mma");
    if (insn->shape == 0)
        return ptx_fail(ps, line, "wmma needs a shape (.m16n16k16 …)");
    bool ok = insn->cmp == PTX_WMMA_MMA
                  ? check_mma(ps, insn, line)
                  : (insn->layout & WMMA_FIRST_LAYOUT) && !(insn->layout & WMMA_SECOND_LAYOUT) &&
                        check_memory_op(ps, insn, line);
    if (!ok && !ps->failed)
        return ptx_fail(ps, line, "wmma.load and wmma.store need one layout (.row or .col)");
    insn->layout &= PTX_WMMA_COL | PTX_WMMA_COL_B;
    return ok;
}
