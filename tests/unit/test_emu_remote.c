/*
 * Unit tests of the remote driver's server (kgemu_serve, emulator/
 * remote_server*.c) against a hostile client: garbage, messages that
 * announce more than there is, requests past the window, unknown
 * requests, a socket closed mid-request and mid-copy, names without a
 * terminator, fatbinaries, kernel parameters of the wrong size, and the
 * trusted caller's own device memory, which the client must not read,
 * write or free. Each test runs the client on a thread of its own,
 * speaking the protocol by hand (remote_protocol.h), and serves it on the
 * test's thread; the server must answer or end cleanly (the ASan build
 * checks it touches nothing it should not).
 *
 * Served sessions (kgemu_serve_start, remote_served.c): two clients served
 * at once on threads of their own, each session's stats read mid-session
 * at a gate where its client waits (its copies, their hashes against
 * kgemu_hash of the bytes, its launch and device time, nothing of the
 * other's); a copy larger than the window as one record; a copy broken
 * off; records past the limit; kgemu_serve_stop while the client is
 * connected, mid-request, mid-copy, after it broke the protocol or closed
 * (LeakSanitizer checks that everything is freed). Copies back that tell
 * how many of their bytes are as the host left them (host_bytes): uploads
 * in pieces, at an offset, copied within the device, a memset; kernels
 * that overwrite an upload, compute from it, overwrite half of it; memory
 * freed and allocated again; a module's variables. Chunks uploaded
 * (kgemu_served_uploaded_bytes): found at offsets 0, 1 (in two pieces) and
 * 3, after a copy within the device and through a copy kernel, never in
 * what a kernel computed nor in a buffer under 256 bytes. And kgemu_hash itself:
 * XXH64's published values, any alignment, any pieces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/driver.h"
#include "emulator/remote_protocol.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define LOST INT32_MIN /* raw_call: the server closed the socket */

static const char tiny_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n ret;\n}\n";

/* The hostile client's end. */
struct raw {
    int fd;
    unsigned char *window;
    size_t window_bytes;
    unsigned char *reply_data;
    int failures;
    CUdeviceptr secret; /* the trusted caller's buffer, which it must not reach */
};

#define EXPECT(c, cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: client expected %s\n", __FILE__, __LINE__, #cond);             \
            (c)->failures++;                                                                       \
        }                                                                                          \
    } while (0)

static void raw_hello(struct raw *c)
{
    struct remote_message hello;
    int window_fd = remote_receive_hello(c->fd, &hello);
    EXPECT(c, window_fd >= 0);
    c->window_bytes = hello.arg[1];
    c->window = mmap(NULL, c->window_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, window_fd, 0);
    EXPECT(c, c->window != MAP_FAILED);
    EXPECT(c, ftruncate(window_fd, 0) != 0); /* sealed: the server's mapping stays whole */
    close(window_fd);
}

static int32_t raw_call(struct raw *c, struct remote_message *req, const void *data,
                        struct remote_message *reply)
{
    if (!remote_send(c->fd, req, data) || !remote_receive(c->fd, reply, c->reply_data))
        return LOST;
    return reply->op;
}

static int32_t raw_simple(struct raw *c, enum remote_op op, uint64_t a0, uint64_t a1, uint64_t a2,
                          struct remote_message *reply)
{
    struct remote_message req = {.op = (int32_t)op, .arg = {a0, a1, a2}}, ignored;
    return raw_call(c, &req, NULL, reply != NULL ? reply : &ignored);
}

/* cuInit, the primary context retained and pushed. */
static void raw_ready(struct raw *c)
{
    struct remote_message r;
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, 64, 0, 0, &r) == CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(c, raw_simple(c, REMOTE_INIT, 0, 0, 0, NULL) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_CTX_POP, 0, 0, 0, NULL) == CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, 64, 0, 0, NULL) == CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(c, raw_simple(c, REMOTE_PRIMARY_RETAIN, 0, 0, 0, &r) == CUDA_SUCCESS);
    EXPECT(c,
           raw_simple(c, REMOTE_CTX_PUSH, r.arg[0] + 8, 0, 0, NULL) == CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(c, raw_simple(c, REMOTE_CTX_PUSH, r.arg[0], 0, 0, NULL) == CUDA_SUCCESS);
}

static void raw_write(struct raw *c, const void *bytes, size_t n)
{
    EXPECT(c, send(c->fd, bytes, n, MSG_NOSIGNAL) == (ssize_t)n);
}

static const unsigned char tiny_params[12] = {0}; /* k's: a pointer and an int */

/* tiny_ptx loaded from the window (without its terminator: the server
 * adds one), and its kernel k, whose name must come with its terminator. */
static uint64_t raw_tiny_kernel(struct raw *c, uint64_t *module)
{
    struct remote_message r;
    memcpy(c->window, tiny_ptx, sizeof tiny_ptx - 1);
    struct remote_message load = {.op = REMOTE_MODULE_LOAD, .window_bytes = sizeof tiny_ptx - 1};
    EXPECT(c, raw_call(c, &load, NULL, &r) == CUDA_SUCCESS);
    *module = r.arg[0];
    struct remote_message get = {
        .op = REMOTE_MODULE_GET_FUNCTION, .inline_bytes = 1, .arg = {*module}};
    EXPECT(c, raw_call(c, &get, "k", &r) == CUDA_ERROR_INVALID_VALUE);
    get.inline_bytes = 2;
    EXPECT(c, raw_call(c, &get, "k", &r) == CUDA_SUCCESS);
    return r.arg[0];
}

/* A launch of one thread of `function` with tiny_params. */
static struct remote_message raw_tiny_launch(uint64_t function)
{
    return (struct remote_message){
        .op = REMOTE_LAUNCH,
        .inline_bytes = sizeof tiny_params,
        .arg = {function, 1 | (uint64_t)1 << 32, 1, 1 | (uint64_t)1 << 32, 1, 0, 0}};
}

/* A copy of `bytes` from `data` to `device` as the client library makes
 * it: each chunk put in the window before its request or REMOTE_CHUNK. */
static void raw_htod(struct raw *c, uint64_t device, const unsigned char *data, size_t bytes,
                     bool synchronous)
{
    struct remote_message req = {.op = REMOTE_MEMCPY_HTOD, .arg = {device, bytes, 0, synchronous}};
    struct remote_message chunk = {.op = REMOTE_CHUNK}, r;
    for (size_t done = 0;; req = chunk) {
        size_t n = bytes - done < c->window_bytes ? bytes - done : c->window_bytes;
        memcpy(c->window, data + done, n);
        done += n;
        int32_t status = raw_call(c, &req, NULL, &r);
        EXPECT(c, status == (done < bytes ? REMOTE_MORE : CUDA_SUCCESS));
        if (status != REMOTE_MORE)
            return;
    }
}

/* The other way: each chunk taken out of the window after its answer. */
static void raw_dtoh(struct raw *c, unsigned char *data, uint64_t device, size_t bytes)
{
    struct remote_message req = {.op = REMOTE_MEMCPY_DTOH, .arg = {device, bytes, 0, 1}};
    struct remote_message chunk = {.op = REMOTE_CHUNK}, r;
    for (size_t done = 0;; req = chunk) {
        size_t n = bytes - done < c->window_bytes ? bytes - done : c->window_bytes;
        int32_t status = raw_call(c, &req, NULL, &r);
        EXPECT(c, status == (done + n < bytes ? REMOTE_MORE : CUDA_SUCCESS));
        if (status != REMOTE_MORE && status != CUDA_SUCCESS)
            return;
        memcpy(data + done, c->window, n);
        done += n;
        if (status == CUDA_SUCCESS)
            return;
    }
}

/* ------------------------------------------------------------ scenarios */

static void garbage(struct raw *c)
{
    unsigned char bytes[300];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 151 + 7);
    raw_write(c, bytes, sizeof bytes);
}

static void oversize_inline(struct raw *c)
{
    struct remote_message req = {.op = REMOTE_INIT, .inline_bytes = 1u << 30};
    raw_write(c, &req, sizeof req);
}

static void past_the_window(struct raw *c)
{
    struct remote_message req = {.op = REMOTE_MODULE_LOAD, .window_bytes = c->window_bytes + 1};
    raw_write(c, &req, sizeof req);
}

static void unknown_request(struct raw *c)
{
    raw_ready(c);
    struct remote_message r;
    EXPECT(c, raw_simple(c, REMOTE_OPS, 0, 0, 0, &r) == LOST);
}

static void chunk_out_of_place(struct raw *c)
{
    struct remote_message r;
    EXPECT(c, raw_simple(c, REMOTE_CHUNK, 0, 0, 0, &r) == LOST);
}

/* A header that announces inline bytes, some of them, then the socket closed. */
static void closed_mid_request(struct raw *c)
{
    raw_ready(c);
    struct remote_message req = {.op = REMOTE_MODULE_GET_FUNCTION, .inline_bytes = 100};
    raw_write(c, &req, sizeof req);
    raw_write(c, "kernel", 6);
}

/* A copy larger than the window, left after its first chunk. */
static void closed_mid_copy(struct raw *c)
{
    raw_ready(c);
    struct remote_message r;
    size_t bytes = c->window_bytes + 4096;
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, bytes, 0, 0, &r) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_MEMCPY_HTOD, r.arg[0], bytes, 0, &r) == REMOTE_MORE);
}

/* A copy larger than the window, made whole. */
static void big_copy(struct raw *c)
{
    raw_ready(c);
    struct remote_message r, chunk = {.op = REMOTE_CHUNK};
    size_t bytes = c->window_bytes + 4096;
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, bytes, 0, 0, &r) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_MEMCPY_HTOD, r.arg[0], bytes, 1, &r) == REMOTE_MORE);
    EXPECT(c, raw_call(c, &chunk, NULL, &r) == CUDA_SUCCESS);
}

/* Copies and memsets past the client's buffer, and into the caller's. */
static void out_of_bounds(struct raw *c)
{
    raw_ready(c);
    struct remote_message r;
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, 4096, 0, 0, &r) == CUDA_SUCCESS);
    CUdeviceptr mine = r.arg[0], secret = c->secret;
    struct remote_message htod = {.op = REMOTE_MEMCPY_HTOD, .arg = {mine, 4097, 0, 1}};
    EXPECT(c, raw_call(c, &htod, NULL, &r) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(c, raw_simple(c, REMOTE_MEMCPY_DTOH, secret, 16, 0, &r) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(c, raw_simple(c, REMOTE_MEMSET_D8, secret, 0, 16, NULL) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(c,
           raw_simple(c, REMOTE_MEMCPY_DTOD, mine, secret, 16, NULL) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(c, raw_simple(c, REMOTE_MEM_FREE, secret, 0, 0, NULL) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(c, raw_simple(c, REMOTE_POINTER_GET_ATTRIBUTE, CU_POINTER_ATTRIBUTE_CONTEXT, secret, 0,
                         NULL) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(c,
           raw_simple(c, REMOTE_MEM_GET_ADDRESS_RANGE, secret, 0, 0, NULL) == CUDA_ERROR_NOT_FOUND);
    EXPECT(c,
           raw_simple(c, REMOTE_STREAM_DESTROY, 0x1234, 0, 0, NULL) == CUDA_ERROR_INVALID_HANDLE);
    EXPECT(c, raw_simple(c, REMOTE_MEM_FREE, mine, 0, 0, NULL) == CUDA_SUCCESS);
}

/* A module: its image as text, then names and launches gone wrong. */
static void modules(struct raw *c)
{
    raw_ready(c);
    struct remote_message r;
    memcpy(c->window, "\x50\xed\x55\xba\x01\x00\x10\x00", 8); /* a fatbinary's magic */
    struct remote_message load = {.op = REMOTE_MODULE_LOAD, .window_bytes = 8};
    EXPECT(c, raw_call(c, &load, NULL, &r) == CUDA_ERROR_NOT_SUPPORTED);
    struct remote_jit_option many[REMOTE_JIT_OPTIONS + 1] = {{0}};
    load.inline_bytes = sizeof many;
    EXPECT(c, raw_call(c, &load, many, &r) == CUDA_ERROR_INVALID_VALUE);
    uint64_t module = 0, function = raw_tiny_kernel(c, &module);
    EXPECT(c, raw_simple(c, REMOTE_FUNC_PARAMS, function, 0, 0, &r) == CUDA_SUCCESS);
    EXPECT(c, r.arg[0] == 2 && r.inline_bytes == 16);
    struct remote_message launch = raw_tiny_launch(function);
    launch.inline_bytes = 3;
    EXPECT(c, raw_call(c, &launch, tiny_params, &r) == CUDA_ERROR_INVALID_VALUE);
    launch.inline_bytes = sizeof tiny_params;
    EXPECT(c, raw_call(c, &launch, tiny_params, &r) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_MODULE_UNLOAD, module, 0, 0, NULL) == CUDA_SUCCESS);
    EXPECT(c, raw_call(c, &launch, tiny_params, &r) == CUDA_ERROR_INVALID_HANDLE);
}

/* ---------------------------------------------------------- the harness */

struct scenario {
    void (*run)(struct raw *);
    struct raw client;
};

/* The client's end of a session: the handshake, then, once its scenario
 * is over, the socket closed and its window unmapped. */
static void raw_begin(struct raw *c)
{
    c->reply_data = malloc(REMOTE_INLINE_MAX);
    raw_hello(c);
}

static void raw_end(struct raw *c)
{
    shutdown(c->fd, SHUT_RDWR);
    close(c->fd);
    if (c->window != MAP_FAILED)
        munmap(c->window, c->window_bytes);
    free(c->reply_data);
}

static void *client_thread(void *arg)
{
    struct scenario *s = arg;
    raw_begin(&s->client);
    s->run(&s->client);
    raw_end(&s->client);
    return NULL;
}

/* A buffer of the trusted caller's own context, holding 16 bytes of 0x5a. */
static CUdeviceptr caller_secret(CUcontext *own)
{
    CUdevice device;
    CUdeviceptr secret = 0;
    unsigned char bytes[16];
    memset(bytes, 0x5a, sizeof bytes);
    assert_int_equal(cuInit(0), CUDA_SUCCESS);
    assert_int_equal(cuDeviceGet(&device, 0), CUDA_SUCCESS);
    assert_int_equal(cuCtxCreate_v2(own, 0, device), CUDA_SUCCESS);
    assert_int_equal(cuMemAlloc(&secret, sizeof bytes), CUDA_SUCCESS);
    assert_int_equal(cuMemcpyHtoD(secret, bytes, sizeof bytes), CUDA_SUCCESS);
    return secret;
}

/* Serves `run`; the server must return `want`; the caller's buffer stays.
 * Returns the client's device time. */
static double serve(void (*run)(struct raw *), int want)
{
    CUcontext own = NULL, session = NULL;
    struct scenario s = {.run = run, .client = {.secret = caller_secret(&own)}};
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    s.client.fd = sv[1];
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, client_thread, &s), 0);
    int rc = kgemu_serve(sv[0]);
    shutdown(sv[0], SHUT_RDWR); /* a client waiting for a reply gets none */
    pthread_join(thread, NULL);
    close(sv[0]);
    assert_int_equal(rc, want);
    assert_int_equal(s.client.failures, 0);
    assert_int_equal(cuCtxGetCurrent(&session), CUDA_SUCCESS);
    assert_ptr_not_equal(session, own);
    double device_ms = -1;
    assert_int_equal(kgemu_device_time(&device_ms), CUDA_SUCCESS);
    assert_int_equal(cuCtxDestroy(session), CUDA_SUCCESS);
    unsigned char bytes[16];
    assert_int_equal(cuMemcpyDtoH(bytes, s.client.secret, sizeof bytes), CUDA_SUCCESS);
    for (size_t i = 0; i < sizeof bytes; i++)
        assert_int_equal(bytes[i], 0x5a);
    assert_int_equal(cuCtxDestroy(own), CUDA_SUCCESS);
    return device_ms;
}

static void garbage_ends_the_session(void **state)
{
    (void)state;
    serve(garbage, CUDA_ERROR_INVALID_VALUE);
}

static void an_oversize_message_ends_it(void **state)
{
    (void)state;
    serve(oversize_inline, CUDA_ERROR_INVALID_VALUE);
}

static void a_request_past_the_window_ends_it(void **state)
{
    (void)state;
    serve(past_the_window, CUDA_ERROR_INVALID_VALUE);
}

static void unknown_requests_end_it(void **state)
{
    (void)state;
    serve(unknown_request, CUDA_ERROR_INVALID_VALUE);
    serve(chunk_out_of_place, CUDA_ERROR_INVALID_VALUE);
}

static void a_socket_closed_mid_request_ends_it(void **state)
{
    (void)state;
    serve(closed_mid_request, CUDA_ERROR_INVALID_VALUE);
}

/* The chunk that moved is charged: the device time is no free ride. */
static void a_socket_closed_mid_copy_ends_it(void **state)
{
    (void)state;
    assert_true(serve(closed_mid_copy, CUDA_ERROR_INVALID_VALUE) > 0);
}

/* The same copy made here in one piece, from pageable memory. */
static double local_copy_ms(size_t bytes)
{
    CUcontext context;
    CUdeviceptr d;
    double ms = -1;
    unsigned char *host = calloc(1, bytes);
    assert_int_equal(cuCtxCreate_v2(&context, 0, 0), CUDA_SUCCESS);
    assert_int_equal(cuMemAlloc(&d, bytes), CUDA_SUCCESS);
    assert_int_equal(cuMemcpyHtoD(d, host, bytes), CUDA_SUCCESS);
    assert_int_equal(kgemu_device_time(&ms), CUDA_SUCCESS);
    assert_int_equal(cuCtxDestroy(context), CUDA_SUCCESS);
    free(host);
    return ms;
}

/* Chunks change nothing of the model: one copy, its time. */
static void a_copy_in_chunks_takes_the_time_of_one(void **state)
{
    (void)state;
    double remote_ms = serve(big_copy, CUDA_SUCCESS);
    assert_true(remote_ms > 0);
    assert_true(remote_ms == local_copy_ms(REMOTE_WINDOW_BYTES + 4096));
}

static void the_client_reaches_only_its_own_memory(void **state)
{
    (void)state;
    serve(out_of_bounds, CUDA_SUCCESS);
}

static void modules_and_launches_are_checked(void **state)
{
    (void)state;
    serve(modules, CUDA_SUCCESS);
}

static void a_socket_that_is_none_starts_nothing(void **state)
{
    (void)state;
    assert_int_equal(kgemu_serve(-1), CUDA_ERROR_OPERATING_SYSTEM);
}

/* ------------------------------------------- served sessions (threads) */

#define ENDED_WAIT_MS 20000 /* how long a session may take to see its client gone */
#define QUEUED_COPIES 8     /* copies a client leaves queued for kgemu_served_settle */

/* A client of kgemu_serve_start: a raw client on a thread of its own that
 * pauses at gates, where the test reads its session's stats mid-session. */
struct served_client {
    struct raw raw;
    void (*run)(struct served_client *);
    size_t bytes; /* of its pattern */
    unsigned char *pattern;
    pthread_t thread;
    int server_fd;
    struct kgemu_served *served;
    pthread_mutex_t lock;
    pthread_cond_t moved;
    int reached, released; /* gates */
};

/* The client waits at its next gate until the test releases it. */
static void gate_pause(struct served_client *c)
{
    pthread_mutex_lock(&c->lock);
    int gate = ++c->reached;
    pthread_cond_broadcast(&c->moved);
    while (c->released < gate)
        pthread_cond_wait(&c->moved, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

/* The test waits until the client is at gate `gate`. */
static void gate_reached(struct served_client *c, int gate)
{
    pthread_mutex_lock(&c->lock);
    while (c->reached < gate)
        pthread_cond_wait(&c->moved, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

static void gate_release(struct served_client *c, int gate)
{
    pthread_mutex_lock(&c->lock);
    c->released = gate;
    pthread_cond_broadcast(&c->moved);
    pthread_mutex_unlock(&c->lock);
}

static void *served_client_thread(void *arg)
{
    struct served_client *c = arg;
    raw_begin(&c->raw);
    c->run(c);
    raw_end(&c->raw);
    return NULL;
}

/* Bytes that differ from one client (`seed`) to the other. */
static unsigned char *pattern(size_t bytes, unsigned seed)
{
    unsigned char *p = malloc(bytes);
    assert_non_null(p);
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)((i * 2654435761u + seed * 977u) >> 11);
    return p;
}

/* Starts `c` (run, bytes and seed) on a socketpair and serves it. */
static void served_begin(struct served_client *c, void (*run)(struct served_client *), size_t bytes,
                         unsigned seed)
{
    *c = (struct served_client){.run = run, .bytes = bytes, .pattern = pattern(bytes, seed)};
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->moved, NULL);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    c->server_fd = sv[0];
    c->raw.fd = sv[1];
    assert_int_equal(pthread_create(&c->thread, NULL, served_client_thread, c), 0);
    assert_int_equal(kgemu_serve_start(c->server_fd, &c->served), CUDA_SUCCESS);
    assert_non_null(c->served);
}

/* Stops the session (its result must be `want`), then lets the client go. */
static void served_finish(struct served_client *c, int want)
{
    assert_int_equal(kgemu_serve_stop(c->served), want);
    gate_release(c, INT32_MAX);
    pthread_join(c->thread, NULL);
    close(c->server_fd);
    assert_int_equal(c->raw.failures, 0);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->moved);
    free(c->pattern);
}

static struct kgemu_served_stats served_stats(struct served_client *c)
{
    struct kgemu_served_stats stats;
    assert_int_equal(kgemu_served_stats(c->served, &stats), CUDA_SUCCESS);
    return stats;
}

/* The stats once the session has seen its client gone. */
static struct kgemu_served_stats served_ended(struct served_client *c)
{
    struct kgemu_served_stats stats = served_stats(c);
    for (int ms = 0; !stats.ended && ms < ENDED_WAIT_MS; ms++) {
        usleep(1000);
        stats = served_stats(c);
    }
    assert_true(stats.ended);
    return stats;
}

static void assert_record(struct served_client *c, unsigned long long index, int kind,
                          unsigned long long bytes, unsigned long long hash)
{
    struct kgemu_copy_record record;
    assert_int_equal(kgemu_served_copies(c->served, index, &record, 1), 1);
    assert_int_equal(record.kind, kind);
    assert_int_equal(record.bytes, bytes);
    assert_int_equal(record.hash, hash);
}

/* Its pattern to the device, a launch, back (gate 1); then a memset, a
 * copy on the device and an asynchronous one to it, and it closes. */
static void copies_and_a_launch(struct served_client *sc)
{
    struct raw *c = &sc->raw;
    struct remote_message r;
    raw_ready(c);
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, sc->bytes, 0, 0, &r) == CUDA_SUCCESS);
    uint64_t a = r.arg[0], module = 0;
    raw_htod(c, a, sc->pattern, sc->bytes, true);
    struct remote_message launch = raw_tiny_launch(raw_tiny_kernel(c, &module));
    EXPECT(c, raw_call(c, &launch, tiny_params, &r) == CUDA_SUCCESS);
    unsigned char *back = malloc(sc->bytes);
    raw_dtoh(c, back, a, sc->bytes);
    EXPECT(c, memcmp(back, sc->pattern, sc->bytes) == 0);
    free(back);
    gate_pause(sc);
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, sc->bytes, 0, 0, &r) == CUDA_SUCCESS);
    uint64_t b = r.arg[0];
    EXPECT(c, raw_simple(c, REMOTE_MEMSET_D8, a, 7, sc->bytes, NULL) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_MEMCPY_DTOD, b, a, sc->bytes, NULL) == CUDA_SUCCESS);
    raw_htod(c, b, sc->pattern, sc->bytes, false);
}

/* What copies_and_a_launch did up to its first gate, alone. */
static void assert_first_part(struct served_client *c)
{
    struct kgemu_served_stats stats = served_stats(c);
    assert_false(stats.ended);
    assert_true(stats.device_ms > 0);
    assert_int_equal(stats.copies[KGEMU_COPY_HTOD], 1);
    assert_int_equal(stats.copies[KGEMU_COPY_DTOH], 1);
    assert_int_equal(stats.copies[KGEMU_COPY_DTOD], 0);
    assert_int_equal(stats.bytes[KGEMU_COPY_HTOD], c->bytes);
    assert_int_equal(stats.bytes[KGEMU_COPY_DTOH], c->bytes);
    assert_int_equal(stats.records, 2);
    assert_int_equal(stats.launches, 1);
    unsigned long long hash = kgemu_hash(c->pattern, c->bytes);
    assert_record(c, 0, KGEMU_COPY_HTOD, c->bytes, hash);
    assert_record(c, 1, KGEMU_COPY_DTOH, c->bytes, hash);
}

/* The rest: the memset not counted, the device's copy with no hash, the
 * asynchronous copy as a synchronous one. */
static void assert_second_part(struct served_client *c, double first_ms)
{
    struct kgemu_served_stats stats = served_ended(c);
    assert_int_equal(stats.result, CUDA_SUCCESS);
    assert_true(stats.device_ms > first_ms);
    assert_int_equal(stats.copies[KGEMU_COPY_HTOD], 2);
    assert_int_equal(stats.copies[KGEMU_COPY_DTOD], 1);
    assert_int_equal(stats.bytes[KGEMU_COPY_DTOD], c->bytes);
    assert_int_equal(stats.records, 4);
    assert_int_equal(stats.records_lost, 0);
    assert_record(c, 2, KGEMU_COPY_DTOD, c->bytes, 0);
    assert_record(c, 3, KGEMU_COPY_HTOD, c->bytes, kgemu_hash(c->pattern, c->bytes));
    struct kgemu_copy_record none[2];
    assert_int_equal(kgemu_served_copies(c->served, 3, none, 2), 1);
    assert_int_equal(kgemu_served_copies(c->served, 4, none, 2), 0);
}

static void two_sessions_at_once_see_only_their_own(void **state)
{
    (void)state;
    struct served_client a, b;
    served_begin(&a, copies_and_a_launch, 1000, 1);
    served_begin(&b, copies_and_a_launch, ((size_t)3 << 20) + 5, 2);
    gate_reached(&a, 1);
    gate_reached(&b, 1);
    assert_first_part(&a);
    assert_first_part(&b);
    assert_true(kgemu_hash(a.pattern, a.bytes) != kgemu_hash(b.pattern, b.bytes));
    double a_ms = served_stats(&a).device_ms, b_ms = served_stats(&b).device_ms;
    assert_true(a_ms < b_ms); /* 1000 bytes take less time than 3 MB */
    gate_release(&a, 1);
    gate_release(&b, 1);
    assert_second_part(&a, a_ms);
    assert_second_part(&b, b_ms);
    served_finish(&a, CUDA_SUCCESS);
    served_finish(&b, CUDA_SUCCESS);
}

/* More than the window each way, then connected until the server shuts
 * its end (stop). */
static void chunks_then_wait(struct served_client *sc)
{
    struct raw *c = &sc->raw;
    struct remote_message r;
    raw_ready(c);
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, sc->bytes, 0, 0, &r) == CUDA_SUCCESS);
    raw_htod(c, r.arg[0], sc->pattern, sc->bytes, true);
    unsigned char *back = malloc(sc->bytes);
    raw_dtoh(c, back, r.arg[0], sc->bytes);
    EXPECT(c, memcmp(back, sc->pattern, sc->bytes) == 0);
    free(back);
    gate_pause(sc);
    char byte;
    EXPECT(c, recv(c->fd, &byte, 1, 0) == 0);
}

static void a_copy_in_chunks_is_one_record(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, chunks_then_wait, 2 * REMOTE_WINDOW_BYTES + 4099, 3);
    gate_reached(&c, 1);
    struct kgemu_served_stats stats = served_stats(&c);
    assert_int_equal(stats.records, 2);
    assert_int_equal(stats.copies[KGEMU_COPY_HTOD], 1);
    assert_int_equal(stats.copies[KGEMU_COPY_DTOH], 1);
    unsigned long long hash = kgemu_hash(c.pattern, c.bytes);
    assert_record(&c, 0, KGEMU_COPY_HTOD, c.bytes, hash);
    assert_record(&c, 1, KGEMU_COPY_DTOH, c.bytes, hash);
    served_finish(&c, CUDA_SUCCESS); /* stopped while the client is connected */
}

static void garbage_then_wait(struct served_client *sc)
{
    garbage(&sc->raw);
    gate_pause(sc);
}

static void half_a_request_then_wait(struct served_client *sc)
{
    raw_ready(&sc->raw);
    struct remote_message req = {.op = REMOTE_MEM_ALLOC};
    raw_write(&sc->raw, &req, sizeof req / 2);
    gate_pause(sc);
}

/* A copy left after its first chunk. */
static void half_a_copy(struct served_client *sc)
{
    struct raw *c = &sc->raw;
    struct remote_message r;
    raw_ready(c);
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, sc->bytes, 0, 0, &r) == CUDA_SUCCESS);
    memcpy(c->window, sc->pattern, c->window_bytes);
    EXPECT(c, raw_simple(c, REMOTE_MEMCPY_HTOD, r.arg[0], sc->bytes, 0, &r) == REMOTE_MORE);
}

/* The same, the client still connected. */
static void half_a_copy_then_wait(struct served_client *sc)
{
    half_a_copy(sc);
    gate_pause(sc);
}

static void closes_at_once(struct served_client *sc)
{
    raw_ready(&sc->raw);
}

static void stop_ends_a_session_in_any_state(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, garbage_then_wait, 1, 0);
    gate_reached(&c, 1);
    assert_int_equal(served_ended(&c).result, CUDA_ERROR_INVALID_VALUE);
    served_finish(&c, CUDA_ERROR_INVALID_VALUE);
    served_begin(&c, half_a_request_then_wait, 1, 0);
    gate_reached(&c, 1);
    assert_false(served_stats(&c).ended);
    served_finish(&c, CUDA_ERROR_INVALID_VALUE);
    served_begin(&c, half_a_copy_then_wait, REMOTE_WINDOW_BYTES + 4096, 4);
    gate_reached(&c, 1);
    assert_false(served_stats(&c).ended);
    assert_int_equal(served_stats(&c).records, 0); /* recorded once it ends */
    served_finish(&c, CUDA_ERROR_INVALID_VALUE);
    served_begin(&c, closes_at_once, 1, 0);
    assert_int_equal(served_ended(&c).result, CUDA_SUCCESS);
    served_finish(&c, CUDA_SUCCESS);
    assert_int_equal(kgemu_serve_stop(NULL), CUDA_SUCCESS);
}

/* What moved is recorded, its hash of what moved. */
static void a_copy_broken_off_counts_what_moved(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, half_a_copy, REMOTE_WINDOW_BYTES + 4096, 4);
    struct kgemu_served_stats stats = served_ended(&c);
    assert_int_equal(stats.result, CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(stats.records, 1);
    assert_int_equal(stats.bytes[KGEMU_COPY_HTOD], REMOTE_WINDOW_BYTES);
    assert_record(&c, 0, KGEMU_COPY_HTOD, REMOTE_WINDOW_BYTES,
                  kgemu_hash(c.pattern, REMOTE_WINDOW_BYTES));
    served_finish(&c, CUDA_ERROR_INVALID_VALUE);
}

/* As many copies of one byte as the records kept, then one of two. */
static void many_copies(struct served_client *sc)
{
    struct raw *c = &sc->raw;
    struct remote_message r;
    raw_ready(c);
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, 4, 0, 0, &r) == CUDA_SUCCESS);
    for (int i = 0; i < KGEMU_COPY_RECORDS_MAX; i++)
        EXPECT(c,
               raw_simple(c, REMOTE_MEMCPY_DTOD, r.arg[0] + 1, r.arg[0], 1, NULL) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_MEMCPY_DTOD, r.arg[0] + 2, r.arg[0], 2, NULL) == CUDA_SUCCESS);
}

/* The last KGEMU_COPY_RECORDS_MAX are kept, in order, their numbers
 * counting on; the first is no longer. */
static void the_last_records_are_kept(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, many_copies, 1, 0);
    struct kgemu_served_stats stats = served_ended(&c);
    assert_int_equal(stats.records, KGEMU_COPY_RECORDS_MAX + 1);
    assert_int_equal(stats.copies[KGEMU_COPY_DTOD], KGEMU_COPY_RECORDS_MAX + 1);
    assert_true(stats.records_lost);
    struct kgemu_copy_record *kept = calloc(KGEMU_COPY_RECORDS_MAX + 1, sizeof *kept);
    assert_int_equal(kgemu_served_copies(c.served, 0, kept, 1), 0);
    assert_int_equal(kgemu_served_copies(c.served, 1, kept, KGEMU_COPY_RECORDS_MAX + 1),
                     KGEMU_COPY_RECORDS_MAX);
    assert_int_equal(kept[0].bytes, 1);
    assert_int_equal(kept[KGEMU_COPY_RECORDS_MAX - 2].bytes, 1);
    assert_int_equal(kept[KGEMU_COPY_RECORDS_MAX - 1].bytes, 2);
    assert_int_equal(kgemu_served_copies(c.served, KGEMU_COPY_RECORDS_MAX, kept, 1), 1);
    assert_int_equal(kept[0].bytes, 2);
    assert_int_equal(kgemu_served_copies(c.served, KGEMU_COPY_RECORDS_MAX + 1, kept, 1), 0);
    free(kept);
    served_finish(&c, CUDA_SUCCESS);
}

/* A long queue of copies within the device on a stream that does not wait
 * for the NULL one, never waited for (gate 1); then one small copy to the
 * device on the NULL stream (gate 2). */
static void a_queue_left_then_a_copy(struct served_client *sc)
{
    struct raw *c = &sc->raw;
    struct remote_message r;
    raw_ready(c);
    EXPECT(c,
           raw_simple(c, REMOTE_STREAM_CREATE, CU_STREAM_NON_BLOCKING, 0, 0, &r) == CUDA_SUCCESS);
    uint64_t stream = r.arg[0];
    EXPECT(c, raw_simple(c, REMOTE_MEM_ALLOC, 2 * sc->bytes, 0, 0, &r) == CUDA_SUCCESS);
    uint64_t a = r.arg[0];
    for (int i = 0; i < QUEUED_COPIES; i++) {
        struct remote_message req = {.op = REMOTE_MEMCPY_DTOD,
                                     .arg = {a + sc->bytes, a, sc->bytes, stream}};
        EXPECT(c, raw_call(c, &req, NULL, &r) == CUDA_SUCCESS);
    }
    gate_pause(sc);
    raw_htod(c, a, sc->pattern, 1, true);
    gate_pause(sc);
}

/* Settled, what the client does next starts after all it queued: the
 * small copy's time is its own, not hidden under the queue. */
static void settle_makes_the_next_work_start_after_the_queue(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, a_queue_left_then_a_copy, (size_t)64 << 20, 6);
    gate_reached(&c, 1);
    double queued_ms = served_stats(&c).device_ms, settled_ms = 0;
    assert_int_equal(kgemu_served_settle(c.served, &settled_ms), CUDA_SUCCESS);
    assert_true(settled_ms == queued_ms);
    gate_release(&c, 1);
    gate_reached(&c, 2);
    double copy_ms = served_stats(&c).device_ms - settled_ms;
    assert_true(copy_ms > 0);
    assert_true(copy_ms < queued_ms / QUEUED_COPIES); /* one small copy, not the queue */
    gate_release(&c, 2);
    served_ended(&c);
    assert_int_equal(kgemu_served_settle(c.served, &settled_ms), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    assert_int_equal(kgemu_served_settle(NULL, &settled_ms), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(kgemu_served_settle(c.served, NULL), CUDA_ERROR_INVALID_VALUE);
    served_finish(&c, CUDA_SUCCESS);
}

static void a_start_that_fails_serves_nothing(void **state)
{
    (void)state;
    struct kgemu_served *served = (struct kgemu_served *)&served;
    assert_int_equal(kgemu_serve_start(-1, &served), CUDA_ERROR_OPERATING_SYSTEM);
    assert_null(served);
    assert_int_equal(kgemu_serve_start(-1, NULL), CUDA_ERROR_INVALID_VALUE);
    struct kgemu_served_stats stats;
    assert_int_equal(kgemu_served_stats(NULL, &stats), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(kgemu_served_copies(NULL, 0, NULL, 0), 0);
}

/* ------------------------------------- bytes as the host left them */

/* flip(dst, src, n): dst[i] = src[i] ^ 0xff, one thread a byte. */
static const char flip_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry flip(.param .u64 dst, .param .u64 src, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<7>;\n .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [dst];\n ld.param.u64 %rd2, [src];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mov.u32 %r4, %tid.x;\n"
    " mad.lo.s32 %r5, %r2, %r3, %r4;\n setp.ge.u32 %p, %r5, %r1;\n @%p ret;\n"
    " cvt.u64.u32 %rd3, %r5;\n add.s64 %rd4, %rd2, %rd3;\n ld.global.u8 %r6, [%rd4];\n"
    " xor.b32 %r6, %r6, 255;\n add.s64 %rd5, %rd1, %rd3;\n st.global.u8 [%rd5], %r6;\n"
    " ret;\n}\n";

#define FLIP_BLOCK 256
#define HOST_PAGE  4096 /* REMOTE_HOST_PAGE */

/* A client of host_bytes_scenarios: its flip kernel, and its bytes. */
struct host_client {
    struct served_client *sc;
    struct raw *c;
    uint64_t flip;
    size_t n;
};

static uint64_t host_alloc(struct host_client *h, size_t bytes)
{
    struct remote_message r;
    EXPECT(h->c, raw_simple(h->c, REMOTE_MEM_ALLOC, bytes, 0, 0, &r) == CUDA_SUCCESS);
    return r.arg[0];
}

static void host_flip(struct host_client *h, uint64_t dst, uint64_t src, uint32_t n)
{
    unsigned char params[20];
    memcpy(params, &dst, 8);
    memcpy(params + 8, &src, 8);
    memcpy(params + 16, &n, 4);
    uint64_t blocks = (n + FLIP_BLOCK - 1) / FLIP_BLOCK;
    struct remote_message launch = {
        .op = REMOTE_LAUNCH,
        .inline_bytes = sizeof params,
        .arg = {h->flip, blocks | (uint64_t)1 << 32, 1, FLIP_BLOCK | (uint64_t)1 << 32, 1, 0, 0}};
    struct remote_message r;
    EXPECT(h->c, raw_call(h->c, &launch, params, &r) == CUDA_SUCCESS);
}

/* Copies `bytes` at `device` back; its record must say `host` of them
 * came back as the host left them (the record is published before the
 * answer, so the client may read it). Returns the bytes (malloc'ed). */
static unsigned char *host_back(struct host_client *h, uint64_t device, size_t bytes,
                                unsigned long long host)
{
    unsigned char *back = malloc(bytes);
    raw_dtoh(h->c, back, device, bytes);
    struct kgemu_served_stats stats;
    struct kgemu_copy_record record = {0};
    EXPECT(h->c, kgemu_served_stats(h->sc->served, &stats) == CUDA_SUCCESS && stats.records > 0);
    EXPECT(h->c, kgemu_served_copies(h->sc->served, stats.records - 1, &record, 1) == 1);
    EXPECT(h->c, record.kind == KGEMU_COPY_DTOH && record.bytes == bytes);
    if (record.host_bytes != host) {
        fprintf(stderr, "host_bytes %llu, expected %llu\n", record.host_bytes, host);
        h->c->failures++;
    }
    return back;
}

static void host_back_checked(struct host_client *h, uint64_t device, size_t bytes,
                              unsigned long long host)
{
    free(host_back(h, device, bytes, host));
}

/* The answer uploaded and copied back, in any pieces, at any offset, or
 * through a copy within the device; a memset. */
static void host_uploads(struct host_client *h)
{
    const unsigned char *p = h->sc->pattern;
    size_t n = h->n, half = n / 2;
    uint64_t a = host_alloc(h, n);
    raw_htod(h->c, a, p, n, true);
    host_back_checked(h, a, n, n);
    uint64_t halves = host_alloc(h, n);
    raw_htod(h->c, halves, p, half, true);
    raw_htod(h->c, halves + half, p + half, n - half, false);
    host_back_checked(h, halves, n, n);
    host_back_checked(h, halves + 1, n - 1, n - 1);
    uint64_t shifted = host_alloc(h, n + 1);
    raw_htod(h->c, shifted + 1, p, n, true);
    host_back_checked(h, shifted + 1, n, n);
    host_back_checked(h, shifted, n + 1, n); /* its first byte the allocation's zero */
    uint64_t b = host_alloc(h, n + 1);
    EXPECT(h->c, raw_simple(h->c, REMOTE_MEMCPY_DTOD, b + 1, a, n, NULL) == CUDA_SUCCESS);
    host_back_checked(h, b + 1, n, n);
    uint64_t set = host_alloc(h, n);
    EXPECT(h->c, raw_simple(h->c, REMOTE_MEMSET_D8, set, 7, n, NULL) == CUDA_SUCCESS);
    host_back_checked(h, set, n, n);
}

/* Kernels: one that overwrites the upload, one that computes another
 * buffer from it, one that overwrites its second half. */
static void host_kernels(struct host_client *h)
{
    const unsigned char *p = h->sc->pattern;
    size_t n = h->n, half = n / 2;
    uint64_t a = host_alloc(h, n), b = host_alloc(h, n), c = host_alloc(h, n);
    raw_htod(h->c, a, p, n, true);
    host_flip(h, a, a, (uint32_t)n);
    host_back_checked(h, a, n, 0);
    raw_htod(h->c, b, p, n, true);
    host_flip(h, c, b, (uint32_t)n);
    host_back_checked(h, c, n, 0);
    host_back_checked(h, b, n, n); /* the input, as uploaded */
    /* The page that holds b + half has an entry over the whole upload's
     * part of it, which the kernel changed: the pages before it count. */
    host_flip(h, b + half, b + half, (uint32_t)(n - half));
    unsigned long long kept = (b + half) / HOST_PAGE * HOST_PAGE - b;
    host_back_checked(h, b, n, kept);
    EXPECT(h->c, raw_simple(h->c, REMOTE_MEMCPY_DTOD, a, b, n, NULL) == CUDA_SUCCESS);
    host_back_checked(h, a, n, kept);
}

/* An allocation freed and made again at its address, written by a kernel
 * with the very bytes the host had uploaded there. */
static void host_free_and_again(struct host_client *h)
{
    size_t n = h->n;
    unsigned char *inverse = malloc(n);
    for (size_t i = 0; i < n; i++)
        inverse[i] = h->sc->pattern[i] ^ 0xff;
    uint64_t a = host_alloc(h, n), c = host_alloc(h, n);
    raw_htod(h->c, a, h->sc->pattern, n, true);
    raw_htod(h->c, c, inverse, n, true);
    EXPECT(h->c, raw_simple(h->c, REMOTE_MEM_FREE, a, 0, 0, NULL) == CUDA_SUCCESS);
    uint64_t again = host_alloc(h, n);
    EXPECT(h->c, again == a);
    host_flip(h, again, c, (uint32_t)n);
    unsigned char *back = host_back(h, again, n, 0);
    EXPECT(h->c, memcmp(back, h->sc->pattern, n) == 0);
    free(back);
    free(inverse);
}

/* A module's variables: an answer in its image, and zeros. */
static const char answer_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                 ".visible .global .align 4 .u32 answer[4] = {1, 2, 3, 4};\n"
                                 ".visible .global .align 4 .u32 zeros[3000];\n";

static struct remote_message host_global(struct host_client *h, uint64_t module, const char *name)
{
    struct remote_message r, get = {.op = REMOTE_MODULE_GET_GLOBAL,
                                    .inline_bytes = (uint32_t)strlen(name) + 1,
                                    .arg = {module}};
    EXPECT(h->c, raw_call(h->c, &get, name, &r) == CUDA_SUCCESS);
    return r;
}

/* Its variables' bytes are the host's (its image gave them) until a
 * kernel changes them. */
static void host_module_variables(struct host_client *h)
{
    struct remote_message r;
    memcpy(h->c->window, answer_ptx, sizeof answer_ptx - 1);
    struct remote_message load = {.op = REMOTE_MODULE_LOAD, .window_bytes = sizeof answer_ptx - 1};
    EXPECT(h->c, raw_call(h->c, &load, NULL, &r) == CUDA_SUCCESS);
    uint64_t module = r.arg[0];
    struct remote_message answer = host_global(h, module, "answer");
    struct remote_message zeros = host_global(h, module, "zeros");
    EXPECT(h->c, answer.arg[1] == 16 && zeros.arg[1] == 12000);
    unsigned char *back = host_back(h, answer.arg[0], 16, 16);
    EXPECT(h->c, back[4] == 2);
    free(back);
    host_back_checked(h, zeros.arg[0], 12000, 12000);
    host_flip(h, zeros.arg[0], zeros.arg[0], 12000);
    host_back_checked(h, zeros.arg[0], 12000, 0);
    EXPECT(h->c, raw_simple(h->c, REMOTE_MODULE_UNLOAD, module, 0, 0, NULL) == CUDA_SUCCESS);
}

/* The client of a served session, once its session is set, with its
 * flip kernel loaded. */
static struct host_client host_client_begin(struct served_client *sc)
{
    struct host_client h = {.sc = sc, .c = &sc->raw, .n = sc->bytes};
    gate_pause(sc); /* sc->served is set */
    raw_ready(h.c);
    memcpy(h.c->window, flip_ptx, sizeof flip_ptx - 1);
    struct remote_message r, load = {.op = REMOTE_MODULE_LOAD, .window_bytes = sizeof flip_ptx - 1};
    EXPECT(h.c, raw_call(h.c, &load, NULL, &r) == CUDA_SUCCESS);
    struct remote_message get = {
        .op = REMOTE_MODULE_GET_FUNCTION, .inline_bytes = 5, .arg = {r.arg[0]}};
    EXPECT(h.c, raw_call(h.c, &get, "flip", &r) == CUDA_SUCCESS);
    h.flip = r.arg[0];
    return h;
}

static void host_bytes_scenarios(struct served_client *sc)
{
    struct host_client h = host_client_begin(sc);
    host_uploads(&h);
    host_kernels(&h);
    host_free_and_again(&h);
    host_module_variables(&h);
}

static void copies_back_tell_the_host_bytes(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, host_bytes_scenarios, 5 * HOST_PAGE + 1234, 6);
    gate_reached(&c, 1);
    gate_release(&c, 1);
    assert_int_equal(served_ended(&c).result, CUDA_SUCCESS);
    served_finish(&c, CUDA_SUCCESS);
}

/* ------------------------------------------------ chunks uploaded */

#define UPLOAD_BYTES (64 * 1024) /* about 28 chunks */

/* Bytes no pattern repeats in (xorshift64 from `seed`), malloc'ed. */
static unsigned char *random_bytes(size_t bytes, uint64_t seed)
{
    unsigned char *p = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        p[i] = (unsigned char)(seed >> 32);
    }
    return p;
}

/* How many of `bytes` at `at` the session uploaded. */
static unsigned long long uploaded(struct host_client *h, const unsigned char *at, size_t bytes)
{
    unsigned long long matched = ~0ull;
    EXPECT(h->c, kgemu_served_uploaded_bytes(h->sc->served, at, bytes, &matched) == 0);
    return matched;
}

/* `data` (`n` bytes) uploaded at `offset` of a new allocation, in two
 * pieces when `halves`; returns where it lies. */
static uint64_t upload_at(struct host_client *h, const unsigned char *data, size_t offset,
                          bool halves, size_t n)
{
    size_t first = halves ? n / 2 + 7 : n;
    uint64_t device = host_alloc(h, n + offset) + offset;
    raw_htod(h->c, device, data, first, true);
    if (halves)
        raw_htod(h->c, device + first, data + first, n - first, true);
    return device;
}

/* `device` (UPLOAD_BYTES) copied back: more than half of it (all but
 * about a chunk at each end) in chunks uploaded, when `found`; else none,
 * also from a few bytes in. */
static void back_uploaded(struct host_client *h, uint64_t device, bool found)
{
    size_t n = UPLOAD_BYTES;
    unsigned char *back = malloc(n);
    raw_dtoh(h->c, back, device, n);
    for (size_t in = 0; in < 4; in += 3) {
        unsigned long long matched = uploaded(h, back + in, n - in);
        if (found ? matched <= n / 2 || matched > n : matched != 0) {
            fprintf(stderr, "%llu of %zu bytes uploaded (%s)\n", matched, n - in,
                    found ? "found" : "none");
            h->c->failures++;
        }
    }
    free(back);
}

/* Uploads at offsets 0, 1 (in two pieces) and 3, copied back, within the
 * device, and through a copy kernel (two flips); what the flip computed
 * and bytes never uploaded are not found. */
static void upload_scenarios(struct served_client *sc)
{
    struct host_client h = host_client_begin(sc);
    unsigned char *data[3], *never = random_bytes(UPLOAD_BYTES, 99);
    uint64_t at[3];
    for (size_t i = 0; i < 3; i++) {
        data[i] = random_bytes(UPLOAD_BYTES, 11 + i);
        at[i] = upload_at(&h, data[i], i == 2 ? 3 : i, i == 1, UPLOAD_BYTES);
        back_uploaded(&h, at[i], true);
        free(data[i]);
    }
    uint64_t moved = host_alloc(&h, UPLOAD_BYTES + 5) + 5;
    EXPECT(h.c, raw_simple(h.c, REMOTE_MEMCPY_DTOD, moved, at[1], UPLOAD_BYTES, NULL) == 0);
    back_uploaded(&h, moved, true);
    uint64_t flipped = host_alloc(&h, UPLOAD_BYTES), again = host_alloc(&h, UPLOAD_BYTES + 1) + 1;
    host_flip(&h, flipped, at[2], UPLOAD_BYTES);
    back_uploaded(&h, flipped, false);
    host_flip(&h, again, flipped, UPLOAD_BYTES);
    back_uploaded(&h, again, true);
    EXPECT(h.c, uploaded(&h, never, UPLOAD_BYTES) == 0);
    upload_at(&h, never, 0, false, EMU_CHUNK_MIN - 1); /* too short to tell anything */
    EXPECT(h.c, uploaded(&h, never, EMU_CHUNK_MIN - 1) == 0);
    free(never);
    struct kgemu_served_stats stats;
    EXPECT(h.c, kgemu_served_stats(sc->served, &stats) == 0);
    EXPECT(h.c, stats.uploaded_chunks > 3 * UPLOAD_BYTES / EMU_CHUNK_MAX);
    EXPECT(h.c, stats.uploaded_chunks < 4 * UPLOAD_BYTES / EMU_CHUNK_MIN);
    EXPECT(h.c, stats.uploaded_chunks_lost == 0);
}

static void uploaded_chunks_are_found_wherever_they_lie(void **state)
{
    (void)state;
    struct served_client c;
    served_begin(&c, upload_scenarios, UPLOAD_BYTES, 7);
    gate_reached(&c, 1);
    gate_release(&c, 1);
    assert_int_equal(served_ended(&c).result, CUDA_SUCCESS);
    unsigned long long matched = 0;
    assert_int_equal(kgemu_served_uploaded_bytes(c.served, NULL, 0, &matched), 0);
    assert_int_equal(matched, 0);
    assert_int_equal(kgemu_served_uploaded_bytes(NULL, "", 0, &matched), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(kgemu_served_uploaded_bytes(c.served, "", 0, NULL), CUDA_ERROR_INVALID_VALUE);
    served_finish(&c, CUDA_SUCCESS);
}

/* ----------------------------------------------------------- kgemu_hash */

/* XXH64's published values (seed 0). */
static void the_hash_is_xxh64(void **state)
{
    (void)state;
    static const char long_text[] = "Nobody inspects the spammish repetition";
    assert_int_equal(kgemu_hash("", 0), 0xef46db3751d8e999ull);
    assert_int_equal(kgemu_hash(NULL, 0), 0xef46db3751d8e999ull);
    assert_int_equal(kgemu_hash("a", 1), 0xd24ec4f1a98c6e5bull);
    assert_int_equal(kgemu_hash("abc", 3), 0x44bc2cf5ad770999ull);
    assert_int_equal(kgemu_hash(long_text, sizeof long_text - 1), 0xfbcea83c8a378bf1ull);
}

/* The same bytes at every alignment, and in pieces of every size. */
static void the_hash_depends_on_the_bytes_alone(void **state)
{
    (void)state;
    enum { SIZE = 1000, ALIGNMENTS = 8 };
    unsigned char *bytes = pattern(SIZE, 5), *moved = malloc(SIZE + ALIGNMENTS);
    for (size_t size = 0; size <= 100; size += 1) {
        unsigned long long want = kgemu_hash(bytes, size);
        for (size_t at = 1; at < ALIGNMENTS; at++) {
            memcpy(moved + at, bytes, size);
            assert_int_equal(kgemu_hash(moved + at, size), want);
        }
    }
    unsigned long long whole = kgemu_hash(bytes, SIZE);
    for (size_t piece = 1; piece <= 70; piece++) {
        struct emu_hash hash;
        emu_hash_start(&hash);
        for (size_t done = 0; done < SIZE; done += piece)
            emu_hash_add(&hash, bytes + done, SIZE - done < piece ? SIZE - done : piece);
        assert_int_equal(emu_hash_end(&hash), whole);
    }
    bytes[SIZE / 2] ^= 1;
    assert_true(kgemu_hash(bytes, SIZE) != whole);
    free(bytes);
    free(moved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(garbage_ends_the_session),
        cmocka_unit_test(an_oversize_message_ends_it),
        cmocka_unit_test(a_request_past_the_window_ends_it),
        cmocka_unit_test(unknown_requests_end_it),
        cmocka_unit_test(a_socket_closed_mid_request_ends_it),
        cmocka_unit_test(a_socket_closed_mid_copy_ends_it),
        cmocka_unit_test(a_copy_in_chunks_takes_the_time_of_one),
        cmocka_unit_test(the_client_reaches_only_its_own_memory),
        cmocka_unit_test(modules_and_launches_are_checked),
        cmocka_unit_test(a_socket_that_is_none_starts_nothing),
        cmocka_unit_test(two_sessions_at_once_see_only_their_own),
        cmocka_unit_test(a_copy_in_chunks_is_one_record),
        cmocka_unit_test(stop_ends_a_session_in_any_state),
        cmocka_unit_test(a_copy_broken_off_counts_what_moved),
        cmocka_unit_test(the_last_records_are_kept),
        cmocka_unit_test(settle_makes_the_next_work_start_after_the_queue),
        cmocka_unit_test(a_start_that_fails_serves_nothing),
        cmocka_unit_test(copies_back_tell_the_host_bytes),
        cmocka_unit_test(uploaded_chunks_are_found_wherever_they_lie),
        cmocka_unit_test(the_hash_is_xxh64),
        cmocka_unit_test(the_hash_depends_on_the_bytes_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
