/*
 * Where the command line's files are: the exercise folder, the web pages
 * and their built bundle, the data folder and the database.
 */
#include "cli.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DATA "var"
#define DB_FILE      "kgrade.db"

#define EXERCISES_BESIDE_BINARY "../exercises" /* build/kgrade → exercises/ */
#define WEB_BESIDE_BINARY       "../web"       /* build/kgrade → web/ */
#define BUNDLE_BESIDE_BINARY    "web"          /* build/kgrade → build/web/ (built) */
#define RUN_SITE_BESIDE_BINARY  "run-site"     /* build/kgrade → build/run-site/ (built) */

bool cli_self_path(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    out[n] = '\0';
    return true;
}

/* `relative` to the folder of the running binary (build/), or `fallback`. */
static void beside_binary(const char *relative, const char *fallback, char *out, size_t size)
{
    char self[4096];
    if (!cli_self_path(self, sizeof self)) {
        snprintf(out, size, "%s", fallback);
        return;
    }
    snprintf(out, size, "%s/%s", dirname(self), relative);
}

void cli_exercises_folder(const struct cli_args *args, char *out, size_t size)
{
    if (cli_given(args, OPT_EXERCISES))
        snprintf(out, size, "%s", args->value[OPT_EXERCISES]);
    else
        beside_binary(EXERCISES_BESIDE_BINARY, "exercises", out, size);
}

void cli_web_folders(char *pages, char *bundle, size_t size)
{
    beside_binary(WEB_BESIDE_BINARY, "web", pages, size);
    beside_binary(BUNDLE_BESIDE_BINARY, "build/web", bundle, size);
}

void cli_run_site_folder(char *out, size_t size)
{
    beside_binary(RUN_SITE_BESIDE_BINARY, "build/" RUN_SITE_BESIDE_BINARY, out, size);
}

void cli_data_folder(const struct cli_args *args, char *out, size_t size)
{
    snprintf(out, size, "%s", cli_given(args, OPT_DATA) ? args->value[OPT_DATA] : DEFAULT_DATA);
}

void cli_db_path(const struct cli_args *args, char *out, size_t size)
{
    char data[2048];
    if (cli_given(args, OPT_DB)) {
        snprintf(out, size, "%s", args->value[OPT_DB]);
        return;
    }
    cli_data_folder(args, data, sizeof data);
    snprintf(out, size, "%s/%s", data, DB_FILE);
}
