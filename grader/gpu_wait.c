/*
 * Waiting for a side's launches (gpu_wait.h). A real GPU is polled: a
 * spin for the first milliseconds (most kernels end within them, and a
 * sleep would add its own wake-up), then short sleeps.
 */
#include "gpu_wait.h"

#include "timing_stats.h"

#include <time.h>

#define GPU_SPIN_SECONDS 0.002
#define GPU_NAP_NS       200000L

CUresult gpu_wait(struct cuda_api *api, CUevent stop, double budget_ms)
{
    if (api->emulated || budget_ms <= 0)
        return api->cuEventSynchronize(stop);
    double started = timing_now_seconds();
    for (;;) {
        CUresult rc = api->cuEventQuery(stop);
        if (rc == CUDA_SUCCESS) /* done: returns at once, and flushes the kernels' printf */
            return api->cuEventSynchronize(stop);
        if (rc != CUDA_ERROR_NOT_READY)
            return rc;
        double waited = timing_now_seconds() - started;
        if (waited * 1e3 > budget_ms) {
            api->stuck = true;
            api->stuck_after_ms = waited * 1e3;
            return CUDA_ERROR_LAUNCH_TIMEOUT;
        }
        if (waited > GPU_SPIN_SECONDS)
            nanosleep(&(struct timespec){0, GPU_NAP_NS}, NULL);
    }
}
