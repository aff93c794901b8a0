/*
 * Internal to emulator/: the host's floating-point environment held in
 * place while the virtual GPU computes (arith.c, half.c).
 *
 * A C float operation rounds the way the calling thread's SSE control
 * register (MXCSR) says, and the program that loaded the virtual GPU may have
 * changed it (fesetround, feenableexcept, or -ffast-math's start-up code,
 * which sets flush-to-zero and denormals-are-zero). Code that computes with
 * floats runs inside an fp_scope: it reads MXCSR and, only when that differs
 * from what the operation needs (the rounding mode asked for, no FTZ/DAZ,
 * every trap masked), loads its own and restores the caller's afterwards. In
 * the common case that costs one stmxcsr and a compare.
 */
#ifndef KGRADE_EMULATOR_FP_ENV_H
#define KGRADE_EMULATOR_FP_ENV_H

#include <stdint.h>

#include "arith.h"

#if !defined(__x86_64__)
#error "emulator/fp_env.h controls the x86-64 MXCSR; port fp_control_read/write first"
#endif

/* MXCSR fields (Intel SDM vol. 1, 10.2.3). */
#define MXCSR_FLAGS    0x003fu /* sticky exception flags: left as they are */
#define MXCSR_MASKS    0x1f80u /* exception masks: all set, so nothing traps */
#define MXCSR_RC_SHIFT 13      /* rounding control; FTZ (bit 15), DAZ (bit 6) end up clear */

static inline uint32_t fp_control_read(void)
{
    uint32_t csr;
    __asm__ volatile("stmxcsr %0" : "=m"(csr) : : "memory");
    return csr;
}

static inline void fp_control_write(uint32_t csr)
{
    __asm__ volatile("ldmxcsr %0" : : "m"(csr) : "memory");
}

static inline uint32_t fp_control_for(uint32_t current, enum arith_rounding r)
{
    /* MXCSR's rounding-control encoding, indexed by enum arith_rounding; the
     * hardware has no ties-away mode (only cvt.rna uses it, rounding by hand). */
    static const uint32_t rounding_control[] = {
        [ARITH_RN] = 0, [ARITH_RZ] = 3, [ARITH_RM] = 1, [ARITH_RP] = 2, [ARITH_RNA] = 0};
    uint32_t mode = rounding_control[r <= ARITH_RNA ? r : ARITH_RN];
    return (current & MXCSR_FLAGS) | MXCSR_MASKS | mode << MXCSR_RC_SHIFT;
}

struct fp_scope {
    uint32_t caller; /* MXCSR as the caller had it */
    uint32_t ours;   /* MXCSR while we compute */
};

static inline struct fp_scope fp_scope_enter(enum arith_rounding r)
{
    struct fp_scope s;
    s.caller = fp_control_read();
    s.ours = fp_control_for(s.caller, r);
    if (s.ours != s.caller)
        fp_control_write(s.ours);
    return s;
}

static inline void fp_scope_leave(struct fp_scope s)
{
    if (s.ours != s.caller)
        fp_control_write(s.caller);
}

/* Pins a value in place: GCC does not see MXCSR as an input of float
 * operations (even with -frounding-math) and could move one across
 * fp_scope_enter/leave. Passing the operands and the result through these
 * empty volatile asms orders the operation between the two. */
static inline float fp_pin_f32(float x)
{
    __asm__ volatile("" : "+x"(x) : : "memory");
    return x;
}

static inline double fp_pin_f64(double x)
{
    __asm__ volatile("" : "+x"(x) : : "memory");
    return x;
}

static inline uint64_t fp_pin_u64(uint64_t x)
{
    __asm__ volatile("" : "+r"(x) : : "memory");
    return x;
}

#endif
