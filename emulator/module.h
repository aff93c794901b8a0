/*
 * Internal to emulator/: a loaded module as the launcher and the interpreter
 * see it: the decoded PTX, linked to device memory, with the per-function
 * facts the driver API reports.
 */
#ifndef KGRADE_EMULATOR_MODULE_H
#define KGRADE_EMULATOR_MODULE_H

#include "emu.h"
#include "ptx.h"

struct emu_function {
    struct emu_module *module;
    int index; /* in module->ptx->functions */
    const struct ptx_function *ptx;
    struct emu_function_info info;
    struct emu_param_info *params;
};

struct emu_module {
    struct ptx_module *ptx;
    struct emu_memory *memory;
    struct emu_function *functions; /* one per PTX function, in the PTX's order */
    int n_functions;
};

#endif
