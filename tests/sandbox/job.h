/*
 * What the sandbox's test job (tests/sandbox/job.c) and its tests
 * (tests/unit/test_sandbox.c) agree on about the memfds they share.
 */
#ifndef KGRADE_TESTS_SANDBOX_JOB_H
#define KGRADE_TESTS_SANDBOX_JOB_H

/* The size of every memfd the job maps. */
#define MEMFD_BYTES 4096
/* What the job writes into the result memfd it maps shared. */
#define RESULT_TEXT "written by the job"

#endif
