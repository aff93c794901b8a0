/*
 * The kgemu.h entry points: what a program asks the virtual GPU that CUDA
 * has no call for.
 */
#include "emu.h"

EMU_EXPORT int kgemu_is_virtual(void)
{
    return 1;
}
