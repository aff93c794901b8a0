/*
 * The JIT linker: cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy.
 *
 * Runtimes such as numba and cupy compile a kernel to PTX and hand it to
 * the linker, alone or beside libraries, then load what cuLinkComplete
 * returns with cuModuleLoadData. The virtual GPU's loader takes one PTX
 * module and cannot resolve calls from one module into another, so the
 * linker keeps one PTX input: the one that defines kernels (.entry), or
 * the first when none does. Another input is left out, with a line in the
 * info log, when the kept one does not refer to anything it defines (a
 * library of helpers the kernel does not call); an input that defines
 * kernels too, or that the kept one calls into (its .extern declarations),
 * would need real linking, and cuLinkComplete refuses it with
 * CUDA_ERROR_NOT_SUPPORTED and a line in the error log. The linked image
 * is the kept PTX text, which cuModuleLoadData loads.
 *
 * Inputs: PTX (CU_JIT_INPUT_PTX) and fatbinaries holding PTX
 * (CU_JIT_INPUT_FATBINARY). A PTX input is the first `size` bytes of the
 * data, or less where a NUL ends the text: callers count the terminator
 * (nvcc's examples) or not (numba passes len(ptx), the NUL just past it),
 * and a real driver takes both. Cubins and host objects hold machine code for
 * a real GPU (CUDA_ERROR_NO_BINARY_FOR_GPU); libraries and NVVM IR are not
 * supported (CUDA_ERROR_NOT_SUPPORTED).
 *
 * The log buffers given to cuLinkCreate collect every call's messages
 * until cuLinkDestroy, as cuda.h says, so its optionValues must live as
 * long as the link.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define LINK_LOG_BYTES DRIVER_JIT_LOG_BYTES
#define LINK_NAME_MAX  256

struct link_input {
    char name[LINK_NAME_MAX];
    char *ptx;
};

struct CUlinkState_st {
    struct driver_handle handle;
    struct driver_jit_logs logs; /* the caller's buffers, written as the link goes */
    struct link_input *inputs;
    int n_inputs;
    char *image; /* what cuLinkComplete returned; the link owns it */
};

static void link_free(struct CUlinkState_st *link)
{
    for (int i = 0; i < link->n_inputs; i++)
        free(link->inputs[i].ptx);
    free(link->inputs);
    free(link->image);
    free(link);
}

static void link_release(struct driver_handle *handle)
{
    link_free((struct CUlinkState_st *)handle);
}

void driver_links_release(struct CUctx_st *ctx)
{
    driver_handle_remove_if(DRIVER_LINK, driver_handle_owned_by, ctx, link_release);
}

/* Takes the lock and checks `link` against the current context; the
 * caller ends with driver_leave(). */
static CUresult link_enter(CUlinkState link)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_LINK, link, ctx);
    return rc;
}

__attribute__((format(printf, 3, 4))) static CUresult link_error(CUlinkState link, CUresult rc,
                                                                 const char *format, ...)
{
    char line[LINK_LOG_BYTES];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    driver_jit_log_append(&link->logs.error, line);
    return rc;
}

EMU_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options,
                                 void **optionValues, CUlinkState *stateOut)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && stateOut == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    struct driver_jit_logs logs;
    if (rc == CUDA_SUCCESS)
        rc = driver_jit_options(numOptions, options, optionValues, &logs);
    struct CUlinkState_st *link = NULL;
    if (rc == CUDA_SUCCESS && (link = calloc(1, sizeof *link)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        link->logs = logs;
        driver_handle_add(DRIVER_LINK, &link->handle, ctx);
        *stateOut = link;
    }
    return driver_leave(rc);
}

/* ---------------------------------------------------------------- inputs */

/* The options of one input may tune the compiler, not name log buffers. */
static bool input_options_valid(unsigned n, const CUjit_option *options, void **values)
{
    if (n > 0 && (options == NULL || values == NULL))
        return false;
    for (unsigned i = 0; i < n; i++)
        if ((unsigned)options[i] >= CU_JIT_NUM_OPTIONS || options[i] == CU_JIT_WALL_TIME ||
            options[i] == CU_JIT_INFO_LOG_BUFFER || options[i] == CU_JIT_ERROR_LOG_BUFFER ||
            options[i] == CU_JIT_TARGET_FROM_CUCONTEXT || options[i] == CU_JIT_TARGET)
            return false;
    return true;
}

/* The PTX text of an input (malloc'ed), or why there is none. */
static CUresult input_ptx(CUlinkState link, CUjitInputType type, const void *data, size_t size,
                          const char *name, char **ptx)
{
    char log[LINK_LOG_BYTES] = "";
    const char *text;
    char *unpacked = NULL;
    switch (type) {
    case CU_JIT_INPUT_PTX: /* `size` bytes, or fewer when a NUL ends the text sooner */
        *ptx = strndup(data, size);
        return *ptx != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    case CU_JIT_INPUT_FATBINARY:
        if (!emu_fatbin_is(data))
            return link_error(link, CUDA_ERROR_INVALID_IMAGE, "%s: not a fatbinary", name);
        CUresult rc = driver_image_ptx(data, &text, &unpacked, log, sizeof log);
        if (rc != CUDA_SUCCESS)
            return link_error(link, rc, "%s: %s", name, log);
        *ptx = unpacked;
        return CUDA_SUCCESS;
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_OBJECT:
        return link_error(link, CUDA_ERROR_NO_BINARY_FOR_GPU,
                          "%s: cubins and objects hold machine code for a real GPU; the virtual "
                          "GPU links PTX (CU_JIT_INPUT_PTX) or fatbinaries holding PTX",
                          name);
    default: /* CU_JIT_INPUT_LIBRARY, CU_JIT_INPUT_NVVM */
        return link_error(link, CUDA_ERROR_NOT_SUPPORTED,
                          "%s: the virtual GPU links PTX and fatbinaries holding PTX, not "
                          "libraries or NVVM IR",
                          name);
    }
}

static CUresult input_add(CUlinkState link, char *ptx, const char *name)
{
    struct link_input *grown = realloc(link->inputs, sizeof *grown * (size_t)(link->n_inputs + 1));
    if (grown == NULL) {
        free(ptx);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    link->inputs = grown;
    struct link_input *input = &link->inputs[link->n_inputs++];
    snprintf(input->name, sizeof input->name, "%s", name);
    input->ptx = ptx;
    return CUDA_SUCCESS;
}

EMU_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                  const char *name, unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    CUresult rc = link_enter(state);
    if (rc == CUDA_SUCCESS &&
        (data == NULL || size == 0 || (unsigned)type >= CU_JIT_NUM_INPUT_TYPES ||
         !input_options_valid(numOptions, options, optionValues)))
        rc = CUDA_ERROR_INVALID_VALUE;
    char input_name[LINK_NAME_MAX];
    snprintf(input_name, sizeof input_name, "%s", name != NULL ? name : "an input");
    char *ptx = NULL;
    if (rc == CUDA_SUCCESS)
        rc = input_ptx(state, type, data, size, input_name, &ptx);
    if (rc == CUDA_SUCCESS)
        rc = input_add(state, ptx, input_name);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                  unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    CUresult rc = link_enter(state);
    if (rc == CUDA_SUCCESS && path == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    driver_leave(rc);
    if (rc != CUDA_SUCCESS)
        return rc;
    char *data = NULL;
    size_t size = 0;
    rc = driver_file_read(path, &data, &size);
    if (rc != CUDA_SUCCESS) {
        if (link_enter(state) == CUDA_SUCCESS)
            link_error(state, rc, "%s: cannot be read", path);
        driver_leave(CUDA_SUCCESS);
        return rc;
    }
    /* PTX's size counts its terminator, which driver_file_read added. */
    rc = cuLinkAddData(state, type, data, type == CU_JIT_INPUT_PTX ? size + 1 : size, path,
                       numOptions, options, optionValues);
    free(data);
    return rc;
}

/* --------------------------------------------------------------- linking */

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '%';
}

/* Whether `name` occurs in `text` as a whole identifier. */
static bool mentions(const char *text, const char *name, size_t length)
{
    for (const char *p = strstr(text, name); p != NULL; p = strstr(p + 1, name))
        if ((p == text || !is_name_char(p[-1])) && !is_name_char(p[length]))
            return true;
    return false;
}

/* The name an `.extern` declaration at `p` declares: past its directives,
 * numbers and parenthesized return parameters; `length` gets its length. */
static const char *extern_name(const char *p, size_t *length)
{
    while (*p != '\0' && *p != ';') {
        if (*p == '(') {
            int depth = 0;
            do
                depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            while (*++p != '\0' && depth > 0);
        } else if (*p == '.' || (*p >= '0' && *p <= '9')) {
            while (is_name_char(*p) || *p == '.')
                p++;
        } else if (is_name_char(*p)) {
            const char *start = p;
            while (is_name_char(*p))
                p++;
            *length = (size_t)(p - start);
            return start;
        } else
            p++;
    }
    return NULL;
}

/* The first `.extern` symbol of `kept` that `other` mentions; NULL if none. */
static const char *called_into(const char *kept, const char *other, char *name, size_t size)
{
    static const char directive[] = ".extern";
    for (const char *p = strstr(kept, directive); p != NULL; p = strstr(p + 1, directive)) {
        size_t length = 0;
        const char *n = extern_name(p + sizeof directive - 1, &length);
        if (n == NULL || length >= size)
            continue;
        memcpy(name, n, length);
        name[length] = '\0';
        if (mentions(other, name, length))
            return name;
    }
    return NULL;
}

/* The input to keep: the one that defines kernels, or the first. */
static CUresult link_main(CUlinkState link, int *keep)
{
    *keep = -1;
    for (int i = 0; i < link->n_inputs; i++) {
        if (strstr(link->inputs[i].ptx, ".entry") == NULL)
            continue;
        if (*keep >= 0)
            return link_error(link, CUDA_ERROR_NOT_SUPPORTED,
                              "%s and %s both define kernels; the virtual GPU cannot link "
                              "several PTX modules into one (load each with cuModuleLoadData)",
                              link->inputs[*keep].name, link->inputs[i].name);
        *keep = i;
    }
    if (*keep < 0)
        *keep = 0;
    return CUDA_SUCCESS;
}

/* Checks that every input but `keep` can be left out. */
static CUresult link_others(CUlinkState link, int keep)
{
    const struct link_input *kept = &link->inputs[keep];
    char name[LINK_NAME_MAX], line[LINK_LOG_BYTES];
    for (int i = 0; i < link->n_inputs; i++) {
        if (i == keep)
            continue;
        if (called_into(kept->ptx, link->inputs[i].ptx, name, sizeof name) != NULL)
            return link_error(link, CUDA_ERROR_NOT_SUPPORTED,
                              "%s refers to %s, which %s defines; the virtual GPU cannot link "
                              "several PTX modules into one: compile them as one (NVRTC, nvcc "
                              "-ptx of one source)",
                              kept->name, name, link->inputs[i].name);
        snprintf(line, sizeof line, "%s: left out, %s uses nothing it defines",
                 link->inputs[i].name, kept->name);
        driver_jit_log_append(&link->logs.info, line);
    }
    return CUDA_SUCCESS;
}

EMU_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    CUresult rc = link_enter(state);
    if (rc == CUDA_SUCCESS && cubinOut == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && state->n_inputs == 0)
        rc = link_error(state, CUDA_ERROR_INVALID_VALUE, "nothing to link: no input was added");
    int keep = 0;
    if (rc == CUDA_SUCCESS)
        rc = link_main(state, &keep);
    if (rc == CUDA_SUCCESS)
        rc = link_others(state, keep);
    char *image = NULL;
    if (rc == CUDA_SUCCESS && (image = strdup(state->inputs[keep].ptx)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        free(state->image);
        state->image = image;
        *cubinOut = image;
        if (sizeOut != NULL)
            *sizeOut = strlen(image) + 1;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuLinkDestroy(CUlinkState state)
{
    CUresult rc = link_enter(state);
    if (rc == CUDA_SUCCESS) {
        driver_handle_remove(DRIVER_LINK, &state->handle);
        link_free(state);
    }
    return driver_leave(rc);
}
