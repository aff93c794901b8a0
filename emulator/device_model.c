/*
 * The modeled GPUs: the published figures of the parts kgrade pretends to
 * be, and which one KGEMU_DEVICE picks.
 *
 * The driver reports these figures through cuDeviceGetAttribute and checks
 * launches against them; the timing model reads the SM count, clocks and
 * DRAM bandwidth. KGEMU_DEVICE names a model by its key (h100, a100, h200,
 * t4; case does not matter); unset or empty means h100. A name that matches
 * no model makes emu_device_model_selected() return NULL, and cuInit then
 * fails with CUDA_ERROR_NO_DEVICE, as a machine without that GPU would.
 */
#include <stdlib.h>
#include <strings.h>

#include "emu.h"

#define KIB ((size_t)1024)
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

#define DEVICE_ENV         "KGEMU_DEVICE"
#define DEVICE_DEFAULT_KEY "h100"

/* What every modeled part shares: CUDA's architectural limits since Volta. */
#define WARP_SIZE                32
#define MAX_THREADS_PER_BLOCK    1024
#define MAX_REGS_PER_THREAD      255
#define REGS_64K                 65536
#define SHARED_DEFAULT_PER_BLOCK (48 * KIB)
#define BLOCK_DIMS                                                                                 \
    {                                                                                              \
        1024, 1024, 64                                                                             \
    }
#define GRID_DIMS                                                                                  \
    {                                                                                              \
        2147483647, 65535, 65535                                                                   \
    }
#define CONST_MEMORY (64 * KIB)

/* Hopper's figures, shared by the H100 and the H200. */
#define HOPPER_SM_COUNT      132
#define HOPPER_SHARED_PER_SM (228 * KIB)
#define HOPPER_SHARED_OPTIN  ((size_t)232448) /* 227 KB */
#define HOPPER_CLOCK_KHZ     1980000

static const struct emu_device_model models[] = {
    {
        .key = "h100",
        .name = "kgrade virtual H100 (emulated)",
        .cc_major = 9,
        .cc_minor = 0,
        .sm_count = HOPPER_SM_COUNT,
        .schedulers_per_sm = 4,
        .warp_size = WARP_SIZE,
        .max_threads_per_block = MAX_THREADS_PER_BLOCK,
        .max_threads_per_sm = 2048,
        .max_blocks_per_sm = 32,
        .regs_per_sm = REGS_64K,
        .regs_per_block = REGS_64K,
        .max_regs_per_thread = MAX_REGS_PER_THREAD,
        .shared_per_sm = HOPPER_SHARED_PER_SM,
        .shared_per_block = SHARED_DEFAULT_PER_BLOCK,
        .shared_per_block_optin = HOPPER_SHARED_OPTIN,
        .shared_reserved_per_block = 1 * KIB,
        .l2_bytes = 50 * MIB,
        .total_memory = 80 * GIB,
        .dram_bytes_per_second = 3.35e12,
        .clock_khz = HOPPER_CLOCK_KHZ,
        .memory_clock_khz = 2619000,
        .memory_bus_bits = 5120,
        .max_block_dim = BLOCK_DIMS,
        .max_grid_dim = GRID_DIMS,
        .const_memory_bytes = CONST_MEMORY,
    },
    {
        .key = "a100",
        .name = "kgrade virtual A100 (emulated)",
        .cc_major = 8,
        .cc_minor = 0,
        .sm_count = 108,
        .schedulers_per_sm = 4,
        .warp_size = WARP_SIZE,
        .max_threads_per_block = MAX_THREADS_PER_BLOCK,
        .max_threads_per_sm = 2048,
        .max_blocks_per_sm = 32,
        .regs_per_sm = REGS_64K,
        .regs_per_block = REGS_64K,
        .max_regs_per_thread = MAX_REGS_PER_THREAD,
        .shared_per_sm = 164 * KIB,
        .shared_per_block = SHARED_DEFAULT_PER_BLOCK,
        .shared_per_block_optin = 166912, /* 163 KB */
        .shared_reserved_per_block = 1 * KIB,
        .l2_bytes = 40 * MIB,
        .total_memory = 80 * GIB,
        .dram_bytes_per_second = 2.039e12,
        .clock_khz = 1410000,
        .memory_clock_khz = 1593000,
        .memory_bus_bits = 5120,
        .max_block_dim = BLOCK_DIMS,
        .max_grid_dim = GRID_DIMS,
        .const_memory_bytes = CONST_MEMORY,
    },
    {
        /* An H100 with HBM3e: more, faster memory and a larger L2. */
        .key = "h200",
        .name = "kgrade virtual H200 (emulated)",
        .cc_major = 9,
        .cc_minor = 0,
        .sm_count = HOPPER_SM_COUNT,
        .schedulers_per_sm = 4,
        .warp_size = WARP_SIZE,
        .max_threads_per_block = MAX_THREADS_PER_BLOCK,
        .max_threads_per_sm = 2048,
        .max_blocks_per_sm = 32,
        .regs_per_sm = REGS_64K,
        .regs_per_block = REGS_64K,
        .max_regs_per_thread = MAX_REGS_PER_THREAD,
        .shared_per_sm = HOPPER_SHARED_PER_SM,
        .shared_per_block = SHARED_DEFAULT_PER_BLOCK,
        .shared_per_block_optin = HOPPER_SHARED_OPTIN,
        .shared_reserved_per_block = 1 * KIB,
        .l2_bytes = 60 * MIB,
        .total_memory = 141 * GIB,
        .dram_bytes_per_second = 4.8e12,
        .clock_khz = HOPPER_CLOCK_KHZ,
        .memory_clock_khz = 3201000,
        .memory_bus_bits = 6144,
        .max_block_dim = BLOCK_DIMS,
        .max_grid_dim = GRID_DIMS,
        .const_memory_bytes = CONST_MEMORY,
    },
    {
        .key = "t4",
        .name = "kgrade virtual T4 (emulated)",
        .cc_major = 7,
        .cc_minor = 5,
        .sm_count = 40,
        .schedulers_per_sm = 4,
        .warp_size = WARP_SIZE,
        .max_threads_per_block = MAX_THREADS_PER_BLOCK,
        .max_threads_per_sm = 1024,
        .max_blocks_per_sm = 16,
        .regs_per_sm = REGS_64K,
        .regs_per_block = REGS_64K,
        .max_regs_per_thread = MAX_REGS_PER_THREAD,
        .shared_per_sm = 64 * KIB,
        .shared_per_block = SHARED_DEFAULT_PER_BLOCK,
        .shared_per_block_optin = 64 * KIB,
        .shared_reserved_per_block = 0, /* Turing reserves none */
        .l2_bytes = 4 * MIB,
        .total_memory = 16 * GIB,
        .dram_bytes_per_second = 3.2e11,
        .clock_khz = 1590000,
        .memory_clock_khz = 5001000,
        .memory_bus_bits = 256,
        .max_block_dim = BLOCK_DIMS,
        .max_grid_dim = GRID_DIMS,
        .const_memory_bytes = CONST_MEMORY,
    },
};

const struct emu_device_model *emu_device_model_find(const char *key)
{
    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcasecmp(models[i].key, key) == 0)
            return &models[i];
    return NULL;
}

const struct emu_device_model *emu_device_model_selected(void)
{
    const char *key = getenv(DEVICE_ENV);
    if (key == NULL || *key == '\0')
        key = DEVICE_DEFAULT_KEY;
    return emu_device_model_find(key);
}
