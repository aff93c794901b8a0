/*
 * kgrade_main(): parse the command line, then run the subcommand, print the
 * version, or explain that the subcommand is not built yet.
 */
#include "cli.h"
#include "grader/grader.h"
#include "server.h"

#ifndef KGRADE_VERSION
#error "KGRADE_VERSION is set by the Makefile"
#endif

static int print_version(void)
{
    char nvrtc[32];
    printf("kgrade %s\n", KGRADE_VERSION);
    if (grader_nvrtc_version(nvrtc, sizeof nvrtc))
        printf("NVRTC %s\n", nvrtc);
    else
        printf("NVRTC: not working\n");
    return CLI_EXIT_OK;
}

int kgrade_main(int argc, char **argv)
{
    struct cli_args args;
    switch (cli_parse(argc, argv, &args, stdout, stderr)) {
    case CLI_PARSE_HELP:
        return CLI_EXIT_OK;
    case CLI_PARSE_VERSION:
        return print_version();
    case CLI_PARSE_ERROR:
        return CLI_EXIT_USAGE;
    case CLI_PARSE_RUN:
        break;
    }
    if (args.command->run)
        return args.command->run(&args);
    fprintf(stderr,
            "kgrade %s: not built yet; it arrives with %s.\n"
            "Today kgrade can compile a kernel: kgrade compile FILE.cu\n",
            args.command->name, args.command->arrives_with);
    return CLI_EXIT_USAGE;
}
