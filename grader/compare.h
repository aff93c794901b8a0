/*
 * Internal to grader/: judging a kernel's outputs against the reference's,
 * and the guard zones around every buffer.
 *
 * Integers compare exactly. Floats pass when |actual − expected| ≤ atol +
 * rtol·|expected|; a NaN passes only where the reference has a NaN; an
 * infinity only where the reference has the same infinity; +0 and −0 are
 * equal; equal values always match, whatever the tolerance, and an unknown
 * type matches nothing. The result counts the mismatches, keeps the first
 * one (its index: for a 2-D buffer the caller derives row = index / columns
 * and column = index % columns) and the largest error.
 */
#ifndef KGRADE_GRADER_COMPARE_H
#define KGRADE_GRADER_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value_type.h"

struct compare_tolerance {
    double atol;
    double rtol;
};

struct compare_result {
    uint64_t mismatches;
    bool has_first;
    uint64_t first_index;
    double first_expected; /* as doubles (64-bit integers above 2^53 lose bits here only) */
    double first_actual;
    uint64_t first_expected_bits; /* the element's own bytes, zero-extended (i16 −1 is 0xffff) */
    uint64_t first_actual_bits;
    double max_abs_error; /* over finite pairs; 0 for integers that all match */
};

/* Compares `count` elements of `type`. `tolerance` is ignored for integers
 * (and may be NULL: exact comparison for floats too). */
void compare_buffers(const void *expected, const void *actual, enum value_type type, size_t count,
                     const struct compare_tolerance *tolerance, struct compare_result *result);

/* compare_buffers for a part of two buffers, elements [first, first +
 * count), at `expected` and `actual`: adds to `result`, which the first
 * part finds zeroed. The parts in order give compare_buffers' result. */
void compare_buffers_part(const void *expected, const void *actual, enum value_type type,
                          uint64_t first, size_t count, const struct compare_tolerance *tolerance,
                          struct compare_result *result);

/* An element's value from its bits (its bytes, zero-extended), as a
 * double: exact but for 64-bit integers above 2^53. */
double compare_element_value(enum value_type type, uint64_t bits);

/* A scalar output against a known value: |actual − expected| ≤ tolerance
 * (a NaN never passes). */
bool compare_scalar(double actual, double expected, double tolerance);

/* Guard zones: GUARD_BYTES before and after each buffer, inside the same
 * allocation, filled with a pattern a kernel would not write by chance. */
#define GUARD_BYTES 4096

void guard_fill(void *zone, size_t bytes);
/* True when the zone still holds the pattern; otherwise stores the offset
 * of the first changed byte (first_changed may be NULL). */
bool guard_intact(const void *zone, size_t bytes, size_t *first_changed);

#endif
