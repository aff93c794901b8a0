/*
 * A kernel's Numba form as text: the signature grader/numba_compile.py
 * compiles it for, and the definition a student must write (exercise.h);
 * the host form's function as the student defines it.
 *
 * Buffers are C-ordered device arrays, as cuda.to_device gives them:
 * "float32[::1]" in one dimension, "float32[:, ::1]" in two; scalars are
 * their numba type ("int32", "float32").
 */
#include "exercise.h"

#include <stdarg.h>
#include <stdio.h>

/* Appends to out (of `size`) at *used; false once it no longer fits. */
static bool append(char *out, size_t size, size_t *used, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static bool append(char *out, size_t size, size_t *used, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = *used < size ? vsnprintf(out + *used, size - *used, format, ap) : -1;
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *used)
        return false;
    *used += (size_t)n;
    return true;
}

static enum value_type param_type(const struct exercise *e, const struct exercise_numba_param *p)
{
    int b = exercise_buffer_index(e, p->name), s = exercise_scalar_index(e, p->name);
    return b >= 0 ? e->buffers[b].type : s >= 0 ? e->scalars[s].type : VALUE_TYPE_COUNT;
}

bool exercise_numba_signature(const struct exercise *e, int k, char *out, size_t size)
{
    const struct exercise_numba *n = &e->kernels[k].numba;
    size_t used = 0;
    bool ok = append(out, size, &used, "void(");
    for (int i = 0; ok && i < n->n_params; i++) {
        const struct exercise_numba_param *p = &n->params[i];
        enum value_type t = param_type(e, p);
        const char *dims = p->n_dims == 2 ? "[:, ::1]" : p->n_dims == 1 ? "[::1]" : "";
        ok = t < VALUE_TYPE_COUNT &&
             append(out, size, &used, "%s%s%s", i ? ", " : "", value_type_numpy_name(t), dims);
    }
    return ok && append(out, size, &used, ")");
}

bool exercise_numba_form(const struct exercise *e, int k, char *out, size_t size)
{
    const struct exercise_numba *n = &e->kernels[k].numba;
    size_t used = 0;
    bool ok = append(out, size, &used, "%s(", n->name);
    for (int i = 0; ok && i < n->n_params; i++)
        ok = append(out, size, &used, "%s%s", i ? ", " : "", n->params[i].as);
    return ok && append(out, size, &used, ")");
}

bool exercise_numba_host_form(const struct exercise *e, char *out, size_t size)
{
    const struct exercise_numba_host *h = &e->numba_host;
    size_t used = 0;
    bool ok = e->has_numba_host && append(out, size, &used, "%s(", h->function);
    for (int i = 0; ok && i < h->argument_count; i++)
        ok = append(out, size, &used, "%s%s", i ? ", " : "", h->arguments[i]);
    return ok && append(out, size, &used, ")");
}

const char *exercise_numba_name(const struct exercise *e, const char *name)
{
    for (int k = 0; k < e->n_kernels; k++)
        for (int i = 0; e->kernels[k].has_numba && i < e->kernels[k].numba.n_params; i++)
            if (strcmp(e->kernels[k].numba.params[i].name, name) == 0)
                return e->kernels[k].numba.params[i].as;
    return name;
}
