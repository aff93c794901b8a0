/*
 * server — the kgrade program: its command line, and (with later work) the
 * HTTP service, its queue and its workers.
 *
 * The module owns the `kgrade` binary. It reads the command line of DESIGN.md
 * and runs each subcommand through the public headers of the other modules
 * (grader/, and later sandbox/ and db/); it is the only module that may use
 * them all. What it promises:
 * - every subcommand of DESIGN.md exists and has --help; one that a later
 *   part of kgrade builds says so and exits 2;
 * - unknown options, bad values and missing arguments print the usage and
 *   exit 2;
 * - exit codes are those of DESIGN.md: 0 success or passed, 1 another verdict
 *   or a failed check, 2 usage or configuration, 3 internal, 4 server
 *   unreachable or authentication refused.
 */
#ifndef KGRADE_SERVER_H
#define KGRADE_SERVER_H

/* Runs the kgrade command line and returns the exit code. */
int kgrade_main(int argc, char **argv);

#endif
