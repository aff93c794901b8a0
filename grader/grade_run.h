/*
 * Internal to grader/: one case of a grading while it runs — its buffers,
 * the sizes bound for the expressions, and the steps that grade_run.c (the
 * correctness run) and grade_timing.c (the repeated timing on a real GPU)
 * share.
 */
#ifndef KGRADE_GRADER_GRADE_RUN_H
#define KGRADE_GRADER_GRADE_RUN_H

#include "grade.h"

#define RUN_SCALAR_BYTES 8

struct run {
    struct grading *g;
    const struct exercise_case *c;
    struct expr_env env;
    struct expr_binding bindings[EXERCISE_SIZES_MAX];
    struct run_buffer buffers[EXERCISE_BUFFERS_MAX];
    CUdeviceptr current[EXERCISE_BUFFERS_MAX]; /* after swaps */
    CUdeviceptr scratch_base, scratch;         /* numba's partials of a reduction, 0 if none */
    unsigned char scalars[EXERCISE_SCALARS_MAX][RUN_SCALAR_BYTES];
    void *check_part; /* CHECK_PART_BYTES of the student's outputs at a time (grade_run.c) */
    char *error;
    size_t error_size;
};

/* A case begun (its inputs phase told): a run (malloc'ed) bound to the
 * grading, the case and `error`, `out` passed so far with the case's JSON
 * ({"sizes"}), the scalars set; NULL when out of memory (`error` set,
 * out->json NULL). run_end releases the buffers and the run, and marks a
 * case that did not pass ("passed": false) when `ok` (the grader did not
 * fail). */
struct run *run_begin(struct grading *g, const struct exercise_case *c, struct case_outcome *out,
                      char *error, size_t error_size);
void run_end(struct run *r, bool ok, struct case_outcome *out);

/* Buffer i's host side: its length, its host memory (`pristine` for an
 * input, `expected` for an output) and, for an input, its values generated
 * from the grading's seed (the same for every form and side). False with
 * r->error set. */
bool run_host_buffer(struct run *r, int i);
/* The buffers' device and host memory released. */
void run_release(struct run *r);

/* The student's output i, returned in host memory (`actual`: the host
 * form), against the reference's (`expected`): the case's JSON and, on a
 * mismatch, the verdict, as for the kernel form. False when the grader
 * itself failed (r->error set). */
bool run_check_returned(struct run *r, int i, const void *actual, struct case_outcome *out);

/* Writes the grader's own failure to r->error; returns false. */
bool run_fail(struct run *r, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* One run of the reference on restored inputs; its time in `*ms`. Its
 * buffers are wiped afterwards unless `keep_outputs` (the caller reads
 * them, then wipes them with run_wipe). A failure is the grader's own
 * (r->error set, false). */
bool run_reference_once(struct run *r, bool keep_outputs, float *ms);
void run_wipe(struct run *r);

/* One run of the student's kernels on restored inputs, poisoned outputs
 * and refilled guards, with the virtual GPU's modeled-time budget; `capture`
 * catches their printf output. Their time in `*ms`, the driver's answer in
 * `*rc`. False only when the buffers could not be set up (r->error set). */
bool run_student_once(struct run *r, bool capture, float *ms, CUresult *rc);

/* Numba's launches of a @cuda.reduce for kernel k on a side, queued
 * (numba_reduce.c): blocks of NUMBA_REDUCE_BLOCK threads, at most
 * NUMBA_REDUCE_BLOCKS_MAX of them, into r->scratch (their partials and
 * one more, of at most 8 bytes each), then copied into the form's output.
 * The first failure to queue is returned. */
#define NUMBA_REDUCE_BLOCK         128 /* numba 0.56's _NUMWARPS * _WARPSIZE */
#define NUMBA_REDUCE_BLOCKS_MAX    64  /* numba 0.56's _WARPSIZE * 2 */
#define NUMBA_REDUCE_SCRATCH_BYTES ((NUMBA_REDUCE_BLOCKS_MAX + 1) * 8)
CUresult numba_reduce_launches(struct run *r, int side, int k);

/* A failed student launch as a verdict in `out`; a fault in a guard zone
 * names the buffer and the element. */
void run_fault(struct run *r, CUresult rc, struct case_outcome *out);

/* After a student run: the guards, then every output against the
 * reference's. Sets out->verdict and message on a failure. Returns false
 * only when the grader itself failed (r->error set). */
bool run_check_student(struct run *r, struct case_outcome *out);

/* A buffer as the student's code calls it: the Numba form's name for a
 * Numba kernel ("transposed"), else the C kernel's. */
const char *run_buffer_name(const struct run *r, const struct run_buffer *b);

/* The values of a wrong element, exact in their own type (mismatch_inputs.c).
 * `bits` are the element's bytes, zero-extended; `value` the same as a double
 * (compare.h). Text: an integer in full, a float as "%.9g" ("1.17651522"). */
#define MISMATCH_VALUE_TEXT_MAX 64
void mismatch_value_text(enum value_type type, uint64_t bits, double value, char *out, size_t size);
/* JSON: an integer as a JSON integer (exact; a u64 above INT64_MAX, which
 * jansson's integers cannot hold, as its decimal text), a finite float as a
 * number, a NaN or infinity as the text "nan", "inf" or "-inf". */
json_t *mismatch_value_json(enum value_type type, uint64_t bits, double value);

/* The inputs at element `index` of `output`'s first mismatch:
 * [{"name", "type", "value": "1.5"}] for each input buffer with as many
 * elements as the output (indexed like it), its pristine value as text in
 * its own type (mismatch_inputs.c); [] when none is. */
json_t *mismatch_inputs_json(const struct run *r, const struct run_buffer *output, uint64_t index);

/* The repeated timing of a real GPU (grade_timing.c), after the correctness
 * run of the timed case passed: sets g->student_ms, g->reference_ms and the
 * statistics, or a verdict in `out` when a timed run fails its check.
 * Returns false only when the grader itself failed. */
bool run_time_repeated(struct run *r, struct case_outcome *out);

/* Whether the timed case calls for the repeated timing: the grading's is
 * (a real GPU's), unless the one run was decisive: stopped by the virtual
 * GPU's budget, or more than twice the bar. */
bool run_wants_repeated_timing(const struct grading *g);

/* The sides of a repeated timing: one run of each, its ms in `*ms` (the
 * student's checked: a failure leaves its verdict in `out`); false when
 * the grader failed (r->error set). */
struct timed_sides {
    void *context;
    bool (*student)(void *context, struct case_outcome *out, double *ms);
    bool (*reference)(void *context, double *ms);
};

/* The repeated timing's protocol (timing_stats.h) over `sides`: a warm-up
 * pair, then pairs in alternation (student first on even pairs, so a drift
 * costs both the same) until timing_enough; the medians in g->student_ms
 * and g->reference_ms, with their statistics. A student's run that fails
 * ends it, its message naming the run ("on timed run 3: ..."). False only
 * when the grader failed. The kernel form's (run_time_repeated) and the
 * host form's wall-clock calls' (host_wall.c). */
bool run_time_sides(struct run *r, const struct timed_sides *sides, struct case_outcome *out);

#endif
