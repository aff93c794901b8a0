/*
 * The worker's input and the names of its progress phases (job_protocol.h).
 */
#include "job_protocol.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = {"grade", "reference"};
static const char *const devices[] = {"auto", "cuda", "emulator"};
static const char *const timings[] = {"auto", "single", "repeated"};

const char *job_phase_name(enum grader_phase phase)
{
    switch (phase) {
    case GRADER_PHASE_COMPILE:
        return "compiling";
    case GRADER_PHASE_CHECK:
        return "checking";
    case GRADER_PHASE_TIMING:
        return "timing";
    default:
        return "running";
    }
}

static json_t *header_of(enum job_kind kind, const struct grader_request *r)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    json_t *head =
        json_pack("{s:s, s:s, s:s*, s:s, s:I, s:s, s:s, s:s*, s:s}", "kind", kinds[kind],
                  "exercise", r->exercise, "file_name", r->file_name, "seed", seed, "n",
                  (json_int_t)r->n, "device", devices[r->device], "timing", timings[r->timing],
                  "emulator", r->emulator, "language", grader_language_name(r->language));
    if (head && kind == JOB_GRADE)
        json_object_update_new(head,
                               json_pack("{s:s, s:O, s:b, s:b}", "version", r->version, "reference",
                                         r->reference, "correctness_only", r->correctness_only,
                                         "host_wall_time", r->host_wall_time));
    if (head && kind == JOB_GRADE && r->numba)
        json_object_set(head, "numba", (json_t *)r->numba);
    if (head)
        json_object_update_new(head, json_pack("{s:I, s:I}", "definition_bytes",
                                               (json_int_t)r->definition_size, "source_bytes",
                                               (json_int_t)r->size));
    return head;
}

char *job_encode(enum job_kind kind, const struct grader_request *r, size_t *size)
{
    json_t *head = header_of(kind, r);
    char *line = head ? json_dumps(head, JSON_COMPACT) : NULL;
    json_decref(head);
    if (!line)
        return NULL;
    size_t n = strlen(line);
    char *input = malloc(n + 1 + r->definition_size + r->size);
    if (input) {
        memcpy(input, line, n);
        input[n] = '\n';
        memcpy(input + n + 1, r->definition, r->definition_size);
        memcpy(input + n + 1 + r->definition_size, r->source, r->size);
        *size = n + 1 + r->definition_size + r->size;
    }
    free(line);
    return input;
}

static int index_of(const char *value, const char *const names[], int count)
{
    for (int i = 0; value && i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

/* The header's fields common to both kinds, and the byte counts. */
static bool unpack_header(json_t *head, struct grader_request *r, const char **names, json_int_t *n,
                          json_int_t bytes[2], char *error, size_t error_size)
{
    json_error_t jerr;
    snprintf(jerr.text, sizeof jerr.text, "no header line");
    if (!head ||
        json_unpack_ex(head, &jerr, 0, "{s:s, s:s, s?s, s:s, s:I, s:s, s:s, s?s, s:s, s:I, s:I}",
                       "kind", &names[0], "exercise", &r->exercise, "file_name", &r->file_name,
                       "seed", &names[1], "n", n, "device", &names[2], "timing", &names[3],
                       "emulator", &r->emulator, "language", &names[4], "definition_bytes",
                       &bytes[0], "source_bytes", &bytes[1]) != 0) {
        snprintf(error, error_size, "the job's header is not valid: %s", jerr.text);
        return false;
    }
    return true;
}

/* A grade job's version and reference. */
static bool unpack_reference(json_t *head, struct grader_request *r)
{
    r->version = json_string_value(json_object_get(head, "version"));
    r->reference = json_object_get(head, "reference");
    r->numba = json_object_get(head, "numba");
    r->correctness_only = json_is_true(json_object_get(head, "correctness_only"));
    r->host_wall_time = json_is_true(json_object_get(head, "host_wall_time"));
    return r->version && json_is_object(r->reference);
}

bool job_decode(const char *input, size_t size, enum job_kind *kind, struct grader_request *r,
                json_t **holder, char *error, size_t error_size)
{
    memset(r, 0, sizeof *r);
    const char *nl = memchr(input, '\n', size);
    *holder = nl ? json_loadb(input, (size_t)(nl - input), 0, NULL) : NULL;
    const char *names[5] = {NULL}; /* kind, seed, device, timing, language */
    json_int_t n = 0, bytes[2] = {-1, -1};
    if (!unpack_header(*holder, r, names, &n, bytes, error, error_size))
        return false;
    int k = index_of(names[0], kinds, 2), d = index_of(names[2], devices, 3),
        t = index_of(names[3], timings, 3);
    size_t body = size - (size_t)(nl + 1 - input);
    char *end;
    r->seed = strtoull(names[1], &end, 10);
    if (k < 0 || d < 0 || t < 0 || *end != '\0' || bytes[0] < 0 || bytes[1] < 0 ||
        (size_t)bytes[0] > body || (size_t)bytes[1] != body - (size_t)bytes[0] ||
        !grader_language_parse(names[4], &r->language) ||
        (k == JOB_GRADE && !unpack_reference(*holder, r))) {
        snprintf(error, error_size, "the job's header does not match its contents");
        return false;
    }
    *kind = (enum job_kind)k;
    r->seed_given = true;
    r->n = (int64_t)n;
    r->device = (enum grader_device)d;
    r->timing = (enum grader_timing)t;
    r->definition = nl + 1;
    r->definition_size = (size_t)bytes[0];
    r->source = nl + 1 + bytes[0];
    r->size = (size_t)bytes[1];
    return true;
}
