/*
 * Shared-memory loads that ptxas merges: the GPU runs SASS, not PTX, and
 * ptxas turns runs of 32-bit ld.shared from one base register at consecutive
 * offsets (what NVRTC emits for `r[i] = s[base + i]`, i = 0..3) into one
 * 64- or 128-bit load (LDS.64, LDS.128). A warp then issues one instruction
 * and one shared request of 8 or 16 bytes per lane where the PTX has two or
 * four, which is why register-tiled kernels (SGEMM's thread tiles) are not
 * bound by shared memory on a GPU.
 *
 * Found at load time, within a basic block: a group is up to 16 bytes of
 * unguarded scalar ld.shared of one size (4 or 8 bytes) whose address is one
 * base register (or variable) plus offsets that follow each other, with no
 * branch, branch target, barrier, call, shared or generic store, atomic, or
 * new value of the base register between its members (ptxas would not move
 * a load across them). The first member leads (merge = the member count);
 * the others follow (PTX_MERGE_FOLLOWER), all with the same merge_group.
 * Whether the group runs as one access is decided at run time
 * (interp_memory.c): only when every lane's address is aligned to the
 * group's size, standing in for the alignment ptxas must prove.
 */
#include "ptx.h"

#include <stdlib.h>

#define MERGE_MAX_BYTES 16
#define MERGE_LOOKAHEAD 64 /* instructions searched past a group's leader */

static bool is_candidate(const struct ptx_insn *insn)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    return insn->op == PTX_OP_LD && insn->space == PTX_SPACE_SHARED && insn->vec == 1 &&
           insn->guard == PTX_NO_REG && insn->merge == 0 && (bytes == 4 || bytes == 8) &&
           insn->o[0].kind == PTX_OPD_REG && insn->o[1].kind == PTX_OPD_ADDR;
}

/* An instruction no load of the group may be moved across. */
static bool ends_group(const struct ptx_insn *insn, const struct ptx_insn *leader)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    bool stores = ((op == PTX_OP_ST || op == PTX_OP_ATOM || op == PTX_OP_RED) &&
                   (insn->space == PTX_SPACE_SHARED || insn->space == PTX_SPACE_GENERIC)) ||
                  op == PTX_OP_CP || op == PTX_OP_MBARRIER; /* they write shared memory, and
                                                               a yield lets others write it */
    bool redefines_base = ptx_writes_first_operand(insn) && insn->o[0].kind == PTX_OPD_REG &&
                          insn->o[0].reg == leader->o[1].reg;
    return stores || redefines_base || op == PTX_OP_BRA || op == PTX_OP_BRX || op == PTX_OP_CALL ||
           op == PTX_OP_RET || op == PTX_OP_EXIT || op == PTX_OP_BAR || op == PTX_OP_BARRIER ||
           op == PTX_OP_TRAP;
}

/* `insn` is the next member after offset `next` of the leader's group. */
static bool continues(const struct ptx_insn *insn, const struct ptx_insn *leader, int64_t next)
{
    return is_candidate(insn) && insn->type == leader->type && insn->o[1].reg == leader->o[1].reg &&
           insn->o[1].var == leader->o[1].var && insn->o[1].imm == next &&
           insn->o[0].reg != leader->o[1].reg;
}

/* Marks a group led by code[i] (when it has at least 2 members). */
static void group_from(struct ptx_function *f, uint32_t i, const bool *is_target, uint16_t group)
{
    struct ptx_insn *leader = &f->code[i];
    unsigned bytes = ptx_type_bytes((enum ptx_type)leader->type);
    uint32_t members[MERGE_MAX_BYTES / 4] = {i};
    unsigned n = 1, most = MERGE_MAX_BYTES / bytes;
    for (uint32_t j = i + 1; j < f->n_code && j <= i + MERGE_LOOKAHEAD && n < most; j++) {
        if (is_target[j] || ends_group(&f->code[j], leader))
            break;
        if (continues(&f->code[j], leader, leader->o[1].imm + (int64_t)(n * bytes)))
            members[n++] = j;
    }
    if (n == 3) /* 12 bytes is no access size: 8 of them */
        n = 2;
    if (n < 2)
        return;
    for (unsigned k = 0; k < n; k++) {
        f->code[members[k]].merge = k == 0 ? (uint8_t)n : PTX_MERGE_FOLLOWER;
        f->code[members[k]].merge_group = group;
    }
}

void ptx_merge_shared_loads(struct ptx_function *f)
{
    bool *is_target = calloc(f->n_code ? f->n_code : 1, sizeof *is_target);
    if (!is_target)
        return; /* no merging: the model counts every load, as before */
    for (uint32_t i = 0; i < f->n_code; i++)
        if (f->code[i].op == PTX_OP_BRA && f->code[i].target < f->n_code)
            is_target[f->code[i].target] = true;
    uint16_t group = 0;
    for (uint32_t i = 0; i < f->n_code; i++)
        if (is_candidate(&f->code[i])) {
            group_from(f, i, is_target, group);
            if (f->code[i].merge)
                group++;
        }
    free(is_target);
}
