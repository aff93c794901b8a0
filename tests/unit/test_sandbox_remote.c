/*
 * The host form's foundation end to end (issue 34): numba's runtime in a
 * sandboxed job whose CUDA driver is the virtual GPU's remote client
 * (build/emulator/remote/libcuda.so.1), talking over the job's peer socket
 * to kgemu_serve in this process, which keeps the device and reads the
 * job's modeled device time afterwards. The job runs
 * tests/numba/numba_remote_program.py (CUDA ufuncs on device arrays, a
 * @cuda.jit kernel, a copy back, a stream and events) with the sandbox's
 * whole discipline: the view of Python's folders, libNVVM and the two
 * folders the program reads, seccomp with sending and receiving allowed on
 * fd 4 only. Skipped, saying so, without Debian's python3-numba.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sandbox/sandbox.h"
#include "server/grading_job.h"
#include "test_job_path.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PYTHON         "/usr/bin/python3"
#define PROGRAM        "tests/numba/numba_remote_program.py"
#define VIEW_PATHS_MAX 64

static char build_dir[PATH_MAX]; /* build/, from where the sandbox's test job is */

/* The serving side: kgemu_serve on one end of the socketpair, then the
 * client's modeled device time, read in the context it served. */
struct server {
    void *library;
    int fd;
    int served; /* kgemu_serve's result */
    double device_ms;
};

static void *serve(void *context)
{
    struct server *s = context;
    int (*serve_fd)(int);
    int (*device_time)(double *);
    int (*context_of)(void **);
    int (*destroy)(void *);
    *(void **)&serve_fd = dlsym(s->library, "kgemu_serve");
    *(void **)&device_time = dlsym(s->library, "kgemu_device_time");
    *(void **)&context_of = dlsym(s->library, "cuCtxGetCurrent");
    *(void **)&destroy = dlsym(s->library, "cuCtxDestroy_v2");
    s->served = serve_fd(s->fd);
    void *served_context = NULL;
    if (device_time(&s->device_ms) != 0)
        s->device_ms = -1;
    if (context_of(&served_context) == 0 && served_context)
        destroy(served_context);
    close(s->fd);
    return NULL;
}

static bool numba_installed(void)
{
    return access(PYTHON, X_OK) == 0 && system(PYTHON " -c 'import numba' >/dev/null 2>&1") == 0;
}

/* What a sandboxed numba reads (the front end's view), leaving `room`
 * entries for the caller's; the count. */
static int python_view(glob_t *found, const char *paths[VIEW_PATHS_MAX], int room)
{
    int n = 0;
    for (int i = 0; numba_python_view[i]; i++)
        glob(numba_python_view[i], i ? GLOB_APPEND : 0, NULL, found);
    for (size_t i = 0; i < found->gl_pathc && n < VIEW_PATHS_MAX - room; i++)
        paths[n++] = found->gl_pathv[i];
    return n;
}

/* The view: what a sandboxed numba reads, then the folders the program
 * reads (itself, and grader/ for numba_compile.py's shims). */
static void job_view(glob_t *found, const char *paths[VIEW_PATHS_MAX], char program_dir[PATH_MAX],
                     char grader_dir[PATH_MAX])
{
    int n = python_view(found, paths, 3);
    assert_non_null(realpath("tests/numba", program_dir));
    assert_non_null(realpath("grader", grader_dir));
    paths[n++] = program_dir;
    paths[n++] = grader_dir;
    paths[n] = NULL;
}

static void test_numba_in_the_sandbox_runs_on_the_served_gpu(void **state)
{
    (void)state;
    if (!numba_installed()) {
        fprintf(stderr, "skipped: %s with numba is not installed\n", PYTHON);
        return;
    }
    char emulator[PATH_MAX + 32], client[PATH_MAX + 32], program[PATH_MAX];
    snprintf(emulator, sizeof emulator, "%s/emulator/libcuda.so.1", build_dir);
    snprintf(client, sizeof client, "%s/emulator/remote/libcuda.so.1", build_dir);
    assert_non_null(realpath(PROGRAM, program));
    struct server s = {.library = dlopen(emulator, RTLD_NOW | RTLD_LOCAL)};
    assert_non_null(s.library);
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    s.fd = pair[0];
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, serve, &s), 0);

    char driver[PATH_MAX + 64];
    snprintf(driver, sizeof driver, "NUMBA_CUDA_DRIVER=%s", client);
    const char *argv[] = {PYTHON, "-I", "-B", program, NULL};
    const char *env[] = {"PATH=/usr/bin:/bin",
                         "HOME=/tmp",
                         "TMPDIR=/tmp",
                         "LANG=C.UTF-8",
                         "OPENBLAS_NUM_THREADS=1",
                         "NUMBA_NUM_THREADS=1",
                         "KGEMU_REMOTE_FD=4",
                         driver,
                         NULL};
    const char *libraries[] = {client, NULL};
    const char *paths[VIEW_PATHS_MAX];
    char program_dir[PATH_MAX], grader_dir[PATH_MAX];
    glob_t found = {0};
    job_view(&found, paths, program_dir, grader_dir);
    struct sandbox_job job = {.argv = argv,
                              .env = env,
                              .read_paths = paths,
                              .libraries = libraries,
                              .peer_fds = {pair[1]},
                              .peer_count = 1};
    sandbox_default_limits(&job.limits);
    job.limits.memory_bytes = 4ull << 30;
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    close(pair[1]); /* the server sees the end when the job's copy is gone too */
    pthread_join(thread, NULL);
    if (o.end != SANDBOX_EXITED || o.exit_code != 0)
        fprintf(stderr, "the job: %s\n%s\n", o.reason, o.log ? o.log : "");
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_int_equal(o.exit_code, 0);
    assert_int_equal(s.served, 0);
    assert_true(s.device_ms > 0);
    sandbox_outcome_free(&o);
    globfree(&found);
    dlclose(s.library);
}

/* ------------------------------------------- the host form's host job */

#define HOST_ANSWER  "exercises/hidden-layer/solutions/passed__course_host_answer.py"
#define HOST_N       1000
#define PACKET_MAX   (64 << 10) /* grader/numba_host.py's */
#define WAIT_SECONDS 120

/* The host job's view: numba's, then its files as the Makefile installs
 * them beside kgrade (numba_host_files). */
static void host_job_view(glob_t *found, const char *paths[VIEW_PATHS_MAX],
                          char files[NUMBA_FILES_MAX][PATH_MAX])
{
    char kgrade[PATH_MAX + 16], error[256];
    snprintf(kgrade, sizeof kgrade, "%s/kgrade", build_dir);
    int n = python_view(found, paths, NUMBA_FILES_MAX);
    for (int i = 0; numba_host_files[i]; i++) {
        assert_true(
            numba_installed_path(kgrade, numba_host_files[i], files[i], error, sizeof error));
        paths[n++] = files[i];
    }
    paths[n] = NULL;
}

struct host_job {
    struct sandbox_job job;
    struct sandbox_outcome outcome;
};

static void *run_host_job(void *context)
{
    struct host_job *h = context;
    sandbox_run(&h->job, &h->outcome);
    return NULL;
}

/* A memfd holding `size` bytes of `bytes`, sealed as the grade job seals
 * its inputs (or, with `bytes` NULL, `size` zero bytes, unsealed). */
static int memfd_of(const char *name, const void *bytes, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    if (bytes) {
        assert_int_equal(pwrite(fd, bytes, size, 0), (ssize_t)size);
        assert_int_equal(
            fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
    }
    return fd;
}

/* One packet: `text` and `count` descriptors. */
static void send_packet(int fd, const char *text, const int *fds, int count)
{
    struct iovec iov = {(void *)text, strlen(text)};
    union {
        char bytes[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.bytes,
                       .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)count);
    assert_int_equal(sendmsg(fd, &m, 0), (ssize_t)iov.iov_len);
}

/* The host job's next packet, as JSON (NULL when it ended). */
static json_t *next_packet(int fd)
{
    static char packet[PACKET_MAX];
    ssize_t n = recv(fd, packet, sizeof packet, 0);
    return n > 0 ? json_loadb(packet, (size_t)n, 0, NULL) : NULL;
}

/* The course's call of create_hidden_layer: its reply, the returned array
 * in `out`. */
static json_t *call_hidden_layer(int calls, const float *greyscales, const float *weights,
                                 float *out)
{
    size_t size = HOST_N * sizeof(float);
    int fds[3] = {memfd_of("greyscales", greyscales, size), memfd_of("weights", weights, size),
                  memfd_of("out", NULL, size)};
    json_t *array = json_pack("{s:s, s:[i]}", "dtype", "float32", "shape", HOST_N);
    json_t *request = json_pack("{s:s, s:[{s:i}, {s:O}, {s:O}, {s:s}, {s:s}, {s:s}, {s:s}], s:O}",
                                "call", "create_hidden_layer", "arguments", "int", HOST_N, "array",
                                array, "array", array, "module", "exp", "module", "normalize",
                                "module", "weigh", "module", "activate", "returns", array);
    char *text = json_dumps(request, JSON_COMPACT);
    send_packet(calls, text, fds, 3);
    json_t *reply = next_packet(calls);
    assert_int_equal(pread(fds[2], out, size, 0), (ssize_t)size);
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    free(text);
    json_decref(request);
    json_decref(array);
    return reply;
}

static char *file_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* grader/numba_host.py, installed beside kgrade, in the sandbox as the
 * grading starts it (two peers: the driver's socket and the calls'): the
 * course's answer imports, answers a call with memfd arrays with the
 * hidden layer, and ends when the calls' socket closes. */
static void test_the_host_job_answers_a_call_in_the_sandbox(void **state)
{
    (void)state;
    if (!numba_installed()) {
        fprintf(stderr, "skipped: %s with numba is not installed\n", PYTHON);
        return;
    }
    char emulator[PATH_MAX + 32], client[PATH_MAX + 32], driver[PATH_MAX + 64];
    snprintf(emulator, sizeof emulator, "%s/emulator/libcuda.so.1", build_dir);
    snprintf(client, sizeof client, "%s/emulator/remote/libcuda.so.1", build_dir);
    snprintf(driver, sizeof driver, "NUMBA_CUDA_DRIVER=%s", client);
    struct server s = {.library = dlopen(emulator, RTLD_NOW | RTLD_LOCAL)};
    assert_non_null(s.library);
    int stream[2], calls[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stream), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, calls), 0);
    struct timeval wait = {WAIT_SECONDS, 0};
    assert_int_equal(setsockopt(calls[0], SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait), 0);
    s.fd = stream[0];
    pthread_t server_thread, job_thread;
    assert_int_equal(pthread_create(&server_thread, NULL, serve, &s), 0);

    json_t *input = json_pack("{s:s, s:s, s:s}", "source", file_text(HOST_ANSWER), "file_name",
                              "submission.py", "function", "create_hidden_layer");
    char *input_text = json_dumps(input, JSON_COMPACT);
    char python[PATH_MAX], error[256], files[NUMBA_FILES_MAX][PATH_MAX];
    assert_true(numba_python_path(python, error, sizeof error));
    const char *argv[] = {python, "-I", "-B", files[0], NULL};
    const char *env[16];
    numba_python_env(env, 14);
    int n = 0;
    while (env[n])
        n++;
    env[n++] = driver;
    env[n++] = "KGEMU_REMOTE_FD=4";
    env[n] = NULL;
    const char *libraries[] = {client, NULL};
    const char *paths[VIEW_PATHS_MAX];
    glob_t found = {0};
    host_job_view(&found, paths, files);
    struct host_job h = {.job = {.argv = argv,
                                 .env = env,
                                 .input = input_text,
                                 .input_size = strlen(input_text),
                                 .read_paths = paths,
                                 .libraries = libraries,
                                 .peer_fds = {stream[1], calls[1]},
                                 .peer_count = 2,
                                 .peers_handed = true}};
    sandbox_default_limits(&h.job.limits);
    h.job.limits.memory_bytes = 4ull << 30;
    assert_int_equal(pthread_create(&job_thread, NULL, run_host_job, &h), 0);

    json_t *ready = next_packet(calls[0]);
    static float greyscales[HOST_N], weights[HOST_N], out[HOST_N];
    for (int i = 0; i < HOST_N; i++) {
        greyscales[i] = (float)(i % 255);
        weights[i] = 0.5f + 0.001f * (float)(i % 100);
    }
    json_t *reply = ready ? call_hidden_layer(calls[0], greyscales, weights, out) : NULL;
    close(calls[0]); /* the job's end */
    pthread_join(job_thread, NULL);
    pthread_join(server_thread, NULL);
    if (h.outcome.end != SANDBOX_EXITED || h.outcome.exit_code != 0)
        fprintf(stderr, "the job: %s\n%s\n", h.outcome.reason, h.outcome.log ? h.outcome.log : "");
    assert_true(json_is_true(json_object_get(ready, "ready")));
    assert_true(json_is_true(json_object_get(reply, "returned")));
    for (int i = 0; i < HOST_N; i++) {
        float want = tanhf(greyscales[i] / 255.0f * weights[i]);
        assert_true(fabsf(out[i] - want) <= 1e-6f + 1e-5f * fabsf(want));
    }
    assert_int_equal(h.outcome.end, SANDBOX_EXITED);
    assert_int_equal(h.outcome.exit_code, 0);
    assert_int_equal(s.served, 0);
    assert_true(s.device_ms > 0);
    json_decref(reply);
    json_decref(ready);
    json_decref(input);
    free(input_text);
    sandbox_outcome_free(&h.outcome);
    globfree(&found);
    dlclose(s.library);
}

int main(int argc, char **argv)
{
    (void)argc;
    char here[PATH_MAX], job[PATH_MAX];
    if (!test_job_path(argv[0], here, job))
        return 1;
    char guess[PATH_MAX + 8];
    snprintf(guess, sizeof guess, "%s/../..", dirname(job)); /* build/tests/sandbox/job */
    if (!realpath(guess, build_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numba_in_the_sandbox_runs_on_the_served_gpu),
        cmocka_unit_test(test_the_host_job_answers_a_call_in_the_sandbox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
