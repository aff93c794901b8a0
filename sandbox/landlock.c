/*
 * Landlock: the job may read only the paths of its view, execute only its
 * program and the system's libraries, write only its devices and /tmp,
 * reach no TCP port, and signal or connect to nothing outside its domain
 * (as far as the kernel's Landlock ABI goes). Defence in depth behind the
 * filesystem view, and the main file protection where there are no mount
 * namespaces.
 *
 * The ruleset is built in the parent from the view's O_PATH descriptors
 * and the program's (executed through its descriptor, outside the view);
 * the child adds /tmp (its own tmpfs) and restricts itself before exec.
 */
#include "sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Rights newer than the installed header. */
#define ACCESS_FS_TRUNCATE  (1ULL << 14)                /* ABI 3 */
#define ACCESS_FS_IOCTL_DEV (1ULL << 15)                /* ABI 5 */
#define ACCESS_NET_ALL      ((1ULL << 0) | (1ULL << 1)) /* ABI 4: TCP bind, connect */
#define SCOPE_ALL           ((1ULL << 0) | (1ULL << 1)) /* ABI 6: abstract UNIX sockets, signals */

/* The kernel's struct landlock_ruleset_attr as of ABI 6; older kernels
 * take a prefix of it. */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

static uint64_t handled_fs(int abi)
{
    uint64_t all = (1ULL << 13) - 1; /* ABI 1 */
    if (abi >= 2)
        all |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        all |= ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        all |= ACCESS_FS_IOCTL_DEV;
    return all;
}

int landlock_abi_version(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

static bool allow(int ruleset, int fd, uint64_t access)
{
    struct landlock_path_beneath_attr rule = {.allowed_access = access, .parent_fd = fd};
    return syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
}

static uint64_t access_of(const struct view_entry *e, int abi)
{
    uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE;
    if (e->kind == VIEW_DIR)
        read |= LANDLOCK_ACCESS_FS_READ_DIR;
    if (e->executable)
        read |= LANDLOCK_ACCESS_FS_EXECUTE;
    if (e->kind == VIEW_DEVICE)
        read |= LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 5 ? ACCESS_FS_IOCTL_DEV : 0);
    return read & handled_fs(abi);
}

int landlock_build(const struct view_plan *plan, int abi)
{
    if (abi <= 0)
        return -1;
    struct ruleset_attr attr = {.handled_access_fs = handled_fs(abi)};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr.handled_access_net = ACCESS_NET_ALL;
        size += sizeof attr.handled_access_net;
    }
    if (abi >= 6) {
        attr.scoped = SCOPE_ALL;
        size += sizeof attr.scoped;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0)
        return -1;
    /* the kernel opens the program for reading to execute it */
    uint64_t program =
        (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE) & handled_fs(abi);
    bool ok = allow(ruleset, plan->program_fd, program);
    for (int i = 0; ok && i < plan->n_entries; i++) {
        const struct view_entry *e = &plan->entries[i];
        ok = e->kind == VIEW_SYMLINK || allow(ruleset, e->fd, access_of(e, abi));
    }
    if (!ok) {
        close(ruleset);
        return -1;
    }
    int high = fcntl(ruleset, F_DUPFD_CLOEXEC, 10);
    if (high >= 0) {
        close(ruleset);
        ruleset = high;
    }
    return ruleset;
}

int landlock_enter(int ruleset_fd, int abi, bool view, bool proc, bool gpu_driver)
{
    if (proc) { /* the job's own /proc, read-only unless a GPU's driver writes there */
        int fd = open("/proc", O_PATH | O_CLOEXEC);
        uint64_t write = LANDLOCK_ACCESS_FS_WRITE_FILE | ACCESS_FS_TRUNCATE; /* fopen "w" */
        uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                        (gpu_driver ? write & handled_fs(abi) : 0);
        if (fd < 0 || !allow(ruleset_fd, fd, read))
            return errno ? errno : EINVAL;
        close(fd);
    }
    if (view) { /* the job's own tmpfs */
        int tmp = open("/tmp", O_PATH | O_CLOEXEC);
        uint64_t write = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                         LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                         LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |
                         LANDLOCK_ACCESS_FS_MAKE_REG | ACCESS_FS_TRUNCATE;
        if (gpu_driver) /* the driver's links and UNIX socket */
            write |= LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_MAKE_SOCK;
        if (tmp < 0 || !allow(ruleset_fd, tmp, write & handled_fs(abi)))
            return errno ? errno : EINVAL;
        close(tmp);
    }
    if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0)
        return errno;
    close(ruleset_fd);
    return 0;
}
