/*
 * The student's kernel against the parameter list the exercise expects.
 *
 * Two checks, both before anything runs: the PTX entry must take as many
 * parameters as the exercise lists, each of the right size (8 bytes for a
 * buffer's pointer, the scalar's size otherwise); and when the kernel has
 * C++ linkage its demangled name also gives the types, which must match
 * (a buffer of f32 is `float*` or `float const*`, an i32 scalar `int`, …).
 * A mismatch rejects the source with both signatures in the message.
 */
#include "signature.h"

#include "compile_output.h"
#include "text_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POINTER_BYTES 8

/* The C++ spellings the demangler gives for each element type. */
static const char *const cxx_names[VALUE_TYPE_COUNT][2] = {
    [VALUE_I16] = {"short", NULL},       [VALUE_U16] = {"unsigned short", NULL},
    [VALUE_I32] = {"int", NULL},         [VALUE_U32] = {"unsigned int", NULL},
    [VALUE_I64] = {"long", "long long"}, [VALUE_U64] = {"unsigned long", "unsigned long long"},
    [VALUE_F32] = {"float", NULL},       [VALUE_F64] = {"double", NULL},
};

/* The parameter sizes of `.entry entry(...)` in the PTX; -1 when absent. */
static int entry_param_sizes(const char *ptx, const char *entry, unsigned sizes[], int max)
{
    char head[EXERCISE_NAME_MAX * 4];
    snprintf(head, sizeof head, ".entry %s(", entry);
    const char *p = strstr(ptx, head);
    if (!p)
        return -1;
    p += strlen(head);
    const char *end = strchr(p, ')');
    int n = 0;
    while (p && end && p < end && n < max) {
        const char *param = strstr(p, ".param");
        if (!param || param > end)
            break;
        const char *type = param + strlen(".param");
        while (*type == ' ' || *type == '\t')
            type++;
        unsigned bits = 0;
        if (type[0] == '.' &&
            (type[1] == 'u' || type[1] == 's' || type[1] == 'b' || type[1] == 'f'))
            bits = (unsigned)atoi(type + 2);
        const char *array = strchr(type, '[');
        const char *comma = strchr(type, ',');
        if (array && (!comma || array < comma) && array < end) /* .align A .b8 name[N] */
            sizes[n++] = (unsigned)atoi(array + 1);
        else
            sizes[n++] = bits / 8;
        p = type;
    }
    return n;
}

static bool is_buffer(const struct exercise *e, const char *name, enum value_type *type)
{
    for (int i = 0; i < e->n_buffers; i++)
        if (strcmp(e->buffers[i].name, name) == 0) {
            *type = e->buffers[i].type;
            return true;
        }
    for (int i = 0; i < e->n_scalars; i++)
        if (strcmp(e->scalars[i].name, name) == 0) {
            *type = e->scalars[i].type;
            return false;
        }
    *type = VALUE_I32;
    return false;
}

/* One demangled parameter type ("float const*") against what is expected. */
static bool type_matches(const char *text, size_t len, enum value_type type, bool pointer)
{
    char t[64];
    if (len >= sizeof t)
        return false;
    memcpy(t, text, len);
    t[len] = '\0';
    bool has_star = len > 0 && t[len - 1] == '*';
    if (has_star != pointer)
        return false;
    if (has_star)
        t[--len] = '\0';
    char *konst = strstr(t, " const");
    if (konst && pointer)
        *konst = '\0'; /* const float* is fine for any buffer */
    for (int k = 0; k < 2; k++)
        if (cxx_names[type][k] && strcmp(t, cxx_names[type][k]) == 0)
            return true;
    return false;
}

/* The demangled parameter list "(float const*, int)" against the exercise. */
static bool demangled_matches(const char *signature, const struct exercise *e,
                              const struct exercise_kernel *k)
{
    const char *open = strchr(signature, '('), *close = strrchr(signature, ')');
    if (!open || !close)
        return true; /* extern "C": no types to read */
    const char *p = open + 1;
    for (int i = 0; i < k->n_params; i++) {
        while (*p == ' ')
            p++;
        const char *end = p;
        while (end < close && *end != ',')
            end++;
        enum value_type type;
        bool pointer = is_buffer(e, k->params[i], &type);
        if (!type_matches(p, (size_t)(end - p), type, pointer))
            return false;
        p = end + 1;
    }
    return p >= close;
}

bool signature_check(const struct exercise *e, int kernel, const char *ptx, const char *entry,
                     char why[GRADER_MESSAGE_MAX])
{
    const struct exercise_kernel *k = &e->kernels[kernel];
    unsigned sizes[EXERCISE_PARAMS_MAX + 1];
    int n = entry_param_sizes(ptx, entry, sizes, EXERCISE_PARAMS_MAX + 1);
    char *demangled = grader_demangle(entry);
    const char *shown = demangled ? demangled : entry;
    bool ok = n == k->n_params;
    for (int i = 0; ok && i < n; i++) {
        enum value_type type;
        bool pointer = is_buffer(e, k->params[i], &type);
        ok = sizes[i] == (pointer ? POINTER_BYTES : value_type_bytes(type));
    }
    ok = ok && (!demangled || demangled_matches(demangled, e, k));
    if (!ok)
        snprintf(why, GRADER_MESSAGE_MAX,
                 "the kernel %s does not take what the exercise passes: %s", shown,
                 k->signature[0] ? k->signature : "see the statement");
    free(demangled);
    return ok;
}
