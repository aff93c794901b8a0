/*
 * Internal to grader/: the kernel's printf output, caught from the
 * process's standard output (see output_capture.c).
 */
#ifndef KGRADE_GRADER_OUTPUT_CAPTURE_H
#define KGRADE_GRADER_OUTPUT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

/* What the grade JSON's "output" keeps of the student's printf output. */
#define OUTPUT_CAPTURE_MAX 16384

struct output_capture {
    int saved_fd; /* the real standard output while capturing; -1 otherwise */
    int file_fd;  /* an anonymous file that receives it */
    char text[OUTPUT_CAPTURE_MAX];
    size_t used;
    bool truncated; /* more was printed than `text` keeps */
};

/* Empty, not capturing. */
void output_capture_init(struct output_capture *c);

/* From now on, what is written to file descriptor 1 (a kernel's printf,
 * flushed by the driver at synchronization) goes to the capture. Returns
 * false, leaving standard output alone, when no file could be made. */
bool output_capture_begin(struct output_capture *c);

/* Restores standard output and appends what was written since _begin to
 * `text`, keeping the first OUTPUT_CAPTURE_MAX bytes. */
void output_capture_end(struct output_capture *c);

/* The text as valid UTF-8 with a note when it was cut; the caller frees it.
 * NULL when out of memory. */
char *output_capture_text(const struct output_capture *c);

/* Closes the file. */
void output_capture_release(struct output_capture *c);

#endif
