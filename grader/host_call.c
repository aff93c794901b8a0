/*
 * The host form's calls (host_form.h): a host job's packets read as
 * hostile (bounded, parsed strictly, descriptors closed unread), memfds for
 * the arrays, and one call of the job's function with the device's figures
 * of it from its served driver session.
 */
#include "host_form.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* Room for the descriptors a packet may carry that are closed unread
 * (the kernel discards those beyond it, and says so). */
#define RECEIVED_DESCRIPTORS_MAX 64

/* Closes every descriptor an SCM_RIGHTS message of `msg` carried. */
static void close_received(struct msghdr *msg)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
            close(fd);
        }
    }
}

/* Waits for the socket to be readable for up to `seconds`; false when it
 * is not by then. */
static bool readable(int fd, double seconds)
{
    double deadline = timing_now_seconds() + seconds;
    for (;;) {
        double left = deadline - timing_now_seconds();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, left > 0 ? (int)(left * 1e3) + 1 : 0);
        if (ready > 0)
            return true;
        if (ready == 0 || (ready < 0 && errno != EINTR))
            return false;
    }
}

/* The replies a host job may send: one key each. */
static const struct {
    const char *key;
    bool is_text;
    enum host_reply reply;
} known[] = {
    {"ready", false, HOST_REPLY_READY},       {"import_failed", true, HOST_REPLY_IMPORT_FAILED},
    {"returned", false, HOST_REPLY_RETURNED}, {"wrong", true, HOST_REPLY_WRONG},
    {"raised", true, HOST_REPLY_RAISED},
};

/* The packet's JSON as one of the replies: an object of exactly one known
 * key, of the right type. */
static enum host_reply parse_reply(const char *packet, size_t length, char *text, size_t size)
{
    json_t *root = json_loadb(packet, length, JSON_REJECT_DUPLICATES, NULL);
    enum host_reply reply = HOST_REPLY_ENDED;
    const char *key = NULL;
    json_t *value = NULL;
    if (json_is_object(root) && json_object_size(root) == 1) {
        void *at = json_object_iter(root);
        key = json_object_iter_key(at);
        value = json_object_iter_value(at);
    }
    for (size_t i = 0; key && i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(key, known[i].key) != 0)
            continue;
        if (known[i].is_text && json_is_string(value))
            snprintf(text, size, "%s", json_string_value(value));
        if (known[i].is_text ? json_is_string(value) : json_is_true(value))
            reply = known[i].reply;
    }
    json_decref(root);
    return reply;
}

enum host_reply host_receive(int fd, double seconds, char *text, size_t size)
{
    text[0] = '\0';
    if (!readable(fd, seconds))
        return HOST_REPLY_LATE;
    char *packet = malloc(HOST_PACKET_MAX);
    union {
        char bytes[CMSG_SPACE(sizeof(int) * RECEIVED_DESCRIPTORS_MAX)];
        struct cmsghdr align;
    } control;
    struct iovec iov = {packet, HOST_PACKET_MAX};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes};
    ssize_t n;
    do
        n = packet ? recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) : -1;
    while (n < 0 && errno == EINTR);
    if (n >= 0) /* an empty packet may carry descriptors too */
        close_received(&msg);
    enum host_reply reply = n > 0 && !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
                                ? parse_reply(packet, (size_t)n, text, size)
                                : HOST_REPLY_ENDED;
    free(packet);
    return reply;
}

bool host_send_packet(int fd, const char *packet, size_t length, const int *fds, int n)
{
    union {
        char bytes[CMSG_SPACE(sizeof(int) * HOST_DESCRIPTORS_MAX)];
        struct cmsghdr align;
    } control;
    struct iovec iov = {(void *)packet, length};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (n > HOST_DESCRIPTORS_MAX || length > HOST_PACKET_MAX)
        return false;
    if (n > 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.bytes;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
    }
    ssize_t sent;
    do
        sent = sendmsg(fd, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent == (ssize_t)length;
}

/* A memfd of `bytes` whose size no job can change. */
static int sized_memfd(const char *name, size_t bytes)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0 && ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int host_sealed_memfd(const char *name, const void *data, size_t bytes)
{
    int fd = sized_memfd(name, bytes);
    size_t done = 0;
    while (fd >= 0 && done < bytes) {
        ssize_t n = pwrite(fd, (const char *)data + done, bytes - done, (off_t)done);
        if (n <= 0 && errno != EINTR)
            break;
        done += n > 0 ? (size_t)n : 0;
    }
    if (fd >= 0 &&
        (done < bytes ||
         fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The returned array out of its memfd, into private memory. */
static bool read_returned(int fd, void *into, size_t bytes)
{
    size_t done = 0;
    while (done < bytes) {
        ssize_t n = pread(fd, (char *)into + done, bytes - done, (off_t)done);
        if (n <= 0 && errno != EINTR)
            return false;
        done += n > 0 ? (size_t)n : 0;
    }
    return true;
}

/* Whether the job's end of the socket is closed. */
static bool peer_closed(int fd)
{
    struct pollfd p = {.fd = fd};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/* Whether the job sent a packet before it was called: only numba_host.py
 * speaks on the channel, and only to answer. What it sent, in `text` ("a
 * \"ready\" reply"); a job that ended instead did not speak. */
static bool spoke_out_of_turn(int fd, char *text, size_t size)
{
    char said[GRADER_MESSAGE_MAX];
    enum host_reply early = host_receive(fd, 0, said, sizeof said);
    if (early == HOST_REPLY_LATE || peer_closed(fd))
        return false;
    snprintf(text, size, "a packet that is none of the protocol's replies");
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].reply == early)
            snprintf(text, size, "a \"%s\" reply", known[i].key);
    return true;
}

/* `after` less `before`; the device time from `settled_ms`. */
static void call_stats(const struct kgemu_served_stats *before, double settled_ms,
                       const struct kgemu_served_stats *after, struct host_call_stats *call)
{
    call->device_ms = after->device_ms - settled_ms;
    for (int k = 0; k < KGEMU_COPY_KINDS; k++) {
        call->copies[k] = after->copies[k] - before->copies[k];
        call->bytes[k] = after->bytes[k] - before->bytes[k];
    }
    call->launches = after->launches - before->launches;
    call->first_record = before->records;
    call->records = after->records - before->records;
}

/* The session's figures so far; all 0 for a job on a driver of its own
 * (no session served: host_form.wall_time). */
static int session_stats(struct grading *g, struct host_job *job, struct kgemu_served_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    return job->served ? g->api.kgemu_served_stats(job->served, stats) : 0;
}

/* The session's figures before a call, its device settled (work an
 * earlier call or the module's import left queued ends before the call
 * starts, and is not the call's). A session that ended does no more work:
 * its last point is the call's start. */
static bool call_start(struct grading *g, struct host_job *job, struct kgemu_served_stats *before,
                       double *settled_ms)
{
    if (session_stats(g, job, before) != 0)
        return false;
    *settled_ms = before->device_ms;
    if (job->served)
        g->api.kgemu_served_settle(job->served, settled_ms);
    return true;
}

enum host_reply host_call(struct grading *g, struct host_job *job, const char *request,
                          const int *fds, int n, void *returned, size_t returned_bytes,
                          double seconds, struct host_call_stats *stats, double *seconds_taken,
                          char *text, size_t size, bool *own_failure)
{
    struct kgemu_served_stats before, after;
    double settled_ms;
    int all[HOST_DESCRIPTORS_MAX];
    int out = n < HOST_DESCRIPTORS_MAX ? sized_memfd("returned", returned_bytes) : -1;
    *own_failure = out < 0 || !call_start(g, job, &before, &settled_ms);
    if (*own_failure) {
        snprintf(text, size, "no memory for the returned array (%s)", strerror(errno));
        if (out >= 0)
            close(out);
        return HOST_REPLY_ENDED;
    }
    fcntl(out, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    memcpy(all, fds, sizeof(int) * (size_t)n);
    all[n] = out;
    double cpu_before = host_cpu_ms(job->cpu_fd);
    double started = timing_now_seconds();
    enum host_reply reply = spoke_out_of_turn(job->calls_fd, text, size) ? HOST_REPLY_OUT_OF_TURN
                            : host_send_packet(job->calls_fd, request, strlen(request), all, n + 1)
                                ? host_receive(job->calls_fd, seconds, text, size)
                                : HOST_REPLY_ENDED;
    *seconds_taken = timing_now_seconds() - started;
    double cpu_after = host_cpu_ms(job->cpu_fd);
    session_stats(g, job, &after);
    call_stats(&before, settled_ms, &after, stats);
    stats->host_cpu_ms = cpu_before >= 0 && cpu_after >= 0 ? cpu_after - cpu_before : -1;
    if (reply == HOST_REPLY_RETURNED && !read_returned(out, returned, returned_bytes))
        reply = HOST_REPLY_ENDED;
    close(out);
    return reply;
}
