/*
 * What the host form judges of a call beyond its values (host_form.h):
 * the provenance rule (the returned array is what the call copied back
 * from the GPU, not what the host computed or brought back unchanged:
 * neither the copies back of the host's bytes, nor bytes whose content
 * the program had copied to the device), and
 * the calls' copies, for the speed's message and the grade JSON.
 */
#include "host_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The call's device-to-host copies, largest first, and its host-to-device
 * ones. */
struct call_copies {
    struct kgemu_copy_record *all;
    unsigned long long n;
    struct kgemu_copy_record *back; /* DtoH, sorted by size, largest first */
    unsigned long long n_back;
    bool *used; /* per back */
};

static int larger_first(const void *a, const void *b)
{
    const struct kgemu_copy_record *x = a, *y = b;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/* The call's records; false when the call made more than the session
 * keeps, when its first is no longer kept (a later copy pushed it out), or
 * when out of memory. */
static bool read_copies(struct grading *g, struct host_job *job, const struct host_call_stats *call,
                        struct call_copies *c)
{
    memset(c, 0, sizeof *c);
    if (call->records > KGEMU_COPY_RECORDS_MAX)
        return false;
    c->all = calloc(call->records + 1, sizeof *c->all);
    c->back = calloc(call->records + 1, sizeof *c->back);
    c->used = calloc(call->records + 1, sizeof *c->used);
    if (!c->all || !c->back || !c->used)
        return false;
    c->n = g->api.kgemu_served_copies(job->served, call->first_record, c->all,
                                      (unsigned)call->records);
    for (unsigned long long i = 0; i < c->n; i++)
        if (c->all[i].kind == KGEMU_COPY_DTOH && c->all[i].bytes > 0)
            c->back[c->n_back++] = c->all[i];
    qsort(c->back, c->n_back, sizeof *c->back, larger_first);
    return c->n == call->records;
}

static void free_copies(struct call_copies *c)
{
    free(c->all);
    free(c->back);
    free(c->used);
}

/* The unused copy back whose bytes are `returned`[0, its size), within
 * what is left (`bytes`); -1 when none is. Every byte hashed is taken from
 * `*budget`; false in `*within` once it runs out. */
static long long matching_copy(struct grading *g, struct call_copies *c, const unsigned char *at,
                               size_t bytes, long long *budget, bool *within)
{
    unsigned long long hashed_size = 0, hash = 0;
    for (unsigned long long j = 0; j < c->n_back && *within; j++) {
        if (c->used[j] || c->back[j].bytes > bytes)
            continue;
        if (c->back[j].bytes != hashed_size) { /* the sizes come in runs: hashed once each */
            hashed_size = c->back[j].bytes;
            *budget -= (long long)hashed_size;
            *within = *budget >= 0;
            hash = g->api.kgemu_hash(at, hashed_size);
        }
        if (*within && hash == c->back[j].hash)
            return (long long)j;
    }
    return -1;
}

/* The bytes of the copies back matched with the returned array that came
 * back as the host left them (kgemu_copy_record.host_bytes: uploaded,
 * memset, copied within the device, in any pieces, unchanged by kernels). */
static unsigned long long host_bytes_back(const struct call_copies *c)
{
    unsigned long long bytes = 0;
    for (unsigned long long j = 0; j < c->n_back; j++)
        if (c->used[j])
            bytes += c->back[j].host_bytes;
    return bytes;
}

/* Matches `returned` with whole copies back, in order of its bytes: NULL,
 * or why not. */
static const char *match_copies(struct grading *g, struct call_copies *c, const void *returned,
                                size_t bytes)
{
    long long budget = (long long)bytes * HOST_PROVENANCE_HASH_FACTOR;
    bool within = true;
    for (size_t at = 0; at < bytes;) {
        long long j =
            matching_copy(g, c, (const unsigned char *)returned + at, bytes - at, &budget, &within);
        if (!within)
            return "it was made of more copies back than kgrade can match";
        if (j < 0)
            return c->n_back ? "its bytes are not those of the copies the call made from the "
                               "device"
                             : "the call made no copy from the device";
        c->used[j] = true;
        at += c->back[j].bytes;
    }
    if (host_bytes_back(c) > bytes / HOST_FROM_HOST_SHARE_DIVISOR)
        return "it copied back what the host had put on the device, unchanged by any kernel";
    return NULL;
}

/* Whether `returned` is made of bytes the session copied to the device,
 * moved unchanged (kgemu_served_uploaded_bytes: wherever they lie, by
 * whatever copies or copy kernels): NULL, or why (in `text`). */
static const char *uploaded_back(struct grading *g, struct host_job *job, const void *returned,
                                 size_t bytes, char *text, size_t size)
{
    struct kgemu_served_stats stats;
    unsigned long long matched = 0;
    if (g->api.kgemu_served_stats(job->served, &stats) != 0 ||
        g->api.kgemu_served_uploaded_bytes(job->served, returned, bytes, &matched) != 0)
        return "kgrade could not read what the program copied to the device";
    if (stats.uploaded_chunks_lost)
        return "the program copied more to the device than kgrade keeps track of";
    if (matched <= bytes / HOST_FROM_HOST_SHARE_DIVISOR)
        return NULL;
    char part[GRADER_NUMBER_TEXT_MAX], whole[GRADER_NUMBER_TEXT_MAX];
    snprintf(text, size,
             "it returned what the host had sent to the device (%s of its %s are bytes the "
             "program copied to the device, moved back unchanged)",
             grader_bytes_text(matched, false, part), grader_bytes_text(bytes, false, whole));
    return text;
}

bool host_returned_from_gpu(struct grading *g, struct host_job *job,
                            const struct host_call_stats *call, const void *returned, size_t bytes,
                            char *why, size_t size)
{
    struct call_copies c;
    char text[HOST_WHY_MAX];
    const char *wrong = read_copies(g, job, call, &c)
                            ? match_copies(g, &c, returned, bytes)
                            : "the call made more copies than kgrade keeps track of";
    free_copies(&c);
    if (wrong == NULL)
        wrong = uploaded_back(g, job, returned, bytes, text, sizeof text);
    if (wrong)
        snprintf(why, size,
                 "%s's result was not copied back from the GPU: %s (kgrade grades what the GPU "
                 "computed)",
                 g->exercise.numba_host.function, wrong);
    return wrong == NULL;
}

/* The first buffer argument of the call that did not reach the device
 * whole; -1 when all did. Its bytes that did, in `*sent`. */
static int input_not_sent(struct grading *g, struct host_job *job, const struct run_buffer *buffers,
                          unsigned long long *sent)
{
    const struct exercise_numba_host *h = &g->exercise.numba_host;
    for (int i = 0; i < h->argument_count; i++) {
        int index;
        if (exercise_host_argument(&g->exercise, i, &index) != HOST_ARGUMENT_BUFFER)
            continue;
        const struct run_buffer *b = &buffers[index];
        if (b->bytes < HOST_INPUT_CHECKED_BYTES)
            continue; /* too few chunks to tell */
        if (g->api.kgemu_served_uploaded_bytes(job->served, b->pristine, b->bytes, sent) != 0 ||
            b->bytes - *sent > b->bytes / HOST_INPUT_UNSENT_DIVISOR)
            return index;
    }
    return -1;
}

bool host_inputs_sent(struct grading *g, struct host_job *job, const struct run_buffer *buffers,
                      char *why, size_t size)
{
    unsigned long long sent = 0;
    int index = input_not_sent(g, job, buffers, &sent);
    if (index < 0)
        return true;
    char part[GRADER_NUMBER_TEXT_MAX], whole[GRADER_NUMBER_TEXT_MAX];
    grader_bytes_text(sent, false, part);
    grader_bytes_text(buffers[index].bytes, false, whole);
    snprintf(why, size,
             "%s's result was not computed on the GPU from its inputs: only %s of '%s' (%s) "
             "reached the device (kgrade grades what the GPU computes from the inputs: copy "
             "each of them to the device)",
             g->exercise.numba_host.function, part, buffers[index].spec->name, whole);
    return false;
}

void host_copies_text(const struct host_form *host, char *out, size_t size)
{
    const struct host_call_stats *s = &host->timed[HOST_STUDENT];
    const struct host_call_stats *r = &host->timed[HOST_REFERENCE];
    char to[GRADER_NUMBER_TEXT_MAX];
    grader_bytes_text(s->bytes[KGEMU_COPY_HTOD], false, to);
    snprintf(out, size,
             "%llu cop%s to the device (%s) and %llu back, against the reference's %llu "
             "and %llu",
             s->copies[KGEMU_COPY_HTOD], s->copies[KGEMU_COPY_HTOD] == 1 ? "y" : "ies", to,
             s->copies[KGEMU_COPY_DTOH], r->copies[KGEMU_COPY_HTOD], r->copies[KGEMU_COPY_DTOH]);
}

json_t *host_call_json(const struct host_call_stats *call)
{
    return json_pack(
        "{s:f, s:o, s:I, s:I, s:I, s:I, s:I}", "device_ms", call->device_ms, "host_cpu_ms",
        call->host_cpu_ms >= 0 ? json_real(call->host_cpu_ms) : json_null(), "copies_to_device",
        (json_int_t)call->copies[KGEMU_COPY_HTOD], "bytes_to_device",
        (json_int_t)call->bytes[KGEMU_COPY_HTOD], "copies_back",
        (json_int_t)call->copies[KGEMU_COPY_DTOH], "bytes_back",
        (json_int_t)call->bytes[KGEMU_COPY_DTOH], "launches", (json_int_t)call->launches);
}
