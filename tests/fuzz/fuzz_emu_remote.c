/*
 * Fuzz target (libFuzzer): the remote driver's server (a served session:
 * kgemu_serve_start, emulator/remote_server*.c, remote_served.c) decoding
 * a client's requests. The input is
 * a sequence of requests, each a struct remote_message and its inline
 * bytes; a client thread sends them one by one after cuInit and its
 * context (so that the calls are reached, not only their checks), reads
 * each reply, and keeps the handles and pointers the replies give: an
 * argument of HANDLE_BASE + i is replaced by the i-th reply's first value,
 * so that inputs can chain an allocation to a copy, a module to its
 * function and a launch. A message of op 0 (which names no request) is
 * not sent: its inline bytes are put in the window (module images, link
 * inputs, a copy's data). Any request must be answered or end the session;
 * never crash, hang, leak or touch what the client does not own; once the
 * client is gone the session's stats must agree with its copy records, no
 * record may count more bytes as the host's than it copied back, and no
 * buffer (the input) more bytes as uploaded than it holds.
 *
 * Sizes that would only make the fuzzer wait or run out of memory are
 * cut: allocations to ALLOC_MAX, a launch's grid and blocks to LAUNCH_MAX.
 */
#include "emulator/driver.h"
#include "emulator/remote_protocol.h"
#include "fuzz_input.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define HANDLES     16
#define HANDLE_BASE 0xffff0000u
#define ALLOC_MAX   (1u << 20)
#define LAUNCH_MAX  4u

struct fuzz_client {
    int fd;
    const uint8_t *data;
    size_t size;
    unsigned char *reply_data;
    unsigned char *window;
    size_t window_bytes;
    uint64_t handles[HANDLES];
    unsigned replies;
};

static void client_hello(struct fuzz_client *c)
{
    struct remote_message hello;
    int window_fd = remote_receive_hello(c->fd, &hello);
    if (window_fd < 0)
        abort();
    c->window_bytes = hello.arg[1];
    c->window = mmap(NULL, c->window_bytes, PROT_WRITE, MAP_SHARED, window_fd, 0);
    close(window_fd);
    if (c->window == MAP_FAILED)
        abort();
}

/* Sends one request and keeps its reply's first value; false when the
 * server ended the session. */
static bool client_call(struct fuzz_client *c, struct remote_message *req, const void *data)
{
    struct remote_message reply;
    if (!remote_send(c->fd, req, data) || !remote_receive(c->fd, &reply, c->reply_data))
        return false;
    c->handles[c->replies++ % HANDLES] = reply.arg[0];
    return true;
}

static bool client_simple(struct fuzz_client *c, enum remote_op op, uint64_t a0)
{
    struct remote_message req = {.op = (int32_t)op, .arg = {a0}};
    return client_call(c, &req, NULL);
}

/* The sizes that only cost time or memory, cut. */
static void client_tame(struct remote_message *req)
{
    if (req->op == REMOTE_MEM_ALLOC)
        req->arg[0] %= ALLOC_MAX;
    if (req->op != REMOTE_LAUNCH)
        return;
    for (int i = REMOTE_LAUNCH_GRID_XY; i <= REMOTE_LAUNCH_BLOCK_Z; i++)
        req->arg[i] = (req->arg[i] & 0xffffffffu) % LAUNCH_MAX | (req->arg[i] >> 32) % LAUNCH_MAX
                                                                     << 32;
}

static void *client_run(void *arg)
{
    struct fuzz_client *c = arg;
    client_hello(c);
    bool on = client_simple(c, REMOTE_INIT, 0) && client_simple(c, REMOTE_PRIMARY_RETAIN, 0) &&
              client_simple(c, REMOTE_CTX_PUSH, c->handles[1]);
    for (size_t at = 0; on && at + sizeof(struct remote_message) <= c->size;) {
        struct remote_message req;
        memcpy(&req, c->data + at, sizeof req);
        at += sizeof req;
        req.inline_bytes =
            (uint32_t)(req.inline_bytes < c->size - at ? req.inline_bytes : c->size - at);
        for (int i = 0; i < REMOTE_ARGS; i++)
            if (req.arg[i] >= HANDLE_BASE && req.arg[i] < HANDLE_BASE + HANDLES)
                req.arg[i] = c->handles[req.arg[i] - HANDLE_BASE];
        client_tame(&req);
        if (req.op == 0)
            memcpy(c->window, c->data + at, req.inline_bytes);
        else
            on = client_call(c, &req, c->data + at);
        at += req.inline_bytes;
    }
    shutdown(c->fd, SHUT_RDWR);
    munmap(c->window, c->window_bytes);
    return NULL;
}

/* The session's stats must agree with its records, and its uploaded
 * chunks with what a buffer (the input) is asked about. */
static void check_records(struct kgemu_served *served, const uint8_t *data, size_t size)
{
    struct kgemu_served_stats stats;
    struct kgemu_copy_record record;
    if (kgemu_served_stats(served, &stats) != CUDA_SUCCESS || !stats.ended)
        abort();
    unsigned long long copies = 0, bytes = 0, moved = 0;
    for (int kind = 0; kind < KGEMU_COPY_KINDS; kind++)
        copies += stats.copies[kind], bytes += stats.bytes[kind];
    for (unsigned long long i = 0; kgemu_served_copies(served, i, &record, 1) == 1; i++) {
        moved += record.bytes;
        if (record.host_bytes > (record.kind == KGEMU_COPY_DTOH ? record.bytes : 0))
            abort();
    }
    if (copies != stats.records || moved != bytes || stats.records_lost)
        abort();
    unsigned long long matched = ~0ull;
    if (kgemu_served_uploaded_bytes(served, data, size, &matched) != CUDA_SUCCESS ||
        matched > size || (stats.uploaded_chunks == 0 && matched != 0) ||
        stats.uploaded_chunks_lost)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    struct fuzz_client client = {.fd = sv[1], .data = data, .size = size};
    client.reply_data = malloc(REMOTE_INLINE_MAX);
    pthread_t thread;
    struct kgemu_served *served = NULL;
    if (client.reply_data == NULL || kgemu_serve_start(sv[0], &served) != CUDA_SUCCESS ||
        pthread_create(&thread, NULL, client_run, &client) != 0)
        abort();
    double settled_ms; /* while it is served, or after it ended */
    int settled = kgemu_served_settle(served, &settled_ms);
    if (settled != CUDA_SUCCESS && settled != CUDA_ERROR_CONTEXT_IS_DESTROYED)
        abort();
    pthread_join(thread, NULL);
    struct kgemu_served_stats stats = {0};
    while (!stats.ended && kgemu_served_stats(served, &stats) == CUDA_SUCCESS)
        sched_yield();
    check_records(served, data, size);
    kgemu_serve_stop(served);
    close(sv[0]);
    close(sv[1]);
    free(client.reply_data);
    return 0;
}
