/*
 * `kgrade submit [--server URL] [--token TOKEN] --exercise ID [--language
 * cuda|numba] [--json] FILE.cu|FILE.py`: what a student's CI calls (and
 * what the Python client, clients/python/kgrade_client, does in the same
 * words). The server and the token come from the options, else from
 * KGRADE_URL and KGRADE_TOKEN; the language from --language, else the
 * file's extension (.py is Numba). Submits the kernel to a kgrade server,
 * shows the grading's progress on stderr as the event stream tells it, then
 * prints the result exactly as `kgrade grade` does and exits with the same
 * codes (0 passed, 1 another verdict, 3 internal_error), 2 when the server
 * refuses the request itself (an unknown exercise, a source too large),
 * and 4 when the server cannot be reached or refuses the token.
 *
 * Nothing is submitted twice: every attempt carries the same
 * Idempotency-Key, so a retry after a lost answer gets the same submission
 * back. A full queue or a rate limit (503, 429) is waited out as the
 * server's Retry-After says, a few times. A dropped event stream, or one
 * the server refuses (429: the user has too many open), is replaced by
 * asking for the submission until it is done.
 */
#include "api_client.h"
#include "cli.h"
#include "grade_report.h"
#include "grader/grader.h"
#include "source_file.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUSY_ATTEMPTS       6   /* submissions refused with 429 or 503 before giving up */
#define BUSY_WAIT_MAX       120 /* seconds waited for one Retry-After at most */
#define BUSY_WAIT_DEFAULT   5   /* seconds, when the server gives no Retry-After */
#define UNREACHABLE_RETRIES 3   /* consecutive transport failures tolerated (1+2+4 s) */
#define POLL_SECONDS        2   /* between looks at a submission without an event stream */

struct submit {
    struct api_client *client;
    int64_t id;
    char path[64]; /* /api/v1/submissions/ID */
    bool done;
    char phase[256]; /* the last progress shown, to show each change once */
};

static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fputs("kgrade submit: ", stderr);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The exit code of a request the server did not take. */
static int refusal_code(const struct api_reply *reply)
{
    switch (reply->status) {
    case 0:
    case 401:
    case 403:
    case 429:
    case 503:
        return CLI_EXIT_UNREACHABLE;
    default:
        return reply->status >= 500 ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
}

static void refusal_say(const struct api_client *client, const struct api_reply *reply)
{
    if (reply->status == 401 || reply->status == 403)
        say("%s refused the token: %s", api_client_server(client), reply->message);
    else if (reply->status == 0)
        say("%s", reply->message);
    else
        say("%s (HTTP %ld)", reply->message, reply->status);
}

/* Waits `attempt` seconds' worth of backoff: 1, 2, 4, 8 s. */
static void backoff(int attempt)
{
    sleep(1u << (attempt < 4 ? attempt : 4));
}

/* A request retried while the server cannot be reached. */
static bool request_patiently(struct api_client *client, const char *method, const char *path,
                              const json_t *body, const char *key, struct api_reply *reply)
{
    for (int attempt = 0;; attempt++) {
        if (api_client_request(client, method, path, body, key, reply))
            return true;
        if (attempt >= UNREACHABLE_RETRIES)
            return false;
        say("%s; trying again", reply->message);
        api_reply_free(reply);
        backoff(attempt);
    }
}

static void idempotency_key(char *key, size_t size)
{
    unsigned char random[16];
    randombytes_buf(random, sizeof random);
    sodium_bin2hex(key, size, random, sizeof random);
}

/* Posts the submission; fills s->id. Returns an exit code, or -1 when it
 * was taken. */
static int post(struct submit *s, const char *exercise, enum grader_language language,
                const struct source_file *file)
{
    json_t *source = json_stringn(file->data, file->size);
    if (!source) {
        say("the file is not UTF-8 text, which the server refuses: save it as UTF-8");
        return CLI_EXIT_USAGE;
    }
    json_t *body = json_pack("{s:s, s:o}", "exercise", exercise, "source", source);
    /* Sent only when not the default, so a server from before Numba still
     * takes a CUDA C submission. */
    if (body && language != GRADER_LANGUAGE_CUDA)
        json_object_set_new(body, "language", json_string(grader_language_name(language)));
    char key[33];
    idempotency_key(key, sizeof key);
    int code = CLI_EXIT_INTERNAL;
    for (int busy = 0; body; busy++) {
        struct api_reply reply;
        bool reached =
            request_patiently(s->client, "POST", "/api/v1/submissions", body, key, &reply);
        json_t *id = json_object_get(reply.body, "id");
        if (reached && (reply.status == 202 || reply.status == 200) && json_is_integer(id)) {
            s->id = (int64_t)json_integer_value(id);
            code = -1;
        } else if (reached && (reply.status == 429 || reply.status == 503) &&
                   busy + 1 < BUSY_ATTEMPTS) {
            long wait = reply.retry_after >= 0 ? reply.retry_after : BUSY_WAIT_DEFAULT;
            wait = wait < 1 ? 1 : wait > BUSY_WAIT_MAX ? BUSY_WAIT_MAX : wait;
            say("%s; trying again in %ld s", reply.message, wait);
            api_reply_free(&reply);
            sleep((unsigned)wait);
            continue;
        } else if (reached && reply.status >= 200 && reply.status <= 299) {
            say("%s did not answer like a kgrade server (no submission id)",
                api_client_server(s->client));
        } else {
            refusal_say(s->client, &reply);
            code = refusal_code(&reply);
        }
        api_reply_free(&reply);
        break;
    }
    json_decref(body);
    return code;
}

/* ": the reference, about 12 s" or ": your kernel" after a running line. */
static void describe_step(const json_t *data, char *out, size_t size)
{
    const char *step = json_string_value(json_object_get(data, "step"));
    json_t *expected = json_object_get(data, "expected_seconds");
    out[0] = '\0';
    if (!step)
        return;
    int n = snprintf(out, size, ": %s",
                     strcmp(step, "reference") == 0 ? "the reference" : "your kernel");
    if (json_is_number(expected) && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, ", about %.*f s",
                 json_number_value(expected) < 10 ? 1 : 0, json_number_value(expected));
}

static void show_progress(struct submit *s, const char *event, const json_t *data)
{
    char line[256], step[64];
    json_t *position = json_object_get(data, "position");
    json_t *c = json_object_get(data, "case"), *cases = json_object_get(data, "cases");
    const char *what = json_string_value(json_object_get(data, "what"));
    describe_step(data, step, sizeof step);
    if (json_is_integer(position))
        snprintf(line, sizeof line, "%s, position %" JSON_INTEGER_FORMAT " in the queue",
                 strcmp(event, "position") == 0 ? "queued" : event, json_integer_value(position));
    else if (json_is_integer(c) && json_is_integer(cases))
        snprintf(line, sizeof line,
                 "%.20s, case %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT " (%.100s)%s",
                 event, json_integer_value(c), json_integer_value(cases), what ? what : "", step);
    else
        snprintf(line, sizeof line, "%.40s", event);
    if (strcmp(line, s->phase) != 0)
        say("%s", line);
    snprintf(s->phase, sizeof s->phase, "%s", line);
}

static bool on_event(void *context, const char *event, const char *data, size_t size)
{
    struct submit *s = context;
    json_t *json = json_loadb(data, size, 0, NULL);
    if (strcmp(event, "done") == 0) {
        s->done = true;
        say("graded: %s", json_string_value(json_object_get(json, "verdict"))
                              ? json_string_value(json_object_get(json, "verdict"))
                              : "done");
    } else {
        show_progress(s, event, json);
    }
    json_decref(json);
    return !s->done;
}

/* The submission as the server has it now; NULL with the exit code. */
static json_t *fetch(struct submit *s, int *code)
{
    struct api_reply reply;
    if (request_patiently(s->client, "GET", s->path, NULL, NULL, &reply) && reply.status == 200 &&
        json_is_object(reply.body)) {
        json_t *submission = json_incref(reply.body);
        api_reply_free(&reply);
        return submission;
    }
    refusal_say(s->client, &reply);
    *code = reply.status == 200 ? CLI_EXIT_INTERNAL : refusal_code(&reply);
    api_reply_free(&reply);
    return NULL;
}

static bool is_done(const json_t *submission)
{
    const char *status = json_string_value(json_object_get(submission, "status"));
    return status && strcmp(status, "done") == 0;
}

/* Follows the grading until it is done; returns the submission, or NULL
 * with the exit code. */
static json_t *follow(struct submit *s, int *code)
{
    char events[96];
    snprintf(events, sizeof events, "%s/events", s->path);
    for (int failures = 0, busy = 0;;) {
        struct api_reply reply;
        bool stopped = api_client_events(s->client, events, on_event, s, &reply);
        api_reply_free(&reply);
        bool refused = reply.status == 429 || reply.status == 503; /* too many streams: poll */
        if (!stopped && reply.status != 0 && reply.status != 200 && !refused) {
            refusal_say(s->client, &reply);
            *code = refusal_code(&reply);
            return NULL;
        }
        json_t *submission = fetch(s, code);
        if (!submission || is_done(submission))
            return submission;
        json_decref(submission);
        failures = stopped || reply.status == 200 || refused ? 0 : failures + 1;
        if (failures > 0)
            say("the event stream is not reachable (%s); asking again", reply.message);
        if (refused && busy++ == 0)
            say("%s; asking for the submission every %d s instead", reply.message, POLL_SECONDS);
        sleep(POLL_SECONDS);
    }
}

static int report(const json_t *submission, const char *path, const struct source_file *file,
                  bool as_json)
{
    json_t *result = json_object_get(submission, "result");
    if (!json_is_object(result)) {
        say("the server holds no result for submission %" JSON_INTEGER_FORMAT,
            json_integer_value(json_object_get(submission, "id")));
        return CLI_EXIT_INTERNAL;
    }
    char *copy = strdup(path);
    grade_report_print(result, copy ? basename(copy) : path, file, as_json);
    free(copy);
    return grade_report_exit_code(json_string_value(json_object_get(result, "verdict")));
}

static int submit_file(struct submit *s, const struct cli_args *args,
                       const struct source_file *file)
{
    int code = post(s, args->value[OPT_EXERCISE], cli_language(args), file);
    if (code >= 0)
        return code;
    snprintf(s->path, sizeof s->path, "/api/v1/submissions/%" PRId64, s->id);
    say("submitted as %" PRId64 ": %s%s", s->id, api_client_server(s->client), s->path);
    json_t *submission = follow(s, &code);
    if (!submission)
        return code;
    code = report(submission, args->positional[0], file, cli_given(args, OPT_JSON));
    json_decref(submission);
    return code;
}

/* An option's value, else the environment variable's; NULL when neither
 * is set or both are empty. */
static const char *setting(const struct cli_args *args, enum cli_option_id id, const char *variable)
{
    const char *value = cli_given(args, id) ? args->value[id] : getenv(variable);
    return value && value[0] ? value : NULL;
}

int cmd_submit(const struct cli_args *args)
{
    char why[512];
    struct source_file file;
    const char *server = setting(args, OPT_SERVER, "KGRADE_URL");
    const char *token = setting(args, OPT_TOKEN, "KGRADE_TOKEN");
    if (!server || !token) {
        say("--server and --token are required (or KGRADE_URL and KGRADE_TOKEN)");
        return CLI_EXIT_USAGE;
    }
    if (!source_file_read(args->positional[0], &file, why, sizeof why)) {
        say("%s", why);
        return CLI_EXIT_USAGE;
    }
    if (sodium_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        source_file_free(&file);
        say("libsodium or libcurl could not start");
        return CLI_EXIT_INTERNAL;
    }
    struct submit s = {.client = api_client_new(server, token, why, sizeof why)};
    int code = CLI_EXIT_USAGE;
    if (s.client)
        code = submit_file(&s, args, &file);
    else
        say("%s", why);
    api_client_free(s.client);
    curl_global_cleanup();
    source_file_free(&file);
    return code;
}
