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
    memcpy(c->window, tiny_ptx, sizeof tiny_ptx - 1); /* no terminator: the server adds one */
    load = (struct remote_message){.op = REMOTE_MODULE_LOAD, .window_bytes = sizeof tiny_ptx - 1};
    EXPECT(c, raw_call(c, &load, NULL, &r) == CUDA_SUCCESS);
    uint64_t module = r.arg[0];
    struct remote_message get = {
        .op = REMOTE_MODULE_GET_FUNCTION, .inline_bytes = 1, .arg = {module}};
    EXPECT(c, raw_call(c, &get, "k", &r) == CUDA_ERROR_INVALID_VALUE); /* no terminator */
    get.inline_bytes = 2;
    EXPECT(c, raw_call(c, &get, "k", &r) == CUDA_SUCCESS);
    uint64_t function = r.arg[0];
    EXPECT(c, raw_simple(c, REMOTE_FUNC_PARAMS, function, 0, 0, &r) == CUDA_SUCCESS);
    EXPECT(c, r.arg[0] == 2 && r.inline_bytes == 16);
    unsigned char params[16] = {0};
    struct remote_message launch = {
        .op = REMOTE_LAUNCH,
        .inline_bytes = 3,
        .arg = {function, 1 | (uint64_t)1 << 32, 1, 1 | (uint64_t)1 << 32, 1, 0, 0}};
    EXPECT(c, raw_call(c, &launch, params, &r) == CUDA_ERROR_INVALID_VALUE);
    launch.inline_bytes = 12;
    EXPECT(c, raw_call(c, &launch, params, &r) == CUDA_SUCCESS);
    EXPECT(c, raw_simple(c, REMOTE_MODULE_UNLOAD, module, 0, 0, NULL) == CUDA_SUCCESS);
    EXPECT(c, raw_call(c, &launch, params, &r) == CUDA_ERROR_INVALID_HANDLE);
}

/* ---------------------------------------------------------- the harness */

struct scenario {
    void (*run)(struct raw *);
    struct raw client;
};

static void *client_thread(void *arg)
{
    struct scenario *s = arg;
    s->client.reply_data = malloc(REMOTE_INLINE_MAX);
    raw_hello(&s->client);
    s->run(&s->client);
    shutdown(s->client.fd, SHUT_RDWR);
    close(s->client.fd);
    if (s->client.window != MAP_FAILED)
        munmap(s->client.window, s->client.window_bytes);
    free(s->client.reply_data);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
