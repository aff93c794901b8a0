/*
 * Which tier runs kernels: KGEMU_TIER, read once per process.
 *
 *   jit      the compiled tier (jit.c, JIT.md), the interpreter for what it
 *            does not cover
 *   interp   the interpreter alone (interp.c)
 *   compare  both, the interpreter first, and everything a program can
 *            observe compared (tier_compare.c): for tests
 *
 * Unset or empty is the default (EMU_TIER_DEFAULT); anything else is said
 * once on stderr and the default runs, so that a typo never silently tests
 * the wrong tier without a word.
 */
#include "exec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMU_TIER_DEFAULT EMU_TIER_JIT

static const char *const tier_names[] = {
    [EMU_TIER_JIT] = "jit",
    [EMU_TIER_INTERP] = "interp",
    [EMU_TIER_COMPARE] = "compare",
};

enum emu_tier emu_tier_parse(const char *value)
{
    if (!value || !*value)
        return EMU_TIER_DEFAULT;
    for (size_t i = 0; i < sizeof tier_names / sizeof *tier_names; i++)
        if (strcmp(value, tier_names[i]) == 0)
            return (enum emu_tier)i;
    fprintf(stderr,
            "kgemu: KGEMU_TIER=%s is not a tier (jit, interp or compare); running the default, "
            "%s\n",
            value, tier_names[EMU_TIER_DEFAULT]);
    return EMU_TIER_DEFAULT;
}

/* Written once under pthread_once, read-only after. */
static enum emu_tier selected;
static pthread_once_t selected_once = PTHREAD_ONCE_INIT;

static void tier_select(void)
{
    selected = emu_tier_parse(getenv("KGEMU_TIER"));
}

enum emu_tier emu_tier(void)
{
    pthread_once(&selected_once, tier_select);
    return selected;
}
