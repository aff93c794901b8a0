/*
 * Fuzz target (libFuzzer): the virtual GPU's PTX parser. Any text must
 * parse into a module or fail with a message naming a line; never crash,
 * hang, leak or read past the given length.
 */
#include "emulator/ptx.h"
#include "fuzz_input.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    char error[512] = "";
    bool bad_version;
    struct ptx_module *m = ptx_parse(text, size, error, sizeof error, &bad_version);
    if (m) {
        for (int i = 0; i < m->n_functions; i++) {
            const struct ptx_function *f = &m->functions[i];
            for (uint32_t k = 0; k < f->n_code; k++) {
                const struct ptx_insn *insn = &f->code[k];
                if (insn->op >= PTX_OP_COUNT ||
                    (insn->op == PTX_OP_BRA && insn->target >= f->n_code) ||
                    (insn->reconv != PTX_NO_PC && insn->reconv >= f->n_code))
                    abort();
            }
        }
        ptx_module_free(m);
    } else if (strncmp(error, "PTX line ", 9) != 0 && strcmp(error, "out of memory") != 0) {
        abort();
    }
    free(text);
    return 0;
}
