/*
 * sandbox_run(): starts a job in its sandbox and follows it to its end.
 *
 * The parent prepares everything the child needs (sandbox_internal.h),
 * clones it into new namespaces (fewer when the kernel refuses some), maps
 * its ids, places it in its cgroups and lets it go. Then one poll loop
 * feeds the job's input, reads its result (line by line, to the caller)
 * and its log, both capped, and watches the clock: past the wall-clock
 * limit the job's process tree is killed (the job is PID 1 of its own PID
 * namespace, so killing it kills all; without one, its process group). The
 * end is classified: exited, killed by a signal, timed out, over its CPU
 * time, over its memory, or a sandbox that could not be set up.
 */
#include "sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_BYTES (256 * 1024)
#define ALL_NAMESPACES                                                                             \
    (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
#define NOBODY    65534
#define ERROR_MAX 256

/* A capped buffer of what a pipe brought. */
struct capture {
    char *data;
    size_t size, cap;
    bool truncated;
};

/* The parent's side of one job. */
struct job_run {
    const struct sandbox_job *job;
    struct sandbox_outcome *out;
    struct child_plan plan;
    struct view_plan view;
    struct job_cgroup cgroup;
    int input_w, result_r, log_r, error_r, sync_w;
    size_t input_sent;
    struct capture result, log, error;
    size_t lines_seen; /* bytes of result already handed to on_line */
    double started, deadline;
    bool killed;
    bool stopped;       /* killed because its caller said so (stop_fd) */
    double cpu_seconds; /* the job's, once it has exited */
    pid_t pid;
    int pidfd;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double sandbox_cpu_for(double wall_seconds)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return wall_seconds * (double)(cores > 0 ? cores : 1);
}

void sandbox_default_limits(struct sandbox_limits *limits)
{
    *limits = (struct sandbox_limits){
        .wall_seconds = SANDBOX_DEFAULT_WALL_SECONDS,
        .cpu_seconds = sandbox_cpu_for(SANDBOX_DEFAULT_WALL_SECONDS),
        .memory_bytes = SANDBOX_DEFAULT_MEMORY_BYTES,
        .file_bytes = SANDBOX_DEFAULT_FILE_BYTES,
        .tmpfs_bytes = SANDBOX_DEFAULT_TMPFS_BYTES,
        .tasks = SANDBOX_DEFAULT_TASKS,
        .open_files = SANDBOX_DEFAULT_OPEN_FILES,
        .output_bytes = SANDBOX_DEFAULT_OUTPUT_BYTES,
        .log_bytes = SANDBOX_DEFAULT_LOG_BYTES,
    };
}

/* -------------------------------------------------------------- set-up */

/* "<what>: <detail>" as the reason the job could not start. */
static void fail_setup(struct job_run *j, const char *what, const char *detail)
{
    j->out->end = SANDBOX_SETUP_FAILED;
    snprintf(j->out->reason, sizeof j->out->reason, "%s%s%s", what, detail[0] ? ": " : "", detail);
}

/* A pipe whose ends sit above the descriptors the child moves (0-3). */
static bool high_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        int high = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
        if (high < 0)
            return false;
        close(fds[i]);
        fds[i] = high;
    }
    return true;
}

static void plan_limit(struct child_plan *p, int slot, int resource, rlim_t soft, rlim_t hard)
{
    p->resources[slot] = resource;
    p->limits[slot] = (struct rlimit){soft, hard};
    p->limit_set[slot] = true;
}

static void plan_limits(struct job_run *j)
{
    const struct sandbox_limits *l = &j->job->limits;
    struct child_plan *p = &j->plan;
    rlim_t cpu = (rlim_t)(l->cpu_seconds + 0.999);
    plan_limit(p, LIMIT_CPU, RLIMIT_CPU, cpu, cpu + 1);
    plan_limit(p, LIMIT_FSIZE, RLIMIT_FSIZE, l->file_bytes, l->file_bytes);
    plan_limit(p, LIMIT_NOFILE, RLIMIT_NOFILE, (rlim_t)l->open_files, (rlim_t)l->open_files);
    plan_limit(p, LIMIT_CORE, RLIMIT_CORE, 0, 0);
    if (j->cgroup.memory == SANDBOX_MEMORY_NONE && !j->job->relaxed_for_sanitizers) {
        plan_limit(p, LIMIT_DATA, RLIMIT_DATA, l->memory_bytes, l->memory_bytes);
        j->out->active.memory = SANDBOX_MEMORY_RLIMIT_DATA;
    }
    /* RLIMIT_NPROC counts every process of the user, so only without the
     * pids controller */
    if (!j->cgroup.tasks_dir[0] && !j->job->relaxed_for_sanitizers && l->tasks > 0)
        plan_limit(p, LIMIT_NPROC, RLIMIT_NPROC, (rlim_t)l->tasks, (rlim_t)l->tasks);
    j->out->active.rlimits = true;
}

static bool make_pipes(struct job_run *j)
{
    int in[2], result[2], log[2], error[2], sync[2];
    if (!high_pipe(in) || !high_pipe(result) || !high_pipe(log) || !high_pipe(error) ||
        !high_pipe(sync))
        return false;
    j->plan.stdin_fd = in[0];
    j->input_w = in[1];
    j->result_r = result[0];
    j->plan.result_fd = result[1];
    j->log_r = log[0];
    j->plan.stderr_fd = log[1];
    j->error_r = error[0];
    j->plan.error_fd = error[1];
    j->plan.sync_fd = sync[0];
    j->sync_w = sync[1];
    j->plan.stdout_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int high = j->plan.stdout_fd >= 0 ? fcntl(j->plan.stdout_fd, F_DUPFD_CLOEXEC, 10) : -1;
    close(j->plan.stdout_fd);
    j->plan.stdout_fd = high;
    fcntl(j->input_w, F_SETFL, O_NONBLOCK);
    return high >= 0;
}

/* Each of `count` descriptors raised above the numbers they get in the
 * job, into `raised` (`*raised_count` of them so far); false with the
 * set-up's failure said. */
static bool raise_fds(struct job_run *j, const int *fds, int count, int max, const char *what,
                      int *raised, int *raised_count)
{
    if (count < 0 || count > max) {
        char given[96], field[96];
        snprintf(given, sizeof given, "%d given; a job takes 0 to %d %s", count, max, what);
        snprintf(field, sizeof field, "the job's count of %s is out of range", what);
        fail_setup(j, field, given);
        return false;
    }
    for (int i = 0; i < count; i++) {
        raised[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
        if (raised[i] < 0) {
            char which[160];
            snprintf(which, sizeof which, "%s %d (%d): %s", what, i, fds[i], strerror(errno));
            fail_setup(j, "a descriptor of the job's could not be passed on", which);
            return false;
        }
        *raised_count = i + 1;
    }
    return true;
}

/* The job's peer sockets and descriptors to read, raised above the
 * numbers they get in the job. */
static bool pass_peers(struct job_run *j)
{
    const struct sandbox_job *job = j->job;
    return raise_fds(j, job->peer_fds, job->peer_count, SANDBOX_PEERS_MAX, "peer sockets",
                     j->plan.peer_fds, &j->plan.peer_count) &&
           raise_fds(j, job->read_fds, job->read_count, SANDBOX_READ_FDS_MAX, "descriptors to read",
                     j->plan.read_fds, &j->plan.read_count);
}

static bool prepare(struct job_run *j)
{
    char error[ERROR_MAX];
    const struct sandbox_job *job = j->job;
    struct child_plan *p = &j->plan;
    p->argv = (char *const *)job->argv;
    p->env = (char *const *)job->env;
    p->landlock_fd = -1;
    if (!make_pipes(j)) {
        fail_setup(j, "the job's pipes could not be made", strerror(errno));
        return false;
    }
    if (!view_prepare(&j->view, job, error, sizeof error)) {
        fail_setup(j, error, "");
        return false;
    }
    p->plan = &j->view;
    p->landlock_abi = landlock_abi_version();
    p->landlock_fd = landlock_build(&j->view, p->landlock_abi);
    if (!pass_peers(j))
        return false;
    if (!seccomp_compile(job->real_gpu, p->peer_count, &p->seccomp, error, sizeof error)) {
        fail_setup(j, error, "");
        return false;
    }
    cgroup_create(&j->cgroup, &job->limits);
    j->out->active.memory = j->cgroup.memory;
    j->out->active.tasks_cgroup = j->cgroup.tasks_dir[0] != '\0';
    plan_limits(j);
    return true;
}

/* ------------------------------------------------------------- starting */

static bool write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* The child's uid and gid 0 in its user namespace: nobody outside when we
 * are root, else ourselves. */
static bool map_ids(pid_t pid)
{
    char path[64], map[64];
    bool root = geteuid() == 0;
    snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
    if (!root && !write_file(path, "deny"))
        return false;
    snprintf(map, sizeof map, "0 %u 1", root ? NOBODY : (unsigned)getegid());
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
    if (!write_file(path, map))
        return false;
    snprintf(map, sizeof map, "0 %u 1", root ? NOBODY : (unsigned)geteuid());
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    return write_file(path, map);
}

/* Clones with as many namespaces as the kernel allows: all of them, then
 * without a user namespace (root), then none. */
static pid_t start_child(struct job_run *j, char *stack)
{
    static const int attempts[] = {ALL_NAMESPACES, ALL_NAMESPACES & ~CLONE_NEWUSER, 0};
    char *top = stack + STACK_BYTES;
    for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
        int flags = attempts[i];
        if ((flags & ~CLONE_NEWUSER) && !(flags & CLONE_NEWUSER) && geteuid() != 0)
            continue; /* namespaces without a user namespace need root */
        j->plan.clone_flags = flags;
        j->plan.view = (flags & CLONE_NEWNS) != 0;
        j->plan.set_ids = (flags & CLONE_NEWUSER) != 0;
        j->plan.drop_groups = j->plan.set_ids && geteuid() == 0;
        j->plan.become_nobody = !(flags & CLONE_NEWUSER) && geteuid() == 0;
        pid_t pid = clone(child_main, top, flags | SIGCHLD, &j->plan);
        if (pid > 0)
            return pid;
    }
    return -1;
}

static void note_namespaces(struct sandbox_protections *a, int flags)
{
    a->user_ns = flags & CLONE_NEWUSER;
    a->mount_ns = flags & CLONE_NEWNS;
    a->pid_ns = flags & CLONE_NEWPID;
    a->net_ns = flags & CLONE_NEWNET;
    a->ipc_ns = flags & CLONE_NEWIPC;
    a->uts_ns = flags & CLONE_NEWUTS;
    a->filesystem_view = a->mount_ns;
}

static void close_child_ends(struct job_run *j)
{
    int *ends[] = {&j->plan.stdin_fd, &j->plan.stdout_fd, &j->plan.stderr_fd,  &j->plan.result_fd,
                   &j->plan.error_fd, &j->plan.sync_fd,   &j->plan.landlock_fd};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
        if (*ends[i] >= 0) {
            close(*ends[i]);
            *ends[i] = -1;
        }
    for (int i = 0; i < j->plan.peer_count; i++)
        close(j->plan.peer_fds[i]);
    for (int i = 0; i < j->plan.read_count; i++)
        close(j->plan.read_fds[i]);
    j->plan.peer_count = j->plan.read_count = 0;
    view_release(&j->view);
}

static bool launch(struct job_run *j)
{
    char *stack = malloc(STACK_BYTES);
    if (!stack) {
        fail_setup(j, "out of memory for the job's stack", "");
        return false;
    }
    j->pid = start_child(j, stack);
    int saved = errno;
    free(stack); /* the child has its own copy of the address space */
    if (j->pid < 0) {
        fail_setup(j, "the job's process could not be started", strerror(saved));
        return false;
    }
    if (j->job->real_gpu && !j->plan.view) { /* its file calls need the read-only view */
        kill(j->pid, SIGKILL);
        waitpid(j->pid, NULL, 0);
        fail_setup(j, "a real GPU's job needs a mount namespace for its filesystem view",
                   "the driver's chmod and links are allowed only inside one");
        return false;
    }
    struct sandbox_protections *a = &j->out->active;
    note_namespaces(a, j->plan.clone_flags);
    a->landlock_abi = j->plan.landlock_fd >= 0 ? j->plan.landlock_abi : 0;
    a->no_new_privs = a->seccomp = a->timeout = true;
    if (j->plan.set_ids && !map_ids(j->pid)) {
        kill(j->pid, SIGKILL);
        waitpid(j->pid, NULL, 0);
        fail_setup(j, "the job's user namespace could not be mapped", strerror(errno));
        return false;
    }
    cgroup_enter(&j->cgroup, j->pid);
    if (j->job->on_started)
        j->job->on_started(j->job->started_context, j->pid);
    j->pidfd = (int)syscall(SYS_pidfd_open, j->pid, 0);
    close_child_ends(j);
    char go = 1;
    return write(j->sync_w, &go, 1) == 1;
}

/* ------------------------------------------------------------ following */

/* Appends what a pipe brought, keeping at most `cap` bytes. */
static void keep(struct capture *c, const char *bytes, size_t n)
{
    size_t room = c->cap > c->size ? c->cap - c->size : 0;
    size_t take = n < room ? n : room;
    if (take < n)
        c->truncated = true;
    if (take == 0)
        return;
    char *grown = realloc(c->data, c->size + take + 1);
    if (!grown) {
        c->truncated = true;
        return;
    }
    memcpy(grown + c->size, bytes, take);
    c->data = grown;
    c->size += take;
    c->data[c->size] = '\0';
}

/* Hands the complete lines of the result not yet seen to the caller. */
static void hand_lines(struct job_run *j)
{
    const struct sandbox_job *job = j->job;
    while (job->on_line && j->lines_seen < j->result.size) {
        const char *start = j->result.data + j->lines_seen;
        const char *nl = memchr(start, '\n', j->result.size - j->lines_seen);
        if (!nl)
            break;
        double now = now_seconds();
        double limit = job->on_line(job->context, start, (size_t)(nl - start), now - j->started);
        if (limit > 0)
            j->deadline = now + limit;
        j->lines_seen = (size_t)(nl - j->result.data) + 1;
    }
}

/* Reads what is there; false at end of file. */
static bool drain(int fd, struct capture *c)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0)
        keep(c, buf, (size_t)n);
    return n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN));
}

static void feed_input(struct job_run *j)
{
    const struct sandbox_job *job = j->job;
    ssize_t n = write(j->input_w, job->input + j->input_sent, job->input_size - j->input_sent);
    if (n > 0)
        j->input_sent += (size_t)n;
    if ((n < 0 && errno != EAGAIN && errno != EINTR) || j->input_sent == job->input_size) {
        close(j->input_w);
        j->input_w = -1;
    }
}

static void kill_tree(struct job_run *j)
{
    if (j->killed)
        return;
    j->killed = true;
    kill(j->pid, SIGKILL);
    if (!(j->plan.clone_flags & CLONE_NEWPID))
        kill(-j->pid, SIGKILL);
}

/* One round of the loop; false once the job has exited and its pipes are
 * done. */
static bool follow(struct job_run *j, int *status, bool *exited)
{
    struct pollfd fds[6];
    int n = 0, result_at = -1, log_at = -1, error_at = -1, input_at = -1, stop_at = -1;
    if (j->result_r >= 0)
        fds[result_at = n++] = (struct pollfd){j->result_r, POLLIN, 0};
    if (j->log_r >= 0)
        fds[log_at = n++] = (struct pollfd){j->log_r, POLLIN, 0};
    if (j->error_r >= 0)
        fds[error_at = n++] = (struct pollfd){j->error_r, POLLIN, 0};
    if (j->input_w >= 0)
        fds[input_at = n++] = (struct pollfd){j->input_w, POLLOUT, 0};
    if (j->pidfd >= 0 && !*exited)
        fds[n++] = (struct pollfd){j->pidfd, POLLIN, 0};
    if (j->job->stop_fd && !*exited && !j->killed)
        fds[stop_at = n++] = (struct pollfd){*j->job->stop_fd, POLLIN, 0};
    double left = j->deadline - now_seconds();
    int wait_ms = left <= 0 ? 0 : left > 0.05 && j->pidfd < 0 ? 50 : (int)(left * 1000) + 1;
    if (*exited)
        wait_ms = 100; /* the pipes' last bytes */
    int ready = poll(fds, (nfds_t)n, wait_ms);
    struct capture *captures[] = {&j->result, &j->log, &j->error};
    int *readers[] = {&j->result_r, &j->log_r, &j->error_r};
    int at[] = {result_at, log_at, error_at};
    for (int i = 0; ready > 0 && i < 3; i++)
        if (at[i] >= 0 && fds[at[i]].revents && !drain(*readers[i], captures[i])) {
            close(*readers[i]);
            *readers[i] = -1;
        }
    hand_lines(j);
    if (input_at >= 0 && fds[input_at].revents)
        feed_input(j);
    struct rusage usage;
    if (!*exited && wait4(j->pid, status, WNOHANG, &usage) == j->pid) {
        *exited = true;
        j->cpu_seconds = (double)usage.ru_utime.tv_sec + (double)usage.ru_stime.tv_sec +
                         (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    }
    if (!*exited && stop_at >= 0 && fds[stop_at].revents) {
        j->stopped = true;
        kill_tree(j);
    }
    if (!*exited && now_seconds() >= j->deadline)
        kill_tree(j);
    bool pipes_open = j->result_r >= 0 || j->log_r >= 0 || j->error_r >= 0;
    return !*exited || (pipes_open && ready > 0);
}

/* ------------------------------------------------------------- the end */

static void classify(struct job_run *j, int status)
{
    struct sandbox_outcome *o = j->out;
    const struct sandbox_limits *l = &j->job->limits;
    if (j->error.size > 0) {
        o->end = SANDBOX_SETUP_FAILED;
        snprintf(o->reason, sizeof o->reason, "the sandbox could not be set up: %.200s",
                 j->error.data);
    } else if (j->stopped) {
        o->end = SANDBOX_STOPPED;
        snprintf(o->reason, sizeof o->reason, "stopped by its caller after %.1f s",
                 o->wall_seconds);
    } else if (j->killed) {
        o->end = SANDBOX_TIMED_OUT;
        snprintf(o->reason, sizeof o->reason, "killed after %.1f s, its wall-clock limit",
                 o->wall_seconds);
    } else if (WIFSIGNALED(status) && cgroup_out_of_memory(&j->cgroup)) {
        o->end = SANDBOX_OUT_OF_MEMORY;
        snprintf(o->reason, sizeof o->reason, "killed for using more than its %llu MB of memory",
                 (unsigned long long)(l->memory_bytes >> 20));
    } else if (WIFSIGNALED(status) &&
               (WTERMSIG(status) == SIGXCPU ||
                (WTERMSIG(status) == SIGKILL && j->cpu_seconds >= l->cpu_seconds))) {
        /* PID 1 of its namespace ignores SIGXCPU: the hard limit's SIGKILL ends it */
        o->end = SANDBOX_CPU_LIMIT;
        snprintf(o->reason, sizeof o->reason, "killed for using more than %.0f s of CPU time",
                 l->cpu_seconds);
    } else if (WIFSIGNALED(status)) {
        o->end = SANDBOX_SIGNALED;
        o->signal = WTERMSIG(status);
        snprintf(o->reason, sizeof o->reason, "killed by signal %d (%s)%s", o->signal,
                 strsignal(o->signal),
                 o->signal == SIGSYS ? ": a system call outside the seccomp allowlist" : "");
    } else {
        o->end = SANDBOX_EXITED;
        o->exit_code = WEXITSTATUS(status);
        snprintf(o->reason, sizeof o->reason, "exited with status %d", o->exit_code);
    }
}

static void finish(struct job_run *j)
{
    int *fds[] = {&j->input_w, &j->result_r, &j->log_r, &j->error_r, &j->sync_w, &j->pidfd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        if (*fds[i] >= 0)
            close(*fds[i]);
    close_child_ends(j);
    free(j->plan.seccomp.filter);
    cgroup_remove(&j->cgroup);
    struct sandbox_outcome *o = j->out;
    o->output = j->result.data ? j->result.data : strdup("");
    o->output_size = j->result.size;
    o->output_truncated = j->result.truncated;
    o->log = j->log.data ? j->log.data : strdup("");
    o->log_size = j->log.size;
    o->log_truncated = j->log.truncated;
    free(j->error.data);
}

/* A job that stops reading its input must not kill its parent: SIGPIPE is
 * ignored (once, for the process) unless the program handles it itself. */
static void ignore_sigpipe(void)
{
    struct sigaction current;
    if (sigaction(SIGPIPE, NULL, &current) == 0 && current.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
}

/* The caller's peer descriptors, when it handed them over: the job has
 * its own by now (or never will). */
static void hand_peers(const struct sandbox_job *job)
{
    for (int i = 0; job->peers_handed && i < job->peer_count && i < SANDBOX_PEERS_MAX; i++)
        if (job->peer_fds[i] >= 0)
            close(job->peer_fds[i]);
}

bool sandbox_run(const struct sandbox_job *job, struct sandbox_outcome *outcome)
{
    ignore_sigpipe();
    memset(outcome, 0, sizeof *outcome);
    struct job_run j = {.job = job, .out = outcome, .pidfd = -1, .sync_w = -1};
    j.input_w = j.result_r = j.log_r = j.error_r = -1;
    j.plan.stdin_fd = j.plan.stdout_fd = j.plan.stderr_fd = j.plan.result_fd = -1;
    j.plan.error_fd = j.plan.sync_fd = j.plan.landlock_fd = -1;
    j.result.cap = job->limits.output_bytes;
    j.log.cap = job->limits.log_bytes;
    j.error.cap = ERROR_MAX;
    j.started = now_seconds();
    j.deadline = j.started + job->limits.wall_seconds;
    bool started = prepare(&j) && launch(&j);
    hand_peers(job);
    if (started) {
        int status = 0;
        bool exited = false;
        while (follow(&j, &status, &exited))
            ;
        outcome->wall_seconds = now_seconds() - j.started;
        classify(&j, status);
    }
    finish(&j);
    return started;
}

void sandbox_outcome_free(struct sandbox_outcome *outcome)
{
    free(outcome->output);
    free(outcome->log);
    outcome->output = outcome->log = NULL;
}
