/*
 * grader_grade(): a source → a verdict and the grade JSON, with no server
 * and no database (DESIGN.md, "Grading protocol").
 *
 * The verdicts are decided in DESIGN.md's order: the source is checked and
 * compiled (rejected, compile_error), the kernels' signatures checked
 * (rejected), then each correctness case and the assessment case run in
 * turn (timeout, memory_error, runtime_error, wrong_answer), and last the
 * speed at the assessment size (too_slow). Anything that is kgrade's fault
 * (the reference failing, memory running out) is internal_error.
 */
#include "grade.h"
#include "host_form.h"
#include "kernel_params.h"
#include "numba_front.h"
#include "signature.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REFERENCE_FILE "reference.cu"

const char *grader_verdict_name(enum grader_verdict verdict)
{
    static const char *const names[] = {
        "passed",        "rejected",     "compile_error", "timeout",        "memory_error",
        "runtime_error", "wrong_answer", "too_slow",      "internal_error",
    };
    return verdict <= GRADER_VERDICT_INTERNAL_ERROR ? names[verdict] : "internal_error";
}

const char *grader_phase_name(enum grader_phase phase)
{
    static const char *const names[] = {"compile", "inputs", "reference",
                                        "student", "check",  "timing"};
    return phase <= GRADER_PHASE_TIMING ? names[phase] : "unknown";
}

/* About how long a run of the phase takes here: the reference's, from its
 * speed at an earlier case; the student's, as long as the reference took. */
static double expected_seconds(const struct grading *g, enum grader_phase phase)
{
    if (phase == GRADER_PHASE_REFERENCE)
        return g->seconds_per_byte * g->case_bytes;
    return phase == GRADER_PHASE_STUDENT ? g->case_reference_seconds : 0;
}

void grade_phase(struct grading *g, enum grader_phase phase)
{
    struct grader_progress p = {
        .phase = phase,
        .case_index = phase == GRADER_PHASE_COMPILE ? -1 : g->case_index,
        .n_cases = g->n_cases,
        .case_label = phase == GRADER_PHASE_COMPILE ? "" : g->case_label,
        .case_sizes = phase == GRADER_PHASE_COMPILE ? "" : g->case_sizes,
        .assessed = phase != GRADER_PHASE_COMPILE && g->case_assessed,
        .reference_seconds = phase == GRADER_PHASE_STUDENT ? g->case_reference_seconds : 0,
        .expected_seconds = expected_seconds(g, phase),
        .device_name = g->api.device_name,
    };
    if (g->request->progress)
        g->request->progress(g->request->progress_context, &p);
}

uint64_t grader_fresh_seed(void)
{
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        seed = (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)t.tv_sec;
    }
    if (fd >= 0)
        close(fd);
    return seed;
}

void grade_arch(const struct grading *g, char arch[16])
{
    snprintf(arch, 16, "sm_%d%d", g->api.cc_major % 100, g->api.cc_minor % 10);
}

enum grader_compile_status grade_compile_side(struct grading *g, int side, const char *source,
                                              size_t size, const char *file_name)
{
    const char *names[EXERCISE_KERNELS_MAX];
    for (int k = 0; k < g->exercise.n_kernels; k++) {
        const struct exercise_kernel *kernel = &g->exercise.kernels[k];
        names[k] =
            side == SIDE_ALTERNATIVE && kernel->alternative[0] ? kernel->alternative : kernel->name;
    }
    char arch[16];
    grade_arch(g, arch);
    const char *extra[] = {"-lineinfo", "-std=c++17"};
    struct grader_compile_options options = {
        .arch = arch,
        .file_name = file_name,
        .extra = extra,
        .n_extra = 2,
        .kernel_names = names,
        .n_kernel_names = (size_t)g->exercise.n_kernels,
    };
    return grader_compile(source, size, &options, &g->compiled[side]);
}

/* What loading a side's module gave. */
enum load_outcome { LOADED, REFUSED, MISMATCHED, LOAD_FAILED };

/* The driver refused the PTX itself: on the virtual GPU, a construct it
 * does not support (its log names it and the line). */
static bool ptx_refused(CUresult rc)
{
    return rc == CUDA_ERROR_INVALID_PTX || rc == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
           rc == CUDA_ERROR_NOT_SUPPORTED;
}

/* Loads one PTX module of a side: `*module`, or why not in `error`. */
static enum load_outcome load_module(struct grading *g, int side, const char *ptx, CUmodule *module,
                                     char *error, size_t size)
{
    struct cuda_api *api = &g->api;
    char log[4096] = "";
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult rc = api->cuModuleLoadDataEx(module, ptx, 2, keys, values);
    /* numba's PTX comes from a process that ran the student's module,
     * which may have written it: any failure to load it is the student's;
     * a student's PTX the virtual GPU refuses is theirs on any language */
    bool numba = side == 1 && g->numba[1].is_numba;
    bool unsupported = side == 1 && api->emulated && ptx_refused(rc);
    if (rc != CUDA_SUCCESS && unsupported) {
        snprintf(error, size, "the virtual GPU does not support this kernel: %.400s", log);
        return REFUSED;
    }
    if (rc != CUDA_SUCCESS && numba) {
        char what[256];
        cuda_api_describe(api, rc, what, sizeof what);
        snprintf(error, size, "the driver cannot load this kernel (%.60s): %.300s", what, log);
        return REFUSED;
    }
    if (rc != CUDA_SUCCESS) {
        char what[256];
        cuda_api_describe(api, rc, what, sizeof what);
        snprintf(error, size, "the %s kernel could not be loaded (%.60s): %.120s",
                 side == SIDE_STUDENT ? "student's" : "reference", what, log);
        return LOAD_FAILED;
    }
    return LOADED;
}

/* Whether kernel k of a side takes the parameters its form passes (its
 * PTX is the student's to shape, a Numba side's from a process that ran
 * the student's module); else why, with the form. */
static enum load_outcome check_params(struct grading *g, int side, int k, char *error, size_t size)
{
    struct kernel_params want;
    char why[256];
    bool numba = g->numba[side].is_numba;
    kernel_params_layout(&g->exercise, k, numba_kernel_form(&g->numba[side], k), &want);
    if (kernel_params_match(&g->api, g->functions[side][k], &want, why, sizeof why))
        return LOADED;
    if (numba) {
        char form[EXERCISE_TEXT_MAX * 2];
        exercise_numba_form(&g->exercise, k, form, sizeof form);
        snprintf(error, size,
                 "the kernel '%.60s' does not take what numba passes for %.200s: %.150s",
                 g->exercise.kernels[k].numba.name, form, why);
    } else {
        snprintf(error, size, "the kernel '%.60s' must be %.200s: %.150s",
                 g->exercise.kernels[k].name, g->exercise.kernels[k].signature, why);
    }
    return side == 1 ? MISMATCHED : LOAD_FAILED;
}

/* Loads a side's PTX (one module, or a Numba side's one per kernel) and
 * finds its kernels, which must take the parameters their form passes;
 * hands ptxas's registers to the virtual GPU, and has it
 * compile them now: every kernel runs at the exercise's assessed size
 * (100M elements for most), so its correctness cases and the start of its
 * big launch run compiled rather than in the interpreter until the virtual
 * GPU's own threshold (histogram: 0.05 of 1.4 s). */
static enum load_outcome load_side(struct grading *g, int side, char *error, size_t size)
{
    struct cuda_api *api = &g->api;
    struct grader_compile_result *r = &g->compiled[side];
    struct numba_side *numba = &g->numba[side];
    enum load_outcome loaded =
        numba->is_numba ? LOADED : load_module(g, side, r->ptx, &g->modules[side], error, size);
    for (int k = 0; loaded == LOADED && k < g->exercise.n_kernels; k++) {
        const char *entry = r->lowered_names[k];
        if (numba->is_numba)
            loaded = load_module(g, side, numba->ptx[k], &numba->modules[k], error, size);
        CUmodule module = numba->is_numba ? numba->modules[k] : g->modules[side];
        if (loaded == LOADED &&
            api->cuModuleGetFunction(&g->functions[side][k], module, entry) != CUDA_SUCCESS) {
            snprintf(error, size, "the kernel %.200s is not in the loaded module", entry);
            return numba->is_numba ? REFUSED : LOAD_FAILED; /* the module's result lied */
        }
        if (loaded == LOADED)
            loaded = check_params(g, side, k, error, size);
        for (size_t i = 0; loaded == LOADED && api->kgemu_set_registers && i < r->n_kernels; i++)
            if (strcmp(r->kernels[i].name, entry) == 0 && r->kernels[i].registers > 0)
                api->kgemu_set_registers(g->functions[side][k], r->kernels[i].registers);
    }
    return loaded;
}

/* On the virtual GPU, every kernel of every loaded side (the reference's,
 * its alternative's, the student's) compiled now, at once on as many host
 * threads (each runs at the assessed size, so even the correctness cases
 * run compiled): a Numba grading's kernels cost the time of the longest
 * compile. */
static void compile_loaded_sides(struct grading *g)
{
    void *functions[GRADE_SIDES * EXERCISE_KERNELS_MAX];
    int n = 0;
    for (int side = 0; side < GRADE_SIDES; side++)
        for (int k = 0; k < g->exercise.n_kernels; k++)
            if (g->functions[side][k]) /* a side the caller loaded */
                functions[n++] = g->functions[side][k];
    if (g->api.kgemu_compile_all)
        g->api.kgemu_compile_all(functions, n);
}

/* The student's compile: rejected, compile_error, or on to the checks. */
static enum grader_verdict compile_student(struct grading *g, char *message, size_t size)
{
    const struct grader_request *q = g->request;
    grade_phase(g, GRADER_PHASE_COMPILE);
    if (host_form_requested(q))
        return host_form_start(g, message, size);
    if (q->language == GRADER_LANGUAGE_NUMBA)
        return numba_student_side(g, message, size);
    const char *file = q->file_name ? q->file_name : GRADER_DEFAULT_FILE_NAME;
    enum grader_compile_status s = grade_compile_side(g, 1, q->source, q->size, file);
    snprintf(message, size, "%s", g->compiled[1].message);
    if (s == GRADER_COMPILE_REJECTED)
        return GRADER_VERDICT_REJECTED;
    if (s == GRADER_COMPILE_ERROR)
        return GRADER_VERDICT_COMPILE_ERROR;
    if (s != GRADER_COMPILE_OK)
        return GRADER_VERDICT_INTERNAL_ERROR;
    for (int k = 0; k < g->exercise.n_kernels; k++)
        if (!signature_check(&g->exercise, k, g->compiled[1].ptx, g->compiled[1].lowered_names[k],
                             message))
            return GRADER_VERDICT_REJECTED;
    return GRADER_VERDICT_PASSED;
}

bool grade_compile_reference(struct grading *g, const char *source, size_t size, char *error,
                             size_t error_size)
{
    int sides = exercise_has_alternative(&g->exercise) ? 2 : 1;
    for (int i = 0; i < sides; i++) {
        int side = i == 0 ? SIDE_REFERENCE : SIDE_ALTERNATIVE;
        if (grade_compile_side(g, side, source, size, REFERENCE_FILE) != GRADER_COMPILE_OK) {
            snprintf(error, error_size, "the reference does not compile: %.300s",
                     g->compiled[side].message);
            return false;
        }
    }
    return true;
}

/* The reference's PTX: handed to the job, or compiled here from the
 * exercise's files (`files`, read when the request came without them). */
static bool obtain_reference(struct grading *g, const struct grader_exercise_files *files,
                             char *message, size_t size)
{
    if (g->request->reference)
        return reference_from_json(g, g->request->reference, message, size);
    return grade_compile_reference(g, files->reference, files->reference_size, message, size);
}

static enum grader_verdict prepare_reference(struct grading *g,
                                             const struct grader_exercise_files *files,
                                             char *message, size_t size)
{
    if (!obtain_reference(g, files, message, size))
        return GRADER_VERDICT_INTERNAL_ERROR;
    CUdevice device;
    if (g->api.cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        g->api.cuCtxCreate(&g->context, NULL, 0, device) != CUDA_SUCCESS) {
        snprintf(message, size, "no CUDA context could be created");
        return GRADER_VERDICT_INTERNAL_ERROR;
    }
    if (load_side(g, SIDE_REFERENCE, message, size) != LOADED ||
        (exercise_has_alternative(&g->exercise) &&
         load_side(g, SIDE_ALTERNATIVE, message, size) != LOADED))
        return GRADER_VERDICT_INTERNAL_ERROR;
    return grade_load_student(g, message, size);
}

enum grader_verdict grade_load_student(struct grading *g, char *message, size_t size)
{
    switch (load_side(g, 1, message, size)) {
    case LOADED:
        compile_loaded_sides(g);
        return GRADER_VERDICT_PASSED;
    case REFUSED: /* the student's own code: said as a compile error, never ours */
        return GRADER_VERDICT_COMPILE_ERROR;
    case MISMATCHED:
        return GRADER_VERDICT_REJECTED;
    default:
        return GRADER_VERDICT_INTERNAL_ERROR;
    }
}

/* 100000000 as "100,000,000". */
static void group_thousands(long long value, char *out, size_t size)
{
    char digits[32];
    unsigned long long magnitude =
        value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    int n = snprintf(digits, sizeof digits, "%llu", magnitude);
    size_t used = 0;
    if (value < 0 && used + 1 < size)
        out[used++] = '-';
    for (int i = 0; i < n && used + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0 && used + 2 < size)
            out[used++] = ',';
        out[used++] = digits[i];
    }
    out[used] = '\0';
}

/* "n = 1000003" or "rows = 1001, cols = 999"; with `grouped`, thousands
 * apart: "n = 100,000,000". */
static void sizes_text(const struct exercise *e, const struct exercise_case *c, bool grouped,
                       char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < e->n_sizes && used < size; i++) {
        char number[32];
        if (grouped)
            group_thousands((long long)c->values[i], number, sizeof number);
        else
            snprintf(number, sizeof number, "%lld", (long long)c->values[i]);
        used += (size_t)snprintf(out + used, size - used, "%s%s = %s", i ? ", " : "", e->sizes[i],
                                 number);
    }
}

/* "with n = 1000003: " or "with rows = 1001, cols = 999: ", then the
 * case's own sentence. */
static void case_message(const struct exercise *e, const struct exercise_case *c, const char *what,
                         char *message, size_t size)
{
    char sizes[160];
    sizes_text(e, c, false, sizes, sizeof sizes);
    snprintf(message, size, "with %s: %.300s", sizes, what);
}

/* The progress's label of a case: "assessment, n = 100,000,000". */
static void label_case(struct grading *g, const struct exercise_case *c, bool assessed)
{
    sizes_text(&g->exercise, c, true, g->case_sizes, sizeof g->case_sizes);
    g->case_assessed = assessed;
    snprintf(g->case_label, sizeof g->case_label, "%s%s", assessed ? "assessment, " : "",
             g->case_sizes);
}

/* --n N's case: the sizes as large as the first one at the assessment (n;
 * rows and cols of a square) become N, the others (a bin count) stay. */
static struct exercise_case quick_case(const struct exercise *e, int64_t n)
{
    struct exercise_case only = e->assessed;
    for (int i = 0; i < e->n_sizes; i++)
        if (e->assessed.values[i] == e->assessed.values[0])
            only.values[i] = n;
    return only;
}

/* The bytes of a case's buffers (each kept on the device and on the host);
 * HUGE_VAL when a length does not evaluate. */
static double case_buffer_bytes(const struct exercise *e, const struct exercise_case *c)
{
    struct expr_binding bindings[EXERCISE_SIZES_MAX];
    struct expr_env env;
    exercise_env(e, c, bindings, &env);
    double bytes = 0;
    for (int i = 0; i < e->n_buffers; i++) {
        int64_t count;
        char ignored[GRADER_MESSAGE_MAX];
        if (!expr_eval(e->buffers[i].length, &env, &count, ignored, sizeof ignored) || count < 0)
            return HUGE_VAL;
        bytes += (double)count * (double)value_type_bytes(e->buffers[i].type);
    }
    return bytes;
}

/* The most bytes of buffers a case may have here: the device's memory, and
 * on the virtual GPU (whose device memory is the host's, beside the
 * grader's own copy of each buffer) half the host's. */
static double buffer_capacity(const struct grading *g)
{
    CUdevice device;
    size_t total = 0;
    if (g->api.cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        g->api.cuDeviceTotalMem(&total, device) != CUDA_SUCCESS)
        return HUGE_VAL; /* unknown: the allocation will say */
    double capacity = (double)total;
    double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / 2;
    return g->api.emulated && host > 0 && host < capacity ? host : capacity;
}

/* --n is a quick try at any size the device can hold; a larger one is the
 * user's mistake, said before anything runs (not an allocation failure,
 * which would be kgrade's internal_error). */
static bool quick_case_fits(const struct grading *g, char *error, size_t size)
{
    const struct exercise *e = &g->exercise;
    if (g->request->n <= 0 || g->request->correctness_only)
        return true;
    struct exercise_case only = quick_case(e, g->request->n);
    double bytes = case_buffer_bytes(e, &only), capacity = buffer_capacity(g);
    if (bytes <= capacity)
        return true;
    char sizes[160];
    sizes_text(e, &only, true, sizes, sizeof sizes);
    snprintf(error, size,
             "--n %lld makes buffers of %.3g GB (%s), more than %s can hold (%.3g GB): give a "
             "smaller --n",
             (long long)g->request->n, bytes / 1e9, sizes,
             g->api.emulated ? "the virtual GPU (half the host's memory)" : "the device",
             capacity / 1e9);
    return false;
}

/* Each correctness case, then the assessment case (or the --n case). */
static enum grader_verdict run_cases(struct grading *g, json_t *cases, char *message, size_t size)
{
    const struct exercise *e = &g->exercise;
    struct exercise_case only = quick_case(e, g->request->n);
    bool only_n = g->request->n > 0 && !g->request->correctness_only;
    int total = only_n ? 1 : g->request->correctness_only ? e->n_cases : e->n_cases + 1;
    g->n_cases = total;
    for (int k = 0; k < total; k++) {
        g->case_index = k;
        const struct exercise_case *c = only_n           ? &only
                                        : k < e->n_cases ? &e->cases[k]
                                                         : &e->assessed;
        /* the last case is timed, but for a trial, which times nothing */
        bool timed = k == total - 1 && !g->request->correctness_only;
        struct case_outcome out;
        label_case(g, c, g->assessment && k == total - 1);
        if (!grade_case(g, c, timed, &out, message, size)) {
            json_decref(out.json);
            return GRADER_VERDICT_INTERNAL_ERROR;
        }
        json_array_append_new(cases, out.json);
        if (out.verdict == GRADER_VERDICT_TOO_SLOW) /* only ever at the assessment */
            snprintf(message, size, "%s", out.message);
        else if (out.verdict != GRADER_VERDICT_PASSED)
            case_message(e, c, out.message, message, size);
        if (out.verdict != GRADER_VERDICT_PASSED)
            return out.verdict;
    }
    return GRADER_VERDICT_PASSED;
}

/* A trial's pass: correct at every correctness size, the speed not judged. */
static enum grader_verdict correct_up_to(struct grading *g, char *message, size_t size)
{
    const struct exercise *e = &g->exercise;
    char sizes[160] = "";
    if (e->n_cases > 0)
        sizes_text(e, &e->cases[e->n_cases - 1], true, sizes, sizeof sizes);
    snprintf(message, size,
             "correct at every correctness size, up to %s; the speed is judged only when you "
             "submit",
             sizes);
    return GRADER_VERDICT_PASSED;
}

static enum grader_verdict judge_speed(struct grading *g, char *message, size_t size)
{
    if (g->request->correctness_only)
        return correct_up_to(g, message, size);
    double ratio = g->reference_ms > 0 ? g->student_ms / g->reference_ms : 0;
    char times[GRADER_NUMBER_TEXT_MAX], bar[GRADER_NUMBER_TEXT_MAX];
    char student[GRADER_NUMBER_TEXT_MAX], reference[GRADER_NUMBER_TEXT_MAX];
    grader_ratio_text(ratio, times);
    grader_ratio_text(g->exercise.max_ratio, bar);
    if (g->lower_bound || ratio > g->exercise.max_ratio) {
        snprintf(message, size,
                 "correct, but %s%s the reference's time (%s against %s); the bar is %s",
                 g->lower_bound ? "at least " : "", times, grader_ms_text(g->student_ms, student),
                 grader_ms_text(g->reference_ms, reference), bar);
        return GRADER_VERDICT_TOO_SLOW;
    }
    snprintf(message, size, "correct; time as a ratio to the reference's: %s (the bar is %s)",
             times, bar);
    return GRADER_VERDICT_PASSED;
}

/* The speed's verdict; for the host form, its message says where the time
 * went (the copies of the student's call against the reference's) or, on
 * a real GPU, how it was measured (host_speed_text); on the virtual GPU,
 * the host's CPU when an assessment's call used too much of it (a wall
 * clock counts that work already). */
static enum grader_verdict judge_speed_and_copies(struct grading *g, char *message, size_t size)
{
    enum grader_verdict v = judge_speed(g, message, size);
    if (!g->host || !g->host->timed_known || g->request->correctness_only)
        return v;
    double bar_ms;
    if (v == GRADER_VERDICT_PASSED && g->assessment && !g->request->host_wall_time &&
        host_cpu_too_much(g->host, &bar_ms)) {
        char cpu[GRADER_MESSAGE_MAX / 2];
        host_cpu_text(g->host, g->exercise.numba_host.function, bar_ms, cpu, sizeof cpu);
        snprintf(message, size, "correct, but %s", cpu);
        return GRADER_VERDICT_TOO_SLOW;
    }
    size_t used = strlen(message);
    char copies[GRADER_MESSAGE_MAX / 2];
    host_speed_text(g, copies, sizeof copies);
    snprintf(message + used, size - used, ": %s", copies);
    return v;
}

static void release(struct grading *g)
{
    bool driver = !g->api.stuck; /* a stuck kernel: every unload would wait for it */
    for (int side = 0; side < GRADE_SIDES; side++) {
        if (g->modules[side] && driver)
            g->api.cuModuleUnload(g->modules[side]);
        for (int k = 0; k < EXERCISE_KERNELS_MAX && driver; k++)
            if (g->numba[side].modules[k])
                g->api.cuModuleUnload(g->numba[side].modules[k]);
        numba_side_free(&g->numba[side]);
        grader_compile_result_free(&g->compiled[side]);
    }
    if (g->context && driver)
        g->api.cuCtxDestroy(g->context);
    host_form_stop(g);
    cuda_api_unload(&g->api);
    json_decref(g->diagnostics);
    output_capture_release(&g->output);
}

bool grade_open_device(struct grading *g, char *error, size_t size)
{
    static const enum cuda_device_choice choices[] = {
        [GRADER_DEVICE_AUTO] = CUDA_DEVICE_AUTO,
        [GRADER_DEVICE_CUDA] = CUDA_DEVICE_REAL,
        [GRADER_DEVICE_EMULATOR] = CUDA_DEVICE_EMULATOR,
    };
    char beside[4096];
    const char *emulator = g->request->emulator;
    if (!emulator && cuda_api_emulator_path(beside, sizeof beside))
        emulator = beside;
    /* the host form's jobs are served by the virtual GPU, unless they have
     * drivers of their own (a real GPU's: host_wall.c) */
    enum cuda_device_choice choice = host_form_requested(g->request) &&
                                             !g->request->host_wall_time &&
                                             g->request->device == GRADER_DEVICE_AUTO
                                         ? CUDA_DEVICE_EMULATOR
                                         : choices[g->request->device];
    return cuda_api_load(&g->api, choice, emulator, error, size);
}

/* The exercise of the request: given whole (a job in the sandbox, which
 * has no view of the exercise folder), or read here from the folder, with
 * the reference's source in `files`. */
static bool load_exercise(struct grading *g, struct grader_exercise_files *files, char *error,
                          size_t size)
{
    const struct grader_request *q = g->request;
    memset(files, 0, sizeof *files);
    if (q->definition) {
        snprintf(g->version, sizeof g->version, "%s", q->version ? q->version : "");
        return exercise_parse(q->definition, q->definition_size, "exercise.json", &g->exercise,
                              error, size);
    }
    if (!grader_exercise_read(q->exercises, q->exercise, files, error, size))
        return false;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/exercise.json", q->exercises, q->exercise);
    snprintf(g->version, sizeof g->version, "%s", files->version);
    return exercise_parse(files->definition, files->definition_size, path, &g->exercise, error,
                          size);
}

/* A grading of `request` with nothing done yet; NULL when out of memory. */
static struct grading *grading_new(const struct grader_request *request, uint64_t seed)
{
    struct grading *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->request = request;
    g->seed = seed;
    g->assessment = request->n <= 0 && !request->correctness_only;
    g->diagnostics = json_array();
    output_capture_init(&g->output);
    return g;
}

static void grading_free(struct grading *g)
{
    release(g);
    free(g);
}

json_t *grader_grade(const struct grader_request *request, enum grader_verdict *verdict,
                     char *error, size_t error_size)
{
    struct grading *g =
        grading_new(request, request->seed_given ? request->seed : grader_fresh_seed());
    char message[GRADER_MESSAGE_MAX] = "";
    struct grader_exercise_files files;
    if (!g) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    if (!load_exercise(g, &files, error, error_size) || !grade_open_device(g, error, error_size) ||
        !quick_case_fits(g, error, error_size)) {
        grader_exercise_files_free(&files);
        grading_free(g);
        return NULL;
    }
    g->timing = request->timing != GRADER_TIMING_AUTO ? request->timing
                : g->api.emulated                     ? GRADER_TIMING_SINGLE
                                                      : GRADER_TIMING_REPEATED;
    json_t *cases = json_array();
    enum grader_verdict v = compile_student(g, message, sizeof message);
    bool compiled = v == GRADER_VERDICT_PASSED;
    if (v == GRADER_VERDICT_PASSED && !g->host)
        v = prepare_reference(g, &files, message, sizeof message);
    grader_exercise_files_free(&files);
    if (v == GRADER_VERDICT_PASSED)
        v = run_cases(g, cases, message, sizeof message);
    if (v == GRADER_VERDICT_PASSED)
        v = judge_speed_and_copies(g, message, sizeof message);
    *verdict = v;
    json_t *result = grade_json(g, v, message, cases, compiled);
    grading_free(g);
    return result;
}

json_t *grader_verdict_json(const struct grader_request *request, enum grader_verdict verdict,
                            const char *message, bool compiled)
{
    return grader_verdict_json_on(request, verdict, message, compiled, NULL);
}

json_t *grader_verdict_json_on(const struct grader_request *request, enum grader_verdict verdict,
                               const char *message, bool compiled, const char *device_name)
{
    struct grading *g = grading_new(request, request->seed);
    char ignored[GRADER_MESSAGE_MAX];
    struct grader_exercise_files files;
    if (!g)
        return NULL;
    if (!load_exercise(g, &files, ignored, sizeof ignored))
        snprintf(g->exercise.id, sizeof g->exercise.id, "%s", request->exercise);
    grader_exercise_files_free(&files);
    snprintf(g->api.device_name, sizeof g->api.device_name, "%s",
             device_name && device_name[0] ? device_name
                                           : "unknown (the job ended before it reported)");
    g->compiled[1].status = compiled                                  ? GRADER_COMPILE_OK
                            : verdict == GRADER_VERDICT_COMPILE_ERROR ? GRADER_COMPILE_ERROR
                                                                      : GRADER_COMPILE_INTERNAL;
    snprintf(g->compiled[1].message, sizeof g->compiled[1].message, "%s",
             compiled ? "compiled" : message);
    json_t *cases = json_array();
    json_t *result = grade_json(g, verdict, message, cases, compiled);
    grading_free(g);
    return result;
}

json_t *grader_reference_build(const char *definition, size_t definition_size,
                               const char *reference, size_t reference_size,
                               enum grader_device device, const char *emulator, char *error,
                               size_t error_size)
{
    struct grader_request request = {.device = device, .emulator = emulator};
    struct grading *g = grading_new(&request, 0);
    json_t *built = NULL;
    if (!g) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    if (exercise_parse(definition, definition_size, "exercise.json", &g->exercise, error,
                       error_size) &&
        grade_open_device(g, error, error_size) &&
        grade_compile_reference(g, reference, reference_size, error, error_size) &&
        !(built = reference_to_json(g)))
        snprintf(error, error_size, "out of memory");
    grading_free(g);
    return built;
}

bool grader_emulator_path(char *path, size_t size)
{
    return cuda_api_emulator_path(path, size);
}
