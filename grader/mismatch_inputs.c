/*
 * The values of a wrong element, exact in their own type: the first
 * mismatch's expected and actual values (for its JSON and its sentence) and,
 * beside them, the value each input buffer holds at the same index, for the
 * inputs indexed like the output (as many elements as it has). A student
 * who reads "x = 1.5, y = -0.25: expected 1.25, got 1.5" sees at once which
 * operand was dropped. The inputs are the pristine ones the run started from
 * (the grader restores them before every student run). An integer is never
 * a double's rounding ("15705399", not 1.57054e7; "18446744073709551615").
 */
#include "grade_run.h"

#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The bits of the element at `at` (its bytes, zero-extended). */
static uint64_t element_bits(enum value_type type, const unsigned char *at)
{
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (value_type_bytes(type)) {
    case 2:
        memcpy(&b16, at, sizeof b16);
        return b16;
    case 4:
        memcpy(&b32, at, sizeof b32);
        return b32;
    default:
        memcpy(&b64, at, sizeof b64);
        return b64;
    }
}

/* A signed integer element's value from its bits (sign-extended). */
static int64_t signed_value(enum value_type type, uint64_t bits)
{
    switch (type) {
    case VALUE_I16:
        return (int16_t)bits;
    case VALUE_I32:
        return (int32_t)bits;
    default:
        return (int64_t)bits;
    }
}

/* The text of an integer element; false for a float (out untouched). */
static bool integer_value_text(enum value_type type, uint64_t bits, char *out, size_t size)
{
    if (value_type_is_float(type) || type >= VALUE_TYPE_COUNT)
        return false;
    if (value_type_is_signed(type))
        snprintf(out, size, "%" PRId64, signed_value(type, bits));
    else
        snprintf(out, size, "%" PRIu64, bits);
    return true;
}

/* json_int_t holds every int64_t (jansson's long long or long, 64 bits on
 * the platforms kgrade builds for); a uint64_t above it is written as text. */
_Static_assert(sizeof(json_int_t) >= sizeof(int64_t), "json_int_t narrower than int64_t");

json_t *mismatch_value_json(enum value_type type, uint64_t bits, double value)
{
    char text[MISMATCH_VALUE_TEXT_MAX];
    if (value_type_is_signed(type))
        return json_integer((json_int_t)signed_value(type, bits));
    if (integer_value_text(type, bits, text, sizeof text))
        return bits <= (uint64_t)INT64_MAX ? json_integer((json_int_t)bits) : json_string(text);
    if (isfinite(value))
        return json_real(value);
    snprintf(text, sizeof text, "%g", value); /* JSON has no NaN nor infinity */
    return json_string(text);
}

void mismatch_value_text(enum value_type type, uint64_t bits, double value, char *out, size_t size)
{
    if (!integer_value_text(type, bits, out, size))
        snprintf(out, size, "%.9g", value);
}

/* Element `index` of a buffer of `type` at `data`, as text. */
static void element_text(enum value_type type, const void *data, uint64_t index, char *out,
                         size_t size)
{
    uint64_t bits =
        element_bits(type, (const unsigned char *)data + index * value_type_bytes(type));
    if (!integer_value_text(type, bits, out, size))
        snprintf(out, size, type == VALUE_F32 ? "%.9g" : "%.17g",
                 compare_element_value(type, bits));
}

json_t *mismatch_inputs_json(const struct run *r, const struct run_buffer *output, uint64_t index)
{
    json_t *inputs = json_array();
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        const struct run_buffer *b = &r->buffers[i];
        if (b->spec->is_output || !b->pristine || b->count != output->count || index >= b->count)
            continue;
        char value[MISMATCH_VALUE_TEXT_MAX];
        element_text(b->spec->type, b->pristine, index, value, sizeof value);
        json_array_append_new(inputs,
                              json_pack("{s:s, s:s, s:s}", "name", run_buffer_name(r, b), "type",
                                        value_type_name(b->spec->type), "value", value));
    }
    return inputs;
}
