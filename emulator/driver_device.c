/*
 * Device queries: cuDeviceGet, cuDeviceGetCount, cuDeviceGetName,
 * cuDeviceGetAttribute, cuDeviceTotalMem, cuDeviceGetUuid.
 *
 * There is one device, ordinal 0, and its figures are those of the model
 * cuInit picked (device_model.c). An attribute the virtual GPU does not
 * model gets CUDA_ERROR_INVALID_VALUE rather than a made-up answer.
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* Caller holds the lock after a successful driver_begin(). */
static bool device_attribute(const struct emu_device_model *m, CUdevice_attribute attribute,
                             int *value)
{
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = m->max_threads_per_block;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
        *value = m->max_block_dim[attribute - CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X];
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
        *value = m->max_grid_dim[attribute - CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X];
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        *value = (int)m->shared_per_block;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
        *value = (int)m->shared_per_sm;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        *value = (int)m->shared_per_block_optin;
        break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
        *value = (int)m->shared_reserved_per_block;
        break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
        *value = (int)m->const_memory_bytes;
        break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        *value = m->warp_size;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
        *value = DRIVER_MAX_PITCH;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
        *value = m->regs_per_block;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
        *value = m->regs_per_sm;
        break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        *value = m->clock_khz;
        break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
        *value = m->memory_clock_khz;
        break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
        *value = m->memory_bus_bits;
        break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
        *value = (int)m->l2_bytes;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *value = m->sm_count;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
        *value = m->max_threads_per_sm;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
        *value = m->max_blocks_per_sm;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = m->cc_major;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = m->cc_minor;
        break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
        *value = DRIVER_ASYNC_ENGINES;
        break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
        *value = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
        *value = CU_COMPUTEMODE_DEFAULT;
        break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
        *value = 0;
        break;
    default:
        return false;
    }
    return true;
}

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
    if (rc == CUDA_SUCCESS && !device_attribute(driver.device, attrib, pi))
        rc = CUDA_ERROR_INVALID_VALUE;
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
