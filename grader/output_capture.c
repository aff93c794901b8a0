/*
 * The kernel's printf output, for the grade JSON's "output".
 *
 * On a GPU the driver copies the device's printf buffer to the process's
 * standard output at synchronization points; the virtual GPU does the
 * same. Either way it arrives on file descriptor 1, where it would mix with
 * kgrade's own output (and break --json). So while the student's kernels
 * run, descriptor 1 points at an anonymous in-memory file (memfd), and
 * afterwards the first OUTPUT_CAPTURE_MAX bytes are kept. The driver bounds
 * each launch's output (CU_LIMIT_PRINTF_FIFO_SIZE, 1 MB by default), so the
 * file stays small; it is emptied after every capture.
 */
#include "output_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "utf8.h"

void output_capture_init(struct output_capture *c)
{
    memset(c, 0, sizeof *c);
    c->saved_fd = -1;
    c->file_fd = -1;
}

bool output_capture_begin(struct output_capture *c)
{
    if (c->file_fd < 0)
        c->file_fd = memfd_create("kgrade-kernel-output", MFD_CLOEXEC);
    if (c->file_fd < 0)
        return false;
    fflush(stdout);
    c->saved_fd = dup(STDOUT_FILENO);
    if (c->saved_fd < 0)
        return false;
    if (dup2(c->file_fd, STDOUT_FILENO) < 0) {
        close(c->saved_fd);
        c->saved_fd = -1;
        return false;
    }
    return true;
}

/* Appends the file's contents to `text` (as much as fits), then empties it. */
static void collect(struct output_capture *c)
{
    char chunk[4096];
    off_t at = 0;
    ssize_t got;
    while ((got = pread(c->file_fd, chunk, sizeof chunk, at)) > 0) {
        size_t room = sizeof c->text - c->used;
        size_t keep = (size_t)got < room ? (size_t)got : room;
        memcpy(c->text + c->used, chunk, keep);
        c->used += keep;
        c->truncated |= keep < (size_t)got;
        at += got;
    }
    if (ftruncate(c->file_fd, 0) != 0)
        c->truncated = true; /* it would be read again: better lose it */
    lseek(c->file_fd, 0, SEEK_SET);
}

void output_capture_end(struct output_capture *c)
{
    if (c->saved_fd < 0)
        return;
    fflush(stdout);
    dup2(c->saved_fd, STDOUT_FILENO);
    close(c->saved_fd);
    c->saved_fd = -1;
    collect(c);
}

char *output_capture_text(const struct output_capture *c)
{
    static const char note[] = "\n[kgrade: output truncated]\n";
    char *text = utf8_sanitize(c->text, c->used);
    if (text == NULL || !c->truncated)
        return text;
    size_t n = strlen(text);
    char *longer = realloc(text, n + sizeof note);
    if (longer == NULL) {
        free(text);
        return NULL;
    }
    memcpy(longer + n, note, sizeof note);
    return longer;
}

void output_capture_release(struct output_capture *c)
{
    output_capture_end(c);
    if (c->file_fd >= 0)
        close(c->file_fd);
    c->file_fd = -1;
}
