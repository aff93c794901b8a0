/*
 * Internal to grader/: checking a student's kernel's parameters against the
 * exercise's list before anything runs (see signature.c).
 */
#ifndef KGRADE_GRADER_SIGNATURE_H
#define KGRADE_GRADER_SIGNATURE_H

#include <stdbool.h>

#include "exercise.h"
#include "grader.h"

/* True when the PTX entry `entry` (kernel `kernel` of the exercise, as its
 * name expression resolved) takes the exercise's parameters; otherwise
 * writes a sentence with both signatures to `why`. */
bool signature_check(const struct exercise *exercise, int kernel, const char *ptx,
                     const char *entry, char why[GRADER_MESSAGE_MAX]);

#endif
