/*
 * ptxas's verbose report → registers per kernel.
 *
 * With --ptxas-options=-v, NVRTC's log holds for each kernel
 *
 *     ptxas info    : Compiling entry function 'vec_add' for 'sm_90'
 *     ptxas info    : Function properties for vec_add
 *     ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *     ptxas info    : Used 12 registers, used 0 barriers
 *
 * The "Used" line belongs to the entry function named last. Device functions
 * that are not inlined get "Function properties" lines of their own but no
 * "Compiling entry function" line, so they never take a kernel's count.
 */
#include "compile_output.h"
#include "text_lines.h"

#include <stdlib.h>
#include <string.h>

#define PTXAS_ENTRY_PREFIX "ptxas info    : Compiling entry function '"
#define PTXAS_USED_PREFIX  "ptxas info    : Used "
/* No kernel uses more than the architecture's 255 registers per thread. */
#define PTXAS_REGISTERS_MAX 100000

/* True when `line` starts the report of entry `entry`. */
static bool is_entry_line(struct text_line line, const char *entry)
{
    if (!line_starts_with(line, PTXAS_ENTRY_PREFIX))
        return false;
    struct text_line name = line_after(line, strlen(PTXAS_ENTRY_PREFIX));
    size_t n = strlen(entry);
    return name.len > n && memcmp(name.start, entry, n) == 0 && name.start[n] == '\'';
}

/* N of "Used N registers", or -1. */
static int used_registers(struct text_line line)
{
    struct text_line rest = line_after(line, strlen(PTXAS_USED_PREFIX));
    int count = 0;
    size_t i = 0;
    while (i < rest.len && rest.start[i] >= '0' && rest.start[i] <= '9' &&
           count < PTXAS_REGISTERS_MAX)
        count = count * 10 + (rest.start[i++] - '0');
    if (i == 0 || count >= PTXAS_REGISTERS_MAX ||
        !line_starts_with(line_after(rest, i), " register"))
        return -1;
    return count;
}

int grader_ptxas_registers(const char *log, size_t len, const char *entry)
{
    struct line_cursor c = line_cursor_of(log, len);
    struct text_line line;
    bool in_entry = false;
    while (line_next(&c, &line)) {
        if (line_starts_with(line, PTXAS_ENTRY_PREFIX))
            in_entry = is_entry_line(line, entry);
        else if (in_entry && line_starts_with(line, PTXAS_USED_PREFIX))
            return used_registers(line);
    }
    return -1;
}
