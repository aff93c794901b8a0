/*
 * An exercise's files, read on the trusted side (grader.h,
 * grader_exercise_read): its definition (exercise.json), its reference
 * source (reference.cu), where Numba submissions are compared like with
 * like, its Numba reference (reference.py), and where it declares a host
 * form ("numba_host"), the host form's reference (reference_host.py), with
 * their version, a hash of them all.
 *
 * This is the only place the grader reads an exercise's files for a
 * grading. The job that compiles and runs a student's source never sees
 * the exercise folder: it is handed the definition and the reference's
 * PTX instead (DESIGN.md, "The exercise folder is secret to the student's
 * code").
 */
#include "exercise.h"
#include "grader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFINITION_FILE "exercise.json"
#define REFERENCE_FILE  "reference.cu"
#define NUMBA_REFERENCE "reference.py"
#define HOST_REFERENCE  "reference_host.py"
#define FNV_OFFSET      0xcbf29ce484222325ull
#define FNV_PRIME       0x100000001b3ull

char *exercise_file_read(const char *path, size_t max, size_t *size, char *error, size_t error_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(error, error_size, "%s: cannot be read (%s)", path, strerror(errno));
        return NULL;
    }
    char *text = malloc(max + 1);
    size_t n = text ? fread(text, 1, max + 1, f) : 0;
    fclose(f);
    if (!text || n > max) {
        snprintf(error, error_size, text ? "%s: larger than %zu bytes" : "%s: out of memory", path,
                 max);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *size = n;
    return text;
}

static uint64_t fnv(uint64_t h, const char *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        h = (h ^ (unsigned char)data[i]) * FNV_PRIME;
    return h;
}

/* An id names a folder inside the exercise folder, never a path. */
static bool id_acceptable(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n >= EXERCISE_NAME_MAX || id[0] == '.')
        return false;
    return strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

/* <exercises>/<id>/<file> into `*text`: required, or (`required` false)
 * only when it exists. False with a sentence. */
static bool read_part(const char *exercises, const char *id, const char *file, bool required,
                      char **text, size_t *size, char *error, size_t error_size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/%s", exercises, id, file);
    if (!required && access(path, F_OK) != 0)
        return true;
    *text = exercise_file_read(path, EXERCISE_REFERENCE_MAX, size, error, error_size);
    return *text != NULL;
}

/* Whether exercise.json declares a host form (its validity is
 * exercise_parse's to judge). */
static bool declares_host_form(const struct grader_exercise_files *files)
{
    json_t *root = json_loadb(files->definition, files->definition_size, 0, NULL);
    bool declared = json_object_get(root, "numba_host") != NULL;
    json_decref(root);
    return declared;
}

bool grader_exercise_read(const char *exercises, const char *id,
                          struct grader_exercise_files *files, char *error, size_t error_size)
{
    memset(files, 0, sizeof *files);
    if (!id_acceptable(id)) {
        snprintf(error, error_size,
                 "'%.64s' is not an exercise id (lowercase letters, digits, '-')", id);
        return false;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/%s", exercises, id, DEFINITION_FILE);
    files->definition = exercise_file_read(path, EXERCISE_DEFINITION_MAX, &files->definition_size,
                                           error, error_size);
    bool ok = files->definition &&
              read_part(exercises, id, REFERENCE_FILE, true, &files->reference,
                        &files->reference_size, error, error_size) &&
              read_part(exercises, id, NUMBA_REFERENCE, false, &files->numba_reference,
                        &files->numba_reference_size, error, error_size) &&
              (!declares_host_form(files) ||
               read_part(exercises, id, HOST_REFERENCE, true, &files->host_reference,
                         &files->host_reference_size, error, error_size));
    if (!ok) {
        grader_exercise_files_free(files);
        return false;
    }
    uint64_t h = fnv(FNV_OFFSET, files->definition, files->definition_size);
    h = fnv(h, files->reference, files->reference_size);
    if (files->numba_reference)
        h = fnv(h, files->numba_reference, files->numba_reference_size);
    if (files->host_reference)
        h = fnv(h, files->host_reference, files->host_reference_size);
    snprintf(files->version, sizeof files->version, "%016" PRIx64, h);
    return true;
}

void grader_exercise_files_free(struct grader_exercise_files *files)
{
    free(files->definition);
    free(files->reference);
    free(files->numba_reference);
    free(files->host_reference);
    memset(files, 0, sizeof *files);
}
