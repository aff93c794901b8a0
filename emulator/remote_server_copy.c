/*
 * The remote driver's copies between the client's host memory and its
 * device memory, through the window (remote_protocol.h): in chunks of the
 * window's size, the server answering REMOTE_MORE after each chunk but
 * the last and the client answering REMOTE_CHUNK once it has filled the
 * window with the next (to the device) or taken the last out (from it).
 *
 * The whole copy is checked before its first chunk moves (the client's
 * stream, a range inside one allocation of its context), and it takes
 * its modeled time once, as the one copy the client asked for (the
 * window is pageable host memory, as the client's buffer is): chunks
 * change neither the copies counted nor their time. A client that breaks
 * off is charged for what it moved. A served session (kgemu_serve_start)
 * records each copy once, with the hash of all its bytes in order, taken
 * from the device's side of each chunk, which the client cannot change;
 * what a copy to the device wrote is the host's (remote_host_bytes.c), and
 * a copy from it records how many of its bytes still are. A copy to the
 * device also gives the session the fingerprints of its bytes' chunks
 * (chunks.h: content-defined, the rolling state carried from one chunk of
 * the window to the next), also taken from the device's side.
 */
#include "remote_server.h"

static CUresult copy_check(const struct remote_session *s, CUdeviceptr device, size_t bytes,
                           uint64_t stream)
{
    CUresult rc = remote_stream_owned(s, stream);
    return rc == CUDA_SUCCESS ? driver_own_range_check(device, bytes) : rc;
}

/* After a chunk but the last: REMOTE_MORE, then the client's REMOTE_CHUNK. */
static bool copy_next(struct remote_session *s)
{
    struct remote_message more = {.op = REMOTE_MORE}, next;
    if (remote_send(s->fd, &more, NULL) && remote_receive(s->fd, &next, s->in) &&
        next.op == REMOTE_CHUNK)
        return true;
    s->broken = true;
    return false;
}

/* Moves `bytes` between `device` and the client, chunk by chunk, then
 * charges what moved and, in a served session, records it with the hash
 * of its device bytes in order. */
static CUresult copy(struct remote_session *s, CUdeviceptr device, size_t bytes, uint64_t stream,
                     bool synchronous, bool to_device)
{
    CUresult rc = copy_check(s, device, bytes, stream);
    CUstream st = (CUstream)(uintptr_t)stream;
    if (rc == CUDA_SUCCESS && to_device)
        remote_host_writing(s, device, bytes);
    struct emu_hash hash;
    emu_hash_start(&hash);
    struct emu_chunker uploaded;
    emu_chunker_start(&uploaded, remote_served_uploaded, s);
    bool served = s->served != NULL, chunked = served && to_device;
    size_t done = 0;
    while (rc == CUDA_SUCCESS && done < bytes) {
        if (done > 0 && !copy_next(s))
            break;
        size_t chunk = bytes - done < s->window_bytes ? bytes - done : s->window_bytes;
        rc = driver_copy_part(st, device + done, s->window, chunk, to_device, served ? &hash : NULL,
                              chunked ? &uploaded : NULL);
        if (rc == CUDA_SUCCESS)
            done += chunk;
    }
    if (chunked)
        emu_chunker_end(&uploaded);
    if (done == 0)
        return rc;
    driver_copy_charge(st, device, s->window, done, to_device, synchronous);
    if (to_device)
        remote_host_wrote(s, device, done);
    uint64_t host_bytes = to_device ? 0 : remote_host_kept(s, device, done);
    remote_served_copy(s, to_device ? KGEMU_COPY_HTOD : KGEMU_COPY_DTOH, done, emu_hash_end(&hash),
                       host_bytes);
    return rc;
}

/* 0: the device pointer, 1: bytes, 2: the stream, 3: synchronous (the
 * call without Async). The client has put the first chunk in the window. */
CUresult remote_memcpy_htod(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply)
{
    (void)reply;
    return copy(s, req->arg[0], (size_t)req->arg[1], req->arg[2], req->arg[3] != 0, true);
}

/* The same; the last chunk is in the window when the reply comes. */
CUresult remote_memcpy_dtoh(struct remote_session *s, const struct remote_message *req,
                            struct remote_message *reply)
{
    (void)reply;
    return copy(s, req->arg[0], (size_t)req->arg[1], req->arg[2], req->arg[3] != 0, false);
}
