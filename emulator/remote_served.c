/*
 * kgemu_serve_start and the rest of kgemu.h's served sessions: the remote
 * driver's server (remote_server.c) run on a thread of its own, so that
 * one process serves several clients at once (the grade job of a host-form
 * exercise serves the reference's and the student's Python) and reads
 * what each has done so far while it is served.
 *
 * The serving thread publishes what a request did (its copies with their
 * hashes, its launch, the context's timeline end) under the session's own
 * lock before it answers the request, so a reader that has seen the
 * client's answer to anything later sees all of it, and a reader never
 * waits for the driver's lock, which a long launch of another session
 * holds. The fingerprints of the chunks of every copy to the device
 * (chunks.h) are kept in one set, under the same lock, for
 * kgemu_served_uploaded_bytes; chunks shorter than EMU_CHUNK_MIN (a run's
 * last, four bytes of zeros) are too common to tell anything and are
 * neither kept nor counted. The client's context is made on the serving thread, is current
 * only there, and is destroyed there when the session ends, when the
 * thread also shuts the socket down (a client that broke the protocol and
 * waits for an answer gets none, it is not left waiting).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "remote_server.h"

#define SERVED_RECORDS_FIRST 256 /* records kept before the first growth (then doubled) */

struct kgemu_served {
    int fd;
    pthread_t thread;
    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t decided;
    bool started; /* the session's start is decided: start_result */
    CUresult start_result;
    struct kgemu_served_stats stats;
    struct kgemu_copy_record *records; /* the first `kept` copies */
    size_t kept, capacity;
    struct emu_chunk_set uploaded; /* the fingerprints of the chunks of every copy to the device */
};

/* ------------------------------------------- what the session publishes */

/* Room for one more record; false when none can be had. */
static bool served_room(struct kgemu_served *served)
{
    if (served->kept < served->capacity)
        return true;
    size_t capacity = served->capacity == 0 ? SERVED_RECORDS_FIRST : served->capacity * 2;
    if (capacity > KGEMU_COPY_RECORDS_MAX)
        return false;
    struct kgemu_copy_record *records = realloc(served->records, capacity * sizeof *records);
    if (records == NULL)
        return false;
    served->records = records;
    served->capacity = capacity;
    return true;
}

void remote_served_copy(struct remote_session *s, enum kgemu_copy_kind kind, uint64_t bytes,
                        uint64_t hash, uint64_t host_bytes)
{
    struct kgemu_served *served = s->served;
    if (served == NULL)
        return;
    pthread_mutex_lock(&served->lock);
    served->stats.copies[kind]++;
    served->stats.bytes[kind] += bytes;
    served->stats.records++;
    if (served_room(served))
        served->records[served->kept++] = (struct kgemu_copy_record){
            .kind = (int)kind, .bytes = bytes, .hash = hash, .host_bytes = host_bytes};
    else
        served->stats.records_lost = 1;
    pthread_mutex_unlock(&served->lock);
}

void remote_served_uploaded(void *context, uint64_t fingerprint, size_t bytes)
{
    struct kgemu_served *served = ((struct remote_session *)context)->served;
    if (bytes < EMU_CHUNK_MIN) /* a run's short last chunk: no evidence of anything */
        return;
    pthread_mutex_lock(&served->lock);
    emu_chunk_set_add(&served->uploaded, fingerprint);
    pthread_mutex_unlock(&served->lock);
}

void remote_served_launch(struct remote_session *s)
{
    struct kgemu_served *served = s->served;
    if (served == NULL)
        return;
    pthread_mutex_lock(&served->lock);
    served->stats.launches++;
    pthread_mutex_unlock(&served->lock);
}

/* The serving thread's current context is the client's (the client's own
 * context stack is only counted), so kgemu_device_time reads its timeline. */
void remote_served_answered(struct remote_session *s)
{
    struct kgemu_served *served = s->served;
    double device_ms = 0;
    if (served == NULL || kgemu_device_time(&device_ms) != CUDA_SUCCESS)
        return;
    pthread_mutex_lock(&served->lock);
    served->stats.device_ms = device_ms;
    pthread_mutex_unlock(&served->lock);
}

/* -------------------------------------------------- the serving thread */

static void served_decide(struct kgemu_served *served, CUresult result)
{
    pthread_mutex_lock(&served->lock);
    served->started = true;
    served->start_result = result;
    pthread_cond_signal(&served->decided);
    pthread_mutex_unlock(&served->lock);
}

static void served_end(struct kgemu_served *served, CUresult result)
{
    pthread_mutex_lock(&served->lock);
    served->stats.ended = 1;
    served->stats.result = (int)result;
    pthread_mutex_unlock(&served->lock);
}

static void *served_thread(void *arg)
{
    struct kgemu_served *served = arg;
    struct remote_session s = {.fd = served->fd, .served = served};
    CUresult rc = remote_session_open(&s);
    served_decide(served, rc);
    if (rc == CUDA_SUCCESS)
        rc = remote_session_serve(&s);
    remote_session_close(&s);
    shutdown(served->fd, SHUT_RDWR); /* a client waiting for an answer gets none */
    served_end(served, rc);
    if (s.context != NULL)
        cuCtxDestroy(s.context);
    return NULL;
}

/* --------------------------------------------------------------- kgemu.h */

static void served_free(struct kgemu_served *served)
{
    pthread_mutex_destroy(&served->lock);
    pthread_cond_destroy(&served->decided);
    free(served->records);
    emu_chunk_set_free(&served->uploaded);
    free(served);
}

EMU_EXPORT int kgemu_serve_start(int fd, struct kgemu_served **served)
{
    if (served == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *served = NULL;
    struct kgemu_served *p = calloc(1, sizeof *p);
    if (p == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->fd = fd;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->decided, NULL);
    if (pthread_create(&p->thread, NULL, served_thread, p) != 0) {
        served_free(p);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    pthread_mutex_lock(&p->lock);
    while (!p->started)
        pthread_cond_wait(&p->decided, &p->lock);
    CUresult rc = p->start_result;
    pthread_mutex_unlock(&p->lock);
    if (rc != CUDA_SUCCESS) {
        pthread_join(p->thread, NULL);
        served_free(p);
        return (int)rc;
    }
    *served = p;
    return CUDA_SUCCESS;
}

EMU_EXPORT int kgemu_served_stats(struct kgemu_served *served, struct kgemu_served_stats *stats)
{
    if (served == NULL || stats == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&served->lock);
    *stats = served->stats;
    stats->uploaded_chunks = served->uploaded.count;
    stats->uploaded_chunks_lost = served->uploaded.lost;
    pthread_mutex_unlock(&served->lock);
    return CUDA_SUCCESS;
}

EMU_EXPORT unsigned kgemu_served_copies(struct kgemu_served *served, unsigned long long first,
                                        struct kgemu_copy_record *records, unsigned count)
{
    if (served == NULL || (records == NULL && count > 0))
        return 0;
    pthread_mutex_lock(&served->lock);
    unsigned long long left = first < served->kept ? served->kept - first : 0;
    unsigned n = left < count ? (unsigned)left : count;
    if (n > 0)
        memcpy(records, served->records + first, n * sizeof *records);
    pthread_mutex_unlock(&served->lock);
    return n;
}

/* Counts the bytes of a buffer's chunks that the session uploaded. */
struct uploaded_count {
    struct kgemu_served *served;
    unsigned long long matched;
};

static void uploaded_found(void *context, uint64_t fingerprint, size_t bytes)
{
    struct uploaded_count *count = context;
    if (bytes < EMU_CHUNK_MIN)
        return;
    pthread_mutex_lock(&count->served->lock);
    if (emu_chunk_set_has(&count->served->uploaded, fingerprint))
        count->matched += bytes;
    pthread_mutex_unlock(&count->served->lock);
}

EMU_EXPORT int kgemu_served_uploaded_bytes(struct kgemu_served *served, const void *bytes,
                                           size_t size, unsigned long long *matched)
{
    if (served == NULL || matched == NULL || (bytes == NULL && size > 0))
        return CUDA_ERROR_INVALID_VALUE;
    struct uploaded_count count = {.served = served};
    struct emu_chunker chunker;
    emu_chunker_start(&chunker, uploaded_found, &count);
    emu_chunker_add(&chunker, bytes, size);
    emu_chunker_end(&chunker);
    *matched = count.matched;
    return CUDA_SUCCESS;
}

/* The shutdown ends a wait for the client's next request or for room to
 * answer it; the request being served finishes first. */
EMU_EXPORT int kgemu_serve_stop(struct kgemu_served *served)
{
    if (served == NULL)
        return CUDA_SUCCESS;
    shutdown(served->fd, SHUT_RDWR);
    pthread_join(served->thread, NULL);
    int result = served->stats.result;
    served_free(served);
    return result;
}
