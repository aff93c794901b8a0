/*
 * For the unit tests that use a database file of their own: removing it
 * with the -wal and -shm files SQLite's WAL mode leaves beside it.
 */
#ifndef KGRADE_TESTS_TEMP_DB_H
#define KGRADE_TESTS_TEMP_DB_H

#include <stdio.h>
#include <unistd.h>

static inline void temp_db_remove(const char *path)
{
    char beside[256];
    unlink(path);
    snprintf(beside, sizeof beside, "%s-wal", path);
    unlink(beside);
    snprintf(beside, sizeof beside, "%s-shm", path);
    unlink(beside);
}

#endif
