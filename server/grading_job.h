/*
 * Internal to server/: one grading job through the sandbox, as `kgrade
 * grade` and the service's workers both run it: a `kgrade worker` process
 * in the sandbox, its progress followed, its end turned into a verdict.
 */
#ifndef KGRADE_SERVER_GRADING_JOB_H
#define KGRADE_SERVER_GRADING_JOB_H

#include "grader/grader.h"
#include "sandbox/sandbox.h"

#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* The limits of a grading job (DESIGN.md, issue 6). */
#define GRADING_COMPILE_SECONDS 20.0
#define GRADING_RUN_SECONDS     120.0
/* The student's run of one case may take this many times the wall-clock
 * time the case's reference took on the same machine, and never less than
 * the floor (a vector addition does not get the whole run limit to spin). */
#define GRADING_STUDENT_FACTOR        50.0
#define GRADING_STUDENT_FLOOR_SECONDS 10.0

struct grading_limits {
    double compile_seconds; /* from the start until the first run */
    double run_seconds;     /* from the first run to the verdict (each student's run of a
                             * case has a shorter limit of its own: GRADING_STUDENT_*) */
    uint64_t memory_bytes;
};

void grading_default_limits(struct grading_limits *limits);

/* Told each phase as the worker reports it: "compiling", "running",
 * "checking", "timing" (the line itself holds case and cases). */
typedef void grading_progress_fn(void *context, const char *phase, const json_t *line);

/* Told what a `kgrade worker` job (the reference's, the grade's) wrote on
 * its standard error (its log, at most SANDBOX_DEFAULT_LOG_BYTES,
 * `truncated` when there was more), once it has ended: the virtual GPU's
 * diagnostics (KGEMU_JIT_STATS). Not the Numba front end's (Numba's own
 * warnings about how the front end loads the module). */
typedef void grading_log_fn(void *context, const char *log, size_t size, bool truncated);

struct reference_cache;

struct grading_job {
    const struct grader_request *request; /* seed_given: the caller draws the seed */
    /* References already built, shared by the jobs of a service; NULL:
     * each job compiles its exercise's reference in a job of its own. */
    struct reference_cache *references;
    struct grading_limits limits;
    bool relaxed_for_sanitizers;
    grading_progress_fn *progress; /* may be NULL */
    grading_log_fn *log;           /* may be NULL: the logs only explain a failure */
    void *context;                 /* of both */
    /* out, may be NULL: set true when the worker process ended by a signal
     * nobody here sent, or without a verdict (a pointer: the job is const) */
    bool *worker_died;
    /* A TEST HOOK, for a machine with no GPU: a host-form grading's host
     * jobs get the virtual GPU in their own process (NUMBA_CUDA_DRIVER =
     * the emulator's libcuda.so.1) instead of the remote client the grade
     * job serves, so that the grade job times their calls by the wall clock
     * as on a real GPU (grader_request.host_wall_time). Only
     * grading_job_here sets it (GRADING_TEST_HOST_IN_PROCESS=1 in kgrade
     * grade's environment), never the service: a student's process would
     * own its virtual GPU's modeled times, and its wall-clock times are the
     * emulator's, not a GPU's. A real GPU, when the job has one, wins. */
    bool host_test_in_process;
};

#define GRADING_TEST_HOST_IN_PROCESS "KGRADE_TEST_HOST_IN_PROCESS"

/* A job of this process's own command line (kgrade grade, sandbox-check)
 * for `request`: the default limits, relaxed for sanitizers when this
 * binary is built with them (its worker is the same binary), the test hook
 * above when this process's environment sets it, nothing else. */
void grading_job_here(struct grading_job *job, const struct grader_request *request);

/* Grades in the sandbox. Returns the grade JSON and its verdict; a job the
 * sandbox stopped gets its verdict here (compile_error for a compile over
 * its limits, timeout, runtime_error for memory, internal_error for
 * anything that is kgrade's fault, with the reason). NULL with a sentence
 * in `error` for a request the grader refused (an unknown exercise): a
 * configuration error. */
json_t *grading_job_run(const struct grading_job *job, enum grader_verdict *verdict, char *error,
                        size_t error_size);

/* ------------------------------------------- for the jobs of a grading */

/* What a job runs: its command line, environment and view. */
struct job_command {
    const char *const *argv;
    const char *const *env;
    const char *const *paths;     /* besides the libraries this process has loaded */
    const char *const *libraries; /* loaded by the job besides those (the virtual GPU) */
    const char *const *devices;   /* the real GPU's device nodes it runs on; NULL: none */
    /* Peer sockets the job gets as descriptors SANDBOX_PEER_FD, 5...;
     * handed over: the sandbox closes them here once the job has its own. */
    const int *peers;
    int peer_count;
    const int *stop_fd; /* the job is stopped once it is readable; NULL: never */
    /* Descriptors the job gets to read after its peers (the sandbox's
     * read_fds), and who is told the job's pid once it is started. */
    const int *reads;
    int read_count;
    sandbox_started_fn *on_started;
    void *started_context;
};

/* A command in the sandbox, with the GPU's device nodes when it names
 * them (a job that runs kernels on a real GPU; the sandbox then lets the
 * driver do what it needs), fed `input`, its result lines told to `on_line`. */
void grading_job_sandbox(const struct grading_job *job, const struct job_command *command,
                         const struct sandbox_limits *limits, const char *input, size_t input_size,
                         sandbox_line_fn *tell, void *context, struct sandbox_outcome *outcome);

/* A GPU server's GPU, as a job that runs on it is given it: its device
 * nodes (devices[0] NULL: none) and the path of its driver ("" when none
 * was found: KGRADE_CUDA_DRIVER's, else the libcuda.so.1 the loader finds). */
#define GRADING_GPU_DEVICES_MAX 64
struct grading_gpu {
    glob_t nodes;
    const char *devices[GRADING_GPU_DEVICES_MAX];
    char driver[PATH_MAX];
};
void grading_gpu_find(struct grading_gpu *gpu);
void grading_gpu_free(struct grading_gpu *gpu);

/* The files a job that loads the GPU's driver at `path` must see (the
 * driver, its PTX compiler...), appended to `found`. */
void grading_driver_files(const char *path, glob_t *found);

/* The variables a job inherits from this process (the virtual GPU's
 * KGEMU_* settings, CUDA_VISIBLE_DEVICES) and CUDA_CACHE_DISABLE=1, put in
 * `env` from entry `n` on, at most `max` entries with its NULL; the entries
 * then. */
int grading_env_passed(const char **env, int n, int max);

/* Whose work a sandboxed job does, which sets its limits. */
enum job_work {
    JOB_WORK_REFERENCE,       /* kgrade's own reference compiled */
    JOB_WORK_STUDENT_COMPILE, /* the student's source compiled (the Numba front end) */
    JOB_WORK_STUDENT_GRADE,   /* compiled and run: the compile's time and the runs' */
};
/* The limits of a job of that work: the job's compile time (a reference's
 * never under GRADING_COMPILE_SECONDS) and memory; a grade job's CPU time
 * also covers its runs. */
void grading_job_limits(const struct grading_job *job, enum job_work work,
                        struct sandbox_limits *l);

/* What a sandboxed Python with numba reads (glob patterns, NULL-ended):
 * Python's folders and the libraries its extensions load (numpy's BLAS
 * through the alternatives' links), then libNVVM and libdevice. The front
 * end's view, and a numba program's on the remote driver
 * (tests/unit/test_sandbox_remote.c). */
extern const char *const numba_python_view[];

/* The Python files of kgrade a sandboxed numba job sees (NULL-ended), all
 * installed beside kgrade (the Makefile's NUMBA_FRONT_END), the script
 * first: the front end's (numba_compile.py), and the host job's
 * (numba_host.py: an exercise's host form, the student's function called
 * on a served GPU), each with the module loader they share and numba's
 * shims. */
#define NUMBA_FILES_MAX 4 /* entries of each list, its NULL included */
extern const char *const numba_front_end_files[NUMBA_FILES_MAX];
extern const char *const numba_host_files[NUMBA_FILES_MAX];

/* What numba_job.c shares with the host form's jobs: Debian's Python
 * (KGRADE_PYTHON or /usr/bin/python3, by its real path), a file of the
 * front end installed beside kgrade's binary `self`, and the environment
 * of a sandboxed Python with numba (copied into `env`, at most `max`
 * entries with its NULL). False with a sentence for a missing file. */
bool numba_python_path(char path[PATH_MAX], char *error, size_t size);
bool numba_installed_path(const char *self, const char *name, char path[PATH_MAX], char *error,
                          size_t size);
void numba_python_env(const char **env, int max);

/* The Numba front end's job (numba_job.c): the student's Numba source
 * (request->source, with the exercise given whole) compiled to PTX by
 * grader/numba_compile.py in the sandbox, for the reference's
 * architecture; `self` is kgrade's binary, beside which the front end is
 * installed. Returns the front end's result for grader_request.numba: its
 * own, or a compile error the sandbox decided (the compile over its time
 * or memory, the module killed for a forbidden system call). NULL with a
 * sentence in `error` when the front end itself failed: kgrade's fault.
 * `work`: the student's compile, or kgrade's reference.py (its limits). */
json_t *numba_job_run(const struct grading_job *job, enum job_work work,
                      const struct grader_request *request, const json_t *reference,
                      const char *self, char *error, size_t error_size);

/* The front end's job on a thread of its own (numba_job.c), so that it runs
 * beside the reference's job, which it would otherwise wait for: both are
 * processes, the front end's Python, numba and libNVVM take 2-3 s, the
 * reference's NVRTC compile 1-2 s. It compiles for the architecture of
 * `target` (a reference, or {"arch": "sm_90"}: the one the reference most
 * likely has, before it is built); numba_job_finish takes its result when
 * the reference's architecture is that one, else runs the job again for
 * the reference's. Every started job must be finished. */
struct numba_job_thread {
    const struct grading_job *job;
    enum job_work work;
    struct grader_request request; /* its strings the caller's, until finished */
    const char *self;
    json_t *target; /* what it compiles for: {"arch": ...} */
    json_t *result; /* numba_job_run's */
    char error[GRADER_MESSAGE_MAX];
    bool running; /* a thread was started and not yet joined */
    pthread_t thread;
};

void numba_job_start(struct numba_job_thread *t, const struct grading_job *job, enum job_work work,
                     const struct grader_request *request, const json_t *target, const char *self);

/* numba_job_run's answer for `reference` (its result, or NULL with a
 * sentence in `error`); the thread is joined and its state freed. With a
 * NULL reference (it could not be built) the result is dropped. */
json_t *numba_job_finish(struct numba_job_thread *t, const json_t *reference, char *error,
                         size_t error_size);

/* ------------------------------------------ the host form (host_processes.c) */

/* The grade job's peer sockets in a host-form grading, in the order of
 * grader/host_form.h's HOST_*_FD (4-7): the reference's driver and calls,
 * then the student's. A host job's own: its driver socket (the remote
 * client's KGEMU_REMOTE_FD) is 4, its call channel 5. */
#define GRADING_HOST_PEERS          4
#define GRADING_HOST_DRIVER_FD_TEXT "4"
/* After them, the grade job reads each host job's /proc/PID/stat, the
 * reference's then the student's (grader/host_form.h's HOST_*_CPU_FD: 8
 * and 9): their CPU time, which the student's code cannot touch. */
#define GRADING_HOST_CPU_FDS 2

/* The CUDA driver of a grading's host jobs. */
enum host_driver {
    HOST_DRIVER_SERVED,     /* the remote client, served by the grade job's virtual GPU */
    HOST_DRIVER_REAL_GPU,   /* the GPU's own: the grade job times the calls by the wall clock */
    HOST_DRIVER_IN_PROCESS, /* the virtual GPU in the job: grading_job.host_test_in_process */
};

struct host_processes;

/* One host job: grader/numba_host.py in the sandbox, on a thread. */
struct host_process {
    const struct grading_job *job;
    struct host_processes *all; /* its driver's choice; told when it has started */
    const char *self, *python, *runner;
    const int *stop_fd;
    int peers[2]; /* its driver socket and call channel: handed to the sandbox */
    int cpu_fd;   /* its /proc/PID/stat once started; -1 before, or if it never was */
    bool settled; /* started (cpu_fd set), or its thread gave up first */
    char *input;  /* {"source", "file_name", "function"} */
    struct sandbox_outcome outcome;
    char error[GRADER_MESSAGE_MAX];
    bool running, setup_failed;
    pthread_t thread;
};

/* The two host jobs of a host-form grading, and the grade job's ends of
 * their sockets (GRADING_HOST_PEERS of them, in the grade job's order;
 * -1 once handed to the grade job's sandbox). */
struct host_processes {
    const struct grading_job *job;
    const char *self;
    enum host_driver driver;
    /* the driver the jobs load: the remote client, the GPU's, the
     * virtual GPU's libcuda.so.1 */
    char python[PATH_MAX], runner[PATH_MAX], library[PATH_MAX];
    struct grading_gpu gpu; /* a real GPU's nodes (the jobs' on HOST_DRIVER_REAL_GPU) */
    int stop[2];            /* closing stop[1] stops whatever host job is left */
    int worker_peers[GRADING_HOST_PEERS];
    int cpu_fds[GRADING_HOST_CPU_FDS]; /* the grade job's copies of the jobs' cpu_fd */
    pthread_mutex_t lock;              /* over each job's cpu_fd and settled */
    pthread_cond_t settled;
    struct host_process reference, student;
};

/* Starts the exercise's host-form reference and the student's module
 * (job->request->source), each on a thread, with `function` as the host
 * function, and waits until the sandbox has started both (their cpu_fds
 * open). Their driver: a real GPU's when the job has one and the request
 * does not ask for the virtual GPU, else (the test hook aside) the remote
 * client beside the virtual GPU at `emulator`.
 * False with a sentence (kgrade's failure) when they cannot start; all is
 * then finished. */
bool host_processes_start(struct host_processes *all, const struct grading_job *job,
                          const char *self, const char *emulator,
                          const struct grader_exercise_files *files, const char *function,
                          char *error, size_t size);
/* Once the grade job has ended: closes what is left of its ends, stops the
 * host jobs that have not ended, joins them. */
void host_processes_finish(struct host_processes *all);
/* Once finished: whether a host job could not be set up (its view: a
 * runner file missing beside kgrade; or its sandbox), the reference's
 * first, with why in `text` ("the host form's student job could not be set
 * up: the sandbox could not be set up: ..."). The grade job saw only its
 * socket end: the grading's verdict is internal_error, kgrade's failure,
 * whatever the grade job said. */
bool host_processes_setup_failure(const struct host_processes *all, char *text, size_t size);
/* Why a host job ended, once finished, when the sandbox or a signal ended
 * it or it exited with a failure: a clause for the verdict's message ("the
 * sandbox stopped it for a system call it does not allow (...)"), in
 * `text`. False when it ended as a job ends, or was stopped because the
 * grading had. */
bool host_process_end_text(const struct host_process *h, char *text, size_t size);

#endif
