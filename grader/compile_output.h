/*
 * Internal to grader/: readers of what NVRTC hands back after a compile.
 *
 * NVRTC returns two texts, its log and the PTX. These functions turn them into
 * data: the log into diagnostics placed in the student's source and into the
 * register count ptxas reported per kernel; the PTX into its list of entry
 * points. They are parsers of untrusted text (the log echoes the student's
 * source), so each takes an explicit length, never reads past it, and has a
 * fuzz target in tests/fuzz/.
 */
#ifndef KGRADE_GRADER_COMPILE_OUTPUT_H
#define KGRADE_GRADER_COMPILE_OUTPUT_H

#include "grader.h"

#include <stdint.h>

/* At most this many diagnostics are kept from one log; NVRTC itself stops
 * after about a hundred errors, so more means a runaway log. */
#define GRADER_DIAGNOSTICS_MAX 200

/* Parses NVRTC's log (`len` bytes) into diagnostics. Messages about
 * `file_name` get its line and column; messages about other files (headers)
 * or without a place (ptxas, nvrtc) get line 0 and say where they come from in
 * the message. Returns 0, or -1 when out of memory (nothing is returned then).
 * Release with grader_diagnostics_free(). */
int grader_parse_log(const char *log, size_t len, const char *file_name,
                     struct grader_diagnostic **diagnostics, size_t *count);

void grader_diagnostics_free(struct grader_diagnostic *diagnostics, size_t count);

/* The registers per thread ptxas reported for entry `entry` in a log made
 * with --ptxas-options=-v, or -1 when the log does not say. */
int grader_ptxas_registers(const char *log, size_t len, const char *entry);

/* The names of the .entry functions of a PTX text (`len` bytes), in order.
 * Returns 0, or -1 when out of memory. Release with grader_names_free(). */
int grader_ptx_entries(const char *ptx, size_t len, char ***names, size_t *count);

void grader_names_free(char **names, size_t count);

/* What a PTX text's module-scope variables take in global and constant
 * memory (the source's __device__ and __constant__ variables). */
struct ptx_static_data {
    uint64_t total_bytes;   /* saturating */
    uint64_t largest_bytes; /* the largest one's */
    char largest[128];      /* its PTX name ("" when there is none) */
};

void grader_ptx_static_data(const char *ptx, size_t len, struct ptx_static_data *data);

/* The demangled form of a C++ symbol ("_Z5scalePfi" → "scale(float*, int)"),
 * or a copy of `name` when it is not mangled (extern "C"). NULL when out of
 * memory. The caller frees it. */
char *grader_demangle(const char *name);

#endif
