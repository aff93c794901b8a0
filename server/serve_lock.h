/*
 * Internal to server/: one `kgrade serve` per data folder and per
 * database. The server holds an exclusive flock on a lock file in the data
 * folder and one on the database file itself for its whole life; a second
 * server finds one held and refuses to start, naming the process that
 * holds it. The database's lock belongs to the file, not to a path: a hard
 * link, a symlink or a bind mount of a served database is refused too.
 */
#ifndef KGRADE_SERVER_SERVE_LOCK_H
#define KGRADE_SERVER_SERVE_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_LOCK_FILE "serve.lock" /* in the data folder; holds the server's process id */
#define SERVE_LOCKS     2            /* the data folder's, the database's */

/* Takes both locks (the data folder's lock file is made, and the
 * database file too when it does not exist yet, 0600, empty: SQLite
 * takes an empty file for a new database). The descriptors stay open,
 * close-on-exec, until serve_locks_release or the end of the process:
 * the kernel lets go of the locks of a process that dies, so a kill -9
 * leaves none behind. False with a sentence in `error`: "the database
 * var/kgrade.db is in use by kgrade serve, process 1234 (...); stop it
 * first". A database that is no file of its own (":memory:", a "file:"
 * URI) is refused: a lock could not follow it. */
bool serve_locks_take(const char *data, const char *db_path, int fds[SERVE_LOCKS], char *error,
                      size_t size);
/* Lets go of both locks. Only once no SQLite connection of this process
 * has the database open: closing any descriptor of the database file
 * drops every POSIX lock this process holds on it, SQLite's included. */
void serve_locks_release(int fds[SERVE_LOCKS]);

#endif
