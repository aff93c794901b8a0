/*
 * Internal to emulator/: the state the driver-API files (driver_*.c) share.
 *
 * The driver is synchronous: every call, a launch included, has finished
 * when it returns, so the data a copy or a kernel writes is there at once.
 * Time is another matter: each context keeps a modeled device timeline
 * (driver_timeline.c), on which every piece of stream work (a kernel, a
 * copy, a memset, an event, a wait) is placed as the modeled GPU would run
 * it: after its stream's earlier work, when its engine is free, after what
 * it waits for; events record points of that timeline. So a program reads
 * a GPU's times and overlaps while nothing actually runs concurrently.
 * One mutex guards all driver state (the handles, the
 * contexts and what they own); each entry point takes it for its whole
 * duration, through driver_begin() or driver_enter() and driver_leave().
 * That serializes launches of different contexts too, which costs nothing
 * here because a launch already runs on every core. The current-context
 * stack is per host thread, as in CUDA.
 *
 * Every handle the driver gives out (CUcontext, CUmodule, CUfunction,
 * CUstream, CUevent) points to one of the structs below, whose first member
 * links it into the list of live handles of its kind. A handle is checked
 * by finding it in that list before it is dereferenced, so a stale or made
 * up handle gets CUDA_ERROR_INVALID_HANDLE (or INVALID_CONTEXT), not a crash.
 */
#ifndef KGRADE_EMULATOR_DRIVER_H
#define KGRADE_EMULATOR_DRIVER_H

#include <pthread.h>

#include "chunks.h"
#include "emu.h"
#include "hash.h"
#include "texture.h"

/* ---------------------------------------------------------------- limits */

#define DRIVER_VERSION                   13000 /* cuDriverGetVersion: CUDA 13.0, the toolkit's cuda.h */
#define DRIVER_DEVICE_COUNT              1     /* one virtual GPU, ordinal 0 */
#define DRIVER_CONTEXT_STACK_MAX         64
#define DRIVER_DEFAULT_STACK_BYTES       ((size_t)1024)
#define DRIVER_DEFAULT_PRINTF_BYTES      ((size_t)1048576)
#define DRIVER_DEFAULT_MALLOC_HEAP_BYTES ((size_t)8388608)
#define DRIVER_JIT_LOG_BYTES             8192 /* what the PTX loader may say about one module */
#define DRIVER_CARVEOUT_DEFAULT          (-1) /* CU_SHAREDMEM_CARVEOUT_DEFAULT */
#define DRIVER_CARVEOUT_MAX              100  /* percent */

/* --------------------------------------------------------------- handles */

enum driver_kind {
    DRIVER_CONTEXT,
    DRIVER_MODULE,
    DRIVER_FUNCTION,
    DRIVER_STREAM,
    DRIVER_EVENT,
    DRIVER_ARRAY,
    DRIVER_LINK,
    DRIVER_HOST_MEMORY,
    DRIVER_KINDS
};

struct driver_handle {
    struct driver_handle *next; /* in driver.live[kind] */
    struct CUctx_st *context;   /* the context that owns it (a context owns itself) */
};

struct driver_limits {
    size_t stack_bytes;       /* CU_LIMIT_STACK_SIZE */
    size_t printf_bytes;      /* CU_LIMIT_PRINTF_FIFO_SIZE */
    size_t malloc_heap_bytes; /* CU_LIMIT_MALLOC_HEAP_SIZE */
};

/* ------------------------------------------------------------- timeline */

/* What runs a piece of stream work on the modeled GPU (driver_timeline.c):
 * kernels one at a time on the SMs, copies and memsets on the copy engines
 * (ASYNC_ENGINE_COUNT is 3: one each way over the link, one inside device
 * memory). */
enum driver_engine {
    DRIVER_ENGINE_NONE,    /* an event, a wait for an event, a callback: no engine */
    DRIVER_ENGINE_COMPUTE, /* kernels */
    DRIVER_ENGINE_HTOD,    /* copies from the host to the device */
    DRIVER_ENGINE_DTOH,    /* from the device to the host */
    DRIVER_ENGINE_DEVICE,  /* copies within device memory, memsets */
    DRIVER_ENGINES
};

/* A context's modeled device timeline. Points are picoseconds since the
 * context was made, in integers, so that the time between two events is
 * exactly the durations placed between them, whatever came before. */
struct driver_timeline {
    int64_t engine_free[DRIVER_ENGINES]; /* when each engine's last work ends */
    int64_t legacy_end;                  /* the NULL stream's (CU_STREAM_LEGACY's) last work */
    int64_t per_thread_end;              /* CU_STREAM_PER_THREAD's last work */
    int64_t blocking_end; /* the latest end of work in a blocking stream, the NULL one's included */
    int64_t queued_end;   /* the latest end of any work */
    int64_t host;         /* the point the host has waited for: later work starts after it */
};

struct CUctx_st {
    struct driver_handle handle;
    /* Unique to this context: a thread's stack entry of a destroyed context
     * never passes for a later one that malloc put at the same address. */
    uint64_t serial;
    bool primary;
    unsigned flags;
    struct emu_memory *memory;
    struct emu_heap *heap; /* created at the first launch; NULL before */
    struct driver_limits limits;
    /* The execution fault that broke the context: every later call that uses
     * the device returns it, until the context is destroyed or reset. */
    CUresult sticky;
    bool has_fault;
    struct kgemu_fault fault; /* the last failed launch, sticky or not */
    struct driver_timeline timeline;
    bool has_counters;
    struct kgemu_counters counters;       /* the timing model's counts of the last launch */
    double time_budget_ms;                /* kgemu_set_time_budget; 0: none */
    struct emu_texture_objects *textures; /* texture and surface objects; NULL until one is made */
};

struct CUmod_st {
    struct driver_handle handle;
    struct emu_module *module;
};

struct CUfunc_st {
    struct driver_handle handle;
    struct CUmod_st *module;
    struct emu_function *function;
    size_t max_dynamic_shared; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int carveout;              /* CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT */
};

struct CUstream_st {
    struct driver_handle handle;
    unsigned flags;
    int64_t end; /* where its last work ends on the timeline (ps) */
};

/* A CUDA array (driver_array.c): its texels in device memory. */
struct CUarray_st {
    struct driver_handle handle;
    struct emu_image image;
    CUDA_ARRAY3D_DESCRIPTOR desc; /* as created (a 2D one with Depth 0) */
};

struct CUevent_st {
    struct driver_handle handle;
    unsigned flags;
    bool recorded;
    int64_t point; /* the timeline's point it recorded (ps) */
};

/* The older variants of cuCtxCreate that cuda.h no longer declares, which
 * numba's ctypes binding (cuCtxCreate_v2) and cuGetProcAddress callers of
 * older versions look up; the real driver exports them too. */
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev);

/* ----------------------------------------------------------------- state */

struct driver_state {
    pthread_mutex_t lock;
    const struct emu_device_model *device; /* NULL until cuInit succeeds */
    struct driver_handle *live[DRIVER_KINDS];
    struct CUctx_st *primary; /* NULL while nobody retains it */
    int primary_refs;
    unsigned primary_flags;
};

extern struct driver_state driver;

/* After an execution fault every call that uses the device returns it, the
 * freeing calls too (cuMemFree, cuModuleUnload, cuStreamDestroy,
 * cuEventDestroy: they then free nothing); destroying the context or
 * resetting the primary context frees everything and clears the fault. */
enum driver_sticky {
    DRIVER_IGNORE_STICKY, /* the call only reads driver state */
    DRIVER_STICKY,        /* the call uses the device: a sticky fault fails it */
};

/* Both take the driver lock, always; the caller ends with driver_leave().
 * driver_begin: CUDA_ERROR_NOT_INITIALIZED before cuInit, and
 * CUDA_ERROR_NOT_PERMITTED inside a stream callback.
 * driver_enter: also finds the current context (CUDA_ERROR_INVALID_CONTEXT
 * when there is none, CUDA_ERROR_CONTEXT_IS_DESTROYED when the thread's
 * current one was destroyed) and returns its sticky fault when asked to. */
CUresult driver_begin(void);
/* True while a stream callback runs on this thread (driver_stream_callback.c):
 * driver_begin then answers CUDA_ERROR_NOT_PERMITTED, as cuda.h says. */
bool driver_in_callback(void);
CUresult driver_enter(struct CUctx_st **ctx, enum driver_sticky sticky);
/* For the calls that release what a context owns (cuMemFree,
 * cuModuleUnload, cuStreamDestroy, cuEventDestroy, cuMemFreeHost): takes
 * the lock and finds the context that owns `handle`, current or not, as a
 * real driver does (numba frees after popping its context: cuda.close()).
 * CUDA_ERROR_INVALID_HANDLE when it is no live handle of `kind`
 * (CUDA_ERROR_INVALID_CONTEXT when no context is current either); that
 * context's sticky fault when it has one. */
CUresult driver_enter_owner(enum driver_kind kind, const void *handle, struct CUctx_st **ctx);
/* The live context whose allocation table holds `address` (the current
 * one first; every table holds page-locked host memory), with the
 * allocation in `range`; NULL when none does. Caller holds the lock. */
struct CUctx_st *driver_memory_owner(uint64_t address, struct emu_range *range);
/* Releases the lock and returns `rc`. */
CUresult driver_leave(CUresult rc);

void driver_handle_add(enum driver_kind kind, struct driver_handle *handle,
                       struct CUctx_st *context);
void driver_handle_remove(enum driver_kind kind, struct driver_handle *handle);
bool driver_handle_live(enum driver_kind kind, const void *handle);
/* CUDA_ERROR_INVALID_HANDLE unless `handle` is a live handle of `kind` that
 * `ctx` owns (a module, function, stream or event of that context). */
CUresult driver_handle_check(enum driver_kind kind, const void *handle, const struct CUctx_st *ctx);
/* For driver_handle_remove_if: a handle that context `key` owns; a release
 * that frees the handle's struct, which owns nothing else. */
bool driver_handle_owned_by(const struct driver_handle *handle, const void *key);
void driver_handle_free(struct driver_handle *handle);
/* Removes every live handle of `kind` that `match` accepts and passes it to `release`. */
void driver_handle_remove_if(enum driver_kind kind,
                             bool (*match)(const struct driver_handle *, const void *key),
                             const void *key, void (*release)(struct driver_handle *));

/* cuDeviceGetAttribute's answer for the device (an attribute cuda.h
 * defines): the limits the driver's checks hold programs to. */
int driver_attribute(CUdevice_attribute attribute);

/* The calling thread's current context, when it is live; NULL otherwise. */
struct CUctx_st *driver_current(void);
/* Why there is no current context: CUDA_ERROR_CONTEXT_IS_DESTROYED when the
 * top of the thread's stack is a context since destroyed (cuda.h's meaning
 * of it), else CUDA_ERROR_INVALID_CONTEXT. */
CUresult driver_no_current(void);
/* CUDA_ERROR_INVALID_DEVICE unless `device` is an ordinal of ours. */
CUresult driver_device_check(CUdevice device);

/* The PTX text of a module image: PTX itself, or the PTX of a fatbinary
 * (`*unpacked` then holds it, malloc'ed; the caller frees it). A cubin, or
 * a fatbinary with no PTX the device runs, is refused with `log` saying
 * why. Caller holds the lock. */
CUresult driver_image_ptx(const void *image, const char **ptx, char **unpacked, char *log,
                          size_t log_size);
/* The whole file at `path`, NUL-terminated and malloc'ed (the caller frees
 * it): CUDA_ERROR_FILE_NOT_FOUND when it cannot be read. */
CUresult driver_file_read(const char *path, char **data, size_t *size);

/* A JIT log buffer of the caller's (driver_jit.c). */
struct driver_jit_log {
    char *buffer;      /* NULL: none given */
    size_t capacity;   /* bytes, the terminator's included */
    size_t length;     /* written so far */
    void **size_value; /* the caller's _SIZE_BYTES option value: gets the bytes used */
};

struct driver_jit_logs {
    struct driver_jit_log info, error;
};

/* Finds the log buffers among `n` JIT options and empties them;
 * CUDA_ERROR_INVALID_VALUE when the arrays are missing or an option is not
 * one cuda.h defines. */
CUresult driver_jit_options(unsigned n, CUjit_option *options, void **values,
                            struct driver_jit_logs *logs);
/* Adds a line to a log, cut where the caller's buffer ends. */
void driver_jit_log_append(struct driver_jit_log *log, const char *text);

/* What a context owns, released when it is destroyed or reset. */
void driver_modules_release(struct CUctx_st *ctx);
void driver_streams_events_release(struct CUctx_st *ctx);
void driver_arrays_release(struct CUctx_st *ctx);
void driver_texture_objects_release(struct CUctx_st *ctx);
void driver_links_release(struct CUctx_st *ctx);

/* Page-locked host memory (driver_host_memory.c). */
struct driver_host_info {
    struct CUctx_st *context; /* that allocated or registered it */
    uint64_t base, size;
    bool registered; /* cuMemHostRegister; else cuMemHostAlloc */
};
/* Whether `address` lies in page-locked host memory; `info` gets the range. */
bool driver_host_memory_find(uint64_t address, struct driver_host_info *info);
/* Enters every page-locked range in the table of `ctx` (made or reset). */
CUresult driver_host_memory_adopt(struct CUctx_st *ctx);
void driver_host_memory_release(struct CUctx_st *ctx);

/* A stream of `ctx`, or one of the default streams (NULL, CU_STREAM_LEGACY,
 * CU_STREAM_PER_THREAD); CUDA_ERROR_INVALID_HANDLE otherwise. */
CUresult driver_stream_check(struct CUctx_st *ctx, CUstream stream);

/* The modeled timeline (driver_timeline.c). `stream` has passed
 * driver_stream_check; the caller holds the lock. */
/* Places work of `duration` ps on `stream`, run by `engine`, not before
 * `after` (an event's point; 0: nothing): it starts once its stream's
 * earlier work, the work the legacy NULL stream orders before it, its
 * engine and the host allow. Returns where it ends. */
int64_t driver_timeline_place(struct CUctx_st *ctx, CUstream stream, enum driver_engine engine,
                              int64_t duration, int64_t after);
/* The point an event recorded on `stream` now would record, without recording it. */
int64_t driver_timeline_stream_point(struct CUctx_st *ctx, CUstream stream);
/* The host waits until `point` (a synchronization, or a query that found the work done). */
void driver_timeline_host_waits(struct CUctx_st *ctx, int64_t point);
/* A kernel of `elapsed_ms` (the timing model's time) on `stream`. */
void driver_timeline_kernel(struct CUctx_st *ctx, CUstream stream, double elapsed_ms);
/* A copy of `bytes` from address `src` to `dst` on `stream`: within device
 * memory at the memory's rate, between it and the host at the link's, at
 * the pinned rate when page-locked memory holds the host end's first byte.
 * The host waits for its end when an end is pageable host memory, or when
 * the copy is `synchronous` (cuMemcpyHtoD, not its Async form) and an end
 * is host memory, as cuda.h says a GPU's host does. */
void driver_timeline_copy(struct CUctx_st *ctx, CUstream stream, uint64_t dst, uint64_t src,
                          uint64_t bytes, bool synchronous);
/* A memset of `bytes` of device memory on `stream`, at the memory's write rate. */
void driver_timeline_memset(struct CUctx_st *ctx, CUstream stream, uint64_t bytes);
/* A copy between device memory and a buffer of the host made in parts, as
 * the remote driver's server (remote_server_copy.c) makes one through its
 * window: each part is checked (the stream, the range inside one
 * allocation of the current context) and moved without time, its device
 * bytes added to `hash` and `chunks` once moved (NULL: none; the host
 * end may be changed meanwhile by another process, the device end
 * cannot; `chunks`' callback is called with the lock held), then the
 * whole copy (or what was made of it) is placed once on the timeline, as
 * one copy of `bytes` would be. Each takes the lock. */
CUresult driver_copy_part(CUstream stream, CUdeviceptr device, void *host, size_t bytes,
                          bool to_device, struct emu_hash *hash, struct emu_chunker *chunks);
CUresult driver_copy_charge(CUstream stream, CUdeviceptr device, const void *host, size_t bytes,
                            bool to_device, bool synchronous);
/* CUDA_ERROR_INVALID_VALUE unless [address, address + bytes) lies inside
 * one allocation the current context made itself (not page-locked host
 * memory, which every context's table holds): what a remote client may
 * name. Nothing to check when `bytes` is 0. Takes the lock. */
CUresult driver_own_range_check(CUdeviceptr address, size_t bytes);
/* The same, and `range` gets the allocation (for bytes > 0). */
CUresult driver_own_range(CUdeviceptr address, size_t bytes, struct emu_range *range);
/* The current context's allocations, as emu_memory_list gives them
 * (`*ranges` malloc'ed). Takes the lock. */
CUresult driver_own_allocations(struct emu_range **ranges, size_t *count);
/* Milliseconds of a timeline interval. */
double driver_timeline_ms(int64_t interval);
/* The most threads a block of `function` may have: its .maxntid
 * (__launch_bounds__) or the device's limit. */
int driver_function_max_threads(const struct CUfunc_st *function,
                                const struct emu_device_model *device);

#endif
