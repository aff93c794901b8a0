/*
 * Where the sandbox's test job (tests/sandbox/job, built at
 * build/tests/sandbox/job) is, for the unit tests that run it: beside this
 * test program's folder (build/tests/unit/test_X) or, for the sanitized
 * build (build/asan/tests/unit/test_X), the plain build's.
 */
#ifndef KGRADE_TESTS_UNIT_TEST_JOB_PATH_H
#define KGRADE_TESTS_UNIT_TEST_JOB_PATH_H

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Fills `here` with this program's folder and `job` with the test job's
 * real path; false (said on stderr) when the job is not built. */
static inline bool test_job_path(const char *program, char here[PATH_MAX], char job[PATH_MAX])
{
    char self[PATH_MAX], guess[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    snprintf(here, PATH_MAX, "%s", dirname(self));
    snprintf(guess, sizeof guess, "%.3000s/../sandbox/job", here);
    if (access(guess, X_OK) != 0)
        snprintf(guess, sizeof guess, "%.3000s/../../../tests/sandbox/job", here);
    if (!realpath(guess, job)) {
        fprintf(stderr, "%s: the test job is not built (%s)\n", program, guess);
        return false;
    }
    return true;
}

#endif
