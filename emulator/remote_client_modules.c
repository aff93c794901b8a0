/*
 * The remote driver's client: links, modules, functions and launches.
 *
 * JIT log buffers are the caller's: the server sends what its logs say
 * with each reply and it is written here into the caller's buffers, as
 * the driver would (a link's buffers and option values, as cuda.h says,
 * live as long as the link, which keeps them here). Images go to the
 * server as text (PTX, up to its terminator); the linked image comes back
 * into memory the link owns until cuLinkDestroy. Kernel parameters are
 * packed where the server says the kernel declares them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "remote_client.h"

/* The entries of cuLaunchKernel's `extra` read before its END: a buffer
 * and its size, and room for what else a caller may put there. */
#define EXTRA_ENTRIES_MAX 8

struct client_jit {
    unsigned count;
    struct remote_jit_option wire[REMOTE_JIT_OPTIONS];
    char *info, *error; /* the caller's log buffers (NULL: none) */
    size_t info_capacity, error_capacity;
    void **info_size, **error_size; /* the caller's size values: get the bytes written */
};

/* The caller's options for the wire; its log buffers kept. */
static CUresult jit_encode(unsigned n, CUjit_option *options, void **values, struct client_jit *jit)
{
    memset(jit, 0, sizeof *jit);
    if (n > REMOTE_JIT_OPTIONS || (n > 0 && (options == NULL || values == NULL)))
        return CUDA_ERROR_INVALID_VALUE;
    jit->count = n;
    for (unsigned i = 0; i < n; i++) {
        jit->wire[i] = (struct remote_jit_option){.option = (uint32_t)options[i],
                                                  .value = (uintptr_t)values[i]};
        if (options[i] == CU_JIT_INFO_LOG_BUFFER)
            jit->info = values[i];
        else if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
            jit->error = values[i];
        else if (options[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
            jit->info_size = &values[i], jit->info_capacity = (uintptr_t)values[i];
        else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            jit->error_size = &values[i], jit->error_capacity = (uintptr_t)values[i];
    }
    return CUDA_SUCCESS;
}

static void log_put(char *buffer, size_t capacity, void **size, const char *text, size_t length)
{
    if (buffer == NULL || size == NULL || capacity == 0)
        return;
    length = length < capacity - 1 ? length : capacity - 1;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    *size = (void *)(uintptr_t)(length > 0 ? length + 1 : 0);
}

/* What the server's logs say, into the caller's buffers. */
static void jit_logs(const struct client_jit *jit, const struct remote_message *reply,
                     const char *data)
{
    uint64_t info = reply->arg[REMOTE_LOG_INFO_BYTES], error = reply->arg[REMOTE_LOG_ERROR_BYTES];
    if (info > REMOTE_LOG_BYTES || error > REMOTE_LOG_BYTES || info + error > reply->inline_bytes)
        return;
    log_put(jit->info, jit->info_capacity, jit->info_size, data, info);
    log_put(jit->error, jit->error_capacity, jit->error_size, data + info, error);
}

/* A request carrying JIT options and answered with logs. */
static CUresult jit_call(struct remote_message *req, struct client_transfer *t,
                         const struct client_jit *jit, struct remote_message *reply)
{
    char logs[2 * REMOTE_LOG_BYTES];
    if (t->data == NULL) {
        t->data = jit->wire;
        req->inline_bytes = jit->count * (uint32_t)sizeof jit->wire[0];
    }
    t->reply_data = logs;
    t->reply_capacity = sizeof logs;
    memset(reply, 0, sizeof *reply);
    CUresult rc = client_call(req, t, reply);
    jit_logs(jit, reply, logs);
    return rc;
}

/* ---------------------------------------------------------------- links */

struct client_link {
    CUlinkState handle;
    struct client_jit jit;
    char *image; /* what cuLinkComplete returned */
};

static struct {
    pthread_mutex_t lock;
    struct client_link *all[REMOTE_LINKS_MAX];
} links = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct client_link *link_find(CUlinkState handle)
{
    struct client_link *found = NULL;
    pthread_mutex_lock(&links.lock);
    for (int i = 0; found == NULL && i < REMOTE_LINKS_MAX; i++)
        if (links.all[i] != NULL && links.all[i]->handle == handle && handle != NULL)
            found = links.all[i];
    pthread_mutex_unlock(&links.lock);
    return found;
}

static bool link_keep(struct client_link *link)
{
    bool kept = false;
    pthread_mutex_lock(&links.lock);
    for (int i = 0; !kept && i < REMOTE_LINKS_MAX; i++)
        if (links.all[i] == NULL)
            links.all[i] = link, kept = true;
    pthread_mutex_unlock(&links.lock);
    return kept;
}

static void link_forget(struct client_link *link)
{
    pthread_mutex_lock(&links.lock);
    for (int i = 0; i < REMOTE_LINKS_MAX; i++)
        if (links.all[i] == link)
            links.all[i] = NULL;
    pthread_mutex_unlock(&links.lock);
    free(link->image);
    free(link);
}

CLIENT_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options,
                                    void **optionValues, CUlinkState *stateOut)
{
    if (stateOut == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct client_link *link = calloc(1, sizeof *link);
    if (link == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = jit_encode(numOptions, options, optionValues, &link->jit);
    struct remote_message req = client_request(REMOTE_LINK_CREATE), reply;
    struct client_transfer t = {0};
    if (rc == CUDA_SUCCESS)
        rc = jit_call(&req, &t, &link->jit, &reply);
    link->handle = (CUlinkState)(uintptr_t)reply.arg[0];
    if (rc == CUDA_SUCCESS && !link_keep(link)) {
        client_simple(REMOTE_LINK_DESTROY, reply.arg[0], 0, 0, 0, NULL);
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (rc != CUDA_SUCCESS) {
        free(link);
        return rc;
    }
    *stateOut = link->handle;
    return CUDA_SUCCESS;
}

/* The input's options tune a compiler the virtual GPU does not have: they
 * are not sent. */
CLIENT_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data,
                                     size_t size, const char *name, unsigned int numOptions,
                                     CUjit_option *options, void **optionValues)
{
    (void)numOptions, (void)options, (void)optionValues;
    struct client_link *link = link_find(state);
    if (link == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (data == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    const char *label = name != NULL ? name : "an input";
    size_t label_bytes = strnlen(label, REMOTE_NAME_MAX - 1) + 1;
    if (label[label_bytes - 1] != '\0' || size > client_window_bytes())
        return CUDA_ERROR_NOT_SUPPORTED;
    struct remote_message req = client_request(REMOTE_LINK_ADD_DATA), reply;
    req.arg[0] = (uintptr_t)state;
    req.arg[1] = (uint64_t)type;
    req.inline_bytes = (uint32_t)label_bytes;
    req.window_bytes = size;
    struct client_transfer t = {.data = label, .window_in = data};
    return jit_call(&req, &t, &link->jit, &reply);
}

CLIENT_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    struct client_link *link = link_find(state);
    if (link == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (cubinOut == NULL || sizeOut == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct remote_message req = client_request(REMOTE_LINK_COMPLETE), reply;
    req.arg[0] = (uintptr_t)state;
    char *image = NULL;
    struct client_transfer t = {.window_out = &image};
    CUresult rc = jit_call(&req, &t, &link->jit, &reply);
    if (rc != CUDA_SUCCESS)
        return rc;
    free(link->image);
    link->image = image;
    *cubinOut = image;
    *sizeOut = (size_t)reply.window_bytes;
    return CUDA_SUCCESS;
}

CLIENT_EXPORT CUresult cuLinkDestroy(CUlinkState state)
{
    struct client_link *link = link_find(state);
    if (link == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = client_simple(REMOTE_LINK_DESTROY, (uintptr_t)state, 0, 0, 0, NULL);
    link_forget(link);
    return rc;
}

/* -------------------------------------------------------------- modules */

/* The image is PTX text: it goes up to its terminator. */
CLIENT_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                          unsigned int numOptions, CUjit_option *options,
                                          void **optionValues)
{
    if (module == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    size_t window = client_window_bytes();
    size_t bytes = strnlen(image, window) + 1;
    if (bytes > window)
        return window > 0 ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NO_DEVICE;
    struct client_jit jit;
    CUresult rc = jit_encode(numOptions, options, optionValues, &jit);
    struct remote_message req = client_request(REMOTE_MODULE_LOAD), reply;
    req.window_bytes = bytes;
    struct client_transfer t = {.window_in = image};
    if (rc == CUDA_SUCCESS)
        rc = jit_call(&req, &t, &jit, &reply);
    if (rc == CUDA_SUCCESS)
        *module = (CUmodule)(uintptr_t)reply.arg[0];
    return rc;
}

CLIENT_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return cuModuleLoadDataEx(module, image, 0, NULL, NULL);
}

CLIENT_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    return client_simple(REMOTE_MODULE_UNLOAD, (uintptr_t)hmod, 0, 0, 0, NULL);
}

/* A request naming something of a module: `name` inline. */
static CUresult module_named(enum remote_op op, CUmodule hmod, const char *name,
                             struct remote_message *reply)
{
    if (name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    size_t bytes = strnlen(name, REMOTE_NAME_MAX - 1) + 1;
    if (name[bytes - 1] != '\0')
        return CUDA_ERROR_NOT_FOUND;
    struct remote_message req = client_request(op);
    req.arg[0] = (uintptr_t)hmod;
    req.inline_bytes = (uint32_t)bytes;
    struct client_transfer t = {.data = name};
    return client_call(&req, &t, reply);
}

CLIENT_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    if (hfunc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct remote_message reply;
    CUresult rc = module_named(REMOTE_MODULE_GET_FUNCTION, hmod, name, &reply);
    if (rc == CUDA_SUCCESS)
        *hfunc = (CUfunction)(uintptr_t)reply.arg[0];
    return rc;
}

CLIENT_EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                         const char *name)
{
    struct remote_message reply;
    CUresult rc = module_named(REMOTE_MODULE_GET_GLOBAL, hmod, name, &reply);
    if (rc == CUDA_SUCCESS && dptr != NULL)
        *dptr = reply.arg[0];
    if (rc == CUDA_SUCCESS && bytes != NULL)
        *bytes = (size_t)reply.arg[1];
    return rc;
}

/* ------------------------------------------------------------ functions */

CLIENT_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CLIENT_RETURN_VALUE(pi, int, REMOTE_FUNC_GET_ATTRIBUTE, (uint64_t)attrib, (uintptr_t)hfunc, 0,
                        0);
}

CLIENT_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    return client_simple(REMOTE_FUNC_SET_CACHE_CONFIG, (uintptr_t)hfunc, (uint64_t)config, 0, 0,
                         NULL);
}

/* kernelParams packed where the kernel declares each parameter, into
 * `buffer` (REMOTE_INLINE_MAX bytes); `*bytes` gets the space's size. */
static CUresult launch_pack(CUfunction f, void **kernelParams, unsigned char *buffer, size_t *bytes)
{
    size_t layout_bytes = 2 * REMOTE_PARAMS_MAX * sizeof(uint32_t);
    uint32_t *layout = malloc(layout_bytes);
    if (layout == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct remote_message req = client_request(REMOTE_FUNC_PARAMS), reply;
    req.arg[0] = (uintptr_t)f;
    struct client_transfer t = {.reply_data = layout, .reply_capacity = layout_bytes};
    CUresult rc = client_call(&req, &t, &reply);
    uint64_t count = reply.arg[0];
    if (rc == CUDA_SUCCESS && (count > REMOTE_PARAMS_MAX || reply.inline_bytes < count * 8))
        rc = CUDA_ERROR_NOT_SUPPORTED;
    *bytes = 0;
    for (uint64_t i = 0; rc == CUDA_SUCCESS && i < count; i++) {
        uint64_t offset = layout[2 * i], size = layout[2 * i + 1];
        if (offset + size > REMOTE_INLINE_MAX)
            rc = CUDA_ERROR_NOT_SUPPORTED;
        else if (kernelParams[i] == NULL)
            rc = CUDA_ERROR_INVALID_VALUE;
        else
            memcpy(buffer + offset, kernelParams[i], size);
        *bytes = offset + size > *bytes ? offset + size : *bytes;
    }
    free(layout);
    return rc;
}

/* extra's buffer (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE) copied to `buffer`. */
static CUresult launch_extra(void **extra, unsigned char *buffer, size_t *bytes)
{
    const void *pointer = NULL;
    const size_t *size = NULL;
    for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END && i < EXTRA_ENTRIES_MAX; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            pointer = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = extra[i + 1];
        else
            return CUDA_ERROR_INVALID_VALUE;
    }
    if (pointer == NULL || size == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (*size > REMOTE_INLINE_MAX)
        return CUDA_ERROR_NOT_SUPPORTED;
    memcpy(buffer, pointer, *size);
    *bytes = *size;
    return CUDA_SUCCESS;
}

CLIENT_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                      unsigned int gridDimZ, unsigned int blockDimX,
                                      unsigned int blockDimY, unsigned int blockDimZ,
                                      unsigned int sharedMemBytes, CUstream hStream,
                                      void **kernelParams, void **extra)
{
    if (kernelParams != NULL && extra != NULL)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned char *buffer = calloc(1, REMOTE_INLINE_MAX);
    if (buffer == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t bytes = 0;
    CUresult rc = CUDA_SUCCESS;
    if (kernelParams != NULL)
        rc = launch_pack(f, kernelParams, buffer, &bytes);
    else if (extra != NULL)
        rc = launch_extra(extra, buffer, &bytes);
    struct remote_message req = client_request(REMOTE_LAUNCH), reply;
    uint64_t *a = req.arg;
    a[REMOTE_LAUNCH_FUNCTION] = (uintptr_t)f;
    a[REMOTE_LAUNCH_GRID_XY] = gridDimX | (uint64_t)gridDimY << 32;
    a[REMOTE_LAUNCH_GRID_Z] = gridDimZ;
    a[REMOTE_LAUNCH_BLOCK_XY] = blockDimX | (uint64_t)blockDimY << 32;
    a[REMOTE_LAUNCH_BLOCK_Z] = blockDimZ;
    a[REMOTE_LAUNCH_SHARED] = sharedMemBytes;
    a[REMOTE_LAUNCH_STREAM] = (uintptr_t)hStream;
    req.inline_bytes = (uint32_t)bytes;
    struct client_transfer t = {.data = buffer};
    if (rc == CUDA_SUCCESS)
        rc = client_call(&req, &t, &reply);
    free(buffer);
    return rc;
}
