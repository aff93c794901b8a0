/*
 * One server per data folder and per database (serve_lock.h): an flock
 * (LOCK_EX | LOCK_NB) on <data>/serve.lock and on <db>-serve.lock, each
 * holding the holder's process id for the refusal to name. An flock
 * belongs to the open file, not to the path or a pid file's content, so
 * it is never stale: the kernel releases it when the server dies, however
 * it dies.
 */
#include "serve_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define PID_TEXT_MAX 32

/* The process id written in a lock file; 0 when there is none yet. */
static long holder_of(int fd)
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

static void say_refused(int fd, int error_number, const char *path, const char *what, char *error,
                        size_t size)
{
    long pid = holder_of(fd);
    if (error_number != EWOULDBLOCK)
        snprintf(error, size, "the lock file %s cannot be locked: %s", path,
                 strerror(error_number));
    else if (pid > 0)
        snprintf(error, size, "%s is in use by kgrade serve, process %ld; stop it first", what,
                 pid);
    else
        snprintf(error, size, "%s is in use by another kgrade serve; stop it first", what);
}

/* The lock file `path`, taken: its descriptor, or -1 with a sentence. */
static int take(const char *path, const char *what, char *error, size_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(error, size, "the lock file %s cannot be made: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        say_refused(fd, errno, path, what, error, size);
        close(fd);
        return -1;
    }
    if (!write_pid(fd)) {
        snprintf(error, size, "the lock file %s cannot be written: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

bool serve_locks_take(const char *data, const char *db_path, int fds[SERVE_LOCKS], char *error,
                      size_t size)
{
    char path[PATH_MAX], what[PATH_MAX];
    size_t n = strlen(data);
    snprintf(path, sizeof path, "%s/%s", data, SERVE_LOCK_FILE);
    snprintf(what, sizeof what, "the data folder %s%s", data,
             n > 0 && data[n - 1] == '/' ? "" : "/");
    fds[0] = take(path, what, error, size);
    snprintf(path, sizeof path, "%s%s", db_path, SERVE_LOCK_SUFFIX);
    snprintf(what, sizeof what, "the database %s", db_path);
    fds[1] = fds[0] >= 0 ? take(path, what, error, size) : -1;
    if (fds[1] < 0)
        serve_locks_release(fds);
    return fds[1] >= 0;
}

void serve_locks_release(int fds[SERVE_LOCKS])
{
    for (int i = 0; i < SERVE_LOCKS; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
        fds[i] = -1;
    }
}
