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

/* What every modeled part shares: CUDA's architectural limits since Volta
 * (four schedulers per SM, 64K registers, 48 KiB of shared memory without
 * opting in, 64 KiB of constant memory). */
#define COMMON_LIMITS                                                                              \
    .schedulers_per_sm = 4, .warp_size = 32, .max_threads_per_block = 1024, .regs_per_sm = 65536,  \
    .regs_per_block = 65536, .max_regs_per_thread = 255, .shared_per_block = 48 * KIB,             \
    .max_block_dim = {1024, 1024, 64}, .max_grid_dim = {2147483647, 65535, 65535},                 \
    .const_memory_bytes = 64 * KIB

/* Timing figures (emulator/README.md, "The timing model"). Per SM per
 * clock: Hopper and Ampere SMs have 128 FP32 lanes, 64 INT32, 16 SFU and
 * 32 load/store lanes, and L1 serves 128 bytes (4 sectors) a clock; shared
 * memory serves one 32-bank wavefront a clock. A copy reaches about 90 % of
 * the DRAM peak. L2 bandwidth is the measured L2-hit figure. Latencies are
 * the usual microbenchmark figures, rounded. */
#define SM_LATENCIES                                                                               \
    .latency_alu = 4, .latency_fp64 = 8, .latency_sfu = 20, .latency_shared = 30,                  \
    .latency_global = 500, .latency_control = 4, .launch_overhead_us = 3.0
#define HOPPER_TIMING                                                                              \
    {                                                                                              \
        .fp32_lanes = 128, .fp64_lanes = 64, .int_lanes = 64, .sfu_lanes = 16, .lsu_lanes = 32,    \
        .l1_sectors_per_clock = 4, .shared_wavefronts_per_clock = 1, .dram_efficiency = 0.9,       \
        .l2_bytes_per_second = 5.5e12, .atomics_per_second = 1.2e11,                               \
        .same_address_atomics_per_second = 1.0e9, SM_LATENCIES                                     \
    }

/* Hopper's chip, shared by the H100 and the H200: they differ in memory
 * and L2 only. 232448 bytes are 227 KB. */
#define HOPPER_CHIP                                                                                \
    .cc_major = 9, .cc_minor = 0, .sm_count = 132, .max_threads_per_sm = 2048,                     \
    .max_blocks_per_sm = 32, .shared_per_sm = 228 * KIB, .shared_per_block_optin = 232448,         \
    .shared_reserved_per_block = 1 * KIB, .clock_khz = 1980000, .timing = HOPPER_TIMING

static const struct emu_device_model models[] = {
    {
        .key = "h100",
        .name = "kgrade virtual H100 (emulated)",
        COMMON_LIMITS,
        HOPPER_CHIP,
        .l2_bytes = 50 * MIB,
        .total_memory = 80 * GIB,
        .dram_bytes_per_second = 3.35e12,
        .memory_clock_khz = 2619000,
        .memory_bus_bits = 5120,
    },
    {
        .key = "a100",
        .name = "kgrade virtual A100 (emulated)",
        COMMON_LIMITS,
        .cc_major = 8,
        .cc_minor = 0,
        .sm_count = 108,
        .max_threads_per_sm = 2048,
        .max_blocks_per_sm = 32,
        .shared_per_sm = 164 * KIB,
        .shared_per_block_optin = 166912, /* 163 KB */
        .shared_reserved_per_block = 1 * KIB,
        .clock_khz = 1410000,
        .l2_bytes = 40 * MIB,
        .total_memory = 80 * GIB,
        .dram_bytes_per_second = 2.039e12,
        .memory_clock_khz = 1593000,
        .memory_bus_bits = 5120,
        .timing = {.fp32_lanes = 64,
                   .fp64_lanes = 32,
                   .int_lanes = 64,
                   .sfu_lanes = 16,
                   .lsu_lanes = 32,
                   .l1_sectors_per_clock = 4,
                   .shared_wavefronts_per_clock = 1,
                   .dram_efficiency = 0.9,
                   .l2_bytes_per_second = 4.0e12,
                   .atomics_per_second = 8.0e10,
                   .same_address_atomics_per_second = 7.0e8,
                   SM_LATENCIES},
    },
    {
        /* An H100 with HBM3e: more, faster memory and a larger L2. */
        .key = "h200",
        .name = "kgrade virtual H200 (emulated)",
        COMMON_LIMITS,
        HOPPER_CHIP,
        .l2_bytes = 60 * MIB,
        .total_memory = 141 * GIB,
        .dram_bytes_per_second = 4.8e12,
        .memory_clock_khz = 3201000,
        .memory_bus_bits = 6144,
    },
    {
        .key = "t4",
        .name = "kgrade virtual T4 (emulated)",
        COMMON_LIMITS,
        .cc_major = 7,
        .cc_minor = 5,
        .sm_count = 40,
        .max_threads_per_sm = 1024,
        .max_blocks_per_sm = 16,
        .shared_per_sm = 64 * KIB,
        .shared_per_block_optin = 64 * KIB,
        .shared_reserved_per_block = 0, /* Turing reserves none */
        .clock_khz = 1590000,
        .l2_bytes = 4 * MIB,
        .total_memory = 16 * GIB,
        .dram_bytes_per_second = 3.2e11,
        .memory_clock_khz = 5001000,
        .memory_bus_bits = 256,
        .timing = {.fp32_lanes = 64,
                   .fp64_lanes = 2,
                   .int_lanes = 64,
                   .sfu_lanes = 16,
                   .lsu_lanes = 16,
                   .l1_sectors_per_clock = 2,
                   .shared_wavefronts_per_clock = 1,
                   .dram_efficiency = 0.85,
                   .l2_bytes_per_second = 1.2e12,
                   .atomics_per_second = 3.0e10,
                   .same_address_atomics_per_second = 5.0e8,
                   SM_LATENCIES},
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
