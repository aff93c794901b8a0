/*
 * emulator — kgrade's virtual GPU: a CUDA driver (libcuda.so.1) that runs
 * NVRTC's PTX on the CPU.
 *
 * The grader speaks only the CUDA driver API (cuda.h). On a machine with a
 * GPU it loads the real libcuda.so.1; everywhere else it loads this one,
 * built as build/emulator/libcuda.so.1, and every grading path runs the same.
 * What the module promises (DESIGN.md, and the virtual-GPU work that builds
 * it):
 * - the driver-API entry points the grader uses, under the symbol names
 *   cuda.h maps them to, with the real CUresult codes and sticky faults;
 * - PTX parsed once into a decoded form and executed warp by warp in
 *   lockstep, so that every access of every warp is seen: out-of-bounds
 *   accesses, barrier deadlocks and runaway kernels end a launch with an error
 *   naming the kernel, block, thread and line, never a crash or a hang of the
 *   host;
 * - a deterministic timing model behind cuEventElapsedTime.
 * It uses libc, libm and pthreads only, nothing else of kgrade.
 *
 * This header is the one addition to the CUDA API. A program that loaded a
 * libcuda.so.1 looks these functions up with dlsym(); finding
 * kgemu_is_virtual tells it the GPU is the virtual one.
 */
#ifndef KGRADE_EMULATOR_KGEMU_H
#define KGRADE_EMULATOR_KGEMU_H

#include <stdint.h>

#define KGEMU_MESSAGE_MAX 512
#define KGEMU_NAME_MAX    128

/* What stopped the last failed launch of the current context. */
struct kgemu_fault {
    int code;                        /* the CUresult; 0 when there was none */
    char message[KGEMU_MESSAGE_MAX]; /* a sentence a student can act on */
    char kernel[KGEMU_NAME_MAX];     /* the .entry name */
    unsigned block[3];               /* the faulting thread, when one is to blame */
    unsigned thread[3];
    int has_thread;
    uint64_t address; /* the faulting address, for memory faults; 0 otherwise */
    int ptx_line;     /* line of the PTX text; 0 when unknown */
    int source_line;  /* line of the CUDA source (.loc, from -lineinfo); 0 when unknown */
};

/* 1: this libcuda.so.1 is kgrade's virtual GPU. */
int kgemu_is_virtual(void);

/* Tells the virtual GPU the registers per thread ptxas reported for a kernel
 * (NVRTC gives them with -arch=sm_XX --ptxas-options=-v), replacing the
 * estimate it makes from the PTX: launches then respect the register file's
 * limit as a real GPU would. `function` is a CUfunction. Returns 0 (a CUresult). */
int kgemu_set_registers(void *function, int registers);

/* Copies the last fault of the current context to `fault`. Returns 1 when
 * there was one, 0 when there was none or there is no current context. */
int kgemu_last_fault(struct kgemu_fault *fault);

#endif
