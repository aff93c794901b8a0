/*
 * NVRTC compilation: CUDA C++ source → PTX, log, diagnostics, kernels.
 *
 * One call compiles one source for one architecture. With a real architecture
 * ("sm_90") NVRTC also runs ptxas, and kgrade asks it to be verbose so that the
 * log reports the registers each kernel uses (the occupancy a real GPU would
 * reach depends on it); the PTX stays available either way. NVRTC needs no GPU.
 *
 * The time and memory a compile may take are limited by the sandbox, not here:
 * this file only reports what NVRTC did.
 */
#include "compile_output.h"
#include "nvrtc_headers.h"

#include <ctype.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXAS_VERBOSE_OPTION "--ptxas-options=-v"
#define ARCH_OPTION_PREFIX   "-arch="
/* Options kgrade adds itself: the architecture and ptxas's verbosity. */
#define OWN_OPTIONS 2

static enum grader_compile_status finish(struct grader_compile_result *result,
                                         enum grader_compile_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static enum grader_compile_status finish(struct grader_compile_result *result,
                                         enum grader_compile_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(result->message, sizeof result->message, format, args);
    va_end(args);
    result->status = status;
    if (!result->log)
        result->log = strdup("");
    return status;
}

static bool is_real_arch(const char *arch)
{
    return strncmp(arch, "sm_", 3) == 0;
}

/* The option vector: -arch=ARCH, the caller's extras, the toolkit's include
 * folders, and -v for ptxas (last) when the architecture is a real one. NULL
 * when out of memory. */
static const char **build_options(const struct grader_compile_options *options, const char *arch,
                                  char **arch_option, int *count)
{
    size_t n_extra = options ? options->n_extra : 0;
    const char **argv = calloc(n_extra + (size_t)nvrtc_include_count + OWN_OPTIONS, sizeof *argv);
    *arch_option = malloc(strlen(ARCH_OPTION_PREFIX) + strlen(arch) + 1);
    if (!argv || !*arch_option) {
        free(argv);
        free(*arch_option);
        *arch_option = NULL;
        return NULL;
    }
    strcpy(*arch_option, ARCH_OPTION_PREFIX);
    strcat(*arch_option, arch);
    int n = 0;
    argv[n++] = *arch_option;
    for (size_t i = 0; i < n_extra; i++)
        argv[n++] = options->extra[i];
    for (int i = 0; i < nvrtc_include_count; i++)
        argv[n++] = nvrtc_include_options[i];
    if (is_real_arch(arch))
        argv[n++] = PTXAS_VERBOSE_OPTION;
    *count = n;
    return argv;
}

/* One of NVRTC's texts (the log, the PTX): its size, then its bytes. */
struct nvrtc_text {
    nvrtcResult (*size)(nvrtcProgram, size_t *);
    nvrtcResult (*get)(nvrtcProgram, char *);
};

static const struct nvrtc_text nvrtc_log = {nvrtcGetProgramLogSize, nvrtcGetProgramLog};
static const struct nvrtc_text nvrtc_ptx = {nvrtcGetPTXSize, nvrtcGetPTX};

/* A NUL-terminated copy of one of the program's texts; NULL when NVRTC has
 * none or memory runs out. */
static char *fetch_text(nvrtcProgram program, const struct nvrtc_text *which)
{
    size_t size = 0;
    if (which->size(program, &size) != NVRTC_SUCCESS || size == 0)
        return NULL;
    char *text = malloc(size);
    if (text && which->get(program, text) != NVRTC_SUCCESS) {
        free(text);
        return NULL;
    }
    if (text)
        text[size - 1] = '\0';
    return text;
}

/* Fills result->kernels from the PTX entries and ptxas's report. */
static bool describe_kernels(struct grader_compile_result *result)
{
    char **names;
    size_t count;
    if (grader_ptx_entries(result->ptx, result->ptx_size, &names, &count) != 0)
        return false;
    result->kernels = calloc(count ? count : 1, sizeof *result->kernels);
    if (!result->kernels) {
        grader_names_free(names, count);
        return false;
    }
    size_t log_len = strlen(result->log);
    for (size_t i = 0; i < count; i++) {
        struct grader_kernel *k = &result->kernels[result->n_kernels++];
        k->name = names[i];
        names[i] = NULL;
        k->signature = grader_demangle(k->name);
        k->registers = grader_ptxas_registers(result->log, log_len, k->name);
        if (!k->signature) {
            grader_names_free(names, count);
            return false;
        }
    }
    grader_names_free(names, count);
    return true;
}

static const struct grader_diagnostic *first_error(const struct grader_compile_result *result)
{
    for (size_t i = 0; i < result->n_diagnostics; i++)
        if (result->diagnostics[i].severity == GRADER_SEVERITY_ERROR)
            return &result->diagnostics[i];
    return NULL;
}

/* The sentence for a compile that failed: how many errors, and the first. */
static enum grader_compile_status finish_failed(struct grader_compile_result *result)
{
    size_t errors = grader_count_diagnostics(result, GRADER_SEVERITY_ERROR);
    const struct grader_diagnostic *first = first_error(result);
    if (!first)
        return finish(result, GRADER_COMPILE_ERROR, "the compiler refused the source");
    const char *newline = strchr(first->message, '\n');
    int len = newline ? (int)(newline - first->message) : (int)strlen(first->message);
    if (first->line > 0)
        return finish(result, GRADER_COMPILE_ERROR,
                      "%zu compile error%s; the first, at line %d: %.*s", errors,
                      errors == 1 ? "" : "s", first->line, len, first->message);
    return finish(result, GRADER_COMPILE_ERROR, "%zu compile error%s; the first: %.*s", errors,
                  errors == 1 ? "" : "s", len, first->message);
}

/* After nvrtcCompileProgram: collect the log, the diagnostics, the PTX. */
static enum grader_compile_status collect(nvrtcProgram program, nvrtcResult compiled,
                                          const char *file_name,
                                          struct grader_compile_result *result)
{
    result->log = fetch_text(program, &nvrtc_log);
    if (!result->log)
        result->log = strdup("");
    if (!result->log)
        return finish(result, GRADER_COMPILE_INTERNAL, "out of memory reading NVRTC's log");
    if (grader_parse_log(result->log, strlen(result->log), file_name, &result->diagnostics,
                         &result->n_diagnostics) != 0)
        return finish(result, GRADER_COMPILE_INTERNAL, "out of memory parsing NVRTC's log");
    if (compiled == NVRTC_ERROR_COMPILATION)
        return finish_failed(result);
    if (compiled == NVRTC_ERROR_INVALID_OPTION) {
        const struct grader_diagnostic *first = first_error(result);
        return finish(result, GRADER_COMPILE_INTERNAL, "NVRTC refused kgrade's options: %s",
                      first ? first->message : "no reason given");
    }
    if (compiled != NVRTC_SUCCESS)
        return finish(result, GRADER_COMPILE_INTERNAL, "NVRTC failed: %s",
                      nvrtcGetErrorString(compiled));
    result->ptx = fetch_text(program, &nvrtc_ptx);
    if (result->ptx)
        result->ptx_size = strlen(result->ptx);
    if (!result->ptx || !describe_kernels(result))
        return finish(result, GRADER_COMPILE_INTERNAL, "could not read the PTX NVRTC produced");
    size_t warnings = grader_count_diagnostics(result, GRADER_SEVERITY_WARNING);
    return finish(result, GRADER_COMPILE_OK, "compiled: %zu kernel%s, %zu warning%s",
                  result->n_kernels, result->n_kernels == 1 ? "" : "s", warnings,
                  warnings == 1 ? "" : "s");
}

/* NVRTC reports a name expression it cannot resolve as an error in its own
 * "__nv_name_map" file: when those are the only errors, the source simply
 * lacks the kernel, which is the student's to fix, not a compile error. */
#define NAME_MAP_FILE "__nv_name_map("

static bool only_missing_names(const struct grader_compile_result *result)
{
    size_t missing = 0;
    for (size_t i = 0; i < result->n_diagnostics; i++) {
        const struct grader_diagnostic *d = &result->diagnostics[i];
        if (d->severity != GRADER_SEVERITY_ERROR)
            continue;
        if (strncmp(d->message, NAME_MAP_FILE, strlen(NAME_MAP_FILE)) != 0)
            return false;
        missing++;
    }
    return missing > 0;
}

/* When the source has errors of its own, the name-map errors are their
 * echo (or a second problem the next compile will name): they are dropped
 * so the student reads only errors at their own lines. */
static void drop_name_map_errors(struct grader_compile_result *result)
{
    size_t kept = 0;
    for (size_t i = 0; i < result->n_diagnostics; i++) {
        struct grader_diagnostic *d = &result->diagnostics[i];
        if (strncmp(d->message, NAME_MAP_FILE, strlen(NAME_MAP_FILE)) == 0)
            free(d->message);
        else
            result->diagnostics[kept++] = *d;
    }
    result->n_diagnostics = kept;
}

/* The kernel names the source does not define, as "'a', 'b'": NVRTC says
 * `identifier "a" is undefined` for each (and cannot be asked afterwards). */
static void missing_names(const struct grader_compile_result *result, char *out, size_t size)
{
    static const char marker[] = "identifier \"";
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < result->n_diagnostics; i++) {
        const char *m = strstr(result->diagnostics[i].message, marker);
        const char *end = m ? strchr(m + strlen(marker), '"') : NULL;
        if (!end)
            continue;
        m += strlen(marker);
        int len = (int)(end - m);
        int n = snprintf(out + used, size - used, "%s'%.*s'", used ? ", " : "", len, m);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

static bool add_kernel_names(nvrtcProgram program, const struct grader_compile_options *options)
{
    for (size_t i = 0; options && i < options->n_kernel_names; i++)
        if (nvrtcAddNameExpression(program, options->kernel_names[i]) != NVRTC_SUCCESS)
            return false;
    return true;
}

static bool fetch_lowered_names(nvrtcProgram program, const struct grader_compile_options *options,
                                struct grader_compile_result *result)
{
    size_t n = options ? options->n_kernel_names : 0;
    if (n == 0)
        return true;
    result->lowered_names = calloc(n, sizeof *result->lowered_names);
    if (!result->lowered_names)
        return false;
    result->n_lowered_names = n;
    for (size_t i = 0; i < n; i++) {
        const char *lowered = NULL;
        if (nvrtcGetLoweredName(program, options->kernel_names[i], &lowered) == NVRTC_SUCCESS &&
            lowered && !(result->lowered_names[i] = strdup(lowered)))
            return false;
    }
    return true;
}

/* One NVRTC program: create, compile, collect, destroy. */
static enum grader_compile_status run_nvrtc(const char *text, const char *file_name,
                                            const char **argv, int n_options,
                                            const struct grader_compile_options *options,
                                            struct grader_compile_result *result)
{
    nvrtcProgram program;
    nvrtcResult created = nvrtcCreateProgram(&program, text, file_name, nvrtc_header_count,
                                             nvrtc_header_sources, nvrtc_header_names);
    if (created != NVRTC_SUCCESS)
        return finish(result, GRADER_COMPILE_INTERNAL, "NVRTC could not start: %s",
                      nvrtcGetErrorString(created));
    if (!add_kernel_names(program, options)) {
        nvrtcDestroyProgram(&program);
        return finish(result, GRADER_COMPILE_INTERNAL, "NVRTC refused a kernel name");
    }
    nvrtcResult compiled = nvrtcCompileProgram(program, n_options, argv);
    enum grader_compile_status status = collect(program, compiled, file_name, result);
    if (status == GRADER_COMPILE_ERROR && only_missing_names(result)) {
        char names[GRADER_MESSAGE_MAX / 2];
        missing_names(result, names, sizeof names);
        status = finish(result, GRADER_COMPILE_REJECTED,
                        "the source defines no kernel named %s: write a __global__ function of "
                        "that name",
                        names);
    } else if (status == GRADER_COMPILE_ERROR) {
        drop_name_map_errors(result);
        status = finish_failed(result);
    } else if (status == GRADER_COMPILE_OK && !fetch_lowered_names(program, options, result)) {
        status = finish(result, GRADER_COMPILE_INTERNAL, "out of memory reading kernel names");
    }
    nvrtcDestroyProgram(&program);
    return status;
}

/* The first line of the source where `word` stands as a whole word; 0 if none. */
static int line_of_word(const char *source, size_t size, const char *word)
{
    size_t n = strlen(word);
    int line = 1;
    for (size_t i = 0; n > 0 && i + n <= size; i++) {
        if (source[i] == '\n')
            line++;
        bool starts = i == 0 || !(isalnum((unsigned char)source[i - 1]) || source[i - 1] == '_');
        bool ends =
            i + n == size || !(isalnum((unsigned char)source[i + n]) || source[i + n] == '_');
        if (starts && ends && memcmp(source + i, word, n) == 0)
            return line;
    }
    return 0;
}

static bool add_diagnostic(struct grader_compile_result *result, int line, const char *message)
{
    struct grader_diagnostic *more =
        realloc(result->diagnostics, (result->n_diagnostics + 1) * sizeof *more);
    if (!more)
        return false;
    result->diagnostics = more;
    more[result->n_diagnostics] =
        (struct grader_diagnostic){line, 0, GRADER_SEVERITY_ERROR, strdup(message)};
    return more[result->n_diagnostics++].message != NULL;
}

/* __device__ and __constant__ variables over GRADER_STATIC_DATA_MAX are a
 * compile error at the declaration: too big is the student's to fix, not a
 * driver's failure to load the module. */
static enum grader_compile_status check_static_data(const char *source, size_t size,
                                                    struct grader_compile_result *result)
{
    struct ptx_static_data data;
    grader_ptx_static_data(result->ptx, result->ptx_size, &data);
    if (data.total_bytes <= GRADER_STATIC_DATA_MAX)
        return GRADER_COMPILE_OK;
    char *name = grader_demangle(data.largest);
    const char *shown = name ? name : data.largest, *colons = strrchr(shown, ':');
    char total[GRADER_NUMBER_TEXT_MAX], largest[GRADER_NUMBER_TEXT_MAX],
        limit[GRADER_NUMBER_TEXT_MAX];
    char message[GRADER_MESSAGE_MAX];
    grader_bytes_text(data.total_bytes, true, total);
    grader_bytes_text(data.largest_bytes, true, largest);
    grader_bytes_text(GRADER_STATIC_DATA_MAX, true, limit);
    if (data.largest_bytes == data.total_bytes)
        snprintf(message, sizeof message,
                 "'%.100s' takes %.32s of device memory; a kernel's __device__ and __constant__ "
                 "variables may take at most %.32s: keep large data in the exercise's buffers",
                 shown, total, limit);
    else
        snprintf(message, sizeof message,
                 "the __device__ and __constant__ variables take %.32s ('%.100s' alone %.32s); at "
                 "most %.32s fit a grading job: keep large data in the exercise's buffers",
                 total, shown, largest, limit);
    bool added =
        add_diagnostic(result, line_of_word(source, size, colons ? colons + 1 : shown), message);
    free(name);
    free(result->ptx);
    result->ptx = NULL;
    result->ptx_size = 0;
    return added ? finish_failed(result)
                 : finish(result, GRADER_COMPILE_INTERNAL, "out of memory reporting an error");
}

enum grader_compile_status grader_compile(const char *source, size_t size,
                                          const struct grader_compile_options *options,
                                          struct grader_compile_result *result)
{
    char why[GRADER_MESSAGE_MAX];
    memset(result, 0, sizeof *result);
    if (!grader_source_check(source, size, why))
        return finish(result, GRADER_COMPILE_REJECTED, "%s", why);
    const char *arch = options && options->arch ? options->arch : GRADER_DEFAULT_ARCH;
    const char *file_name =
        options && options->file_name ? options->file_name : GRADER_DEFAULT_FILE_NAME;

    /* NVRTC wants a NUL-terminated text; the caller's buffer need not be. */
    char *text = strndup(source, size);
    char *arch_option = NULL;
    int n_options = 0;
    const char **argv = text ? build_options(options, arch, &arch_option, &n_options) : NULL;
    if (!argv) {
        free(text);
        return finish(result, GRADER_COMPILE_INTERNAL, "out of memory preparing the compile");
    }
    enum grader_compile_status status =
        run_nvrtc(text, file_name, argv, n_options, options, result);
    if (status == GRADER_COMPILE_ERROR && is_real_arch(arch) &&
        grader_count_diagnostics(result, GRADER_SEVERITY_ERROR) == 0) {
        /* A verbose ptxas reports some failures (too much shared memory for
         * a block) with no message at all; compile again without -v, which
         * is the last option, to hear why. */
        grader_compile_result_free(result);
        status = run_nvrtc(text, file_name, argv, n_options - 1, options, result);
    }
    if (status == GRADER_COMPILE_OK)
        status = check_static_data(source, size, result);
    free(argv);
    free(arch_option);
    free(text);
    return status;
}

void grader_compile_result_free(struct grader_compile_result *result)
{
    free(result->ptx);
    free(result->log);
    grader_diagnostics_free(result->diagnostics, result->n_diagnostics);
    for (size_t i = 0; i < result->n_kernels; i++) {
        free(result->kernels[i].name);
        free(result->kernels[i].signature);
    }
    free(result->kernels);
    for (size_t i = 0; i < result->n_lowered_names; i++)
        free(result->lowered_names[i]);
    free(result->lowered_names);
    memset(result, 0, sizeof *result);
}

size_t grader_count_diagnostics(const struct grader_compile_result *result,
                                enum grader_severity severity)
{
    size_t n = 0;
    for (size_t i = 0; i < result->n_diagnostics; i++)
        n += result->diagnostics[i].severity == severity;
    return n;
}

const char *grader_severity_name(enum grader_severity severity)
{
    switch (severity) {
    case GRADER_SEVERITY_ERROR:
        return "error";
    case GRADER_SEVERITY_WARNING:
        return "warning";
    case GRADER_SEVERITY_NOTE:
        return "note";
    }
    return "error";
}

/* Reads "sm_NN[a|f]" or "compute_NN[a|f]"; -1 when `arch` is neither. */
static int arch_number(const char *arch)
{
    const char *digits = strncmp(arch, "sm_", 3) == 0        ? arch + 3
                         : strncmp(arch, "compute_", 8) == 0 ? arch + 8
                                                             : NULL;
    if (!digits || *digits < '1' || *digits > '9')
        return -1;
    int number = 0;
    for (; *digits >= '0' && *digits <= '9' && number < 10000; digits++)
        number = number * 10 + (*digits - '0');
    if ((*digits == 'a' || *digits == 'f') && digits[1] == '\0')
        digits++;
    return *digits == '\0' && number < 10000 ? number : -1;
}

bool grader_arch_supported(const char *arch, char why[GRADER_MESSAGE_MAX])
{
    int count = 0;
    int *supported = NULL;
    int number = arch_number(arch);
    bool found = false;
    if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0 &&
        (supported = calloc((size_t)count, sizeof *supported)) != NULL &&
        nvrtcGetSupportedArchs(supported) == NVRTC_SUCCESS) {
        for (int i = 0; i < count; i++)
            found |= supported[i] == number;
        if (!found)
            snprintf(why, GRADER_MESSAGE_MAX,
                     "'%.40s' is not an architecture NVRTC compiles for: use sm_NN or "
                     "compute_NN with NN from %d to %d (such as sm_90)",
                     arch, supported[0], supported[count - 1]);
    } else {
        snprintf(why, GRADER_MESSAGE_MAX, "NVRTC cannot list the architectures it supports");
    }
    free(supported);
    return found;
}

bool grader_nvrtc_version(char *buf, size_t size)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return false;
    snprintf(buf, size, "%d.%d", major, minor);
    return true;
}
