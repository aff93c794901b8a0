/*
 * The remote driver's messages on the wire (remote_protocol.h): a header
 * and its inline bytes, read and written whole over a stream socket, and
 * the handshake's message with the window. Both the server (kgemu_serve)
 * and the client library use it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote_protocol.h"

/* Moves all `bytes` one way (send without SIGPIPE, or read), through
 * interruptions; false when the peer closed or the socket broke. */
static bool io_all(int fd, void *data, size_t bytes, bool writing)
{
    unsigned char *p = data;
    while (bytes > 0) {
        ssize_t n = writing ? send(fd, p, bytes, MSG_NOSIGNAL) : read(fd, p, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        bytes -= (size_t)n;
    }
    return true;
}

bool remote_send(int fd, const struct remote_message *message, const void *inline_data)
{
    if (message->inline_bytes > REMOTE_INLINE_MAX)
        return false;
    return io_all(fd, (void *)message, sizeof *message, true) &&
           io_all(fd, (void *)inline_data, message->inline_bytes, true);
}

bool remote_receive(int fd, struct remote_message *message, void *inline_buffer)
{
    return io_all(fd, message, sizeof *message, false) &&
           message->inline_bytes <= REMOTE_INLINE_MAX &&
           io_all(fd, inline_buffer, message->inline_bytes, false);
}

int remote_receive_hello(int fd, struct remote_message *hello)
{
    struct iovec iov = {.iov_base = hello, .iov_len = sizeof *hello};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buffer,
                         .msg_controllen = sizeof control.buffer};
    ssize_t n;
    do
        n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (n < 0 && errno == EINTR);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (n != (ssize_t)sizeof *hello || c == NULL || c->cmsg_type != SCM_RIGHTS)
        return -1;
    int window_fd;
    memcpy(&window_fd, CMSG_DATA(c), sizeof window_fd);
    return window_fd;
}
