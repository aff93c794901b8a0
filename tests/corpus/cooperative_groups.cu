// Corpus: cooperative groups: tiled partitions and their reductions
// (redux.sync), a grid group (%envreg for its workspace) and programmatic
// dependent launch (griddepcontrol), as the samples and CUB use them.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tile_sums(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int sum = cg::reduce(tile, in[block.thread_rank()], cg::plus<int>());
    if (tile.thread_rank() == 0)
        out[block.thread_rank() / 32] = sum;
}

__global__ void grid_ranks(int *out)
{
    cg::grid_group grid = cg::this_grid();
    out[grid.thread_rank()] = (int)grid.size();
}

__global__ void dependent_launch(const float *in, float *out)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    out[threadIdx.x] = 2.0f * in[threadIdx.x];
    asm volatile("griddepcontrol.launch_dependents;");
}
