/*
 * Fuzz target (libFuzzer): a host job's /proc/PID/stat as the grade job
 * reads it (grader/host_cpu.c, host_stat_cpu_ticks). The kernel writes it,
 * but the process's name in it is the student's code's to choose, so any
 * bytes must be read without a crash or a read past the end; an accepted
 * text has the name's closing ")" and leaves the ticks as the sum of two
 * of its numbers; a refused one leaves them alone.
 */
#include "fuzz_input.h"
#include "grader/host_form.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    unsigned long long ticks = 12345;
    bool read = host_stat_cpu_ticks(text, size, &ticks);
    if (read && !memchr(text, ')', size))
        abort();
    if (!read && ticks != 12345)
        abort();
    free(text);
    return 0;
}
