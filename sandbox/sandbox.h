/*
 * sandbox — runs one command isolated, limited and killable, and reports how
 * it ended.
 *
 * Every compile and run of a student's kernel is hostile until proven
 * otherwise. What the module promises (DESIGN.md, and the sandbox work that
 * builds it):
 * - a fresh process started with exec (no memory, descriptors or environment
 *   inherited), with the job on one pipe and progress and verdict on another;
 * - namespaces where the kernel allows them, a read-only minimal view of the
 *   filesystem, Landlock, no_new_privs and a seccomp allowlist;
 * - limits on wall-clock and CPU time, memory, file size, processes and
 *   output, each named in the outcome when it ends the job;
 * - an outcome classified so that the grader's faults are never a student's
 *   verdict.
 * It uses libseccomp, Landlock and namespaces; never the grader's internals,
 * the database or the server.
 *
 * Nothing is declared yet: the sandbox is not built.
 */
#ifndef KGRADE_SANDBOX_H
#define KGRADE_SANDBOX_H

#endif
