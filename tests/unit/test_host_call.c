/*
 * Unit tests of the host form's channel (grader/host_call.c) on real
 * sockets: a host job's packets are read strictly (one known key of the
 * right type, at most HOST_PACKET_MAX bytes, else "ended"), the descriptors
 * a packet carries are closed unread, silence is "late"; an input's
 * memfd is sealed: no job can change its bytes or its size; and a call of
 * a job on a driver of its own (no session served: a real GPU's) is timed
 * by the wall clock, from the request sent to the reply received.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/host_form.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The descriptors this process has open. */
static int open_descriptors(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* What host_receive makes of `packet` (`length` bytes, sent with `fds`
 * descriptors of /dev/null) from a job on the other end. */
static enum host_reply reply_to(const char *packet, size_t length, int fds, char *text, size_t size)
{
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    int sent[8];
    for (int i = 0; i < fds; i++)
        sent[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    assert_true(host_send_packet(pair[1], packet, length, sent, fds));
    for (int i = 0; i < fds; i++)
        close(sent[i]);
    int before = open_descriptors();
    enum host_reply reply = host_receive(pair[0], 1.0, text, size);
    assert_int_equal(open_descriptors(), before); /* what came with it is closed */
    close(pair[0]);
    close(pair[1]);
    return reply;
}

static enum host_reply reply_of(const char *packet, char *text)
{
    return reply_to(packet, strlen(packet), 0, text, GRADER_MESSAGE_MAX);
}

static void each_reply_is_read(void **state)
{
    (void)state;
    char text[GRADER_MESSAGE_MAX];
    assert_int_equal(reply_of("{\"ready\": true}", text), HOST_REPLY_READY);
    assert_int_equal(reply_of("{\"returned\": true}", text), HOST_REPLY_RETURNED);
    assert_string_equal(text, "");
    assert_int_equal(reply_of("{\"wrong\": \"f returned None\"}", text), HOST_REPLY_WRONG);
    assert_string_equal(text, "f returned None");
    assert_int_equal(reply_of("{\"raised\": \"ZeroDivisionError\"}", text), HOST_REPLY_RAISED);
    assert_string_equal(text, "ZeroDivisionError");
    assert_int_equal(reply_of("{\"import_failed\": \"SyntaxError\"}", text),
                     HOST_REPLY_IMPORT_FAILED);
    assert_string_equal(text, "SyntaxError");
    char small[8];
    assert_int_equal(reply_to("{\"raised\": \"a long traceback\"}", 30, 0, small, sizeof small),
                     HOST_REPLY_RAISED);
    assert_string_equal(small, "a long "); /* cut to the room given */
}

/* Anything but one known key of the right type is the job's end. */
static void anything_else_is_the_end(void **state)
{
    (void)state;
    char text[GRADER_MESSAGE_MAX];
    static const char *const bad[] = {
        "{\"returned\": false}",
        "{\"returned\": 1}",
        "{\"wrong\": 3}",
        "{\"returned\": true, \"wrong\": \"x\"}",
        "{\"returned\": true, \"returned\": true}",
        "{\"passed\": true}",
        "[\"returned\"]",
        "{\"returned\": true",
        "returned",
        "{\"raised\": \"\\udc80\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (reply_of(bad[i], text) != HOST_REPLY_ENDED)
            fail_msg("'%s' was taken for a reply", bad[i]);
    char *huge = malloc(HOST_PACKET_MAX + 64);
    assert_non_null(huge);
    int n = snprintf(huge, HOST_PACKET_MAX + 64, "{\"wrong\": \"");
    memset(huge + n, 'x', HOST_PACKET_MAX);
    memcpy(huge + n + HOST_PACKET_MAX, "\"}", 3);
    int pair[2]; /* sent as a job may, past what the grade job reads */
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    assert_int_equal(send(pair[1], huge, strlen(huge), 0), (ssize_t)strlen(huge));
    assert_int_equal(host_receive(pair[0], 1.0, text, sizeof text), HOST_REPLY_ENDED);
    close(pair[0]);
    close(pair[1]);
    free(huge);
}

/* Descriptors a job sends are closed, whatever the packet. */
static void descriptors_sent_are_closed(void **state)
{
    (void)state;
    char text[GRADER_MESSAGE_MAX];
    assert_int_equal(reply_to("{\"returned\": true}", 18, 3, text, sizeof text),
                     HOST_REPLY_RETURNED);
    assert_int_equal(reply_to("{\"nonsense\": 1}", 15, 8, text, sizeof text), HOST_REPLY_ENDED);
    assert_int_equal(reply_to("", 0, 2, text, sizeof text), HOST_REPLY_ENDED); /* empty */
}

static void silence_is_late_and_a_close_the_end(void **state)
{
    (void)state;
    char text[GRADER_MESSAGE_MAX];
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    assert_int_equal(host_receive(pair[0], 0.05, text, sizeof text), HOST_REPLY_LATE);
    close(pair[1]);
    assert_int_equal(host_receive(pair[0], 1.0, text, sizeof text), HOST_REPLY_ENDED);
    close(pair[0]);
}

/* An input's memfd: its bytes and its size are fixed; a job may still map
 * it privately and write its own copy. */
static void inputs_are_sealed(void **state)
{
    (void)state;
    const char data[] = "0123456789abcdef";
    int fd = host_sealed_memfd("input", data, sizeof data);
    assert_true(fd >= 0);
    char back[sizeof data];
    assert_int_equal(pread(fd, back, sizeof back, 0), (ssize_t)sizeof data);
    assert_memory_equal(back, data, sizeof data);
    assert_int_equal(pwrite(fd, "x", 1, 0), -1);
    assert_int_equal(errno, EPERM);
    assert_int_not_equal(ftruncate(fd, 1), 0);
    assert_ptr_equal(mmap(NULL, sizeof data, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
                     MAP_FAILED);
    char *own = mmap(NULL, sizeof data, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    assert_ptr_not_equal(own, MAP_FAILED);
    own[0] = 'x';
    assert_int_equal(pread(fd, back, 1, 0), 1);
    assert_int_equal(back[0], '0');
    munmap(own, sizeof data);
    close(fd);
}

/* A host job answering one call after JOB_WORK_SECONDS: the returned
 * array's memfd (the packet's last descriptor) filled with RETURNED. */
#define JOB_WORK_SECONDS 0.2
static const char RETURNED[] = "the result";

static void *answering_job(void *context)
{
    int fd = *(int *)context, fds[HOST_DESCRIPTORS_MAX], n = 0;
    char packet[256];
    union {
        char bytes[CMSG_SPACE(sizeof(int) * HOST_DESCRIPTORS_MAX)];
        struct cmsghdr align;
    } control;
    struct iovec iov = {packet, sizeof packet};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes};
    if (recvmsg(fd, &msg, 0) <= 0)
        return NULL;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c && c->cmsg_type == SCM_RIGHTS) {
        n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)n);
    }
    struct timespec work = {0, (long)(JOB_WORK_SECONDS * 1e9)};
    nanosleep(&work, NULL);
    if (n > 0 && pwrite(fds[n - 1], RETURNED, sizeof RETURNED, 0) == (ssize_t)sizeof RETURNED)
        send(fd, "{\"returned\": true}", 18, 0);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    return NULL;
}

static void a_call_with_no_session_is_timed_by_the_wall_clock(void **state)
{
    (void)state;
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    pthread_t job;
    assert_int_equal(pthread_create(&job, NULL, answering_job, &pair[1]), 0);
    struct grading g = {0}; /* no driver: nothing of it may be called */
    struct host_job on_its_own = {.driver_fd = -1, .calls_fd = pair[0], .served = NULL};
    struct host_call_stats stats;
    char returned[sizeof RETURNED], text[GRADER_MESSAGE_MAX];
    int no_inputs[1] = {-1};
    double seconds = 0;
    bool own = true;
    enum host_reply reply =
        host_call(&g, &on_its_own, "{\"call\": \"f\"}", no_inputs, 0, returned, sizeof returned,
                  5.0, &stats, &seconds, text, sizeof text, &own);
    pthread_join(job, NULL);
    assert_int_equal(reply, HOST_REPLY_RETURNED);
    assert_false(own);
    assert_memory_equal(returned, RETURNED, sizeof RETURNED);
    assert_true(seconds >= JOB_WORK_SECONDS); /* the job's work counts, as DLI's assess counts it */
    assert_true(seconds < 5.0);
    assert_true(stats.device_ms == 0 && stats.launches == 0 && stats.records == 0);
    close(pair[0]);
    close(pair[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_reply_is_read),
        cmocka_unit_test(anything_else_is_the_end),
        cmocka_unit_test(descriptors_sent_are_closed),
        cmocka_unit_test(silence_is_late_and_a_close_the_end),
        cmocka_unit_test(inputs_are_sealed),
        cmocka_unit_test(a_call_with_no_session_is_timed_by_the_wall_clock),
    };
    return cmocka_run_group_tests_name("host_call", tests, NULL, NULL);
}
