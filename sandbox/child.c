/*
 * The job's process from clone to exec. It only makes system calls (no
 * malloc, no stdio, no C library call that coordinates threads: it may be
 * the child of a multithreaded server, whose other threads it lacks): waits
 * for the parent to map its ids and place it in its cgroups, takes its ids,
 * builds its filesystem view, limits itself, sets no_new_privs, enters
 * Landlock, moves its pipes to fds 0-3 and closes everything else, installs
 * the seccomp filter last, and execs the job's program through the
 * descriptor the parent opened (it is not in the job's view). Any failure is written to the
 * error pipe ("<step>: errno N") and ends the child with status 127.
 */
#include "sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOBODY 65534

static void write_text(int fd, const char *text)
{
    ssize_t ignored = write(fd, text, strlen(text));
    (void)ignored;
}

static __attribute__((noreturn)) void fail_at(const struct child_plan *p, const char *step,
                                              const char *path, int err)
{
    char digits[16];
    int n = 0;
    unsigned value = (unsigned)err;
    do {
        digits[sizeof digits - 1 - (size_t)++n] = (char)('0' + value % 10);
        value /= 10;
    } while (value && n < 12);
    digits[sizeof digits - 1] = '\0';
    write_text(p->error_fd, step);
    if (path[0]) {
        write_text(p->error_fd, " ");
        write_text(p->error_fd, path);
    }
    write_text(p->error_fd, ": errno ");
    write_text(p->error_fd, digits + sizeof digits - 1 - n);
    _exit(127);
}

static __attribute__((noreturn)) void fail(const struct child_plan *p, const char *step, int err)
{
    fail_at(p, step, "", err);
}

/* The ids of this one thread, by system call: the C library's setresuid()
 * and setgroups() signal every thread of the process it thinks it has, and
 * the threads of a multithreaded parent do not exist in the child: it
 * would wait for them forever. */
static bool set_ids(uid_t uid, gid_t gid, bool groups)
{
    return (!groups || syscall(SYS_setgroups, 0, NULL) == 0) &&
           syscall(SYS_setresgid, gid, gid, gid) == 0 && syscall(SYS_setresuid, uid, uid, uid) == 0;
}

static void take_ids(const struct child_plan *p)
{
    if (p->set_ids && !set_ids(0, 0, p->drop_groups))
        fail(p, "taking the user namespace's ids", errno);
}

/* Root without a user namespace: the job runs as nobody. */
static void become_nobody(const struct child_plan *p)
{
    if (p->become_nobody && !set_ids(NOBODY, NOBODY, true))
        fail(p, "dropping root's rights", errno);
}

static void set_limits(const struct child_plan *p)
{
    for (int i = 0; i < LIMITS; i++)
        if (p->limit_set[i] && setrlimit(p->resources[i], &p->limits[i]) != 0)
            fail(p, "setting a resource limit", errno);
}

/* The pipes to 0 (input), 1 (/dev/null), 2 (log), 3 (result), the peer
 * sockets (if any) to SANDBOX_PEER_FD onwards, then the descriptors to
 * read; every other descriptor
 * closed at exec (the error pipe until then). All of them were raised above
 * these numbers. */
static void arrange_fds(const struct child_plan *p)
{
    if (dup2(p->stdin_fd, 0) < 0 || dup2(p->stdout_fd, 1) < 0 || dup2(p->stderr_fd, 2) < 0 ||
        dup2(p->result_fd, 3) < 0)
        fail(p, "arranging the job's descriptors", errno);
    for (int i = 0; i < p->peer_count; i++)
        if (dup2(p->peer_fds[i], SANDBOX_PEER_FD + i) < 0)
            fail(p, "arranging the job's peer sockets", errno);
    for (int i = 0; i < p->read_count; i++)
        if (dup2(p->read_fds[i], SANDBOX_PEER_FD + p->peer_count + i) < 0)
            fail(p, "arranging the job's descriptors to read", errno);
    int first = SANDBOX_PEER_FD + p->peer_count + p->read_count;
    if (syscall(SYS_close_range, first, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) != 0)
        for (int fd = first; fd < 65536; fd++)
            if (fd != p->error_fd)
                close(fd);
}

int child_main(void *arg)
{
    const struct child_plan *p = arg;
    char go;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (read(p->sync_fd, &go, 1) != 1) /* the parent died or gave up */
        _exit(127);
    take_ids(p);
    /* after the ids change, which clears it: the job dies with its parent */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (p->view) {
        const char *step = "", *path = "";
        int rc = view_enter(p->plan, &step, &path);
        if (rc != 0)
            fail_at(p, step, path, rc);
    }
    if ((p->clone_flags & CLONE_NEWUTS) && sethostname("kgrade-job", 10) != 0)
        fail(p, "naming the host", errno);
    become_nobody(p);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* set again: the ids changed */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail(p, "setting no_new_privs", errno);
    if (p->landlock_fd >= 0) {
        int rc = landlock_enter(p->landlock_fd, p->landlock_abi, p->view, p->view && p->plan->proc,
                                p->view && p->plan->gpu_driver);
        if (rc != 0)
            fail(p, "entering Landlock", rc);
    }
    /* after Landlock, which opens descriptors: until the exec, this child
     * holds every descriptor its caller held, more than the job may open */
    set_limits(p);
    arrange_fds(p);
    if (p->seccomp.len > 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->seccomp) != 0)
        fail(p, "installing the seccomp filter", errno);
    syscall(SYS_execveat, p->plan->program_fd, "", p->argv, p->env, AT_EMPTY_PATH);
    fail(p, "starting the job", errno);
}
