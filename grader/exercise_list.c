/*
 * The exercises of a folder, for `kgrade exercises` and the service: every
 * subfolder with an exercise.json, loaded and validated, sorted by id, each
 * with the languages it takes and its kernels' forms in each (the C
 * signature; the Numba form and the signature numba compiles it for). A
 * broken exercise is listed with its error rather than hidden, so whoever
 * maintains the folder sees it.
 */
#include "exercise.h"
#include "grader.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXERCISES_MAX 1024

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The host form, when the exercise declares one: {function, form:
 * "create_hidden_layer(n, greyscales, ...)", returns}; else null. */
static json_t *host_form(const struct exercise *e)
{
    char form[EXERCISE_HOST_FORM_MAX];
    if (!exercise_numba_host_form(e, form, sizeof form))
        return json_null();
    return json_pack("{s:s, s:s, s:s}", "function", e->numba_host.function, "form", form, "returns",
                     e->numba_host.returns);
}

/* The kernels' forms in each language: {"cuda": [{kernel, signature}],
 * "numba": [{kernel, name, form, signature}], "numba_host": the host form
 * or null}, the Numba list holding the kernels that have a Numba form. A
 * Numba module defines either the kernels or the host form's function. */
static json_t *forms(const struct exercise *e)
{
    json_t *cuda = json_array(), *numba = json_array();
    for (int k = 0; k < e->n_kernels; k++) {
        const struct exercise_kernel *kernel = &e->kernels[k];
        char form[EXERCISE_TEXT_MAX * 2], signature[EXERCISE_TEXT_MAX * 2];
        json_array_append_new(
            cuda, json_pack("{s:s, s:s}", "kernel", kernel->name, "signature", kernel->signature));
        if (kernel->has_numba && exercise_numba_form(e, k, form, sizeof form) &&
            exercise_numba_signature(e, k, signature, sizeof signature))
            json_array_append_new(numba, json_pack("{s:s, s:s, s:s, s:s}", "kernel", kernel->name,
                                                   "name", kernel->numba.name, "form", form,
                                                   "signature", signature));
    }
    return json_pack("{s:o, s:o, s:o}", "cuda", cuda, "numba", numba, "numba_host", host_form(e));
}

/* The languages the exercise takes submissions in: CUDA C always, Numba
 * when every kernel has a Numba form (the grader needs one to run it). */
static json_t *languages(const struct exercise *e)
{
    bool numba = e->n_kernels > 0;
    for (int k = 0; k < e->n_kernels; k++)
        numba = numba && e->kernels[k].has_numba;
    json_t *list = json_pack("[s]", grader_language_name(GRADER_LANGUAGE_CUDA));
    if (numba)
        json_array_append_new(list, json_string(grader_language_name(GRADER_LANGUAGE_NUMBA)));
    return list;
}

static json_t *describe(const struct exercise *e)
{
    json_t *sizes = json_object(), *kernels = json_array(), *trial = json_object();
    for (int i = 0; i < e->n_sizes; i++)
        json_object_set_new(sizes, e->sizes[i], json_integer(e->assessed.values[i]));
    /* a trial's: the largest correctness case's (the last) */
    for (int i = 0; i < e->n_sizes && e->n_cases > 0; i++)
        json_object_set_new(trial, e->sizes[i], json_integer(e->cases[e->n_cases - 1].values[i]));
    for (int k = 0; k < e->n_kernels; k++)
        json_array_append_new(kernels, json_string(e->kernels[k].name));
    json_t *d = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:f, s:o, s:o}", "id", e->id,
                          "title", e->title, "course", e->course, "assessment", e->assessment,
                          "sizes", sizes, "trial_sizes", trial, "kernels", kernels, "max_ratio",
                          e->max_ratio, "languages", languages(e), "forms", forms(e));
    grader_dates_set(d, &e->dates); /* the file's own: the server adds its course's and overrides */
    return d;
}

/* The subfolders holding an exercise.json, sorted. */
static int exercise_folders(const char *folder, char **names)
{
    DIR *d = opendir(folder);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) && n < EXERCISES_MAX) {
        char path[4096];
        struct stat st;
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/exercise.json", folder, entry->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (names[n] = strdup(entry->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, compare_names);
    return n;
}

json_t *grader_exercises(const char *folder, char *error, size_t error_size)
{
    char **names = calloc(EXERCISES_MAX, sizeof *names);
    struct exercise *e = malloc(sizeof *e);
    int n = names && e ? exercise_folders(folder, names) : -1;
    json_t *list = n >= 0 ? json_array() : NULL;
    if (n < 0)
        snprintf(error, error_size, "cannot read the exercise folder '%s'", folder);
    for (int i = 0; i < n; i++) {
        char path[4096], why[512];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        json_array_append_new(list, exercise_load(path, e, why, sizeof why)
                                        ? describe(e)
                                        : json_pack("{s:s, s:s}", "id", names[i], "error", why));
        free(names[i]);
    }
    free(names);
    free(e);
    return list;
}

bool grader_exercise_limits(const char *exercises, const char *id, struct grader_limits *limits,
                            char *error, size_t error_size)
{
    char folder[1200];
    struct exercise *e = malloc(sizeof *e);
    snprintf(folder, sizeof folder, "%s/%s", exercises, id);
    bool ok = e && exercise_load(folder, e, error, error_size);
    memset(limits, 0, sizeof *limits);
    if (ok) {
        limits->compile_seconds = e->limits.compile_seconds;
        limits->run_seconds = e->limits.run_seconds;
        limits->memory_bytes = (uint64_t)(e->limits.memory_mb * 1024 * 1024);
    }
    free(e);
    return ok;
}
