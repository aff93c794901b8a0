/*
 * `kgrade run PROGRAM [ARGS]`: a program with the virtual GPU as its CUDA
 * driver. The course without a GPU: a C program linked with -lcuda, or
 * numba's own runtime in a Python program or a notebook's kernel
 * (`kgrade jupyter install` starts Jupyter's kernels through here).
 *
 * kgrade finds the virtual GPU as the grader does (emulator/libcuda.so.1
 * beside the binary), sets the environment and execs the program, so that
 * the program's exit code, signals and process are its own:
 *   LD_LIBRARY_PATH    the virtual GPU's folder first: the loader finds its
 *                      libcuda.so.1 before any other
 *   NUMBA_CUDA_DRIVER  the virtual GPU by its absolute path (numba opens its
 *                      driver with dlopen)
 *   PYTHONPATH         run-site/ beside the binary first: its sitecustomize.py
 *                      applies numba's shims for this toolkit (numba_shims.py)
 *                      when the program imports numba.cuda, and nothing else
 *   KGRADE_CUDA_HOME   the toolkit kgrade was built with, for those shims
 * KGEMU_DEVICE and the virtual GPU's other settings pass through.
 */
#include "cli.h"
#include "grader/grader.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_SITECUSTOMIZE "sitecustomize.py"
#define DEFAULT_PATH      "/usr/local/bin:/usr/bin:/bin" /* when PATH is unset, as execvp */

static int refuse(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* kgrade's own error before the program starts: exit 2 (DESIGN.md). */
static int refuse(const char *format, ...)
{
    va_list ap;
    fputs("kgrade run: ", stderr);
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_USAGE;
}

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* `name` in the PATH's folders, as execvp finds it. */
static bool search_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    path = path && path[0] ? path : DEFAULT_PATH;
    for (const char *folder = path; folder;) {
        const char *colon = strchr(folder, ':');
        int length = colon ? (int)(colon - folder) : (int)strlen(folder);
        snprintf(out, size, "%.*s%s%s", length, folder, length ? "/" : "", name);
        if (is_executable_file(out))
            return true;
        folder = colon ? colon + 1 : NULL;
    }
    return false;
}

/* The program to exec, or a refusal that says why there is none. */
static int find_program(const char *name, char *out, size_t size)
{
    if (!strchr(name, '/')) {
        if (search_path(name, out, size))
            return CLI_EXIT_OK;
        return refuse("'%s' is not a program in the PATH (give its path, e.g. ./%s)", name, name);
    }
    snprintf(out, size, "%s", name);
    struct stat st;
    if (stat(name, &st) != 0)
        return refuse("%s: %s", name, strerror(errno));
    if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0)
        return refuse("%s is not an executable file (a script? run its interpreter: kgrade run "
                      "/usr/bin/python3 %s)",
                      name, name);
    return CLI_EXIT_OK;
}

/* `folder` before the value of the list variable `name` ("A:B"). */
static bool prepend_folder(const char *name, const char *folder)
{
    const char *old = getenv(name);
    char value[3 * PATH_MAX];
    int n = old && old[0] ? snprintf(value, sizeof value, "%s:%s", folder, old)
                          : snprintf(value, sizeof value, "%s", folder);
    return n > 0 && (size_t)n < sizeof value && setenv(name, value, 1) == 0;
}

/* The virtual GPU and the Python site folder, found beside the binary. */
static int find_installed(char driver[PATH_MAX], char site[PATH_MAX])
{
    char site_file[PATH_MAX + sizeof RUN_SITECUSTOMIZE];
    if (!grader_emulator_path(driver, PATH_MAX) || access(driver, R_OK) != 0)
        return refuse("the virtual GPU is not built (%s is missing): run make", driver);
    cli_run_site_folder(site, PATH_MAX);
    snprintf(site_file, sizeof site_file, "%s/%s", site, RUN_SITECUSTOMIZE);
    if (access(site_file, R_OK) != 0)
        return refuse("numba's shims are not installed beside kgrade (%s is missing): run make",
                      site_file);
    return CLI_EXIT_OK;
}

static bool set_environment(const char *driver, const char *site)
{
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", driver);
    *strrchr(folder, '/') = '\0'; /* an absolute path: the virtual GPU's folder */
    return prepend_folder("LD_LIBRARY_PATH", folder) && prepend_folder("PYTHONPATH", site) &&
           setenv("NUMBA_CUDA_DRIVER", driver, 1) == 0 &&
           setenv("KGRADE_CUDA_HOME", KGRADE_CUDA_HOME, 1) == 0;
}

int cmd_run(const struct cli_args *args)
{
    char driver[PATH_MAX] = "emulator/libcuda.so.1", site[PATH_MAX], program[PATH_MAX];
    int rc = find_installed(driver, site);
    if (rc == CLI_EXIT_OK)
        rc = find_program(args->positional[0], program, sizeof program);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!set_environment(driver, site))
        return refuse("the environment is too long to add the virtual GPU to it");
    execv(program, args->program);
    return refuse("%s cannot be started: %s", program, strerror(errno));
}
