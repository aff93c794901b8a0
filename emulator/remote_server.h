/*
 * Internal to emulator/: the remote driver's server (kgemu_serve), which
 * serves one client's driver calls on this library's own entry points.
 *
 * A session is one client: its socket, the window it shares with it, and
 * the context made for it at the handshake, which is the only context the
 * client ever names. The client's context stack is counted here (every
 * entry is that context), never the serving thread's, so the client can
 * reach no other context of the process. Every handle and device pointer
 * the client names is checked to be its context's before a call is made
 * with it; the entry points check the rest (sizes, kinds, sticky faults).
 * Nothing the client sends is a pointer the server dereferences: host data
 * is only ever in the window, whose bytes are copied out before they are
 * parsed, since the client may change them at any moment.
 */
#ifndef KGRADE_EMULATOR_REMOTE_SERVER_H
#define KGRADE_EMULATOR_REMOTE_SERVER_H

#include "driver.h"
#include "remote_protocol.h"

struct remote_link; /* remote_server_modules.c */

/* The pages of the client's device memory the host wrote (remote_host_bytes.c):
 * per allocation the host wrote into, sorted by base. */
#define REMOTE_HOST_PAGE 4096u /* bytes of a page, aligned on the device's addresses */
struct remote_host_allocation;
struct remote_host_memory {
    struct remote_host_allocation *allocations;
    size_t count, capacity;
};

/* Parts of a copy within the device whose source bytes are as the host
 * left them: [offset, offset + bytes) of the copy each. */
struct remote_host_span {
    uint64_t offset, bytes;
};
struct remote_host_spans {
    struct remote_host_span *span;
    size_t count, capacity;
};

struct remote_session {
    int fd;
    unsigned char *window; /* shared with the client: read it once, trust none of it */
    size_t window_bytes;
    CUcontext context; /* the client's, current on the serving thread */
    int depth;         /* the client's context stack */
    bool initialized;  /* the client called cuInit */
    bool broken;       /* the client broke the protocol: the session ends */
    unsigned char *in; /* the request's inline bytes (REMOTE_INLINE_MAX) */
    unsigned char *out;
    struct remote_link *links[REMOTE_LINKS_MAX];
    struct kgemu_served *served; /* kgemu_serve_start's: what the session did; NULL: kgemu_serve */
    struct remote_host_memory host; /* a served session's only */
};

/* A session's life (remote_server.c), on the thread that serves it: its
 * window, handshake and context (made current on the thread), then its
 * requests until the client closes the socket (CUDA_SUCCESS) or breaks
 * the protocol (CUDA_ERROR_INVALID_VALUE), then what it holds but the
 * context (kgemu_serve's caller, or kgemu_serve_stop, destroys that). */
CUresult remote_session_open(struct remote_session *s);
CUresult remote_session_serve(struct remote_session *s);
void remote_session_close(struct remote_session *s);

/* What a served session did (remote_served.c), published for
 * kgemu_served_stats as it happens; nothing when s->served is NULL. A
 * copy that moved bytes, with the hash of what moved (0 for DtoD); a
 * launch that ran; a request answered (the timeline's end as of now). */
void remote_served_copy(struct remote_session *s, enum kgemu_copy_kind kind, uint64_t bytes,
                        uint64_t hash, uint64_t host_bytes);
/* A chunk (chunks.h) of the bytes a copy to the device wrote, `context`
 * its session: its fingerprint joins the session's uploaded chunks. */
void remote_served_uploaded(void *context, uint64_t fingerprint, size_t bytes);
void remote_served_launch(struct remote_session *s);
void remote_served_answered(struct remote_session *s);

/* Which of a served session's device bytes are as the host left them
 * (remote_host_bytes.c; nothing when s->served is NULL). For each page of
 * an allocation the host wrote (a copy to the device, a memset, a copy
 * within it of bytes as the host left them, a module's variables), the range of the page it
 * wrote (the union of several, as one range) and the hash of its bytes
 * there once written; a page whose bytes no longer have that hash was
 * changed since (by a kernel). The caller has checked the ranges (its
 * client's, inside one allocation).
 *
 * Around the host's write of [device, device + bytes): writing before
 * (what it will partly overwrite is kept only if still as the host left
 * it), wrote after (with what was written). */
void remote_host_writing(struct remote_session *s, CUdeviceptr device, size_t bytes);
void remote_host_wrote(struct remote_session *s, CUdeviceptr device, size_t bytes);
/* How many of [device, device + bytes) are as the host left them. */
uint64_t remote_host_kept(struct remote_session *s, CUdeviceptr device, size_t bytes);
/* Around a copy within the device: `spans` gets the parts of the source
 * that are as the host left them (before the copy, with writing for their
 * destination); after it, wrote for each when the copy was made; then
 * `spans` is freed. */
void remote_host_copying(struct remote_session *s, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                         struct remote_host_spans *spans);
void remote_host_copied(struct remote_session *s, CUdeviceptr dst, bool made,
                        struct remote_host_spans *spans);
/* Around a module's load: the newest allocation before it, then its
 * variables (.global, .const), whose bytes the host's image gave, as the
 * host's. */
uint64_t remote_host_newest(struct remote_session *s);
void remote_host_module_loaded(struct remote_session *s, uint64_t newest);
/* The allocation at `base` was freed; those freed otherwise (a module
 * unloaded) go in the pruning; all go when the session closes. */
void remote_host_freed(struct remote_session *s, CUdeviceptr base);
void remote_host_prune(struct remote_session *s);
void remote_host_release(struct remote_session *s);

/* A handler makes one call for the request and fills the reply's values
 * (reply->arg, inline bytes in s->out); it returns the call's CUresult.
 * One that talks with the client further (a copy in chunks) sets
 * s->broken when the client breaks off. */
typedef CUresult (*remote_handler)(struct remote_session *s, const struct remote_message *req,
                                   struct remote_message *reply);

/* What a request needs before its call is made. */
enum remote_needs {
    REMOTE_NEEDS_NOTHING = 0,
    REMOTE_NEEDS_INIT = 1,    /* the client's cuInit: else CUDA_ERROR_NOT_INITIALIZED */
    REMOTE_NEEDS_CONTEXT = 3, /* and a current context: else CUDA_ERROR_INVALID_CONTEXT */
};

struct remote_call {
    remote_handler handler;
    enum remote_needs needs;
};

/* The handlers of each request, indexed by enum remote_op (NULL: none). */
extern const struct remote_call remote_calls[REMOTE_OPS];

/* CUDA_ERROR_INVALID_HANDLE unless `handle` is a live handle of `kind` that
 * the session's context owns. */
CUresult remote_owned(const struct remote_session *s, enum driver_kind kind, uint64_t handle);
/* A stream the client may name: 0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD,
 * or one of its context's. */
CUresult remote_stream_owned(const struct remote_session *s, uint64_t stream);
/* Puts `text` (NUL-terminated, at most REMOTE_STRING_MAX bytes counted)
 * in the reply's inline bytes, its terminator included. */
void remote_reply_string(struct remote_session *s, struct remote_message *reply, const char *text);

/* The copies (remote_server_copy.c). */
CUresult remote_memcpy_htod(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply);
CUresult remote_memcpy_dtoh(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply);

/* Links, modules, functions and launches (remote_server_modules.c). */
CUresult remote_link_create(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply);
CUresult remote_link_add_data(struct remote_session *s, const struct remote_message *req,
                              struct remote_message *reply);
CUresult remote_link_complete(struct remote_session *s, const struct remote_message *req,
                              struct remote_message *reply);
CUresult remote_link_destroy(struct remote_session *s, const struct remote_message *req,
                             struct remote_message *reply);
CUresult remote_module_load(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply);
CUresult remote_module_get_function(struct remote_session *s, const struct remote_message *req,
                                    struct remote_message *reply);
CUresult remote_module_get_global(struct remote_session *s, const struct remote_message *req,
                                  struct remote_message *reply);
CUresult remote_func_params(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply);
CUresult remote_launch(struct remote_session *s, const struct remote_message *req,
                       struct remote_message *reply);
/* Destroys the links the client left. */
void remote_links_release(struct remote_session *s);

#endif
