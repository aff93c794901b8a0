/*
 * Waiting for a side's launches: at once on the virtual GPU, which runs
 * each launch as it comes; on a real GPU until its work is done (then a
 * synchronization, which flushes the kernels' printf buffer) or a
 * budget of wall-clock time has passed, past which the kernel is left
 * running (nothing but the end of the process stops it) and the device is
 * marked stuck (cuda_api.stuck), so that nothing waits on it any more.
 */
#ifndef KGRADE_GRADER_GPU_WAIT_H
#define KGRADE_GRADER_GPU_WAIT_H

#include "cuda_api.h"

/* Waits for the work recorded before `stop`. budget_ms 0: no deadline (the
 * reference, which kgrade trusts). Returns the event's result, or
 * CUDA_ERROR_LAUNCH_TIMEOUT when a real GPU's kernel outlived the budget
 * (api->stuck and api->stuck_after_ms then say so). */
CUresult gpu_wait(struct cuda_api *api, CUevent stop, double budget_ms);

#endif
