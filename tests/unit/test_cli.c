/*
 * Unit tests of the command-line parser against the real command table:
 * every rule of cli.h (values, required options, one-of groups, global
 * options, two-word commands, `--`, help), and that each mistake prints a
 * message that names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/cli.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 16

/* One parse with captured output. */
struct run {
    enum cli_parse_outcome outcome;
    struct cli_args args;
    char *out, *err;
    char *program[MAX_WORDS]; /* args.program's words, copied; NULL-ended */
};

/* Parses the words of `line` (separated by single spaces) after "kgrade". */
static struct run parse_line(const char *line)
{
    struct run r;
    char *copy = strdup(line);
    char *argv[MAX_WORDS] = {"kgrade"};
    int argc = 1;
    for (char *w = strtok(copy, " "); w && argc < MAX_WORDS; w = strtok(NULL, " "))
        argv[argc++] = w;
    size_t out_len, err_len;
    FILE *out = open_memstream(&r.out, &out_len);
    FILE *err = open_memstream(&r.err, &err_len);
    r.outcome = cli_parse(argc, argv, &r.args, out, err);
    fclose(out);
    fclose(err);
    /* The args point into argv's words: keep copies of what the tests read. */
    for (int i = 0; i < OPT_COUNT; i++)
        r.args.value[i] = r.args.value[i] ? strdup(r.args.value[i]) : NULL;
    for (int i = 0; i < r.args.n_positionals; i++)
        r.args.positional[i] = strdup(r.args.positional[i]);
    int words = 0;
    for (; r.args.program && r.args.program[words]; words++)
        r.program[words] = strdup(r.args.program[words]);
    r.program[words] = NULL;
    free(copy);
    return r;
}

static void release(struct run *r)
{
    for (int i = 0; i < OPT_COUNT; i++)
        free((char *)r->args.value[i]);
    for (int i = 0; i < r->args.n_positionals; i++)
        free((char *)r->args.positional[i]);
    for (int i = 0; r->program[i]; i++)
        free(r->program[i]);
    free(r->out);
    free(r->err);
}

/* The line must fail, and the error must contain `needle` and the usage. */
static void assert_usage_error(const char *line, const char *needle)
{
    struct run r = parse_line(line);
    if (r.outcome != CLI_PARSE_ERROR || !strstr(r.err, needle) || !strstr(r.err, "usage: kgrade"))
        fail_msg("'%s': outcome %d, stderr:\n%s", line, r.outcome, r.err);
    assert_string_equal(r.out, "");
    release(&r);
}

static void grade_line_is_read_completely(void **state)
{
    (void)state;
    struct run r = parse_line("grade --exercise hidden-layer --seed 18446744073709551615 --n=1000 "
                              "--device emulator --json --exercises ex k.cu");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.command->name, "grade");
    assert_string_equal(r.args.value[OPT_EXERCISE], "hidden-layer");
    assert_true(cli_u64(&r.args, OPT_SEED, 0) == UINT64_MAX);
    assert_true(cli_u64(&r.args, OPT_N, 0) == 1000);
    assert_string_equal(r.args.value[OPT_DEVICE], "emulator");
    assert_true(cli_given(&r.args, OPT_JSON));
    assert_false(cli_given(&r.args, OPT_NO_SANDBOX));
    assert_int_equal(r.args.n_positionals, 1);
    assert_string_equal(r.args.positional[0], "k.cu");
    release(&r);
}

static void two_word_commands_and_global_options(void **state)
{
    (void)state;
    struct run r = parse_line("--db var/x.db user add alice --role instructor --password-stdin");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.command->name, "user add");
    assert_string_equal(r.args.value[OPT_DB], "var/x.db");
    assert_string_equal(r.args.value[OPT_ROLE], "instructor");
    assert_string_equal(r.args.positional[0], "alice");
    release(&r);

    r = parse_line("token create alice --name ci --db=x.db");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.command->name, "token create");
    assert_string_equal(r.args.value[OPT_NAME], "ci");
    release(&r);
}

static void double_dash_ends_options(void **state)
{
    (void)state;
    struct run r = parse_line("compile -- --odd-name.cu");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.positional[0], "--odd-name.cu");
    release(&r);
}

/* `kgrade run`: the first word that is not kgrade's option is the program,
 * and every word after it is the program's, options and `--` included. */
static void run_line_passes_the_program_its_words(void **state)
{
    (void)state;
    struct run r = parse_line("run /usr/bin/python3 -c --help -- --json x");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.command->name, "run");
    assert_int_equal(r.args.n_positionals, 1);
    assert_string_equal(r.args.positional[0], "/usr/bin/python3");
    const char *words[] = {"/usr/bin/python3", "-c", "--help", "--", "--json", "x"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        assert_string_equal(r.program[i], words[i]);
    assert_null(r.program[sizeof words / sizeof words[0]]);
    release(&r);
    r = parse_line("run -- -odd");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.program[0], "-odd");
    assert_null(r.program[1]);
    release(&r);
    r = parse_line("run --help");
    assert_int_equal(r.outcome, CLI_PARSE_HELP);
    assert_non_null(strstr(r.out, "usage: kgrade run PROGRAM [ARGS]"));
    release(&r);
    assert_usage_error("run", "missing PROGRAM [ARGS]");
    assert_usage_error("run --json python3", "'--json' does not apply here");
}

/* `kgrade jupyter install`, and the first word of two-word commands. */
static void jupyter_install_and_command_groups(void **state)
{
    (void)state;
    struct run r = parse_line("jupyter install --prefix /opt/venv");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.command->name, "jupyter install");
    assert_string_equal(r.args.value[OPT_PREFIX], "/opt/venv");
    release(&r);
    r = parse_line("jupyter --help");
    assert_int_equal(r.outcome, CLI_PARSE_HELP);
    assert_non_null(strstr(r.out, "usage: kgrade jupyter install [--user] [--prefix DIR]"));
    release(&r);
    r = parse_line("user --help");
    assert_int_equal(r.outcome, CLI_PARSE_HELP);
    assert_non_null(strstr(r.out, "usage: kgrade user add"));
    assert_non_null(strstr(r.out, "usage: kgrade user import"));
    release(&r);
    assert_usage_error("jupyter", "unknown command 'jupyter' (those that begin with it: 'kgrade "
                                  "jupyter install')");
    assert_usage_error("jupyter install notebook", "unexpected argument 'notebook'");
}

static void help_everywhere(void **state)
{
    (void)state;
    const char *lines[] = {"--help", "-h", "help", "--db x --help"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct run r = parse_line(lines[i]);
        assert_int_equal(r.outcome, CLI_PARSE_HELP);
        int count;
        const struct cli_command *commands = cli_commands(&count);
        for (int c = 0; c < count; c++)
            assert_non_null(strstr(r.out, commands[c].name));
        release(&r);
    }
    struct run r = parse_line("grade --help");
    assert_int_equal(r.outcome, CLI_PARSE_HELP);
    assert_non_null(strstr(r.out, "usage: kgrade grade --exercise ID [--exercises DIR] [--seed S] "
                                  "[--n N] [--device auto|cuda|emulator] [--timing "
                                  "auto|single|repeated] [--language cuda|numba] [--no-sandbox] "
                                  "[--json] FILE.cu|FILE.py"));
    assert_null(strstr(r.out, "Not built yet"));
    release(&r);
    r = parse_line("serve --help");
    assert_null(strstr(r.out, "Not built yet"));
    release(&r);
    r = parse_line("submit --help");
    assert_null(strstr(r.out, "Not built yet"));
    assert_non_null(strstr(r.out, "4 when the server is unreachable"));
    assert_non_null(strstr(r.out, "usage: kgrade submit --exercise ID [--language cuda|numba] "
                                  "[--json] [--server URL] [--token TOKEN] FILE.cu|FILE.py"));
    assert_non_null(strstr(r.out, "KGRADE_URL and KGRADE_TOKEN"));
    assert_non_null(strstr(r.out, "numba for a .py file"));
    release(&r);
    r = parse_line("cert verify --help");
    assert_non_null(strstr(r.out, "usage: kgrade cert verify (--server URL | --public-key KEY) "
                                  "FILE.json"));
    assert_null(strstr(r.out, "Not built yet"));
    release(&r);
    r = parse_line("--version");
    assert_int_equal(r.outcome, CLI_PARSE_VERSION);
    release(&r);
}

/* `kgrade submit`: the server and the token may come from the
 * environment (cmd_submit reads it), the language is cuda or numba. */
static void submit_line(void **state)
{
    (void)state;
    struct run r = parse_line("submit --exercise hidden-layer kernel.py");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_null(r.args.value[OPT_SERVER]);
    assert_null(r.args.value[OPT_LANGUAGE]);
    release(&r);
    r = parse_line("submit --exercise x --language numba --server http://s --token t k.cu");
    assert_int_equal(r.outcome, CLI_PARSE_RUN);
    assert_string_equal(r.args.value[OPT_LANGUAGE], "numba");
    assert_string_equal(r.args.value[OPT_SERVER], "http://s");
    release(&r);
    assert_usage_error("submit --exercise x --language fortran k.f", "cuda|numba, not 'fortran'");
    assert_usage_error("compile --language numba k.cu", "'--language' does not apply");
}

static void every_command_has_help(void **state)
{
    (void)state;
    int count;
    const struct cli_command *commands = cli_commands(&count);
    for (int c = 0; c < count; c++) {
        char line[64];
        snprintf(line, sizeof line, "%s --help", commands[c].name);
        struct run r = parse_line(line);
        assert_int_equal(r.outcome, CLI_PARSE_HELP);
        assert_non_null(strstr(r.out, commands[c].description));
        release(&r);
    }
}

static void mistakes_are_usage_errors_that_say_what_is_wrong(void **state)
{
    (void)state;
    assert_usage_error("", "missing command");
    assert_usage_error("frobnicate", "unknown command 'frobnicate'");
    assert_usage_error("user", "unknown command 'user'");
    assert_usage_error("user remove bob", "unknown command 'user'");
    assert_usage_error("grade k.cu", "'--exercise ID' is required");
    assert_usage_error("grade --exercise x", "missing FILE.cu");
    assert_usage_error("grade --exercise x a.cu b.cu", "unexpected argument 'b.cu'");
    assert_usage_error("grade --exercise", "needs a value (ID)");
    assert_usage_error("grade --exercise x --bogus k.cu", "unknown option '--bogus'");
    assert_usage_error("grade --exercise x -x k.cu", "unknown option '-x'");
    assert_usage_error("grade --exercise x --port 80 k.cu", "'--port' does not apply here");
    assert_usage_error("grade --exercise x --n 0 k.cu", "a whole number of at least 1, not '0'");
    assert_usage_error("grade --exercise x --n -5 k.cu", "not '-5'");
    assert_usage_error("grade --exercise x --n 12abc k.cu", "not '12abc'");
    assert_usage_error("grade --exercise x --n 9223372036854775808 k.cu", "at least 1");
    assert_usage_error("grade --exercise x --seed 18446744073709551616 k.cu",
                       "from 0 to 18446744073709551615");
    assert_usage_error("grade --exercise x --device gpu k.cu", "auto|cuda|emulator, not 'gpu'");
    assert_usage_error("grade --exercise x --device= k.cu", "not ''");
    assert_usage_error("grade --exercise= k.cu", "a non-empty value");
    assert_usage_error("grade --exercise x --json=yes k.cu", "'--json' takes no value");
    assert_usage_error("grade --exercise x --exercise y k.cu", "'--exercise' is given twice");
    assert_usage_error("serve --port 65536", "from 1 to 65535");
    assert_usage_error("serve --port 0", "from 1 to 65535");
    assert_usage_error("serve --workers 0", "at least 1");
    assert_usage_error("--db x.db grade --exercise x k.cu", "'--db' does not apply to 'grade'");
    assert_usage_error("--seed 1 grade --exercise x k.cu", "'--seed' does not apply here");
    assert_usage_error("user add bob", "'--role student|instructor|admin' is required");
    assert_usage_error("user add bob --role teacher", "student|instructor|admin, not 'teacher'");
    assert_usage_error("cert verify c.json", "exactly one");
    assert_usage_error("cert verify c.json --server http://x --public-key k", "exactly one");
    assert_usage_error("submit --server http://x --token t k.cu", "'--exercise ID' is required");
    assert_usage_error("worker extra", "unexpected argument 'extra'");
}

static void option_table_is_consistent(void **state)
{
    (void)state;
    for (int id = 0; id < OPT_COUNT; id++) {
        const struct cli_option_spec *o = cli_option((enum cli_option_id)id);
        assert_non_null(o->name);
        assert_non_null(o->help);
        if (o->kind == CLI_CHOICE)
            assert_non_null(o->choices);
        else if (o->kind != CLI_FLAG)
            assert_non_null(o->metavar);
    }
    int count;
    const struct cli_command *commands = cli_commands(&count);
    for (int c = 0; c < count; c++) {
        /* Required and one-of options must be accepted options. */
        assert_int_equal(commands[c].required & ~commands[c].options, 0);
        assert_int_equal(commands[c].one_of & ~commands[c].options, 0);
        assert_true(commands[c].max_positionals <= CLI_MAX_POSITIONALS);
        assert_true(commands[c].max_positionals >= 0 ||
                    (commands[c].max_positionals == CLI_PROGRAM_FOLLOWS &&
                     commands[c].min_positionals == 1 && commands[c].options == 0));
        assert_true(commands[c].run || commands[c].arrives_with);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grade_line_is_read_completely),
        cmocka_unit_test(two_word_commands_and_global_options),
        cmocka_unit_test(double_dash_ends_options),
        cmocka_unit_test(run_line_passes_the_program_its_words),
        cmocka_unit_test(jupyter_install_and_command_groups),
        cmocka_unit_test(help_everywhere),
        cmocka_unit_test(submit_line),
        cmocka_unit_test(every_command_has_help),
        cmocka_unit_test(mistakes_are_usage_errors_that_say_what_is_wrong),
        cmocka_unit_test(option_table_is_consistent),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
