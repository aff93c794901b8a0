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

struct kgemu_served {
    int fd;
    pthread_t thread;
    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t decided;
    bool started; /* the session's start is decided: start_result */
    CUresult start_result;
    /* The client's context while it lives (kgemu_served_settle's; the
     * serving thread clears it before destroying it). */
    CUcontext context;
    struct kgemu_served_stats stats;
    /* The last KGEMU_COPY_RECORDS_MAX records: record i at i % the max. */
    struct kgemu_copy_record *records;
    struct emu_chunk_set uploaded; /* the fingerprints of the chunks of every copy to the device */
};

/* ------------------------------------------- what the session publishes */

void remote_served_copy(struct remote_session *s, enum kgemu_copy_kind kind, uint64_t bytes,
                        uint64_t hash, uint64_t host_bytes)
{
    struct kgemu_served *served = s->served;
    if (served == NULL)
        return;
    pthread_mutex_lock(&served->lock);
    served->stats.copies[kind]++;
    served->stats.bytes[kind] += bytes;
    served->records[served->stats.records % KGEMU_COPY_RECORDS_MAX] = (struct kgemu_copy_record){
        .kind = (int)kind, .bytes = bytes, .hash = hash, .host_bytes = host_bytes};
    served->stats.records++;
    served->stats.records_lost = served->stats.records > KGEMU_COPY_RECORDS_MAX;
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
    served->context = NULL; /* destroyed next: kgemu_served_settle no longer reaches it */
    pthread_mutex_unlock(&served->lock);
}

static void *served_thread(void *arg)
{
    struct kgemu_served *served = arg;
    struct remote_session s = {.fd = served->fd, .served = served};
    CUresult rc = remote_session_open(&s);
    served->context = s.context; /* before the start is decided: no other thread reads it yet */
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
    p->records = malloc(KGEMU_COPY_RECORDS_MAX * sizeof *p->records);
    if (p->records == NULL) {
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
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
    unsigned long long made = served->stats.records;
    unsigned long long oldest = made > KGEMU_COPY_RECORDS_MAX ? made - KGEMU_COPY_RECORDS_MAX : 0;
    unsigned long long left = first >= oldest && first < made ? made - first : 0;
    unsigned n = left < count ? (unsigned)left : count;
    for (unsigned i = 0; i < n; i++)
        records[i] = served->records[(first + i) % KGEMU_COPY_RECORDS_MAX];
    pthread_mutex_unlock(&served->lock);
    return n;
}

/* The session's lock, then the driver's: the serving thread never takes
 * the session's while it holds the driver's (it publishes between driver
 * calls), and clears the context under the session's lock before it
 * destroys it. */
EMU_EXPORT int kgemu_served_settle(struct kgemu_served *served, double *device_ms)
{
    if (served == NULL || device_ms == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&served->lock);
    CUcontext ctx = served->context;
    CUresult rc = ctx != NULL ? driver_begin() : CUDA_ERROR_CONTEXT_IS_DESTROYED;
    if (ctx != NULL && rc == CUDA_SUCCESS) {
        driver_timeline_host_waits(ctx, ctx->timeline.queued_end);
        *device_ms = driver_timeline_ms(ctx->timeline.queued_end);
    }
    if (ctx != NULL)
        driver_leave(rc);
    pthread_mutex_unlock(&served->lock);
    return (int)rc;
}

/* The session's lock, then the driver's, as kgemu_served_settle. */
EMU_EXPORT int kgemu_served_fault(struct kgemu_served *served, struct kgemu_fault *fault)
{
    if (served == NULL || fault == NULL)
        return 0;
    pthread_mutex_lock(&served->lock);
    CUcontext ctx = served->context;
    int found = ctx != NULL && driver_begin() == CUDA_SUCCESS;
    if (found) {
        found = ctx->has_fault;
        if (found)
            *fault = ctx->fault;
        driver_leave(CUDA_SUCCESS);
    }
    pthread_mutex_unlock(&served->lock);
    return found;
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
