/*
 * Modules and functions: cuModuleLoad, cuModuleLoadData(Ex),
 * cuModuleLoadFatBinary, cuModuleUnload, cuModuleGetFunction,
 * cuModuleGetGlobal, cuFuncGetAttribute, cuFuncGetParamInfo, cuFuncSetAttribute,
 * cuFuncSetCacheConfig.
 *
 * The virtual GPU runs PTX: an image is the NUL-terminated PTX text NVRTC
 * or nvcc -ptx produced, or a fatbinary holding PTX (nvcc -fatbin
 * -arch=compute_90), whose PTX it loads as a driver JITs it (fatbin.c). A
 * cubin (ELF), or a fatbinary of cubins only, holds machine code for a
 * real GPU and is refused with CUDA_ERROR_NO_BINARY_FOR_GPU and a log line
 * saying what to load instead. The loader's messages go to the
 * CU_JIT_ERROR_LOG_BUFFER the caller passed, as the JIT compiler's would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"

/* The first bytes of a cubin. None is zero, so comparing stops at the end
 * of a shorter text. */
static const unsigned char elf_magic[] = {0x7f, 'E', 'L', 'F'};
#define MODULE_FILE_MAX ((size_t)1 << 30) /* the largest file cuModuleLoad reads */

/* ------------------------------------------------------------ releasing */

static bool function_of(const struct driver_handle *handle, const void *module)
{
    return ((const struct CUfunc_st *)handle)->module == module;
}

static void module_release(struct driver_handle *handle)
{
    struct CUmod_st *module = (struct CUmod_st *)handle;
    driver_handle_remove_if(DRIVER_FUNCTION, function_of, module, driver_handle_free);
    emu_module_unload(module->module);
    free(module);
}

void driver_modules_release(struct CUctx_st *ctx)
{
    driver_handle_remove_if(DRIVER_MODULE, driver_handle_owned_by, ctx, module_release);
}

/* -------------------------------------------------------------- loading */

static bool image_starts_with(const void *image, const unsigned char *magic, size_t length)
{
    const unsigned char *bytes = image;
    for (size_t i = 0; i < length; i++)
        if (bytes[i] != magic[i])
            return false;
    return true;
}

CUresult driver_image_ptx(const void *image, const char **ptx, char **unpacked, char *log,
                          size_t log_size)
{
    *unpacked = NULL;
    *ptx = image;
    if (image_starts_with(image, elf_magic, sizeof elf_magic)) {
        snprintf(log, log_size,
                 "the image is a cubin (machine code for a real GPU); the virtual GPU runs "
                 "PTX: load the PTX text (nvrtcGetPTX, nvcc -ptx) or a fatbinary holding PTX");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (!emu_fatbin_is(image))
        return CUDA_SUCCESS;
    const struct emu_device_model *d = driver.device;
    CUresult rc = emu_fatbin_ptx(image, d->cc_major * 10 + d->cc_minor, unpacked, log, log_size);
    *ptx = *unpacked;
    return rc;
}

static CUresult module_load_ptx(struct CUctx_st *ctx, const char *ptx, char *log, size_t log_size,
                                struct CUmod_st **out)
{
    struct CUmod_st *module = calloc(1, sizeof *module);
    if (module == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = emu_module_load(ptx, strlen(ptx), ctx->memory, &module->module, log, log_size);
    if (rc != CUDA_SUCCESS) {
        free(module);
        if (log[0] == '\0') {
            const char *name = "an unknown error";
            cuGetErrorName(rc, &name);
            snprintf(log, log_size, "the PTX loader failed with %s", name);
        }
        return rc;
    }
    driver_handle_add(DRIVER_MODULE, &module->handle, ctx);
    *out = module;
    return CUDA_SUCCESS;
}

static CUresult module_load(struct CUctx_st *ctx, const void *image, char *log, size_t log_size,
                            struct CUmod_st **out)
{
    const char *ptx;
    char *unpacked;
    CUresult rc = driver_image_ptx(image, &ptx, &unpacked, log, log_size);
    if (rc == CUDA_SUCCESS)
        rc = module_load_ptx(ctx, ptx, log, log_size, out);
    free(unpacked);
    return rc;
}

EMU_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                       CUjit_option *options, void **optionValues)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (module == NULL || image == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    struct driver_jit_logs logs;
    if (rc == CUDA_SUCCESS)
        rc = driver_jit_options(numOptions, options, optionValues, &logs);
    if (rc != CUDA_SUCCESS)
        return driver_leave(rc);
    char log[DRIVER_JIT_LOG_BYTES] = "";
    rc = module_load(ctx, image, log, sizeof log, module);
    driver_jit_log_append(&logs.error, log);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return cuModuleLoadDataEx(module, image, 0, NULL, NULL);
}

/* A fatbinary, or the wrapper nvcc puts around one, loads like any image. */
EMU_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return cuModuleLoadDataEx(module, fatCubin, 0, NULL, NULL);
}

CUresult driver_file_read(const char *path, char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return CUDA_ERROR_FILE_NOT_FOUND;
    CUresult rc = CUDA_SUCCESS;
    char *buffer = NULL;
    struct stat st;
    off_t length = 0;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        rc = CUDA_ERROR_FILE_NOT_FOUND; /* a directory, a pipe */
    else if ((length = st.st_size) < 0 || (uint64_t)length > MODULE_FILE_MAX ||
             (buffer = malloc((size_t)length + 1)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    else if (fread(buffer, 1, (size_t)length, f) != (size_t)length)
        rc = CUDA_ERROR_FILE_NOT_FOUND;
    fclose(f);
    if (rc != CUDA_SUCCESS) {
        free(buffer);
        return rc;
    }
    buffer[length] = '\0';
    *data = buffer;
    *size = (size_t)length;
    return CUDA_SUCCESS;
}

/* The file's contents load as cuModuleLoadData would load them. */
EMU_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (module == NULL || fname == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    driver_leave(rc);
    if (rc != CUDA_SUCCESS)
        return rc;
    char *image;
    size_t size;
    rc = driver_file_read(fname, &image, &size);
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = cuModuleLoadData(module, image);
    free(image);
    return rc;
}

/* A module of any context, current or not (driver_enter_owner). */
EMU_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter_owner(DRIVER_MODULE, hmod, &ctx);
    if (rc == CUDA_SUCCESS) {
        driver_handle_remove(DRIVER_MODULE, &hmod->handle);
        module_release(&hmod->handle);
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                      const char *name)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && name == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_MODULE, hmod, ctx);
    uint64_t address = 0;
    size_t size = 0;
    if (rc == CUDA_SUCCESS)
        rc = emu_module_global(hmod->module, name, &address, &size);
    if (rc == CUDA_SUCCESS && dptr != NULL)
        *dptr = (CUdeviceptr)address;
    if (rc == CUDA_SUCCESS && bytes != NULL)
        *bytes = size;
    return driver_leave(rc);
}

/* ------------------------------------------------------------ functions */

/* Registers limit the block as on a GPU only when the count is ptxas's
 * (kgemu_set_registers): the estimate from the PTX's virtual registers is
 * often several times what ptxas allocates, and refusing a launch a real
 * GPU accepts would fail a correct kernel. */
int driver_function_max_threads(const struct CUfunc_st *function,
                                const struct emu_device_model *device)
{
    const struct emu_function_info *info = emu_function_info(function->function);
    int max = device->max_threads_per_block;
    if (info->max_threads_per_block > 0 && info->max_threads_per_block < max)
        max = info->max_threads_per_block;
    if (info->registers_exact) {
        int by_registers = emu_occupancy_max_threads(device, info->registers);
        max = by_registers < max ? by_registers : max;
    }
    return max;
}

static struct CUfunc_st *function_find(const struct CUmod_st *module,
                                       const struct emu_function *function)
{
    for (struct driver_handle *h = driver.live[DRIVER_FUNCTION]; h != NULL; h = h->next) {
        struct CUfunc_st *f = (struct CUfunc_st *)h;
        if (f->module == module && f->function == function)
            return f;
    }
    return NULL;
}

static struct CUfunc_st *function_create(struct CUmod_st *module, struct emu_function *function)
{
    struct CUfunc_st *f = calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    const struct emu_function_info *info = emu_function_info(function);
    size_t default_shared = driver.device->shared_per_block;
    f->module = module;
    f->function = function;
    f->max_dynamic_shared =
        info->static_shared_bytes < default_shared ? default_shared - info->static_shared_bytes : 0;
    f->carveout = DRIVER_CARVEOUT_DEFAULT;
    driver_handle_add(DRIVER_FUNCTION, &f->handle, module->handle.context);
    return f;
}

/* Asking twice for the same kernel gives the same handle. */
EMU_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (hfunc == NULL || name == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_MODULE, hmod, ctx);
    struct emu_function *function = NULL;
    if (rc == CUDA_SUCCESS && (function = emu_module_function(hmod->module, name)) == NULL)
        rc = CUDA_ERROR_NOT_FOUND;
    struct CUfunc_st *f = NULL;
    if (rc == CUDA_SUCCESS && (f = function_find(hmod, function)) == NULL &&
        (f = function_create(hmod, function)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS)
        *hfunc = f;
    return driver_leave(rc);
}

/* CONST_SIZE_BYTES is 0: the loader does not account .const per kernel.
 * PTX_VERSION is the target the PTX was written for (90 for sm_90), and
 * BINARY_VERSION the device's, which the PTX is "compiled" for at load. */
static bool function_attribute(const struct CUfunc_st *f, CUfunction_attribute attribute,
                               int *value)
{
    const struct emu_function_info *info = emu_function_info(f->function);
    const struct emu_device_model *device = driver.device;
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = driver_function_max_threads(f, device);
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        *value = (int)info->static_shared_bytes;
        break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
        *value = 0;
        break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        *value = (int)info->local_bytes;
        break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *value = info->registers;
        break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        *value = info->target_sm;
        break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *value = device->cc_major * 10 + device->cc_minor;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = (int)f->max_dynamic_shared;
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *value = f->carveout;
        break;
    default:
        return false;
    }
    return true;
}

EMU_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && pi == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && !driver_handle_live(DRIVER_FUNCTION, hfunc))
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS && !function_attribute(hfunc, attrib, pi))
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}

/* Where parameter `index` of a kernel lies in its parameter space, as the
 * PTX declares it (paramSize may be NULL); CUDA_ERROR_INVALID_VALUE past
 * the last one. */
EMU_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                       size_t *paramSize)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && paramOffset == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && !driver_handle_live(DRIVER_FUNCTION, func))
        rc = CUDA_ERROR_INVALID_HANDLE;
    const struct emu_function_info *info =
        rc == CUDA_SUCCESS ? emu_function_info(func->function) : NULL;
    if (rc == CUDA_SUCCESS && paramIndex >= (size_t)info->n_params)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *paramOffset = info->params[paramIndex].offset;
    if (rc == CUDA_SUCCESS && paramSize)
        *paramSize = info->params[paramIndex].size;
    return driver_leave(rc);
}

/* Dynamic shared memory may grow up to the opt-in limit less the kernel's
 * static shared memory; the carveout is a hint, kept and reported back. */
static CUresult function_set_attribute(struct CUfunc_st *f, CUfunction_attribute attribute,
                                       int value)
{
    const struct emu_function_info *info = emu_function_info(f->function);
    size_t optin = driver.device->shared_per_block_optin;
    size_t room = info->static_shared_bytes < optin ? optin - info->static_shared_bytes : 0;
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || (size_t)value > room)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dynamic_shared = (size_t)value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < DRIVER_CARVEOUT_DEFAULT || value > DRIVER_CARVEOUT_MAX)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = value;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

EMU_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && !driver_handle_live(DRIVER_FUNCTION, hfunc))
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = function_set_attribute(hfunc, attrib, value);
    return driver_leave(rc);
}

/* A preference between L1 and shared memory, which cuda.h lets the driver
 * ignore; the carveout (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
 * is what the occupancy calculation reads, so it is checked and dropped. */
EMU_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && !driver_handle_live(DRIVER_FUNCTION, hfunc))
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS && (unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}
