/*
 * Occupancy: how many blocks of a kernel one SM holds at once.
 *
 * The formulas are those of CUDA's occupancy calculator
 * (cuda_occupancy.h, which the driver's cuOccupancy* calls follow), for
 * the parts kgrade models (compute capability 7.5 to 9.0): the fewest
 * blocks that each of these allows —
 *   warps      the SM's warp slots / the block's warps;
 *   blocks     the SM's block slots;
 *   registers  a warp's registers (per thread × 32, rounded up to the
 *              allocation unit) come from one of the SM's partitions, so an
 *              SM holds (partition's registers / warp's) × partitions warps;
 *              a block whose warps, rounded up to the partitions, need more
 *              than the per-block register file does not fit at all;
 *   shared     static + dynamic + the driver's reserved bytes, rounded up to
 *              the allocation unit, out of the carveout the kernel prefers
 *              (rounded up to a size the part offers, or grown to one block's
 *              need).
 * Barriers never limit on these parts (each block slot has two), nor does
 * partitioned global caching (Maxwell and Pascal only).
 *
 * The timing model asks it for the resident blocks of a launch; the driver
 * for cuOccupancyMaxActiveBlocksPerMultiprocessor and its relatives. One
 * calculation, so the two never disagree.
 */
#include <limits.h>

#include "emu.h"

static int ceil_div(int x, int y)
{
    return (x + y - 1) / y;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

static size_t round_up(size_t x, size_t unit)
{
    return (x + unit - 1) / unit * unit;
}

static int blocks_by_warps(const struct emu_device_model *d, int threads)
{
    if (threads > d->max_threads_per_block)
        return 0;
    return d->max_threads_per_sm / d->warp_size / ceil_div(threads, d->warp_size);
}

/* A warp's registers, as allocated. */
static int warp_registers(const struct emu_device_model *d, int registers)
{
    return (int)round_up((size_t)registers * (size_t)d->warp_size, (size_t)d->register_unit);
}

/* Whether a block of `warps` warps gets its registers: the hardware checks
 * the warps rounded up to the partitions against the per-block file. */
static bool registers_fit_block(const struct emu_device_model *d, int registers, int warps)
{
    int per_warp = warp_registers(d, registers);
    int partitions = d->schedulers_per_sm;
    return registers <= d->max_regs_per_thread &&
           (long long)per_warp * warps <= d->regs_per_block &&
           (long long)per_warp * (ceil_div(warps, partitions) * partitions) <= d->regs_per_block;
}

static int blocks_by_registers(const struct emu_device_model *d, int registers, int threads)
{
    int warps = ceil_div(threads, d->warp_size);
    if (!registers_fit_block(d, registers, warps))
        return 0;
    int per_warp = warp_registers(d, registers);
    if (per_warp == 0)
        return INT_MAX;
    int partitions = d->schedulers_per_sm;
    int warps_per_partition = d->regs_per_sm / partitions / per_warp;
    return warps_per_partition * partitions / warps;
}

/* `bytes` rounded up to a shared-memory size the part offers; false when
 * it offers none that large. */
static bool shared_config(const struct emu_device_model *d, size_t bytes, size_t *config)
{
    for (int i = 0; i < d->shared_config_count; i++)
        if (bytes <= d->shared_configs[i]) {
            *config = d->shared_configs[i];
            return true;
        }
    return false;
}

/* The SM's shared memory the kernel's carveout preference asks for. */
static size_t shared_preferred(const struct emu_device_model *d, int carveout)
{
    size_t bytes = carveout < 0 ? d->shared_per_sm : (size_t)carveout * d->shared_per_sm / 100;
    size_t config = d->shared_per_sm;
    shared_config(d, bytes, &config);
    return config;
}

/* The most shared memory one block may have: the opt-in limit once the
 * kernel's own limit allows more than the default, plus the reserve. */
static size_t shared_block_limit(const struct emu_device_model *d,
                                 const struct emu_occupancy_input *in)
{
    size_t most =
        in->static_shared_bytes + d->shared_reserved_per_block + in->max_dynamic_shared_bytes;
    size_t limit = most > d->shared_per_block ? d->shared_per_block_optin : d->shared_per_block;
    return limit + d->shared_reserved_per_block;
}

static int blocks_by_shared(const struct emu_device_model *d, const struct emu_occupancy_input *in)
{
    if (in->dynamic_shared_bytes > in->max_dynamic_shared_bytes)
        return 0;
    size_t used =
        round_up(in->static_shared_bytes + d->shared_reserved_per_block + in->dynamic_shared_bytes,
                 d->shared_unit);
    if (used > shared_block_limit(d, in))
        return 0;
    if (used == 0)
        return INT_MAX;
    size_t sm = shared_preferred(d, in->shared_carveout);
    if (sm < used && !shared_config(d, used, &sm))
        return 0;
    return (int)(sm / used);
}

int emu_occupancy_blocks(const struct emu_device_model *d, const struct emu_occupancy_input *in)
{
    if (in->threads_per_block <= 0 || in->registers < 0)
        return 0;
    int blocks = d->max_blocks_per_sm;
    blocks = min_int(blocks, blocks_by_warps(d, in->threads_per_block));
    blocks = min_int(blocks, blocks_by_registers(d, in->registers, in->threads_per_block));
    return min_int(blocks, blocks_by_shared(d, in));
}

int emu_occupancy_max_threads(const struct emu_device_model *d, int registers)
{
    int warps = d->max_threads_per_block / d->warp_size;
    while (warps > 0 && !registers_fit_block(d, registers, warps))
        warps--;
    return warps * d->warp_size;
}
