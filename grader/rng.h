/*
 * Internal to grader/: the inputs' random numbers and distributions.
 *
 * Every value is a pure function of (seed, stream, index): the stream names
 * the buffer (its index in the exercise), the index the element. So inputs
 * are the same on every machine, with any number of threads, generated in
 * any order, and `kgrade grade --seed S` reproduces any result exactly. The
 * generator is counter-based (Philox-4x32-10, or splitmix64 of the
 * counter); the distributions use only IEEE-exact arithmetic (+ − × ÷,
 * sqrt), never libm's transcendental functions, whose last bit may differ
 * between C libraries.
 */
#ifndef KGRADE_GRADER_RNG_H
#define KGRADE_GRADER_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value_type.h"

struct rng_key {
    uint64_t seed;
    uint64_t stream;
};

/* The index-th 64 random bits of the stream. */
uint64_t rng_u64(struct rng_key key, uint64_t index);

/* Uniform in [0, 1), 53 bits. */
double rng_unit(struct rng_key key, uint64_t index);

enum input_distribution {
    INPUT_UNIFORM,     /* real, uniform in [a, b) */
    INPUT_UNIFORM_INT, /* integer, uniform in [a, b] (stored in any type, floats too) */
    INPUT_NORMAL,      /* real, normal with mean a and standard deviation b */
    INPUT_CONSTANT,    /* a everywhere */
    INPUT_ARANGE,      /* a + index * b */
    INPUT_ZERO,        /* all bits zero (accumulators) */
    INPUT_POISON,      /* a pattern no correct kernel leaves: 0xFF bytes (NaN for floats) */
};

struct input_spec {
    enum input_distribution distribution;
    double a, b;
};

/* The name of a distribution in exercise.json ("uniform", "uniform_int",
 * "normal", "constant", "arange", "zero", "poison"); false when unknown. */
bool input_distribution_parse(const char *name, enum input_distribution *distribution);

/* Fills `count` elements of `type` at `out`, element i from (key, i),
 * converted to the type (reals rounded to nearest, ties to even; integers
 * clamped to the type's range), using up to `threads` host threads (0: the
 * number of cores). Returns false only for an unknown type or distribution;
 * a thread that cannot be started leaves its chunk to the calling thread. */
bool inputs_generate(void *out, enum value_type type, size_t count, const struct input_spec *spec,
                     struct rng_key key, int threads);

/* For the tests: whether inputs_generate may compute the generator's
 * blocks with AVX-512 (it does where the host has it, by default); returns
 * whether the host has it. The values are the same either way. */
bool rng_wide_blocks(bool wanted);

/* For the tests: the Philox-4x32-10 block function (known-answer vectors)
 * and the libm-free elementary functions the normal distribution uses. */
void rng_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);
double rng_log(double x);
void rng_sincos_turns(double turns, double *sine,
                      double *cosine); /* of 2π·turns, turns in [0, 1) */

#endif
