/*
 * Internal to grader/: the element types of an exercise's buffers and
 * scalars (exercise.json's "i16", "u16", "i32", "u32", "i64", "u64", "f32",
 * "f64").
 */
#ifndef KGRADE_GRADER_VALUE_TYPE_H
#define KGRADE_GRADER_VALUE_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum value_type {
    VALUE_I16,
    VALUE_U16,
    VALUE_I32,
    VALUE_U32,
    VALUE_I64,
    VALUE_U64,
    VALUE_F32,
    VALUE_F64,
    VALUE_TYPE_COUNT
};

static const char *const value_type_names[VALUE_TYPE_COUNT] = {"i16", "u16", "i32", "u32",
                                                               "i64", "u64", "f32", "f64"};

/* numpy's and numba's name of a type: "float32", "int32". */
static inline const char *value_type_numpy_name(enum value_type t)
{
    static const char *const names[VALUE_TYPE_COUNT] = {"int16", "uint16", "int32",   "uint32",
                                                        "int64", "uint64", "float32", "float64"};
    return t < VALUE_TYPE_COUNT ? names[t] : "?";
}

/* The type a name such as "f32" names; false when it names none. */
static inline bool value_type_parse(const char *name, enum value_type *type)
{
    for (int t = 0; t < VALUE_TYPE_COUNT; t++)
        if (strcmp(name, value_type_names[t]) == 0) {
            *type = (enum value_type)t;
            return true;
        }
    return false;
}

static inline const char *value_type_name(enum value_type t)
{
    return t < VALUE_TYPE_COUNT ? value_type_names[t] : "?";
}

static inline size_t value_type_bytes(enum value_type t)
{
    static const size_t bytes[VALUE_TYPE_COUNT] = {2, 2, 4, 4, 8, 8, 4, 8};
    return t < VALUE_TYPE_COUNT ? bytes[t] : 0;
}

static inline bool value_type_is_float(enum value_type t)
{
    return t == VALUE_F32 || t == VALUE_F64;
}

static inline bool value_type_is_signed(enum value_type t)
{
    return t == VALUE_I16 || t == VALUE_I32 || t == VALUE_I64;
}

#endif
