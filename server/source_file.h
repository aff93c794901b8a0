/*
 * Internal to server/: reading a source file named on the command line.
 */
#ifndef KGRADE_SERVER_SOURCE_FILE_H
#define KGRADE_SERVER_SOURCE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Larger files are refused before reading: the grader's own limit is far
 * lower, but it should be the one to say so for anything near it. */
#define SOURCE_FILE_MAX_BYTES (64u * 1024 * 1024)

struct source_file {
    char *data; /* NUL-terminated, though the text may hold NULs of its own */
    size_t size;
};

/* Reads the regular file `path`. On failure writes why to `why` and returns false. */
bool source_file_read(const char *path, struct source_file *file, char *why, size_t why_size);

void source_file_free(struct source_file *file);

/* Prints line `line` (1-based) of the file as "    4 | text", and under it
 * a caret at `column` (1-based, in characters; tabs kept so it lines up)
 * when column > 0. Prints nothing for a line the file does not have. */
void source_file_print_line(const struct source_file *file, long line, long column, FILE *out);

#endif
