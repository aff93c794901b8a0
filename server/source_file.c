/*
 * Reading a source file named on the command line, whole, with a cap.
 *
 * The grader decides whether a source is acceptable (size, NUL bytes, UTF-8)
 * and says so as a verdict; this file only refuses what is not a readable
 * regular file of sane size, so that `kgrade compile /dev/zero` ends at once.
 */
#include "source_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool read_all(int fd, char *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += (size_t)n;
    }
    return true;
}

bool source_file_read(const char *path, struct source_file *file, char *why, size_t why_size)
{
    memset(file, 0, sizeof *file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_size, "cannot read '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    bool ok = false;
    if (!S_ISREG(st.st_mode))
        snprintf(why, why_size, "'%s' is not a regular file", path);
    else if ((uint64_t)st.st_size > SOURCE_FILE_MAX_BYTES)
        snprintf(why, why_size, "'%s' is %lld bytes; a kernel source is at most a few kilobytes",
                 path, (long long)st.st_size);
    else if (!(file->data = malloc((size_t)st.st_size + 1)))
        snprintf(why, why_size, "out of memory reading '%s'", path);
    else if (!read_all(fd, file->data, (size_t)st.st_size))
        snprintf(why, why_size, "cannot read '%s': %s", path,
                 errno ? strerror(errno) : "it changed while being read");
    else
        ok = true;
    close(fd);
    if (!ok) {
        source_file_free(file);
        return false;
    }
    file->size = (size_t)st.st_size;
    file->data[file->size] = '\0';
    return true;
}

void source_file_free(struct source_file *file)
{
    free(file->data);
    file->data = NULL;
    file->size = 0;
}

/* The start of line `line` (1-based) and its length, or NULL. */
static const char *find_line(const struct source_file *file, long line, size_t *length)
{
    const char *p = file->data, *end = file->data + file->size;
    for (long n = 1; n < line && p < end; n++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (line < 1 || p >= end)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *length = (size_t)((nl ? nl : end) - p);
    if (*length > 0 && p[*length - 1] == '\r')
        (*length)--;
    return p;
}

void source_file_print_line(const struct source_file *file, long line, long column, FILE *out)
{
    enum { SHOWN_MAX = 200 };
    size_t length;
    const char *text = find_line(file, line, &length);
    if (!text)
        return;
    int shown = length > SHOWN_MAX ? SHOWN_MAX : (int)length;
    fprintf(out, "  %5ld | %.*s\n", line, shown, text);
    if (column <= 0)
        return;
    fputs("        | ", out);
    long characters = 0;
    for (int i = 0; i < shown && characters < column - 1; i++) {
        if (((unsigned char)text[i] & 0xC0) == 0x80)
            continue; /* a UTF-8 continuation byte: same character */
        fputc(text[i] == '\t' ? '\t' : ' ', out);
        characters++;
    }
    fputs("^\n", out);
}
