/*
 * Benchmark: the sandbox's own cost per job. A trivial job (the system's
 * `true`) run ROUNDS times through sandbox_run (namespaces, filesystem
 * view, Landlock, seccomp, cgroups, limits) against the same job started
 * ROUNDS times with a plain fork and exec in the same run. Prints the mean
 * time of each, the overhead per job (target: under 20 ms) and the ratio.
 */
#include "sandbox/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 50

static const char *const program = "/usr/bin/true";

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Mean seconds of a plain fork + exec + wait; negative on failure. */
static double plain_job(void)
{
    double start = now_seconds();
    for (int i = 0; i < ROUNDS; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            execl(program, program, (char *)NULL);
            _exit(127);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return -1;
    }
    return (now_seconds() - start) / ROUNDS;
}

static double sandboxed_job(void)
{
    const char *argv[] = {program, NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env};
    sandbox_default_limits(&job.limits);
    double start = now_seconds();
    for (int i = 0; i < ROUNDS; i++) {
        struct sandbox_outcome o;
        sandbox_run(&job, &o);
        bool ok = o.end == SANDBOX_EXITED && o.exit_code == 0;
        if (!ok)
            fprintf(stderr, "bench_sandbox: %s\n", o.reason);
        sandbox_outcome_free(&o);
        if (!ok)
            return -1;
    }
    return (now_seconds() - start) / ROUNDS;
}

int main(void)
{
    double plain = plain_job(), sandboxed = sandboxed_job();
    if (plain < 0 || sandboxed < 0) {
        fprintf(stderr, "bench_sandbox: %s did not run\n", program);
        return 1;
    }
    printf("a trivial job (%s), mean of %d:\n", program, ROUNDS);
    printf("  fork + exec (baseline) %8.2f ms\n", plain * 1e3);
    printf("  in the sandbox         %8.2f ms   ratio %.1f\n", sandboxed * 1e3, sandboxed / plain);
    printf("  the sandbox's overhead %8.2f ms per job (target: under 20 ms)\n",
           (sandboxed - plain) * 1e3);
    return 0;
}
