/*
 * sandbox — runs one command isolated, with limits, and collects its output
 * and why it ended.
 *
 * A job is hostile until proven otherwise. sandbox_run() starts the command
 * in a fresh process (exec, an environment given whole, no inherited
 * descriptors) and, where the kernel allows it: new user, mount, PID,
 * network, IPC and UTS namespaces; a read-only view of the filesystem that
 * holds only the paths the job names, the shared libraries it loads (file
 * by file), the device nodes it names and a small fresh tmpfs at /tmp (the
 * only writable place), with no /proc (a GPU job's own, below); Landlock
 * rules allowing the same paths; no_new_privs; a seccomp-bpf allowlist
 * that kills the process on any other system call, on 32-bit and x32
 * entry points, and on process creation. Limits: wall-clock time (SIGKILL
 * to the whole process tree, enforced here), CPU time, memory (cgroup v2,
 * else cgroup v1, else RLIMIT_DATA), file size, processes and threads, open
 * files, and caps on what is read back.
 *
 * The job reads its input on fd 0 and writes its result on fd 3, line by
 * line (the caller is told each line as it comes); fd 1 goes nowhere and
 * fd 2 is kept as a log. So nothing a job prints on its standard output can
 * pass for its result. Sockets the caller gives it (its peers) are fds 4
 * onwards, the only descriptors it may send and receive on.
 *
 * It uses libseccomp, Landlock and namespaces; never the grader, the
 * database or the server.
 */
#ifndef KGRADE_SANDBOX_H
#define KGRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct sandbox_limits {
    double wall_seconds;   /* from the start; the job's on_line may move it */
    double cpu_seconds;    /* RLIMIT_CPU, all threads together */
    uint64_t memory_bytes; /* cgroup memory.max / limit_in_bytes, else RLIMIT_DATA */
    uint64_t file_bytes;   /* RLIMIT_FSIZE: the largest file it may write */
    uint64_t tmpfs_bytes;  /* the size of the writable /tmp */
    int tasks;             /* processes and threads: pids cgroup and RLIMIT_NPROC */
    int open_files;        /* RLIMIT_NOFILE */
    size_t output_bytes;   /* kept of fd 3; the rest is read and dropped */
    size_t log_bytes;      /* kept of fd 2 */
};

/* The descriptor a job's first peer socket has in the job; the others
 * follow it in order (sandbox_job.peer_fds). */
#define SANDBOX_PEER_FD 4
/* The most peer sockets a job may be given. */
#define SANDBOX_PEERS_MAX 4
/* The most descriptors a job may be given to read, after its peers. */
#define SANDBOX_READ_FDS_MAX 4

/* Defaults for a grading job on the virtual GPU. */
#define SANDBOX_DEFAULT_WALL_SECONDS 120.0
#define SANDBOX_DEFAULT_MEMORY_BYTES (8ull << 30)
#define SANDBOX_DEFAULT_FILE_BYTES   (16ull << 20)
#define SANDBOX_DEFAULT_TMPFS_BYTES  (64ull << 20)
#define SANDBOX_DEFAULT_TASKS        64
#define SANDBOX_DEFAULT_OPEN_FILES   256
#define SANDBOX_DEFAULT_OUTPUT_BYTES (4u << 20)
#define SANDBOX_DEFAULT_LOG_BYTES    (64u << 10)

/* The defaults above; CPU time is the wall-clock limit on every core. */
void sandbox_default_limits(struct sandbox_limits *limits);

/* The CPU time of a job busy on every core for `wall_seconds`. */
double sandbox_cpu_for(double wall_seconds);

/* Told each complete line the job writes to fd 3 (without its newline), as
 * it comes, and the seconds since the job started. Returns a new
 * wall-clock limit in seconds from now, or 0 to keep the current one. */
typedef double sandbox_line_fn(void *context, const char *line, size_t length, double elapsed);

/* Told the job's process id (in the caller's PID namespace) once it is
 * started, before it runs anything of its own: e.g. to open its
 * /proc/PID/stat, whose CPU times another job may then read. */
typedef void sandbox_started_fn(void *context, pid_t pid);

struct sandbox_job {
    const char *const *argv; /* argv[0]: the program's absolute path */
    const char *const *env;  /* the job's whole environment, NULL-terminated */
    const char *input;       /* written to the job's fd 0, then closed */
    size_t input_size;
    const char *const *read_paths; /* files and folders visible read-only (NULL-terminated) */
    /* Shared libraries the job loads that this process has not (the virtual
     * GPU): each visible read-only and executable, with every library it
     * needs, file by file, as this process's dynamic loader resolves them
     * (it loads each here for a moment: its constructors run here). At most
     * 8, NULL-terminated; may be NULL. */
    const char *const *libraries;
    /* Device nodes visible read-write besides /dev/null, /dev/zero and
     * /dev/urandom, which every job has (NULL-terminated; may be NULL). */
    const char *const *device_paths;
    /* A real GPU's driver runs in the job: its system calls are allowed
     * (ioctl, UNIX sockets, its JIT cache's folders), and it gets what the
     * NVIDIA driver needs to find the GPU in a user namespace: a /proc of
     * the job's own PID namespace, where it may write its own files, with
     * driver parameters that leave the device nodes as they are
     * (ModifyDeviceFiles 0: they belong to nobody there). */
    bool real_gpu;
    struct sandbox_limits limits;
    /* For a job built with AddressSanitizer: no RLIMIT_DATA (ASan reserves
     * terabytes of address space) and no RLIMIT_NPROC, and a /proc of the
     * job's own PID namespace (ASan reads /proc/self/maps). The cgroup
     * limits, seccomp and Landlock stay. */
    bool relaxed_for_sanitizers;
    /* Connected sockets the job gets as descriptors SANDBOX_PEER_FD,
     * SANDBOX_PEER_FD + 1, ... in order, with the calls that send and
     * receive on a socket (sendto, sendmsg, recvfrom, recvmsg; passing
     * descriptors by SCM_RIGHTS included) allowed on those descriptors
     * only: a job and its peers, such as a program whose CUDA driver is the
     * virtual GPU's remote client and the process serving it. The first
     * peer_count are passed (0: none; more than SANDBOX_PEERS_MAX, or one
     * that is no open descriptor, fails the set-up); the caller keeps its
     * own, unless it hands them over. */
    int peer_fds[SANDBOX_PEERS_MAX];
    int peer_count;
    /* Handed over: sandbox_run closes the caller's peer descriptors once
     * the job has its own (or could not start), so that each peer sees the
     * job's end as its socket's, not when the caller's copy goes. */
    bool peers_handed;
    /* Open descriptors the job gets after its peers (SANDBOX_PEER_FD +
     * peer_count onwards, in order), as they are: files it may read, such
     * as another job's /proc/PID/stat (read_count of them, at most
     * SANDBOX_READ_FDS_MAX; the caller keeps its own). */
    int read_fds[SANDBOX_READ_FDS_MAX];
    int read_count;
    /* When not NULL: the job is stopped (killed, SANDBOX_STOPPED) once
     * this descriptor is readable or hung up, e.g. a pipe whose writing end
     * the caller closes when the job's work is no longer needed. */
    const int *stop_fd;
    sandbox_line_fn *on_line; /* may be NULL */
    void *context;
    sandbox_started_fn *on_started; /* may be NULL */
    void *started_context;
};

/* What was in force (sandbox_run) or can be (sandbox_probe). */
enum sandbox_memory_limit {
    SANDBOX_MEMORY_NONE,
    SANDBOX_MEMORY_RLIMIT_DATA,
    SANDBOX_MEMORY_CGROUP_V1,
    SANDBOX_MEMORY_CGROUP_V2,
};

struct sandbox_protections {
    bool user_ns, mount_ns, pid_ns, net_ns, ipc_ns, uts_ns;
    bool filesystem_view; /* the job sees only its paths (needs the mount namespace) */
    int landlock_abi;     /* 0: no Landlock */
    bool no_new_privs, seccomp, rlimits, timeout;
    enum sandbox_memory_limit memory;
    bool tasks_cgroup; /* the pids controller limits processes and threads */
};

enum sandbox_end {
    SANDBOX_EXITED,        /* exit_code */
    SANDBOX_SIGNALED,      /* signal: a signal nobody here sent */
    SANDBOX_TIMED_OUT,     /* past the wall-clock limit; killed */
    SANDBOX_CPU_LIMIT,     /* past RLIMIT_CPU */
    SANDBOX_OUT_OF_MEMORY, /* killed by the memory limit */
    SANDBOX_SETUP_FAILED,  /* the sandbox could not be set up: reason */
    SANDBOX_STOPPED,       /* stopped by its caller (sandbox_job.stop_fd); killed */
};

struct sandbox_outcome {
    enum sandbox_end end;
    int exit_code, signal;
    char *output; /* fd 3, NUL-terminated; at most limits.output_bytes */
    size_t output_size;
    bool output_truncated;
    char *log; /* fd 2, NUL-terminated; at most limits.log_bytes */
    size_t log_size;
    bool log_truncated;
    double wall_seconds;
    char reason[256]; /* a sentence: why it ended */
    struct sandbox_protections active;
};

/* Runs a job to its end. Always fills `outcome` (released with
 * sandbox_outcome_free); returns false only when the job could not be
 * started (outcome->end is then SANDBOX_SETUP_FAILED with the reason).
 * Ignores SIGPIPE for the process unless it has a handler, so a job that
 * stops reading its input cannot kill its parent. */
bool sandbox_run(const struct sandbox_job *job, struct sandbox_outcome *outcome);
void sandbox_outcome_free(struct sandbox_outcome *outcome);

/* Which protections this machine gives a job: a trivial job run through
 * the sandbox, and what was in force for it. False, with a sentence in
 * `why`, when even that job could not run. */
bool sandbox_probe(struct sandbox_protections *protections, char *why, size_t why_size);

/* NULL when the protections include the minimum a grading service needs
 * (seccomp, rlimits, the timeout); otherwise a sentence saying what is
 * missing. */
const char *sandbox_missing_minimum(const struct sandbox_protections *protections);

/* Prints one line per protection: "  seccomp          active  (…)". */
void sandbox_print_protections(const struct sandbox_protections *protections, FILE *out);

/* Called by a sandboxed job once it has started: from then on execve and
 * execveat kill it (the sandbox's own filter must allow the one exec that
 * starts the job). False when the filter could not be installed. */
bool sandbox_forbid_exec(void);

#endif
