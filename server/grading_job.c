/*
 * One grading in the sandbox (grading_job.h): the exercise's files are read
 * here, its reference compiled by a reference job of its own (or found in
 * the cache), and the student's source graded by a grade job that is handed
 * the exercise's definition and the reference's PTX on its input. A Numba
 * source's front-end jobs (numba_job.c) run beside the reference's job, on
 * threads of their own, for the architecture the reference will most
 * likely have; again after it, in the rare case that it has another.
 *
 * Neither job sees the exercise folder, the server's data or kgrade's
 * sources or binary. Each sees, read-only: the shared libraries kgrade has
 * loaded (the sandbox's own rule), the CUDA toolkit's headers (a student's
 * #include <cuda_fp16.h>), NVRTC's builtins library (which NVRTC loads to
 * compile), the virtual GPU with the libraries it needs (LLVM, for its
 * compiled tier), and on a GPU server the /dev/nvidia* nodes and the
 * driver's libraries. Its environment is rebuilt from an allowlist.
 * Until the worker reports its first run, the compile limit applies; from
 * then on the run limit.
 */
#include "grading_job.h"

#include "job_protocol.h"
#include "reference_cache.h"
#include "sandbox/sandbox.h"

#include <dlfcn.h>
#include <glob.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KGRADE_CUDA_HOME
#error "KGRADE_CUDA_HOME is set by the Makefile"
#endif

#define ENV_MAX   32
#define PATHS_MAX 64

/* What NVRTC loads when it compiles, and what a GPU server's driver
 * loads, besides the libraries kgrade itself has loaded: the driver and its
 * PTX compiler (loaded as a module is loaded), in the distribution's
 * folders and in the one where the loader finds libcuda.so.1 (a
 * container's /usr/local/nvidia/lib64). */
#define NVRTC_BUILTINS KGRADE_CUDA_HOME "/lib64/libnvrtc-builtins.so*"
#define DRIVER_FILES   "lib{cuda,nvidia-ptxjitcompiler,nvidia-nvvm,nvidia-gpucomp}.so*"
#define DRIVER_FOLDERS "/usr/lib{,64,/x86_64-linux-gnu,/aarch64-linux-gnu}/"
#define DRIVER_SONAME  "libcuda.so.1"

extern char **environ;

/* Variables a job may inherit: the virtual GPU's settings, the GPU choice. */
static const char *const env_passed[] = {"KGEMU_", "CUDA_VISIBLE_DEVICES=", NULL};

struct follow {
    const struct grading_job *job;
    char phase[16];  /* the last phase the worker reported */
    char device[96]; /* the device it said it grades on, printable ASCII; "" until then */
    json_t *final;   /* the "done" or "error" line */
    bool ran;        /* a run has begun: the compile is over */
    double run_ends; /* once it has: the job's seconds at which the run limit ends */
    /* The student's run of a case is under way, with its own limit: the
     * reference's time scaled, unless the run limit ends first. */
    bool in_student, student_scaled;
    double student_limit, reference_seconds;
};

void grading_default_limits(struct grading_limits *limits)
{
    limits->compile_seconds = GRADING_COMPILE_SECONDS;
    limits->run_seconds = GRADING_RUN_SECONDS;
    limits->memory_bytes = SANDBOX_DEFAULT_MEMORY_BYTES;
}

void grading_job_here(struct grading_job *job, const struct grader_request *request)
{
    memset(job, 0, sizeof *job);
    job->request = request;
#ifdef __SANITIZE_ADDRESS__
    job->relaxed_for_sanitizers = true; /* the worker is this same sanitized binary */
#endif
    grading_default_limits(&job->limits);
    const char *hook = getenv(GRADING_TEST_HOST_IN_PROCESS);
    job->host_test_in_process = hook && strcmp(hook, "1") == 0;
}

int grading_env_passed(const char **env, int n, int max)
{
    env[n++] = "CUDA_CACHE_DISABLE=1"; /* a real GPU's JIT cache would die with the job's /tmp */
    for (char **e = environ; *e && n < max - 1; e++)
        for (int i = 0; env_passed[i]; i++)
            if (strncmp(*e, env_passed[i], strlen(env_passed[i])) == 0)
                env[n++] = *e;
    env[n] = NULL;
    return n;
}

/* The job's environment; `driver`, when not NULL, names the real GPU's
 * driver the job is to load ("KGRADE_CUDA_DRIVER=PATH"). */
static void build_env(const char *env[ENV_MAX], const char *driver)
{
    int n = 0;
    if (driver)
        env[n++] = driver;
    env[n++] = "PATH=/usr/bin:/bin";
    env[n++] = "HOME=/tmp";
    env[n++] = "TMPDIR=/tmp";
    env[n++] = "LANG=C.UTF-8";
    grading_env_passed(env, n, ENV_MAX);
}

/* The real GPU's device nodes, when there are any: /dev/nvidia0,
 * nvidiactl, nvidia-uvm…, not the folder /dev/nvidia-caps (MIG's
 * capabilities, which a job needs no more than the host's others). */
static void gpu_devices(glob_t *g, const char *devices[GRADING_GPU_DEVICES_MAX])
{
    int n = 0;
    struct stat st;
    if (glob("/dev/nvidia*", 0, NULL, g) == 0)
        for (size_t i = 0; i < g->gl_pathc && n < GRADING_GPU_DEVICES_MAX - 1; i++)
            if (stat(g->gl_pathv[i], &st) == 0 && S_ISCHR(st.st_mode))
                devices[n++] = g->gl_pathv[i];
    devices[n] = NULL;
}

/* The real GPU's driver this process would load: KGRADE_CUDA_DRIVER's,
 * else the libcuda.so.1 its loader finds (through LD_LIBRARY_PATH too,
 * which the job's environment lacks); "" when there is none. */
static void driver_path(char *path, size_t size)
{
    const char *named = getenv(GRADER_CUDA_DRIVER);
    path[0] = '\0';
    if (named && named[0]) {
        snprintf(path, size, "%s", named);
        return;
    }
    void *driver = dlopen(DRIVER_SONAME, RTLD_LAZY | RTLD_LOCAL);
    struct link_map *map = NULL;
    if (driver && dlinfo(driver, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0] == '/')
        snprintf(path, size, "%s", map->l_name);
    if (driver)
        dlclose(driver);
}

void grading_gpu_find(struct grading_gpu *gpu)
{
    memset(gpu, 0, sizeof *gpu);
    gpu_devices(&gpu->nodes, gpu->devices);
    if (gpu->devices[0])
        driver_path(gpu->driver, sizeof gpu->driver);
}

void grading_gpu_free(struct grading_gpu *gpu)
{
    globfree(&gpu->nodes);
    memset(gpu, 0, sizeof *gpu);
}

void grading_driver_files(const char *path, glob_t *found)
{
    glob(DRIVER_FOLDERS DRIVER_FILES, GLOB_BRACE | GLOB_APPEND, NULL, found);
    if (path[0] != '/')
        return;
    char folder[PATH_MAX], pattern[PATH_MAX + sizeof DRIVER_FILES];
    snprintf(folder, sizeof folder, "%s", path);
    snprintf(pattern, sizeof pattern, "%s/%s", dirname(folder), DRIVER_FILES);
    glob(pattern, GLOB_BRACE | GLOB_APPEND, NULL, found);
    glob(path, GLOB_APPEND, NULL, found); /* whatever its name */
}

/* Seconds left of the run limit (never 0, which would keep the deadline). */
static double run_left(const struct follow *f, double elapsed)
{
    double left = f->run_ends - elapsed;
    return left > 0.001 ? left : 0.001;
}

/* The student's run of a case begins: a limit of GRADING_STUDENT_FACTOR
 * times what the case's reference took here, at least the floor, within
 * what is left of the run limit. A worker cannot lengthen it: the run
 * limit's end is fixed when the first run begins. */
static double student_limit(struct follow *f, const json_t *line, double elapsed)
{
    double reference = json_number_value(json_object_get(line, "reference_seconds"));
    double scaled = GRADING_STUDENT_FACTOR * (reference > 0 ? reference : 0);
    if (scaled < GRADING_STUDENT_FLOOR_SECONDS)
        scaled = GRADING_STUDENT_FLOOR_SECONDS;
    double left = run_left(f, elapsed);
    f->in_student = true;
    f->student_scaled = scaled < left;
    f->student_limit = f->student_scaled ? scaled : left;
    f->reference_seconds = reference;
    return f->student_limit;
}

/* The device a worker names, for a verdict decided here: kept only if it
 * is printable ASCII that fits. */
static void keep_device(struct follow *f, const char *device)
{
    size_t n = device ? strlen(device) : 0;
    for (size_t i = 0; i < n; i++)
        if (device[i] < 0x20 || device[i] > 0x7e)
            return;
    if (n > 0 && n < sizeof f->device)
        memcpy(f->device, device, n + 1);
}

static double on_line(void *context, const char *text, size_t length, double elapsed)
{
    struct follow *f = context;
    json_t *line = json_loadb(text, length, 0, NULL);
    const char *phase = json_string_value(json_object_get(line, "phase"));
    double limit = 0;
    if (!phase) {
        json_decref(line);
        return 0;
    }
    if (strcmp(phase, "done") == 0 || strcmp(phase, "error") == 0) {
        json_decref(f->final);
        f->final = line;
        return 0;
    }
    keep_device(f, json_string_value(json_object_get(line, "device")));
    if (strcmp(phase, "compiling") != 0 && !f->ran) {
        f->ran = true;
        f->run_ends = elapsed + f->job->limits.run_seconds;
    }
    if (strcmp(phase, "student") == 0) { /* for the limit only, not a progress phase */
        limit = f->ran ? student_limit(f, line, elapsed) : 0;
    } else {
        snprintf(f->phase, sizeof f->phase, "%s", phase);
        if (f->job->progress)
            f->job->progress(f->job->context, f->phase, line);
        f->in_student = false;
        limit = f->ran ? run_left(f, elapsed) : 0;
    }
    json_decref(line); /* `phase` pointed into it */
    return limit;
}

/* A student's run stopped at its limit, scaled from the reference's time. */
static void student_timeout_message(const struct follow *f, char *message, size_t size)
{
    char limit[GRADER_NUMBER_TEXT_MAX], reference[GRADER_NUMBER_TEXT_MAX];
    snprintf(message, size,
             "the kernel ran longer than its %s limit on this case (%g× the %s the reference "
             "took here, and at least %g s) and was stopped",
             grader_ms_text(f->student_limit * 1e3, limit), GRADING_STUDENT_FACTOR,
             grader_ms_text(f->reference_seconds * 1e3, reference), GRADING_STUDENT_FLOOR_SECONDS);
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
        if (f->in_student && f->student_scaled)
            student_timeout_message(f, message, size);
        else
            snprintf(message, size,
                     "the grading ran longer than its %g s limit and was stopped (%s)",
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

/* The worker ended by a signal nobody here sent, or without its outcome:
 * what a retry may cure (grading_job.worker_died). */
static bool worker_died(const struct sandbox_outcome *o)
{
    return o->end == SANDBOX_EXITED || o->end == SANDBOX_SIGNALED;
}

/* Whether the worker's final line is a result of this request: a known
 * verdict, the same in the result, for the exercise and (when the caller
 * drew it) the seed asked for. The job runs a student's code, so its word
 * is checked as far as it can be here; a result that disagrees is no
 * result. Sets `verdict`. */
static bool result_consistent(const struct grader_request *request, const json_t *final,
                              enum grader_verdict *verdict)
{
    const json_t *result = json_object_get(final, "result");
    const char *name = json_string_value(json_object_get(final, "verdict"));
    const char *exercise = json_string_value(json_object_get(result, "exercise"));
    const char *inner = json_string_value(json_object_get(result, "verdict"));
    const char *seed = json_string_value(json_object_get(result, "seed"));
    char wanted_seed[32];
    snprintf(wanted_seed, sizeof wanted_seed, "%" PRIu64, request->seed);
    if (!json_is_object(result) || !name || !inner || strcmp(name, inner) != 0 || !exercise ||
        strcmp(exercise, request->exercise) != 0 ||
        (request->seed_given && (!seed || strcmp(seed, wanted_seed) != 0)))
        return false;
    for (int v = 0; v <= GRADER_VERDICT_INTERNAL_ERROR; v++)
        if (strcmp(grader_verdict_name((enum grader_verdict)v), name) == 0) {
            *verdict = (enum grader_verdict)v;
            return true;
        }
    return false;
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
    if (o->end == SANDBOX_EXITED && result_consistent(f->job->request, f->final, verdict))
        return json_incref(result);
    char message[GRADER_MESSAGE_MAX];
    if (o->end == SANDBOX_EXITED)
        snprintf(message, sizeof message, "the grading worker ended without a verdict (%s%s)",
                 o->reason, o->output_truncated ? "; its result was over the size limit" : "");
    *verdict = o->end == SANDBOX_EXITED ? GRADER_VERDICT_INTERNAL_ERROR
                                        : verdict_of_end(f, o, message, sizeof message);
    if (f->job->worker_died)
        *f->job->worker_died = worker_died(o);
    return grader_verdict_json_on(f->job->request, *verdict, message, f->ran, f->device);
}

/* Where the job's files are: the kgrade binary (executed, not shown), the
 * exercise folder (read here, never shown), the virtual GPU beside the
 * binary (when it is there). */
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

/* The files a job sees besides the libraries (globbed into `found`); a
 * real GPU's driver when `driver` (its path, "" when none was found) is not
 * NULL. */
static void view_paths(const char *driver, glob_t *found, const char *paths[PATHS_MAX])
{
    int n = 0;
    paths[n++] = KGRADE_CUDA_HOME "/include";
    glob(NVRTC_BUILTINS, 0, NULL, found);
    if (driver)
        grading_driver_files(driver, found);
    for (size_t i = 0; i < found->gl_pathc && n < PATHS_MAX - 1; i++)
        paths[n++] = found->gl_pathv[i];
    paths[n] = NULL;
}

/* The compile's limits, then, for a grade job, the runs' (moved by
 * on_line). kgrade's own reference never gets less compile time than the
 * default, whatever an exercise allows a student's compile. */
void grading_job_limits(const struct grading_job *job, enum job_work work, struct sandbox_limits *l)
{
    sandbox_default_limits(l);
    l->wall_seconds = job->limits.compile_seconds;
    if (work == JOB_WORK_REFERENCE && l->wall_seconds < GRADING_COMPILE_SECONDS)
        l->wall_seconds = GRADING_COMPILE_SECONDS;
    l->memory_bytes = job->limits.memory_bytes;
    l->cpu_seconds = sandbox_cpu_for(
        l->wall_seconds + (work == JOB_WORK_STUDENT_GRADE ? job->limits.run_seconds : 0));
}

void grading_job_sandbox(const struct grading_job *job, const struct job_command *command,
                         const struct sandbox_limits *limits, const char *input, size_t input_size,
                         sandbox_line_fn *tell, void *context, struct sandbox_outcome *outcome)
{
    struct sandbox_job s = {
        .argv = command->argv,
        .env = command->env,
        .input = input,
        .input_size = input_size,
        .read_paths = command->paths,
        .libraries = command->libraries,
        .device_paths = command->devices,
        .real_gpu = command->devices && command->devices[0],
        .relaxed_for_sanitizers = job->relaxed_for_sanitizers,
        .peer_count = command->peer_count,
        .peers_handed = true,
        .stop_fd = command->stop_fd,
        .on_line = tell,
        .context = context,
        .on_started = command->on_started,
        .started_context = command->started_context,
        .limits = *limits,
        .read_count = command->read_count,
    };
    for (int i = 0; i < command->peer_count && i < SANDBOX_PEERS_MAX; i++)
        s.peer_fds[i] = command->peers[i];
    for (int i = 0; i < command->read_count && i < SANDBOX_READ_FDS_MAX; i++)
        s.read_fds[i] = command->reads[i];
    sandbox_run(&s, outcome);
}

/* A worker in the sandbox, fed `input`, followed by `f` to its end; with
 * `hosts`, a host-form grading's: the grade job gets its peers (handed
 * over: -1 once the sandbox has them) and the host jobs' cpu_fds. */
static void run_worker(const struct grading_job *job, const struct job_paths *p, bool grading,
                       const char *input, size_t input_size, struct host_processes *hosts,
                       struct follow *f, struct sandbox_outcome *outcome)
{
    int *peers = hosts ? hosts->worker_peers : NULL;
    const char *argv[] = {p->self, "worker", NULL};
    const char *env[ENV_MAX], *paths[PATHS_MAX];
    /* the virtual GPU: loaded by the job, with LLVM and all it needs */
    const char *libraries[] = {p->emulator[0] ? p->emulator : NULL, NULL};
    glob_t found = {0};
    struct grading_gpu gpu;
    char setting[PATH_MAX + sizeof GRADER_CUDA_DRIVER + 1];
    grading_gpu_find(&gpu);
    snprintf(setting, sizeof setting, "%s=%s", GRADER_CUDA_DRIVER, gpu.driver);
    build_env(env, gpu.driver[0] ? setting : NULL);
    view_paths(gpu.devices[0] ? gpu.driver : NULL, &found, paths);
    struct job_command command = {.argv = argv,
                                  .env = env,
                                  .paths = paths,
                                  .libraries = libraries,
                                  .devices = gpu.devices,
                                  .peers = peers,
                                  .peer_count = peers ? GRADING_HOST_PEERS : 0,
                                  .reads = hosts ? hosts->cpu_fds : NULL,
                                  .read_count = hosts ? GRADING_HOST_CPU_FDS : 0};
    struct sandbox_limits limits;
    grading_job_limits(job, grading ? JOB_WORK_STUDENT_GRADE : JOB_WORK_REFERENCE, &limits);
    if (peers) /* the served sessions' windows and the case's inputs are memfds, files as
                * RLIMIT_FSIZE counts them: each within the job's memory */
        limits.file_bytes = limits.memory_bytes;
    grading_job_sandbox(job, &command, &limits, input, input_size, on_line, f, outcome);
    for (int i = 0; peers && i < GRADING_HOST_PEERS; i++)
        peers[i] = -1;
    if (job->log && outcome->log_size > 0)
        job->log(job->context, outcome->log, outcome->log_size, outcome->log_truncated);
    globfree(&found);
    grading_gpu_free(&gpu);
}

/* What a reference job that gave no reference said (a broken exercise, a
 * device that cannot be used: `*refused`), or why it ended (a worker that
 * died is told as the grade job's would be). */
static void reference_failure(const struct grading_job *job, const struct follow *f,
                              const struct sandbox_outcome *o, bool *refused, char *error,
                              size_t error_size)
{
    const char *said = json_string_value(json_object_get(f->final, "message"));
    const char *log = o->log && o->log[0] ? o->log : "";
    *refused = said != NULL;
    if (said) {
        snprintf(error, error_size, "%s", said);
        return;
    }
    snprintf(error, error_size, "the grading worker failed: %s (compiling the reference)%s%.200s",
             o->reason, log[0] ? "; it said: " : "", log);
    if (job->worker_died)
        *job->worker_died = worker_died(o);
}

/* The exercise's reference for the job's device: from the cache, else
 * compiled by a reference job (which sees its source on its input only). */
static json_t *reference_of(const struct grading_job *job, const struct job_paths *p,
                            const struct grader_exercise_files *files, bool *refused, char *error,
                            size_t error_size)
{
    const struct grader_request *q = job->request;
    json_t *reference =
        job->references ? reference_cache_get(job->references, files->version, q->device) : NULL;
    if (reference)
        return reference;
    struct grader_request build = {
        .exercise = q->exercise,
        .definition = files->definition,
        .definition_size = files->definition_size,
        .source = files->reference,
        .size = files->reference_size,
        .device = q->device,
        .emulator = p->emulator[0] ? p->emulator : NULL,
    };
    size_t input_size;
    char *input = job_encode(JOB_REFERENCE, &build, &input_size);
    struct grading_job quiet = *job;
    quiet.progress = NULL;
    struct follow f = {.job = &quiet};
    struct sandbox_outcome outcome = {0};
    if (input)
        run_worker(job, p, false, input, input_size, NULL, &f, &outcome);
    reference = json_incref(json_object_get(f.final, "reference"));
    if (!reference)
        reference_failure(job, &f, &outcome, refused, error, error_size);
    else if (job->references)
        reference_cache_put(job->references, files->version, q->device, reference);
    sandbox_outcome_free(&outcome);
    json_decref(f.final);
    free(input);
    return reference;
}

/* The grade job: the student's source with the exercise given whole and,
 * for a Numba source, what the front end's job made of it (`numba`; NULL
 * with the front end's failure in `why`: kgrade's, never the student's);
 * `hosts`: a host-form grading's jobs (host_processes.c), else NULL. */
static json_t *grade_in_sandbox(const struct grading_job *job, const struct job_paths *p,
                                const struct grader_exercise_files *files, const json_t *reference,
                                const json_t *numba, const char *why, struct host_processes *hosts,
                                enum grader_verdict *verdict, char *error, size_t error_size)
{
    struct grader_request request = *job->request;
    request.definition = files->definition;
    request.definition_size = files->definition_size;
    request.version = files->version;
    request.reference = reference;
    request.emulator = p->emulator[0] ? p->emulator : NULL;
    if (hosts) /* drivers of their own: each call timed by the wall clock */
        request.host_wall_time = hosts->driver != HOST_DRIVER_SERVED;
    if (hosts && hosts->driver == HOST_DRIVER_REAL_GPU) /* the GPU they run on */
        request.device = GRADER_DEVICE_CUDA;
    if (request.language == GRADER_LANGUAGE_NUMBA) {
        if (!numba) {
            *verdict = GRADER_VERDICT_INTERNAL_ERROR;
            return grader_verdict_json(job->request, *verdict, why, false);
        }
        request.numba = numba;
    }
    size_t input_size;
    char *input = job_encode(JOB_GRADE, &request, &input_size);
    if (!input) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    struct follow f = {.job = job};
    struct sandbox_outcome outcome;
    run_worker(job, p, true, input, input_size, hosts, &f, &outcome);
    json_t *result = result_of(&f, &outcome, verdict, error, error_size);
    sandbox_outcome_free(&outcome);
    json_decref(f.final);
    free(input);
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

/* The Numba reference's key in the reference cache. */
static void numba_reference_key(const struct grader_exercise_files *files, char key[64])
{
    snprintf(key, 64, "%s-numba", files->version);
}

/* The Numba reference, when cached. */
static json_t *numba_reference_cached(const struct grading_job *job,
                                      const struct grader_exercise_files *files)
{
    char key[64];
    numba_reference_key(files, key);
    return job->references ? reference_cache_get(job->references, key, job->request->device) : NULL;
}

/* For a Numba source, when the exercise has reference.py: the Numba
 * reference, compiled by the front end's job (`front`, started beside the
 * reference's job) for the device the C reference was built for, or from
 * the cache. NULL with a sentence: the reference is kgrade's, its failure
 * never the student's. */
static json_t *numba_reference_of(const struct grading_job *job,
                                  const struct grader_exercise_files *files,
                                  struct numba_job_thread *front, const json_t *reference,
                                  char *error, size_t error_size)
{
    json_t *built = numba_reference_cached(job, files);
    if (built)
        return built;
    json_t *compiled = numba_job_finish(front, reference, error, error_size);
    built = compiled ? grader_numba_reference(compiled, reference, error, error_size) : NULL;
    char key[64];
    numba_reference_key(files, key);
    if (built && job->references)
        reference_cache_put(job->references, key, job->request->device, built);
    json_decref(compiled);
    return built;
}

/* A Numba source's front-end jobs, started beside the reference's job:
 * the student's, and the Numba reference's unless it is cached. */
struct front_ends {
    struct numba_job_thread student, reference;
    bool numba;
};

static void front_ends_start(struct front_ends *f, const struct grading_job *job,
                             const struct job_paths *p, const struct grader_exercise_files *files)
{
    memset(f, 0, sizeof *f);
    f->numba = job->request->language == GRADER_LANGUAGE_NUMBA;
    if (!f->numba)
        return;
    /* the cached reference's architecture, else the likeliest one's */
    json_t *target =
        job->references ? reference_cache_get(job->references, files->version, job->request->device)
                        : NULL;
    if (!target)
        target = json_pack("{s:s}", "arch", GRADER_DEFAULT_ARCH);
    struct grader_request request = *job->request;
    request.definition = files->definition;
    request.definition_size = files->definition_size;
    numba_job_start(&f->student, job, JOB_WORK_STUDENT_COMPILE, &request, target, p->self);
    json_t *cached = files->numba_reference ? numba_reference_cached(job, files) : NULL;
    request.source = files->numba_reference;
    request.size = files->numba_reference_size;
    request.file_name = "reference.py";
    if (files->numba_reference && !cached)
        numba_job_start(&f->reference, job, JOB_WORK_REFERENCE, &request, target, p->self);
    json_decref(cached);
    json_decref(target);
}

/* Joins what front_ends_start started that nothing took (finishing a job
 * again, or one never started, with no reference does nothing). */
static void front_ends_end(struct front_ends *f)
{
    char ignored[GRADER_MESSAGE_MAX];
    json_decref(numba_job_finish(&f->student, NULL, ignored, sizeof ignored));
    json_decref(numba_job_finish(&f->reference, NULL, ignored, sizeof ignored));
}

/* The host function a Numba source is graded through (its front end's
 * "form": "host"), or NULL: its kernels. */
static const char *host_function(const json_t *numba)
{
    const char *form = json_string_value(json_object_get(numba, "form"));
    return form && strcmp(form, "host") == 0 ? json_string_value(json_object_get(numba, "function"))
                                             : NULL;
}

/* A runtime_error's message ("the program ended during
 * create_hidden_layer"), with why the student's host job ended when the
 * sandbox or a signal ended it: the grade job only saw its socket end. */
static void host_end_said(const struct host_process *student, json_t *result)
{
    char why[GRADER_MESSAGE_MAX / 2], message[GRADER_MESSAGE_MAX];
    const char *said = json_string_value(json_object_get(result, "message"));
    if (!said || !host_process_end_text(student, why, sizeof why))
        return;
    snprintf(message, sizeof message, "%.*s: %s", (int)(sizeof message - sizeof why - 2), said,
             why);
    json_object_set_new(result, "message", json_string(message));
}

/* The student's source graded: through its host function, with the host
 * jobs beside the grade job (host_processes.c), or its kernels. */
static json_t *grade_source(const struct grading_job *job, const struct job_paths *p,
                            const struct grader_exercise_files *files, const json_t *reference,
                            const json_t *numba, const char *why, enum grader_verdict *verdict,
                            char *error, size_t error_size)
{
    const char *function = host_function(numba);
    if (!function)
        return grade_in_sandbox(job, p, files, reference, numba, why, NULL, verdict, error,
                                error_size);
    struct host_processes hosts;
    char failed[GRADER_MESSAGE_MAX];
    if (!host_processes_start(&hosts, job, p->self, p->emulator, files, function, failed,
                              sizeof failed)) {
        *verdict = GRADER_VERDICT_INTERNAL_ERROR;
        return grader_verdict_json(job->request, *verdict, failed, false);
    }
    json_t *result =
        grade_in_sandbox(job, p, files, reference, numba, why, &hosts, verdict, error, error_size);
    host_processes_finish(&hosts);
    /* a host job that could not be set up: kgrade's failure, not the student's */
    if (host_processes_setup_failure(&hosts, failed, sizeof failed)) {
        json_decref(result);
        *verdict = GRADER_VERDICT_INTERNAL_ERROR;
        return grader_verdict_json(job->request, *verdict, failed, false);
    }
    if (result && *verdict == GRADER_VERDICT_RUNTIME_ERROR)
        host_end_said(&hosts.student, result);
    return result;
}

/* The exercise read, its reference obtained, the source graded; a Numba
 * source's front end runs beside the reference's job. */
static json_t *grade_exercise(const struct grading_job *job, const struct job_paths *p,
                              enum grader_verdict *verdict, char *error, size_t error_size)
{
    struct grader_exercise_files files;
    if (!grader_exercise_read(p->exercises, job->request->exercise, &files, error, error_size))
        return NULL;
    struct front_ends fronts;
    front_ends_start(&fronts, job, p, &files);
    char why[GRADER_MESSAGE_MAX];
    bool refused = false;
    json_t *result = NULL, *reference = reference_of(job, p, &files, &refused, why, sizeof why);
    if (reference && files.numba_reference && fronts.numba) {
        json_t *numba =
            numba_reference_of(job, &files, &fronts.reference, reference, why, sizeof why);
        json_decref(reference);
        reference = numba;
    }
    if (reference) {
        char front_why[GRADER_MESSAGE_MAX] = "";
        json_t *numba =
            fronts.numba ? numba_job_finish(&fronts.student, reference, front_why, sizeof front_why)
                         : NULL;
        result =
            grade_source(job, p, &files, reference, numba, front_why, verdict, error, error_size);
        json_decref(numba);
    } else if (refused) { /* a configuration error: the request cannot be served */
        snprintf(error, error_size, "%s", why);
    } else { /* the reference is kgrade's: its failure is never the student's */
        *verdict = GRADER_VERDICT_INTERNAL_ERROR;
        result = grader_verdict_json(job->request, *verdict, why, false);
    }
    front_ends_end(&fronts);
    json_decref(reference);
    grader_exercise_files_free(&files);
    return result;
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
    return grade_exercise(&patched, &p, verdict, error, error_size);
}
