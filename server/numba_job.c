/*
 * The Numba front end's job (grading_job.h): a student's Numba source
 * compiled to PTX by grader/numba_compile.py, run by Debian's Python 3 in
 * the sandbox. The student's module is imported there and nowhere else, so
 * its module-level code runs with the grading job's discipline: a view of
 * Python's own folders, the system's libraries, the toolkit's libNVVM and
 * libdevice and nothing of kgrade's (no exercise folder, no data, no
 * sources), no network, no new processes, exec forbidden once Python has
 * started, the compile's time and memory limits. Python's prefix is found
 * from its own path; -I ignores the environment and the user's site.
 *
 * Whatever the module does ends as the student's compile_error once the
 * front end has said it is ready ("started"), including whatever it writes
 * on the result descriptor itself (grader_numba_answer: the result is
 * rebuilt, never passed on as it came); before that, a failure is kgrade's
 * (Python or numba missing or broken).
 */
#include "grading_job.h"

#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PYTHON_DEFAULT "/usr/bin/python3"
#define VIEW_PATHS_MAX 64

const char *const numba_front_end_files[NUMBA_FILES_MAX] = {"numba_compile.py", "numba_loader.py",
                                                            "numba_shims.py", NULL};
const char *const numba_host_files[NUMBA_FILES_MAX] = {"numba_host.py", "numba_loader.py",
                                                       "numba_shims.py", NULL};

const char *const numba_python_view[] = {
    "/usr/lib/python3*",
    "/usr/lib/*-linux-gnu",
    "/lib/*-linux-gnu",
    "/etc/alternatives",
    KGRADE_CUDA_HOME "/lib64/libnvvm.so*",
    KGRADE_CUDA_HOME "/nvvm/libdevice",
    NULL,
};

static const char *const python_env[] = {
    "PATH=/usr/bin:/bin",     "HOME=/tmp",           "TMPDIR=/tmp", "LANG=C.UTF-8",
    "OPENBLAS_NUM_THREADS=1", /* numpy's BLAS would start a thread per core */
    "OMP_NUM_THREADS=1",      "NUMBA_NUM_THREADS=1", NULL,
};

void numba_python_env(const char **env, int max)
{
    int n = 0;
    for (; python_env[n] && n < max - 1; n++)
        env[n] = python_env[n];
    env[n] = NULL;
}

#define CALL_NAME_MAX 64

struct front_end_follow {
    bool started;             /* numba is ready: what follows is the module's doing */
    char call[CALL_NAME_MAX]; /* the module's last watched call ("os.mkdir"), or "" */
    json_t *result;           /* the last result line */
};

/* A call's name as the front end writes it: a dotted Python name. */
static bool is_call_name(const char *name)
{
    size_t n =
        name ? strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") : 0;
    return n > 0 && n < CALL_NAME_MAX && name[n] == '\0';
}

static double on_front_end_line(void *context, const char *text, size_t length, double elapsed)
{
    (void)elapsed;
    struct front_end_follow *f = context;
    json_t *line = json_loadb(text, length, 0, NULL);
    const char *phase = json_string_value(json_object_get(line, "phase"));
    const char *call = json_string_value(json_object_get(line, "call"));
    if (phase && strcmp(phase, "started") == 0) {
        f->started = true;
    } else if (phase && strcmp(phase, "call") == 0 && is_call_name(call)) {
        snprintf(f->call, sizeof f->call, "%s", call);
    } else if (json_is_string(json_object_get(line, "status"))) {
        json_decref(f->result);
        f->result = json_incref(line);
    }
    json_decref(line);
    return 0;
}

bool numba_python_path(char path[PATH_MAX], char *error, size_t size)
{
    const char *wanted = getenv("KGRADE_PYTHON");
    wanted = wanted && wanted[0] ? wanted : PYTHON_DEFAULT;
    if (realpath(wanted, path) && access(path, X_OK) == 0)
        return true;
    snprintf(error, size,
             "Numba submissions need Python 3 with numba (%s is missing; install "
             "python3-numba with deploy/install-deps.sh, or set KGRADE_PYTHON)",
             wanted);
    return false;
}

bool numba_installed_path(const char *self, const char *name, char path[PATH_MAX], char *error,
                          size_t size)
{
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", self);
    snprintf(path, PATH_MAX, "%s/%s", dirname(folder), name);
    if (access(path, R_OK) == 0)
        return true;
    snprintf(error, size, "the Numba front end is not installed beside kgrade (%.200s): run make",
             path);
    return false;
}

/* The paths of the front end's files (numba_front_end_files), installed
 * beside kgrade, the script's first. */
static bool front_end_paths(const char *self, char paths[NUMBA_FILES_MAX][PATH_MAX], char *error,
                            size_t size)
{
    for (int i = 0; numba_front_end_files[i]; i++)
        if (!numba_installed_path(self, numba_front_end_files[i], paths[i], error, size))
            return false;
    return true;
}

/* The front end's view: the patterns' matches, then its files. */
static void front_end_view(char files[NUMBA_FILES_MAX][PATH_MAX], glob_t *found,
                           const char *paths[VIEW_PATHS_MAX])
{
    int n = 0;
    for (int i = 0; numba_python_view[i]; i++)
        glob(numba_python_view[i], i ? GLOB_APPEND : 0, NULL, found);
    for (size_t i = 0; i < found->gl_pathc && n < VIEW_PATHS_MAX - NUMBA_FILES_MAX; i++)
        paths[n++] = found->gl_pathv[i];
    for (int i = 0; numba_front_end_files[i]; i++)
        paths[n++] = files[i];
    paths[n] = NULL;
}

/* A compile error the sandbox decided, as the front end would say one. */
static json_t *compile_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

static json_t *compile_error(const char *format, ...)
{
    char message[GRADER_MESSAGE_MAX];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    return json_pack("{s:s, s:s}", "status", "compile_error", "message", message);
}

/* The sandbox stopped the module at a system call: the last of its calls
 * that may make one, when the front end saw it (the forbidden call may
 * come from code Python does not audit, such as a ctypes call), and what
 * to do. */
static json_t *forbidden_call(const struct front_end_follow *f)
{
    if (!f->call[0])
        return compile_error("the module was stopped while it was imported: it made a system "
                             "call the sandbox does not allow (a submission may compute, not "
                             "write files, start programs or reach the network): remove calls "
                             "to os, subprocess, socket and ctypes");
    return compile_error("the module was stopped while it was imported: it made a system call "
                         "the sandbox does not allow, at or after its call to %s (a submission "
                         "may compute, not write files, start programs or reach the network): "
                         "remove that call",
                         f->call);
}

/* The end of a log: a Python traceback says what went wrong last. */
static const char *log_tail(const struct sandbox_outcome *o, size_t keep)
{
    const char *log = o->log ? o->log : "";
    size_t n = strlen(log);
    return n > keep ? log + n - keep : log;
}

/* The job's end when it gave no result of its own. */
static json_t *ended_without_result(const struct grading_job *job, const struct front_end_follow *f,
                                    const struct sandbox_outcome *o, char *error, size_t size)
{
    const char *log = log_tail(o, 300);
    switch (o->end) {
    case SANDBOX_TIMED_OUT:
    case SANDBOX_CPU_LIMIT:
        return compile_error("the Numba compile took longer than its %g s limit (importing the "
                             "module included) and was stopped",
                             job->limits.compile_seconds);
    case SANDBOX_OUT_OF_MEMORY:
        return compile_error("the Numba compile used more than its %llu MB of memory and was "
                             "stopped",
                             (unsigned long long)(job->limits.memory_bytes >> 20));
    case SANDBOX_SETUP_FAILED:
        break;
    default:
        if (!f->started)
            break;
        if (o->end == SANDBOX_SIGNALED && o->signal == SIGSYS)
            return forbidden_call(f);
        return compile_error("the module ended the compile before numba had compiled it (%s)%s"
                             "%.300s",
                             o->reason, log[0] ? ": " : "", log);
    }
    snprintf(error, size, "the Numba front end failed: %s%s%.300s", o->reason,
             log[0] ? "; it said: " : "", log);
    return NULL;
}

json_t *numba_job_run(const struct grading_job *job, enum job_work work,
                      const struct grader_request *request, const json_t *reference,
                      const char *self, char *error, size_t error_size)
{
    char python[PATH_MAX], files[NUMBA_FILES_MAX][PATH_MAX];
    if (!numba_python_path(python, error, error_size) ||
        !front_end_paths(self, files, error, error_size))
        return NULL;
    json_t *asked = grader_numba_request(request, reference, KGRADE_CUDA_HOME, error, error_size);
    char *input = asked ? json_dumps(asked, JSON_COMPACT) : NULL;
    if (!input) {
        json_decref(asked);
        return NULL;
    }
    const char *argv[] = {python, "-I", "-B", files[0], "--no-exec", NULL};
    const char *paths[VIEW_PATHS_MAX];
    glob_t found = {0};
    front_end_view(files, &found, paths);
    struct job_command command = {.argv = argv, .env = python_env, .paths = paths}; /* no GPU */
    struct sandbox_limits limits;
    grading_job_limits(job, work, &limits);
    struct front_end_follow f = {0};
    struct sandbox_outcome outcome = {0};
    grading_job_sandbox(job, &command, &limits, input, strlen(input), on_front_end_line, &f,
                        &outcome);
    json_t *result = f.result && outcome.end == SANDBOX_EXITED
                         ? grader_numba_answer(asked, f.result, f.started, error, error_size)
                         : ended_without_result(job, &f, &outcome, error, error_size);
    json_decref(f.result);
    json_decref(asked);
    sandbox_outcome_free(&outcome);
    globfree(&found);
    free(input);
    return result;
}

/* ------------------------------------------ beside the reference's job */

static void *front_end_thread(void *context)
{
    struct numba_job_thread *t = context;
    t->result =
        numba_job_run(t->job, t->work, &t->request, t->target, t->self, t->error, sizeof t->error);
    return NULL;
}

void numba_job_start(struct numba_job_thread *t, const struct grading_job *job, enum job_work work,
                     const struct grader_request *request, const json_t *target, const char *self)
{
    *t = (struct numba_job_thread){
        .job = job,
        .work = work,
        .request = *request,
        .self = self,
        .target = json_deep_copy(target), /* jansson's references are not thread-safe */
    };
    t->running = t->target && pthread_create(&t->thread, NULL, front_end_thread, t) == 0;
}

/* The architecture a reference (or a target) names, "" when none. */
static const char *arch_of(const json_t *reference)
{
    const char *arch = json_string_value(json_object_get(reference, "arch"));
    return arch ? arch : "";
}

json_t *numba_job_finish(struct numba_job_thread *t, const json_t *reference, char *error,
                         size_t error_size)
{
    bool ran = t->running;
    if (ran)
        pthread_join(t->thread, NULL);
    t->running = false;
    json_t *result = t->result;
    bool compiled_for_it = ran && reference && strcmp(arch_of(t->target), arch_of(reference)) == 0;
    if (compiled_for_it && !result)
        snprintf(error, error_size, "%s", t->error);
    if (!compiled_for_it) { /* guessed wrong, or never started: the job again */
        json_decref(result);
        result = reference ? numba_job_run(t->job, t->work, &t->request, reference, t->self, error,
                                           error_size)
                           : NULL;
    }
    json_decref(t->target);
    t->target = t->result = NULL;
    return result;
}
