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
#define PCI_VENDOR_NVIDIA  0x10de

/* What every modeled part shares: CUDA's architectural limits since Volta
 * (four schedulers per SM, 64K registers, 48 KiB of shared memory without
 * opting in, 64 KiB of constant memory). */
#define COMMON_LIMITS                                                                              \
    .schedulers_per_sm = 4, .warp_size = 32, .max_threads_per_block = 1024, .regs_per_sm = 65536,  \
    .regs_per_block = 65536, .max_regs_per_thread = 255, .shared_per_block = 48 * KIB,             \
    .max_block_dim = {1024, 1024, 64}, .max_grid_dim = {2147483647, 65535, 65535},                 \
    .const_memory_bytes = 64 * KIB, .register_unit = 256

/* Timing figures (emulator/README.md, "The timing model"). Per SM per
 * clock: Hopper and Ampere SMs have 128 FP32 lanes, 64 INT32, 16 SFU and
 * 32 load/store lanes, and L1 serves 128 bytes (4 sectors) a clock; shared
 * memory serves one 32-bank wavefront a clock. The DRAM efficiency is the
 * part of the peak a streaming copy reaches, published (emulator/README.md,
 * "Achievable DRAM bandwidth"): BabelStream's Copy on Azure's ND H100 v5
 * (2.90 of 3.35 TB/s), ND H200 v5 (4.01 of 4.8) and ND A100 v4 (1.61 of
 * 2.039); a T4's bandwidthTest device-to-device copy (239.6 of 320 GB/s,
 * bytes read and written). L2 bandwidth is the measured L2-hit figure. Latencies are
 * the usual microbenchmark figures, rounded (a tensor core's: Sun et al.,
 * IEEE TPDS 2022). The tensor cores' dense f16 multiply-adds per SM per clock
 * give the published peaks: H100 SXM 989 TFLOPS = 132 SMs × 2048 × 2 ×
 * 1.83 GHz, A100 312 = 108 × 1024 × 2 × 1.41 GHz, T4 65 = 40 × 512 × 2 ×
 * 1.59 GHz. */
#define SM_LATENCIES                                                                               \
    .latency_alu = 4, .latency_fp64 = 8, .latency_sfu = 20, .latency_shared = 30,                  \
    .latency_global = 500, .latency_control = 4, .latency_tensor = 32, .launch_overhead_us = 3.0
/* The L1 data cache (emulator/README.md, "The L1"): a global load whose
 * sectors all hit returns in about 33 clocks on Volta to Hopper (Jia et al.,
 * "Dissecting the NVIDIA Turing T4 GPU via Microbenchmarking", 2019: 28 on a
 * V100, 32 on a T4; Luo et al., "Benchmarking and Dissecting the Nvidia Hopper
 * GPU Architecture", IPDPS 2024, for Hopper). The L1 and shared memory are one
 * array per SM: 256 KB on Hopper, 192 KB on Ampere (the H100 and A100
 * whitepapers), 96 KB on Turing (the Turing tuning guide). */
#define L1_LATENCY .latency_l1 = 33
#define HOPPER_TIMING(achievable_share)                                                            \
    {                                                                                              \
        .fp32_lanes = 128, .fp64_lanes = 64, .int_lanes = 64, .sfu_lanes = 16, .lsu_lanes = 32,    \
        .tensor_fmas = 2048, .l1_sectors_per_clock = 4, .shared_wavefronts_per_clock = 1,          \
        .dram_efficiency = (achievable_share), .l2_bytes_per_second = 5.5e12,                      \
        .atomics_per_second = 1.2e11, .same_address_atomics_per_second = 1.0e9,                    \
        .same_line_atomics_per_second = 1.4e9, SM_LATENCIES, L1_LATENCY                            \
    }

/* Host links (emulator/README.md, "Transfers"). PCIe 3.0 and later carry
 * 128 bits in 130 on each of 16 lanes: 5.0's 32 GT/s are 63.0 GB/s each
 * way, 4.0's 16 GT/s 31.5 GB/s, 3.0's 8 GT/s 15.75 GB/s. A copy engine
 * reaches less (packet headers, DMA requests); the pinned rates are
 * published measurements, rounded: an H100's device-to-host copy at
 * 52.8 GB/s (nvbandwidth), an A100 SXM4's host-to-device at 25.1 GB/s
 * (nvbandwidth, 512 MiB), a T4's at 9.7 and 11.1 GB/s (bandwidthTest,
 * 32 MB). The staging rate and the latency are estimates, to be measured
 * on an H200 (tests/device): pageable memory is copied by the host into a
 * pinned buffer, then sent, so an H100's pageable copy runs at
 * 1 / (1/53 + 1/40) = 22.8 GB/s, about half its pinned rate. */
#define STAGING_BYTES_PER_SECOND 40e9
#define COPY_LATENCY_US          2.0
#define PCIE_LINK(pinned)                                                                          \
    {                                                                                              \
        .pinned_bytes_per_second = (pinned), .staging_bytes_per_second = STAGING_BYTES_PER_SECOND, \
        .copy_latency_us = COPY_LATENCY_US                                                         \
    }

/* The shared-memory sizes each architecture can carve out of its L1 (cuda_occupancy.h). */
#define AMPERE_SHARED_CONFIGS                                                                      \
    .shared_configs = {0, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB, 100 * KIB, 132 * KIB, 164 * KIB}, \
    .shared_config_count = 8
#define HOPPER_SHARED_CONFIGS                                                                      \
    .shared_configs = {0,         8 * KIB,   16 * KIB,  32 * KIB,  64 * KIB,                       \
                       100 * KIB, 132 * KIB, 164 * KIB, 196 * KIB, 228 * KIB},                     \
    .shared_config_count = 10
#define TURING_SHARED_CONFIGS .shared_configs = {32 * KIB, 64 * KIB}, .shared_config_count = 2

/* Hopper's chip, shared by the H100 and the H200: they differ in memory
 * and L2 only. 232448 bytes are 227 KB. */
#define HOPPER_CHIP                                                                                \
    .cc_major = 9, .cc_minor = 0, .sm_count = 132, .max_threads_per_sm = 2048,                     \
    .max_blocks_per_sm = 32, .shared_per_sm = 228 * KIB, .shared_per_block_optin = 232448,         \
    .shared_reserved_per_block = 1 * KIB, .shared_unit = 128, HOPPER_SHARED_CONFIGS,               \
    .l1_shared_per_sm = 256 * KIB, .clock_khz = 1980000, .attributes = hopper_attributes,          \
    .link = PCIE_LINK(53e9) /* PCIe 5.0 x16 */

/* ------------------------------------------------------------ attributes */

/* What cuDeviceGetAttribute answers beyond the figures above: texture and
 * surface limits, alignments and features, as the real parts report them
 * (deviceQuery). An attribute not listed is 0: the part lacks the feature.
 * Figures that are fields of the model (SMs, shared memory, clocks, ...)
 * are answered from those fields (emu_device_attribute). */
#define A(name) [CU_DEVICE_ATTRIBUTE_##name]
/* The same on every modeled part (compute capability 7.5 to 9.0). */
#define COMMON_ATTRIBUTES                                                                          \
    A(MAX_PITCH) = 2147483647, A(TEXTURE_ALIGNMENT) = 512, A(GPU_OVERLAP) = 1,                     \
    A(CAN_MAP_HOST_MEMORY) = 1, A(COMPUTE_MODE) = CU_COMPUTEMODE_DEFAULT,                          \
    A(MAXIMUM_TEXTURE1D_WIDTH) = 131072, A(MAXIMUM_TEXTURE2D_WIDTH) = 131072,                      \
    A(MAXIMUM_TEXTURE2D_HEIGHT) = 65536, A(MAXIMUM_TEXTURE3D_WIDTH) = 16384,                       \
    A(MAXIMUM_TEXTURE3D_HEIGHT) = 16384, A(MAXIMUM_TEXTURE3D_DEPTH) = 16384,                       \
    A(MAXIMUM_TEXTURE2D_LAYERED_WIDTH) = 32768, A(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT) = 32768,       \
    A(MAXIMUM_TEXTURE2D_LAYERED_LAYERS) = 2048, A(SURFACE_ALIGNMENT) = 512,                        \
    A(CONCURRENT_KERNELS) = 1, A(ECC_ENABLED) = 1, A(UNIFIED_ADDRESSING) = 1,                      \
    A(MAXIMUM_TEXTURE1D_LAYERED_WIDTH) = 32768, A(MAXIMUM_TEXTURE1D_LAYERED_LAYERS) = 2048,        \
    A(CAN_TEX2D_GATHER) = 1, A(MAXIMUM_TEXTURE2D_GATHER_WIDTH) = 32768,                            \
    A(MAXIMUM_TEXTURE2D_GATHER_HEIGHT) = 32768, A(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE) = 8192,       \
    A(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE) = 8192, A(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE) = 32768,    \
    A(TEXTURE_PITCH_ALIGNMENT) = 32, A(MAXIMUM_TEXTURECUBEMAP_WIDTH) = 32768,                      \
    A(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH) = 32768,                                               \
    A(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS) = 2046, A(MAXIMUM_SURFACE1D_WIDTH) = 32768,           \
    A(MAXIMUM_SURFACE2D_WIDTH) = 131072, A(MAXIMUM_SURFACE2D_HEIGHT) = 65536,                      \
    A(MAXIMUM_SURFACE3D_WIDTH) = 16384, A(MAXIMUM_SURFACE3D_HEIGHT) = 16384,                       \
    A(MAXIMUM_SURFACE3D_DEPTH) = 16384, A(MAXIMUM_SURFACE1D_LAYERED_WIDTH) = 32768,                \
    A(MAXIMUM_SURFACE1D_LAYERED_LAYERS) = 2048, A(MAXIMUM_SURFACE2D_LAYERED_WIDTH) = 32768,        \
    A(MAXIMUM_SURFACE2D_LAYERED_HEIGHT) = 32768, A(MAXIMUM_SURFACE2D_LAYERED_LAYERS) = 2048,       \
    A(MAXIMUM_SURFACECUBEMAP_WIDTH) = 32768, A(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH) = 32768,      \
    A(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS) = 2046,                                               \
    A(MAXIMUM_TEXTURE1D_LINEAR_WIDTH) = 268435456, A(MAXIMUM_TEXTURE2D_LINEAR_WIDTH) = 131072,     \
    A(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT) = 65000, A(MAXIMUM_TEXTURE2D_LINEAR_PITCH) = 2097120,       \
    A(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH) = 32768, A(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT) = 32768,   \
    A(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH) = 32768, A(STREAM_PRIORITIES_SUPPORTED) = 1,              \
    A(GLOBAL_L1_CACHE_SUPPORTED) = 1, A(LOCAL_L1_CACHE_SUPPORTED) = 1, A(MANAGED_MEMORY) = 1,      \
    A(CONCURRENT_MANAGED_ACCESS) = 1, A(COMPUTE_PREEMPTION_SUPPORTED) = 1,                         \
    A(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM) = 1, A(CAN_USE_STREAM_MEM_OPS_V1) = 1,              \
    A(CAN_USE_64_BIT_STREAM_MEM_OPS_V1) = 1, A(CAN_USE_STREAM_WAIT_VALUE_NOR_V1) = 1,              \
    A(COOPERATIVE_LAUNCH) = 1, A(COOPERATIVE_MULTI_DEVICE_LAUNCH) = 1,                             \
    A(HOST_REGISTER_SUPPORTED) = 1, A(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED) = 1,                    \
    A(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED) = 1, A(SPARSE_CUDA_ARRAY_SUPPORTED) = 1,        \
    A(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED) = 1, A(MEMORY_POOLS_SUPPORTED) = 1,                    \
    A(GPU_DIRECT_RDMA_SUPPORTED) = 1,                                                              \
    A(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS) = CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST,         \
    A(GPU_DIRECT_RDMA_WRITES_ORDERING) = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER,                 \
    A(MEMPOOL_SUPPORTED_HANDLE_TYPES) = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,                  \
    A(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED) = 1, A(CAN_USE_64_BIT_STREAM_MEM_OPS) = 1,            \
    A(CAN_USE_STREAM_WAIT_VALUE_NOR) = 1, A(DMA_BUF_SUPPORTED) = 1, A(IPC_EVENT_SUPPORTED) = 1,    \
    A(NUMA_CONFIG) = CU_DEVICE_NUMA_CONFIG_NONE, A(NUMA_ID) = -1, A(HOST_NUMA_ID) = -1,            \
    A(ASYNC_ENGINE_COUNT) = 3

/* Ampere and Hopper: L2 persistence, access-policy windows, compressible
 * memory, GPUDirect RDMA through the virtual memory calls. */
#define AMPERE_ATTRIBUTES                                                                          \
    COMMON_ATTRIBUTES, A(MAX_ACCESS_POLICY_WINDOW_SIZE) = 134213632,                               \
                       A(GENERIC_COMPRESSION_SUPPORTED) = 1,                                       \
                       A(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED) = 1,                             \
                       A(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO) = 2

static const int turing_attributes[CU_DEVICE_ATTRIBUTE_MAX] = {
    COMMON_ATTRIBUTES, A(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO) = 32, A(MEM_SYNC_DOMAIN_COUNT) = 1};
static const int ampere_attributes[CU_DEVICE_ATTRIBUTE_MAX] = {AMPERE_ATTRIBUTES,
                                                               A(MEM_SYNC_DOMAIN_COUNT) = 1};
/* Hopper adds thread-block clusters, tensor maps (TMA) and four memory
 * synchronization domains. */
static const int hopper_attributes[CU_DEVICE_ATTRIBUTE_MAX] = {
    AMPERE_ATTRIBUTES, A(CLUSTER_LAUNCH) = 1, A(TENSOR_MAP_ACCESS_SUPPORTED) = 1,
    A(MEM_SYNC_DOMAIN_COUNT) = 4};
#undef A

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
        .persisting_l2_bytes = 50 * MIB * 3 / 4,
        .pci_device_id = 0x2330,
        .timing = HOPPER_TIMING(2.90e12 / 3.35e12),
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
        .l1_shared_per_sm = 192 * KIB,
        .shared_per_block_optin = 166912, /* 163 KB */
        .shared_reserved_per_block = 1 * KIB,
        .shared_unit = 128,
        AMPERE_SHARED_CONFIGS,
        .clock_khz = 1410000,
        .l2_bytes = 40 * MIB,
        .total_memory = 80 * GIB,
        .dram_bytes_per_second = 2.039e12,
        .memory_clock_khz = 1593000,
        .memory_bus_bits = 5120,
        .persisting_l2_bytes = 40 * MIB * 3 / 4,
        .pci_device_id = 0x20b2,
        .attributes = ampere_attributes,
        .timing = {.fp32_lanes = 64,
                   .fp64_lanes = 32,
                   .int_lanes = 64,
                   .sfu_lanes = 16,
                   .lsu_lanes = 32,
                   .tensor_fmas = 1024,
                   .l1_sectors_per_clock = 4,
                   .shared_wavefronts_per_clock = 1,
                   .dram_efficiency = 1.61e12 / 2.039e12,
                   .l2_bytes_per_second = 4.0e12,
                   .atomics_per_second = 8.0e10,
                   .same_address_atomics_per_second = 7.0e8,
                   .same_line_atomics_per_second = 9.8e8,
                   SM_LATENCIES,
                   L1_LATENCY},
        .link = PCIE_LINK(25e9), /* PCIe 4.0 x16 */
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
        .persisting_l2_bytes = 60 * MIB * 3 / 4,
        .pci_device_id = 0x2335,
        .timing = HOPPER_TIMING(4.01e12 / 4.8e12),
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
        .l1_shared_per_sm = 96 * KIB,
        .shared_per_block_optin = 64 * KIB,
        .shared_reserved_per_block = 0, /* Turing reserves none */
        .shared_unit = 256,
        TURING_SHARED_CONFIGS,
        .clock_khz = 1590000,
        .l2_bytes = 4 * MIB,
        .total_memory = 16 * GIB,
        .dram_bytes_per_second = 3.2e11,
        .memory_clock_khz = 5001000,
        .memory_bus_bits = 256,
        .persisting_l2_bytes = 0, /* Turing has no L2 persistence */
        .pci_device_id = 0x1eb8,
        .attributes = turing_attributes,
        .timing = {.fp32_lanes = 64,
                   .fp64_lanes = 2,
                   .int_lanes = 64,
                   .sfu_lanes = 16,
                   .lsu_lanes = 16,
                   .tensor_fmas = 512,
                   .l1_sectors_per_clock = 2,
                   .shared_wavefronts_per_clock = 1,
                   .dram_efficiency = 239.6e9 / 3.2e11,
                   .l2_bytes_per_second = 1.2e12,
                   .atomics_per_second = 3.0e10,
                   .same_address_atomics_per_second = 5.0e8,
                   .same_line_atomics_per_second = 7.0e8,
                   SM_LATENCIES,
                   L1_LATENCY},
        .link = PCIE_LINK(11e9), /* PCIe 3.0 x16 */
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

/* The attributes that are fields of the model; false for the others. */
static bool attribute_of_fields(const struct emu_device_model *m, CUdevice_attribute attribute,
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
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
        *value = (int)m->persisting_l2_bytes;
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
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: /* the device ID above NVIDIA's vendor ID */
        *value = m->pci_device_id << 16 | PCI_VENDOR_NVIDIA;
        break;
    default:
        return false;
    }
    return true;
}

bool emu_device_attribute(const struct emu_device_model *m, int attribute, int *value)
{
    if (attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX)
        return false;
    if (!attribute_of_fields(m, (CUdevice_attribute)attribute, value))
        *value = m->attributes[attribute];
    return true;
}
