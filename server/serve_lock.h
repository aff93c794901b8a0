/*
 * Internal to server/: one `kgrade serve` per data folder and per
 * database. The server holds an exclusive flock on a lock file in the data
 * folder and one beside the database for its whole life; a second server
 * finds one held and refuses to start, naming the process that holds it.
 */
#ifndef KGRADE_SERVER_SERVE_LOCK_H
#define KGRADE_SERVER_SERVE_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_LOCK_FILE   "serve.lock"  /* in the data folder */
#define SERVE_LOCK_SUFFIX "-serve.lock" /* after the database's path */
#define SERVE_LOCKS       2

/* Takes both locks, writing this process's id in each (the descriptors
 * stay open, close-on-exec, until serve_locks_release or the end of the
 * process: the kernel lets go of the lock of a process that dies, so a
 * kill -9 leaves none behind). False with a sentence in `error`: "the
 * data folder var/ is in use by kgrade serve, process 1234; stop it
 * first". */
bool serve_locks_take(const char *data, const char *db_path, int fds[SERVE_LOCKS], char *error,
                      size_t size);
void serve_locks_release(int fds[SERVE_LOCKS]);

#endif
