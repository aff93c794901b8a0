/*
 * Which protections this machine gives a job: a trivial job (the system's
 * `true`) run through the whole sandbox, and what was in force for it.
 */
#include "sandbox_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const true_programs[] = {"/usr/bin/true", "/bin/true", NULL};

bool sandbox_probe(struct sandbox_protections *protections, char *why, size_t why_size)
{
    memset(protections, 0, sizeof *protections);
    const char *program = NULL;
    for (int i = 0; true_programs[i] && !program; i++)
        if (access(true_programs[i], X_OK) == 0)
            program = true_programs[i];
    if (!program) {
        snprintf(why, why_size, "no `true` program to try the sandbox with");
        return false;
    }
    const char *argv[] = {program, NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env};
    sandbox_default_limits(&job.limits);
    job.limits.wall_seconds = 10;
    struct sandbox_outcome outcome;
    sandbox_run(&job, &outcome);
    bool ok = outcome.end == SANDBOX_EXITED && outcome.exit_code == 0;
    if (ok)
        *protections = outcome.active;
    else
        snprintf(why, why_size, "a trivial job failed in the sandbox: %s", outcome.reason);
    sandbox_outcome_free(&outcome);
    return ok;
}

const char *sandbox_missing_minimum(const struct sandbox_protections *p)
{
    if (!p->seccomp)
        return "seccomp is not active: grading jobs could make any system call";
    if (!p->rlimits)
        return "resource limits are not active";
    if (!p->timeout)
        return "the wall-clock timeout is not active";
    return NULL;
}

static void line(FILE *out, const char *name, bool active, const char *detail)
{
    fprintf(out, "  %-18s %-8s %s\n", name, active ? "active" : "MISSING", detail);
}

void sandbox_print_protections(const struct sandbox_protections *p, FILE *out)
{
    static const char *const memory[] = {
        [SANDBOX_MEMORY_NONE] = "no memory limit",
        [SANDBOX_MEMORY_RLIMIT_DATA] = "RLIMIT_DATA (no cgroup memory controller)",
        [SANDBOX_MEMORY_CGROUP_V1] = "cgroup v1 memory controller",
        [SANDBOX_MEMORY_CGROUP_V2] = "cgroup v2 memory.max",
    };
    char landlock[64];
    snprintf(landlock, sizeof landlock, "ABI %d: reads, execution, writes, TCP, signals",
             p->landlock_abi);
    line(out, "user namespace", p->user_ns, "the job is root of nothing outside");
    line(out, "mount namespace", p->mount_ns, "mounts stay private to the job");
    line(out, "filesystem view", p->filesystem_view,
         "read-only: its paths, the libraries; writable: a small /tmp; no /proc");
    line(out, "PID namespace", p->pid_ns, "sees no other process; killed as one tree");
    line(out, "network namespace", p->net_ns, "no network interface");
    line(out, "IPC namespace", p->ipc_ns, "no shared memory or queues of the host");
    line(out, "UTS namespace", p->uts_ns, "its own host name");
    line(out, "Landlock", p->landlock_abi > 0, p->landlock_abi > 0 ? landlock : "not offered");
    line(out, "no_new_privs", p->no_new_privs, "no setuid or file capabilities");
    line(out, "seccomp", p->seccomp, "allowlist; anything else kills the job");
    line(out, "resource limits", p->rlimits, "CPU time, file size, open files, no core");
    line(out, "memory limit", p->memory != SANDBOX_MEMORY_NONE, memory[p->memory]);
    line(out, "task limit", p->tasks_cgroup,
         p->tasks_cgroup ? "cgroup pids controller" : "RLIMIT_NPROC (per user)");
    line(out, "wall-clock timeout", p->timeout, "SIGKILL to the whole tree");
}
