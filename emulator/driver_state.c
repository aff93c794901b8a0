/*
 * The driver's global state: the lock every entry point takes, the lists of
 * live handles, and initialization (cuInit, cuDriverGetVersion).
 *
 * cuInit picks the modeled GPU once (emu_device_model_selected: KGEMU_DEVICE
 * or the H100). When KGEMU_DEVICE names no model, cuInit fails with
 * CUDA_ERROR_NO_DEVICE, says nothing, and every other call keeps returning
 * CUDA_ERROR_NOT_INITIALIZED, as on a machine without that GPU.
 */
#include <stdlib.h>

#include "driver.h"

struct driver_state driver = {.lock = PTHREAD_MUTEX_INITIALIZER};

CUresult driver_begin(void)
{
    pthread_mutex_lock(&driver.lock);
    if (driver_in_callback())
        return CUDA_ERROR_NOT_PERMITTED;
    return driver.device != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult driver_enter(struct CUctx_st **ctx, enum driver_sticky sticky)
{
    CUresult rc = driver_begin();
    if (rc != CUDA_SUCCESS)
        return rc;
    *ctx = driver_current();
    if (*ctx == NULL)
        return driver_no_current();
    if (sticky == DRIVER_STICKY && (*ctx)->sticky != CUDA_SUCCESS)
        return (*ctx)->sticky;
    return CUDA_SUCCESS;
}

CUresult driver_enter_owner(enum driver_kind kind, const void *handle, struct CUctx_st **ctx)
{
    CUresult rc = driver_begin();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!driver_handle_live(kind, handle))
        return driver_current() != NULL ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_CONTEXT;
    *ctx = ((const struct driver_handle *)handle)->context;
    return (*ctx)->sticky;
}

CUresult driver_leave(CUresult rc)
{
    pthread_mutex_unlock(&driver.lock);
    return rc;
}

void driver_handle_add(enum driver_kind kind, struct driver_handle *handle,
                       struct CUctx_st *context)
{
    handle->context = context;
    handle->next = driver.live[kind];
    driver.live[kind] = handle;
}

void driver_handle_remove(enum driver_kind kind, struct driver_handle *handle)
{
    for (struct driver_handle **link = &driver.live[kind]; *link != NULL; link = &(*link)->next) {
        if (*link == handle) {
            *link = handle->next;
            return;
        }
    }
}

/* O(live handles of the kind): programs hold a few of each. */
bool driver_handle_live(enum driver_kind kind, const void *handle)
{
    if (handle == NULL)
        return false;
    for (const struct driver_handle *h = driver.live[kind]; h != NULL; h = h->next)
        if ((const void *)h == handle)
            return true;
    return false;
}

CUresult driver_handle_check(enum driver_kind kind, const void *handle, const struct CUctx_st *ctx)
{
    if (!driver_handle_live(kind, handle))
        return CUDA_ERROR_INVALID_HANDLE;
    const struct driver_handle *live = handle;
    return live->context == ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

void driver_handle_remove_if(enum driver_kind kind,
                             bool (*match)(const struct driver_handle *, const void *key),
                             const void *key, void (*release)(struct driver_handle *))
{
    struct driver_handle **link = &driver.live[kind];
    while (*link != NULL) {
        struct driver_handle *h = *link;
        if (match(h, key)) {
            *link = h->next;
            release(h);
        } else {
            link = &h->next;
        }
    }
}

bool driver_handle_owned_by(const struct driver_handle *handle, const void *key)
{
    return handle->context == key;
}

void driver_handle_free(struct driver_handle *handle)
{
    free(handle);
}

int driver_attribute(CUdevice_attribute attribute)
{
    int value = 0;
    emu_device_attribute(driver.device, (int)attribute, &value);
    return value;
}

CUresult driver_device_check(CUdevice device)
{
    return device >= 0 && device < DRIVER_DEVICE_COUNT ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

EMU_EXPORT CUresult cuInit(unsigned int flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&driver.lock);
    if (driver.device == NULL)
        driver.device = emu_device_model_selected();
    return driver_leave(driver.device != NULL ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE);
}

/* Answers before cuInit too, as the real driver does. */
EMU_EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = DRIVER_VERSION;
    return CUDA_SUCCESS;
}
