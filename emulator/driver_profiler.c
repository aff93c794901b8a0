/*
 * Profiler control: cuProfilerStart and cuProfilerStop (cudaProfiler.h).
 *
 * They tell an attached profiling tool (Nsight Systems, Nsight Compute)
 * which part of a program to collect. No such tool attaches to the virtual
 * GPU, so they only check, as a real driver does, that there is a current
 * context, and do nothing else; calling either twice is no error (CUDA 5.0
 * and later). What the virtual GPU measures is in kgemu.h's counters.
 */
#include "driver.h"
/* after driver.h, which lets cuda.h declare the deprecated calls */
#include <cudaProfiler.h>

static CUresult profiler_toggle(void)
{
    struct CUctx_st *ctx;
    return driver_leave(driver_enter(&ctx, DRIVER_IGNORE_STICKY));
}

EMU_EXPORT CUresult cuProfilerStart(void)
{
    return profiler_toggle();
}

EMU_EXPORT CUresult cuProfilerStop(void)
{
    return profiler_toggle();
}
