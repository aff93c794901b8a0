/*
 * The inputs at a wrong element: beside the first mismatch's expected and
 * actual values, the value each input buffer holds at the same index, for
 * the inputs indexed like the output (as many elements as it has). A
 * student who reads "x = 1.5, y = -0.25: expected 1.25, got 1.5" sees at
 * once which operand was dropped. The values are the pristine inputs the
 * run started from (the grader restores them before every student run), as
 * text in their own type: "1.5", "-7", "18446744073709551615", never a
 * double's rounding of a 64-bit integer.
 */
#include "grade_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Element `index` of a buffer of `type` at `data`, as text. */
static void element_text(enum value_type type, const void *data, uint64_t index, char *out,
                         size_t size)
{
    const unsigned char *at = (const unsigned char *)data + index * value_type_bytes(type);
    union {
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f32;
        double f64;
    } v;
    memcpy(&v, at, value_type_bytes(type));
    switch (type) {
    case VALUE_I16:
        snprintf(out, size, "%d", v.i16);
        break;
    case VALUE_U16:
        snprintf(out, size, "%u", v.u16);
        break;
    case VALUE_I32:
        snprintf(out, size, "%" PRId32, v.i32);
        break;
    case VALUE_U32:
        snprintf(out, size, "%" PRIu32, v.u32);
        break;
    case VALUE_I64:
        snprintf(out, size, "%" PRId64, v.i64);
        break;
    case VALUE_U64:
        snprintf(out, size, "%" PRIu64, v.u64);
        break;
    case VALUE_F32:
        snprintf(out, size, "%.9g", v.f32);
        break;
    default:
        snprintf(out, size, "%.17g", v.f64);
        break;
    }
}

json_t *mismatch_inputs_json(const struct run *r, const struct run_buffer *output, uint64_t index)
{
    json_t *inputs = json_array();
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        const struct run_buffer *b = &r->buffers[i];
        if (b->spec->is_output || !b->pristine || b->count != output->count || index >= b->count)
            continue;
        char value[64];
        element_text(b->spec->type, b->pristine, index, value, sizeof value);
        json_array_append_new(inputs,
                              json_pack("{s:s, s:s, s:s}", "name", run_buffer_name(r, b), "type",
                                        value_type_name(b->spec->type), "value", value));
    }
    return inputs;
}
