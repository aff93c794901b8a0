/*
 * Unit tests of server/numba_job.c's front-end job on a thread of its own
 * (numba_job_start, numba_job_finish), with the real front end
 * (build/numba_compile.py, Debian's python3 and numba) in the sandbox: a
 * job started for the architecture the reference most likely has gives
 * its PTX when the reference has that one, and is run again for the
 * reference's own when it has another (a T4's sm_75: the PTX's .target
 * says which); a job whose reference could not be built is dropped.
 * Skipped, saying so, when python3 has no numba or the front end is not
 * built.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/grading_job.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXERCISE "vector-add"
#define SOLUTION "solutions/passed__grid_index.py"

static char kgrade_path[PATH_MAX]; /* the front end is installed beside it */
static char *definition, *source;

/* The whole file at `path` (NUL-terminated), or NULL. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = f ? calloc(1, 1 << 20) : NULL;
    if (text)
        fread(text, 1, (1 << 20) - 1, f);
    if (f)
        fclose(f);
    return text;
}

/* build/kgrade beside the front end, and the repository's exercise, from
 * this program's folder (build/tests/unit or build/asan/tests/unit). */
static bool find_files(void)
{
    char self[PATH_MAX], guess[PATH_MAX], path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    const char *here = dirname(self);
    for (int up = 2; up <= 3 && !definition; up++) {
        snprintf(guess, sizeof guess, "%.3000s/%s", here, up == 2 ? "../.." : "../../..");
        snprintf(path, sizeof path, "%.3000s/numba_compile.py", guess);
        if (access(path, R_OK) != 0 || !realpath(guess, path))
            continue;
        snprintf(kgrade_path, sizeof kgrade_path, "%.4000s/kgrade", path);
        snprintf(guess, sizeof guess, "%.3000s/../exercises/" EXERCISE "/exercise.json", path);
        definition = read_file(guess);
        snprintf(guess, sizeof guess, "%.3000s/../exercises/" EXERCISE "/" SOLUTION, path);
        source = read_file(guess);
    }
    return definition && source;
}

/* The front end's PTX of the exercise's kernel for a job started for
 * sm_90 and finished for a reference of `arch` (NULL: no reference). */
static char *front_end_ptx(const char *arch)
{
    struct grader_request request = {
        .definition = definition,
        .definition_size = strlen(definition),
        .source = source,
        .size = strlen(source),
        .file_name = "kernel.py",
        .language = GRADER_LANGUAGE_NUMBA,
    };
    struct grading_job job;
    grading_job_here(&job, &request);
    json_t *guess = json_pack("{s:s}", "arch", "sm_90");
    json_t *reference = arch ? json_pack("{s:s}", "arch", arch) : NULL;
    struct numba_job_thread t;
    numba_job_start(&t, &job, JOB_WORK_STUDENT_COMPILE, &request, guess, kgrade_path);
    json_decref(guess); /* the thread holds its own copy */
    char error[GRADER_MESSAGE_MAX] = "";
    json_t *result = numba_job_finish(&t, reference, error, sizeof error);
    json_decref(reference);
    const char *key;
    json_t *text, *ptx = json_object_get(result, "ptx");
    char *found = NULL;
    json_object_foreach(ptx, key, text) found = strdup(json_string_value(text));
    if (arch && !found)
        fprintf(stderr, "the front end gave no PTX: %s\n", error);
    json_decref(result);
    return found;
}

static void a_job_for_the_references_architecture_gives_its_ptx(void **state)
{
    (void)state;
    char *ptx = front_end_ptx("sm_90");
    assert_non_null(ptx);
    assert_non_null(strstr(ptx, ".target sm_90"));
    free(ptx);
}

static void a_job_for_another_architecture_runs_again_for_the_references(void **state)
{
    (void)state;
    char *ptx = front_end_ptx("sm_75");
    assert_non_null(ptx);
    assert_non_null(strstr(ptx, ".target sm_75"));
    assert_null(strstr(ptx, ".target sm_90"));
    free(ptx);
}

static void a_job_whose_reference_failed_is_dropped(void **state)
{
    (void)state;
    assert_null(front_end_ptx(NULL));
}

int main(void)
{
    if (!find_files() || system("/usr/bin/python3 -c 'import numba' >/dev/null 2>&1") != 0) {
        printf("test_numba_job: skipped: no front end beside build/kgrade, no exercise, or "
               "/usr/bin/python3 has no numba\n");
        free(definition);
        free(source);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_job_for_the_references_architecture_gives_its_ptx),
        cmocka_unit_test(a_job_for_another_architecture_runs_again_for_the_references),
        cmocka_unit_test(a_job_whose_reference_failed_is_dropped),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(definition);
    free(source);
    return failed;
}
