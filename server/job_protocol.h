/*
 * Internal to server/: what passes between `kgrade grade` (or the
 * service) and a sandboxed `kgrade worker`.
 *
 * In, on the worker's fd 0: one line of JSON (exercises, exercise, file
 * name, seed, n, device, timing, emulator, source_bytes), then exactly
 * source_bytes bytes of source, whatever they are (a source that is not
 * UTF-8 must still reach the grader, which rejects it).
 *
 * Out, on the worker's fd 3, one JSON line each: {"phase": "compiling"},
 * {"phase": "running", "case": 1, "cases": 4}, {"phase": "checking", …},
 * {"phase": "timing", …}, and last {"phase": "done", "verdict": "…",
 * "result": {the grade JSON}} or {"phase": "error", "message": "…"} for a
 * request the grader refused (an unknown exercise: a configuration error).
 */
#ifndef KGRADE_SERVER_JOB_PROTOCOL_H
#define KGRADE_SERVER_JOB_PROTOCOL_H

#include "grader/grader.h"

#define JOB_INPUT_MAX (1024 * 1024)

/* The worker's input for a request (malloc'ed, `*size` bytes). */
char *job_encode(const struct grader_request *request, size_t *size);

/* Reads a worker's input back into a request whose strings live in
 * `*holder` (json_decref it after) and in `input`. False with a sentence. */
bool job_decode(const char *input, size_t size, struct grader_request *request, json_t **holder,
                char *error, size_t error_size);

/* The progress phase of the service's event stream for a grader phase:
 * "compiling", "running", "checking" or "timing". */
const char *job_phase_name(enum grader_phase phase);

#endif
