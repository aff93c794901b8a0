/*
 * The remote driver's protocol: what the client library
 * (build/emulator/remote/libcuda.so.1, emulator/remote_client*.c) and the
 * server in the virtual GPU (kgemu_serve, emulator/remote_server*.c) say
 * to each other over a connected stream socket (emulator/README.md, "The
 * remote driver").
 *
 * At the handshake the server sends one message (op REMOTE_MAGIC, arg[0]
 * REMOTE_VERSION, arg[1] the window's size) with the window, a memfd of
 * REMOTE_WINDOW_BYTES sealed against shrinking, attached (SCM_RIGHTS).
 * Then the client sends requests and the server answers each with one
 * reply, strictly in turn. A message is a struct remote_message followed
 * by `inline_bytes` bytes (names, strings, kernel parameters, JIT logs);
 * bulk data (copies, module images, linked images) lies at the start of
 * the window, `window_bytes` of it. A copy larger than the window goes in
 * chunks: the server answers REMOTE_MORE after each chunk but the last,
 * and the client sends REMOTE_CHUNK for the next (a copy to the device:
 * the client has put the next chunk in the window; from the device: it
 * has taken the last one out).
 *
 * Nothing here is trusted by the server: every field is checked.
 */
#ifndef KGRADE_EMULATOR_REMOTE_PROTOCOL_H
#define KGRADE_EMULATOR_REMOTE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REMOTE_MAGIC         0x6b67726du /* "kgrm" */
#define REMOTE_VERSION       1
#define REMOTE_WINDOW_BYTES  ((size_t)64 << 20) /* the shared window: a copy's chunk */
#define REMOTE_ARGS          8
#define REMOTE_INLINE_MAX    65536 /* bytes after a message's header */
#define REMOTE_NAME_MAX      1024  /* a kernel's or a variable's name, the terminator included */
#define REMOTE_PARAMS_MAX    4096  /* a kernel's parameters (a layout is 8 bytes each, inline) */
#define REMOTE_JIT_OPTIONS   32    /* JIT options of one call */
#define REMOTE_LOG_BYTES     8192  /* what the server keeps of one JIT log */
#define REMOTE_LINKS_MAX     64    /* links a client may hold at once */
#define REMOTE_STRING_MAX    512   /* a device name, an error's name or text */
#define REMOTE_CONTEXT_DEPTH 64    /* the client's context stack */
#define REMOTE_MORE          (-1)  /* a reply's status: the copy goes on */
/* The environment variable that gives the client its connected socket. */
#define REMOTE_FD_VARIABLE "KGEMU_REMOTE_FD"

/* A request (op: a remote_op) or a reply (op: the CUresult, or REMOTE_MORE). */
struct remote_message {
    int32_t op;
    uint32_t inline_bytes;
    uint64_t window_bytes;
    uint64_t arg[REMOTE_ARGS];
};

/* The requests; each names the call it makes and its arguments (argN). */
enum remote_op {
    REMOTE_CHUNK = 1,                /* a copy's next chunk (see above) */
    REMOTE_INIT,                     /* cuInit(0: flags) */
    REMOTE_DRIVER_GET_VERSION,       /* -> 0: version */
    REMOTE_DEVICE_GET_COUNT,         /* -> 0: count */
    REMOTE_DEVICE_GET,               /* 0: ordinal -> 0: device */
    REMOTE_DEVICE_GET_NAME,          /* 0: device -> inline: the name */
    REMOTE_DEVICE_GET_ATTRIBUTE,     /* 0: attribute, 1: device -> 0: value */
    REMOTE_DEVICE_TOTAL_MEM,         /* 0: device -> 0: bytes */
    REMOTE_DEVICE_GET_UUID,          /* 0: device -> inline: 16 bytes */
    REMOTE_DEVICE_CAN_ACCESS_PEER,   /* 0: device, 1: peer -> 0: can */
    REMOTE_PRIMARY_RETAIN,           /* 0: device -> 0: context */
    REMOTE_PRIMARY_RELEASE,          /* 0: device */
    REMOTE_PRIMARY_RESET,            /* 0: device */
    REMOTE_PRIMARY_GET_STATE,        /* 0: device -> 0: flags, 1: active */
    REMOTE_CTX_PUSH,                 /* 0: context */
    REMOTE_CTX_POP,                  /* -> 0: context */
    REMOTE_CTX_SET_CURRENT,          /* 0: context (0: none) */
    REMOTE_CTX_GET_CURRENT,          /* -> 0: context (0: none) */
    REMOTE_CTX_GET_DEVICE,           /* -> 0: device */
    REMOTE_CTX_SYNCHRONIZE,          /* */
    REMOTE_MEM_ALLOC,                /* 0: bytes -> 0: device pointer */
    REMOTE_MEM_FREE,                 /* 0: device pointer */
    REMOTE_MEM_GET_INFO,             /* -> 0: free, 1: total */
    REMOTE_MEM_GET_ADDRESS_RANGE,    /* 0: device pointer -> 0: base, 1: size */
    REMOTE_MEMCPY_HTOD,              /* 0: dst, 1: bytes, 2: stream, 3: synchronous; window */
    REMOTE_MEMCPY_DTOH,              /* 0: src, 1: bytes, 2: stream, 3: synchronous -> window */
    REMOTE_MEMCPY_DTOD,              /* 0: dst, 1: src, 2: bytes, 3: stream */
    REMOTE_MEMSET_D8,                /* 0: dst, 1: value, 2: count, 3: stream */
    REMOTE_LINK_CREATE,              /* inline: JIT options -> 0: link, inline: logs */
    REMOTE_LINK_ADD_DATA,            /* 0: link, 1: type, inline: name; window: data -> logs */
    REMOTE_LINK_COMPLETE,            /* 0: link -> window: the image, inline: logs */
    REMOTE_LINK_DESTROY,             /* 0: link */
    REMOTE_MODULE_LOAD,              /* inline: JIT options; window: image -> 0: module, logs */
    REMOTE_MODULE_UNLOAD,            /* 0: module */
    REMOTE_MODULE_GET_FUNCTION,      /* 0: module, inline: name -> 0: function */
    REMOTE_MODULE_GET_GLOBAL,        /* 0: module, inline: name -> 0: pointer, 1: bytes */
    REMOTE_FUNC_GET_ATTRIBUTE,       /* 0: attribute, 1: function -> 0: value */
    REMOTE_FUNC_SET_CACHE_CONFIG,    /* 0: function, 1: config */
    REMOTE_FUNC_PARAMS,              /* 0: function -> 0: count, inline: offset, size (u32) each */
    REMOTE_LAUNCH,                   /* see remote_launch_args; inline: the parameter buffer */
    REMOTE_STREAM_CREATE,            /* 0: flags -> 0: stream */
    REMOTE_STREAM_DESTROY,           /* 0: stream */
    REMOTE_STREAM_SYNCHRONIZE,       /* 0: stream */
    REMOTE_STREAM_QUERY,             /* 0: stream */
    REMOTE_STREAM_WAIT_EVENT,        /* 0: stream, 1: event, 2: flags */
    REMOTE_EVENT_CREATE,             /* 0: flags -> 0: event */
    REMOTE_EVENT_RECORD,             /* 0: event, 1: stream */
    REMOTE_EVENT_SYNCHRONIZE,        /* 0: event */
    REMOTE_EVENT_QUERY,              /* 0: event */
    REMOTE_EVENT_ELAPSED,            /* 0: start, 1: end -> 0: float's bits */
    REMOTE_EVENT_DESTROY,            /* 0: event */
    REMOTE_POINTER_GET_ATTRIBUTE,    /* 0: attribute, 1: pointer -> 0: value (8 bytes) */
    REMOTE_GET_ERROR_NAME,           /* 0: error -> inline: the name */
    REMOTE_GET_ERROR_STRING,         /* 0: error -> inline: the text */
    REMOTE_OCCUPANCY_ACTIVE_BLOCKS,  /* 0: function, 1: block size, 2: shared, 3: flags -> 0 */
    REMOTE_OCCUPANCY_MAX_BLOCK_SIZE, /* 0: function, 1: shared, 2: limit, 3: flags -> 0: grid,
                                        1: block */
    REMOTE_OPS
};

/* REMOTE_LAUNCH's arguments. */
enum remote_launch_args {
    REMOTE_LAUNCH_FUNCTION, /* the CUfunction */
    REMOTE_LAUNCH_GRID_XY,  /* x | y << 32 */
    REMOTE_LAUNCH_GRID_Z,
    REMOTE_LAUNCH_BLOCK_XY, /* x | y << 32 */
    REMOTE_LAUNCH_BLOCK_Z,
    REMOTE_LAUNCH_SHARED, /* dynamic shared memory, bytes */
    REMOTE_LAUNCH_STREAM,
};

/* One JIT option, inline: a log buffer's value is ignored (the server
 * keeps its own and sends back what it says); every other value is passed
 * as the integer it is. */
struct remote_jit_option {
    uint32_t option; /* a CUjit_option */
    uint32_t pad;
    uint64_t value;
};

/* Replies that carry JIT logs: arg[REMOTE_LOG_INFO_BYTES] bytes of info log
 * then arg[REMOTE_LOG_ERROR_BYTES] of error log, inline, neither
 * NUL-terminated. */
enum remote_log_args {
    REMOTE_LOG_INFO_BYTES = 6,
    REMOTE_LOG_ERROR_BYTES = 7,
};

/* Whole messages over the socket (remote_io.c), without SIGPIPE: false
 * when the peer closed, the socket broke, or (remote_receive) a message
 * announced more than REMOTE_INLINE_MAX inline bytes. `inline_buffer`
 * holds REMOTE_INLINE_MAX bytes. */
bool remote_send(int fd, const struct remote_message *message, const void *inline_data);
bool remote_receive(int fd, struct remote_message *message, void *inline_buffer);
/* The handshake's message, into `hello`; returns the window's descriptor
 * (close-on-exec), or -1 when the socket carried no such message. */
int remote_receive_hello(int fd, struct remote_message *hello);

#endif
