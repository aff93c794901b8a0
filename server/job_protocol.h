/*
 * Internal to server/: what passes between `kgrade grade` (or the
 * service) and a sandboxed `kgrade worker`.
 *
 * A job never sees the exercise folder: the exercise comes on its input.
 * Two kinds of job:
 * - "reference": compile an exercise's reference for the job's device.
 *   In: the header, exercise.json's text, then the reference's source.
 *   Out: {"phase": "done", "reference": {…}} (grader_reference_build).
 * - "grade": grade a student's source. In: the header (exercise id and
 *   version, the reference as the reference job built it, file name, seed,
 *   n, device, timing, emulator, language, "correctness_only" (a trial:
 *   grader_request.correctness_only), "host_wall_time" (a host form's
 *   jobs on a driver of their own: grader_request.host_wall_time), and for
 *   a Numba source the
 *   Numba front end's result as its own job gave it, "numba"),
 *   exercise.json's text, then the source.
 *   Out, one JSON line each: {"phase": "compiling"}, {"phase": "running",
 *   "case": 1, "cases": 4}, {"phase": "checking", …}, {"phase": "timing",
 *   …}, and last {"phase": "done", "verdict": "…", "result": {the grade
 *   JSON}}.
 * The header is one line of JSON ending in "definition_bytes" and
 * "source_bytes"; exactly that many bytes of each follow, whatever they are
 * (a source that is not UTF-8 must still reach the grader, which rejects
 * it). Either kind may end with {"phase": "error", "message": "…"} for a
 * request the grader refused (a configuration error). Results leave on the
 * worker's fd 3.
 */
#ifndef KGRADE_SERVER_JOB_PROTOCOL_H
#define KGRADE_SERVER_JOB_PROTOCOL_H

#include "grader/grader.h"

/* The definition (1 MB), the reference's PTX in the header, the source. */
#define JOB_INPUT_MAX (8 * 1024 * 1024)

enum job_kind {
    JOB_GRADE,     /* grade request->source */
    JOB_REFERENCE, /* compile request->source, the exercise's reference */
};

/* The worker's input for a request (malloc'ed, `*size` bytes); the
 * request's definition is required, and for JOB_GRADE its version and
 * reference. NULL when out of memory. */
char *job_encode(enum job_kind kind, const struct grader_request *request, size_t *size);

/* Reads a worker's input back into its kind and a request whose strings
 * live in `*holder` (json_decref it after) and in `input`. False with a
 * sentence. */
bool job_decode(const char *input, size_t size, enum job_kind *kind, struct grader_request *request,
                json_t **holder, char *error, size_t error_size);

/* The progress phase of the service's event stream for a grader phase:
 * "compiling", "running", "checking" or "timing". */
const char *job_phase_name(enum grader_phase phase);

#endif
