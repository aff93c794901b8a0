/*
 * One server per data folder and per database (serve_lock.h): an flock
 * (LOCK_EX | LOCK_NB) on <data>/serve.lock, which holds the holder's
 * process id for people to read, and one on the database file itself. An
 * flock belongs to the open file, not to a path or a pid file's content,
 * so it is never stale: the kernel releases it when the server dies,
 * however it dies. A refusal names the holder from /proc/locks, where the
 * kernel lists each flock with its process and its file's device and
 * inode.
 *
 * Why the database file itself. What must not be served twice is the
 * file (its device and inode), and a path does not name it: a hard link
 * is another name of the same inode in any folder (and any data folder),
 * a symlink or a bind mount another way to it, and realpath() resolves
 * symlinks but neither hard links nor bind mounts. A lock file named
 * after the inode (st_dev and st_ino) would need a folder that every path
 * to the database agrees on, and there is none: not the data folder (each
 * server has its own), not the database's folder (a hard link lives in
 * another); a system-wide one (/run, /tmp) needs root or lets anyone
 * squat the name first. The inode itself is the one thing every path
 * reaches, and Linux keeps an flock on the inode: through any link,
 * symlink or bind mount, a second flock on it is refused.
 *
 * Why flock, beside SQLite. SQLite locks the database with POSIX fcntl
 * locks. On a local filesystem flock locks live apart from fcntl locks
 * and never conflict with them, so SQLite's locking (this server's
 * connections, and `kgrade user add` and the other commands that open
 * the database while it runs) goes on as if this lock were not there.
 * An OFD lock on a byte range SQLite never uses would also work, but it
 * shares SQLite's lock table, where one wrong offset blocks SQLite.
 * (On NFS Linux emulates flock with fcntl locks; SQLite's WAL mode needs
 * shared memory and does not work there anyway: the data belong on a
 * local disk.) One rule remains: closing any descriptor of a file drops
 * every fcntl lock its process holds on it, so the descriptor of this
 * lock is closed only once SQLite has closed the database
 * (serve_locks_release), or by the end of the process.
 */
#include "serve_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PID_TEXT_MAX 32
#define PROC_LOCKS   "/proc/locks"

/* The process id written in a lock file; 0 when there is none yet. */
static long pid_in(int fd)
{
    char text[PID_TEXT_MAX] = {0};
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    long pid = n > 0 ? strtol(text, NULL, 10) : 0;
    return pid > 0 ? pid : 0;
}

static bool write_pid(int fd)
{
    char text[PID_TEXT_MAX];
    int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    return ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == n;
}

/* The process holding an flock on the file `fd` is open on, from a line
 * of /proc/locks ("1: FLOCK  ADVISORY  WRITE 1234 fe:00:10953043 0 EOF",
 * the device's major and minor in hex); 0 when none is listed (a waiter's
 * line, "1: -> FLOCK ...", does not parse). */
static long flock_holder(int fd)
{
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 ? fopen(PROC_LOCKS, "re") : NULL;
    char line[256];
    long pid = 0, found = 0;
    unsigned dev_major, dev_minor;
    unsigned long inode;
    while (f && !found && fgets(line, sizeof line, f))
        if (sscanf(line, "%*d: FLOCK ADVISORY WRITE %ld %x:%x:%lu", &pid, &dev_major, &dev_minor,
                   &inode) == 4 &&
            dev_major == major(st.st_dev) && dev_minor == minor(st.st_dev) && inode == st.st_ino)
            found = pid > 0 ? pid : 0;
    if (f)
        fclose(f);
    return found;
}

/* What to lock: a lock file (made, and the process id written in it) or
 * the database file (opened for reading, made empty when missing, never
 * written). */
struct lock_target {
    const char *path;
    const char *what; /* "the data folder var/" */
    bool pid_file;
};

static void say_refused(int fd, const struct lock_target *t, char *error, size_t size)
{
    long pid = flock_holder(fd);
    if (pid == 0 && t->pid_file)
        pid = pid_in(fd);
    const char *same_file =
        t->pid_file ? "" : " (the same file, whatever path or link leads to it)";
    if (pid > 0)
        snprintf(error, size, "%s is in use by kgrade serve, process %ld%s; stop it first", t->what,
                 pid, same_file);
    else
        snprintf(error, size, "%s is in use by another kgrade serve%s; stop it first", t->what,
                 same_file);
}

/* The file of `t`, locked: its descriptor, or -1 with a sentence. */
static int take(const struct lock_target *t, char *error, size_t size)
{
    int flags = (t->pid_file ? O_RDWR : O_RDONLY) | O_CREAT | O_CLOEXEC | O_NOCTTY;
    int fd = open(t->path, flags, 0600);
    if (fd < 0) {
        snprintf(error, size, "%s%s cannot be opened: %s", t->pid_file ? "the lock file " : "",
                 t->pid_file ? t->path : t->what, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            say_refused(fd, t, error, size);
        else
            snprintf(error, size, "%s cannot be locked (%s): %s", t->what, t->path,
                     strerror(errno));
        close(fd);
        return -1;
    }
    if (t->pid_file && !write_pid(fd)) {
        snprintf(error, size, "the lock file %s cannot be written: %s", t->path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether SQLite would open `db_path` as a file of that name. */
static bool names_a_file(const char *db_path, char *error, size_t size)
{
    if (strcmp(db_path, ":memory:") != 0 && strncmp(db_path, "file:", 5) != 0)
        return true;
    snprintf(error, size,
             "--db %s: the service's database must be a file's path (not :memory: nor a file: "
             "URI), so that one server alone holds it",
             db_path);
    return false;
}

bool serve_locks_take(const char *data, const char *db_path, int fds[SERVE_LOCKS], char *error,
                      size_t size)
{
    char path[PATH_MAX], folder[PATH_MAX], database[PATH_MAX];
    size_t n = strlen(data);
    snprintf(path, sizeof path, "%s/%s", data, SERVE_LOCK_FILE);
    snprintf(folder, sizeof folder, "the data folder %s%s", data,
             n > 0 && data[n - 1] == '/' ? "" : "/");
    snprintf(database, sizeof database, "the database %s", db_path);
    const struct lock_target folder_lock = {path, folder, true},
                             db_lock = {db_path, database, false};
    fds[0] = fds[1] = -1;
    if (!names_a_file(db_path, error, size) || (fds[0] = take(&folder_lock, error, size)) < 0 ||
        (fds[1] = take(&db_lock, error, size)) < 0) {
        serve_locks_release(fds);
        return false;
    }
    return true;
}

void serve_locks_release(int fds[SERVE_LOCKS])
{
    for (int i = 0; i < SERVE_LOCKS; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
        fds[i] = -1;
    }
}
