/*
 * Internal to server/: the kgrade command line.
 *
 * Every subcommand is a row of one table (commands.c) that names its
 * options, its positional arguments and the function that runs it. One
 * parser (cli_parse.c) reads argv against that row, so every subcommand gets
 * the same rules: `--opt value` or `--opt=value`, `--` ends the options,
 * values are checked by kind, required options are enforced, `--help` works
 * everywhere, and every mistake prints the usage and exits 2.
 */
#ifndef KGRADE_SERVER_CLI_H
#define KGRADE_SERVER_CLI_H

#include "grader/grader.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes, the same for every subcommand (DESIGN.md). */
enum cli_exit {
    CLI_EXIT_OK = 0,          /* passed, or success */
    CLI_EXIT_FAILED = 1,      /* a verdict other than passed, or a failed check */
    CLI_EXIT_USAGE = 2,       /* usage or configuration error */
    CLI_EXIT_INTERNAL = 3,    /* kgrade's own fault */
    CLI_EXIT_UNREACHABLE = 4, /* server unreachable or authentication refused */
};

enum cli_option_id {
    OPT_EXERCISE,
    OPT_EXERCISES,
    OPT_SEED,
    OPT_N,
    OPT_DEVICE,
    OPT_TIMING,
    OPT_LANGUAGE,
    OPT_NO_SANDBOX,
    OPT_JSON,
    OPT_PORT,
    OPT_BIND,
    OPT_DATA,
    OPT_DB,
    OPT_WORKERS,
    OPT_SERVER,
    OPT_TOKEN,
    OPT_ROLE,
    OPT_PASSWORD_STDIN,
    OPT_NAME,
    OPT_PUBLIC_KEY,
    OPT_ARCH,
    OPT_USER,
    OPT_PREFIX,
    OPT_COUNT
};

enum cli_value_kind {
    CLI_FLAG,     /* no value */
    CLI_TEXT,     /* any non-empty text */
    CLI_POSITIVE, /* a whole number from 1 to 2^63-1 */
    CLI_U64,      /* a whole number from 0 to 2^64-1 */
    CLI_PORT,     /* 1 to 65535 */
    CLI_CHOICE,   /* one of the words in `choices`, separated by '|' */
};

struct cli_option_spec {
    const char *name; /* without the dashes */
    enum cli_value_kind kind;
    const char *metavar; /* shown in the usage, e.g. "ID" */
    const char *choices; /* CLI_CHOICE only, e.g. "auto|cuda|emulator" */
    const char *help;
};

/* Options that may also stand before the subcommand (`kgrade --db PATH user add`). */
#define CLI_GLOBAL_OPTIONS  ((1u << OPT_EXERCISES) | (1u << OPT_DATA) | (1u << OPT_DB))
#define CLI_MAX_POSITIONALS 4
/* max_positionals of a command that starts a program (`kgrade run`): its
 * first positional argument ends the options, and it and every word after
 * it, options included, are the program's command line (cli_args.program). */
#define CLI_PROGRAM_FOLLOWS (-1)
#define CLI_BIT(opt)        (1u << (opt))

struct cli_args;

struct cli_command {
    const char *name;        /* one word, or two for "user add" */
    const char *positionals; /* for the usage line, e.g. "FILE.cu"; NULL when none */
    int min_positionals, max_positionals;
    uint32_t options;        /* CLI_BIT()s of the options it accepts */
    uint32_t required;       /* of which these must be given */
    uint32_t one_of;         /* exactly one of these must be given (0: no such rule) */
    const char *summary;     /* one line for `kgrade --help` */
    const char *description; /* a paragraph for `kgrade CMD --help` */
    int (*run)(const struct cli_args *args);
    const char *arrives_with; /* when run is NULL: what builds it, for the message */
};

struct cli_args {
    const struct cli_command *command;
    const char *value[OPT_COUNT]; /* NULL when not given; "" for a given flag */
    const char *positional[CLI_MAX_POSITIONALS];
    int n_positionals;
    char **program; /* CLI_PROGRAM_FOLLOWS: PROGRAM ARGS..., NULL-ended (argv's own) */
};

/* The option table and the command table (commands.c). */
const struct cli_option_spec *cli_option(enum cli_option_id id);
const struct cli_command *cli_commands(int *count);

/* What a parse decided. */
enum cli_parse_outcome {
    CLI_PARSE_RUN,     /* args are complete: run the command */
    CLI_PARSE_HELP,    /* help was asked for and printed */
    CLI_PARSE_VERSION, /* --version was asked for and printed */
    CLI_PARSE_ERROR,   /* a usage error was printed */
};

/* Reads argv (argv[0] is the program) into `args`; prints help, the version
 * or the error with the usage on `out`/`err` as the outcome says. */
enum cli_parse_outcome cli_parse(int argc, char **argv, struct cli_args *args, FILE *out,
                                 FILE *err);

/* The full help of a command (NULL: of kgrade), and the short usage shown
 * after a mistake. */
void cli_print_help(const struct cli_command *command, FILE *to);
void cli_print_usage(const struct cli_command *command, FILE *to);

/* Typed readers of option values that cli_parse() already validated. */
bool cli_given(const struct cli_args *args, enum cli_option_id id);
uint64_t cli_u64(const struct cli_args *args, enum cli_option_id id, uint64_t fallback);
/* The position of a CLI_CHOICE option's value among `names` (the enum's
 * order); 0, the default, when it was not given. */
int cli_choice(const struct cli_args *args, enum cli_option_id id, const char *const names[],
               int count);
/* The device --device names (`kgrade grade`, `kgrade sandbox-check`). */
enum grader_device cli_device(const struct cli_args *args);
/* The kernel's language (`kgrade grade`, `kgrade submit`): --language, else
 * what the file's name (the first positional argument) implies. */
enum grader_language cli_language(const struct cli_args *args);

/* The subcommands built so far (one file each). */
int cmd_compile(const struct cli_args *args);
int cmd_grade(const struct cli_args *args);
int cmd_exercises(const struct cli_args *args);
int cmd_worker(const struct cli_args *args);
int cmd_sandbox_check(const struct cli_args *args);

/* The exercise folder: --exercises, else exercises/ beside the binary's folder. */
void cli_exercises_folder(const struct cli_args *args, char *out, size_t size);
/* The web pages (web/ beside the binary's folder) and the bundle the
 * Makefile builds from them (build/web/). */
void cli_web_folders(char *pages, char *bundle, size_t size);
/* The data folder: --data, else var/. */
void cli_data_folder(const struct cli_args *args, char *out, size_t size);
/* The database: --db, else kgrade.db in the data folder. */
void cli_db_path(const struct cli_args *args, char *out, size_t size);
/* The running kgrade's absolute path; false when it cannot be read. */
bool cli_self_path(char *out, size_t size);
/* The Python site folder of `kgrade run` (run-site/ beside the binary). */
void cli_run_site_folder(char *out, size_t size);

int cmd_serve(const struct cli_args *args);
int cmd_user_add(const struct cli_args *args);
int cmd_user_import(const struct cli_args *args);
int cmd_token_create(const struct cli_args *args);
int cmd_submit(const struct cli_args *args);
int cmd_cert_verify(const struct cli_args *args);
int cmd_run(const struct cli_args *args);
int cmd_jupyter_install(const struct cli_args *args);

#endif
