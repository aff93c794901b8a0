/*
 * grader — turns a student's CUDA C++ source into a verdict.
 *
 * The module owns everything between a source text and a grade: checking that
 * the source is acceptable at all, compiling it with NVRTC, and (with later
 * work) loading a CUDA driver, running the exercise's kernels and judging the
 * outputs and the speed. It uses NVRTC, the CUDA driver API through dlopen and
 * jansson; it never uses the server, the database or the sandbox.
 *
 * What it promises:
 * - grader_source_check() says whether a source may be compiled at all, and if
 *   not, why, in a sentence that names the line.
 * - grader_compile() compiles a source with NVRTC for one architecture and
 *   returns the PTX, NVRTC's full log, the log parsed into diagnostics at the
 *   student's line and column, and the kernels (.entry functions) the PTX holds
 *   with the register count ptxas reports for each. It never crashes or leaks on
 *   bad input: every outcome is a status with a message.
 * - Every result owns its memory; grader_compile_result_free() releases it.
 */
#ifndef KGRADE_GRADER_H
#define KGRADE_GRADER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grader/iso8601.h" /* the dates of courses and assessments */

/* Limits of what a student may submit (DESIGN.md: verdict `rejected`). */
#define GRADER_SOURCE_MAX_BYTES (64 * 1024)
/* The __device__ and __constant__ variables of one source together: more is
 * a compile error (a grading job's memory is for the exercise's buffers). */
#define GRADER_STATIC_DATA_MAX (1ull << 30)
/* Room for the one-sentence messages the grader writes. */
#define GRADER_MESSAGE_MAX 512

/* The compile log in the JSON is cut here, with a note; at most this many
 * diagnostics are listed (the count in the message stays exact). */
#define GRADER_COMPILE_LOG_MAX   (64 * 1024)
#define GRADER_DIAGNOSTICS_SHOWN 100

/* The architecture kgrade compiles for when none is named: the modeled H100. */
#define GRADER_DEFAULT_ARCH "sm_90"
/* The name NVRTC gives the source in its log when the caller names none. */
#define GRADER_DEFAULT_FILE_NAME "kernel.cu"

enum grader_severity {
    GRADER_SEVERITY_ERROR, /* includes NVRTC's "catastrophic error" and ptxas errors */
    GRADER_SEVERITY_WARNING,
    GRADER_SEVERITY_NOTE, /* NVRTC's "remark" and "note" */
};

/* One message of the compiler, placed in the student's source. */
struct grader_diagnostic {
    int line;   /* 1-based line of the submitted source; 0 when the message names none */
    int column; /* 1-based, in characters of that line; 0 when unknown */
    enum grader_severity severity;
    char *message; /* the compiler's words, continuation lines included */
};

/* One kernel (.entry) that the compiled PTX holds. */
struct grader_kernel {
    char *name;      /* the PTX entry name, as cuModuleGetFunction wants it */
    char *signature; /* demangled, e.g. "scale(float*, int)"; equal to name for extern "C" */
    int registers;   /* registers per thread reported by ptxas; -1 when not known */
};

enum grader_compile_status {
    GRADER_COMPILE_OK,       /* PTX produced; diagnostics may still hold warnings */
    GRADER_COMPILE_REJECTED, /* the source is unacceptable (empty, NUL, UTF-8, size), or
                              * lacks a kernel the exercise names */
    GRADER_COMPILE_ERROR,    /* the compiler refused the source: see the diagnostics */
    GRADER_COMPILE_INTERNAL, /* kgrade's fault: bad options, NVRTC missing or failing */
};

struct grader_compile_options {
    /* "sm_XX" compiles through ptxas too, so register counts are known;
     * "compute_XX" produces PTX only. NULL means GRADER_DEFAULT_ARCH. */
    const char *arch;
    /* The name the log gives the source; NULL means GRADER_DEFAULT_FILE_NAME. */
    const char *file_name;
    /* Further NVRTC options, such as "-lineinfo" or "--use_fast_math". */
    const char *const *extra;
    size_t n_extra;
    /* Kernels to find whatever the student's linkage: NVRTC name expressions
     * ("hidden_layer"), resolved to their PTX entry names. A name the source
     * does not define makes the source rejected, saying which. */
    const char *const *kernel_names;
    size_t n_kernel_names;
};

struct grader_compile_result {
    enum grader_compile_status status;
    char message[GRADER_MESSAGE_MAX]; /* one sentence for a human, always set */
    char *ptx;                        /* NUL-terminated; NULL unless status is OK */
    size_t ptx_size;                  /* bytes of PTX, without the NUL */
    char *log;                        /* NVRTC's full log; "" when it said nothing */
    struct grader_diagnostic *diagnostics;
    size_t n_diagnostics;
    struct grader_kernel *kernels;
    size_t n_kernels;
    char **lowered_names; /* per kernel_names: its PTX entry name (NULL if not resolved) */
    size_t n_lowered_names;
};

/* Says whether `source` (`size` bytes, not necessarily NUL-terminated) may be
 * compiled: not empty, at most GRADER_SOURCE_MAX_BYTES, no NUL byte, valid
 * UTF-8. Returns true when it may; otherwise false with a sentence naming the
 * problem and where it is written to `why` (GRADER_MESSAGE_MAX bytes). */
bool grader_source_check(const char *source, size_t size, char why[GRADER_MESSAGE_MAX]);

/* Compiles `source` with NVRTC. Always fills `result` (status and message
 * included), which the caller releases with grader_compile_result_free().
 * Returns the status, for convenience. */
enum grader_compile_status grader_compile(const char *source, size_t size,
                                          const struct grader_compile_options *options,
                                          struct grader_compile_result *result);

void grader_compile_result_free(struct grader_compile_result *result);

/* The number of diagnostics of one severity. */
size_t grader_count_diagnostics(const struct grader_compile_result *result,
                                enum grader_severity severity);

/* "error", "warning" or "note". */
const char *grader_severity_name(enum grader_severity severity);

/* The "compile" object of the grade JSON (DESIGN.md):
 * {"ok", "status", "message", "log", "diagnostics": [{line, column, severity, message}],
 *  "kernels": [{name, signature, registers}]}; line, column and registers are
 * null when unknown. The caller owns the reference. NULL only when out of memory. */
json_t *grader_compile_result_to_json(const struct grader_compile_result *result);

/* True when NVRTC can compile for `arch`: "sm_NN" or "compute_NN", with an
 * optional "a" or "f" suffix, NN among NVRTC's supported architectures. When
 * not, writes to `why` a sentence listing the supported range. */
bool grader_arch_supported(const char *arch, char why[GRADER_MESSAGE_MAX]);

/* NVRTC's version as "13.0", in `buf`; false when NVRTC cannot say. */
bool grader_nvrtc_version(char *buf, size_t size);

/* ---------------------------------------------------------------- grading */

/* Verdicts, in the order they are decided (DESIGN.md). */
enum grader_verdict {
    GRADER_VERDICT_PASSED,
    GRADER_VERDICT_REJECTED,
    GRADER_VERDICT_COMPILE_ERROR,
    GRADER_VERDICT_TIMEOUT,
    GRADER_VERDICT_MEMORY_ERROR,
    GRADER_VERDICT_RUNTIME_ERROR,
    GRADER_VERDICT_WRONG_ANSWER,
    GRADER_VERDICT_TOO_SLOW,
    GRADER_VERDICT_INTERNAL_ERROR,
};

enum grader_device {
    GRADER_DEVICE_AUTO,     /* a real GPU when there is one, else the virtual GPU */
    GRADER_DEVICE_CUDA,     /* a real GPU, or a configuration error */
    GRADER_DEVICE_EMULATOR, /* the virtual GPU */
};

/* How the assessment size is timed (DESIGN.md, "Grading protocol"). */
enum grader_timing {
    GRADER_TIMING_AUTO,     /* single on the virtual GPU, repeated on a real one */
    GRADER_TIMING_SINGLE,   /* the one correctness launch gives the time */
    GRADER_TIMING_REPEATED, /* warm-up, then alternating student and reference runs, each
                             * after an L2 flush, until the median is stable (a real GPU's
                             * protocol; on the virtual GPU, for testing it) */
};

/* The phases of a grading, in order; the assessment's may repeat per case. */
enum grader_phase {
    GRADER_PHASE_COMPILE,   /* the student's source and the reference, compiled and loaded */
    GRADER_PHASE_INPUTS,    /* a case's buffers allocated and its inputs generated */
    GRADER_PHASE_REFERENCE, /* the reference's run */
    GRADER_PHASE_STUDENT,   /* the student's run */
    GRADER_PHASE_CHECK,     /* the guards and the outputs checked */
    GRADER_PHASE_TIMING,    /* the repeated timing */
};

/* What the progress callback is told when a phase begins. */
struct grader_progress {
    enum grader_phase phase;
    int case_index, n_cases; /* 0-based, of n_cases; -1 for the compile */
    /* The case running, for people: "assessment, n = 100,000,000" or
     * "rows = 33, cols = 70"; "" for the compile. */
    const char *case_label;
    /* The same case in parts: its sizes alone ("n = 100,000,000"; "" for
     * the compile) and whether it is the assessment run (else a
     * correctness case, or the one case of a run at --n). */
    const char *case_sizes;
    bool assessed;
    /* GRADER_PHASE_STUDENT: the wall-clock seconds this case's reference
     * run took here (the caller may scale the student's time limit to it);
     * 0 otherwise. */
    double reference_seconds;
    /* GRADER_PHASE_REFERENCE and _STUDENT: about how many seconds the run
     * will take here, from the reference's measured speed (a student's
     * kernel as fast as the reference); 0 when not known yet. */
    double expected_seconds;
    /* The device the grading runs on, as the grade JSON names it ("kgrade
     * virtual H100 (emulated)"); "" before it is open. */
    const char *device_name;
};

typedef void grader_progress_fn(void *context, const struct grader_progress *progress);

/* The language of a submission (DESIGN.md: `--language`, the API's
 * "language"). */
enum grader_language {
    GRADER_LANGUAGE_CUDA,  /* CUDA C++, compiled here by NVRTC */
    GRADER_LANGUAGE_NUMBA, /* Numba CUDA Python, compiled by grader/numba_compile.py */
};

/* "cuda" or "numba". */
const char *grader_language_name(enum grader_language language);
/* The language called `name`; false when there is none of that name. */
bool grader_language_parse(const char *name, enum grader_language *language);
/* The language a file's name implies: ".py" is Numba, anything else CUDA C. */
enum grader_language grader_language_of_file(const char *file_name);

struct grader_request {
    const char *exercises; /* the exercise folder (not read when `definition` is given) */
    const char *exercise;  /* its id */
    /* The exercise given whole, for a job that never sees the exercise
     * folder: exercise.json's text, its version (grader_exercise_read) and
     * the reference as grader_reference_build made it. NULL: the exercise
     * is read from `exercises` and its reference compiled here. */
    const char *definition;
    size_t definition_size;
    const char *version;
    const json_t *reference;
    const char *source; /* the student's kernel (size bytes) */
    size_t size;
    const char *file_name; /* for messages; NULL: "kernel.cu" */
    enum grader_language language;
    /* GRADER_LANGUAGE_NUMBA: what the Numba front end made of the source
     * (grader/numba_compile.py's result, as the job that ran it said).
     * The grader never runs Python: without it, a Numba source is an
     * internal error. */
    const json_t *numba;
    bool seed_given;
    uint64_t seed; /* when seed_given; otherwise a fresh one is drawn */
    int64_t n;     /* > 0: every size set to n, not an assessment run */
    /* Only the exercise's correctness cases, up to its largest, with no
     * assessment case and no speed judged (a trial before submitting:
     * "passed" then means correct at every correctness size); `n` is not
     * used. The grade JSON says "correctness_only": true. */
    bool correctness_only;
    enum grader_device device;
    const char *emulator; /* the virtual GPU's libcuda.so.1; NULL: beside the binary */
    /* A host-form grading (exercise.json's "numba_host") whose host jobs
     * run on a CUDA driver of their own (a real GPU's, or the in-process
     * virtual GPU by kgrade grade's test hook), not served by the grade job:
     * each call is timed by its wall-clock time, measured in the grade job
     * from the request to the reply (host work, copies, kernels,
     * synchronisation: what DLI's assess measures), with no session to
     * read copies from. Set by server/grading_job.c, never by a user. */
    bool host_wall_time;
    enum grader_timing timing;
    grader_progress_fn *progress; /* NULL: not told */
    void *progress_context;
};

/* Grades a source. Returns the grade JSON of DESIGN.md (the caller owns it)
 * and its verdict; NULL with a sentence in `error` when the request itself
 * cannot be served (an unknown or broken exercise, --device cuda without a
 * GPU): a configuration error, not a verdict. */
json_t *grader_grade(const struct grader_request *request, enum grader_verdict *verdict,
                     char *error, size_t error_size);

/* ------------------------------------------- the exercise, apart from the job */

/* An exercise's files as the trusted side reads them. The job that compiles
 * and runs a student's source never sees them (DESIGN.md): it is given the
 * definition and the reference's PTX (grader_reference_build). */
struct grader_exercise_files {
    char *definition; /* exercise.json */
    size_t definition_size;
    char *reference; /* reference.cu */
    size_t reference_size;
    /* reference.py: the reference Numba submissions are compared with,
     * where the exercise has one (else NULL: the C reference) */
    char *numba_reference;
    size_t numba_reference_size;
    /* reference_host.py: the host form's reference, which runs in a host
     * job of its own like a student's module (required when exercise.json
     * declares "numba_host"; else NULL) */
    char *host_reference;
    size_t host_reference_size;
    char version[17]; /* a hash of them all: the grade JSON's "exercise_version" */
};

/* Reads <exercises>/<id>/exercise.json, reference.cu, reference.py
 * when there is one and reference_host.py when exercise.json declares
 * "numba_host" (`id` must be an
 * exercise id, never a path). False with a sentence in `error`. Released
 * with grader_exercise_files_free. */
bool grader_exercise_read(const char *exercises, const char *id,
                          struct grader_exercise_files *files, char *error, size_t error_size);
void grader_exercise_files_free(struct grader_exercise_files *files);

/* The reference compiled for the device a grading runs on, as a job is
 * handed it: {"arch": "sm_90", "ptx": "…", "kernels": [{"entry", "registers"}]}
 * (the exercise's kernels in order). A Numba reference (grader_numba_reference)
 * is {"arch", "language": "numba", "kernels": [{"entry", "registers": -1,
 * "ptx", "vectorized"}]}, a module per kernel. Loads the driver `device` names to
 * learn the architecture. NULL with a sentence in `error` when the
 * definition is broken, the device cannot be opened or the reference does
 * not compile. The caller owns the result. */
json_t *grader_reference_build(const char *definition, size_t definition_size,
                               const char *reference, size_t reference_size,
                               enum grader_device device, const char *emulator, char *error,
                               size_t error_size);

/* What the Numba front end (grader/numba_compile.py, run in a sandboxed
 * job of its own) is given to compile a Numba source: {"source",
 * "file_name", "cc": [9, 0] (the reference's architecture), "cuda_home",
 * "kernels": [{"name", "signature", "params", "elementwise", "gufunc",
 * "reduce"}]}, each
 * kernel as the exercise's Numba form has it, and "numba_host":
 * {"function"} when the exercise declares a host form (the front end then
 * answers the host form's "ok" if the module defines that function). `request` gives the
 * exercise whole (definition) and the source; `reference` is the built
 * reference (grader_reference_build). NULL with a sentence when the
 * exercise has no Numba form. The front end's result goes back into
 * grader_request.numba. */
json_t *grader_numba_request(const struct grader_request *request, const json_t *reference,
                             const char *cuda_home, char *error, size_t error_size);

/* The Numba front end's result line (`said`, may be NULL) for the request
 * it was `asked` (grader_numba_request), as the grade job is handed it.
 * With `started` false (the front end had not yet said it was about to
 * run the module), only kgrade's code ran: NULL with kgrade's failure in
 * `error`. Once started, the module may have written the line itself:
 * the answer is rebuilt from what kgrade reads ({"status": "ok", "ptx",
 * "entries", "vectorized", "reduce" for the asked kernels only, "numba"};
 * the host form's {"status": "ok", "form": "host", "function", "numba"},
 * only for the function `asked` names in "numba_host"; or
 * "rejected" / "compile_error" with "message", "log", "line", "column"),
 * and anything else is a compile_error saying the module wrote on
 * kgrade's channel (numba_result.c). */
json_t *grader_numba_answer(const json_t *asked, const json_t *said, bool started, char *error,
                            size_t error_size);

/* A Numba reference as a grade job is handed it, from the front end's
 * result for reference.py (`numba`, which must be "ok") and the C
 * reference built for the same device (`reference`, for its
 * architecture and its alternative, which it keeps). NULL with a
 * sentence when the result is not a compiled reference. */
json_t *grader_numba_reference(const json_t *numba, const json_t *reference, char *error,
                               size_t error_size);

/* The exercises of a folder, sorted by id: [{id, title, course, assessment,
 * opens, deadline (the file's own, ISO 8601 UTC, or null), sizes (at the
 * assessment), trial_sizes (the largest correctness case's: what a
 * correctness_only grading reaches), kernels}], a broken one as
 * {id, error}. NULL
 * with a sentence in `error` when the folder cannot be read. */
json_t *grader_exercises(const char *folder, char *error, size_t error_size);

/* The courses of an exercise folder (its courses/<id>.json), sorted by id:
 * [{id, title, sections: [{title, exercises: [ids]}], assessments: [ids],
 *   opens, deadline (ISO 8601 UTC, or null)}],
 * a broken one as {id, error}; [] when there is none. */
json_t *grader_courses(const char *exercises);
/* One course file's text, checked, as in grader_courses (`id`: its file's
 * name without .json). */
json_t *grader_course_parse(const char *text, size_t size, const char *id);

/* The grade JSON of a verdict decided outside the grader, such as a job
 * the sandbox killed (compile_error for a compile over its limits, timeout,
 * runtime_error for a run over its memory, internal_error): every field of
 * the contract, with what is known of the request. `compiled`: the source
 * had compiled. The caller owns the result. */
json_t *grader_verdict_json(const struct grader_request *request, enum grader_verdict verdict,
                            const char *message, bool compiled);

/* The same, on the device a job named before it was stopped
 * (grader_progress.device_name); NULL or "": not known. */
json_t *grader_verdict_json_on(const struct grader_request *request, enum grader_verdict verdict,
                               const char *message, bool compiled, const char *device_name);

/* The sandbox limits an exercise sets for its jobs ("limits" in
 * exercise.json); 0 for each it leaves to the caller's defaults. */
struct grader_limits {
    double compile_seconds, run_seconds;
    uint64_t memory_bytes;
};

/* Reads <exercises>/<id>'s limits. False with a sentence in `error` when
 * the exercise cannot be loaded. */
bool grader_exercise_limits(const char *exercises, const char *id, struct grader_limits *limits,
                            char *error, size_t error_size);

/* A seed from the system's random source, for a run that names none. */
uint64_t grader_fresh_seed(void);

/* The virtual GPU installed beside the running binary
 * (<its folder>/emulator/libcuda.so.1); false when that path cannot be
 * made. */
bool grader_emulator_path(char *path, size_t size);

/* The environment variable that names a real GPU's driver by its path
 * (default: the libcuda.so.1 the loader finds). A sandboxed job is given
 * the one its parent found. */
#define GRADER_CUDA_DRIVER "KGRADE_CUDA_DRIVER"

/* "compile", "inputs", "reference", "student", "check", "timing". */
const char *grader_phase_name(enum grader_phase phase);

/* "passed", "compile_error", … as DESIGN.md spells them. */
const char *grader_verdict_name(enum grader_verdict verdict);

/* ------------------------------------------------ numbers people can read */

/* Ratios and times as every message, the command line, the CSV and the
 * certificates print them (number_text.c; web/static/format.js is the
 * pages' twin, and tests/unit/number_text_cases.json holds both to the same
 * answers). */
#define GRADER_NUMBER_TEXT_MAX 96
/* A ratio at most this says how many times faster than the reference the
 * kernel is: at half the reference's time or less the ratio alone (0.00484×)
 * reads poorly, the speed-up (207×) well. */
#define GRADER_RATIO_FASTER_AT 0.5

/* Three significant figures in plain decimal, trailing zeros kept: "0.00484",
 * "1.00", "0.999", "207", "12300"; "0" for zero; outside [1e-6, 1e15)
 * "4.84e-7"; "nan", "inf", "-inf". Returns `out`. */
const char *grader_number_text(double x, char out[GRADER_NUMBER_TEXT_MAX]);

/* A ratio to the reference's time: "1.03×", or for a kernel at most
 * GRADER_RATIO_FASTER_AT "0.00484×, 207× faster than the reference".
 * Returns `out`. */
const char *grader_ratio_text(double ratio, char out[GRADER_NUMBER_TEXT_MAX]);

/* A size in bytes, in the unit that reads best (three significant
 * figures): "1.6 GB", "400 MB" in powers of 1000, or with `binary` "2 GiB",
 * "640 MiB"; "8 bytes". Returns `out`. */
const char *grader_bytes_text(unsigned long long bytes, bool binary,
                              char out[GRADER_NUMBER_TEXT_MAX]);

/* A time given in milliseconds, in the unit that reads best: "335 µs",
 * "12.3 ms", "1.23 s" (three significant figures; "0 ms"). Returns `out`. */
const char *grader_ms_text(double ms, char out[GRADER_NUMBER_TEXT_MAX]);

#endif
