/*
 * The seccomp-bpf allowlist of a job, compiled with libseccomp.
 *
 * Anything not listed kills the whole process (SECCOMP_RET_KILL_PROCESS),
 * as do the 32-bit and x32 entry points (libseccomp's bad-architecture
 * action): no ptrace, mount, keyctl, bpf, io_uring, perf_event_open, no new
 * processes (clone only with CLONE_THREAD), no sockets on the virtual GPU
 * (UNIX sockets only, for a real GPU's driver), sending and receiving only
 * on the job's peer sockets (fds 4 .. 4 + peers - 1; a real GPU's driver
 * anywhere). clone3 fails with ENOSYS, since its flags cannot be
 * inspected, so the C library falls back to clone. execveat is allowed
 * for the one exec that starts the job (its program, by descriptor;
 * execve never); the job forbids it for itself once started
 * (sandbox_forbid_exec).
 */
#include "sandbox_internal.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* What every job needs: the C library, threads, NVRTC, the virtual GPU. */
static const int common_calls[] = {
    SCMP_SYS(read),
    SCMP_SYS(write),
    SCMP_SYS(readv),
    SCMP_SYS(writev),
    SCMP_SYS(pread64),
    SCMP_SYS(pwrite64),
    SCMP_SYS(lseek),
    SCMP_SYS(close),
    SCMP_SYS(openat),
    SCMP_SYS(open),
    SCMP_SYS(newfstatat),
    SCMP_SYS(fstat),
    SCMP_SYS(stat),
    SCMP_SYS(lstat),
    SCMP_SYS(statx),
    SCMP_SYS(statfs), /* libselinux, loaded by the Numba front end's LLVM, looks for /selinux */
    SCMP_SYS(fstatfs),
    SCMP_SYS(access),
    SCMP_SYS(faccessat),
    SCMP_SYS(faccessat2),
    SCMP_SYS(readlink),
    SCMP_SYS(readlinkat),
    SCMP_SYS(getcwd),
    SCMP_SYS(getdents64),
    SCMP_SYS(fcntl),
    SCMP_SYS(dup),
    SCMP_SYS(dup2),
    SCMP_SYS(dup3),
    SCMP_SYS(pipe2),
    SCMP_SYS(mmap),
    SCMP_SYS(munmap),
    SCMP_SYS(mprotect),
    SCMP_SYS(mremap),
    SCMP_SYS(madvise),
    SCMP_SYS(mincore),
    SCMP_SYS(brk),
    SCMP_SYS(futex),
    SCMP_SYS(set_robust_list),
    SCMP_SYS(get_robust_list),
    SCMP_SYS(rseq),
    SCMP_SYS(set_tid_address),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(sigaltstack),
    SCMP_SYS(gettid),
    SCMP_SYS(getpid),
    SCMP_SYS(getppid),
    SCMP_SYS(tgkill),
    SCMP_SYS(tkill),
    SCMP_SYS(clock_gettime),
    SCMP_SYS(clock_getres),
    SCMP_SYS(clock_nanosleep),
    SCMP_SYS(nanosleep),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    SCMP_SYS(sched_yield),
    SCMP_SYS(sched_getaffinity),
    SCMP_SYS(sched_get_priority_max),
    SCMP_SYS(sched_get_priority_min),
    SCMP_SYS(sched_getparam),
    SCMP_SYS(sched_getscheduler),
    SCMP_SYS(getrandom),
    SCMP_SYS(getrlimit),
    SCMP_SYS(sysinfo),
    SCMP_SYS(uname),
    SCMP_SYS(arch_prctl),
    SCMP_SYS(memfd_create),
    SCMP_SYS(ftruncate),
    SCMP_SYS(getuid),
    SCMP_SYS(geteuid),
    SCMP_SYS(getgid),
    SCMP_SYS(getegid),
    SCMP_SYS(getresuid),
    SCMP_SYS(getresgid),
    SCMP_SYS(getgroups),
    SCMP_SYS(membarrier),
    SCMP_SYS(poll),
    SCMP_SYS(ppoll),
    SCMP_SYS(epoll_create1), /* a real GPU's driver; Python in the Numba front end */
    SCMP_SYS(epoll_ctl),
    SCMP_SYS(epoll_wait),
    SCMP_SYS(epoll_pwait),
    SCMP_SYS(restart_syscall),
    SCMP_SYS(execveat), /* the one exec that starts the job, by descriptor */
    SCMP_SYS(umask),
    SCMP_SYS(fadvise64),
    SCMP_SYS(fsync),
    SCMP_SYS(fdatasync),
    SCMP_SYS(getpgrp),
    SCMP_SYS(seccomp), /* more filters only ever restrict (sandbox_forbid_exec) */
};

/* A real GPU's driver also talks to its device nodes and daemons. */
static const int gpu_calls[] = {
    SCMP_SYS(ioctl),
    SCMP_SYS(connect),
    SCMP_SYS(sendmsg),
    SCMP_SYS(recvmsg),
    SCMP_SYS(sendto),
    SCMP_SYS(recvfrom),
    SCMP_SYS(getsockopt),
    SCMP_SYS(setsockopt),
    SCMP_SYS(getsockname),
    SCMP_SYS(getpeername),
    SCMP_SYS(eventfd2),
    SCMP_SYS(shutdown),
    SCMP_SYS(mlock),
    SCMP_SYS(munlock),
    SCMP_SYS(sched_setaffinity),
    /* files, links and a UNIX socket of its own: the view and Landlock keep
     * them in /tmp, and a chmod of anything else fails (read-only, or
     * owned by nobody in the user namespace) */
    SCMP_SYS(mkdir),
    SCMP_SYS(mkdirat),
    SCMP_SYS(unlink),
    SCMP_SYS(unlinkat),
    SCMP_SYS(rmdir),
    SCMP_SYS(symlink),
    SCMP_SYS(symlinkat),
    SCMP_SYS(chmod),
    SCMP_SYS(fchmod),
    SCMP_SYS(fchmodat),
    SCMP_SYS(bind),
    SCMP_SYS(listen),
    SCMP_SYS(accept),
    SCMP_SYS(accept4),
};

static bool allow_all(scmp_filter_ctx ctx, const int *calls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0) != 0)
            return false;
    return true;
}

/* Argument `arg` equal to `value` (libseccomp's SCMP_A0 leaves datum_b out,
 * which clang's warnings refuse). */
static struct scmp_arg_cmp arg_is(unsigned arg, scmp_datum_t value)
{
    return (struct scmp_arg_cmp){arg, SCMP_CMP_EQ, value, 0};
}

/* Calls allowed only with some arguments. */
static bool allow_narrow(scmp_filter_ctx ctx, bool gpu)
{
    int rc = 0;
    /* threads, never processes */
    rc |=
        seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                         (struct scmp_arg_cmp){0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD});
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* its own limits (NVRTC raises its stack's soft limit); hard limits
     * cannot be raised without CAP_SYS_RESOURCE outside the namespace */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, arg_is(0, 0));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setrlimit), 0);
    /* naming threads and memory areas */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, arg_is(0, PR_SET_NAME));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, arg_is(0, PR_GET_NAME));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
                           arg_is(0, 0x53564d41 /* PR_SET_VMA */));
    /* adding a filter of its own (sandbox_forbid_exec) */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, arg_is(0, PR_SET_NO_NEW_PRIVS));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, arg_is(0, PR_GET_SECCOMP));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, arg_is(0, PR_SET_SECCOMP));
    if (gpu) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, arg_is(0, AF_UNIX));
    } else { /* isatty(), the terminal's size, close-on-exec (Python), nothing else */
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, arg_is(1, TCGETS));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, arg_is(1, TIOCGWINSZ));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, arg_is(1, FIOCLEX));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, arg_is(1, FIONCLEX));
    }
    return rc == 0;
}

/* Sending and receiving on the job's `peers` peer sockets, and shutting
 * them down (a served driver session ends so: kgemu_serve_stop), on no
 * other descriptor (the job cannot make sockets on the virtual GPU anyway):
 * one rule per call and descriptor, the descriptor compared whole (64
 * bits). */
static bool allow_peers(scmp_filter_ctx ctx, int peers)
{
    static const int calls[] = {SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom),
                                SCMP_SYS(recvmsg), SCMP_SYS(shutdown)};
    int rc = 0;
    for (int fd = SANDBOX_PEER_FD; fd < SANDBOX_PEER_FD + peers; fd++)
        for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 1, arg_is(0, (scmp_datum_t)fd));
    return rc == 0;
}

/* The compiled program, read back from libseccomp's export. */
static bool export_program(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
    int fd = memfd_create("kgrade-seccomp", MFD_CLOEXEC);
    if (fd < 0 || seccomp_export_bpf(ctx, fd) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    struct sock_filter *code = size > 0 ? malloc((size_t)size) : NULL;
    bool ok = code && pread(fd, code, (size_t)size, 0) == size;
    close(fd);
    if (!ok) {
        free(code);
        return false;
    }
    prog->filter = code;
    prog->len = (unsigned short)((size_t)size / sizeof *code);
    return true;
}

bool seccomp_compile(bool gpu, int peers, struct sock_fprog *prog, char *error, size_t error_size)
{
    memset(prog, 0, sizeof *prog);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
    bool ok = ctx != NULL &&
              seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) == 0 &&
              seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) == 0 &&
              allow_all(ctx, common_calls, sizeof common_calls / sizeof *common_calls) &&
              (!gpu || allow_all(ctx, gpu_calls, sizeof gpu_calls / sizeof *gpu_calls)) &&
              (gpu || allow_peers(ctx, peers)) && /* a GPU job may send anywhere */
              allow_narrow(ctx, gpu) && export_program(ctx, prog);
    if (ctx)
        seccomp_release(ctx);
    if (!ok)
        snprintf(error, error_size, "the seccomp filter could not be built (libseccomp)");
    return ok;
}

bool sandbox_forbid_exec(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    bool ok = ctx != NULL &&
              seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execve), 0) == 0 &&
              seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execveat), 0) == 0 &&
              seccomp_load(ctx) == 0;
    if (ctx)
        seccomp_release(ctx);
    return ok;
}
