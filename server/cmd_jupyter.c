/*
 * `kgrade jupyter install [--user | --prefix DIR]`: the Jupyter kernel
 * "kgrade", a notebook's Python on the virtual GPU.
 *
 * A Jupyter kernel is a folder holding a kernel.json (the command that
 * starts it, its display name, its language). This one starts Debian's
 * ipykernel through this kgrade's `kgrade run` (cmd_run.c), so a notebook's
 * numba finds the virtual GPU as its CUDA driver. The folder goes where
 * `jupyter kernelspec install` puts one (jupyter_client's KernelSpecManager
 * and jupyter_core's paths on Linux), so Jupyter, nbclient and nbconvert
 * find it by name, and Jupyter itself is not needed to install it:
 *   --prefix DIR   DIR/share/jupyter/kernels/kgrade
 *   --user         $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else
 *                  ~/.local/share/jupyter; then kernels/kgrade
 *   neither        /usr/local/share/jupyter/kernels/kgrade, for every user
 */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_NAME           "kgrade"
#define KERNEL_DISPLAY_NAME   "Python 3 (kgrade virtual GPU)"
#define KERNEL_PYTHON_DEFAULT "/usr/bin/python3" /* Debian's: python3-ipykernel, numba */
#define SYSTEM_JUPYTER        "/usr/local/share/jupyter"
#define KERNEL_FILE           "kernel.json"
#define KERNEL_FOLDER_MODE    0755

static const char *non_empty_env(const char *name)
{
    const char *value = getenv(name);
    return value && value[0] ? value : NULL;
}

/* jupyter_core's jupyter_data_dir() on Linux: the user's Jupyter data. */
static bool user_data_folder(char *out, size_t size)
{
    const char *jupyter = non_empty_env("JUPYTER_DATA_DIR");
    const char *xdg = non_empty_env("XDG_DATA_HOME");
    const char *home = non_empty_env("HOME");
    const struct passwd *pw = home ? NULL : getpwuid(getuid());
    home = home ? home : pw ? pw->pw_dir : NULL;
    if (jupyter)
        snprintf(out, size, "%s", jupyter);
    else if (xdg)
        snprintf(out, size, "%s/jupyter", xdg);
    else if (home)
        snprintf(out, size, "%s/.local/share/jupyter", home);
    return jupyter || xdg || home;
}

/* The kernel's folder, as the options say. */
static bool kernel_folder(const struct cli_args *args, char *out, size_t size)
{
    char data[PATH_MAX] = SYSTEM_JUPYTER;
    if (cli_given(args, OPT_PREFIX))
        snprintf(data, sizeof data, "%s/share/jupyter", args->value[OPT_PREFIX]);
    else if (cli_given(args, OPT_USER) && !user_data_folder(data, sizeof data))
        return false;
    int n = snprintf(out, size, "%s/kernels/%s", data, KERNEL_NAME);
    return n > 0 && (size_t)n < size;
}

/* mkdir -p `path`. */
static bool make_folders(const char *path)
{
    char partial[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof partial)
        return false;
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        memcpy(partial, path, i);
        partial[i] = '\0';
        if (mkdir(partial, KERNEL_FOLDER_MODE) != 0 && errno != EEXIST)
            return false;
    }
    return true;
}

/* kernel.json: ipykernel started by this kgrade's `kgrade run`. */
static json_t *kernel_spec(const char *kgrade, const char *python)
{
    return json_pack("{s:[s,s,s,s,s,s,s], s:s, s:s}", "argv", kgrade, "run", python, "-m",
                     "ipykernel_launcher", "-f", "{connection_file}", "display_name",
                     KERNEL_DISPLAY_NAME, "language", "python");
}

/* Writes the spec whole or not at all (a temporary file, renamed). */
static bool write_spec(const json_t *spec, const char *file)
{
    char temporary[PATH_MAX + sizeof KERNEL_FILE + 8];
    snprintf(temporary, sizeof temporary, "%s.tmp", file);
    if (json_dump_file(spec, temporary, JSON_INDENT(1)) != 0)
        return false;
    if (rename(temporary, file) == 0)
        return true;
    int saved = errno;
    unlink(temporary);
    errno = saved;
    return false;
}

static int refuse(const char *what, const char *path)
{
    fprintf(stderr, "kgrade jupyter install: %s %s: %s%s\n", what, path, strerror(errno),
            errno == EACCES || errno == EPERM || errno == EROFS
                ? " (install for yourself with --user, or under a folder of yours with --prefix "
                  "DIR)"
                : "");
    return CLI_EXIT_USAGE;
}

int cmd_jupyter_install(const struct cli_args *args)
{
    char kgrade[PATH_MAX], folder[PATH_MAX], file[PATH_MAX + sizeof KERNEL_FILE];
    const char *python = non_empty_env("KGRADE_PYTHON");
    python = python ? python : KERNEL_PYTHON_DEFAULT;
    if (cli_given(args, OPT_USER) && cli_given(args, OPT_PREFIX)) {
        fputs("kgrade jupyter install: give --user or --prefix DIR, not both\n", stderr);
        return CLI_EXIT_USAGE;
    }
    if (!cli_self_path(kgrade, sizeof kgrade) || !kernel_folder(args, folder, sizeof folder)) {
        fputs("kgrade jupyter install: kgrade's own path or the user's home is unknown\n", stderr);
        return CLI_EXIT_USAGE;
    }
    if (access(python, X_OK) != 0)
        fprintf(stderr,
                "kgrade jupyter install: warning: %s is not there: the kernel needs it, with "
                "ipykernel and numba (apt-get install python3-ipykernel python3-numba)\n",
                python);
    if (!make_folders(folder))
        return refuse("cannot make the folder", folder);
    snprintf(file, sizeof file, "%s/%s", folder, KERNEL_FILE);
    json_t *spec = kernel_spec(kgrade, python);
    bool written = spec && write_spec(spec, file);
    json_decref(spec);
    if (!written)
        return refuse("cannot write", file);
    printf("Installed the Jupyter kernel '%s' (\"%s\") in %s\n", KERNEL_NAME, KERNEL_DISPLAY_NAME,
           folder);
    return CLI_EXIT_OK;
}
