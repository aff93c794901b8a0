/*
 * Modules: load PTX, place its variables in device memory, link.
 *
 * Loading parses the whole text at once (ptx_parse), then gives every
 * .global and .const variable an allocation of its own in the device memory
 * table, so that an access past the end of a table is caught like one past
 * the end of a cuMemAlloc buffer. Linking replaces each reference to a
 * variable in an instruction by its address (shared variables: their offset
 * in the block's shared memory), so the interpreter never looks a name up.
 */
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CUresult fail(char *log, size_t size, CUresult code, const char *message)
{
    if (log && size > 0)
        snprintf(log, size, "%s", message);
    return code;
}

static CUresult place_variables(struct emu_module *m, char *log, size_t log_size)
{
    for (int i = 0; i < m->ptx->n_variables; i++) {
        struct ptx_variable *v = &m->ptx->variables[i];
        if (v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST)
            continue;
        uint64_t address;
        CUresult r = emu_memory_alloc(m->memory, v->size ? v->size : 1, EMU_ALLOC_GLOBAL, &address);
        if (r != CUDA_SUCCESS) {
            char message[256];
            snprintf(message, sizeof message, "no device memory for the variable '%s' (%u bytes)",
                     v->name, v->size);
            return fail(log, log_size, r, message);
        }
        v->address = address;
        if (v->init)
            memcpy((void *)(uintptr_t)address, v->init, v->size);
    }
    return CUDA_SUCCESS;
}

/* Writes the addresses of variables that initializers name, now that
 * every variable has one. */
static void apply_relocations(struct emu_module *m)
{
    const struct ptx_module *pm = m->ptx;
    for (int i = 0; i < pm->n_relocs; i++) {
        const struct ptx_reloc *r = &pm->relocs[i];
        const struct ptx_variable *v = &pm->variables[r->variable];
        uint64_t address = pm->variables[r->target].address + (uint64_t)r->addend;
        if (v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST)
            memcpy((void *)(uintptr_t)(v->address + r->offset), &address, 8);
    }
}

static void link_operand(const struct ptx_module *pm, struct ptx_operand *o)
{
    if (o->var < 0)
        return;
    const struct ptx_variable *v = &pm->variables[o->var];
    o->imm += (int64_t)v->address;
    o->var = v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST ? PTX_VAR_PLACED : -1;
}

static void link_function(const struct ptx_module *pm, struct ptx_function *f)
{
    for (uint32_t i = 0; i < f->n_code; i++)
        for (int k = 0; k < PTX_MAX_OPERANDS; k++)
            link_operand(pm, &f->code[i].o[k]);
}

static bool describe_function(struct emu_module *m, int index)
{
    struct emu_function *fn = &m->functions[index];
    const struct ptx_function *f = &m->ptx->functions[index];
    fn->module = m;
    fn->index = index;
    fn->ptx = f;
    fn->params = calloc((size_t)(f->n_params ? f->n_params : 1), sizeof *fn->params);
    if (!fn->params)
        return false;
    for (int p = 0; p < f->n_params; p++) {
        fn->params[p].offset = f->params[p].offset;
        fn->params[p].size = f->params[p].size;
        fn->params[p].align = f->params[p].align;
    }
    fn->info.name = f->name;
    fn->info.n_params = f->n_params;
    fn->info.params = fn->params;
    fn->info.param_bytes = f->param_bytes;
    fn->info.static_shared_bytes = f->static_shared_bytes;
    fn->info.dynamic_shared_offset = f->dynamic_shared_offset;
    fn->info.local_bytes = f->local_bytes;
    fn->info.registers = f->reg_estimate;
    fn->info.max_threads_per_block = f->max_threads;
    fn->info.ptx_version = m->ptx->version_major * 10 + m->ptx->version_minor;
    fn->info.target_sm = m->ptx->target_sm;
    return true;
}

/* Functions that are called but neither defined nor provided by kgrade. */
static CUresult check_calls(const struct ptx_module *pm, char *log, size_t log_size)
{
    for (int i = 0; i < pm->n_functions; i++) {
        const struct ptx_function *f = &pm->functions[i];
        for (uint32_t k = 0; k < f->n_code; k++) {
            const struct ptx_insn *insn = &f->code[k];
            if (insn->op != PTX_OP_CALL || (insn->flags & PTX_F_INDIRECT))
                continue; /* a call through a pointer is checked when it is made */
            const struct ptx_function *callee = &pm->functions[insn->target];
            if (callee->n_code == 0 && callee->builtin == PTX_BUILTIN_NONE) {
                char message[256];
                snprintf(message, sizeof message,
                         "PTX line %u: '%s' calls '%s', which is neither defined nor provided",
                         insn->ptx_line, f->name, callee->name);
                return fail(log, log_size, CUDA_ERROR_INVALID_PTX, message);
            }
        }
    }
    return CUDA_SUCCESS;
}

CUresult emu_module_load(const char *ptx, size_t length, struct emu_memory *memory,
                         struct emu_module **module, char *error_log, size_t error_log_size)
{
    char error[512] = "";
    bool bad_version = false;
    *module = NULL;
    struct ptx_module *pm = ptx_parse(ptx, length, error, sizeof error, &bad_version);
    if (!pm)
        return fail(error_log, error_log_size,
                    bad_version ? CUDA_ERROR_UNSUPPORTED_PTX_VERSION : CUDA_ERROR_INVALID_PTX,
                    error);
    CUresult r = check_calls(pm, error_log, error_log_size);
    if (r != CUDA_SUCCESS) {
        ptx_module_free(pm);
        return r;
    }
    struct emu_module *m = calloc(1, sizeof *m);
    if (m) {
        m->ptx = pm;
        m->memory = memory;
        m->functions =
            calloc((size_t)(pm->n_functions ? pm->n_functions : 1), sizeof *m->functions);
    }
    if (!m || !m->functions) {
        free(m);
        ptx_module_free(pm);
        return fail(error_log, error_log_size, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    m->n_functions = pm->n_functions;
    r = place_variables(m, error_log, error_log_size);
    if (r == CUDA_SUCCESS)
        apply_relocations(m);
    for (int i = 0; r == CUDA_SUCCESS && i < pm->n_functions; i++) {
        link_function(pm, &pm->functions[i]);
        if (!describe_function(m, i))
            r = fail(error_log, error_log_size, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    if (r != CUDA_SUCCESS) {
        emu_module_unload(m);
        return r;
    }
    *module = m;
    return CUDA_SUCCESS;
}

void emu_module_unload(struct emu_module *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->ptx->n_variables; i++) {
        const struct ptx_variable *v = &m->ptx->variables[i];
        if ((v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST) && v->address)
            emu_memory_free(m->memory, v->address);
    }
    for (int i = 0; i < m->n_functions; i++)
        free(m->functions[i].params);
    free(m->functions);
    ptx_module_free(m->ptx);
    free(m);
}

struct emu_function *emu_module_function(struct emu_module *m, const char *name)
{
    for (int i = 0; i < m->n_functions; i++)
        if (m->functions[i].ptx->is_entry && strcmp(m->functions[i].ptx->name, name) == 0)
            return &m->functions[i];
    return NULL;
}

CUresult emu_module_global(struct emu_module *m, const char *name, uint64_t *address, size_t *bytes)
{
    for (int i = 0; i < m->ptx->n_variables; i++) {
        const struct ptx_variable *v = &m->ptx->variables[i];
        if ((v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST) &&
            strcmp(v->name, name) == 0) {
            if (address)
                *address = v->address;
            if (bytes)
                *bytes = v->size;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

const struct emu_function_info *emu_function_info(const struct emu_function *function)
{
    return &function->info;
}

void emu_function_set_registers(struct emu_function *function, int registers)
{
    if (registers > 0) {
        function->info.registers = registers;
        function->info.registers_exact = true;
    }
}
