/*
 * exercise.json → struct exercise, validated (see exercise.h and README.md,
 * "Writing an exercise").
 *
 * Every field is checked where it is read, and every size expression is
 * evaluated for every case (correctness and assessment), so that a grading
 * run never meets a bad length or launch shape. Unknown fields are errors:
 * a misspelt "rtoll" must not silently mean the default.
 */
#include "exercise.h"

#include <ctype.h>
#include <jansson.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXERCISE_FILE  "exercise.json"
#define SIZE_VALUE_MAX (INT64_C(1) << 40)
#define LAUNCH_DIM_MAX (INT64_C(1) << 31)

struct loader {
    const char *file;
    char *error;
    size_t error_size;
    bool failed;
};

static bool fail(struct loader *ld, const char *field, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(struct loader *ld, const char *field, const char *format, ...)
{
    if (ld->failed)
        return false;
    ld->failed = true;
    int n = snprintf(ld->error, ld->error_size, "%s: %s: ", ld->file, field);
    if (n >= 0 && (size_t)n < ld->error_size) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(ld->error + n, ld->error_size - (size_t)n, format, ap);
        va_end(ap);
    }
    return false;
}

/* ------------------------------------------------------------- fields */

static bool is_name(const char *s)
{
    if (!s[0] || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return strlen(s) < EXERCISE_NAME_MAX;
}

/* Refuses keys other than `allowed` (a NULL-terminated list). */
static bool only_keys(struct loader *ld, json_t *object, const char *field,
                      const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        bool known = false;
        for (const char *const *a = allowed; *a; a++)
            known |= strcmp(*a, key) == 0;
        if (!known)
            return fail(ld, field, "unknown field '%s'", key);
    }
    return true;
}

static bool get_text(struct loader *ld, json_t *object, const char *key, const char *field,
                     char *out, size_t size, bool required)
{
    json_t *v = json_object_get(object, key);
    if (!v && !required)
        return true;
    if (!json_is_string(v))
        return fail(ld, field, "'%s' must be a string", key);
    if (json_string_length(v) >= size || json_string_length(v) == 0)
        return fail(ld, field, "'%s' must be 1 to %zu characters", key, size - 1);
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return true;
}

static bool get_name(struct loader *ld, json_t *object, const char *key, const char *field,
                     char *out)
{
    if (!get_text(ld, object, key, field, out, EXERCISE_NAME_MAX, true))
        return false;
    return is_name(out) ? true : fail(ld, field, "'%s' must be a C identifier, not '%s'", key, out);
}

static bool get_number(struct loader *ld, json_t *object, const char *key, const char *field,
                       double *out, bool required)
{
    json_t *v = json_object_get(object, key);
    if (!v && !required)
        return true;
    if (!json_is_number(v))
        return fail(ld, field, "'%s' must be a number", key);
    *out = json_number_value(v);
    return true;
}

static json_t *get_array(struct loader *ld, json_t *object, const char *key, const char *field,
                         size_t max)
{
    json_t *v = json_object_get(object, key);
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > max) {
        fail(ld, field, "'%s' must be an array of 1 to %zu elements", key, max);
        return NULL;
    }
    return v;
}

/* ------------------------------------------------------------- sizes */

static int size_index(const struct exercise *e, const char *name)
{
    for (int i = 0; i < e->n_sizes; i++)
        if (strcmp(e->sizes[i], name) == 0)
            return i;
    return -1;
}

static bool parse_sizes(struct loader *ld, json_t *root, struct exercise *e)
{
    json_t *sizes = get_array(ld, root, "sizes", "sizes", EXERCISE_SIZES_MAX);
    if (!sizes)
        return false;
    size_t i;
    json_t *v;
    json_array_foreach(sizes, i, v)
    {
        char field[64];
        snprintf(field, sizeof field, "sizes[%zu]", i);
        if (!json_is_string(v) || !is_name(json_string_value(v)))
            return fail(ld, field, "a size is named by a C identifier, such as \"n\"");
        if (size_index(e, json_string_value(v)) >= 0)
            return fail(ld, field, "'%s' is named twice", json_string_value(v));
        snprintf(e->sizes[e->n_sizes++], EXERCISE_NAME_MAX, "%s", json_string_value(v));
    }
    return true;
}

static bool parse_case(struct loader *ld, json_t *object, const char *field,
                       const struct exercise *e, struct exercise_case *c)
{
    if (!json_is_object(object))
        return fail(ld, field, "must be an object giving every size, such as {\"n\": 1000}");
    if (json_object_size(object) != (size_t)e->n_sizes)
        return fail(ld, field, "must give exactly the sizes (%d of them)", e->n_sizes);
    for (int i = 0; i < e->n_sizes; i++) {
        json_t *v = json_object_get(object, e->sizes[i]);
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > SIZE_VALUE_MAX)
            return fail(ld, field, "'%s' must be a whole number from 1 to 2^40", e->sizes[i]);
        c->values[i] = json_integer_value(v);
    }
    return true;
}

static bool parse_cases(struct loader *ld, json_t *root, struct exercise *e)
{
    json_t *cases = get_array(ld, root, "correctness", "correctness", EXERCISE_CASES_MAX);
    if (!cases)
        return false;
    size_t i;
    json_t *v;
    json_array_foreach(cases, i, v)
    {
        char field[64];
        snprintf(field, sizeof field, "correctness[%zu]", i);
        if (!parse_case(ld, v, field, e, &e->cases[e->n_cases++]))
            return false;
    }
    return parse_case(ld, json_object_get(root, "assessed"), "assessed", e, &e->assessed);
}

void exercise_env(const struct exercise *e, const struct exercise_case *c,
                  struct expr_binding bindings[EXERCISE_SIZES_MAX], struct expr_env *env)
{
    for (int i = 0; i < e->n_sizes; i++)
        bindings[i] = (struct expr_binding){e->sizes[i], c->values[i]};
    env->bindings = bindings;
    env->count = (size_t)e->n_sizes;
}

/* The expression must give a value in [min, max] for every case. */
static bool check_expression(struct loader *ld, const struct exercise *e, const char *field,
                             const char *text, int64_t min, int64_t max)
{
    for (int k = 0; k <= e->n_cases; k++) {
        const struct exercise_case *c = k < e->n_cases ? &e->cases[k] : &e->assessed;
        struct expr_binding b[EXERCISE_SIZES_MAX];
        struct expr_env env;
        exercise_env(e, c, b, &env);
        int64_t v;
        char why[256];
        if (!expr_eval(text, &env, &v, why, sizeof why))
            return fail(ld, field, "'%s': %s", text, why);
        if (v < min || v > max)
            return fail(ld, field,
                        "'%s' is %lld for the sizes of %s %d; it must be from %lld to %lld", text,
                        (long long)v, k < e->n_cases ? "correctness case" : "the assessment",
                        k < e->n_cases ? k : 0, (long long)min, (long long)max);
    }
    return true;
}

static bool get_expression(struct loader *ld, const struct exercise *e, json_t *object,
                           const char *key, const char *field, char *out, int64_t min, int64_t max)
{
    json_t *v = json_object_get(object, key);
    if (json_is_integer(v))
        snprintf(out, EXERCISE_TEXT_MAX, "%lld", (long long)json_integer_value(v));
    else if (!get_text(ld, object, key, field, out, EXERCISE_TEXT_MAX, true))
        return false;
    return check_expression(ld, e, field, out, min, max);
}

/* ----------------------------------------------------------- buffers */

int exercise_buffer_index(const struct exercise *e, const char *name)
{
    for (int i = 0; i < e->n_buffers; i++)
        if (strcmp(e->buffers[i].name, name) == 0)
            return i;
    return -1;
}

int exercise_scalar_index(const struct exercise *e, const char *name)
{
    for (int i = 0; i < e->n_scalars; i++)
        if (strcmp(e->scalars[i].name, name) == 0)
            return i;
    return -1;
}

static bool get_type(struct loader *ld, json_t *object, const char *field, enum value_type *type)
{
    char name[EXERCISE_NAME_MAX];
    if (!get_text(ld, object, "type", field, name, sizeof name, true))
        return false;
    if (!value_type_parse(name, type))
        return fail(ld, field, "'%s' is not a type (use i16, u16, i32, u32, i64, u64, f32 or f64)",
                    name);
    return true;
}

static bool parse_input(struct loader *ld, json_t *input, const char *field,
                        struct exercise_buffer *b)
{
    static const char *const keys[] = {"distribution", "a", "b", NULL};
    char name[EXERCISE_NAME_MAX];
    if (!json_is_object(input))
        return fail(ld, field,
                    "'input' must be an object such as {\"distribution\": \"uniform\", "
                    "\"a\": 0, \"b\": 1}");
    if (!only_keys(ld, input, field, keys) ||
        !get_text(ld, input, "distribution", field, name, sizeof name, true))
        return false;
    if (!input_distribution_parse(name, &b->content.distribution))
        return fail(ld, field,
                    "'%s' is not a distribution (use uniform, uniform_int, normal, constant, "
                    "arange, zero or poison)",
                    name);
    enum input_distribution d = b->content.distribution;
    bool needs_a = d != INPUT_ZERO && d != INPUT_POISON, needs_b = needs_a && d != INPUT_CONSTANT;
    if (!get_number(ld, input, "a", field, &b->content.a, needs_a) ||
        !get_number(ld, input, "b", field, &b->content.b, needs_b))
        return false;
    if ((d == INPUT_UNIFORM || d == INPUT_UNIFORM_INT) && !(b->content.a < b->content.b))
        return fail(ld, field, "a uniform distribution needs a < b");
    if (d == INPUT_NORMAL && !(b->content.b > 0))
        return fail(ld, field, "a normal distribution needs a standard deviation b > 0");
    return true;
}

static bool parse_check(struct loader *ld, json_t *check, const char *field,
                        struct exercise_check *c)
{
    static const char *const keys[] = {"atol", "rtol", "value", "tolerance", NULL};
    if (json_is_string(check) && strcmp(json_string_value(check), "exact") == 0) {
        c->kind = CHECK_EXACT;
        return true;
    }
    if (!json_is_object(check) || !only_keys(ld, check, field, keys))
        return fail(ld, field,
                    "'check' is \"exact\", {\"rtol\": …, \"atol\": …} or "
                    "{\"value\": …, \"tolerance\": …}");
    if (json_object_get(check, "value")) {
        c->kind = CHECK_SCALAR;
        return get_number(ld, check, "value", field, &c->value, true) &&
               get_number(ld, check, "tolerance", field, &c->tolerance, true);
    }
    c->kind = CHECK_TOLERANCE;
    if (!get_number(ld, check, "rtol", field, &c->rtol, false) ||
        !get_number(ld, check, "atol", field, &c->atol, false))
        return false;
    if (c->rtol < 0 || c->atol < 0 || (c->rtol == 0 && c->atol == 0))
        return fail(ld, field, "tolerances are non-negative and not both 0 (use \"exact\")");
    return true;
}

static bool parse_output(struct loader *ld, json_t *output, const char *field,
                         struct exercise_buffer *b)
{
    static const char *const keys[] = {"initial", "check", NULL};
    char initial[EXERCISE_NAME_MAX] = "poison";
    if (!json_is_object(output) || !only_keys(ld, output, field, keys) ||
        !get_text(ld, output, "initial", field, initial, sizeof initial, false))
        return ld->failed ? false : fail(ld, field, "'output' must be an object");
    if (strcmp(initial, "poison") != 0 && strcmp(initial, "zero") != 0)
        return fail(ld, field, "'initial' is \"poison\" or \"zero\", not '%s'", initial);
    b->is_output = true;
    b->content.distribution = initial[0] == 'z' ? INPUT_ZERO : INPUT_POISON;
    return parse_check(ld, json_object_get(output, "check"), field, &b->check);
}

static bool parse_buffer(struct loader *ld, struct exercise *e, json_t *v, const char *field)
{
    static const char *const keys[] = {"name",   "type",    "length", "input",
                                       "output", "columns", NULL};
    struct exercise_buffer *b = &e->buffers[e->n_buffers];
    memset(b, 0, sizeof *b);
    if (!json_is_object(v))
        return fail(ld, field, "a buffer is an object");
    if (!only_keys(ld, v, field, keys) || !get_name(ld, v, "name", field, b->name) ||
        !get_type(ld, v, field, &b->type))
        return false;
    if (exercise_buffer_index(e, b->name) >= 0 || size_index(e, b->name) >= 0)
        return fail(ld, field, "'%s' is already a name", b->name);
    int64_t max_elements = (INT64_C(1) << 36) / (int64_t)value_type_bytes(b->type);
    if (!get_expression(ld, e, v, "length", field, b->length, 1, max_elements))
        return false;
    json_t *input = json_object_get(v, "input"), *output = json_object_get(v, "output");
    if ((input != NULL) == (output != NULL))
        return fail(ld, field, "a buffer has exactly one of 'input' and 'output'");
    if (input ? !parse_input(ld, input, field, b) : !parse_output(ld, output, field, b))
        return false;
    if (json_object_get(v, "columns") &&
        !get_expression(ld, e, v, "columns", field, b->columns, 1, max_elements))
        return false;
    e->n_buffers++;
    return true;
}

static bool parse_buffers(struct loader *ld, json_t *root, struct exercise *e)
{
    json_t *buffers = get_array(ld, root, "buffers", "buffers", EXERCISE_BUFFERS_MAX);
    size_t i;
    json_t *v;
    bool outputs = false;
    if (!buffers)
        return false;
    json_array_foreach(buffers, i, v)
    {
        char field[64];
        snprintf(field, sizeof field, "buffers[%zu]", i);
        if (!parse_buffer(ld, e, v, field))
            return false;
        outputs |= e->buffers[e->n_buffers - 1].is_output;
    }
    return outputs ? true : fail(ld, "buffers", "no buffer is an output: nothing would be judged");
}

/* ----------------------------------------------------------- scalars */

static bool parse_scalar(struct loader *ld, struct exercise *e, json_t *v, const char *field)
{
    static const char *const keys[] = {"name", "type", "value", NULL};
    struct exercise_scalar *s = &e->scalars[e->n_scalars];
    if (!json_is_object(v) || !only_keys(ld, v, field, keys) ||
        !get_name(ld, v, "name", field, s->name) || !get_type(ld, v, field, &s->type))
        return ld->failed ? false : fail(ld, field, "a scalar is an object");
    if (exercise_buffer_index(e, s->name) >= 0 || exercise_scalar_index(e, s->name) >= 0)
        return fail(ld, field, "'%s' is already a name", s->name);
    json_t *value = json_object_get(v, "value");
    if (value_type_is_float(s->type) && json_is_number(value)) {
        snprintf(s->value, sizeof s->value, "%.17g", json_number_value(value));
    } else if (!get_expression(ld, e, v, "value", field, s->value, INT64_MIN + 1, INT64_MAX)) {
        return false;
    }
    e->n_scalars++;
    return true;
}

static bool parse_scalars(struct loader *ld, json_t *root, struct exercise *e)
{
    json_t *scalars = json_object_get(root, "scalars");
    if (!scalars)
        return true;
    if (!json_is_array(scalars) || json_array_size(scalars) > EXERCISE_SCALARS_MAX)
        return fail(ld, "scalars", "must be an array of at most %d scalars", EXERCISE_SCALARS_MAX);
    size_t i;
    json_t *v;
    json_array_foreach(scalars, i, v)
    {
        char field[64];
        snprintf(field, sizeof field, "scalars[%zu]", i);
        if (!parse_scalar(ld, e, v, field))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------ kernels */

/* The product of the shape's sizes is the buffer's length in every case. */
static bool shape_fits(struct loader *ld, const struct exercise *e,
                       const struct exercise_numba_param *p, const struct exercise_buffer *b,
                       const char *field)
{
    for (int k = 0; k <= e->n_cases; k++) {
        struct expr_binding bindings[EXERCISE_SIZES_MAX];
        struct expr_env env;
        exercise_env(e, k < e->n_cases ? &e->cases[k] : &e->assessed, bindings, &env);
        int64_t length, product = 1, dim;
        char why[256];
        if (!expr_eval(b->length, &env, &length, why, sizeof why))
            return fail(ld, field, "'%s': %s", b->length, why);
        for (int d = 0; d < p->n_dims; d++) {
            if (!expr_eval(p->shape[d], &env, &dim, why, sizeof why))
                return fail(ld, field, "'%s': %s", p->shape[d], why);
            product *= dim;
        }
        if (product != length)
            return fail(ld, field, "the shape of '%s' has %lld elements, its buffer %lld", p->name,
                        (long long)product, (long long)length);
    }
    return true;
}

/* A Numba parameter: "name", or {"name", "as", "shape": [rows, cols]}. */
static bool parse_numba_param(struct loader *ld, const struct exercise *e, json_t *v,
                              const char *field, struct exercise_numba_param *p)
{
    static const char *const keys[] = {"name", "as", "shape", NULL};
    json_t *name = json_is_string(v) ? v : json_object_get(v, "name");
    if (!json_is_string(name) || (json_is_object(v) && !only_keys(ld, v, field, keys)))
        return ld->failed ? false : fail(ld, field, "a Numba parameter is a name or an object");
    snprintf(p->name, sizeof p->name, "%s", json_string_value(name));
    memcpy(p->as, p->name, sizeof p->as); /* both EXERCISE_NAME_MAX, NUL-terminated */
    if (json_is_object(v) && json_object_get(v, "as") && !get_name(ld, v, "as", field, p->as))
        return false;
    int buffer = exercise_buffer_index(e, p->name);
    if (buffer < 0 && exercise_scalar_index(e, p->name) < 0)
        return fail(ld, field, "'%s' names no buffer or scalar", p->name);
    if (buffer < 0)
        return json_is_object(v) && json_object_get(v, "shape")
                   ? fail(ld, field, "a scalar has no shape")
                   : true;
    json_t *shape = json_is_object(v) ? json_object_get(v, "shape") : NULL;
    if (!shape) {
        p->n_dims = 1;
        memcpy(p->shape[0], e->buffers[buffer].length, EXERCISE_TEXT_MAX);
        return true;
    }
    if (!json_is_array(shape) || json_array_size(shape) < 1 || json_array_size(shape) > 2)
        return fail(ld, field, "'shape' must be an array of 1 or 2 size expressions");
    for (size_t d = 0; d < json_array_size(shape); d++) {
        json_t *holder = json_pack("{s:O}", "dim", json_array_get(shape, d));
        bool ok =
            holder && get_expression(ld, e, holder, "dim", field, p->shape[d], 1, SIZE_VALUE_MAX);
        json_decref(holder);
        if (!ok)
            return false;
        p->n_dims++;
    }
    return shape_fits(ld, e, p, &e->buffers[buffer], field);
}

/* "numba": {"name": ..., "params": [...]} of a kernel. */
static bool parse_numba(struct loader *ld, const struct exercise *e, json_t *v, const char *field,
                        struct exercise_numba *n)
{
    static const char *const keys[] = {"name", "params", NULL};
    char where[96];
    snprintf(where, sizeof where, "%s.numba", field);
    if (!json_is_object(v) || !only_keys(ld, v, where, keys) ||
        !get_name(ld, v, "name", where, n->name))
        return ld->failed ? false : fail(ld, where, "must be an object with a name and params");
    json_t *params = json_object_get(v, "params");
    if (!json_is_array(params) || json_array_size(params) > EXERCISE_PARAMS_MAX)
        return fail(ld, where, "'params' must be an array of at most %d parameters",
                    EXERCISE_PARAMS_MAX);
    size_t i;
    json_t *p;
    json_array_foreach(params, i, p)
    {
        char at[128];
        snprintf(at, sizeof at, "%s.params[%zu]", where, i);
        if (!parse_numba_param(ld, e, p, at, &n->params[n->n_params++]))
            return false;
    }
    return true;
}

static bool parse_kernel(struct loader *ld, struct exercise *e, json_t *v, const char *field)
{
    static const char *const keys[] = {"name", "params", "signature", "numba", "alternative", NULL};
    struct exercise_kernel *k = &e->kernels[e->n_kernels];
    if (!json_is_object(v) || !only_keys(ld, v, field, keys) ||
        !get_name(ld, v, "name", field, k->name) ||
        (json_object_get(v, "alternative") &&
         !get_name(ld, v, "alternative", field, k->alternative)) ||
        !get_text(ld, v, "signature", field, k->signature, sizeof k->signature, false))
        return ld->failed ? false : fail(ld, field, "a kernel is an object");
    if (strcmp(k->alternative, k->name) == 0)
        return fail(ld, field, "'alternative' names another kernel of reference.cu than '%s'",
                    k->name);
    json_t *params = json_object_get(v, "params");
    if (!json_is_array(params) || json_array_size(params) > EXERCISE_PARAMS_MAX)
        return fail(ld, field, "'params' must be an array of at most %d names",
                    EXERCISE_PARAMS_MAX);
    size_t i;
    json_t *p;
    json_array_foreach(params, i, p)
    {
        const char *name = json_string_value(p);
        if (!name || (exercise_buffer_index(e, name) < 0 && exercise_scalar_index(e, name) < 0))
            return fail(ld, field, "params[%zu] must name a buffer or a scalar", i);
        snprintf(k->params[k->n_params++], EXERCISE_NAME_MAX, "%s", name);
    }
    json_t *numba = json_object_get(v, "numba");
    k->has_numba = numba != NULL;
    if (numba && !parse_numba(ld, e, numba, field, &k->numba))
        return false;
    e->n_kernels++;
    return true;
}

bool exercise_has_alternative(const struct exercise *exercise)
{
    for (int k = 0; k < exercise->n_kernels; k++)
        if (exercise->kernels[k].alternative[0])
            return true;
    return false;
}

static int kernel_index(const struct exercise *e, const char *name)
{
    for (int i = 0; name && i < e->n_kernels; i++)
        if (strcmp(e->kernels[i].name, name) == 0)
            return i;
    return -1;
}

static bool parse_kernels(struct loader *ld, json_t *root, struct exercise *e)
{
    json_t *kernels = get_array(ld, root, "kernels", "kernels", EXERCISE_KERNELS_MAX);
    size_t i;
    json_t *v;
    if (!kernels)
        return false;
    json_array_foreach(kernels, i, v)
    {
        char field[64];
        snprintf(field, sizeof field, "kernels[%zu]", i);
        if (!parse_kernel(ld, e, v, field))
            return false;
    }
    return true;
}

/* ----------------------------------------------------------- launches */

static bool parse_dims(struct loader *ld, const struct exercise *e, json_t *v, const char *key,
                       const char *field, char dims[3][EXERCISE_TEXT_MAX])
{
    json_t *array = get_array(ld, v, key, field, 3);
    if (!array)
        return false;
    for (size_t d = 0; d < 3; d++) {
        json_t *holder = json_object();
        json_t *item = d < json_array_size(array) ? json_array_get(array, d) : json_integer(1);
        json_object_set(holder, key, item);
        if (d >= json_array_size(array))
            json_decref(item);
        bool ok = get_expression(ld, e, holder, key, field, dims[d], 1, LAUNCH_DIM_MAX - 1);
        json_decref(holder);
        if (!ok)
            return false;
    }
    return true;
}

static bool parse_swap(struct loader *ld, const struct exercise *e, json_t *swap, const char *field,
                       struct exercise_launch *l)
{
    l->swap[0] = l->swap[1] = -1;
    if (!swap)
        return true;
    if (!json_is_array(swap) || json_array_size(swap) != 2)
        return fail(ld, field, "'swap' names two buffers");
    for (int i = 0; i < 2; i++)
        l->swap[i] =
            exercise_buffer_index(e, json_string_value(json_array_get(swap, (size_t)i)) ?: "");
    if (l->swap[0] < 0 || l->swap[1] < 0 || l->swap[0] == l->swap[1])
        return fail(ld, field, "'swap' names two different buffers");
    const struct exercise_buffer *a = &e->buffers[l->swap[0]], *b = &e->buffers[l->swap[1]];
    if (a->type != b->type || strcmp(a->length, b->length) != 0)
        return fail(ld, field, "swapped buffers have the same type and length");
    return true;
}

static bool parse_launch(struct loader *ld, struct exercise *e, json_t *v, const char *field)
{
    static const char *const keys[] = {"kernel", "grid", "block", "repeat", "swap", NULL};
    struct exercise_launch *l = &e->launches[e->n_launches];
    if (!json_is_object(v) || !only_keys(ld, v, field, keys))
        return ld->failed ? false : fail(ld, field, "a launch is an object");
    l->kernel = kernel_index(e, json_string_value(json_object_get(v, "kernel")));
    if (l->kernel < 0)
        return fail(ld, field, "'kernel' must name one of the kernels");
    if (!parse_dims(ld, e, v, "grid", field, l->grid) ||
        !parse_dims(ld, e, v, "block", field, l->block))
        return false;
    snprintf(l->repeat, sizeof l->repeat, "1");
    if (json_object_get(v, "repeat") &&
        !get_expression(ld, e, v, "repeat", field, l->repeat, 1, 1000000))
        return false;
    if (!parse_swap(ld, e, json_object_get(v, "swap"), field, l))
        return false;
    e->n_launches++;
    return true;
}

static bool parse_launches(struct loader *ld, json_t *root, struct exercise *e)
{
    json_t *launches = get_array(ld, root, "launches", "launches", EXERCISE_LAUNCHES_MAX);
    size_t i;
    json_t *v;
    if (!launches)
        return false;
    json_array_foreach(launches, i, v)
    {
        char field[64];
        snprintf(field, sizeof field, "launches[%zu]", i);
        if (!parse_launch(ld, e, v, field))
            return false;
    }
    return true;
}

/* ------------------------------------------------------ the host form */

enum exercise_host_argument exercise_host_argument(const struct exercise *e, int i, int *index)
{
    const char *name = e->numba_host.arguments[i];
    if ((*index = size_index(e, name)) >= 0)
        return HOST_ARGUMENT_SIZE;
    if ((*index = exercise_buffer_index(e, name)) >= 0)
        return HOST_ARGUMENT_BUFFER;
    return HOST_ARGUMENT_MODULE;
}

/* A Python identifier of the host form, at `field`. */
static bool get_python_name(struct loader *ld, json_t *v, const char *field, char *out)
{
    const char *text = json_string_value(v);
    if (!text || !is_name(text))
        return fail(ld, field, "must be a Python identifier (letters, digits, '_'; at most %d)",
                    EXERCISE_NAME_MAX - 1);
    snprintf(out, EXERCISE_NAME_MAX, "%s", text);
    return true;
}

/* Argument i: a size, an input buffer, or a name of the module's; never
 * an output (which the function returns) or a scalar (which has no place
 * in a Python call: pass the size it is made of). */
static bool parse_host_argument(struct loader *ld, struct exercise *e, json_t *v, size_t i)
{
    struct exercise_numba_host *h = &e->numba_host;
    char field[64];
    snprintf(field, sizeof field, "numba_host.arguments[%zu]", i);
    if (!get_python_name(ld, v, field, h->arguments[i]))
        return false;
    const char *name = h->arguments[i];
    for (size_t j = 0; j < i; j++)
        if (strcmp(h->arguments[j], name) == 0)
            return fail(ld, field, "'%s' is passed twice", name);
    int buffer = exercise_buffer_index(e, name);
    if (buffer >= 0 && e->buffers[buffer].is_output)
        return fail(ld, field,
                    "'%s' is an output buffer: the function returns it (name it in 'returns')",
                    name);
    if (exercise_scalar_index(e, name) >= 0)
        return fail(ld, field, "'%s' is a scalar: pass a size or an input buffer", name);
    h->argument_count++;
    return true;
}

/* "numba_host": {"function", "arguments": [...], "returns"}, optional. */
static bool parse_numba_host(struct loader *ld, json_t *root, struct exercise *e)
{
    static const char *const keys[] = {"function", "arguments", "returns", NULL};
    json_t *v = json_object_get(root, "numba_host");
    if (!v)
        return true;
    if (!json_is_object(v) || !only_keys(ld, v, "numba_host", keys))
        return ld->failed ? false
                          : fail(ld, "numba_host",
                                 "must be {\"function\", \"arguments\": [...], \"returns\"}");
    struct exercise_numba_host *h = &e->numba_host;
    if (!get_python_name(ld, json_object_get(v, "function"), "numba_host.function", h->function))
        return false;
    json_t *arguments = json_object_get(v, "arguments");
    if (!json_is_array(arguments) || json_array_size(arguments) > EXERCISE_PARAMS_MAX)
        return fail(ld, "numba_host", "'arguments' must be an array of at most %d names",
                    EXERCISE_PARAMS_MAX);
    size_t i;
    json_t *a;
    json_array_foreach(arguments, i, a) if (!parse_host_argument(ld, e, a, i)) return false;
    if (!get_python_name(ld, json_object_get(v, "returns"), "numba_host.returns", h->returns))
        return false;
    int out = exercise_buffer_index(e, h->returns);
    if (out < 0 || !e->buffers[out].is_output)
        return fail(ld, "numba_host.returns", "'%s' names no output buffer", h->returns);
    e->has_numba_host = true;
    return true;
}

/* --------------------------------------------------------------- whole */

static bool parse_header(struct loader *ld, json_t *root, struct exercise *e)
{
    static const char *const keys[] = {
        "id",       "title",   "course",   "assessment", "sizes",    "correctness",
        "assessed", "buffers", "scalars",  "kernels",    "launches", "speed",
        "limits",   "opens",   "deadline", "numba_host", NULL};
    if (!json_is_object(root))
        return fail(ld, "(top)", "an exercise is a JSON object");
    if (!only_keys(ld, root, "(top)", keys) ||
        !get_text(ld, root, "id", "id", e->id, sizeof e->id, true) ||
        !get_text(ld, root, "title", "title", e->title, sizeof e->title, true) ||
        !get_text(ld, root, "course", "course", e->course, sizeof e->course, false))
        return false;
    for (const char *p = e->id; *p; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
            return fail(ld, "id", "'%s' may hold lowercase letters, digits and '-' only", e->id);
    json_t *assessment = json_object_get(root, "assessment");
    if (assessment && !json_is_boolean(assessment))
        return fail(ld, "assessment", "must be true or false");
    e->assessment = json_is_true(assessment);
    const char *key;
    char why[256];
    return grader_dates_read(root, &e->dates, &key, why, sizeof why) ? true
                                                                     : fail(ld, key, "%s", why);
}

static bool parse_speed(struct loader *ld, json_t *root, struct exercise *e)
{
    static const char *const keys[] = {"max_ratio", NULL};
    json_t *speed = json_object_get(root, "speed");
    if (!json_is_object(speed) || !only_keys(ld, speed, "speed", keys) ||
        !get_number(ld, speed, "max_ratio", "speed", &e->max_ratio, true))
        return ld->failed ? false : fail(ld, "speed", "must be {\"max_ratio\": …}");
    return e->max_ratio >= 1.0
               ? true
               : fail(ld, "speed", "'max_ratio' is at least 1 (the reference's pace)");
}

/* One optional limit in (low, high]. */
static bool get_limit(struct loader *ld, json_t *limits, const char *key, double low, double high,
                      double *out)
{
    if (!get_number(ld, limits, key, "limits", out, false))
        return false;
    if (*out != 0 && (*out <= low || *out > high))
        return fail(ld, "limits", "'%s' must be more than %g and at most %g", key, low, high);
    return true;
}

/* "limits": the sandbox's limits for this exercise's jobs, each optional. */
static bool parse_limits(struct loader *ld, json_t *root, struct exercise *e)
{
    static const char *const keys[] = {"compile_seconds", "run_seconds", "memory_mb", NULL};
    json_t *limits = json_object_get(root, "limits");
    if (!limits)
        return true;
    if (!json_is_object(limits) || !only_keys(ld, limits, "limits", keys))
        return ld->failed ? false
                          : fail(ld, "limits",
                                 "must be {\"compile_seconds\", \"run_seconds\", \"memory_mb\"}");
    return get_limit(ld, limits, "compile_seconds", 0, 600, &e->limits.compile_seconds) &&
           get_limit(ld, limits, "run_seconds", 0, 3600, &e->limits.run_seconds) &&
           get_limit(ld, limits, "memory_mb", 63, 1024 * 1024, &e->limits.memory_mb);
}

bool exercise_parse(const char *text, size_t length, const char *file, struct exercise *e,
                    char *error, size_t error_size)
{
    struct loader ld = {file, error, error_size, false};
    memset(e, 0, sizeof *e);
    json_error_t jerror;
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &jerror);
    if (!root) {
        snprintf(error, error_size, "%s: line %d, column %d: %s", file, jerror.line, jerror.column,
                 jerror.text);
        return false;
    }
    bool ok = parse_header(&ld, root, e) && parse_sizes(&ld, root, e) &&
              parse_cases(&ld, root, e) && parse_buffers(&ld, root, e) &&
              parse_scalars(&ld, root, e) && parse_kernels(&ld, root, e) &&
              parse_launches(&ld, root, e) && parse_speed(&ld, root, e) &&
              parse_limits(&ld, root, e) && parse_numba_host(&ld, root, e);
    json_decref(root);
    return ok;
}

bool exercise_load(const char *folder, struct exercise *e, char *error, size_t error_size)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", folder, EXERCISE_FILE);
    size_t n;
    char *text = exercise_file_read(path, EXERCISE_DEFINITION_MAX, &n, error, error_size);
    bool ok = text && exercise_parse(text, n, path, e, error, error_size);
    free(text);
    if (!ok)
        return false;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", folder);
    if (strcmp(basename(copy), e->id) != 0) {
        snprintf(error, error_size, "%s: id: '%s' must be the folder's name", path, e->id);
        return false;
    }
    snprintf(e->folder, sizeof e->folder, "%s", folder);
    return true;
}
