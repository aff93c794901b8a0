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

#include <stddef.h>
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
    uint64_t address;        /* the faulting address, for memory faults; 0 otherwise (a host
                                address on the virtual GPU: no message shows it) */
    int ptx_line;            /* line of the PTX text; 0 when unknown */
    int over_time_budget;    /* 1: stopped by kgemu_set_time_budget's budget (slow, not stuck) */
    int source_line;         /* line of the CUDA source (.loc, from -lineinfo); 0 when unknown */
    unsigned access_bytes;   /* memory faults: the access's size (0 when unknown) */
    int access_write;        /* memory faults: 1 a write or an atomic, 0 a read */
    double bound_at_stop_ms; /* over_time_budget: the lower bound of the modeled time that
                                passed the budget (the launch needs at least this long) */
    uint64_t buffer;         /* memory faults: the start of the buffer the message names (past
                                a guard zone: kgemu_guard's head), 0 when it names none */
};

/* What the timing model counted for the last launch of the current context
 * (emulator/README.md, "The timing model"). The time is the largest bound. */
struct kgemu_counters {
    double modeled_ms; /* what cuEventElapsedTime sees for the launch */
    double issue_ms;   /* bounds: instructions issued by the busiest SM */
    double lsu_ms;     /* sectors through the busiest SM's L1 */
    double shared_ms;  /* shared-memory wavefronts of the busiest SM */
    double latency_ms; /* dependent chains of the busiest SM's blocks */
    double l2_ms;      /* sectors through L2 */
    double dram_ms;    /* bytes to and from DRAM */
    double atomic_ms;  /* global atomics, same-address ones serialized */
    double overhead_ms;
    char limiter[16]; /* the largest bound: "issue", "lsu", "shared", "latency", "l2", "dram",
                         "atomic" */
    /* by class: fp32, fp64, int, sfu, memory, control, tensor; a division, reciprocal or
     * square root that ptxas writes out counts its SASS sequence's instructions */
    uint64_t warp_instructions[7];
    uint64_t global_requests; /* warp-level global loads, stores, atomics */
    uint64_t global_sectors;  /* their distinct 32-byte sectors */
    uint64_t dram_read_bytes;
    uint64_t dram_write_bytes;
    uint64_t shared_requests;
    uint64_t shared_wavefronts; /* more than requests: bank conflicts */
    uint64_t global_atomics;    /* lanes */
    uint64_t max_same_address_atomics;
    int blocks_per_sm;                  /* resident at once (occupancy) */
    int registers_per_thread;           /* what occupancy used */
    int registers_exact;                /* 1: ptxas's count (kgemu_set_registers); 0: an estimate */
    unsigned worst_bank_conflict_ways;  /* the worst shared request's wavefronts */
    int worst_bank_conflict_line;       /* and its line (0: none) */
    unsigned worst_sectors_per_request; /* the most scattered global request's sectors */
    int worst_sectors_line;
    int lines_are_source;     /* 1: the lines are the CUDA source's (.loc); 0: the PTX's */
    uint64_t blocks_total;    /* the launch's blocks */
    uint64_t blocks_complete; /* those that ran to the end: fewer when the launch was stopped
                                 (a fault, a budget), and the counts are then of the part that
                                 ran, the stopped blocks' partial work included */
    /* How the virtual GPU ran the warp instructions (not a part of the model:
     * the two tiers give the same counts above): as native code of the
     * compiled tier, or in the interpreter (KGEMU_TIER=interp, a launch
     * before its kernel was compiled, what the compiler does not cover). */
    uint64_t compiled_instructions;
    uint64_t interpreted_instructions;
    uint64_t l1_hit_sectors; /* of global_sectors, those of loads the SM's L1 held: they do
                                not go to the L2 */
};

/* 1: this libcuda.so.1 is kgrade's virtual GPU. */
int kgemu_is_virtual(void);

/* Tells the virtual GPU the registers per thread ptxas reported for a kernel
 * (NVRTC gives them with -arch=sm_XX --ptxas-options=-v), replacing the
 * estimate it makes from the PTX: launches then respect the register file's
 * limit as a real GPU would. `function` is a CUfunction. Returns 0 (a CUresult). */
int kgemu_set_registers(void *function, int registers);

/* Compiles a kernel (a CUfunction) to native code now (emulator/JIT.md),
 * where the compiled tier would otherwise wait until a launch has run long
 * enough in the interpreter: for a program that knows the kernel will run
 * long (the grader launches every kernel at its assessed size). Nothing
 * under KGEMU_TIER=interp; a kernel that does not compile still runs, in
 * the interpreter. Returns 0 (a CUresult). */
int kgemu_compile(void *function);

/* kgemu_compile for `count` kernels at once, on as many host threads (up to
 * four): a grader that loads a reference's and a student's kernel compiles
 * both in the time of the longer. The same kernel twice is compiled once.
 * Returns 0 (a CUresult); CUDA_ERROR_INVALID_HANDLE, with nothing compiled,
 * if one of them is not a live function of the current context. */
int kgemu_compile_all(void *const *functions, int count);

/* Copies the counters of the last launch of the current context. Returns 1
 * when there was a launch, 0 otherwise. */
int kgemu_last_counters(struct kgemu_counters *counters);

/* A budget in modeled milliseconds for the launches of the current context
 * (0: none). A launch whose modeled time is sure to pass it stops as soon as
 * that is certain, with CUDA_ERROR_LAUNCH_TIMEOUT and a fault whose
 * over_time_budget is 1. Returns 0 (a CUresult). */
int kgemu_set_time_budget(double milliseconds);

/* Guard zones: kernels may not touch the first `head` and the last `tail`
 * bytes of the allocation at `base` (a cuMemAlloc'ed CUdeviceptr); any
 * read or write there faults like an access outside every allocation.
 * Copies (cuMemcpy*, cuMemset*) still reach the whole allocation. Returns
 * 0, or CUDA_ERROR_INVALID_VALUE when `base` is not an allocation's start
 * or the zones do not fit. */
int kgemu_guard(unsigned long long base, unsigned long long head, unsigned long long tail);

/* The current context's modeled device timeline (emulator/README.md,
 * "Transfers"): `*milliseconds` gets the point where all the work queued
 * on it so far ends (kernels, copies, memsets, events, on every stream),
 * in modeled ms since the context was made. Read before and after a host
 * function, it gives that function's device time. Returns 0 (a CUresult):
 * CUDA_ERROR_INVALID_VALUE for a NULL pointer, CUDA_ERROR_INVALID_CONTEXT
 * with no current context. */
int kgemu_device_time(double *milliseconds);

/* The remote driver's server (emulator/README.md, "The remote driver"):
 * serves the driver calls of one client, a program whose CUDA driver is
 * build/emulator/remote/libcuda.so.1, arriving on the connected stream
 * socket `fd`, on the calling thread, until the client closes it. The
 * client gets a context of its own, made here and pushed on the calling
 * thread, and reaches nothing else: every request is checked, host data
 * moves only through a shared-memory window made here. The context stays
 * current when this returns, so the caller reads kgemu_device_time for the
 * client's work, then destroys it (cuCtxDestroy of cuCtxGetCurrent).
 * Returns 0 when the client closed the socket between requests,
 * CUDA_ERROR_INVALID_VALUE when it broke the protocol (its context is made
 * all the same), or the error that kept the session from starting
 * (CUDA_ERROR_OPERATING_SYSTEM: the socket or the window; no context). */
int kgemu_serve(int fd);

/* A served session: kgemu_serve on a thread of its own, whose caller reads
 * what the client has done so far while it is served (emulator/README.md,
 * "The remote driver"): the grade job serves the sandboxed Python of the
 * host form's reference and student at once and measures each call. */
struct kgemu_served; /* one client served on a thread of its own */

/* Serves the client on the connected stream socket `fd` (as kgemu_serve
 * does) on a new thread, once its window, handshake and context are made.
 * 0, or the error that kept it from starting (kgemu_serve's, or
 * CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OPERATING_SYSTEM for the thread);
 * *served is NULL then. When the session ends (the client closed the
 * socket or broke the protocol) its thread shuts the socket down and
 * destroys the client's context; the socket stays the caller's to close,
 * after kgemu_serve_stop. */
int kgemu_serve_start(int fd, struct kgemu_served **served);

enum kgemu_copy_kind {
    KGEMU_COPY_HTOD = 0,
    KGEMU_COPY_DTOH = 1,
    KGEMU_COPY_DTOD = 2,
    KGEMU_COPY_KINDS = 3
};

/* One copy the client made, in the order made: a copy through the window
 * in chunks is one copy. Counted when it moved bytes (a copy that failed
 * its checks moved none; one the client broke off counts what moved). */
struct kgemu_copy_record {
    int kind; /* enum kgemu_copy_kind */
    unsigned long long bytes;
    unsigned long long hash; /* kgemu_hash of the bytes copied (HtoD: as they reached the device;
                              * DtoH: as they left it); 0 for DtoD */
    unsigned long long host_bytes; /* DtoH: how many of its bytes came back as the host left them
                                    * (copied to the device, memset, or copied within it from such
                                    * bytes, and not changed since by a kernel); 0 for the others */
};

#define KGEMU_COPY_RECORDS_MAX 65536

/* What a served session has done so far. */
struct kgemu_served_stats {
    /* The client context's timeline end (as kgemu_device_time), as of the
     * last request answered. */
    double device_ms;
    unsigned long long copies[KGEMU_COPY_KINDS]; /* copies made so far, memsets not counted */
    unsigned long long bytes[KGEMU_COPY_KINDS];
    /* Copy records so far: each copy one, numbered from 0. The last
     * KGEMU_COPY_RECORDS_MAX are kept; records_lost is 1 once earlier ones
     * are no longer kept (more than that many so far). */
    unsigned long long records;
    int records_lost;
    unsigned long long launches; /* kernel launches so far (those that succeeded) */
    int ended;                   /* the client closed its socket or broke the protocol */
    /* Once ended: what kgemu_serve would have returned (0: closed between
     * requests; CUDA_ERROR_INVALID_VALUE: broke the protocol). */
    int result;
    /* Fingerprints of the chunks of the copies to the device kept so far
     * (kgemu_served_uploaded_bytes), up to a few million (about 9 GB of
     * copies), then not kept (uploaded_chunks_lost 1). */
    unsigned long long uploaded_chunks;
    int uploaded_chunks_lost;
};

/* A snapshot of the session so far, safe while it is served, from any
 * thread: it never waits for the client's work (the serving thread
 * publishes each request's effect before it answers it). 0 or
 * CUDA_ERROR_INVALID_VALUE (a NULL argument). */
int kgemu_served_stats(struct kgemu_served *served, struct kgemu_served_stats *stats);
/* Copy records [first, first + count) into `records`, as far as they are
 * made; returns how many were copied: 0 when record `first` is not made
 * yet or no longer kept (only the last KGEMU_COPY_RECORDS_MAX are). */
unsigned kgemu_served_copies(struct kgemu_served *served, unsigned long long first,
                             struct kgemu_copy_record *records, unsigned count);
/* Settles the session's device, as a cuCtxSynchronize of the client's
 * would: the host's point on the client context's timeline moves up to the
 * end of all the work queued so far, so that whatever the client asks for
 * next starts after it (work queued and never waited for cannot overlap
 * what comes next). The settled point, in the milliseconds of
 * kgemu_served_stats.device_ms, goes to `device_ms`: the time of what the
 * client does next is stats.device_ms after it less that. Safe from any
 * thread while the session is served (it waits for the driver's lock, as
 * the client's own calls do). 0; CUDA_ERROR_INVALID_VALUE (a NULL
 * argument); CUDA_ERROR_CONTEXT_IS_DESTROYED once the session ended. */
int kgemu_served_settle(struct kgemu_served *served, double *device_ms);
/* How many of the `size` bytes at `bytes` lie in chunks the session
 * copied to the device, in `*matched`: the bytes of every copy to the
 * device are cut into chunks where their content says (content-defined
 * chunking, about 2 KiB a chunk, between 256 B and 8 KiB), and so is the
 * buffer, so bytes uploaded and moved unchanged (at any offset, in any
 * pieces, by copies within the device or by a kernel that copies them)
 * are found, but for about a chunk at each end of a run of them (a
 * buffer under 256 bytes never is: too short to tell anything). Safe
 * while the session is served, from any thread. 0, or
 * CUDA_ERROR_INVALID_VALUE (a NULL argument). */
int kgemu_served_uploaded_bytes(struct kgemu_served *served, const void *bytes, size_t size,
                                unsigned long long *matched);
/* Copies the last fault of the client's context (what stopped a launch of
 * its: kgemu_last_fault's, for the served session) to `fault`. Returns 1
 * when there was one, 0 when there was none or the session has ended
 * (its context is gone). Safe from any thread while it is served. */
int kgemu_served_fault(struct kgemu_served *served, struct kgemu_fault *fault);
/* Ends the session, whether the client is still connected, has closed or
 * broke the protocol: shuts the socket down (not closed: the caller's),
 * joins the thread (after the request it is serving, a launch included),
 * destroys the client's context, frees. Returns the session's result (as
 * stats.result); 0 for NULL. */
int kgemu_serve_stop(struct kgemu_served *served);

/* The hash of copy records: 64 bits over `size` bytes, fast (8-byte words), the same for the same
 * bytes whatever their alignment. The grade job hashes a returned array's parts with it. It is
 * XXH64 (seed 0). */
unsigned long long kgemu_hash(const void *bytes, size_t size);

/* Copies the last fault of the current context to `fault`. Returns 1 when
 * there was one, 0 when there was none or there is no current context. */
int kgemu_last_fault(struct kgemu_fault *fault);

#endif
