/*
 * The host form's jobs (grading_job.h; issue 34): a Numba submission that
 * defines the exercise's host function (hidden-layer's create_hidden_layer)
 * is graded by calling it, in a Python process of its own. Two host jobs,
 * Debian's Python running grader/numba_host.py in the sandbox, each with
 * the view of the front end's job (numba_python_view) and the remote
 * driver's client as its CUDA driver: the exercise's host-form reference
 * (reference_host.py, which the student's job never sees) and the
 * student's module. The grade job owns the virtual GPU and serves both
 * clients' driver calls over their peer sockets; its descriptors 4 and 5
 * are the reference's driver and call channel, 6 and 7 the student's
 * (grader/host_form.h). A host job has no GPU of its own, sees nothing of
 * kgrade's but its runner, and holds nothing of the other job's.
 *
 * As the sandbox starts each host job, before any of its code runs, its
 * /proc/PID/stat is opened here and given to the grade job to read (fds 8
 * and 9): the host's CPU time of each call, measured from outside.
 *
 * On a GPU server (the job has the GPU's device nodes and driver, and the
 * request does not ask for the virtual GPU) each host job runs on the GPU
 * as the grade job would: the GPU's driver as NUMBA_CUDA_DRIVER, its device
 * nodes, the sandbox's real_gpu allowances; the grade job then serves no
 * session and times the calls by the wall clock
 * (grader_request.host_wall_time). The driver sockets are still made and
 * passed, unused, so that the descriptors stay where host_form.h says.
 * kgrade grade's test hook (grading_job.host_test_in_process) runs the
 * virtual GPU in each host job's own process the same way.
 *
 * Each host job's own descriptors are handed to the sandbox, which closes
 * this process's copies, so that the grade job sees a host job's end as
 * its socket's; once the grade job has ended, whatever is left of the host
 * jobs is stopped.
 */
#include "grading_job.h"

#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REMOTE_CLIENT  "remote/libcuda.so.1" /* beside the virtual GPU's libcuda.so.1 */
#define VIEW_PATHS_MAX 64
#define HOST_ENV_MAX   32

/* What the runner (numba_host_files[0]) reads beside itself: the rest of
 * numba_host_files, the module loader and the shims. */
static const char *const *const runner_files = numba_host_files + 1;

/* The remote driver's client, beside the virtual GPU. */
static bool remote_client_path(const char *emulator, char path[PATH_MAX], char *error, size_t size)
{
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", emulator);
    snprintf(path, PATH_MAX, "%s/%s", dirname(folder), REMOTE_CLIENT);
    if (emulator[0] && access(path, R_OK) == 0)
        return true;
    snprintf(error, size,
             "the host form needs the virtual GPU's remote driver (%.200s is missing): run make",
             path);
    return false;
}

/* The host jobs' driver: the GPU's when the job has one and the request
 * does not ask for the virtual GPU; else the virtual GPU, served by the
 * grade job, or in the jobs' own processes by the test hook. */
static enum host_driver host_driver_of(const struct grading_job *job, const struct grading_gpu *gpu)
{
    if (job->request->device != GRADER_DEVICE_EMULATOR && gpu->devices[0] && gpu->driver[0])
        return HOST_DRIVER_REAL_GPU;
    return job->host_test_in_process ? HOST_DRIVER_IN_PROCESS : HOST_DRIVER_SERVED;
}

/* The library the jobs load as their driver (HOST_DRIVER_*); false with a
 * sentence when it is missing. */
static bool driver_library(struct host_processes *all, const char *emulator, char *error,
                           size_t size)
{
    switch (all->driver) {
    case HOST_DRIVER_REAL_GPU:
        snprintf(all->library, sizeof all->library, "%s", all->gpu.driver);
        return true;
    case HOST_DRIVER_IN_PROCESS:
        snprintf(all->library, sizeof all->library, "%s", emulator);
        if (emulator[0] && access(emulator, R_OK) == 0)
            return true;
        snprintf(error, size,
                 "%s=1 runs the host jobs on the virtual GPU, which is missing (%.200s)",
                 GRADING_TEST_HOST_IN_PROCESS, emulator);
        return false;
    default:
        return remote_client_path(emulator, all->library, error, size);
    }
}

/* The runner's view: Python's (and a real GPU's driver), then the runner
 * and its files. */
static bool runner_view(struct host_process *h, glob_t *found, const char *paths[VIEW_PATHS_MAX],
                        char files[][PATH_MAX], char *error, size_t size)
{
    int n = 0;
    for (int i = 0; numba_python_view[i]; i++)
        glob(numba_python_view[i], i ? GLOB_APPEND : 0, NULL, found);
    if (h->all->driver == HOST_DRIVER_REAL_GPU)
        grading_driver_files(h->all->library, found);
    for (size_t i = 0; i < found->gl_pathc && n < VIEW_PATHS_MAX - NUMBA_FILES_MAX; i++)
        paths[n++] = found->gl_pathv[i];
    for (int i = 0; runner_files[i]; i++) {
        if (!numba_installed_path(h->self, runner_files[i], files[i], error, size))
            return false;
        paths[n++] = files[i];
    }
    paths[n++] = h->runner;
    paths[n] = NULL;
    return true;
}

/* The job settled: started (its cpu_fd open, or -1 if /proc could not
 * be read) or given up; host_processes_start is told. */
static void settle(struct host_process *h, int cpu_fd)
{
    pthread_mutex_lock(&h->all->lock);
    if (!h->settled)
        h->cpu_fd = cpu_fd;
    else if (cpu_fd >= 0)
        close(cpu_fd);
    h->settled = true;
    pthread_cond_broadcast(&h->all->settled);
    pthread_mutex_unlock(&h->all->lock);
}

/* The sandbox started the job: its CPU time from now on. */
static void job_started(void *context, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    settle(context, open(path, O_RDONLY | O_CLOEXEC));
}

/* The job's environment: Python's, its driver (`driver`), then the remote
 * client's socket, or for a driver in the job's own process what the grade
 * job inherits (the GPU's choice, the virtual GPU's settings). */
static void host_env(const struct host_processes *all, const char *env[HOST_ENV_MAX],
                     const char *driver)
{
    numba_python_env(env, HOST_ENV_MAX - 2);
    int n = 0;
    while (env[n])
        n++;
    env[n++] = driver;
    if (all->driver != HOST_DRIVER_SERVED) {
        grading_env_passed(env, n, HOST_ENV_MAX);
        return;
    }
    env[n++] = "KGEMU_REMOTE_FD=" GRADING_HOST_DRIVER_FD_TEXT;
    env[n] = NULL;
}

static void *host_process_thread(void *context)
{
    struct host_process *h = context;
    char driver[PATH_MAX + 32], files[NUMBA_FILES_MAX][PATH_MAX];
    snprintf(driver, sizeof driver, "NUMBA_CUDA_DRIVER=%s", h->all->library);
    const char *env[HOST_ENV_MAX];
    host_env(h->all, env, driver);
    const char *argv[] = {h->python, "-I", "-B", h->runner, NULL};
    /* a virtual GPU's library is loaded by the job with all it needs; a
     * real GPU's driver is in its view (runner_view) */
    bool real = h->all->driver == HOST_DRIVER_REAL_GPU;
    const char *libraries[] = {real ? NULL : h->all->library, NULL};
    const char *paths[VIEW_PATHS_MAX];
    glob_t found = {0};
    if (!runner_view(h, &found, paths, files, h->error, sizeof h->error)) {
        globfree(&found);
        close(h->peers[0]);
        close(h->peers[1]);
        h->setup_failed = true;
        settle(h, -1);
        return NULL;
    }
    struct job_command command = {.argv = argv,
                                  .env = env,
                                  .paths = paths,
                                  .libraries = libraries,
                                  .devices = real ? h->all->gpu.devices : NULL,
                                  .peers = h->peers,
                                  .peer_count = 2,
                                  .stop_fd = h->stop_fd,
                                  .on_started = job_started,
                                  .started_context = h};
    struct sandbox_limits limits;
    grading_job_limits(h->job, JOB_WORK_STUDENT_GRADE, &limits);
    /* the whole grading's time: nothing moves its deadline as the grade
     * job's lines move the grade job's, and the stop pipe ends it with it */
    limits.wall_seconds += h->job->limits.run_seconds;
    grading_job_sandbox(h->job, &command, &limits, h->input, strlen(h->input), NULL, NULL,
                        &h->outcome);
    settle(h, -1); /* never started, if it was not by now */
    globfree(&found);
    return NULL;
}

/* Two connected pairs: a stream for the driver, a seqpacket for calls.
 * Ends [0] and [1] of each kept by the grade job and the host job. */
static bool socket_pairs(int driver[2], int calls[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, driver) != 0)
        return false;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, calls) == 0)
        return true;
    close(driver[0]);
    close(driver[1]);
    return false;
}

/* One host job started on its thread: `source` (NUL-terminated) called
 * through `function`, its grade job's ends in `worker`. */
static bool host_process_start(struct host_process *h, struct host_processes *all,
                               const char *source, const char *file_name, const char *function,
                               int worker[2])
{
    int driver[2], calls[2];
    /* the toolkit whose libNVVM the view shows (numba_python_view) */
    json_t *input = json_pack("{s:s, s:s, s:s, s:s}", "source", source, "file_name", file_name,
                              "function", function, "cuda_home", KGRADE_CUDA_HOME);
    h->input = input ? json_dumps(input, JSON_COMPACT) : NULL;
    json_decref(input);
    if (!h->input || !socket_pairs(driver, calls)) {
        snprintf(h->error, sizeof h->error, "the host job's sockets could not be made");
        return false;
    }
    h->job = all->job;
    h->all = all;
    h->cpu_fd = -1;
    h->self = all->self;
    h->python = all->python;
    h->runner = all->runner;
    h->stop_fd = &all->stop[0];
    h->peers[0] = driver[1];
    h->peers[1] = calls[1];
    worker[0] = driver[0];
    worker[1] = calls[0];
    h->running = pthread_create(&h->thread, NULL, host_process_thread, h) == 0;
    if (!h->running) {
        close(driver[1]);
        close(calls[1]);
        snprintf(h->error, sizeof h->error, "the host job's thread could not be started");
        h->settled = true;
    }
    return h->running;
}

/* Both jobs settled; their cpu_fds the grade job's, or why one has none
 * (it could not be set up, or its /proc/PID/stat not opened). */
static bool wait_started(struct host_processes *all, char *error, size_t size)
{
    struct host_process *jobs[GRADING_HOST_CPU_FDS] = {&all->reference, &all->student};
    pthread_mutex_lock(&all->lock);
    while (!all->reference.settled || !all->student.settled)
        pthread_cond_wait(&all->settled, &all->lock);
    pthread_mutex_unlock(&all->lock);
    for (int i = 0; i < GRADING_HOST_CPU_FDS; i++)
        all->cpu_fds[i] = jobs[i]->cpu_fd;
    if (all->cpu_fds[0] >= 0 && all->cpu_fds[1] >= 0)
        return true;
    if (!host_processes_setup_failure(all, error, size))
        snprintf(error, size, "the host form's %s job's /proc/PID/stat could not be opened",
                 all->cpu_fds[0] < 0 ? "reference" : "student");
    return false;
}

static void worker_peers_close(struct host_processes *all)
{
    for (int i = 0; i < GRADING_HOST_PEERS; i++)
        if (all->worker_peers[i] >= 0)
            close(all->worker_peers[i]);
    for (int i = 0; i < GRADING_HOST_PEERS; i++)
        all->worker_peers[i] = -1;
}

bool host_processes_start(struct host_processes *all, const struct grading_job *job,
                          const char *self, const char *emulator,
                          const struct grader_exercise_files *files, const char *function,
                          char *error, size_t size)
{
    memset(all, 0, sizeof *all);
    all->job = job;
    all->self = self;
    all->stop[0] = all->stop[1] = -1;
    all->reference.cpu_fd = all->student.cpu_fd = -1;
    for (int i = 0; i < GRADING_HOST_PEERS; i++)
        all->worker_peers[i] = -1;
    pthread_mutex_init(&all->lock, NULL);
    pthread_cond_init(&all->settled, NULL);
    if (!files->host_reference) {
        snprintf(error, size, "the exercise declares a host form but has no reference_host.py");
        host_processes_finish(all);
        return false;
    }
    grading_gpu_find(&all->gpu);
    all->driver = host_driver_of(job, &all->gpu);
    bool ready = numba_python_path(all->python, error, size) &&
                 numba_installed_path(self, numba_host_files[0], all->runner, error, size) &&
                 driver_library(all, emulator, error, size);
    if (ready && pipe2(all->stop, O_CLOEXEC) != 0) {
        snprintf(error, size, "the host jobs' stop pipe could not be made");
        ready = false;
    }
    if (!ready) {
        host_processes_finish(all);
        return false;
    }
    const struct grader_request *q = job->request;
    char *student = strndup(q->source, q->size);
    bool started = student &&
                   host_process_start(&all->reference, all, files->host_reference,
                                      "reference_host.py", function, &all->worker_peers[0]) &&
                   host_process_start(&all->student, all, student,
                                      q->file_name ? q->file_name : "submission.py", function,
                                      &all->worker_peers[2]);
    free(student);
    if (!started)
        snprintf(error, size, "%s",
                 all->reference.error[0] ? all->reference.error : all->student.error);
    if (!started || !wait_started(all, error, size)) {
        host_processes_finish(all);
        return false;
    }
    return true;
}

/* The host job ended; its thread joined. */
static void host_process_join(struct host_process *h)
{
    if (h->running)
        pthread_join(h->thread, NULL);
    h->running = false;
    sandbox_outcome_free(&h->outcome);
    free(h->input);
    h->input = NULL;
}

void host_processes_finish(struct host_processes *all)
{
    worker_peers_close(all); /* the grade job's ends: the host jobs see their sockets end */
    if (all->stop[1] >= 0)
        close(all->stop[1]); /* whatever has not ended yet is stopped */
    host_process_join(&all->reference);
    host_process_join(&all->student);
    if (all->stop[0] >= 0)
        close(all->stop[0]);
    all->stop[0] = all->stop[1] = -1;
    struct host_process *jobs[GRADING_HOST_CPU_FDS] = {&all->reference, &all->student};
    for (int i = 0; i < GRADING_HOST_CPU_FDS; i++) {
        if (jobs[i]->cpu_fd >= 0)
            close(jobs[i]->cpu_fd);
        jobs[i]->cpu_fd = all->cpu_fds[i] = -1;
    }
    pthread_cond_destroy(&all->settled);
    pthread_mutex_destroy(&all->lock);
    grading_gpu_free(&all->gpu);
}

/* Why one host job could not be set up, or NULL: it started. */
static const char *setup_failure(const struct host_process *h)
{
    if (h->setup_failed)
        return h->error;
    return h->outcome.end == SANDBOX_SETUP_FAILED ? h->outcome.reason : NULL;
}

bool host_processes_setup_failure(const struct host_processes *all, char *text, size_t size)
{
    const char *reference = setup_failure(&all->reference), *student = setup_failure(&all->student);
    if (!reference && !student)
        return false;
    snprintf(text, size, "the host form's %s job could not be set up: %s",
             reference ? "reference" : "student", reference ? reference : student);
    return true;
}

bool host_process_end_text(const struct host_process *h, char *text, size_t size)
{
    const struct sandbox_outcome *o = &h->outcome;
    switch (o->end) {
    case SANDBOX_SIGNALED:
        if (o->signal == SIGSYS)
            snprintf(text, size,
                     "the sandbox stopped it for a system call it does not allow (a submission "
                     "may compute, not write files, start programs or reach the network)");
        else
            snprintf(text, size, "it was %s", o->reason);
        return true;
    case SANDBOX_OUT_OF_MEMORY:
    case SANDBOX_TIMED_OUT:
    case SANDBOX_CPU_LIMIT:
        snprintf(text, size, "the sandbox stopped it: it was %s", o->reason);
        return true;
    case SANDBOX_EXITED:
        if (o->exit_code == 0)
            return false;
        snprintf(text, size, "it %s", o->reason);
        return true;
    default:
        return false;
    }
}
