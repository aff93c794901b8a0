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
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* The view: what a sandboxed numba reads (the front end's view), then the
 * folders the program reads (itself, and grader/ for numba_compile.py's
 * shims). */
static void job_view(glob_t *found, const char *paths[VIEW_PATHS_MAX], char program_dir[PATH_MAX],
                     char grader_dir[PATH_MAX])
{
    int n = 0;
    for (int i = 0; numba_python_view[i]; i++)
        glob(numba_python_view[i], i ? GLOB_APPEND : 0, NULL, found);
    for (size_t i = 0; i < found->gl_pathc && n < VIEW_PATHS_MAX - 3; i++)
        paths[n++] = found->gl_pathv[i];
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
