/*
 * The worker's input and the names of its progress phases (job_protocol.h).
 */
#include "job_protocol.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *job_encode(const struct grader_request *r, size_t *size)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    json_t *head =
        json_pack("{s:s, s:s, s:s*, s:s, s:I, s:s, s:s, s:s*, s:I}", "exercises", r->exercises,
                  "exercise", r->exercise, "file_name", r->file_name, "seed", seed, "n",
                  (json_int_t)r->n, "device", devices[r->device], "timing", timings[r->timing],
                  "emulator", r->emulator, "source_bytes", (json_int_t)r->size);
    char *line = head ? json_dumps(head, JSON_COMPACT) : NULL;
    json_decref(head);
    if (!line)
        return NULL;
    size_t n = strlen(line);
    char *input = malloc(n + 1 + r->size);
    if (input) {
        memcpy(input, line, n);
        input[n] = '\n';
        memcpy(input + n + 1, r->source, r->size);
        *size = n + 1 + r->size;
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

bool job_decode(const char *input, size_t size, struct grader_request *r, json_t **holder,
                char *error, size_t error_size)
{
    memset(r, 0, sizeof *r);
    const char *nl = memchr(input, '\n', size);
    json_error_t jerr;
    snprintf(jerr.text, sizeof jerr.text, "no header line");
    *holder = nl ? json_loadb(input, (size_t)(nl - input), 0, &jerr) : NULL;
    const char *seed = NULL, *device = NULL, *timing = NULL;
    json_int_t n = 0, bytes = -1;
    if (!*holder ||
        json_unpack_ex(*holder, &jerr, 0, "{s:s, s:s, s?s, s:s, s:I, s:s, s:s, s?s, s:I}",
                       "exercises", &r->exercises, "exercise", &r->exercise, "file_name",
                       &r->file_name, "seed", &seed, "n", &n, "device", &device, "timing", &timing,
                       "emulator", &r->emulator, "source_bytes", &bytes) != 0) {
        snprintf(error, error_size, "the job's header is not valid: %s", jerr.text);
        return false;
    }
    int d = index_of(device, devices, 3), t = index_of(timing, timings, 3);
    char *end;
    r->seed = strtoull(seed, &end, 10);
    if (d < 0 || t < 0 || *end != '\0' || bytes < 0 ||
        (size_t)bytes != size - (size_t)(nl + 1 - input)) {
        snprintf(error, error_size, "the job's header does not match its contents");
        return false;
    }
    r->seed_given = true;
    r->n = (int64_t)n;
    r->device = (enum grader_device)d;
    r->timing = (enum grader_timing)t;
    r->source = nl + 1;
    r->size = (size_t)bytes;
    return true;
}
