/*
 * kgemu_serve: the remote driver's server. It makes a session for the
 * client on the other end of a connected socket (its window and its
 * context), sends the handshake, then answers its requests one by one on
 * the calling thread until the client closes the socket or breaks the
 * protocol (remote_server.h says what is checked, emulator/README.md "The
 * remote driver" why).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote_server.h"

/* The window: a memfd the client maps too, sealed so that it cannot shrink
 * under the server (a truncated mapping would fault on access). Returns
 * its descriptor, mapped at s->window, or -1. */
static int session_window(struct remote_session *s)
{
    int fd = memfd_create("kgemu-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    void *window = MAP_FAILED;
    if (ftruncate(fd, (off_t)REMOTE_WINDOW_BYTES) == 0 &&
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0)
        window = mmap(NULL, REMOTE_WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (window == MAP_FAILED) {
        close(fd);
        return -1;
    }
    s->window = window;
    s->window_bytes = REMOTE_WINDOW_BYTES;
    return fd;
}

/* The handshake: the protocol's magic and version, the window's size, and
 * the window itself (SCM_RIGHTS). */
static bool session_hello(struct remote_session *s, int window_fd)
{
    struct remote_message hello = {.op = (int32_t)REMOTE_MAGIC};
    hello.arg[0] = REMOTE_VERSION;
    hello.arg[1] = s->window_bytes;
    struct iovec iov = {.iov_base = &hello, .iov_len = sizeof hello};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buffer,
                         .msg_controllen = sizeof control.buffer};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &window_fd, sizeof(int));
    return sendmsg(s->fd, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof hello;
}

/* The client's context, made current on the calling thread. */
static CUresult session_context(struct remote_session *s)
{
    CUdevice device;
    CUresult rc = cuInit(0);
    if (rc == CUDA_SUCCESS)
        rc = cuDeviceGet(&device, 0);
    if (rc == CUDA_SUCCESS)
        rc = cuCtxCreate_v2(&s->context, 0, device);
    return rc;
}

CUresult remote_session_open(struct remote_session *s)
{
    s->in = malloc(REMOTE_INLINE_MAX);
    s->out = malloc(REMOTE_INLINE_MAX);
    if (s->in == NULL || s->out == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int window_fd = session_window(s);
    if (window_fd < 0)
        return CUDA_ERROR_OPERATING_SYSTEM;
    bool said = session_hello(s, window_fd);
    close(window_fd);
    if (!said)
        return CUDA_ERROR_OPERATING_SYSTEM;
    return session_context(s);
}

void remote_session_close(struct remote_session *s)
{
    remote_links_release(s);
    remote_host_release(s);
    if (s->window != NULL)
        munmap(s->window, s->window_bytes);
    free(s->in);
    free(s->out);
}

/* One request's call, once what it needs is there. */
static CUresult session_call(struct remote_session *s, const struct remote_message *req,
                             struct remote_message *reply)
{
    const struct remote_call *call = &remote_calls[req->op];
    if ((call->needs & REMOTE_NEEDS_INIT) && !s->initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (call->needs == REMOTE_NEEDS_CONTEXT && s->depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    return call->handler(s, req, reply);
}

/* A request that names no call, or more of the window than there is,
 * breaks the protocol. */
static bool session_request_valid(const struct remote_session *s, const struct remote_message *req)
{
    return req->op > 0 && req->op < REMOTE_OPS && remote_calls[req->op].handler != NULL &&
           req->window_bytes <= s->window_bytes;
}

/* Whether the client closed the socket where a request would begin. */
static bool session_closed(int fd)
{
    char byte;
    return recv(fd, &byte, 1, MSG_PEEK) <= 0;
}

CUresult remote_session_serve(struct remote_session *s)
{
    CUresult rc = CUDA_SUCCESS;
    while (rc == CUDA_SUCCESS && !session_closed(s->fd)) {
        struct remote_message req, reply = {0};
        if (!remote_receive(s->fd, &req, s->in) || !session_request_valid(s, &req))
            return CUDA_ERROR_INVALID_VALUE;
        reply.op = (int32_t)session_call(s, &req, &reply);
        remote_served_answered(s);
        if (s->broken || !remote_send(s->fd, &reply, s->out))
            rc = CUDA_ERROR_INVALID_VALUE;
    }
    return rc;
}

EMU_EXPORT int kgemu_serve(int fd)
{
    struct remote_session s = {.fd = fd};
    CUresult rc = remote_session_open(&s);
    if (rc == CUDA_SUCCESS)
        rc = remote_session_serve(&s);
    remote_session_close(&s);
    return (int)rc;
}

CUresult remote_owned(const struct remote_session *s, enum driver_kind kind, uint64_t handle)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(kind, (const void *)(uintptr_t)handle, s->context);
    return driver_leave(rc);
}

CUresult remote_stream_owned(const struct remote_session *s, uint64_t stream)
{
    bool default_stream = stream == 0 || stream == (uintptr_t)CU_STREAM_LEGACY ||
                          stream == (uintptr_t)CU_STREAM_PER_THREAD;
    return default_stream ? CUDA_SUCCESS : remote_owned(s, DRIVER_STREAM, stream);
}

void remote_reply_string(struct remote_session *s, struct remote_message *reply, const char *text)
{
    size_t length = strnlen(text, REMOTE_STRING_MAX - 1);
    memcpy(s->out, text, length);
    s->out[length] = '\0';
    reply->inline_bytes = (uint32_t)length + 1;
}
