/*
 * Usage and help texts, made from the command table so that they can never
 * disagree with what the parser accepts.
 */
#include "cli.h"

#include <string.h>

#define HELP_COLUMN 22

static const char *const exit_codes =
    "exit codes: 0 passed or success; 1 a verdict other than passed, or a failed check;\n"
    "            2 usage or configuration error; 3 internal error;\n"
    "            4 server unreachable or authentication refused\n";

static void print_option_word(const struct cli_option_spec *o, FILE *to)
{
    if (o->kind == CLI_FLAG)
        fprintf(to, "--%s", o->name);
    else
        fprintf(to, "--%s %s", o->name, o->metavar ? o->metavar : o->choices);
}

/* "usage: kgrade grade --exercise ID [--seed S] ... FILE.cu" */
static void print_usage_line(const struct cli_command *c, FILE *to)
{
    fprintf(to, "usage: kgrade %s", c->name);
    for (int id = 0; id < OPT_COUNT; id++) {
        uint32_t bit = CLI_BIT(id);
        if (!(c->options & bit) || (c->one_of & bit))
            continue;
        fputs(c->required & bit ? " " : " [", to);
        print_option_word(cli_option((enum cli_option_id)id), to);
        if (!(c->required & bit))
            fputc(']', to);
    }
    if (c->one_of) {
        const char *sep = " (";
        for (int id = 0; id < OPT_COUNT; id++) {
            if (!(c->one_of & CLI_BIT(id)))
                continue;
            fputs(sep, to);
            print_option_word(cli_option((enum cli_option_id)id), to);
            sep = " | ";
        }
        fputc(')', to);
    }
    if (c->positionals)
        fprintf(to, " %s", c->positionals);
    fputc('\n', to);
}

static void print_command_help(const struct cli_command *c, FILE *to)
{
    print_usage_line(c, to);
    fprintf(to, "\n%s\n", c->description);
    if (!c->run)
        fprintf(to, "(Not built yet: it arrives with %s.)\n", c->arrives_with);
    if (c->options)
        fputs("\noptions:\n", to);
    for (int id = 0; id < OPT_COUNT; id++) {
        if (!(c->options & CLI_BIT(id)))
            continue;
        const struct cli_option_spec *o = cli_option((enum cli_option_id)id);
        int width = fprintf(to, "  ");
        width += o->kind == CLI_FLAG
                     ? fprintf(to, "--%s", o->name)
                     : fprintf(to, "--%s %s", o->name, o->metavar ? o->metavar : o->choices);
        fprintf(to, "%*s%s\n", width < HELP_COLUMN ? HELP_COLUMN - width : 1, "", o->help);
    }
    fprintf(to, "  --help%*s%s\n", HELP_COLUMN - 8, "", "show this help");
    if (c->max_positionals == CLI_PROGRAM_FOLLOWS)
        fputs("\nexit code: the program's own; 2 when kgrade cannot start it\n", to);
    else
        fprintf(to, "\n%s", exit_codes);
}

static void print_program_help(FILE *to)
{
    int count;
    const struct cli_command *commands = cli_commands(&count);
    fputs("kgrade grades CUDA kernels: it compiles them with NVRTC, runs them against a\n"
          "reference on a real GPU or on kgrade's virtual GPU, and judges correctness and "
          "speed.\n\n"
          "usage: kgrade [--db PATH] [--data DIR] [--exercises DIR] COMMAND [OPTIONS] [ARGS]\n"
          "       kgrade COMMAND --help\n"
          "       kgrade --version\n\ncommands:\n",
          to);
    for (int c = 0; c < count; c++)
        fprintf(to, "  %-*s%s%s\n", HELP_COLUMN - 2, commands[c].name, commands[c].summary,
                commands[c].run ? "" : " (not built yet)");
    fprintf(to, "\n%s", exit_codes);
}

void cli_print_help(const struct cli_command *command, FILE *to)
{
    if (command)
        print_command_help(command, to);
    else
        print_program_help(to);
}

void cli_print_usage(const struct cli_command *command, FILE *to)
{
    if (command) {
        print_usage_line(command, to);
        fprintf(to, "See 'kgrade %s --help'.\n", command->name);
    } else {
        fputs("usage: kgrade [--db PATH] [--data DIR] [--exercises DIR] COMMAND [OPTIONS] [ARGS]\n"
              "See 'kgrade --help'.\n",
              to);
    }
}
