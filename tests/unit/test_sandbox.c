/*
 * Tests of the sandbox with a real job (tests/sandbox/job.c, built beside
 * this test as build/tests/sandbox/job): what reaches the caller (fd 3 line
 * by line, fd 2 as a log, fd 1 nowhere, all capped), what the job sees (its
 * environment only, its paths only, a library it names with those it
 * needs, no /proc, a writable /tmp, PID 1, its own host name, its peer sockets as fds 4
 * onwards and memfds passed over them), what kills it (forbidden system calls, sending on
 * any descriptor but a peer's, the wall-clock, CPU, memory and file-size limits), and a
 * set-up that fails.
 *
 * The limits here are small so the tests are quick; the bounds on how long
 * a killed job takes are generous: they prove the kill works, they do not
 * measure speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sandbox/sandbox.h"
#include "sandbox/sandbox_internal.h"
#include "test_job_path.h"
#include "tests/sandbox/job.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char job_path[PATH_MAX];
static char here[PATH_MAX];     /* this test's folder, shown to jobs that read it */
static char jobs_dir[PATH_MAX]; /* the job's folder, with the libraries it loads */

struct lines {
    int count;
    char last[128];
    double extend; /* returned from every line */
};

static double count_line(void *context, const char *line, size_t length, double elapsed)
{
    struct lines *l = context;
    assert_true(elapsed >= 0 && elapsed < 60);
    l->count++;
    snprintf(l->last, sizeof l->last, "%.*s", (int)length, line);
    return l->extend;
}

/* Runs the job with `mode` and `arg`, with `limits` changed by the caller. */
static void run(const char *mode, const char *arg, const struct sandbox_limits *limits,
                struct sandbox_outcome *out, struct lines *lines)
{
    const char *argv[] = {job_path, mode, arg, NULL};
    const char *env[] = {"KGRADE_TEST=1", NULL};
    const char *paths[] = {here, NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .read_paths = paths};
    job.limits = *limits;
    job.on_line = lines ? count_line : NULL;
    job.context = lines;
    sandbox_run(&job, out);
}

static struct sandbox_limits quick_limits(void)
{
    struct sandbox_limits l;
    sandbox_default_limits(&l);
    l.wall_seconds = 20;
    l.cpu_seconds = 20;
    l.memory_bytes = 256ull << 20;
    return l;
}

static void expect_exit(const char *mode, const char *arg, const char *output)
{
    struct sandbox_limits l = quick_limits();
    struct sandbox_outcome o;
    run(mode, arg, &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_int_equal(o.exit_code, 0);
    assert_string_equal(o.output, output);
    sandbox_outcome_free(&o);
}

static void expect_killed_by_seccomp(const char *mode)
{
    struct sandbox_limits l = quick_limits();
    struct sandbox_outcome o;
    run(mode, NULL, &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_SIGNALED);
    assert_int_equal(o.signal, SIGSYS);
    assert_non_null(strstr(o.reason, "seccomp"));
    sandbox_outcome_free(&o);
}

/* ---- what reaches the caller */

static void test_true_runs_with_protections(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    struct sandbox_outcome o;
    run("true", NULL, &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_int_equal(o.exit_code, 0);
    assert_true(o.active.seccomp && o.active.rlimits && o.active.timeout && o.active.no_new_privs);
    assert_null(sandbox_missing_minimum(&o.active));
    sandbox_outcome_free(&o);
}

static void test_result_lines_reach_the_caller_but_stdout_does_not(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    struct sandbox_outcome o;
    struct lines lines = {0};
    run("lines", "3", &l, &o, &lines);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_string_equal(o.output, "line 1\nline 2\nline 3\n");
    assert_int_equal(lines.count, 3);
    assert_string_equal(lines.last, "line 3");
    assert_null(strstr(o.output, "noise"));
    assert_null(strstr(o.log, "noise"));
    sandbox_outcome_free(&o);
}

static void test_input_reaches_the_job(void **state)
{
    (void)state;
    enum { SIZE = 300 * 1000 }; /* more than a pipe holds */
    char *input = malloc(SIZE + 1);
    for (int i = 0; i < SIZE; i++)
        input[i] = (char)('a' + i % 26);
    input[SIZE] = '\0';
    const char *argv[] = {job_path, "echo", NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .input = input, .input_size = SIZE};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_int_equal(o.output_size, SIZE);
    assert_memory_equal(o.output, input, SIZE);
    sandbox_outcome_free(&o);
    free(input);
}

static void test_output_and_log_are_capped(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.output_bytes = 1000;
    l.log_bytes = 500;
    struct sandbox_outcome o;
    run("flood", "10000000", &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_EXITED); /* read to the end, not blocked */
    assert_int_equal(o.output_size, 1000);
    assert_true(o.output_truncated);
    sandbox_outcome_free(&o);
    run("log", "100000", &l, &o, NULL);
    assert_int_equal(o.log_size, 500);
    assert_true(o.log_truncated);
    sandbox_outcome_free(&o);
}

/* ---- what the job sees */

static void test_environment_is_only_what_was_given(void **state)
{
    (void)state;
    setenv("KGRADE_CANARY", "secret-canary", 1);
    expect_exit("env", NULL, "KGRADE_TEST=1\n");
    unsetenv("KGRADE_CANARY");
}

static void test_host_files_are_out_of_sight(void **state)
{
    (void)state;
    expect_exit("read", "/etc/passwd", "read failed: 2\n");
    expect_exit("read", "/proc/self/environ", "read failed: 2\n");
    /* the job's own program: executed by descriptor, never in its view */
    expect_exit("read", job_path, "read failed: 2\n");
    /* the library folders are not shown whole: only the files loaded */
    expect_exit("read", "/usr/lib/os-release", "read failed: 2\n");
    expect_exit("read", "/etc/os-release", "read failed: 2\n");
    expect_exit("read", "/usr/include/stdio.h", "read failed: 2\n");
}

/* One file named twice, once through "..": both names lead to one place of
 * the view, bound once already when the second comes (it was refused as
 * the sandbox's setup failure, EACCES). */
static void test_a_path_named_twice_is_shown_once(void **state)
{
    (void)state;
    char self[PATH_MAX + 32], through_parent[PATH_MAX + 32];
    snprintf(self, sizeof self, "%s/test_sandbox", here);
    snprintf(through_parent, sizeof through_parent, "%s/../unit/test_sandbox", here);
    const char *argv[] = {job_path, "read", self, NULL}, *env[] = {NULL};
    const char *paths[] = {through_parent, self, NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .read_paths = paths};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_string_equal(o.output, "read ok\n");
    sandbox_outcome_free(&o);
}

/* A checkout in /tmp (as CI's) must stay visible under the job's own /tmp. */
static void test_paths_under_tmp_are_visible(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgrade-view-XXXXXX", file[64];
    assert_non_null(mkdtemp(dir));
    chmod(dir, 0755);
    snprintf(file, sizeof file, "%s/visible", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
    chmod(file, 0644);
    const char *argv[] = {job_path, "read", file, NULL}, *env[] = {NULL};
    const char *paths[] = {dir, NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .read_paths = paths};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "read ok\n");
    sandbox_outcome_free(&o);
    unlink(file);
    rmdir(dir);
}

/* Runs the job that loads `library`, which the job names among its
 * libraries (or only as a path it may read); returns its line. */
static void run_load(const char *library, bool named, struct sandbox_outcome *o)
{
    const char *argv[] = {job_path, "load", library, NULL}, *env[] = {NULL};
    const char *libraries[] = {library, NULL};
    struct sandbox_job job = {.argv = argv, .env = env};
    if (named)
        job.libraries = libraries;
    else
        job.read_paths = libraries;
    job.limits = quick_limits();
    sandbox_run(&job, o);
    assert_int_equal(o->end, SANDBOX_EXITED);
}

/* A library the job names comes with what it needs (as the virtual GPU
 * with LLVM), file by file, as the loader resolves it (here through its
 * RUNPATH), and is not left loaded in this process. */
static void test_a_named_library_comes_with_what_it_needs(void **state)
{
    (void)state;
    char library[PATH_MAX + 32], beside[PATH_MAX + 32];
    snprintf(library, sizeof library, "%s/libkgrade_named.so", jobs_dir);
    snprintf(beside, sizeof beside, "%s/job", jobs_dir);
    struct sandbox_outcome o;
    run_load(library, true, &o);
    assert_string_equal(o.output, "load ok: 42\n");
    sandbox_outcome_free(&o);
    assert_null(dlopen(library, RTLD_LAZY | RTLD_NOLOAD));
    /* only the files: not their folder */
    expect_exit("read", beside, "read failed: 2\n");
    /* a library only shown, not named, lacks what it needs */
    run_load(library, false, &o);
    assert_non_null(strstr(o.output, "load failed: libkgrade_needed.so: cannot open"));
    sandbox_outcome_free(&o);
}

static void test_relaxed_for_sanitizers_shows_its_own_proc(void **state)
{
    (void)state;
    const char *argv[] = {job_path, "read", "/proc/self/maps", NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .relaxed_for_sanitizers = true};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "read ok\n");
    sandbox_outcome_free(&o);
    expect_exit("read", "/proc/self/maps", "read failed: 2\n"); /* not relaxed: no /proc */
}

static void test_only_tmp_is_writable(void **state)
{
    (void)state;
    expect_exit("write", "/tmp/scratch", "write ok\n");
    char inside[PATH_MAX + 16];
    snprintf(inside, sizeof inside, "%s/planted", here);
    expect_exit("write", inside, "write failed: 30\n"); /* EROFS */
    assert_int_equal(access(inside, F_OK), -1);
}

static void test_the_job_is_alone(void **state)
{
    (void)state;
    expect_exit("pid", NULL, "1\n");
    expect_exit("hostname", NULL, "kgrade-job\n");
    expect_exit("threads", "8", "threads ok\n");
}

/* ---- what kills it */

static void test_forbidden_calls_kill(void **state)
{
    (void)state;
    const char *modes[] = {"fork",    "socket-inet", "socket-unix", "ptrace",   "mount",
                           "unshare", "keyctl",      "bpf",         "io_uring", "perf"};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        expect_killed_by_seccomp(modes[i]);
}

/* A job given peer sockets talks over them as fds 4, 5, ... (the answers
 * wait in the sockets before the job starts); a duplicate of one may not
 * send, nor a descriptor past the last, nor a job without peers. */
static void run_with_peers(const char *mode, const char *arg, const int *peers, int count,
                           struct sandbox_outcome *o)
{
    const char *argv[] = {job_path, mode, arg, NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .peer_count = count};
    for (int i = 0; i < count && i < SANDBOX_PEERS_MAX; i++)
        job.peer_fds[i] = peers[i];
    job.limits = quick_limits();
    sandbox_run(&job, o);
}

static void expect_signaled_by_seccomp(struct sandbox_outcome *o)
{
    assert_int_equal(o->end, SANDBOX_SIGNALED);
    assert_int_equal(o->signal, SIGSYS);
    assert_non_null(strstr(o->reason, "seccomp"));
    sandbox_outcome_free(o);
}

static void test_a_peer_socket_is_fd_4_and_only_it_talks(void **state)
{
    (void)state;
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    assert_int_equal(write(pair[0], "pong", 4), 4);
    struct sandbox_outcome o;
    run_with_peers("peer", NULL, &pair[1], 1, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_string_equal(o.output, "peer 4: pong\n");
    sandbox_outcome_free(&o);
    char sent[8] = "";
    assert_int_equal(read(pair[0], sent, sizeof sent), 4);
    assert_memory_equal(sent, "ping", 4);
    assert_int_equal(fcntl(pair[1], F_GETFD), FD_CLOEXEC); /* the caller's end stays its own */
    run_with_peers("peer-dup", NULL, &pair[1], 1, &o);
    expect_signaled_by_seccomp(&o);
    close(pair[0]);
    close(pair[1]);
    expect_killed_by_seccomp("peer"); /* no peer: fd 4 is no socket of its own */
}

/* A peer socket may be shut down (kgemu_serve_stop ends a served driver
 * session so, in the host form's grade job); no other descriptor. */
static void test_a_peer_socket_may_be_shut_down(void **state)
{
    (void)state;
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    struct sandbox_outcome o;
    run_with_peers("peer-shutdown", "4", &pair[1], 1, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_string_equal(o.output, "shutdown 4: 0\n");
    sandbox_outcome_free(&o);
    char end;
    assert_int_equal(read(pair[0], &end, 1), 0); /* shut down: the peer reads its end */
    run_with_peers("peer-shutdown", "3", &pair[1], 1, &o);
    expect_signaled_by_seccomp(&o);
    close(pair[0]);
    close(pair[1]);
}

/* Handed-over peers are closed in the caller once the job has them: the
 * peer then sees the job's end as its socket's, not when the caller's copy
 * goes (the job answers, ends, and the peer reads end of file). */
static void test_handed_peers_are_closed_here(void **state)
{
    (void)state;
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    assert_int_equal(write(pair[0], "pong", 4), 4);
    const char *argv[] = {job_path, "peer", NULL}, *env[] = {NULL};
    struct sandbox_job job = {
        .argv = argv, .env = env, .peer_fds = {pair[1]}, .peer_count = 1, .peers_handed = true};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    sandbox_outcome_free(&o);
    errno = 0;
    assert_int_equal(fcntl(pair[1], F_GETFD), -1);
    assert_int_equal(errno, EBADF);
    char sent[8];
    assert_int_equal(read(pair[0], sent, sizeof sent), 4); /* "ping" */
    assert_int_equal(read(pair[0], sent, sizeof sent), 0); /* and the end */
    close(pair[0]);
}

static void *close_after_a_moment(void *fd)
{
    usleep(300 * 1000);
    close(*(int *)fd);
    return NULL;
}

/* A job is stopped when its stop descriptor hangs up: SANDBOX_STOPPED,
 * long before its wall-clock limit. */
static void test_a_job_stops_when_its_caller_says_so(void **state)
{
    (void)state;
    int stop[2];
    assert_int_equal(pipe(stop), 0);
    const char *argv[] = {job_path, "spin", NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .stop_fd = &stop[0]};
    job.limits = quick_limits();
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, close_after_a_moment, &stop[1]), 0);
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    pthread_join(thread, NULL);
    assert_int_equal(o.end, SANDBOX_STOPPED);
    assert_non_null(strstr(o.reason, "stopped by its caller"));
    assert_true(o.wall_seconds < job.limits.wall_seconds / 2);
    sandbox_outcome_free(&o);
    close(stop[0]);
}

/* `count` socketpairs, stream and seqpacket in turn (as a host job's), the
 * answer "pongFD" waiting in each for the job's descriptor FD. */
static void make_peers(int count, int ours[SANDBOX_PEERS_MAX], int theirs[SANDBOX_PEERS_MAX])
{
    for (int i = 0; i < count; i++) {
        int pair[2], type = i % 2 ? SOCK_SEQPACKET : SOCK_STREAM;
        assert_int_equal(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, pair), 0);
        ours[i] = pair[0];
        theirs[i] = pair[1];
        char answer[16];
        int n = snprintf(answer, sizeof answer, "pong%d", SANDBOX_PEER_FD + i);
        assert_int_equal(write(ours[i], answer, (size_t)n), n);
    }
}

static void close_peers(int count, int ours[SANDBOX_PEERS_MAX], int theirs[SANDBOX_PEERS_MAX])
{
    for (int i = 0; i < count; i++) {
        close(ours[i]);
        close(theirs[i]);
    }
}

/* With `count` peers the job pings each and hears each one's answer. */
static void expect_peers_talk(int count)
{
    int ours[SANDBOX_PEERS_MAX], theirs[SANDBOX_PEERS_MAX];
    make_peers(count, ours, theirs);
    char arg[8], expected[128] = "";
    snprintf(arg, sizeof arg, "%d", count);
    for (int fd = SANDBOX_PEER_FD; fd < SANDBOX_PEER_FD + count; fd++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected),
                 "peer %d: pong%d\n", fd, fd);
    struct sandbox_outcome o;
    run_with_peers("peers", arg, theirs, count, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_string_equal(o.output, expected);
    sandbox_outcome_free(&o);
    for (int i = 0; i < count; i++) {
        char sent[8] = "";
        assert_int_equal(read(ours[i], sent, sizeof sent), 4);
        assert_memory_equal(sent, "ping", 4);
    }
    close_peers(count, ours, theirs);
}

static void test_every_peer_socket_talks(void **state)
{
    (void)state;
    expect_peers_talk(2);
    expect_peers_talk(SANDBOX_PEERS_MAX);
}

/* The descriptor after the last peer is killed by the filter (SIGSYS, not
 * EBADF): closed, and as a duplicate of fd 4 made by the job. */
static void test_no_descriptor_past_the_peers_talks(void **state)
{
    (void)state;
    int ours[SANDBOX_PEERS_MAX], theirs[SANDBOX_PEERS_MAX];
    make_peers(2, ours, theirs);
    struct sandbox_outcome o;
    run_with_peers("peers", "3", theirs, 2, &o); /* fds 4 and 5 talk, 6 is closed */
    assert_int_equal(o.signal, SIGSYS);
    assert_string_equal(o.output, "peer 4: pong4\npeer 5: pong5\n");
    expect_signaled_by_seccomp(&o);
    run_with_peers("peer-at", "6", theirs, 2, &o);
    expect_signaled_by_seccomp(&o);
    close_peers(2, ours, theirs);
}

/* A file holding `text`, open for reading. */
static int file_holding(const char *text)
{
    int fd = memfd_create("read-fd", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    return fd;
}

static void note_started(void *context, pid_t pid)
{
    pid_t *started = context;
    *started = pid;
}

static void test_descriptors_to_read_follow_the_peers(void **state)
{
    (void)state;
    int ours[SANDBOX_PEERS_MAX], theirs[SANDBOX_PEERS_MAX];
    make_peers(2, ours, theirs);
    pid_t started = 0;
    const char *argv[] = {job_path, "read-fd", "7", NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv,
                              .env = env,
                              .peer_count = 2,
                              .read_count = 2,
                              .on_started = note_started,
                              .started_context = &started};
    memcpy(job.peer_fds, theirs, sizeof(int) * 2);
    job.read_fds[0] = file_holding("first");
    job.read_fds[1] = file_holding("second");
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_string_equal(o.output, "fd 7: second\n"); /* 4, 5 the peers; 6 and 7 */
    assert_true(started > 0 && started != getpid());
    sandbox_outcome_free(&o);
    argv[2] = "8"; /* nothing past them */
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "fd 8 failed: 9\n"); /* EBADF */
    sandbox_outcome_free(&o);
    job.read_count = SANDBOX_READ_FDS_MAX + 1;
    sandbox_run(&job, &o);
    assert_int_equal(o.end, SANDBOX_SETUP_FAILED);
    assert_non_null(strstr(o.reason, "count of descriptors to read is out of range"));
    sandbox_outcome_free(&o);
    close(job.read_fds[0]);
    close(job.read_fds[1]);
    close_peers(2, ours, theirs);
}

static void test_a_wrong_peer_count_or_socket_fails_the_setup(void **state)
{
    (void)state;
    int peers[SANDBOX_PEERS_MAX] = {0, 1, 2, 0};
    struct sandbox_outcome o;
    run_with_peers("true", NULL, peers, SANDBOX_PEERS_MAX + 1, &o);
    assert_int_equal(o.end, SANDBOX_SETUP_FAILED);
    assert_string_equal(o.reason,
                        "the job's count of peer sockets is out of range: 5 given; a job takes 0 "
                        "to 4 peer sockets");
    sandbox_outcome_free(&o);
    peers[1] = -1;
    run_with_peers("true", NULL, peers, 2, &o);
    assert_int_equal(o.end, SANDBOX_SETUP_FAILED);
    assert_non_null(strstr(o.reason, "peer sockets 1 (-1)"));
    sandbox_outcome_free(&o);
}

/* A memfd with `text`, `MEMFD_BYTES` long; sealed against any change. */
static int make_memfd(const char *text, bool sealed)
{
    int fd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, MEMFD_BYTES), 0);
    assert_int_equal(pwrite(fd, text, strlen(text), 0), (ssize_t)strlen(text));
    if (sealed)
        assert_int_equal(
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL), 0);
    return fd;
}

static void send_fds(int socket, const int *fds, int count)
{
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(SANDBOX_PEERS_MAX * sizeof(int))];
    } control = {0};
    struct iovec iov = {.iov_base = "call", .iov_len = 4};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.space,
                         .msg_controllen = CMSG_SPACE((size_t)count * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)count * sizeof(int));
    assert_int_equal(sendmsg(socket, &msg, 0), 4);
}

/* As a host job gets its call: memfds by SCM_RIGHTS on its seqpacket peer
 * (fd 5). Its private mapping of the sealed argument stays its own (and a
 * writable shared one is refused: EPERM); its write to the shared result
 * reaches this process. */
static void test_memfds_pass_to_a_job_and_map(void **state)
{
    (void)state;
    int ours[SANDBOX_PEERS_MAX], theirs[SANDBOX_PEERS_MAX];
    make_peers(2, ours, theirs);
    char answer[16];
    assert_int_equal(read(theirs[1], answer, sizeof answer), 5); /* no "pong5" for this job */
    int memfds[2] = {make_memfd("the argument", true), make_memfd("", false)};
    send_fds(ours[1], memfds, 2);
    struct sandbox_outcome o;
    run_with_peers("memfd", NULL, theirs, 2, &o);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_int_equal(o.exit_code, 0);
    char expected[128];
    snprintf(expected, sizeof expected,
             "received 2 descriptors\nprivate: the argument\nsealed shared: %d\nshared written\n",
             EPERM);
    assert_string_equal(o.output, expected);
    sandbox_outcome_free(&o);
    char seen[64] = "";
    assert_int_equal(pread(memfds[0], seen, sizeof seen - 1, 0), sizeof seen - 1);
    assert_string_equal(seen, "the argument");
    assert_int_equal(pread(memfds[1], seen, sizeof seen - 1, 0), sizeof seen - 1);
    assert_string_equal(seen, RESULT_TEXT);
    assert_int_equal(read(ours[1], answer, sizeof answer), 4);
    assert_memory_equal(answer, "done", 4);
    close(memfds[0]);
    close(memfds[1]);
    close_peers(2, ours, theirs);
}

/* memfd_create is on the allowlist: a job may make shared memory of its own. */
static void test_a_job_may_create_a_memfd(void **state)
{
    (void)state;
    expect_exit("memfd-create", NULL, "memfd_create ok\n");
}

static void test_exec_by_path_kills(void **state)
{
    (void)state;
    /* The job itself was started by execveat on a descriptor; execve is
     * never allowed, whatever the path. */
    expect_killed_by_seccomp("exec");
}

static void test_wall_clock_limit_kills_the_tree(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.wall_seconds = 1;
    struct sandbox_outcome o;
    run("spin", NULL, &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_TIMED_OUT);
    assert_true(o.wall_seconds >= 1 && o.wall_seconds < 20);
    sandbox_outcome_free(&o);
}

static void test_a_line_can_move_the_deadline(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.wall_seconds = 60;
    struct sandbox_outcome o;
    struct lines lines = {.extend = 1}; /* its line leaves it 1 s more */
    run("line-then-spin", NULL, &l, &o, &lines);
    assert_int_equal(o.end, SANDBOX_TIMED_OUT);
    assert_int_equal(lines.count, 1);
    assert_true(o.wall_seconds < 30);
    sandbox_outcome_free(&o);
}

static void test_cpu_limit(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.cpu_seconds = 1;
    struct sandbox_outcome o;
    run("spin", NULL, &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_CPU_LIMIT);
    sandbox_outcome_free(&o);
}

static void test_memory_limit(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.memory_bytes = 64ull << 20;
    struct sandbox_outcome o;
    run("alloc", "512", &l, &o, NULL);
    if (o.active.memory == SANDBOX_MEMORY_RLIMIT_DATA) /* malloc fails instead */
        assert_string_equal(o.output, "alloc failed\n");
    else
        assert_int_equal(o.end, SANDBOX_OUT_OF_MEMORY);
    sandbox_outcome_free(&o);
    expect_exit("alloc", "16", "alloc ok\n");
}

static void test_file_size_limit(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.file_bytes = 1 << 20;
    struct sandbox_outcome o;
    /* PID 1 of its namespace ignores SIGXFSZ: the write fails with EFBIG */
    run("file-size", "4000000", &l, &o, NULL);
    assert_string_equal(o.output, "write failed: 27\n");
    sandbox_outcome_free(&o);
    run("file-size", "100000", &l, &o, NULL);
    assert_string_equal(o.output, "written: 0\n");
    sandbox_outcome_free(&o);
}

static void test_task_and_file_limits(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.tasks = 8;
    l.open_files = 16;
    struct sandbox_outcome o;
    run("threads", "20", &l, &o, NULL);
    assert_non_null(strstr(o.output, "threads failed at "));
    sandbox_outcome_free(&o);
    run("files", "50", &l, &o, NULL);
    assert_string_equal(o.output, "files failed at 12\n"); /* 0-3 are taken */
    sandbox_outcome_free(&o);
    run("files", "10", &l, &o, NULL);
    assert_string_equal(o.output, "files ok\n");
    sandbox_outcome_free(&o);
}

static void *sleeper(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

/* The service calls the sandbox from a multithreaded process: the child,
 * which has only the calling thread, must not wait for the others (the C
 * library's setresuid() would: a regression). */
static void test_a_multithreaded_parent(void **state)
{
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, sleeper, NULL), 0);
    struct sandbox_limits l = quick_limits();
    l.wall_seconds = 5;
    struct sandbox_outcome o;
    run("true", NULL, &l, &o, NULL);
    assert_int_equal(o.end, SANDBOX_EXITED);
    sandbox_outcome_free(&o);
    pthread_cancel(t);
    pthread_join(t, NULL);
}

/* The service runs jobs at once from its threads, each holding its view's
 * descriptors while it starts: a job's child starts with all of them, more
 * than the job may open, until it execs. Its set-up must not need a
 * descriptor past its limit (entering Landlock opens some). */
static void test_a_parent_holding_many_descriptors(void **state)
{
    (void)state;
    struct sandbox_limits l = quick_limits();
    l.open_files = 32;
    int held[64];
    for (int i = 0; i < 64; i++)
        assert_true((held[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
    struct sandbox_outcome o;
    run("true", NULL, &l, &o, NULL);
    for (int i = 0; i < 64; i++)
        close(held[i]);
    if (o.end != SANDBOX_EXITED)
        fprintf(stderr, "the job: %s\n", o.reason);
    assert_int_equal(o.end, SANDBOX_EXITED);
    assert_int_equal(o.exit_code, 0);
    sandbox_outcome_free(&o);
}

static void test_setup_failure_says_why(void **state)
{
    (void)state;
    const char *argv[] = {job_path, "true", NULL}, *env[] = {NULL};
    const char *paths[] = {"/nonexistent/kgrade", NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .read_paths = paths};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    assert_false(sandbox_run(&job, &o));
    assert_int_equal(o.end, SANDBOX_SETUP_FAILED);
    assert_non_null(strstr(o.reason, "/nonexistent/kgrade"));
    sandbox_outcome_free(&o);
}

/* A real GPU's job has a /proc of its own (the NVIDIA driver cannot
 * start without one), where a job without a GPU has none. */
static void test_a_gpu_job_has_its_own_proc(void **state)
{
    (void)state;
    const char *argv[] = {job_path, "read", "/proc/self/maps", NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .real_gpu = true};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "read ok\n");
    sandbox_outcome_free(&o);
    const char *pid[] = {job_path, "pid", NULL}; /* and it is PID 1 there */
    job.argv = pid;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "1\n");
    sandbox_outcome_free(&o);
}

/* A GPU's driver creates and chmods files of its own, makes links and
 * binds a UNIX socket: allowed for a GPU job in /tmp (seccomp and
 * Landlock), refused elsewhere (the view is read-only), and the system
 * calls kill a job without a GPU. */
static void test_a_gpu_job_makes_files_links_and_sockets_in_tmp(void **state)
{
    (void)state;
    const char *argv[] = {job_path, "chmod", "/tmp/socket", NULL}, *env[] = {NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .real_gpu = true};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "create ok\nchmod ok\n");
    sandbox_outcome_free(&o);
    const char *library[] = {job_path, "chmod", "/etc/ld.so.cache", NULL};
    job.argv = library;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "chmod Read-only file system\n");
    sandbox_outcome_free(&o);
    expect_killed_by_seccomp("chmod");
    const char *link[] = {job_path, "link-and-bind", NULL}; /* Landlock lets it, in /tmp */
    job.argv = link;
    sandbox_run(&job, &o);
    assert_string_equal(o.output, "link ok\nbind ok\n");
    sandbox_outcome_free(&o);
    expect_killed_by_seccomp("link-and-bind");
}

/* The driver's parameters a GPU job sees: the host's, but for
 * ModifyDeviceFiles, which is 0 wherever it stands. */
static void test_driver_params_leave_the_device_nodes_alone(void **state)
{
    (void)state;
    char out[128];
    assert_true(driver_params_for_job("RmLogonRC: 1\nModifyDeviceFiles: 1\nDeviceFileUID: 0\n", out,
                                      sizeof out));
    assert_string_equal(out, "RmLogonRC: 1\nModifyDeviceFiles: 0\nDeviceFileUID: 0\n");
    assert_true(driver_params_for_job("ModifyDeviceFiles: 1", out, sizeof out));
    assert_string_equal(out, "ModifyDeviceFiles: 0");
    assert_false(driver_params_for_job("RmLogonRC: 1\n", out, sizeof out));
    assert_string_equal(out, "");
    /* only at the start of a line */
    assert_false(driver_params_for_job("XModifyDeviceFiles: 1\n", out, sizeof out));
    assert_true(
        driver_params_for_job("NoModifyDeviceFiles: 1\nModifyDeviceFiles: 1\n", out, sizeof out));
    assert_string_equal(out, "NoModifyDeviceFiles: 1\nModifyDeviceFiles: 0\n");
    assert_false(driver_params_for_job("ModifyDeviceFiles: 1\nDeviceFileUID: 0\n", out, 16));
    assert_string_equal(out, "");
}

/* A folder among the device nodes (a GPU server's /dev/nvidia-caps) is
 * refused before the job starts, by name, not at its mount. */
static void test_a_device_path_must_be_a_device_node(void **state)
{
    (void)state;
    const char *argv[] = {job_path, "true", NULL}, *env[] = {NULL};
    const char *devices[] = {"/dev/null", here, NULL};
    struct sandbox_job job = {.argv = argv, .env = env, .device_paths = devices};
    job.limits = quick_limits();
    struct sandbox_outcome o;
    assert_false(sandbox_run(&job, &o));
    assert_int_equal(o.end, SANDBOX_SETUP_FAILED);
    assert_non_null(strstr(o.reason, "is not a device node"));
    assert_non_null(strstr(o.reason, here));
    sandbox_outcome_free(&o);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (!test_job_path(argv[0], here, job_path))
        return 1;
    char real[PATH_MAX];
    snprintf(real, sizeof real, "%s", job_path);
    snprintf(jobs_dir, sizeof jobs_dir, "%s", dirname(real));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_true_runs_with_protections),
        cmocka_unit_test(test_result_lines_reach_the_caller_but_stdout_does_not),
        cmocka_unit_test(test_input_reaches_the_job),
        cmocka_unit_test(test_output_and_log_are_capped),
        cmocka_unit_test(test_environment_is_only_what_was_given),
        cmocka_unit_test(test_host_files_are_out_of_sight),
        cmocka_unit_test(test_only_tmp_is_writable),
        cmocka_unit_test(test_relaxed_for_sanitizers_shows_its_own_proc),
        cmocka_unit_test(test_paths_under_tmp_are_visible),
        cmocka_unit_test(test_a_path_named_twice_is_shown_once),
        cmocka_unit_test(test_a_named_library_comes_with_what_it_needs),
        cmocka_unit_test(test_the_job_is_alone),
        cmocka_unit_test(test_forbidden_calls_kill),
        cmocka_unit_test(test_exec_by_path_kills),
        cmocka_unit_test(test_a_peer_socket_is_fd_4_and_only_it_talks),
        cmocka_unit_test(test_a_peer_socket_may_be_shut_down),
        cmocka_unit_test(test_handed_peers_are_closed_here),
        cmocka_unit_test(test_a_job_stops_when_its_caller_says_so),
        cmocka_unit_test(test_every_peer_socket_talks),
        cmocka_unit_test(test_no_descriptor_past_the_peers_talks),
        cmocka_unit_test(test_a_wrong_peer_count_or_socket_fails_the_setup),
        cmocka_unit_test(test_descriptors_to_read_follow_the_peers),
        cmocka_unit_test(test_memfds_pass_to_a_job_and_map),
        cmocka_unit_test(test_a_job_may_create_a_memfd),
        cmocka_unit_test(test_wall_clock_limit_kills_the_tree),
        cmocka_unit_test(test_a_line_can_move_the_deadline),
        cmocka_unit_test(test_cpu_limit),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_file_size_limit),
        cmocka_unit_test(test_task_and_file_limits),
        cmocka_unit_test(test_a_multithreaded_parent),
        cmocka_unit_test(test_a_parent_holding_many_descriptors),
        cmocka_unit_test(test_setup_failure_says_why),
        cmocka_unit_test(test_a_device_path_must_be_a_device_node),
        cmocka_unit_test(test_a_gpu_job_has_its_own_proc),
        cmocka_unit_test(test_driver_params_leave_the_device_nodes_alone),
        cmocka_unit_test(test_a_gpu_job_makes_files_links_and_sockets_in_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
