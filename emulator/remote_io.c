/*
 * The remote driver's messages on the wire (remote_protocol.h): a header
 * and its inline bytes, read and written whole over a stream socket. Both
 * the server (kgemu_serve) and the client library use it.
 */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote_protocol.h"

static bool io_write_all(int fd, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    while (bytes > 0) {
        ssize_t n = send(fd, p, bytes, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        bytes -= (size_t)n;
    }
    return true;
}

static bool io_read_all(int fd, void *data, size_t bytes)
{
    unsigned char *p = data;
    while (bytes > 0) {
        ssize_t n = read(fd, p, bytes);
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
    return io_write_all(fd, message, sizeof *message) &&
           io_write_all(fd, inline_data, message->inline_bytes);
}

bool remote_receive(int fd, struct remote_message *message, void *inline_buffer)
{
    return io_read_all(fd, message, sizeof *message) &&
           message->inline_bytes <= REMOTE_INLINE_MAX &&
           io_read_all(fd, inline_buffer, message->inline_bytes);
}
