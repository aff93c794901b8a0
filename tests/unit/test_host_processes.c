/*
 * Unit tests of the host form's jobs (server/host_processes.c) when they
 * cannot be set up, for real: host jobs started on their threads whose
 * runner files are not beside kgrade (a `self` in a folder that holds only
 * numba_host.py), and host jobs whose sandbox cannot start (a hard CPU
 * limit below theirs, which the sandbox cannot raise). Either is kgrade's
 * failure: host_processes_start says so when the job never started (its
 * view), host_processes_setup_failure once finished when it failed in its
 * sandbox's set-up, with its cause, where the grade job would only have
 * seen the jobs' sockets end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/grading_job.h"
#include "test_job_path.h"

#include <libgen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define SOURCE "def create_hidden_layer(n):\n    return None\n"
/* The grading's limits, and a hard CPU limit below the host jobs' own
 * (sandbox_cpu_for their compile and run seconds: at least their sum). */
#define COMPILE_SECONDS 60.0
#define RUN_SECONDS     60.0
#define LOW_CPU_SECONDS 100
/* How long a job that did start may take to say its first word. */
#define WAIT_MS 120000

static char build[PATH_MAX]; /* the plain build's folder: kgrade's, and the virtual GPU's */

/* Starts the host jobs as kgrade at `self` would, lets them end, and
 * returns what host_processes_start said when they could not start, else
 * what host_processes_setup_failure says (false: they started). */
static bool setup_failure_of(const char *self, char *text, size_t size)
{
    struct grader_request request = {.source = SOURCE, .size = strlen(SOURCE)};
    struct grading_job job = {.request = &request};
    job.limits = (struct grading_limits){COMPILE_SECONDS, RUN_SECONDS, 512ull << 20};
    struct grader_exercise_files files = {.host_reference = SOURCE};
    char emulator[PATH_MAX + 32];
    snprintf(emulator, sizeof emulator, "%s/emulator/libcuda.so.1", build);
    struct host_processes all;
    if (!host_processes_start(&all, &job, self, emulator, &files, "create_hidden_layer", text,
                              size))
        return true;
    /* as the grade job does: each job's first word on its call channel,
     * or the channel's end (no assertion: this may run in a child) */
    bool ended = true;
    for (int i = 1; i < GRADING_HOST_PEERS; i += 2) {
        struct pollfd p = {.fd = all.worker_peers[i], .events = POLLIN};
        ended = ended && poll(&p, 1, WAIT_MS) == 1;
    }
    host_processes_finish(&all);
    return ended && host_processes_setup_failure(&all, text, size);
}

static void runner_files_missing_beside_kgrade(void **state)
{
    (void)state;
    char folder[] = "/tmp/kgrade-host-XXXXXX", self[64], runner[64], text[GRADER_MESSAGE_MAX];
    assert_non_null(mkdtemp(folder));
    snprintf(self, sizeof self, "%s/kgrade", folder);
    snprintf(runner, sizeof runner, "%s/numba_host.py", folder);
    FILE *f = fopen(runner, "w"); /* the runner alone: not its loader nor its shims */
    assert_non_null(f);
    fclose(f);
    bool failed = setup_failure_of(self, text, sizeof text);
    unlink(runner);
    rmdir(folder);
    assert_true(failed);
    assert_non_null(strstr(text, "the host form's reference job could not be set up"));
    assert_non_null(strstr(text, "numba_loader.py"));
}

/* In a child process of its own (the limit stays there): the host jobs
 * under a hard CPU limit below theirs. */
static void sandbox_that_cannot_start(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit low = {LOW_CPU_SECONDS, LOW_CPU_SECONDS};
        char self[PATH_MAX + 16], text[GRADER_MESSAGE_MAX] = "";
        snprintf(self, sizeof self, "%s/kgrade", build);
        bool failed = setrlimit(RLIMIT_CPU, &low) == 0 && setup_failure_of(self, text, sizeof text);
        fprintf(stderr, "said: %s\n", text);
        _exit(failed && strstr(text, "the host form's reference job could not be set up: the "
                                     "sandbox could not be set up: setting a resource limit")
                  ? 0
                  : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    char here[PATH_MAX], job[PATH_MAX];
    if (!test_job_path(argv[0], here, job))
        return 1;
    /* the test job is <build>/tests/sandbox/job */
    snprintf(build, sizeof build, "%s", dirname(dirname(dirname(job))));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runner_files_missing_beside_kgrade),
        cmocka_unit_test(sandbox_that_cannot_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
