/*
 * Internal to the remote driver's client library
 * (build/emulator/remote/libcuda.so.1): a CUDA driver with no device of
 * its own, which forwards every call it supports to the virtual GPU of
 * another process (kgemu_serve) over the socket whose descriptor
 * KGEMU_REMOTE_FD names, and moves host data through the window that
 * process shares with it (remote_protocol.h).
 *
 * Calls are made one at a time (one lock): the server answers one request
 * at a time too. The client's host memory is read and written by the
 * client alone, copied into and out of the window.
 */
#ifndef KGRADE_EMULATOR_REMOTE_CLIENT_H
#define KGRADE_EMULATOR_REMOTE_CLIENT_H

#include <cuda.h>

#include "remote_protocol.h"

#define CLIENT_EXPORT __attribute__((visibility("default")))

/* A request of `op` with no arguments yet. */
struct remote_message client_request(enum remote_op op);

/* Sends `req` with `inline_bytes` of `data` and returns the reply's status
 * (the call's CUresult); `reply` gets its values and up to `capacity`
 * bytes of its inline data go to `reply_data` (may be NULL). The first
 * call connects (CUDA_ERROR_NO_DEVICE, said once on stderr, when it
 * cannot). When `window_in` is given, its `req->window_bytes` bytes are
 * put at the window's start first; `window_out`, when given, gets a
 * malloc'ed copy of the reply's `window_bytes`, NUL-terminated (the caller
 * frees it). */
struct client_transfer {
    const void *data;
    void *reply_data;
    size_t reply_capacity;
    const void *window_in;
    char **window_out;
};
CUresult client_call(struct remote_message *req, const struct client_transfer *t,
                     struct remote_message *reply);
/* The shorthand: a request with up to four arguments and nothing more. */
CUresult client_simple(enum remote_op op, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                       struct remote_message *reply);
/* A call whose answer is one value, the reply's first: `*value` gets it. */
CUresult client_value(enum remote_op op, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                      uint64_t *value);
/* The body of an entry point that makes such a call: CUDA_ERROR_INVALID_VALUE
 * for a NULL `out`; else `*out` gets the answer, as a `type`, on success. */
#define CLIENT_RETURN_VALUE(out, type, op, a0, a1, a2, a3)                                         \
    do {                                                                                           \
        uint64_t value_ = 0;                                                                       \
        if ((out) == NULL)                                                                         \
            return CUDA_ERROR_INVALID_VALUE;                                                       \
        CUresult rc_ = client_value(op, a0, a1, a2, a3, &value_);                                  \
        if (rc_ == CUDA_SUCCESS)                                                                   \
            *(out) = (type)(uintptr_t)value_;                                                      \
        return rc_;                                                                                \
    } while (0)
/* The window's size (0 before the connection). */
size_t client_window_bytes(void);

/* A copy between the client's host memory and device memory, chunk by
 * chunk through the window (remote_client.c). */
CUresult client_copy(enum remote_op op, CUdeviceptr device, void *host, size_t bytes,
                     CUstream stream, bool synchronous);

#endif
