/*
 * The remote driver's links, modules, functions and launches: the calls
 * that carry variable-sized data (JIT options and logs, names, images,
 * kernel parameters).
 *
 * JIT log buffers are the server's own (a client's buffer is a pointer of
 * its process): what the logs say goes back inline with each reply, and
 * the client copies it into its buffers. A link keeps its logs and option
 * values here until it is destroyed, as the driver writes to them at each
 * call. Images and link inputs are copied out of the window (the client
 * may change it at any moment) and NUL-terminated before they are read;
 * fatbinaries, whose headers give sizes the server would have to trust,
 * are not taken (CUDA_ERROR_NOT_SUPPORTED): the client sends PTX.
 */
#include <stdlib.h>
#include <string.h>

#include "remote_server.h"

/* Zero bytes after a copy of the window: a NUL-terminated text, and room
 * for a magic number read at its start. */
#define WINDOW_COPY_PAD 8

struct remote_jit {
    unsigned count;
    CUjit_option options[REMOTE_JIT_OPTIONS];
    void *values[REMOTE_JIT_OPTIONS];
    char info[REMOTE_LOG_BYTES];
    char error[REMOTE_LOG_BYTES];
};

struct remote_link {
    CUlinkState link;
    struct remote_jit jit;
};

/* The options of the request's inline bytes: log buffers become the
 * server's, their sizes at most its own; other values are integers. */
static CUresult jit_decode(const struct remote_session *s, const struct remote_message *req,
                           struct remote_jit *jit)
{
    size_t size = sizeof(struct remote_jit_option);
    if (req->inline_bytes % size != 0 || req->inline_bytes / size > REMOTE_JIT_OPTIONS)
        return CUDA_ERROR_INVALID_VALUE;
    jit->count = (unsigned)(req->inline_bytes / size);
    for (unsigned i = 0; i < jit->count; i++) {
        struct remote_jit_option o;
        memcpy(&o, s->in + i * size, size);
        jit->options[i] = (CUjit_option)o.option;
        uint64_t value = o.value;
        if (o.option == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ||
            o.option == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            value = value < REMOTE_LOG_BYTES ? value : REMOTE_LOG_BYTES;
        jit->values[i] = (void *)(uintptr_t)value;
        if (o.option == CU_JIT_INFO_LOG_BUFFER)
            jit->values[i] = jit->info;
        else if (o.option == CU_JIT_ERROR_LOG_BUFFER)
            jit->values[i] = jit->error;
    }
    return CUDA_SUCCESS;
}

/* The logs, inline: their lengths in the reply's REMOTE_LOG_* values. */
static void jit_reply(struct remote_session *s, const struct remote_jit *jit,
                      struct remote_message *reply)
{
    size_t info = strnlen(jit->info, sizeof jit->info - 1);
    size_t error = strnlen(jit->error, sizeof jit->error - 1);
    memcpy(s->out, jit->info, info);
    memcpy(s->out + info, jit->error, error);
    reply->arg[REMOTE_LOG_INFO_BYTES] = info;
    reply->arg[REMOTE_LOG_ERROR_BYTES] = error;
    reply->inline_bytes = (uint32_t)(info + error);
}

/* The request's inline name: NUL-terminated, at most REMOTE_NAME_MAX bytes. */
static CUresult inline_name(const struct remote_session *s, const struct remote_message *req,
                            const char **name)
{
    uint32_t n = req->inline_bytes;
    if (n == 0 || n > REMOTE_NAME_MAX || s->in[n - 1] != '\0')
        return CUDA_ERROR_INVALID_VALUE;
    *name = (const char *)s->in;
    return CUDA_SUCCESS;
}

/* A copy of the request's window bytes, NUL-padded (the caller frees it). */
static CUresult window_copy(const struct remote_session *s, const struct remote_message *req,
                            char **copy)
{
    if (req->window_bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    *copy = calloc(1, req->window_bytes + WINDOW_COPY_PAD);
    if (*copy == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(*copy, s->window, req->window_bytes);
    return emu_fatbin_is(*copy) ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- links */

static struct remote_link **link_slot(struct remote_session *s, uint64_t handle)
{
    for (int i = 0; i < REMOTE_LINKS_MAX; i++)
        if (s->links[i] != NULL && (uintptr_t)s->links[i]->link == handle)
            return &s->links[i];
    return NULL;
}

CUresult remote_link_create(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply)
{
    struct remote_link **slot = NULL;
    for (int i = 0; slot == NULL && i < REMOTE_LINKS_MAX; i++)
        slot = s->links[i] == NULL ? &s->links[i] : NULL;
    if (slot == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct remote_link *link = calloc(1, sizeof *link);
    if (link == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = jit_decode(s, req, &link->jit);
    if (rc == CUDA_SUCCESS)
        rc = cuLinkCreate(link->jit.count, link->jit.options, link->jit.values, &link->link);
    jit_reply(s, &link->jit, reply);
    if (rc != CUDA_SUCCESS) {
        free(link);
        return rc;
    }
    *slot = link;
    reply->arg[0] = (uintptr_t)link->link;
    return CUDA_SUCCESS;
}

/* 0: the link, 1: the input's type; inline: its name; window: its data. */
CUresult remote_link_add_data(struct remote_session *s, const struct remote_message *req,
                              struct remote_message *reply)
{
    struct remote_link **slot = link_slot(s, req->arg[0]);
    if (slot == NULL || req->arg[0] == 0)
        return CUDA_ERROR_INVALID_HANDLE;
    const char *name;
    char *data = NULL;
    CUresult rc = inline_name(s, req, &name);
    if (rc == CUDA_SUCCESS && req->arg[1] == CU_JIT_INPUT_FATBINARY)
        rc = CUDA_ERROR_NOT_SUPPORTED;
    if (rc == CUDA_SUCCESS)
        rc = window_copy(s, req, &data);
    if (rc == CUDA_SUCCESS)
        rc = cuLinkAddData((*slot)->link, (CUjitInputType)req->arg[1], data,
                           (size_t)req->window_bytes, name, 0, NULL, NULL);
    free(data);
    jit_reply(s, &(*slot)->jit, reply);
    return rc;
}

/* The linked image goes back in the window. */
CUresult remote_link_complete(struct remote_session *s, const struct remote_message *req,
                              struct remote_message *reply)
{
    struct remote_link **slot = link_slot(s, req->arg[0]);
    if (slot == NULL || req->arg[0] == 0)
        return CUDA_ERROR_INVALID_HANDLE;
    void *image = NULL;
    size_t size = 0;
    CUresult rc = cuLinkComplete((*slot)->link, &image, &size);
    if (rc == CUDA_SUCCESS && size > s->window_bytes)
        rc = CUDA_ERROR_NOT_SUPPORTED;
    if (rc == CUDA_SUCCESS) {
        memcpy(s->window, image, size);
        reply->window_bytes = size;
    }
    jit_reply(s, &(*slot)->jit, reply);
    return rc;
}

static void link_destroy(struct remote_link **slot)
{
    cuLinkDestroy((*slot)->link);
    free(*slot);
    *slot = NULL;
}

CUresult remote_link_destroy(struct remote_session *s, const struct remote_message *req,
                             struct remote_message *reply)
{
    (void)reply;
    struct remote_link **slot = link_slot(s, req->arg[0]);
    if (slot == NULL || req->arg[0] == 0)
        return CUDA_ERROR_INVALID_HANDLE;
    link_destroy(slot);
    return CUDA_SUCCESS;
}

void remote_links_release(struct remote_session *s)
{
    for (int i = 0; i < REMOTE_LINKS_MAX; i++)
        if (s->links[i] != NULL)
            link_destroy(&s->links[i]);
}

/* -------------------------------------------------------------- modules */

/* inline: JIT options; window: the image (PTX). The variables it places
 * hold bytes the host gave (remote_host_module_loaded). */
CUresult remote_module_load(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply)
{
    struct remote_jit *jit = calloc(1, sizeof *jit);
    if (jit == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    char *image = NULL;
    CUmodule module = NULL;
    uint64_t newest = remote_host_newest(s);
    CUresult rc = jit_decode(s, req, jit);
    if (rc == CUDA_SUCCESS)
        rc = window_copy(s, req, &image);
    if (rc == CUDA_SUCCESS)
        rc = cuModuleLoadDataEx(&module, image, jit->count, jit->options, jit->values);
    if (rc == CUDA_SUCCESS)
        remote_host_module_loaded(s, newest);
    jit_reply(s, jit, reply);
    reply->arg[0] = (uintptr_t)module;
    free(image);
    free(jit);
    return rc;
}

CUresult remote_module_get_function(struct remote_session *s, const struct remote_message *req,
                                    struct remote_message *reply)
{
    const char *name;
    CUfunction function = NULL;
    CUresult rc = remote_owned(s, DRIVER_MODULE, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = inline_name(s, req, &name);
    if (rc == CUDA_SUCCESS)
        rc = cuModuleGetFunction(&function, (CUmodule)(uintptr_t)req->arg[0], name);
    reply->arg[0] = (uintptr_t)function;
    return rc;
}

CUresult remote_module_get_global(struct remote_session *s, const struct remote_message *req,
                                  struct remote_message *reply)
{
    const char *name;
    CUdeviceptr pointer = 0;
    size_t bytes = 0;
    CUresult rc = remote_owned(s, DRIVER_MODULE, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = inline_name(s, req, &name);
    if (rc == CUDA_SUCCESS)
        rc = cuModuleGetGlobal(&pointer, &bytes, (CUmodule)(uintptr_t)req->arg[0], name);
    reply->arg[0] = pointer;
    reply->arg[1] = bytes;
    return rc;
}

/* ------------------------------------------------------------ functions */

/* Where each parameter lies in the kernel's parameter space, for the
 * client to pack kernelParams as the kernel declares them. */
CUresult remote_func_params(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply)
{
    CUfunction function = (CUfunction)(uintptr_t)req->arg[0];
    CUresult rc = remote_owned(s, DRIVER_FUNCTION, req->arg[0]);
    uint32_t count = 0;
    size_t offset, size;
    while (rc == CUDA_SUCCESS && cuFuncGetParamInfo(function, count, &offset, &size) == 0) {
        if (count == REMOTE_PARAMS_MAX)
            return CUDA_ERROR_NOT_SUPPORTED;
        uint32_t pair[2] = {(uint32_t)offset, (uint32_t)size};
        memcpy(s->out + count * sizeof pair, pair, sizeof pair);
        count++;
    }
    reply->arg[0] = count;
    reply->inline_bytes = rc == CUDA_SUCCESS ? count * 2 * sizeof(uint32_t) : 0;
    return rc;
}

/* inline: the packed parameter buffer, which the launch checks against
 * the kernel's parameter space. */
CUresult remote_launch(struct remote_session *s, const struct remote_message *req,
                       struct remote_message *reply)
{
    (void)reply;
    const uint64_t *a = req->arg;
    CUresult rc = remote_owned(s, DRIVER_FUNCTION, a[REMOTE_LAUNCH_FUNCTION]);
    if (rc == CUDA_SUCCESS)
        rc = remote_stream_owned(s, a[REMOTE_LAUNCH_STREAM]);
    if (rc != CUDA_SUCCESS)
        return rc;
    size_t size = req->inline_bytes;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, s->in, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    rc = cuLaunchKernel(
        (CUfunction)(uintptr_t)a[REMOTE_LAUNCH_FUNCTION], (unsigned)a[REMOTE_LAUNCH_GRID_XY],
        (unsigned)(a[REMOTE_LAUNCH_GRID_XY] >> 32), (unsigned)a[REMOTE_LAUNCH_GRID_Z],
        (unsigned)a[REMOTE_LAUNCH_BLOCK_XY], (unsigned)(a[REMOTE_LAUNCH_BLOCK_XY] >> 32),
        (unsigned)a[REMOTE_LAUNCH_BLOCK_Z], (unsigned)a[REMOTE_LAUNCH_SHARED],
        (CUstream)(uintptr_t)a[REMOTE_LAUNCH_STREAM], NULL, size > 0 ? extra : NULL);
    if (rc == CUDA_SUCCESS)
        remote_served_launch(s);
    return rc;
}
