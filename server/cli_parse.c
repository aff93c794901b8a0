/*
 * The command-line parser: argv → struct cli_args, against the table of
 * commands.c, with the usage and help texts made from the same table.
 *
 * The grammar: `kgrade [GLOBAL OPTIONS] COMMAND [WORD] [OPTIONS] ARGS`, where
 * global options are those of CLI_GLOBAL_OPTIONS and must still belong to the
 * command. Options take `--name value` or `--name=value`; `--` ends them.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "kgrade"

/* State of one parse, so that errors can name the command. */
struct parser {
    struct cli_args *args;
    const struct cli_command *command; /* NULL until known */
    FILE *out;
    FILE *err;
};

static enum cli_parse_outcome fail(struct parser *p, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static enum cli_parse_outcome fail(struct parser *p, const char *format, ...)
{
    va_list ap;
    fprintf(p->err, PROGRAM "%s%s: ", p->command ? " " : "", p->command ? p->command->name : "");
    va_start(ap, format);
    vfprintf(p->err, format, ap);
    va_end(ap);
    fputs("\n\n", p->err);
    cli_print_usage(p->command, p->err);
    return CLI_PARSE_ERROR;
}

static bool parse_u64(const char *text, uint64_t *value)
{
    if (text[0] < '0' || text[0] > '9')
        return false; /* strtoull would accept "-1" and " 1" */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *value = v;
    return true;
}

static bool choice_matches(const char *choices, const char *value)
{
    size_t len = strlen(value);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && len > 0 && strncmp(c, value, n) == 0)
            return true;
        c += bar ? n + 1 : n;
    }
    return false;
}

/* Checks `value` against the option's kind; on failure says what is wanted. */
static bool value_valid(const struct cli_option_spec *o, const char *value, const char **wanted)
{
    uint64_t v = 0;
    switch (o->kind) {
    case CLI_FLAG:
        return true;
    case CLI_TEXT:
        *wanted = "a non-empty value";
        return value[0] != '\0';
    case CLI_POSITIVE:
        *wanted = "a whole number of at least 1";
        return parse_u64(value, &v) && v >= 1 && v <= INT64_MAX;
    case CLI_U64:
        *wanted = "a whole number from 0 to 18446744073709551615";
        return parse_u64(value, &v);
    case CLI_PORT:
        *wanted = "a port number from 1 to 65535";
        return parse_u64(value, &v) && v >= 1 && v <= 65535;
    case CLI_CHOICE:
        *wanted = o->choices;
        return choice_matches(o->choices, value);
    }
    return false;
}

static int find_option(const char *name, size_t len)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        const char *n = cli_option((enum cli_option_id)id)->name;
        if (strlen(n) == len && strncmp(n, name, len) == 0)
            return id;
    }
    return -1;
}

/* Reads the option at argv[*i] ("--name" or "--name=value"), taking its
 * value from the next word when needed. `allowed` is the set it may be in. */
static bool take_option(struct parser *p, int argc, char **argv, int *i, uint32_t allowed,
                        enum cli_parse_outcome *outcome)
{
    const char *word = argv[*i] + 2;
    const char *equals = strchr(word, '=');
    size_t len = equals ? (size_t)(equals - word) : strlen(word);
    int id = find_option(word, len);
    if (id < 0 || !(allowed & CLI_BIT(id))) {
        *outcome = id < 0 ? fail(p, "unknown option '--%.*s'", (int)len, word)
                          : fail(p, "option '--%.*s' does not apply here", (int)len, word);
        return false;
    }
    const struct cli_option_spec *o = cli_option((enum cli_option_id)id);
    const char *value = "";
    if (o->kind == CLI_FLAG && equals) {
        *outcome = fail(p, "option '--%s' takes no value", o->name);
        return false;
    }
    if (o->kind != CLI_FLAG) {
        if (!equals && *i + 1 >= argc) {
            *outcome = fail(p, "option '--%s' needs a value (%s)", o->name,
                            o->metavar ? o->metavar : o->choices);
            return false;
        }
        value = equals ? equals + 1 : argv[++*i];
    }
    const char *wanted = "";
    if (!value_valid(o, value, &wanted)) {
        *outcome = fail(p, "option '--%s' wants %s, not '%s'", o->name, wanted, value);
        return false;
    }
    if (p->args->value[id]) {
        *outcome = fail(p, "option '--%s' is given twice", o->name);
        return false;
    }
    p->args->value[id] = value;
    return true;
}

static bool is_help(const char *word)
{
    return strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0;
}

/* Finds the command named by argv[*i] (and argv[*i + 1] for two-word
 * commands such as "user add"), advancing *i past it. */
static const struct cli_command *find_command(int argc, char **argv, int *i)
{
    int count;
    const struct cli_command *commands = cli_commands(&count);
    for (int c = 0; c < count; c++) {
        const char *name = commands[c].name;
        const char *space = strchr(name, ' ');
        size_t first = space ? (size_t)(space - name) : strlen(name);
        if (strlen(argv[*i]) != first || strncmp(argv[*i], name, first) != 0)
            continue;
        if (!space) {
            *i += 1;
            return &commands[c];
        }
        if (*i + 1 < argc && strcmp(argv[*i + 1], space + 1) == 0) {
            *i += 2;
            return &commands[c];
        }
    }
    return NULL;
}

/* argv[i] names no command. The first word of two-word commands followed
 * by --help ("kgrade jupyter --help") shows their help; anything else is
 * an unknown command, which names them when the word begins some. */
static enum cli_parse_outcome command_group(struct parser *p, int argc, char **argv, int i)
{
    int count, found = 0;
    const struct cli_command *commands = cli_commands(&count);
    size_t len = strlen(argv[i]);
    bool help = i + 1 < argc && is_help(argv[i + 1]);
    char names[256] = "";
    for (int c = 0; c < count; c++) {
        const char *name = commands[c].name;
        if (strncmp(name, argv[i], len) != 0 || name[len] != ' ')
            continue;
        if (help)
            cli_print_help(&commands[c], p->out);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s'kgrade %s'", found++ ? ", " : "", name);
    }
    if (found && help)
        return CLI_PARSE_HELP;
    if (found)
        return fail(p, "unknown command '%s' (those that begin with it: %s)", argv[i], names);
    return fail(p, "unknown command '%s'", argv[i]);
}

/* The checks that need the whole command line: counts, required options. */
static enum cli_parse_outcome check_complete(struct parser *p)
{
    const struct cli_command *c = p->command;
    const struct cli_args *a = p->args;
    if (a->n_positionals < c->min_positionals)
        return fail(p, "missing %s", c->positionals);
    for (int id = 0; id < OPT_COUNT; id++) {
        const struct cli_option_spec *o = cli_option((enum cli_option_id)id);
        if ((c->required & CLI_BIT(id)) && !a->value[id])
            return fail(p, "option '--%s %s' is required", o->name,
                        o->metavar ? o->metavar : o->choices);
    }
    if (c->one_of) {
        int given = 0;
        for (int id = 0; id < OPT_COUNT; id++)
            given += (c->one_of & CLI_BIT(id)) && a->value[id];
        if (given != 1)
            return fail(p, "give exactly one of the options shown in parentheses");
    }
    return CLI_PARSE_RUN;
}

/* Parses what follows the command name. */
static enum cli_parse_outcome parse_command_words(struct parser *p, int argc, char **argv, int i)
{
    enum cli_parse_outcome outcome = CLI_PARSE_RUN;
    bool options_done = false;
    for (; i < argc; i++) {
        const char *word = argv[i];
        if (!options_done && is_help(word)) {
            cli_print_help(p->command, p->out);
            return CLI_PARSE_HELP;
        }
        if (!options_done && strcmp(word, "--") == 0) {
            options_done = true;
        } else if (!options_done && strncmp(word, "--", 2) == 0) {
            if (!take_option(p, argc, argv, &i, p->command->options, &outcome))
                return outcome;
        } else if (!options_done && word[0] == '-' && word[1] != '\0') {
            return fail(p, "unknown option '%s'", word);
        } else if (p->command->max_positionals == CLI_PROGRAM_FOLLOWS) {
            p->args->positional[p->args->n_positionals++] = word;
            p->args->program = argv + i; /* argv[argc] is NULL */
            break;
        } else if (p->args->n_positionals >= p->command->max_positionals) {
            return fail(p, "unexpected argument '%s'", word);
        } else {
            p->args->positional[p->args->n_positionals++] = word;
        }
    }
    return check_complete(p);
}

/* Global options before the command are collected first and checked against
 * the command once it is known. */
static enum cli_parse_outcome parse_globals(struct parser *p, int argc, char **argv, int *i)
{
    enum cli_parse_outcome outcome = CLI_PARSE_RUN;
    for (; *i < argc && strncmp(argv[*i], "--", 2) == 0 && argv[*i][2] != '\0'; (*i)++) {
        if (is_help(argv[*i])) {
            cli_print_help(NULL, p->out);
            return CLI_PARSE_HELP;
        }
        if (!take_option(p, argc, argv, i, CLI_GLOBAL_OPTIONS, &outcome))
            return outcome;
    }
    return CLI_PARSE_RUN;
}

enum cli_parse_outcome cli_parse(int argc, char **argv, struct cli_args *args, FILE *out, FILE *err)
{
    struct parser p = {args, NULL, out, err};
    memset(args, 0, sizeof *args);
    if (argc >= 2 && is_help(argv[1])) {
        cli_print_help(NULL, out);
        return CLI_PARSE_HELP;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0)
        return CLI_PARSE_VERSION;
    int i = 1;
    enum cli_parse_outcome outcome = parse_globals(&p, argc, argv, &i);
    if (outcome != CLI_PARSE_RUN)
        return outcome;
    if (i >= argc)
        return fail(&p, "missing command");
    if (strcmp(argv[i], "help") == 0) {
        cli_print_help(NULL, out);
        return CLI_PARSE_HELP;
    }
    p.command = args->command = find_command(argc, argv, &i);
    if (!p.command)
        return command_group(&p, argc, argv, i);
    for (int id = 0; id < OPT_COUNT; id++) {
        if (args->value[id] && !(p.command->options & CLI_BIT(id)))
            return fail(&p, "option '--%s' does not apply to '%s'",
                        cli_option((enum cli_option_id)id)->name, p.command->name);
    }
    return parse_command_words(&p, argc, argv, i);
}

bool cli_given(const struct cli_args *args, enum cli_option_id id)
{
    return args->value[id] != NULL;
}

uint64_t cli_u64(const struct cli_args *args, enum cli_option_id id, uint64_t fallback)
{
    uint64_t v;
    return args->value[id] && parse_u64(args->value[id], &v) ? v : fallback;
}

int cli_choice(const struct cli_args *args, enum cli_option_id id, const char *const names[],
               int count)
{
    const char *value = args->value[id];
    for (int i = 0; value && i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return 0;
}

enum grader_device cli_device(const struct cli_args *args)
{
    static const char *const names[] = {
        [GRADER_DEVICE_AUTO] = "auto",
        [GRADER_DEVICE_CUDA] = "cuda",
        [GRADER_DEVICE_EMULATOR] = "emulator",
    };
    return (enum grader_device)cli_choice(args, OPT_DEVICE, names, 3);
}

enum grader_language cli_language(const struct cli_args *args)
{
    enum grader_language language = grader_language_of_file(args->positional[0]);
    if (cli_given(args, OPT_LANGUAGE))
        grader_language_parse(args->value[OPT_LANGUAGE],
                              &language); /* a choice cli_parse checked */
    return language;
}
