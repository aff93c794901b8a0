/*
 * Internal to sandbox/: the plan the parent prepares for the child (every
 * path formatted, every descriptor opened, the seccomp program compiled
 * and the Landlock ruleset built before the clone), so the child between
 * clone and exec only makes system calls: it may be the child of a
 * multithreaded server, where malloc or stdio could deadlock.
 */
#ifndef KGRADE_SANDBOX_INTERNAL_H
#define KGRADE_SANDBOX_INTERNAL_H

#include "sandbox.h"

#include <limits.h>
#include <linux/filter.h>
#include <sys/resource.h>

/* One path of the job's filesystem view. */
enum view_kind { VIEW_DIR, VIEW_FILE, VIEW_DEVICE, VIEW_SYMLINK };

struct view_entry {
    enum view_kind kind;
    int fd;                   /* the parent's O_PATH of it, for Landlock (not for symlinks) */
    char host[PATH_MAX];      /* the path on the host */
    char target[PATH_MAX];    /* under the new root */
    char link[PATH_MAX];      /* VIEW_SYMLINK: what it points to */
    unsigned long keep_flags; /* the host mount's nosuid/nodev/noexec/atime flags */
    bool executable;          /* Landlock lets the job execute it (program, libraries) */
};

#define VIEW_ROOT          "/tmp" /* where the new root is built, in the job's own mount namespace */
#define VIEW_ENTRIES_MAX   512    /* the libraries alone are some seventy, twice (link and file) */
#define VIEW_LIBRARIES_MAX 8      /* libraries a job names (sandbox_job.libraries) */
#define DRIVER_PARAMS_MAX  4096   /* /proc/driver/nvidia/params: some forty lines */
#define DRIVER_PARAMS      "/proc/driver/nvidia/params"

struct view_plan {
    struct view_entry *entries; /* malloc'ed by the parent; the child reads its copy */
    int n_entries;
    /* The job's program, opened by the parent and executed through this
     * descriptor (execveat), so it need not be in the view: the job cannot
     * read its own program. */
    int program_fd;
    char tmpfs_options[64]; /* the writable /tmp: "size=…,mode=1777" */
    /* A /proc of the job's own PID namespace: for sanitizers, and for a
     * real GPU's driver, which reads its parameters there (and, without
     * them, fails with CUDA_ERROR_OPERATING_SYSTEM). */
    bool proc;
    /* A real GPU's driver runs in the job: it writes its own process's
     * files in /proc, and makes links and a UNIX socket in /tmp. */
    bool gpu_driver;
    /* A real GPU's /proc/driver/nvidia/params as the job sees it ("": the
     * host's): ModifyDeviceFiles 0 (driver_params_for_job). */
    char driver_params[DRIVER_PARAMS_MAX];
};

/* The NVIDIA driver's parameters for a job: `host`'s text with
 * "ModifyDeviceFiles: 0". In a user namespace the device nodes belong to
 * nobody, not to the DeviceFileUID they should have, and a driver allowed
 * to modify them tries to chmod them and gives up with
 * CUDA_ERROR_OPERATING_SYSTEM; NVIDIA's container toolkit overlays the
 * same change. False (and `out` empty) when `host` has no such line or the
 * result does not fit. */
bool driver_params_for_job(const char *host, char *out, size_t size);

/* The resources the child limits with setrlimit. */
enum { LIMIT_CPU, LIMIT_DATA, LIMIT_FSIZE, LIMIT_NPROC, LIMIT_NOFILE, LIMIT_CORE, LIMITS };

struct child_plan {
    int clone_flags;    /* the namespaces the child is in */
    bool set_ids;       /* become uid/gid 0 of the user namespace (mapped by the parent) */
    bool drop_groups;   /* setgroups(0) is allowed (the parent wrote the gid map as root) */
    bool become_nobody; /* root without a user namespace: drop to 65534 before exec */
    int sync_fd;        /* read: the parent has mapped ids and placed the cgroup */
    int error_fd;       /* write: why the setup failed (close-on-exec: EOF means exec'd) */
    int stdin_fd, stdout_fd, stderr_fd, result_fd;
    int peer_fds[SANDBOX_PEERS_MAX]; /* the job's SANDBOX_PEER_FD onwards */
    int peer_count;
    int read_fds[SANDBOX_READ_FDS_MAX]; /* after the peers */
    int read_count;
    bool view; /* build the filesystem view */
    struct view_plan *plan;
    int landlock_fd; /* -1: none */
    int landlock_abi;
    struct sock_fprog seccomp; /* len 0: none */
    int resources[LIMITS];
    struct rlimit limits[LIMITS];
    bool limit_set[LIMITS];
    char *const *argv;
    char *const *env;
};

/* The child: from clone to exec. Never returns. */
int child_main(void *plan);

/* ---- the filesystem view (view.c) */

/* Plans the view: each read path, each device, and each shared library
 * this process has loaded (not whole library folders). Opens the program.
 * False with a sentence in `error`. */
bool view_prepare(struct view_plan *plan, const struct sandbox_job *job, char *error,
                  size_t error_size);
void view_release(struct view_plan *plan);
/* In the child: builds the view and pivots into it. 0, or the errno with
 * `*step` naming what failed and `*path` the host path concerned ("" if none). */
int view_enter(const struct view_plan *plan, const char **step, const char **path);

/* ---- Landlock (landlock.c) */

/* The Landlock ABI the kernel offers; 0 when none. */
int landlock_abi_version(void);
/* A ruleset allowing reads of the job's paths, execution of its program and
 * libraries, and writes to its devices; -1 when Landlock is unavailable. */
int landlock_build(const struct view_plan *plan, int abi);
/* In the child, after the view: allow writes under /tmp (and reads of its
 * own /proc when it has one; for `gpu_driver`, writes there too, and links
 * and sockets in /tmp) and restrict. */
int landlock_enter(int ruleset_fd, int abi, bool view, bool proc, bool gpu_driver);

/* ---- seccomp (seccomp_filter.c) */

/* Compiles the allowlist (wider with a real GPU's devices; with `peers`,
 * sending and receiving on SANDBOX_PEER_FD .. SANDBOX_PEER_FD + peers - 1).
 * The program is malloc'ed into `prog`. False with a sentence in `error`. */
bool seccomp_compile(bool gpu, int peers, struct sock_fprog *prog, char *error, size_t error_size);

/* ---- cgroups (cgroup.c) */

struct job_cgroup {
    enum sandbox_memory_limit memory;
    char memory_dir[PATH_MAX]; /* "" when none */
    char tasks_dir[PATH_MAX];  /* the pids controller's; "" when none */
};

/* Creates the job's cgroups with the limits; what could not be done is
 * left out (memory then falls back to RLIMIT_DATA in the child). */
void cgroup_create(struct job_cgroup *cg, const struct sandbox_limits *limits);
/* Moves `pid` into the job's cgroups. */
void cgroup_enter(const struct job_cgroup *cg, int pid);
/* True when the memory limit killed a task of the job. */
bool cgroup_out_of_memory(const struct job_cgroup *cg);
void cgroup_remove(struct job_cgroup *cg);

#endif
