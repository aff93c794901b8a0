/*
 * Internal to grader/: an exercise as exercise.json describes it, loaded
 * and validated.
 *
 * The file says what the student's kernel must do and how it is judged:
 * the sizes (named, with correctness cases and the assessment case), the
 * buffers (element type, length expression, input distribution or, for
 * outputs, initial content and check), the scalar parameters, the kernels
 * with their parameter lists, the launches in order (grid and block as
 * size expressions, repeated with two buffers swapped for stencils), and
 * the speed bar. README.md ("Writing an exercise") documents every field.
 *
 * Loading checks everything a grading run relies on, so a broken exercise
 * is refused with its file, the field and what is wrong, never half-used.
 */
#ifndef KGRADE_GRADER_EXERCISE_H
#define KGRADE_GRADER_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dates.h"
#include "expr.h"
#include "rng.h"
#include "value_type.h"

#define EXERCISE_NAME_MAX     64
#define EXERCISE_TEXT_MAX     256
#define EXERCISE_SIZES_MAX    8
#define EXERCISE_CASES_MAX    8
#define EXERCISE_BUFFERS_MAX  16
#define EXERCISE_SCALARS_MAX  16
#define EXERCISE_KERNELS_MAX  4
#define EXERCISE_PARAMS_MAX   16
#define EXERCISE_LAUNCHES_MAX 8
/* The host form's definition as text: its function and every argument, each
 * with ", " before it, in parentheses (exercise_numba_host_form). */
#define EXERCISE_HOST_FORM_MAX (EXERCISE_NAME_MAX * (EXERCISE_PARAMS_MAX + 1) * 2)

/* One set of values of the named sizes, e.g. {n: 1000003}. */
struct exercise_case {
    int64_t values[EXERCISE_SIZES_MAX]; /* in the order of exercise.sizes */
};

enum exercise_check_kind {
    CHECK_EXACT,     /* every element equal */
    CHECK_TOLERANCE, /* |a − b| ≤ atol + rtol·|b| */
    CHECK_SCALAR,    /* element 0 against a known value: |a − value| ≤ tolerance */
};

struct exercise_check {
    enum exercise_check_kind kind;
    double atol, rtol;
    double value, tolerance; /* CHECK_SCALAR */
};

struct exercise_buffer {
    char name[EXERCISE_NAME_MAX];
    enum value_type type;
    char length[EXERCISE_TEXT_MAX];  /* a size expression */
    bool is_output;                  /* checked against the reference */
    struct input_spec content;       /* inputs: their distribution; outputs: zero or poison */
    struct exercise_check check;     /* outputs */
    char columns[EXERCISE_TEXT_MAX]; /* 2-D outputs: the row length, for messages ("" if 1-D) */
};

struct exercise_scalar {
    char name[EXERCISE_NAME_MAX];
    enum value_type type;
    char value[EXERCISE_TEXT_MAX]; /* a size expression, or a real number for f32/f64 */
};

/* A parameter of a kernel's Numba form: a buffer, as a device array of
 * one or two dimensions (C order), or a scalar. */
struct exercise_numba_param {
    char name[EXERCISE_NAME_MAX];     /* the buffer or scalar */
    char as[EXERCISE_NAME_MAX];       /* what the course calls it ("a", "transposed") */
    int n_dims;                       /* buffers: 1 or 2; scalars: 0 */
    char shape[2][EXERCISE_TEXT_MAX]; /* size expressions whose product is the length */
};

/* A kernel as the course's Numba notebooks write it ("numba" in
 * exercise.json): its name and parameters, which may differ from the C
 * form's (no separate n: arrays carry their shapes). */
struct exercise_numba {
    char name[EXERCISE_NAME_MAX];
    int n_params;
    struct exercise_numba_param params[EXERCISE_PARAMS_MAX];
};

struct exercise_kernel {
    char name[EXERCISE_NAME_MAX];
    int n_params;
    char params[EXERCISE_PARAMS_MAX][EXERCISE_NAME_MAX]; /* buffer or scalar names */
    char signature[EXERCISE_TEXT_MAX]; /* what the student must write, for messages */
    /* "" or a kernel of reference.cu with the same parameters that computes
     * an answer also accepted (a histogram's bins in double precision): the
     * reference's launches run a second time with it in this kernel's
     * place, and an output passes when it matches either run's */
    char alternative[EXERCISE_NAME_MAX];
    bool has_numba; /* a Numba form is declared */
    struct exercise_numba numba;
};

struct exercise_launch {
    int kernel; /* index in kernels */
    char grid[3][EXERCISE_TEXT_MAX];
    char block[3][EXERCISE_TEXT_MAX];
    char repeat[EXERCISE_TEXT_MAX]; /* how many times ("1") */
    int swap[2];                    /* buffers exchanged between repetitions, or -1 */
};

/* The host form ("numba_host" in exercise.json): a Python function of the
 * course's that the student's module defines, called with the exercise's
 * inputs as host arrays, returning one output as a host array; graded by
 * calling it (grader/host_form.h). */
struct exercise_numba_host {
    char function[EXERCISE_NAME_MAX]; /* a Python identifier: "create_hidden_layer" */
    int argument_count;
    /* in call order: a size (a Python int), an input buffer (a host numpy
     * array of its type and length), or else what the module defines of
     * that name ("exp") */
    char arguments[EXERCISE_PARAMS_MAX][EXERCISE_NAME_MAX];
    char returns[EXERCISE_NAME_MAX]; /* an output buffer */
};

struct exercise {
    char id[EXERCISE_NAME_MAX];
    char title[EXERCISE_TEXT_MAX];
    char course[EXERCISE_NAME_MAX];
    bool assessment;
    struct grader_dates dates; /* "opens", "deadline": each optional */
    char folder[1024];         /* where exercise.json, reference.cu … are */
    int n_sizes;
    char sizes[EXERCISE_SIZES_MAX][EXERCISE_NAME_MAX];
    int n_cases;
    struct exercise_case cases[EXERCISE_CASES_MAX]; /* correctness */
    struct exercise_case assessed;                  /* the assessment size */
    int n_buffers;
    struct exercise_buffer buffers[EXERCISE_BUFFERS_MAX];
    int n_scalars;
    struct exercise_scalar scalars[EXERCISE_SCALARS_MAX];
    int n_kernels;
    struct exercise_kernel kernels[EXERCISE_KERNELS_MAX];
    int n_launches;
    struct exercise_launch launches[EXERCISE_LAUNCHES_MAX];
    double max_ratio;    /* the speed bar: student time / reference time */
    bool has_numba_host; /* a host form is declared */
    struct exercise_numba_host numba_host;
    struct {
        double compile_seconds, run_seconds, memory_mb; /* 0: the sandbox's default */
    } limits;
};

/* The largest exercise.json and reference.cu read. */
#define EXERCISE_DEFINITION_MAX (1024 * 1024)
#define EXERCISE_REFERENCE_MAX  (1024 * 1024)

/* A whole file of at most `max` bytes, NUL-terminated (malloc'ed), its
 * length in `*size`; NULL with "PATH: what is wrong" in `error`. */
char *exercise_file_read(const char *path, size_t max, size_t *size, char *error,
                         size_t error_size);

/* Loads <folder>/exercise.json. On failure writes "FILE: FIELD: what is
 * wrong" to `error` and returns false. */
bool exercise_load(const char *folder, struct exercise *exercise, char *error, size_t error_size);

/* Parses and validates an exercise.json text; `file` names it in errors. */
bool exercise_parse(const char *text, size_t length, const char *file, struct exercise *exercise,
                    char *error, size_t error_size);

/* The index of the buffer, or of the scalar, called `name`; -1 if none. */
int exercise_buffer_index(const struct exercise *exercise, const char *name);
int exercise_scalar_index(const struct exercise *exercise, const char *name);

/* The Numba signature of kernel k's Numba form, as numba_compile.py takes
 * it: "void(float32[::1], float32, int32[:, ::1])" (arrays are C-ordered
 * device arrays). False when it does not fit in `size`. */
bool exercise_numba_signature(const struct exercise *exercise, int k, char *out, size_t size);

/* What the course's Numba calls the buffer or scalar `name` (its first
 * kernel's form that names it: "transposed" for "out"); `name` when no form
 * names it. */
const char *exercise_numba_name(const struct exercise *exercise, const char *name);

/* What the student must define, for messages: "tile_transpose(a, transposed)". */
bool exercise_numba_form(const struct exercise *exercise, int k, char *out, size_t size);

/* The host form's function as the student defines it, for messages and the
 * exercise list: "create_hidden_layer(n, greyscales, ..., activate)"; false
 * when the exercise declares none (or it does not fit). */
bool exercise_numba_host_form(const struct exercise *exercise, char *out, size_t size);

/* What an argument of the host form is. */
enum exercise_host_argument { HOST_ARGUMENT_SIZE, HOST_ARGUMENT_BUFFER, HOST_ARGUMENT_MODULE };
/* Argument i of the host form: which kind, and in `*index` the size's or
 * the buffer's index (-1 for the module's). */
enum exercise_host_argument exercise_host_argument(const struct exercise *exercise, int i,
                                                   int *index);

/* Whether a kernel of the exercise declares an alternative. */
bool exercise_has_alternative(const struct exercise *exercise);

/* The environment of size expressions for one case (sizes bound to values). */
void exercise_env(const struct exercise *exercise, const struct exercise_case *c,
                  struct expr_binding bindings[EXERCISE_SIZES_MAX], struct expr_env *env);

#endif
