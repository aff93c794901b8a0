/*
 * Fuzz target (libFuzzer): the command-line parser. The input is split at
 * NUL bytes into argv words; any words must give an outcome, never a crash.
 */
#include "server/cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_WORDS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[FUZZ_MAX_WORDS + 1] = {"kgrade"};
    int argc = 1;
    for (size_t start = 0; start <= size && argc < FUZZ_MAX_WORDS;) {
        argv[argc++] = copy + start;
        start += strlen(copy + start) + 1;
    }
    argv[argc] = NULL;
    FILE *sink = fopen("/dev/null", "w");
    struct cli_args args;
    enum cli_parse_outcome outcome = cli_parse(argc, argv, &args, sink, sink);
    if (outcome == CLI_PARSE_RUN && (!args.command || args.n_positionals > CLI_MAX_POSITIONALS))
        abort();
    fclose(sink);
    free(copy);
    return 0;
}
