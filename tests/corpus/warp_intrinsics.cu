// Corpus: the warp intrinsics of the shfl_scan and warpAggregatedAtomics
// samples: shuffles of every kind and width, votes, match, redux, the
// active mask, and a coalesced group's leader.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scan_warps(const int *in, int *out, int *counter)
{
    int lane = threadIdx.x % 32, v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d)
            v += up;
    }
    v += __shfl_xor_sync(0xffffffffu, v, 1, 16) + __shfl_sync(0xffffffffu, v, 0, 8);
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1);
    int all = __all_sync(0xffffffffu, v > 0), any = __any_sync(0xffffffffu, v < 0);
    unsigned same = __match_any_sync(0xffffffffu, v & 7);
    int sum = __reduce_add_sync(0xffffffffu, v) + (int)__reduce_max_sync(0xffffffffu, (unsigned)v);
    if (v & 2) {
        cg::coalesced_group active = cg::coalesced_threads();
        int base = 0;
        if (active.thread_rank() == 0)
            base = atomicAdd(counter, active.size());
        base = active.shfl(base, 0);
        v += base + active.thread_rank() + __popc(__activemask());
    }
    __syncwarp();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + (int)ballot + all + any + (int)same + sum;
}
