/*
 * Internal to grader/: the state of one grading (grade.c runs it,
 * grade_run.c runs one case of sizes, grade_json.c writes the result).
 */
#ifndef KGRADE_GRADER_GRADE_H
#define KGRADE_GRADER_GRADE_H

#include "cuda_api.h"
#include "exercise.h"
#include "grader.h"
#include "output_capture.h"
#include "timing_stats.h"

/* A correctness run may take this many times the reference's modeled time
 * (plus the floor) before it counts as an endless loop (timeout). */
#define TIMEOUT_FACTOR   100000.0
#define TIMEOUT_FLOOR_MS 100.0
/* On a real GPU that budget is wall-clock time, never less than this: a
 * kernel still running after it is left there (cuda_api.stuck) and the
 * verdict given. Below the sandbox's floor for a student's run (10 s), so
 * the worker says why before the sandbox would have to end it. */
#define GPU_WAIT_FLOOR_MS 5000.0

/* One buffer of a run: one device allocation holding guard, data, guard. */
struct run_buffer {
    const struct exercise_buffer *spec;
    size_t count, bytes;
    CUdeviceptr base;  /* the allocation */
    CUdeviceptr data;  /* base + GUARD_BYTES: what the kernel gets */
    void *pristine;    /* inputs: as generated */
    bool mapped;       /* `pristine` is a read-only mapping (the host form's sealed memfd) */
    void *expected;    /* outputs: the reference's (the student's are read a part at a time) */
    void *alternative; /* outputs: the alternative side's, when the exercise has one */
};

/* The outcome of the student's side of one case. */
struct case_outcome {
    enum grader_verdict verdict; /* GRADER_VERDICT_PASSED when this case passed */
    char message[GRADER_MESSAGE_MAX];
    json_t *json; /* the case's entry of correctness.cases */
};

/* A side written in Numba: numba compiles each kernel apart, so each has
 * its PTX and module; a @vectorize ufunc's kernel is launched by kgrade
 * (numba_front.h). */
struct numba_side {
    bool is_numba;
    char *ptx[EXERCISE_KERNELS_MAX];
    bool vectorized[EXERCISE_KERNELS_MAX];
    bool reduce[EXERCISE_KERNELS_MAX]; /* a @cuda.reduce: numba's launches (numba_reduce.c) */
    CUmodule modules[EXERCISE_KERNELS_MAX];
};

/* The sides of a grading: the reference, the student's, and the
 * reference's alternative (reference.cu with the exercise's alternative
 * kernels in place of theirs; only when the exercise declares one). */
enum { SIDE_REFERENCE, SIDE_STUDENT, SIDE_ALTERNATIVE, GRADE_SIDES };

struct host_form; /* the host form's jobs and calls (host_form.h) */

struct grading {
    const struct grader_request *request;
    struct exercise exercise;
    struct cuda_api api;
    CUcontext context;
    CUmodule modules[GRADE_SIDES];
    CUfunction functions[GRADE_SIDES][EXERCISE_KERNELS_MAX]; /* per side, per exercise kernel */
    struct grader_compile_result compiled[GRADE_SIDES];
    struct numba_side numba[GRADE_SIDES]; /* per side: the Numba form's, when it is one */
    char version[17];                     /* the exercise's (grader_exercise_files.version) */
    uint64_t seed;
    bool assessment;                 /* graded at the assessment size */
    enum grader_timing timing;       /* SINGLE or REPEATED, AUTO resolved */
    int case_index, n_cases;         /* the case running, for progress */
    double reference_ms, student_ms; /* at the timed case */
    double case_reference_ms;        /* the reference's time at the case running */
    double case_reference_seconds;   /* its run's wall-clock time here */
    double case_bytes;               /* the buffers' bytes at the case running */
    double seconds_per_byte;         /* the reference's emulation speed here; 0: unknown */
    char case_label[160];            /* grader_progress.case_label */
    char case_sizes[128];            /* grader_progress.case_sizes */
    bool case_assessed;              /* grader_progress.assessed */
    bool timed_case;                 /* the case running is the timed one */
    bool lower_bound;                /* the student's time is a lower bound (budget) */
    bool has_counters;
    struct kgemu_counters counters;
    double bytes_moved; /* inputs read and outputs written at the timed case */
    struct timing_stats student_runs, reference_runs; /* the repeated timing's; runs 0 if none */
    json_t *diagnostics;                              /* the fault's, at its line */
    struct output_capture output;                     /* the student's kernels' printf output */
    struct host_form *host; /* a host form's grading (host_form.h); NULL: the kernel form */
};

/* "sm_90": the architecture of the opened device, which both sides are
 * compiled for. */
void grade_arch(const struct grading *g, char arch[16]);

/* Compiles one side (SIDE_REFERENCE, SIDE_STUDENT, SIDE_ALTERNATIVE) for
 * the device, finding the exercise's kernels by name (the alternative's:
 * a kernel's alternative where it declares one). */
enum grader_compile_status grade_compile_side(struct grading *g, int side, const char *source,
                                              size_t size, const char *file_name);

/* A compile result from a compile done elsewhere (a handed reference, the
 * Numba front end's): room for `n` kernels, calloc'ed (false when out of
 * memory), then kernel k known by its PTX entry alone (its name, signature
 * and lowered name; `registers` -1 when unknown). Freed by
 * grader_compile_result_free. */
bool compile_result_allocate_kernels(struct grader_compile_result *r, size_t n);
bool compile_result_set_entry(struct grader_compile_result *r, size_t k, const char *entry,
                              int registers);

/* Loads the student's side in g->context and checks its kernels' parameters
 * against their forms: PASSED, or the verdict with its sentence
 * (compile_error, rejected; internal_error only for a C side's PTX, which
 * NVRTC made, that a real driver cannot load). */
enum grader_verdict grade_load_student(struct grading *g, char *message, size_t size);

/* Opens the driver the request names. */
bool grade_open_device(struct grading *g, char *error, size_t size);

/* The reference side of `g` from a job's "reference" (grader_reference_build):
 * its PTX, entries and registers, checked against the exercise and the
 * device's architecture. False with a sentence. */
bool reference_from_json(struct grading *g, const json_t *reference, char *error, size_t size);

/* The reference side of `g`, compiled, as grader_reference_build gives it
 * (with the alternative side's under "alternative" when the exercise
 * declares one). */
json_t *reference_to_json(const struct grading *g);

/* Compiles reference.cu for the reference side, and for the alternative
 * side when the exercise declares one; false with a sentence. */
bool grade_compile_reference(struct grading *g, const char *source, size_t size, char *error,
                             size_t error_size);

/* Runs one case of sizes: the reference, then the student's kernels, the
 * guards and the comparison. `timed`: the case whose times are the result.
 * Returns false with `*error` set when the grader itself failed (the
 * reference faulted, memory ran out): an internal error. */
bool grade_case(struct grading *g, const struct exercise_case *c, bool timed,
                struct case_outcome *outcome, char *error, size_t error_size);

/* Tells the request's progress callback that `phase` begins. */
void grade_phase(struct grading *g, enum grader_phase phase);

/* The verdict a fault of the student's launch gives, and its message;
 * `fault` receives the virtual GPU's details (zeroed when there are none). */
enum grader_verdict grade_fault_verdict(struct grading *g, CUresult result,
                                        struct kgemu_fault *fault, char *message, size_t size);

/* The grade JSON's diagnostic of a fault that gave `verdict` (none for
 * too_slow): `message`, the sentence shown as the verdict's (with the
 * buffer named), and the fault's line, block and thread. */
void grade_fault_diagnostic(struct grading *g, enum grader_verdict verdict,
                            const struct kgemu_fault *f, const char *message);

/* The grade JSON of DESIGN.md. */
json_t *grade_json(struct grading *g, enum grader_verdict verdict, const char *message,
                   json_t *cases, bool compiled);

#endif
