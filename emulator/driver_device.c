/*
 * Device queries: cuDeviceGet, cuDeviceGetCount, cuDeviceGetName,
 * cuDeviceGetAttribute, cuDeviceComputeCapability, cuDeviceTotalMem,
 * cuDeviceGetUuid, cuDeviceCanAccessPeer.
 *
 * There is one device, ordinal 0, and its figures are those of the model
 * cuInit picked (device_model.c), for every attribute cuda.h defines; a
 * number it does not define gets CUDA_ERROR_INVALID_VALUE.
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"

EMU_EXPORT CUresult cuDeviceGetCount(int *count)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && count == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *count = DRIVER_DEVICE_COUNT;
    return driver_leave(rc);
}

/* Begins a query of device `dev`: takes the lock like driver_begin() (the
 * caller ends with driver_leave) and fails unless the caller's other
 * arguments are `valid` and `dev` is an ordinal of ours. */
static CUresult device_query_begin(bool valid, CUdevice dev)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && !valid)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    return rc;
}

EMU_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult rc = device_query_begin(device != NULL, ordinal);
    if (rc == CUDA_SUCCESS)
        *device = ordinal;
    return driver_leave(rc);
}

/* The name is cut to fit `len` bytes, terminator included, as CUDA does. */
EMU_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult rc = device_query_begin(name != NULL && len > 0, dev);
    if (rc == CUDA_SUCCESS)
        snprintf(name, (size_t)len, "%s", driver.device->name);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult rc = device_query_begin(pi != NULL, dev);
    if (rc == CUDA_SUCCESS && !emu_device_attribute(driver.device, (int)attrib, pi))
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult rc = device_query_begin(major != NULL && minor != NULL, dev);
    if (rc == CUDA_SUCCESS) {
        *major = driver.device->cc_major;
        *minor = driver.device->cc_minor;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    CUresult rc = device_query_begin(bytes != NULL, dev);
    if (rc == CUDA_SUCCESS)
        *bytes = driver.device->total_memory;
    return driver_leave(rc);
}

/* A fixed UUID per model: the bytes of "kgvirtual-" and the model's key. */
EMU_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    CUresult rc = device_query_begin(uuid != NULL, dev);
    if (rc == CUDA_SUCCESS) {
        char text[sizeof uuid->bytes + 1] = {0};
        snprintf(text, sizeof text, "kgvirtual-%s", driver.device->key);
        memcpy(uuid->bytes, text, sizeof uuid->bytes);
    }
    return driver_leave(rc);
}

/* There is no other device to be a peer: a device is not its own peer. */
EMU_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult rc = device_query_begin(canAccessPeer != NULL, dev);
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(peerDev);
    if (rc == CUDA_SUCCESS)
        *canAccessPeer = 0;
    return driver_leave(rc);
}
