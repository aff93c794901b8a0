/*
 * Fuzz target (libFuzzer): the Server-Sent Events reader
 * (server/sse_parser.c) that `kgrade submit` runs on what a server sends.
 * The first byte picks a piece size; the rest is the stream. Any stream
 * must parse without a crash or undefined behaviour, every event's data
 * must be within the cap, and the events must be the same whether the
 * stream comes whole or in pieces.
 */
#include "fuzz_input.h"
#include "server/sse_parser.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A running hash of the events seen, and their count. */
struct digest {
    uint64_t hash;
    size_t count;
};

static void mix(struct digest *d, const char *bytes, size_t size)
{
    for (size_t i = 0; i < size; i++)
        d->hash = (d->hash ^ (unsigned char)bytes[i]) * 0x100000001b3ull;
    d->hash = (d->hash ^ 0xff) * 0x100000001b3ull;
}

static bool take(void *context, const char *event, const char *data, size_t size)
{
    struct digest *d = context;
    if (size > SSE_EVENT_BYTES_MAX || strlen(event) > SSE_EVENT_NAME_MAX || data[size] != '\0')
        abort();
    mix(d, event, strlen(event));
    mix(d, data, size);
    d->count++;
    return true;
}

static struct digest parse(const char *stream, size_t size, size_t piece)
{
    struct digest d = {0xcbf29ce484222325ull, 0};
    struct sse_parser p;
    sse_parser_init(&p);
    for (size_t i = 0; i < size; i += piece)
        if (!sse_parser_feed(&p, stream + i, size - i < piece ? size - i : piece, take, &d))
            abort(); /* take never stops, and memory is plenty here */
    sse_parser_free(&p);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t piece = (size_t)data[0] % 16 + 1;
    char *stream = fuzz_exact_copy(data + 1, size - 1);
    if (!stream)
        return 0;
    struct digest whole = parse(stream, size - 1, size - 1 ? size - 1 : 1);
    struct digest pieces = parse(stream, size - 1, piece);
    if (whole.hash != pieces.hash || whole.count != pieces.count)
        abort();
    free(stream);
    return 0;
}
