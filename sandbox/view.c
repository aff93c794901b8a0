/*
 * The job's view of the filesystem: a small tmpfs root holding, read-only,
 * only the paths the job names, each shared library file this process has
 * loaded (the job's program is this same binary, or needs no more; not the
 * library folders: nothing of the host the job does not need), each library
 * the job names with every library file it needs (loaded here for a moment,
 * so that the dynamic loader itself says which), the dynamic loader's
 * cache, and the device nodes it names (read-write), plus a fresh tmpfs at
 * /tmp, the only writable place. No /proc, no /sys, no home, and not the
 * job's own program, which is executed through a descriptor.
 *
 * The parent checks every host path and formats every target. The child,
 * in its own mount namespace (made private first: nothing it mounts
 * reaches the host), opens every host path before it mounts the new root
 * over VIEW_ROOT (which may hide some of them), then binds each through
 * "/proc/self/fd/N" (a bind must come from a mount of its own namespace,
 * so the parent's descriptors would not do).
 */
#include "sandbox_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The dynamic loader's cache: where the libraries of a soname are. */
static const char *const system_paths[] = {"/etc/ld.so.cache", NULL};
/* The driver's parameter that lets it fix its device nodes' owner and mode. */
#define MODIFY_KEY "ModifyDeviceFiles: "
/* The device nodes every job has. */
static const char *const standard_devices[] = {"/dev/null", "/dev/zero", "/dev/urandom", NULL};

/* What a path is to the job. */
enum entry_role {
    ROLE_READ,          /* a path the job names: must exist; shown at its path */
    ROLE_LIBRARY,       /* a loaded library: skipped when gone; executable */
    ROLE_NAMED_LIBRARY, /* a library the job names: must exist; executable */
    ROLE_SYSTEM,        /* a system file: skipped when missing, kept as a link when it is one */
    ROLE_DEVICE,        /* a device node, read-write */
};

/* ----------------------------------------------------------- the parent */

static unsigned long mount_flags_of(const char *path)
{
    struct statvfs s;
    unsigned long flags = 0;
    if (statvfs(path, &s) != 0)
        return 0;
    if (s.f_flag & ST_NOSUID)
        flags |= MS_NOSUID;
    if (s.f_flag & ST_NODEV)
        flags |= MS_NODEV;
    if (s.f_flag & ST_NOEXEC)
        flags |= MS_NOEXEC;
    if (s.f_flag & ST_NOATIME)
        flags |= MS_NOATIME;
    if (s.f_flag & ST_NODIRATIME)
        flags |= MS_NODIRATIME;
    if (s.f_flag & ST_RELATIME)
        flags |= MS_RELATIME;
    return flags;
}

/* True when `path` is `dir` or inside it. */
static bool inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Already visible through an earlier folder of the view (or the same path). */
static bool covered(const struct view_plan *plan, const char *path)
{
    for (int i = 0; i < plan->n_entries; i++) {
        const struct view_entry *e = &plan->entries[i];
        if ((e->kind == VIEW_DIR || e->kind == VIEW_SYMLINK) && inside(path, e->host))
            return true;
        if (strcmp(e->host, path) == 0)
            return true;
    }
    return false;
}

/* A descriptor above those the child moves to 0-3 (close-on-exec). */
static int raise_fd(int fd)
{
    int high = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 10) : -1;
    if (high >= 0) {
        close(fd);
        return high;
    }
    return fd;
}

/* A system file that is a link stays a link in the view. */
static void add_link(struct view_plan *plan, const char *path)
{
    struct view_entry *e = &plan->entries[plan->n_entries];
    ssize_t n = readlink(path, e->link, sizeof e->link - 1);
    if (n <= 0)
        return;
    e->link[n] = '\0';
    e->kind = VIEW_SYMLINK;
    plan->n_entries++;
}

/* Adds a host path in its role. */
static bool add_entry(struct view_plan *plan, const char *path, enum entry_role role, char *error,
                      size_t error_size)
{
    if (path[0] != '/') {
        snprintf(error, error_size, "the sandbox needs absolute paths, not '%s'", path);
        return false;
    }
    if (covered(plan, path))
        return true;
    if (plan->n_entries == VIEW_ENTRIES_MAX) {
        snprintf(error, error_size, "more than %d paths for the sandbox", VIEW_ENTRIES_MAX);
        return false;
    }
    struct view_entry *e = &plan->entries[plan->n_entries];
    memset(e, 0, sizeof *e);
    e->fd = -1;
    struct stat st;
    bool optional = role == ROLE_LIBRARY || role == ROLE_SYSTEM;
    if (lstat(path, &st) != 0) {
        if (optional)
            return true;
        snprintf(error, error_size, "'%s' cannot be shown to the job: %s", path, strerror(errno));
        return false;
    }
    snprintf(e->target, sizeof e->target, "%s%s", VIEW_ROOT, path);
    snprintf(e->host, sizeof e->host, "%s", path);
    if (S_ISLNK(st.st_mode) && role == ROLE_SYSTEM) {
        add_link(plan, path);
        return true;
    }
    e->fd = raise_fd(open(path, O_PATH | O_CLOEXEC));
    if (e->fd < 0 || fstat(e->fd, &st) != 0) {
        snprintf(error, error_size, "'%s' cannot be opened for the job: %s", path, strerror(errno));
        return false;
    }
    if (role == ROLE_DEVICE && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
        snprintf(error, error_size,
                 "'%s' is not a device node: only device nodes can be "
                 "shown to the job read-write",
                 path);
        return false;
    }
    e->kind = role == ROLE_DEVICE ? VIEW_DEVICE : S_ISDIR(st.st_mode) ? VIEW_DIR : VIEW_FILE;
    e->keep_flags = mount_flags_of(path);
    e->executable = role == ROLE_LIBRARY || role == ROLE_NAMED_LIBRARY || role == ROLE_SYSTEM;
    plan->n_entries++;
    return true;
}

/* A path at its own place and, through links, where it really is (a
 * library loaded by its real path looks for its companions there). */
static bool add_followed(struct view_plan *plan, const char *path, enum entry_role role,
                         char *error, size_t error_size)
{
    char real[PATH_MAX];
    bool ok = add_entry(plan, path, role, error, error_size);
    if (ok && realpath(path, real) && strcmp(real, path) != 0)
        ok = add_entry(plan, real, role, error, error_size);
    return ok;
}

struct library_walk {
    struct view_plan *plan;
    char *error;
    size_t error_size;
    bool ok;
};

static int add_library(struct dl_phdr_info *info, size_t size, void *context)
{
    (void)size;
    struct library_walk *w = context;
    /* the program itself and the vDSO have no path */
    if (w->ok && info->dlpi_name && info->dlpi_name[0] == '/')
        w->ok = add_followed(w->plan, info->dlpi_name, ROLE_LIBRARY, w->error, w->error_size);
    return 0;
}

/* Loads the libraries the job names here, lazily and locally (nothing of
 * this process binds to them), so that this process's dynamic loader, not
 * kgrade, resolves what each needs as it will in the job: DT_NEEDED
 * through RUNPATH, the loader's cache and its folders. One that cannot be
 * loaded here is left as it is: the job's own loader will say why. */
static bool load_job_libraries(const struct sandbox_job *job, void *handles[VIEW_LIBRARIES_MAX],
                               int *count, char *error, size_t error_size)
{
    for (*count = 0; job->libraries && job->libraries[*count]; (*count)++) {
        if (*count == VIEW_LIBRARIES_MAX) {
            snprintf(error, error_size, "more than %d libraries for the sandbox",
                     VIEW_LIBRARIES_MAX);
            return false;
        }
        handles[*count] = dlopen(job->libraries[*count], RTLD_LAZY | RTLD_LOCAL);
    }
    return true;
}

/* Every shared library this process has loaded, the dynamic loader
 * included (what a job that is this same program loads at its start), and
 * each library the job names with all it needs, loaded for the walk only:
 * unloaded after it (what the loader keeps stays). */
static bool add_libraries(struct view_plan *plan, const struct sandbox_job *job, char *error,
                          size_t error_size)
{
    struct library_walk w = {plan, error, error_size, true};
    void *handles[VIEW_LIBRARIES_MAX];
    int loaded = 0;
    w.ok = load_job_libraries(job, handles, &loaded, error, error_size);
    if (w.ok)
        dl_iterate_phdr(add_library, &w);
    for (int i = 0; i < loaded; i++)
        if (handles[i])
            dlclose(handles[i]);
    for (int i = 0; w.ok && i < loaded; i++)
        w.ok = add_followed(plan, job->libraries[i], ROLE_NAMED_LIBRARY, error, error_size);
    for (int i = 0; w.ok && system_paths[i]; i++)
        w.ok = add_entry(plan, system_paths[i], ROLE_SYSTEM, error, error_size);
    return w.ok;
}

static bool open_program(struct view_plan *plan, const char *program, char *error,
                         size_t error_size)
{
    plan->program_fd = program[0] == '/' ? raise_fd(open(program, O_PATH | O_CLOEXEC)) : -1;
    if (plan->program_fd < 0)
        snprintf(error, error_size, "the job's program '%s' cannot be opened: %s", program,
                 program[0] == '/' ? strerror(errno) : "it needs an absolute path");
    return plan->program_fd >= 0;
}

/* The value after MODIFY_KEY at the start of a line of `text`; NULL: none. */
static const char *modify_value(const char *text)
{
    if (strncmp(text, MODIFY_KEY, strlen(MODIFY_KEY)) == 0)
        return text + strlen(MODIFY_KEY);
    const char *line = strstr(text, "\n" MODIFY_KEY);
    return line ? line + 1 + strlen(MODIFY_KEY) : NULL;
}

bool driver_params_for_job(const char *host, char *out, size_t size)
{
    const char *value = modify_value(host);
    const char *rest = value ? value + strcspn(value, "\n") : NULL;
    int n = value ? snprintf(out, size, "%.*s0%s", (int)(value - host), host, rest) : -1;
    if (n < 0 || (size_t)n >= size) {
        if (size > 0)
            out[0] = '\0';
        return false;
    }
    return true;
}

/* The host driver's parameters, as the job will see them; none (the
 * host's own) when the host has no NVIDIA driver, or parameters without
 * the line or too long to hold. */
static void read_driver_params(struct view_plan *plan)
{
    char host[DRIVER_PARAMS_MAX];
    size_t n = 0;
    ssize_t got = 0;
    plan->driver_params[0] = '\0';
    int fd = open(DRIVER_PARAMS, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    while (n < sizeof host &&
           ((got = read(fd, host + n, sizeof host - n)) > 0 || (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    close(fd);
    if (got < 0 || n == 0 || n == sizeof host) /* unreadable, empty, or cut */
        return;
    host[n] = '\0';
    driver_params_for_job(host, plan->driver_params, sizeof plan->driver_params);
}

bool view_prepare(struct view_plan *plan, const struct sandbox_job *job, char *error,
                  size_t error_size)
{
    memset(plan, 0, sizeof *plan);
    plan->program_fd = -1;
    snprintf(plan->tmpfs_options, sizeof plan->tmpfs_options, "size=%llu,mode=1777",
             (unsigned long long)job->limits.tmpfs_bytes);
    plan->proc = job->relaxed_for_sanitizers || job->real_gpu;
    plan->gpu_driver = job->real_gpu;
    if (job->real_gpu)
        read_driver_params(plan);
    plan->entries = malloc(VIEW_ENTRIES_MAX * sizeof *plan->entries);
    if (!plan->entries) {
        snprintf(error, error_size, "out of memory for the job's view");
        return false;
    }
    bool ok = open_program(plan, job->argv[0], error, error_size) &&
              add_libraries(plan, job, error, error_size);
    for (int i = 0; ok && job->read_paths && job->read_paths[i]; i++)
        ok = add_followed(plan, job->read_paths[i], ROLE_READ, error, error_size);
    for (int i = 0; ok && standard_devices[i]; i++)
        ok = add_entry(plan, standard_devices[i], ROLE_DEVICE, error, error_size);
    for (int i = 0; ok && job->device_paths && job->device_paths[i]; i++)
        ok = add_entry(plan, job->device_paths[i], ROLE_DEVICE, error, error_size);
    if (!ok)
        view_release(plan);
    return ok;
}

void view_release(struct view_plan *plan)
{
    for (int i = 0; plan->entries && i < plan->n_entries; i++)
        if (plan->entries[i].fd >= 0)
            close(plan->entries[i].fd);
    if (plan->program_fd >= 0)
        close(plan->program_fd);
    plan->program_fd = -1;
    free(plan->entries);
    plan->entries = NULL;
    plan->n_entries = 0;
}

/* ------------------------------------------------------------ the child */

/* mkdir -p of the folders above `path` (async-signal-safe). */
static int make_parents(const char *path)
{
    char partial[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof partial)
        return ENAMETOOLONG;
    for (size_t i = strlen(VIEW_ROOT) + 1; i < n; i++) {
        if (path[i] != '/')
            continue;
        memcpy(partial, path, i);
        partial[i] = '\0';
        if (mkdir(partial, 0755) != 0 && errno != EEXIST)
            return errno;
    }
    return 0;
}

static int make_mount_point(const struct view_entry *e)
{
    int rc = make_parents(e->target);
    if (rc != 0)
        return rc;
    if (e->kind == VIEW_SYMLINK)
        return symlink(e->link, e->target) == 0 || errno == EEXIST ? 0 : errno;
    if (e->kind == VIEW_DIR)
        return mkdir(e->target, 0755) == 0 || errno == EEXIST ? 0 : errno;
    /* read-only: a target two names lead to (one through "..") is already
     * a read-only bind of the file the second time */
    int fd = open(e->target, O_CREAT | O_RDONLY | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

/* "/proc/self/fd/N" (async-signal-safe). */
static void fd_path(int fd, char path[32])
{
    static const char prefix[] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    do {
        digits[n++] = (char)('0' + fd % 10);
        fd /= 10;
    } while (fd > 0 && n < 11);
    memcpy(path, prefix, sizeof prefix - 1);
    for (int i = 0; i < n; i++)
        path[sizeof prefix - 1 + (size_t)i] = digits[n - 1 - i];
    path[sizeof prefix - 1 + (size_t)n] = '\0';
}

static int bind_entry(const struct view_entry *e, int fd)
{
    char source[32];
    if (e->kind == VIEW_SYMLINK)
        return 0;
    fd_path(fd, source);
    if (mount(source, e->target, NULL, MS_BIND | MS_REC, NULL) != 0)
        return errno;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | e->keep_flags;
    if (e->kind != VIEW_DEVICE)
        flags |= MS_RDONLY | MS_NODEV;
    return mount(NULL, e->target, NULL, flags, NULL) == 0 ? 0 : errno;
}

/* Moves into the new root and drops the host's (runc's pivot_root(".", ".")). */
static int pivot(void)
{
    int old_root = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    int new_root = open(VIEW_ROOT, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    int rc = 0;
    if (old_root < 0 || new_root < 0 || fchdir(new_root) != 0 ||
        syscall(SYS_pivot_root, ".", ".") != 0 || fchdir(old_root) != 0 ||
        umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        rc = errno ? errno : EINVAL;
    if (old_root >= 0)
        close(old_root);
    if (new_root >= 0)
        close(new_root);
    return rc;
}

/* The job's driver parameters, written to a file of the new root (made
 * read-only with it) and bound over the ones of its /proc. 0, or an errno
 * value (never 0 on failure: the view must not be entered half made). */
static int overlay_driver_params(const struct view_plan *plan)
{
    static const char copy[] = VIEW_ROOT "/.driver-params";
    int fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0)
        return errno ? errno : EIO;
    size_t length = strlen(plan->driver_params);
    bool written = write(fd, plan->driver_params, length) == (ssize_t)length;
    close(fd);
    if (!written)
        return errno ? errno : EIO;
    if (mount(copy, VIEW_ROOT DRIVER_PARAMS, NULL, MS_BIND, NULL) != 0 ||
        mount(NULL, VIEW_ROOT DRIVER_PARAMS, NULL,
              MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        return errno ? errno : EIO;
    return 0;
}

int view_enter(const struct view_plan *plan, const char **step, const char **path)
{
    *path = "";
    *step = "making the mounts private";
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return errno;
    int fds[VIEW_ENTRIES_MAX];
    for (int i = 0; i < plan->n_entries; i++) {
        const struct view_entry *e = &plan->entries[i];
        *step = "opening a path of the view";
        *path = e->host;
        fds[i] = e->kind == VIEW_SYMLINK ? -1 : open(e->host, O_PATH | O_CLOEXEC);
        if (e->kind != VIEW_SYMLINK && fds[i] < 0)
            return errno;
    }
    *path = "";
    *step = "mounting the new root";
    if (mount("tmpfs", VIEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0)
        return errno;
    /* /tmp first: a path of the view may live under it (a checkout in /tmp) */
    *step = "mounting /tmp";
    if (mkdir(VIEW_ROOT "/tmp", 01777) != 0 ||
        mount("tmpfs", VIEW_ROOT "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              plan->tmpfs_options) != 0)
        return errno;
    for (int i = 0; i < plan->n_entries; i++) {
        *step = "binding a path into the view";
        *path = plan->entries[i].host;
        int rc = make_mount_point(&plan->entries[i]);
        if (rc == 0)
            rc = bind_entry(&plan->entries[i], fds[i]);
        if (fds[i] >= 0)
            close(fds[i]);
        if (rc != 0)
            return rc;
    }
    *path = "";
    *step = "mounting the job's own /proc";
    if (plan->proc &&
        (mkdir(VIEW_ROOT "/proc", 0555) != 0 ||
         mount("proc", VIEW_ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0))
        return errno;
    *step = "laying the driver's parameters over the job's /proc";
    *path = DRIVER_PARAMS;
    int overlaid = plan->proc && plan->driver_params[0] ? overlay_driver_params(plan) : 0;
    if (overlaid != 0)
        return overlaid;
    *path = "";
    *step = "pivoting into the new root";
    int rc = pivot();
    if (rc != 0)
        return rc;
    *step = "making the root read-only";
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        return errno;
    return 0;
}
