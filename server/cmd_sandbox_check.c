/*
 * kgrade sandbox-check: which protections the sandbox gives a job on this
 * machine, tried for real with a trivial job. Exits 0 when the minimum a
 * grading service needs is there (seccomp, resource limits, the timeout),
 * 1 when not, saying what is missing.
 */
#include "cli.h"
#include "sandbox/sandbox.h"

#include <stdio.h>

int cmd_sandbox_check(const struct cli_args *args)
{
    (void)args;
    struct sandbox_protections p;
    char why[512];
    if (!sandbox_probe(&p, why, sizeof why)) {
        printf("sandbox: not usable here: %s\n", why);
        return CLI_EXIT_FAILED;
    }
    printf("sandbox protections on this machine:\n");
    sandbox_print_protections(&p, stdout);
    const char *missing = sandbox_missing_minimum(&p);
    if (missing) {
        printf("not enough to grade untrusted kernels: %s\n", missing);
        return CLI_EXIT_FAILED;
    }
    printf("enough to grade untrusted kernels\n");
    return CLI_EXIT_OK;
}
