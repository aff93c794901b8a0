/*
 * Internal to grader/: a compile result made from a compile done
 * elsewhere — a reference the service handed to the job, the Numba front
 * end's result — where a kernel is known by its PTX entry alone.
 */
#include "grade.h"

#include <stdlib.h>
#include <string.h>

bool compile_result_allocate_kernels(struct grader_compile_result *r, size_t n)
{
    r->kernels = calloc(n, sizeof *r->kernels);
    r->lowered_names = calloc(n, sizeof *r->lowered_names);
    r->n_kernels = r->n_lowered_names = r->kernels && r->lowered_names ? n : 0;
    return r->n_kernels == n;
}

bool compile_result_set_entry(struct grader_compile_result *r, size_t k, const char *entry,
                              int registers)
{
    r->lowered_names[k] = strdup(entry);
    r->kernels[k].name = strdup(entry);
    r->kernels[k].signature = strdup(entry);
    r->kernels[k].registers = registers;
    return r->lowered_names[k] && r->kernels[k].name && r->kernels[k].signature;
}
