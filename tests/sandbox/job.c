/*
 * A job for the sandbox's tests (tests/unit/test_sandbox.c): does one thing
 * its first argument names and reports on fd 3, so the tests can check what
 * the sandbox allows, forbids and limits.
 *
 *   true                 exit 0
 *   echo                 copy fd 0 to fd 3
 *   lines N              write N lines "line K" to fd 3, and "noise" to fd 1
 *   log N                write N bytes to fd 2
 *   flood N              write N bytes to fd 3
 *   env                  the environment on fd 3, one variable a line
 *   read PATH            "read ok" or "read failed: ERRNO" on fd 3
 *   load PATH            load the library (tests/sandbox/named.c) and call it:
 *                        "load ok: 42" or "load failed: WHY"
 *   write PATH           "write ok" or "write failed: ERRNO"
 *   file-size N          write N bytes to /tmp/big: "written: 0" or "write failed: ERRNO"
 *   spin                 loop forever
 *   line-then-spin       write "started" to fd 3, then loop forever
 *   alloc MB             touch MB megabytes, then "alloc ok"
 *   threads N            start N threads that live together, join them, then
 *                        "threads ok" or "threads failed at K"
 *   files N              open N files, then "files ok" or "files failed at K"
 *   fork | socket-inet | socket-unix | ptrace | mount | unshare | keyctl | bpf |
 *   io_uring | perf | exec
 *                        try the system call (the sandbox should kill the job)
 *   chmod [PATH]         (a /tmp PATH created first) chmod it 0600: "chmod ok" or
 *                        "chmod REASON"; without PATH, /tmp/file
 *   link-and-bind        what a GPU's driver does in /tmp: a symbolic link, then a
 *                        UNIX socket bound there: "link ok|REASON", "bind ok|REASON"
 *   pid                  getpid() on fd 3
 *   hostname             the host name on fd 3
 *   peer                 send "ping" on fd 4 (the peer socket), receive the
 *                        answer with recvmsg: "peer 4: ANSWER" or "peer 4 failed: ERRNO"
 *   peers N              the same on fds 4 .. 4+N-1, a line each
 *   peer-dup             the same on a duplicate of fd 4 (the sandbox should
 *                        kill the job: only the peer sockets may send and receive)
 *   peer-shutdown FD     shut down FD (a served driver session ends so):
 *                        "shutdown FD: 0" or "shutdown FD failed: ERRNO"
 *   peer-at FD           the same on FD, made a duplicate of fd 4 first if
 *                        it is not open (so only the filter can refuse it)
 *   memfd                receive a packet on fd 5 (a SOCK_SEQPACKET peer) with
 *                        two memfds by SCM_RIGHTS: an argument, sealed against
 *                        writes, mapped MAP_PRIVATE read-write ("private: TEXT",
 *                        then written to), then mapped MAP_SHARED writable
 *                        ("sealed shared: ERRNO"); a result mapped MAP_SHARED
 *                        read-write and RESULT_TEXT written into it ("shared
 *                        written"); then "done" sent back on fd 5
 *   memfd-create         make a memfd of its own, size and map it:
 *                        "memfd_create ok" or "memfd_create failed: ERRNO"
 */
#include "job.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

static FILE *result;

static volatile int released; /* the threads wait for it, so they all live at once */

static void *idle(void *arg)
{
    while (!released)
        usleep(1000);
    return arg;
}

static int try_open(const char *path, int flags, const char *what)
{
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        fprintf(result, "%s failed: %d\n", what, errno);
        return 1;
    }
    if (flags != O_RDONLY && write(fd, "x", 1) != 1) {
        fprintf(result, "%s failed: %d\n", what, errno);
        return 1;
    }
    fprintf(result, "%s ok\n", what);
    close(fd);
    return 0;
}

static int fill(int fd, long bytes)
{
    static char block[65536];
    memset(block, 'x', sizeof block);
    for (long done = 0; done < bytes;) {
        size_t n = (size_t)(bytes - done) < sizeof block ? (size_t)(bytes - done) : sizeof block;
        ssize_t w = write(fd, block, n);
        if (w <= 0)
            return 1;
        done += w;
    }
    return 0;
}

static void load(const char *path)
{
    int (*answer)(void) = NULL;
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library)
        *(void **)&answer = dlsym(library, "kgrade_named_answer");
    if (!answer) {
        fprintf(result, "load failed: %s\n", dlerror());
        return;
    }
    fprintf(result, "load ok: %d\n", answer());
}

static int forbidden(const char *what)
{
    if (strcmp(what, "fork") == 0)
        return (int)syscall(SYS_fork);
    if (strcmp(what, "socket-inet") == 0)
        return socket(AF_INET, SOCK_STREAM, 0);
    if (strcmp(what, "socket-unix") == 0)
        return socket(AF_UNIX, SOCK_STREAM, 0);
    if (strcmp(what, "ptrace") == 0)
        return (int)ptrace(PTRACE_TRACEME, 0, NULL, NULL);
    if (strcmp(what, "mount") == 0)
        return mount("none", "/tmp", "tmpfs", 0, NULL);
    if (strcmp(what, "unshare") == 0)
        return unshare(CLONE_NEWNS);
    if (strcmp(what, "keyctl") == 0)
        return (int)syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0);
    if (strcmp(what, "bpf") == 0)
        return (int)syscall(SYS_bpf, 0, NULL, 0);
    if (strcmp(what, "io_uring") == 0)
        return (int)syscall(SYS_io_uring_setup, 1, NULL);
    if (strcmp(what, "perf") == 0)
        return (int)syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
    char *argv[] = {"true", NULL};
    return execve("/usr/bin/true", argv, environ);
}

/* "ping" sent on fd, the answer received (recvmsg, as a descriptor would
 * come) and told on fd 3. */
static int ping(int fd)
{
    char answer[32] = "";
    struct iovec iov = {.iov_base = answer, .iov_len = sizeof answer - 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    ssize_t n = send(fd, "ping", 4, MSG_NOSIGNAL);
    if (n == 4)
        n = recvmsg(fd, &msg, 0);
    if (n < 0)
        fprintf(result, "peer %d failed: %d\n", fd, errno);
    else
        fprintf(result, "peer %d: %.*s\n", fd, (int)n, answer);
    return 0;
}

static int ping_at(int fd)
{
    if (fcntl(fd, F_GETFD) < 0 && dup2(4, fd) != fd) {
        fprintf(result, "dup2 failed: %d\n", errno);
        return 1;
    }
    return ping(fd);
}

/* One packet on `fd` with up to `max` descriptors; how many came, or -1. */
static int receive_fds(int fd, int *fds, int max)
{
    char text[64];
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(4 * sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = text, .iov_len = sizeof text};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.space,
                         .msg_controllen = sizeof control.space};
    if (recvmsg(fd, &msg, MSG_CMSG_CLOEXEC) < 0)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS)
        return 0;
    int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    memcpy(fds, CMSG_DATA(c), (size_t)(n < max ? n : max) * sizeof(int));
    return n;
}

/* What a host job does with the grade job's memfds (see the mode list). */
static int use_memfds(void)
{
    int fds[4];
    int n = receive_fds(5, fds, 4);
    fprintf(result, "received %d descriptors\n", n);
    if (n != 2)
        return 1;
    char *argument = mmap(NULL, MEMFD_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE, fds[0], 0);
    if (argument == MAP_FAILED) {
        fprintf(result, "private failed: %d\n", errno);
        return 1;
    }
    fprintf(result, "private: %s\n", argument);
    strcpy(argument, "changed by the job");
    void *shared = mmap(NULL, MEMFD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    fprintf(result, "sealed shared: %d\n", shared == MAP_FAILED ? errno : 0);
    char *out = mmap(NULL, MEMFD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
    if (out == MAP_FAILED) {
        fprintf(result, "shared failed: %d\n", errno);
        return 1;
    }
    strcpy(out, RESULT_TEXT);
    fprintf(result, "shared written\n");
    return send(5, "done", 4, MSG_NOSIGNAL) == 4 ? 0 : 1;
}

static int create_memfd(void)
{
    int fd = memfd_create("job", MFD_CLOEXEC);
    void *p = fd >= 0 && ftruncate(fd, MEMFD_BYTES) == 0
                  ? mmap(NULL, MEMFD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    if (p == MAP_FAILED)
        fprintf(result, "memfd_create failed: %d\n", errno);
    else
        fprintf(result, "memfd_create ok\n");
    return 0;
}

/* What descriptor `fd` holds from its start (a descriptor to read the
 * sandbox passed after the peers). */
static int read_fd(int fd)
{
    char text[64] = "";
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n < 0)
        fprintf(result, "fd %d failed: %d\n", fd, errno);
    else
        fprintf(result, "fd %d: %.*s\n", fd, (int)n, text);
    return 0;
}

/* The modes that talk to peers or share memory; -1 for any other mode. */
static int talk(const char *mode, const char *arg)
{
    if (strcmp(mode, "peer") == 0)
        return ping(4);
    if (strcmp(mode, "peer-dup") == 0)
        return ping(dup(4));
    if (strcmp(mode, "peers") == 0) {
        for (int fd = 4; fd < 4 + atoi(arg); fd++)
            ping(fd);
        return 0;
    }
    if (strcmp(mode, "peer-at") == 0)
        return ping_at(atoi(arg));
    if (strcmp(mode, "peer-shutdown") == 0) {
        int rc = shutdown(atoi(arg), SHUT_RDWR);
        fprintf(result, rc == 0 ? "shutdown %s: 0\n" : "shutdown %s failed: %d\n", arg, errno);
        return 0;
    }
    if (strcmp(mode, "read-fd") == 0)
        return read_fd(atoi(arg));
    if (strcmp(mode, "memfd") == 0)
        return use_memfds();
    if (strcmp(mode, "memfd-create") == 0)
        return create_memfd();
    return -1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "true";
    const char *arg = argc > 2 ? argv[2] : "0";
    result = fdopen(3, "w");
    if (!result)
        return 100;
    setvbuf(result, NULL, _IOLBF, 0);
    if (strcmp(mode, "true") == 0)
        return 0;
    int talked = talk(mode, arg);
    if (talked >= 0)
        return talked;
    if (strcmp(mode, "echo") == 0) {
        char buf[4096];
        ssize_t n;
        while ((n = read(0, buf, sizeof buf)) > 0)
            fwrite(buf, 1, (size_t)n, result);
        return 0;
    }
    if (strcmp(mode, "lines") == 0) {
        for (int i = 1; i <= atoi(arg); i++) {
            fprintf(result, "line %d\n", i);
            printf("noise\n");
        }
        return 0;
    }
    if (strcmp(mode, "log") == 0)
        return fill(2, atol(arg));
    if (strcmp(mode, "flood") == 0)
        return fill(3, atol(arg));
    if (strcmp(mode, "env") == 0) {
        for (char **e = environ; *e; e++)
            fprintf(result, "%s\n", *e);
        return 0;
    }
    if (strcmp(mode, "read") == 0)
        return try_open(arg, O_RDONLY, "read") * 0; /* the line says how it went */
    if (strcmp(mode, "load") == 0) {
        load(arg); /* the line says how it went */
        return 0;
    }
    if (strcmp(mode, "write") == 0)
        return try_open(arg, O_WRONLY | O_CREAT | O_TRUNC, "write") * 0;
    if (strcmp(mode, "file-size") == 0) {
        int fd = open("/tmp/big", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int failed = fd < 0 ? 2 : fill(fd, atol(arg));
        fprintf(result, "%s: %d\n", failed ? "write failed" : "written", failed ? errno : 0);
        return 0;
    }
    if (strcmp(mode, "line-then-spin") == 0)
        fprintf(result, "started\n");
    if (strcmp(mode, "spin") == 0 || strcmp(mode, "line-then-spin") == 0)
        for (volatile unsigned long i = 0;; i++)
            ;
    if (strcmp(mode, "alloc") == 0) {
        size_t bytes = (size_t)atol(arg) << 20;
        char *p = malloc(bytes);
        for (size_t i = 0; p && i < bytes; i += 4096)
            p[i] = 1;
        fprintf(result, "alloc %s\n", p ? "ok" : "failed");
        return 0;
    }
    if (strcmp(mode, "threads") == 0) {
        pthread_t t[64];
        int n = atoi(arg) < 64 ? atoi(arg) : 64;
        int started = 0;
        while (started < n && pthread_create(&t[started], NULL, idle, NULL) == 0)
            started++;
        released = 1;
        for (int i = 0; i < started; i++)
            pthread_join(t[i], NULL);
        if (started < n) {
            fprintf(result, "threads failed at %d\n", started);
            return 0;
        }
        fprintf(result, "threads ok\n");
        return 0;
    }
    if (strcmp(mode, "files") == 0) {
        for (int i = 0; i < atoi(arg); i++)
            if (open("/tmp", O_RDONLY | O_DIRECTORY) < 0) {
                fprintf(result, "files failed at %d\n", i);
                return 0;
            }
        fprintf(result, "files ok\n");
        return 0;
    }
    if (strcmp(mode, "chmod") == 0) { /* what a GPU's driver does: create, then chmod */
        const char *path = arg ? arg : "/tmp/file";
        if (!strstr(path, "/tmp/") || try_open(path, O_WRONLY | O_CREAT, "create") == 0)
            fprintf(result, "chmod %s\n", chmod(path, 0600) == 0 ? "ok" : strerror(errno));
        return 0;
    }
    if (strcmp(mode, "link-and-bind") == 0) {
        fprintf(result, "link %s\n",
                symlink("/tmp/nowhere", "/tmp/link") == 0 ? "ok" : strerror(errno));
        struct sockaddr_un where = {.sun_family = AF_UNIX, .sun_path = "/tmp/socket"};
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        bool bound = s >= 0 && bind(s, (struct sockaddr *)&where, sizeof where) == 0;
        fprintf(result, "bind %s\n", bound ? "ok" : strerror(errno));
        return 0;
    }
    if (strcmp(mode, "pid") == 0) {
        fprintf(result, "%d\n", (int)getpid());
        return 0;
    }
    if (strcmp(mode, "hostname") == 0) {
        char name[256] = "";
        gethostname(name, sizeof name);
        fprintf(result, "%s\n", name);
        return 0;
    }
    int rc = forbidden(mode);
    fprintf(result, "%s returned %d (errno %d)\n", mode, rc, errno);
    return 0;
}
