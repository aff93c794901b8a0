/*
 * The Numba front end's last word, as the service takes it
 * (grader_numba_answer in grader.h).
 *
 * grader/numba_compile.py writes {"phase": "started"} on its result
 * descriptor before it imports the student's module; from then on the
 * module's code shares the process and may write on that descriptor
 * itself. So a result after "started" is the student's: it is rebuilt
 * from the fields kgrade reads (the exercise's kernels only, each text
 * within its limit), and anything kgrade's front end would never write
 * (an "internal_error", an unknown status, a malformed field) is the
 * student's compile_error, in kgrade's words, never in theirs. Only a
 * result before "started" can be kgrade's own failure. The host form's
 * "ok" keeps "form" and "function" only when they are "host" and the
 * exercise's host function (the request's "numba_host"); otherwise they
 * are dropped, and the result must be the kernel form's.
 */
#include "grader.h"
#include "numba_front.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ANSWER_MESSAGE_MAX 400  /* numba_compile.py's MESSAGE_MAX */
#define ANSWER_LOG_MAX     8000 /* numba_compile.py's LOG_MAX */
#define ANSWER_VERSION_MAX 40
#define ANSWER_LINE_MAX    1000000

/* What copy_text does with a text over its limit. */
enum over_limit { REFUSE, CUT };

/* A copy of the string `key` of `said` if it has at least one byte and no
 * NUL, into `answer`, of at most `max` bytes: one over is refused, or cut
 * at a character's start (a sentence); false if it is absent or refused. */
static bool copy_text(json_t *answer, const json_t *said, const char *key, size_t max,
                      enum over_limit over)
{
    const json_t *value = json_object_get(said, key);
    const char *text = numba_text_within(value, over == REFUSE ? max : SIZE_MAX);
    size_t n = json_string_length(value);
    if (!text)
        return false;
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--; /* UTF-8: not inside a character */
    }
    json_object_set_new(answer, key, json_stringn(text, n));
    return true;
}

static void copy_position(json_t *answer, const json_t *said, const char *key)
{
    json_int_t value = json_integer_value(json_object_get(said, key));
    if (value > 0 && value < ANSWER_LINE_MAX)
        json_object_set_new(answer, key, json_integer(value));
}

/* The channel's misuse, as the student's compile error. */
static json_t *wrote_on_channel(const char *what)
{
    char message[GRADER_MESSAGE_MAX];
    snprintf(message, sizeof message,
             "the module wrote on kgrade's channel (file descriptor 3) %.300s: a submission must "
             "leave it to kgrade's front end",
             what);
    return json_pack("{s:s, s:s}", "status", "compile_error", "message", message);
}

/* "rejected" or "compile_error": the front end's (or the module's) own
 * sentence about the student's code. */
static json_t *failure_answer(const char *status, const json_t *said)
{
    json_t *answer = json_pack("{s:s}", "status", status);
    if (!copy_text(answer, said, "message", ANSWER_MESSAGE_MAX, CUT)) {
        json_decref(answer);
        return wrote_on_channel("a failure without a valid message");
    }
    copy_text(answer, said, "log", ANSWER_LOG_MAX, CUT);
    copy_position(answer, said, "line");
    copy_position(answer, said, "column");
    return answer;
}

/* Kernel `name`'s PTX, entry and form (its flags, false when absent),
 * from `said` into `answer`. */
static bool copy_kernel(json_t *answer, const json_t *said, const char *name)
{
    static const char *const texts[] = {"ptx", "entries"};
    static const size_t maxima[] = {NUMBA_PTX_MAX, NUMBA_ENTRY_MAX};
    static const char *const flags[] = {"vectorized", "reduce"};
    for (int i = 0; i < 2; i++)
        if (!copy_text(json_object_get(answer, texts[i]), json_object_get(said, texts[i]), name,
                       maxima[i], REFUSE))
            return false;
    for (int i = 0; i < 2; i++) {
        const json_t *flag = json_object_get(json_object_get(said, flags[i]), name);
        if (flag && !json_is_boolean(flag))
            return false;
        json_object_set_new(json_object_get(answer, flags[i]), name,
                            json_boolean(json_is_true(flag)));
    }
    return true;
}

/* The numba version the front end says, or "". */
static void copy_version(json_t *answer, const json_t *said)
{
    if (!copy_text(answer, said, "numba", ANSWER_VERSION_MAX, CUT))
        json_object_set_new(answer, "numba", json_string(""));
}

/* "ok": every kernel `asked` names, nothing else. */
static json_t *ok_answer(const json_t *asked, const json_t *said)
{
    json_t *answer = json_pack("{s:s, s:{}, s:{}, s:{}, s:{}}", "status", "ok", "ptx", "entries",
                               "vectorized", "reduce");
    size_t i;
    const json_t *kernel;
    json_array_foreach(json_object_get(asked, "kernels"), i, kernel)
    {
        const char *name = json_string_value(json_object_get(kernel, "name"));
        if (!name || !copy_kernel(answer, said, name)) {
            char what[200];
            snprintf(what, sizeof what, "a result without a valid PTX and entry for '%.100s'",
                     name ? name : "");
            json_decref(answer);
            return wrote_on_channel(what);
        }
    }
    copy_version(answer, said);
    return answer;
}

/* The host form's "ok" ({"form": "host", "function": NAME}: the module
 * defines the exercise's host function, no kernel compiled) when `said`
 * says it of the function `asked` names; else NULL: "form" and "function"
 * are dropped and the answer is the kernel form's. */
static json_t *host_answer(const json_t *asked, const json_t *said)
{
    const char *form = json_string_value(json_object_get(said, "form"));
    const char *function = json_string_value(json_object_get(said, "function"));
    const char *wanted =
        json_string_value(json_object_get(json_object_get(asked, "numba_host"), "function"));
    if (!form || strcmp(form, "host") != 0 || !function || !wanted || strcmp(function, wanted) != 0)
        return NULL;
    json_t *answer =
        json_pack("{s:s, s:s, s:s}", "status", "ok", "form", "host", "function", wanted);
    copy_version(answer, said);
    return answer;
}

json_t *grader_numba_answer(const json_t *asked, const json_t *said, bool started, char *error,
                            size_t error_size)
{
    const char *status = json_string_value(json_object_get(said, "status"));
    if (!started) { /* only kgrade's code has run: its failure, or nothing said */
        const char *message = json_string_value(json_object_get(said, "message"));
        snprintf(error, error_size, "the Numba front end failed: %.300s",
                 status && strcmp(status, "internal_error") == 0 && message
                     ? message
                     : "it gave no result before numba was ready");
        return NULL;
    }
    if (!status)
        return wrote_on_channel("a result without a status");
    if (strcmp(status, "ok") == 0) {
        json_t *host = host_answer(asked, said);
        return host ? host : ok_answer(asked, said);
    }
    if (strcmp(status, "rejected") == 0 || strcmp(status, "compile_error") == 0)
        return failure_answer(status, said);
    if (strcmp(status, "internal_error") == 0)
        return wrote_on_channel("a result saying that kgrade failed, which kgrade's front end "
                                "never says once the module runs");
    return wrote_on_channel("a result of an unknown status");
}
