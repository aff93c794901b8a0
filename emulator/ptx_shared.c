/*
 * Static shared memory per kernel, as ptxas lays it out.
 *
 * A kernel's block gets the .shared variables the kernel and the functions
 * it calls use (through a pointer: any function whose address is taken),
 * not the module's: two kernels in one module (each with its
 * own demoted __shared__ tile) each get their own size, which occupancy and
 * cuFuncGetAttribute(SHARED_SIZE_BYTES) see as on a GPU.
 *
 * Every variable keeps one offset for the whole module, because a device
 * function called by two kernels addresses it with one instruction. The
 * offsets come from one pass in declaration order: a variable goes after
 * the end so far of every kernel that uses it, so variables no kernel uses
 * together may overlap, and a kernel whose variables are its own gets
 * ptxas's packing: its variables in order from 0, each aligned.
 *
 * The dynamic (extern) shared array starts at a 16-byte boundary after the
 * static variables; all extern declarations name it. Its offset is the same
 * for every kernel that uses it: after the largest static size among them.
 * A kernel's block holds the dynamic array from that offset; what a GPU
 * would charge (its static size plus the dynamic bytes) is what occupancy
 * sees.
 */
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

#define DYNAMIC_SHARED_ALIGN 16

static uint64_t align_to(uint64_t x, uint64_t a)
{
    return a > 1 ? (x + a - 1) / a * a : x;
}

static bool is_shared_variable(const struct ptx_module *m, int32_t var)
{
    return var >= 0 && var < m->n_variables && m->variables[var].space == PTX_SPACE_SHARED;
}

/* Marks in `uses` (a flag per variable) the shared variables function f's
 * instructions name. */
static void mark_own_variables(const struct ptx_module *m, const struct ptx_function *f, bool *uses)
{
    for (uint32_t i = 0; i < f->n_code; i++)
        for (int k = 0; k < PTX_MAX_OPERANDS; k++)
            if (is_shared_variable(m, f->code[i].o[k].var))
                uses[f->code[i].o[k].var] = true;
}

/* Marks the shared variables of function `index` and of every function it
 * calls; `seen` (a flag per function) stops at functions already visited. */
static void mark_reachable(const struct ptx_module *m, int index, bool *seen, bool *uses)
{
    if (seen[index])
        return;
    seen[index] = true;
    const struct ptx_function *f = &m->functions[index];
    mark_own_variables(m, f, uses);
    for (uint32_t i = 0; i < f->n_code; i++) {
        const struct ptx_insn *insn = &f->code[i];
        if (insn->op != PTX_OP_CALL)
            continue;
        if (!(insn->flags & PTX_F_INDIRECT)) {
            mark_reachable(m, (int)insn->target, seen, uses);
            continue;
        }
        for (int g = 0; g < m->n_functions; g++) /* through a pointer: any it may hold */
            if (m->functions[g].address_taken)
                mark_reachable(m, g, seen, uses);
    }
}

/* uses[k * n_variables + v]: kernel k (the k-th entry) uses variable v. */
static bool *kernel_uses(const struct ptx_module *m, int n_kernels)
{
    size_t n_vars = (size_t)m->n_variables;
    bool *uses = calloc((size_t)n_kernels * n_vars + 1, sizeof *uses);
    bool *seen = calloc((size_t)m->n_functions + 1, sizeof *seen);
    if (!uses || !seen) {
        free(uses);
        free(seen);
        return NULL;
    }
    int k = 0;
    for (int i = 0; i < m->n_functions; i++) {
        if (!m->functions[i].is_entry)
            continue;
        memset(seen, 0, (size_t)m->n_functions * sizeof *seen);
        mark_reachable(m, i, seen, &uses[(size_t)k++ * n_vars]);
    }
    free(seen);
    return uses;
}

static bool is_static_shared(const struct ptx_variable *var)
{
    return var->space == PTX_SPACE_SHARED && !var->is_extern_shared;
}

/* Gives each static shared variable its offset, after the end so far of
 * every kernel that uses it (end[k], then moved past it); false when one
 * would end past PTX_SHARED_SPACE_MAX (*too_large names it). */
static bool place_static(struct ptx_module *m, const bool *uses, int n_kernels, uint64_t *end,
                         const char **too_large)
{
    size_t n_vars = (size_t)m->n_variables;
    for (int v = 0; v < m->n_variables; v++) {
        struct ptx_variable *var = &m->variables[v];
        if (!is_static_shared(var))
            continue;
        uint64_t after = 0;
        for (int k = 0; k < n_kernels; k++)
            if (uses[(size_t)k * n_vars + (size_t)v] && end[k] > after)
                after = end[k];
        var->address = align_to(after, var->align);
        if (var->address + var->size > PTX_SHARED_SPACE_MAX) {
            *too_large = var->name;
            return false;
        }
        for (int k = 0; k < n_kernels; k++)
            if (uses[(size_t)k * n_vars + (size_t)v])
                end[k] = var->address + var->size;
    }
    return true;
}

/* Each kernel's static size (end[k]), whether it uses the dynamic array,
 * and the array's one offset. */
static void size_kernels(struct ptx_module *m, const bool *uses, const uint64_t *end)
{
    size_t n_vars = (size_t)m->n_variables;
    uint64_t dynamic_offset = 0;
    int k = 0;
    for (int i = 0; i < m->n_functions; i++) {
        struct ptx_function *f = &m->functions[i];
        if (!f->is_entry)
            continue;
        const bool *mine = &uses[(size_t)k * n_vars];
        f->static_shared_bytes = (uint32_t)end[k++];
        f->dynamic_shared_offset = (uint32_t)align_to(f->static_shared_bytes, DYNAMIC_SHARED_ALIGN);
        f->uses_dynamic_shared = false;
        for (int v = 0; v < m->n_variables; v++)
            f->uses_dynamic_shared |= mine[v] && m->variables[v].is_extern_shared;
        if (f->uses_dynamic_shared && f->dynamic_shared_offset > dynamic_offset)
            dynamic_offset = f->dynamic_shared_offset;
    }
    for (int v = 0; v < m->n_variables; v++)
        if (m->variables[v].is_extern_shared)
            m->variables[v].address = dynamic_offset;
    for (int i = 0; i < m->n_functions; i++)
        if (m->functions[i].is_entry && m->functions[i].uses_dynamic_shared)
            m->functions[i].dynamic_shared_offset = (uint32_t)dynamic_offset;
}

int ptx_layout_shared(struct ptx_module *m, const char **too_large)
{
    *too_large = NULL;
    int n_kernels = 0;
    for (int i = 0; i < m->n_functions; i++)
        n_kernels += m->functions[i].is_entry;
    bool *uses = kernel_uses(m, n_kernels);
    uint64_t *end = calloc((size_t)n_kernels + 1, sizeof *end);
    if (!uses || !end) {
        free(uses);
        free(end);
        return 0;
    }
    bool placed = place_static(m, uses, n_kernels, end, too_large);
    if (placed)
        size_kernels(m, uses, end);
    free(uses);
    free(end);
    return placed ? 1 : -1;
}
