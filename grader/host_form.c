/*
 * The host form's grading (host_form.h): both host jobs' driver sessions
 * served and their modules imported, then per case the inputs, the
 * reference's call, the student's call and what it returned judged.
 */
#include "host_form.h"

#include "grade_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

bool host_form_requested(const struct grader_request *request)
{
    const char *form = json_string_value(json_object_get(request->numba, "form"));
    return request->language == GRADER_LANGUAGE_NUMBA && form && strcmp(form, "host") == 0;
}

/* ------------------------------------------------------------ the jobs */

/* The request's host form is the exercise's, on a driver that can serve
 * it (unless the jobs have drivers of their own); else why not. */
static bool host_form_possible(const struct grading *g, char *message, size_t size)
{
    const char *function = json_string_value(json_object_get(g->request->numba, "function"));
    if (!g->exercise.has_numba_host || !function ||
        strcmp(function, g->exercise.numba_host.function) != 0) {
        snprintf(message, size,
                 "the request grades a host form, which exercise '%s' does not declare for "
                 "'%.64s'",
                 g->exercise.id, function ? function : "");
        return false;
    }
    const struct cuda_api *api = &g->api;
    if (host_wall_requested(g)) /* the jobs' drivers are their own */
        return true;
    if (!api->kgemu_serve_start || !api->kgemu_served_stats || !api->kgemu_served_copies ||
        !api->kgemu_served_settle || !api->kgemu_serve_stop || !api->kgemu_hash ||
        !api->kgemu_served_uploaded_bytes) {
        snprintf(message, size,
                 "the host form runs on kgrade's virtual GPU, which serves its jobs' drivers; "
                 "this driver cannot (grade with --device emulator)");
        return false;
    }
    return true;
}

/* Both sessions served; false with the error. */
static bool serve_jobs(struct grading *g, char *message, size_t size)
{
    static const int fds[HOST_SIDES][3] = {
        [HOST_REFERENCE] = {HOST_REFERENCE_DRIVER_FD, HOST_REFERENCE_CALLS_FD,
                            HOST_REFERENCE_CPU_FD},
        [HOST_STUDENT] = {HOST_STUDENT_DRIVER_FD, HOST_STUDENT_CALLS_FD, HOST_STUDENT_CPU_FD},
    };
    if (!(g->host = calloc(1, sizeof *g->host))) {
        snprintf(message, size, "out of memory");
        return false;
    }
    for (int side = 0; side < HOST_SIDES; side++) { /* both known before either starts */
        g->host->jobs[side].driver_fd = fds[side][0];
        g->host->jobs[side].calls_fd = fds[side][1];
        g->host->jobs[side].cpu_fd = fds[side][2];
    }
    g->host->wall_time = host_wall_requested(g);
    for (int side = 0; side < HOST_SIDES && !g->host->wall_time; side++) {
        struct host_job *job = &g->host->jobs[side];
        int rc = g->api.kgemu_serve_start(job->driver_fd, &job->served);
        if (rc != 0) {
            char what[256];
            cuda_api_describe(&g->api, (CUresult)rc, what, sizeof what);
            snprintf(message, size, "the %s host job's driver cannot be served on fd %d (%s)",
                     side == HOST_REFERENCE ? "reference's" : "student's", job->driver_fd, what);
            return false;
        }
    }
    return true;
}

/* The student's job says whether the module imported. */
static enum grader_verdict student_ready(struct grading *g, char *message, size_t size)
{
    char text[GRADER_MESSAGE_MAX];
    struct grader_compile_result *r = &g->compiled[SIDE_STUDENT];
    enum host_reply reply =
        host_receive(HOST_STUDENT_CALLS_FD, HOST_READY_SECONDS, text, sizeof text);
    enum grader_verdict v = reply == HOST_REPLY_READY           ? GRADER_VERDICT_PASSED
                            : reply == HOST_REPLY_IMPORT_FAILED ? GRADER_VERDICT_COMPILE_ERROR
                            : reply == HOST_REPLY_LATE          ? GRADER_VERDICT_TIMEOUT
                                                                : GRADER_VERDICT_RUNTIME_ERROR;
    const char *function = g->exercise.numba_host.function;
    if (v == GRADER_VERDICT_COMPILE_ERROR)
        snprintf(message, size, "the module failed to import: %.400s", text);
    else if (v == GRADER_VERDICT_TIMEOUT)
        snprintf(message, size, "importing the module took longer than %.0f s", HOST_READY_SECONDS);
    else if (v == GRADER_VERDICT_RUNTIME_ERROR)
        snprintf(message, size, "the program ended while its module was imported");
    else
        snprintf(message, size,
                 "the module imported; %.64s is called with the exercise's inputs (the host form)",
                 function);
    r->status = v == GRADER_VERDICT_COMPILE_ERROR ? GRADER_COMPILE_ERROR : GRADER_COMPILE_OK;
    snprintf(r->message, sizeof r->message, "%s", message);
    return v;
}

enum grader_verdict host_form_start(struct grading *g, char *message, size_t size)
{
    char text[GRADER_MESSAGE_MAX];
    g->compiled[SIDE_STUDENT].log = strdup("");
    if (!g->compiled[SIDE_STUDENT].log || !host_form_possible(g, message, size) ||
        !serve_jobs(g, message, size))
        return GRADER_VERDICT_INTERNAL_ERROR;
    enum host_reply reply =
        host_receive(HOST_REFERENCE_CALLS_FD, HOST_READY_SECONDS, text, sizeof text);
    if (reply != HOST_REPLY_READY) {
        snprintf(message, size,
                 "the host form's reference (reference_host.py) did not import%s%.300s",
                 text[0] ? ": " : "", text);
        return GRADER_VERDICT_INTERNAL_ERROR;
    }
    return student_ready(g, message, size);
}

void host_form_stop(struct grading *g)
{
    if (!g->host)
        return;
    for (int side = 0; side < HOST_SIDES; side++) {
        struct host_job *job = &g->host->jobs[side];
        close(job->calls_fd); /* the job's end: it exits, closing its driver */
        close(job->cpu_fd);
        /* a stuck call may hold the device (an endless kernel): stopping
         * any session destroys its context, which would wait for it */
        if (job->served && !g->api.stuck)
            g->api.kgemu_serve_stop(job->served);
    }
    free(g->host);
    g->host = NULL;
}

/* ----------------------------------------------------------- the calls */

/* Buffer i as numba_host.py's protocol describes an array: {"dtype":
 * "float32", "shape": [N]}, or [rows, columns] for a 2-D output. */
static json_t *array_json(const struct run *r, int i)
{
    const struct run_buffer *b = &r->buffers[i];
    const char *dtype = value_type_numpy_name(b->spec->type);
    int64_t columns = b->spec->columns[0] ? expr_value(b->spec->columns, &r->env) : 0;
    if (columns > 0)
        return json_pack("{s:s, s:[I, I]}", "dtype", dtype, "shape",
                         (json_int_t)(b->count / (size_t)columns), (json_int_t)columns);
    return json_pack("{s:s, s:[I]}", "dtype", dtype, "shape", (json_int_t)b->count);
}

/* An input's values kept only in its sealed memfd, mapped read-only (the
 * host's copy freed: at the assessed size, hundreds of MB each). */
static void keep_in_memfd(struct run_buffer *b, int fd)
{
    void *view = b->bytes ? mmap(NULL, b->bytes, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (view == MAP_FAILED)
        return; /* the copy stays */
    free(b->pristine);
    b->pristine = view;
    b->mapped = true;
}

/* The call's request (malloc'ed JSON text): each argument a size's
 * value, an input array (its memfd in `fds`, `*n` of them, in order) or
 * the module's name. NULL with r->error set. */
static char *call_request(struct run *r, int returned, int fds[HOST_DESCRIPTORS_MAX], int *n)
{
    const struct exercise_numba_host *h = &r->g->exercise.numba_host;
    json_t *arguments = json_array();
    *n = 0;
    for (int i = 0; i < h->argument_count; i++) {
        int index;
        switch (exercise_host_argument(&r->g->exercise, i, &index)) {
        case HOST_ARGUMENT_SIZE:
            json_array_append_new(arguments,
                                  json_pack("{s:I}", "int", (json_int_t)r->c->values[index]));
            break;
        case HOST_ARGUMENT_BUFFER:
            json_array_append_new(arguments, json_pack("{s:o}", "array", array_json(r, index)));
            fds[(*n)++] = host_sealed_memfd(h->arguments[i], r->buffers[index].pristine,
                                            r->buffers[index].bytes);
            if (fds[*n - 1] >= 0)
                keep_in_memfd(&r->buffers[index], fds[*n - 1]);
            if (fds[*n - 1] < 0) {
                json_decref(arguments);
                run_fail(r, "no memory for the input '%s'", h->arguments[i]);
                return NULL;
            }
            break;
        case HOST_ARGUMENT_MODULE:
            json_array_append_new(arguments, json_pack("{s:s}", "module", h->arguments[i]));
            break;
        }
    }
    json_t *request = json_pack("{s:s, s:o, s:o}", "call", h->function, "arguments", arguments,
                                "returns", array_json(r, returned));
    char *text = json_dumps(request, JSON_COMPACT);
    json_decref(request);
    if (!text)
        run_fail(r, "out of memory");
    return text;
}

/* A call's JSON in the case's "calls". */
static void note_call(struct grading *g, struct case_outcome *out, enum host_side side,
                      const struct host_call_stats *stats, double seconds)
{
    json_t *calls = json_object_get(out->json, "calls");
    if (!calls)
        json_object_set_new(out->json, "calls", calls = json_object());
    json_object_set_new(calls, side == HOST_REFERENCE ? "reference" : "student",
                        host_call_figures(g->host, stats, seconds));
}

/* A call outlived its limit: its session is left serving it (a kernel may
 * hold the device's lock), and the driver is stuck from now on: no session
 * is stopped, nothing released or unloaded that would wait for it
 * (host_form.h). */
void host_job_stuck(struct grading *g, struct host_job *job)
{
    job->stuck = true;
    g->api.stuck = true;
}

/* The reference's call: its array in the output's `expected`, its times
 * the case's yardsticks. False with r->error set. */
static bool call_reference(struct run *r, const char *request, const int *fds, int n, int returned,
                           bool timed, struct case_outcome *out)
{
    struct grading *g = r->g;
    struct run_buffer *b = &r->buffers[returned];
    struct host_call_stats stats;
    char text[GRADER_MESSAGE_MAX];
    double took;
    bool own;
    grade_phase(g, GRADER_PHASE_REFERENCE);
    enum host_reply reply =
        host_call(g, &g->host->jobs[HOST_REFERENCE], request, fds, n, b->expected, b->bytes,
                  HOST_REFERENCE_CALL_SECONDS, &stats, &took, text, sizeof text, &own);
    if (reply == HOST_REPLY_LATE)
        host_job_stuck(g, &g->host->jobs[HOST_REFERENCE]);
    if (reply != HOST_REPLY_RETURNED)
        return run_fail(r, "the host form's reference (reference_host.py) did not return: %.300s",
                        text[0] ? text : "it ended, or said something else");
    g->case_reference_seconds = took;
    g->case_reference_ms = host_call_ms(g->host, &stats, took);
    if (timed) {
        g->reference_ms = g->case_reference_ms;
        g->host->timed[HOST_REFERENCE] = stats;
    }
    note_call(g, out, HOST_REFERENCE, &stats, took);
    return true;
}

double host_student_limit(const struct grading *g)
{
    double limit = HOST_STUDENT_CALL_FACTOR * g->case_reference_seconds;
    return limit > HOST_STUDENT_CALL_FLOOR_SECONDS ? limit : HOST_STUDENT_CALL_FLOOR_SECONDS;
}

void host_student_failed(struct run *r, enum host_reply reply, const char *text, double limit,
                         struct case_outcome *out)
{
    const char *function = r->g->exercise.numba_host.function;
    char seconds[GRADER_NUMBER_TEXT_MAX];
    out->verdict = reply == HOST_REPLY_WRONG  ? GRADER_VERDICT_WRONG_ANSWER
                   : reply == HOST_REPLY_LATE ? GRADER_VERDICT_TIMEOUT
                                              : GRADER_VERDICT_RUNTIME_ERROR;
    if (reply == HOST_REPLY_WRONG)
        snprintf(out->message, sizeof out->message, "%.400s", text);
    else if (reply == HOST_REPLY_RAISED)
        snprintf(out->message, sizeof out->message, "%.64s raised an exception: %.400s", function,
                 text);
    else if (reply == HOST_REPLY_LATE)
        snprintf(out->message, sizeof out->message,
                 "%.64s ran longer than its %s limit on this case (%g× the reference's call, at "
                 "least %g s) and was stopped",
                 function, grader_ms_text(limit * 1e3, seconds), HOST_STUDENT_CALL_FACTOR,
                 HOST_STUDENT_CALL_FLOOR_SECONDS);
    else if (reply == HOST_REPLY_OUT_OF_TURN)
        snprintf(out->message, sizeof out->message,
                 "the program sent a message before %.64s was called (%.200s on the call "
                 "channel, where only kgrade's runner speaks, to answer a call)",
                 function, text);
    else
        snprintf(out->message, sizeof out->message, "the program ended during %.64s", function);
}

/* A numba kernel's name as the module wrote it: its PTX name is
 * "_ZN6cudapy" + the module's length-prefixed name + the kernel's + ABI
 * tags ("_ZN6cudapy21__kgrade_submission__4peekB2v1B106…", cut at the
 * fault's room for it): the last identifier of the nested name. Any other
 * name is kept whole. */
static void numba_kernel_name(const char *ptx_name, char *out, size_t size)
{
    static const char prefix[] = "_ZN6cudapy";
    snprintf(out, size, "%s", ptx_name);
    if (strncmp(ptx_name, prefix, sizeof prefix - 1) != 0)
        return;
    const char *at = ptx_name + sizeof prefix - 1, *last = NULL;
    unsigned long last_length = 0;
    int names = 0;
    while (*at >= '1' && *at <= '9') {
        char *end;
        unsigned long length = strtoul(at, &end, 10);
        if (strnlen(end, length) < length)
            break; /* cut short */
        last = end;
        last_length = length;
        names++;
        at = end + length;
    }
    if (names >= 2) /* the module's, then the kernel's */
        snprintf(out, size, "%.*s", (int)last_length, last);
}

/* A call that raised or ended after a launch of its faulted: the device's
 * sentence as the kernel form gives it (memory_error for an access outside
 * the module's arrays, runtime_error for a trap or an assert), where numba
 * only says "CudaAPIError [700]". False when the session had no fault. */
static bool student_fault(struct grading *g, enum host_reply reply, struct case_outcome *out)
{
    struct kgemu_fault f;
    struct kgemu_served *served = g->host->jobs[HOST_STUDENT].served;
    if ((reply != HOST_REPLY_RAISED && reply != HOST_REPLY_ENDED) || !g->api.kgemu_served_fault ||
        g->api.kgemu_served_fault(served, &f) != 1 || f.code == 0)
        return false;
    bool memory = f.code == CUDA_ERROR_ILLEGAL_ADDRESS || f.code == CUDA_ERROR_MISALIGNED_ADDRESS;
    out->verdict = memory ? GRADER_VERDICT_MEMORY_ERROR : GRADER_VERDICT_RUNTIME_ERROR;
    char kernel[KGEMU_NAME_MAX];
    numba_kernel_name(f.kernel, kernel, sizeof kernel);
    snprintf(out->message, sizeof out->message, "%.300s, in kernel '%.64s' called by %.64s",
             f.message, kernel, g->exercise.numba_host.function);
    return true;
}

/* What the student's call returned: from the GPU, then right. False with
 * r->error set. */
static bool judge_returned(struct run *r, int returned, const struct host_call_stats *stats,
                           const void *actual, struct case_outcome *out)
{
    grade_phase(r->g, GRADER_PHASE_CHECK);
    struct host_job *student = &r->g->host->jobs[HOST_STUDENT];
    if (r->g->host->wall_time) /* no session to tell where it came from: its time says */
        return run_check_returned(r, returned, actual, out);
    if (!host_returned_from_gpu(r->g, student, stats, actual, r->buffers[returned].bytes,
                                out->message, sizeof out->message)) {
        out->verdict = GRADER_VERDICT_WRONG_ANSWER;
        return true;
    }
    if (!run_check_returned(r, returned, actual, out))
        return false;
    /* right values: were they computed on the GPU from the inputs? */
    if (out->verdict == GRADER_VERDICT_PASSED &&
        !host_inputs_sent(r->g, student, r->buffers, out->message, sizeof out->message))
        out->verdict = GRADER_VERDICT_WRONG_ANSWER;
    return true;
}

/* The student's call, judged into `out`. False with r->error set. */
static bool call_student(struct run *r, const char *request, const int *fds, int n, int returned,
                         bool timed, struct case_outcome *out)
{
    struct grading *g = r->g;
    struct host_job *job = &g->host->jobs[HOST_STUDENT];
    size_t bytes = r->buffers[returned].bytes;
    void *actual = malloc(bytes ? bytes : 1);
    struct host_call_stats stats;
    char text[GRADER_MESSAGE_MAX];
    double took, limit = host_student_limit(g);
    bool own;
    if (!actual)
        return run_fail(r, "out of host memory for the returned array");
    g->timed_case = timed && g->assessment;
    grade_phase(g, GRADER_PHASE_STUDENT);
    enum host_reply reply = host_call(g, job, request, fds, n, actual, bytes, limit, &stats, &took,
                                      text, sizeof text, &own);
    if (reply == HOST_REPLY_LATE)
        host_job_stuck(g, job);
    note_call(g, out, HOST_STUDENT, &stats, took);
    bool ok = !own || run_fail(r, "%s", text);
    if (ok && reply == HOST_REPLY_RETURNED && timed) {
        g->student_ms = host_call_ms(g->host, &stats, took);
        g->host->timed[HOST_STUDENT] = stats;
        g->host->timed_known = true;
    }
    if (ok && reply == HOST_REPLY_RETURNED)
        ok = judge_returned(r, returned, &stats, actual, out);
    else if (ok && !student_fault(g, reply, out))
        host_student_failed(r, reply, text, limit, out);
    free(actual);
    return ok;
}

bool host_case(struct grading *g, const struct exercise_case *c, bool timed,
               struct case_outcome *out, char *error, size_t error_size)
{
    struct run *r = run_begin(g, c, out, error, error_size);
    if (!r)
        return false;
    int returned = exercise_buffer_index(&g->exercise, g->exercise.numba_host.returns);
    int fds[HOST_DESCRIPTORS_MAX], n = 0;
    bool ok = true;
    for (int i = 0; ok && i < g->exercise.n_buffers; i++)
        ok = run_host_buffer(r, i);
    char *request = ok ? call_request(r, returned, fds, &n) : NULL;
    ok = request && call_reference(r, request, fds, n, returned, timed, out) &&
         call_student(r, request, fds, n, returned, timed, out);
    if (ok && timed && g->host->wall_time && out->verdict == GRADER_VERDICT_PASSED &&
        run_wants_repeated_timing(g))
        ok = host_time_repeated(r, request, fds, n, returned, out);
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(request);
    run_end(r, ok, out);
    return ok;
}
