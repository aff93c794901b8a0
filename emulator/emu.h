/*
 * Internal to emulator/: the interfaces between the virtual GPU's parts.
 *
 *   driver*.c      the CUDA driver API (cuda.h): contexts, memory, modules,
 *                  launches, streams, events, errors. Owns all state a program
 *                  sees; calls the parts below.
 *   device_model.c the modeled GPUs (H100 by default; KGEMU_DEVICE picks another).
 *   memory.c       device memory: the allocation table every access is checked
 *                  against.
 *   ptx_*.c        PTX text → a decoded module (functions, instructions, symbols).
 *   launch.c, interp.c
 *                  running a kernel: blocks on host threads, warps in lockstep.
 *
 * Device addresses are host addresses: device memory is host memory that the
 * allocation table owns, so a device pointer can be dereferenced by the host
 * after it has been checked. Nothing here is visible outside libcuda.so.1
 * except what kgemu.h and cuda.h declare.
 */
#ifndef KGRADE_EMULATOR_EMU_H
#define KGRADE_EMULATOR_EMU_H

/* The driver implements cuda.h's deprecated calls too (cuDeviceComputeCapability). */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kgemu.h"

/* Marks the functions libcuda.so.1 exports: the cu* entry points cuda.h
 * declares (under the versioned names its #defines give) and kgemu.h's.
 * Everything else is built with -fvisibility=hidden. */
#define EMU_EXPORT __attribute__((visibility("default")))

/* ---------------------------------------------------------------- devices */

/* The timing model's figures for one part (emulator/README.md explains how
 * they combine). Throughputs are per SM per clock unless said otherwise;
 * latencies are in clocks. */
struct emu_timing_constants {
    int fp32_lanes; /* FP32 results per clock */
    int fp64_lanes;
    int int_lanes;
    int sfu_lanes;            /* special-function results (ex2, rsqrt, …) */
    int lsu_lanes;            /* load/store instructions' lanes */
    int tensor_fmas;          /* dense f16 multiply-adds of the tensor cores */
    int l1_sectors_per_clock; /* 32-byte sectors through L1 per clock */
    int shared_wavefronts_per_clock;
    double dram_efficiency;                 /* the part of peak DRAM bandwidth a copy reaches */
    double l2_bytes_per_second;             /* L2 ↔ SMs, for the whole device */
    double atomics_per_second;              /* global atomics the L2 completes, whole device */
    double same_address_atomics_per_second; /* to one address: they serialize */
    double same_line_atomics_per_second;    /* warp requests to one line's addresses */
    int latency_alu;                        /* a dependent FP32 or integer instruction */
    int latency_fp64;
    int latency_sfu;
    int latency_shared; /* a shared-memory access */
    int latency_global; /* a global access that goes to memory */
    int latency_control;
    int latency_tensor; /* a wmma.mma */
    double launch_overhead_us;
    int latency_l1; /* a global load whose sectors all hit in the SM's L1 */
};

/* How the part's copy engines move data (emulator/README.md, "Transfers"):
 * between the host and the device over its PCIe link, where memory the
 * host has not page-locked (pageable) goes through a pinned staging
 * buffer first; within device memory at the DRAM rate (the timing model's
 * dram_efficiency of the peak). Each copy or memset also pays a fixed
 * latency. */
struct emu_link_model {
    double pinned_bytes_per_second;  /* a page-locked host buffer ↔ device memory, each way */
    double staging_bytes_per_second; /* the host's copy of pageable memory into the staging
                                        buffer, in series with the link */
    double copy_latency_us;          /* a copy's or a memset's fixed cost */
};

#define EMU_SHARED_CONFIGS_MAX 10 /* shared-memory carveouts a part offers */

/* One modeled GPU. Figures are the published ones of the real part. */
struct emu_device_model {
    const char *key;  /* what KGEMU_DEVICE names: "h100", "a100", "h200", "t4" */
    const char *name; /* cuDeviceGetName: says it is emulated */
    int cc_major, cc_minor;
    int sm_count;
    int schedulers_per_sm;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int regs_per_sm;
    int regs_per_block;
    int max_regs_per_thread;
    size_t shared_per_sm;
    size_t l1_shared_per_sm;       /* the SM's L1 and shared memory together: the L1 is what
                                      shared memory leaves */
    size_t shared_per_block;       /* without opting in */
    size_t shared_per_block_optin; /* cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) limit */
    size_t shared_reserved_per_block;
    size_t l2_bytes;
    size_t total_memory;
    double dram_bytes_per_second; /* peak */
    int clock_khz;
    int memory_clock_khz;
    int memory_bus_bits;
    int max_block_dim[3];
    int max_grid_dim[3];
    size_t const_memory_bytes;
    /* How the occupancy calculator (cuda_occupancy.h) allocates: registers
     * per warp in units of register_unit, split among the SM's partitions
     * (one per scheduler); shared memory per block in units of shared_unit,
     * from an SM whose shared part is one of shared_configs (the carveouts
     * the part offers, ascending; a preference rounds up to the next). */
    int register_unit;
    size_t shared_unit;
    size_t persisting_l2_bytes; /* the most L2 a program may set aside for persisting lines */
    int pci_device_id;          /* the real part's, with NVIDIA's vendor ID */
    const int *attributes;      /* the other cuDeviceGetAttribute answers, by attribute */
    size_t shared_configs[EMU_SHARED_CONFIGS_MAX];
    int shared_config_count;
    struct emu_timing_constants timing;
    struct emu_link_model link;
};

/* The model KGEMU_DEVICE names (default "h100"); NULL when it names none. */
const struct emu_device_model *emu_device_model_selected(void);
const struct emu_device_model *emu_device_model_find(const char *key);
/* cuDeviceGetAttribute's answer for any attribute cuda.h defines; false for
 * a number it does not define. */
bool emu_device_attribute(const struct emu_device_model *m, int attribute, int *value);

/* -------------------------------------------------------------- occupancy */

/* What decides how many blocks of a kernel one SM holds at once. */
struct emu_occupancy_input {
    int threads_per_block;
    int registers; /* per thread */
    size_t static_shared_bytes;
    size_t dynamic_shared_bytes;
    size_t max_dynamic_shared_bytes; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int shared_carveout;             /* percent, or CU_SHAREDMEM_CARVEOUT_DEFAULT (-1) */
};

/* Resident blocks per SM as CUDA's occupancy calculator (cuda_occupancy.h,
 * the driver's cuOccupancy* calls) computes them: the fewest that threads,
 * blocks, registers and shared memory allow; 0 when not even one block
 * fits. Shared by the timing model and the driver's occupancy calls. */
int emu_occupancy_blocks(const struct emu_device_model *d, const struct emu_occupancy_input *in);
/* The most threads per block that `registers` per thread allow (a warp's
 * registers times its warps, rounded up to the partitions, within the
 * per-block register file); 0 when not even one warp fits. */
int emu_occupancy_max_threads(const struct emu_device_model *d, int registers);

/* ----------------------------------------------------------------- memory */

/* The table of device allocations. Thread-safe: lookups may run on many
 * host threads while a kernel runs. */
struct emu_memory;

enum emu_allocation_kind {
    EMU_ALLOC_USER,   /* cuMemAlloc */
    EMU_ALLOC_GLOBAL, /* a module's .global or .const variable */
    EMU_ALLOC_HEAP,   /* the device-side malloc heap */
    EMU_ALLOC_ARRAY,  /* a CUDA array (driver_array.c): no kernel reaches it through a pointer */
    EMU_ALLOC_HOST,   /* page-locked host memory (driver_host_memory.c), adopted: not the table's */
    EMU_ALLOC_MANAGED, /* cuMemAllocManaged */
};
#define EMU_ALLOC_KINDS (EMU_ALLOC_MANAGED + 1)
/* What messages call an allocation of `kind`, before its number: "buffer"
 * (cuMemAlloc), "module variable", "device malloc heap", "CUDA array",
 * "host buffer" (pinned, mapped or registered), "managed buffer". */
const char *emu_allocation_noun(enum emu_allocation_kind kind);

struct emu_range {
    uint64_t base;
    uint64_t size;
    enum emu_allocation_kind kind;
    uint64_t serial; /* unique to the allocation in its table: an address may be reused, this
                        never is (a texture tells its own memory from what was put there later) */
    uint64_t number; /* among the table's allocations of its kind, from 1: what messages call
                        it ("buffer #2": the second cuMemAlloc), never by its address */
};

struct emu_memory *emu_memory_create(size_t capacity);
void emu_memory_destroy(struct emu_memory *memory);
/* Zero-filled, at least 256-byte aligned. CUDA_ERROR_OUT_OF_MEMORY beyond the capacity. */
CUresult emu_memory_alloc(struct emu_memory *memory, size_t size, enum emu_allocation_kind kind,
                          uint64_t *address);
/* Enters memory the table does not own ([base, base + size) of host memory
 * the caller keeps mapped) as an allocation of `kind`: checked like the
 * others, not charged against the capacity, never unmapped by the table.
 * CUDA_ERROR_INVALID_VALUE when it overlaps an allocation. */
CUresult emu_memory_adopt(struct emu_memory *memory, uint64_t base, uint64_t size,
                          enum emu_allocation_kind kind);
/* Removes the allocation at `address` and unmaps it, unless it was adopted.
 * CUDA_ERROR_INVALID_VALUE unless `address` is the base of a live allocation. */
CUresult emu_memory_free(struct emu_memory *memory, uint64_t address);
/* True when [address, address + size) lies inside one live allocation; `range` gets it. */
bool emu_memory_find(struct emu_memory *memory, uint64_t address, uint64_t size,
                     struct emu_range *range);
/* True when kernels may touch [address, address + size): inside one
 * allocation's window (emu_memory_set_window; the whole allocation unless
 * set). `window` gets it. emu_memory_find, for copies, ignores windows. */
bool emu_memory_accessible(struct emu_memory *memory, uint64_t address, uint64_t size,
                           struct emu_range *window);
/* Narrows what kernels may touch of the allocation at `base` to all but its
 * first `head` and last `tail` bytes (a grader's guard zones). */
CUresult emu_memory_set_window(struct emu_memory *memory, uint64_t base, uint64_t head,
                               uint64_t tail);
/* The window of the allocation nearest below `address` (for messages: "one
 * past the end of ..."). */
bool emu_memory_nearest(struct emu_memory *memory, uint64_t address, struct emu_range *range);
/* The window of the allocation nearest above `address` (for messages:
 * "before the start of ..."). */
bool emu_memory_next(struct emu_memory *memory, uint64_t address, struct emu_range *range);
/* The window of the latest of the last EMU_FREED_REMEMBERED allocations
 * freed that held `address` (for messages: a use after free). */
#define EMU_FREED_REMEMBERED 64
bool emu_memory_freed(struct emu_memory *memory, uint64_t address, struct emu_range *range);
void emu_memory_usage(struct emu_memory *memory, size_t *used, size_t *capacity);
/* The live allocations, by base address, in `*ranges` (malloc'ed: the
 * caller frees it; NULL when there are none). false when out of memory. */
bool emu_memory_list(struct emu_memory *memory, struct emu_range **ranges, size_t *count);

/* ---------------------------------------------------------------- modules */

struct emu_module;
struct emu_function;

struct emu_param_info {
    uint32_t offset; /* in the packed parameter buffer */
    uint32_t size;
    uint32_t align;
};

struct emu_function_info {
    const char *name;
    int n_params;
    const struct emu_param_info *params;
    uint32_t param_bytes;           /* size of the packed parameter buffer */
    uint32_t static_shared_bytes;   /* .shared variables of the kernel and what it calls */
    uint32_t dynamic_shared_offset; /* where its extern shared array starts (>= the static) */
    uint32_t local_bytes;           /* .local per thread (the kernel's own frame) */
    int registers;                  /* an estimate from the PTX, or what kgemu was told */
    bool registers_exact;           /* registers is ptxas's count (kgemu_set_registers) */
    int max_threads_per_block;      /* .maxntid, or the device's limit */
    int ptx_version;                /* e.g. 90 for .version 9.0 */
    int target_sm;                  /* e.g. 90 for .target sm_90 */
};

/* Parses and decodes PTX and places its .global/.const variables in
 * `memory`. On failure returns CUDA_ERROR_INVALID_PTX (or
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and writes a line naming the PTX line
 * to `error_log`. */
CUresult emu_module_load(const char *ptx, size_t length, struct emu_memory *memory,
                         struct emu_module **module, char *error_log, size_t error_log_size);
void emu_module_unload(struct emu_module *module);
/* NULL when the module has no .entry of that name. */
struct emu_function *emu_module_function(struct emu_module *module, const char *name);
CUresult emu_module_global(struct emu_module *module, const char *name, uint64_t *address,
                           size_t *bytes);
const struct emu_function_info *emu_function_info(const struct emu_function *function);
/* What kgemu_set_registers() tells: ptxas's count replaces the estimate
 * (registers_exact becomes true). */
void emu_function_set_registers(struct emu_function *function, int registers);

/* ------------------------------------------------------------ fatbinaries */

/* Whether `image` begins as a fatbinary or the wrapper nvcc puts around one. */
bool emu_fatbin_is(const void *image);
/* The PTX text in the fatbinary `image` (or its wrapper) that a device of
 * compute capability `sm` (90 for 9.0) runs: the newest not newer than
 * the device, decompressed, NUL-terminated and malloc'ed (the caller frees
 * it). CUDA_ERROR_NO_BINARY_FOR_GPU when there is none (cubins only, or
 * PTX for a newer GPU), CUDA_ERROR_INVALID_IMAGE when it is damaged; `log`
 * then says which. */
CUresult emu_fatbin_ptx(const void *image, int sm, char **ptx, char *log, size_t log_size);

/* ------------------------------------------------------------- device heap */

/* The heap of device-side malloc/free, one per context, created at the
 * first launch with the size CU_LIMIT_MALLOC_HEAP_SIZE had then. */
struct emu_heap;

struct emu_heap *emu_heap_create(struct emu_memory *memory, size_t bytes);
void emu_heap_destroy(struct emu_heap *heap, struct emu_memory *memory);
/* A block of `bytes` from the heap (its device address), or 0 when none fits. */
uint64_t emu_heap_malloc(struct emu_heap *heap, uint64_t bytes);
/* false when `address` is not a block malloc returned and free has not taken back. */
bool emu_heap_free(struct emu_heap *heap, uint64_t address);

/* A copy of the heap's bookkeeping (its free and used blocks; their bytes
 * are device memory): KGEMU_TIER=compare puts it back between the runs of a
 * launch and checks that both runs left the same blocks. */
struct emu_heap_snapshot;

struct emu_heap_snapshot *emu_heap_snapshot(struct emu_heap *heap); /* NULL: out of memory */
bool emu_heap_restore(struct emu_heap *heap, const struct emu_heap_snapshot *snapshot);
bool emu_heap_matches(struct emu_heap *heap, const struct emu_heap_snapshot *snapshot);
void emu_heap_snapshot_free(struct emu_heap_snapshot *snapshot);

/* --------------------------------------------------------------- launches */

struct emu_texture_objects; /* texture.h */

struct emu_launch {
    const struct emu_function *function;
    unsigned grid[3];
    unsigned block[3];
    unsigned dynamic_shared_bytes;
    int shared_carveout; /* the kernel's preference (percent), or CU_SHAREDMEM_CARVEOUT_DEFAULT */
    const void *params;  /* packed as emu_function_info says */
    struct emu_memory *memory;
    struct emu_heap *heap;                      /* NULL: malloc in a kernel returns NULL */
    const struct emu_texture_objects *textures; /* the context's texture and surface objects
                                                   (NULL: none made) */
    const struct emu_device_model *device;
    size_t stack_bytes_per_thread; /* CU_LIMIT_STACK_SIZE */
    size_t printf_bytes;           /* CU_LIMIT_PRINTF_FIFO_SIZE: more output is dropped */
    int host_threads;              /* 0: KGEMU_THREADS, or the number of cores */
    uint64_t instruction_budget;   /* warp instructions; 0: KGEMU_INSTRUCTION_BUDGET or default */
    double time_budget_ms;         /* modeled time; 0: none (kgemu_set_time_budget) */
    double seconds_budget;         /* wall clock; 0: KGEMU_SECONDS_BUDGET or default */
};

struct emu_launch_result {
    struct kgemu_fault fault;       /* fault.code is CUDA_SUCCESS when none */
    double elapsed_ms;              /* what events see: the modeled time (host time when
                                     * KGEMU_TIMING=off) */
    struct kgemu_counters counters; /* the timing model's counts */
    uint64_t warp_instructions;     /* executed */
};

/* Checks the configuration (CUDA_ERROR_INVALID_VALUE with a message in the
 * result's fault when it breaks a limit), runs the kernel to completion, and
 * flushes its printf output to standard output. Never crashes the host on
 * anything the kernel does. */
CUresult emu_launch_run(const struct emu_launch *launch, struct emu_launch_result *result);

/* The host threads the virtual GPU runs on: KGEMU_THREADS, else the
 * machine's cores (launch.c). */
int emu_host_threads(void);

/* host_copy.c: memcpy and memset of the driver's copies, large ones spread
 * over emu_host_threads() threads (the ranges must not overlap). */
void emu_host_copy(void *dst, const void *src, size_t bytes);
void emu_host_set(void *dst, int byte, size_t bytes);

#endif
