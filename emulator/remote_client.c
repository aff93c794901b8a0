/*
 * The remote driver's client: its connection to the server (the socket
 * KGEMU_REMOTE_FD names, the handshake, the window mapped), the exchange
 * of one request and its reply, and copies in chunks through the window
 * (remote_protocol.h says how they go).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote_client.h"

/* The driver's one connection: a driver is global to its process. */
static struct {
    pthread_mutex_t lock;
    bool tried;
    CUresult status; /* of the connection: CUDA_SUCCESS, or why there is none */
    int fd;
    unsigned char *window;
    size_t window_bytes;
    unsigned char reply_data[REMOTE_INLINE_MAX];
} client = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static const char *connect_to_server(void)
{
    const char *variable = getenv(REMOTE_FD_VARIABLE);
    char *end;
    long fd = variable != NULL ? strtol(variable, &end, 10) : -1;
    if (variable == NULL || *end != '\0' || fd < 0 || fd > INT32_MAX)
        return "names no descriptor";
    struct remote_message hello;
    int window_fd = remote_receive_hello((int)fd, &hello);
    if (window_fd < 0)
        return "is no socket the virtual GPU sent its handshake on";
    void *window = MAP_FAILED;
    if (hello.op == (int32_t)REMOTE_MAGIC && hello.arg[0] == REMOTE_VERSION && hello.arg[1] > 0)
        window = mmap(NULL, hello.arg[1], PROT_READ | PROT_WRITE, MAP_SHARED, window_fd, 0);
    close(window_fd);
    if (window == MAP_FAILED)
        return "carried a handshake of another version, or a window that cannot be mapped";
    client.fd = (int)fd;
    client.window = window;
    client.window_bytes = hello.arg[1];
    return NULL;
}

/* Connects at the first call; caller holds the lock. */
static CUresult client_connected(void)
{
    if (!client.tried) {
        client.tried = true;
        const char *why = connect_to_server();
        client.status = why == NULL ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
        if (why != NULL)
            fprintf(stderr,
                    "kgrade remote driver: %s=%s %s: this libcuda.so.1 reaches the virtual GPU "
                    "only through the socket a kgrade grading job gives it\n",
                    REMOTE_FD_VARIABLE,
                    getenv(REMOTE_FD_VARIABLE) ? getenv(REMOTE_FD_VARIABLE) : "(unset)", why);
    }
    return client.status;
}

/* The server is gone, or it broke the protocol: every later call fails. */
static CUresult client_lost(void)
{
    client.status = CUDA_ERROR_DEVICE_UNAVAILABLE;
    return client.status;
}

/* One request and its reply; caller holds the lock. */
static CUresult client_exchange(struct remote_message *req, const void *data,
                                struct remote_message *reply)
{
    if (!remote_send(client.fd, req, data) || !remote_receive(client.fd, reply, client.reply_data))
        return client_lost();
    return (CUresult)reply->op;
}

/* A copy of the window's first `bytes`; caller holds the lock. */
static CUresult window_take(uint64_t bytes, char **out)
{
    if (bytes > client.window_bytes)
        return client_lost();
    if ((*out = malloc(bytes + 1)) == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(*out, client.window, bytes);
    (*out)[bytes] = '\0';
    return CUDA_SUCCESS;
}

CUresult client_call(struct remote_message *req, const struct client_transfer *t,
                     struct remote_message *reply)
{
    static const struct client_transfer none;
    t = t != NULL ? t : &none;
    pthread_mutex_lock(&client.lock);
    CUresult rc = client_connected();
    if (rc == CUDA_SUCCESS && req->window_bytes > client.window_bytes)
        rc = CUDA_ERROR_NOT_SUPPORTED;
    if (rc == CUDA_SUCCESS && t->window_in != NULL)
        memcpy(client.window, t->window_in, req->window_bytes);
    if (rc == CUDA_SUCCESS)
        rc = client_exchange(req, t->data, reply);
    if (client.status == CUDA_SUCCESS && t->reply_data != NULL)
        memcpy(t->reply_data, client.reply_data,
               reply->inline_bytes < t->reply_capacity ? reply->inline_bytes : t->reply_capacity);
    if (rc == CUDA_SUCCESS && t->window_out != NULL)
        rc = window_take(reply->window_bytes, t->window_out);
    pthread_mutex_unlock(&client.lock);
    return rc;
}

struct remote_message client_request(enum remote_op op)
{
    return (struct remote_message){.op = (int32_t)op};
}

CUresult client_simple(enum remote_op op, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                       struct remote_message *reply)
{
    struct remote_message req = client_request(op), ignored;
    req.arg[0] = a0;
    req.arg[1] = a1;
    req.arg[2] = a2;
    req.arg[3] = a3;
    return client_call(&req, NULL, reply != NULL ? reply : &ignored);
}

CUresult client_value(enum remote_op op, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                      uint64_t *value)
{
    struct remote_message reply;
    CUresult rc = client_simple(op, a0, a1, a2, a3, &reply);
    *value = reply.arg[0];
    return rc;
}

size_t client_window_bytes(void)
{
    pthread_mutex_lock(&client.lock);
    size_t bytes = client_connected() == CUDA_SUCCESS ? client.window_bytes : 0;
    pthread_mutex_unlock(&client.lock);
    return bytes;
}

/* ---------------------------------------------------------------- copies */

static size_t copy_chunk(size_t done, size_t bytes)
{
    return bytes - done < client.window_bytes ? bytes - done : client.window_bytes;
}

/* The conversation of a copy; caller holds the lock. To the device, each
 * chunk goes into the window before the server is told; from it, each is
 * taken out after. */
static CUresult copy_chunks(struct remote_message *req, unsigned char *host, size_t bytes,
                            bool to_device)
{
    struct remote_message reply, chunk = client_request(REMOTE_CHUNK);
    size_t done = 0, n = copy_chunk(0, bytes);
    if (to_device)
        memcpy(client.window, host, n);
    CUresult rc = client_exchange(req, NULL, &reply);
    while (rc == (CUresult)REMOTE_MORE) {
        if (!to_device)
            memcpy(host + done, client.window, n);
        done += n;
        n = copy_chunk(done, bytes);
        if (to_device)
            memcpy(client.window, host + done, n);
        rc = client_exchange(&chunk, NULL, &reply);
    }
    if (rc == CUDA_SUCCESS && !to_device && bytes > 0)
        memcpy(host + done, client.window, n);
    return rc;
}

CUresult client_copy(enum remote_op op, CUdeviceptr device, void *host, size_t bytes,
                     CUstream stream, bool synchronous)
{
    struct remote_message req = client_request(op);
    req.arg[0] = device;
    req.arg[1] = bytes;
    req.arg[2] = (uintptr_t)stream;
    req.arg[3] = synchronous;
    if (host == NULL && bytes > 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&client.lock);
    CUresult rc = client_connected();
    if (rc == CUDA_SUCCESS)
        rc = copy_chunks(&req, host, bytes, op == REMOTE_MEMCPY_HTOD);
    pthread_mutex_unlock(&client.lock);
    return rc;
}
