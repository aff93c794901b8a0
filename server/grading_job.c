/*
 * One grading job in the sandbox (grading_job.h).
 *
 * The job sees, read-only: the kgrade binary, the virtual GPU beside it,
 * the CUDA toolkit's include and library folders, the exercise folder, and
 * on a GPU server the /dev/nvidia* nodes. Its environment is rebuilt from
 * an allowlist. Until the worker reports its first run, the compile limit
 * applies; from then on the run limit.
 */
#include "grading_job.h"

#include "job_protocol.h"
#include "sandbox/sandbox.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KGRADE_CUDA_HOME
#error "KGRADE_CUDA_HOME is set by the Makefile"
#endif

#define ENV_MAX   32
#define PATHS_MAX 16

extern char **environ;

/* Variables a job may inherit: the virtual GPU's settings, the GPU choice. */
static const char *const env_passed[] = {"KGEMU_", "CUDA_VISIBLE_DEVICES=", NULL};

struct follow {
    const struct grading_job *job;
    char phase[16]; /* the last phase the worker reported */
    json_t *final;  /* the "done" or "error" line */
    bool ran;       /* a run has begun: the compile is over */
};

void grading_default_limits(struct grading_limits *limits)
{
    limits->compile_seconds = GRADING_COMPILE_SECONDS;
    limits->run_seconds = GRADING_RUN_SECONDS;
    limits->memory_bytes = SANDBOX_DEFAULT_MEMORY_BYTES;
}

static void build_env(const char *env[ENV_MAX])
{
    int n = 0;
    env[n++] = "PATH=/usr/bin:/bin";
    env[n++] = "HOME=/tmp";
    env[n++] = "TMPDIR=/tmp";
    env[n++] = "LANG=C.UTF-8";
    for (char **e = environ; *e && n < ENV_MAX - 1; e++)
        for (int i = 0; env_passed[i]; i++)
            if (strncmp(*e, env_passed[i], strlen(env_passed[i])) == 0)
                env[n++] = *e;
    env[n] = NULL;
}

/* The real GPU's device nodes, when there are any. */
static void gpu_devices(glob_t *g, const char *devices[PATHS_MAX])
{
    int n = 0;
    if (glob("/dev/nvidia*", 0, NULL, g) == 0)
        for (size_t i = 0; i < g->gl_pathc && n < PATHS_MAX - 1; i++)
            devices[n++] = g->gl_pathv[i];
    devices[n] = NULL;
}

static double on_line(void *context, const char *text, size_t length)
{
    struct follow *f = context;
    json_t *line = json_loadb(text, length, 0, NULL);
    const char *phase = json_string_value(json_object_get(line, "phase"));
    if (!phase) {
        json_decref(line);
        return 0;
    }
    if (strcmp(phase, "done") == 0 || strcmp(phase, "error") == 0) {
        json_decref(f->final);
        f->final = line;
        return 0;
    }
    snprintf(f->phase, sizeof f->phase, "%s", phase);
    if (f->job->progress)
        f->job->progress(f->job->context, f->phase, line);
    json_decref(line); /* `phase` pointed into it */
    if (strcmp(f->phase, "compiling") != 0 && !f->ran) {
        f->ran = true;
        return f->job->limits.run_seconds;
    }
    return 0;
}

/* The verdict of a job the sandbox ended, and its sentence. */
static enum grader_verdict verdict_of_end(const struct follow *f, const struct sandbox_outcome *o,
                                          char *message, size_t size)
{
    const struct grading_limits *l = &f->job->limits;
    switch (o->end) {
    case SANDBOX_TIMED_OUT:
    case SANDBOX_CPU_LIMIT:
        if (!f->ran) {
            snprintf(message, size, "the compile took longer than its %g s limit (%s)",
                     l->compile_seconds, o->reason);
            return GRADER_VERDICT_COMPILE_ERROR;
        }
        snprintf(message, size, "the grading ran longer than its %g s limit and was stopped (%s)",
                 l->run_seconds, o->reason);
        return GRADER_VERDICT_TIMEOUT;
    case SANDBOX_OUT_OF_MEMORY:
        snprintf(message, size, "the %s used more than its %llu MB of memory and was stopped",
                 f->ran ? "run" : "compile", (unsigned long long)(l->memory_bytes >> 20));
        return f->ran ? GRADER_VERDICT_RUNTIME_ERROR : GRADER_VERDICT_COMPILE_ERROR;
    case SANDBOX_SETUP_FAILED:
        snprintf(message, size, "%s", o->reason);
        return GRADER_VERDICT_INTERNAL_ERROR;
    default: {
        const char *log = o->log && o->log[0] ? o->log : "";
        snprintf(message, size, "the grading worker failed: %s%s%.200s", o->reason,
                 log[0] ? "; it said: " : "", log);
        return GRADER_VERDICT_INTERNAL_ERROR;
    }
    }
}

static json_t *result_of(struct follow *f, const struct sandbox_outcome *o,
                         enum grader_verdict *verdict, char *error, size_t error_size)
{
    const char *phase = json_string_value(json_object_get(f->final, "phase"));
    if (o->end == SANDBOX_EXITED && phase && strcmp(phase, "error") == 0) {
        snprintf(error, error_size, "%s", json_string_value(json_object_get(f->final, "message")));
        return NULL;
    }
    json_t *result = json_object_get(f->final, "result");
    const char *name = json_string_value(json_object_get(f->final, "verdict"));
    if (o->end == SANDBOX_EXITED && json_is_object(result) && name) {
        for (int v = 0; v <= GRADER_VERDICT_INTERNAL_ERROR; v++)
            if (strcmp(grader_verdict_name((enum grader_verdict)v), name) == 0)
                *verdict = (enum grader_verdict)v;
        return json_incref(result);
    }
    char message[GRADER_MESSAGE_MAX];
    if (o->end == SANDBOX_EXITED)
        snprintf(message, sizeof message, "the grading worker ended without a verdict (%s%s)",
                 o->reason, o->output_truncated ? "; its result was over the size limit" : "");
    *verdict = o->end == SANDBOX_EXITED ? GRADER_VERDICT_INTERNAL_ERROR
                                        : verdict_of_end(f, o, message, sizeof message);
    if (f->job->worker_died)
        *f->job->worker_died = o->end == SANDBOX_EXITED || o->end == SANDBOX_SIGNALED;
    return grader_verdict_json(f->job->request, *verdict, message, f->ran);
}

/* Where the job's files are: the kgrade binary, the exercise folder, the
 * virtual GPU beside the binary (when it is there). */
struct job_paths {
    char self[PATH_MAX], exercises[PATH_MAX], emulator[PATH_MAX];
};

static bool resolve_paths(const struct grader_request *r, struct job_paths *p, char *error,
                          size_t error_size)
{
    ssize_t n = readlink("/proc/self/exe", p->self, sizeof p->self - 1);
    if (n <= 0 || !realpath(r->exercises, p->exercises)) {
        snprintf(error, error_size, "the exercise folder '%s' cannot be found", r->exercises);
        return false;
    }
    p->self[n] = '\0';
    if (r->emulator)
        snprintf(p->emulator, sizeof p->emulator, "%s", r->emulator);
    else if (!grader_emulator_path(p->emulator, sizeof p->emulator) ||
             access(p->emulator, R_OK) != 0)
        p->emulator[0] = '\0';
    return true;
}

static void sandbox_limits_of(const struct grading_job *job, struct sandbox_limits *l)
{
    sandbox_default_limits(l);
    l->wall_seconds = job->limits.compile_seconds;
    l->memory_bytes = job->limits.memory_bytes;
    l->cpu_seconds = sandbox_cpu_for(job->limits.compile_seconds + job->limits.run_seconds);
}

/* The worker in the sandbox, fed `input`; its end as a grade. */
static json_t *run_worker(const struct grading_job *job, const struct job_paths *p,
                          const char *input, size_t input_size, enum grader_verdict *verdict,
                          char *error, size_t error_size)
{
    const char *argv[] = {p->self, "worker", NULL};
    const char *paths[] = {p->exercises, KGRADE_CUDA_HOME "/include", KGRADE_CUDA_HOME "/lib64",
                           p->emulator[0] ? p->emulator : NULL, NULL};
    const char *env[ENV_MAX], *devices[PATHS_MAX];
    glob_t found = {0};
    build_env(env);
    gpu_devices(&found, devices);
    struct follow f = {.job = job};
    struct sandbox_job s = {
        .argv = argv,
        .env = env,
        .input = input,
        .input_size = input_size,
        .read_paths = paths,
        .device_paths = devices,
        .real_gpu = devices[0] != NULL,
        .relaxed_for_sanitizers = job->relaxed_for_sanitizers,
        .on_line = on_line,
        .context = &f,
    };
    sandbox_limits_of(job, &s.limits);
    struct sandbox_outcome outcome;
    sandbox_run(&s, &outcome);
    json_t *result = result_of(&f, &outcome, verdict, error, error_size);
    sandbox_outcome_free(&outcome);
    json_decref(f.final);
    globfree(&found);
    return result;
}

/* The job's limits: the exercise's where it sets them, else the caller's. */
static bool exercise_limits(struct grading_job *job, char *error, size_t error_size)
{
    struct grader_limits own;
    if (!grader_exercise_limits(job->request->exercises, job->request->exercise, &own, error,
                                error_size))
        return false;
    if (own.compile_seconds > 0)
        job->limits.compile_seconds = own.compile_seconds;
    if (own.run_seconds > 0)
        job->limits.run_seconds = own.run_seconds;
    if (own.memory_bytes > 0)
        job->limits.memory_bytes = own.memory_bytes;
    return true;
}

json_t *grading_job_run(const struct grading_job *job, enum grader_verdict *verdict, char *error,
                        size_t error_size)
{
    struct job_paths p;
    if (!resolve_paths(job->request, &p, error, error_size))
        return NULL;
    struct grader_request request = *job->request;
    request.exercises = p.exercises;
    request.emulator = p.emulator[0] ? p.emulator : NULL;
    struct grading_job patched = *job;
    patched.request = &request;
    if (!exercise_limits(&patched, error, error_size))
        return NULL;
    char why[GRADER_MESSAGE_MAX];
    if (request.size > GRADER_SOURCE_MAX_BYTES && /* too big to send, and rejected anyway */
        !grader_source_check(request.source, request.size, why)) {
        *verdict = GRADER_VERDICT_REJECTED;
        return grader_verdict_json(&request, *verdict, why, false);
    }
    size_t input_size;
    char *input = job_encode(&request, &input_size);
    if (!input) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    json_t *result = run_worker(&patched, &p, input, input_size, verdict, error, error_size);
    free(input);
    return result;
}
