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
 * This header is the one addition to the CUDA API: it will declare the call
 * that tells a program it runs on the virtual GPU and returns the details of
 * the last fault. Nothing is declared yet: the virtual GPU is not built.
 */
#ifndef KGRADE_EMULATOR_KGEMU_H
#define KGRADE_EMULATOR_KGEMU_H

#endif
