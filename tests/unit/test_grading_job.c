/*
 * Unit tests of server/grading_job.c's sandboxed commands: a command runs
 * with exactly the device nodes it names, and none when it names none. A
 * grading worker names the real GPU's nodes (a GPU server's /dev/nvidia*),
 * the Numba front end, which only compiles a student's Python, none: on a
 * GPU server it must not see the GPU, nor get the relaxed rules its
 * driver needs. Here /dev/full (a character device no job gets by
 * default) stands for a GPU's node; tests/sandbox/job reads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/grading_job.h"
#include "test_job_path.h"

#include <limits.h>
#include <stdio.h>

#define DEVICE "/dev/full"

static char job_path[PATH_MAX];

/* What tests/sandbox/job says reading DEVICE in the sandbox, given
 * `devices`, written to `said`. */
static void read_device(const char *const *devices, char *said, size_t size)
{
    const char *argv[] = {job_path, "read", DEVICE, NULL}, *env[] = {NULL};
    struct job_command command = {.argv = argv, .env = env, .devices = devices};
    struct grading_job job = {0};
    struct sandbox_limits limits;
    sandbox_default_limits(&limits);
    limits.wall_seconds = 20;
    limits.cpu_seconds = 20;
    limits.memory_bytes = 256ull << 20;
    struct sandbox_outcome o;
    grading_job_sandbox(&job, &command, &limits, "", 0, NULL, NULL, &o);
    snprintf(said, size, "%s", o.output ? o.output : "");
    sandbox_outcome_free(&o);
}

static void a_command_naming_no_devices_sees_none(void **state)
{
    (void)state;
    char said[256];
    read_device(NULL, said, sizeof said);
    assert_string_equal(said, "read failed: 2\n"); /* ENOENT: not in its view */
}

static void a_command_sees_the_devices_it_names(void **state)
{
    (void)state;
    const char *devices[] = {DEVICE, NULL};
    char said[256];
    read_device(devices, said, sizeof said);
    assert_string_equal(said, "read ok\n");
}

int main(int argc, char **argv)
{
    (void)argc;
    char here[PATH_MAX];
    if (!test_job_path(argv[0], here, job_path))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_command_naming_no_devices_sees_none),
        cmocka_unit_test(a_command_sees_the_devices_it_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
