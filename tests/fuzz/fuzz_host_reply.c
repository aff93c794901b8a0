/*
 * Fuzz target (libFuzzer): a host job's packet as the grade job reads it
 * (grader/host_call.c, host_receive). The packet comes from a process that
 * runs the student's code, so any bytes, sent as one packet on a real
 * seqpacket socket (the first byte: how many descriptors of /dev/null come
 * with it, 0 to 3), must give one of the replies without a crash, a leak or
 * a read past the end; a text only with a reply that carries one, within
 * the room given; every descriptor closed.
 */
#include "fuzz_input.h"
#include "grader/host_form.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define DESCRIPTORS_MAX 3

/* Sends `packet` with `fds` descriptors of /dev/null on `fd`. */
static void send_packet(int fd, const char *packet, size_t size, int fds)
{
    int sent[DESCRIPTORS_MAX];
    for (int i = 0; i < fds; i++)
        sent[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!host_send_packet(fd, packet, size, sent, fds))
        abort(); /* the fuzzer's input fits a packet */
    for (int i = 0; i < fds; i++)
        close(sent[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > HOST_PACKET_MAX)
        return 0;
    char *packet = fuzz_exact_copy(data + 1, size - 1);
    int pair[2];
    if (!packet || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        free(packet);
        return 0;
    }
    send_packet(pair[1], packet, size - 1, data[0] % (DESCRIPTORS_MAX + 1));
    int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest free descriptor */
    close(lowest);
    char text[64];
    enum host_reply reply = host_receive(pair[0], 1.0, text, sizeof text);
    bool carries_text = reply == HOST_REPLY_WRONG || reply == HOST_REPLY_RAISED ||
                        reply == HOST_REPLY_IMPORT_FAILED;
    if (reply > HOST_REPLY_LATE || reply == HOST_REPLY_LATE || strlen(text) >= sizeof text ||
        (!carries_text && text[0] != '\0'))
        abort();
    int probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (probe != lowest)
        abort(); /* a descriptor the packet carried was left open */
    close(probe);
    close(pair[0]);
    close(pair[1]);
    free(packet);
    return 0;
}
