/*
 * The body of a submission or a trial, checked (submission_body.h).
 */
#include "submission_body.h"

#include "exercise_cache.h"
#include "grader/grader.h"

#include <stdio.h>
#include <string.h>

/* The submission's language: "language" when given (a string that names
 * one), else "cuda"; false after answering 422. */
static bool language_of(json_t *body, struct http_response *res, const char **language)
{
    json_t *given = json_object_get(body, "language");
    enum grader_language parsed;
    *language = grader_language_name(GRADER_LANGUAGE_CUDA);
    if (!given)
        return true;
    if (json_is_string(given) && grader_language_parse(json_string_value(given), &parsed)) {
        *language = grader_language_name(parsed);
        return true;
    }
    if (json_is_string(given))
        http_error(res, 422, "unknown_language",
                   "\"language\" is \"cuda\" (CUDA C, the default) or \"numba\" (Numba CUDA "
                   "Python), not '%.32s'",
                   json_string_value(given));
    else
        http_error(res, 422, "unknown_language",
                   "\"language\" is a string: \"cuda\" (CUDA C, the default) or \"numba\" (Numba "
                   "CUDA Python)");
    return false;
}

/* Whether the exercise (its cached entry) takes submissions in `language`;
 * after answering 422 when not, saying which it takes. */
static bool accepts(const json_t *exercise, const char *language, struct http_response *res)
{
    const json_t *languages = json_object_get(exercise, "languages"), *l;
    size_t i;
    char list[128] = "";
    json_array_foreach(languages, i, l)
    {
        const char *name = json_string_value(l);
        if (name && strcmp(name, language) == 0)
            return true;
        size_t used = strlen(list);
        if (name)
            snprintf(list + used, sizeof list - used, "%s%s", used ? " and " : "", name);
    }
    http_error(res, 422, "language_not_accepted",
               "the exercise '%.64s' takes %s submissions only, not %s",
               json_string_value(json_object_get(exercise, "id")), list[0] ? list : "no", language);
    return false;
}

json_t *submission_body(struct http_request *req, struct http_response *res,
                        struct submission_body *b)
{
    json_t *body = http_json_body(req, res);
    if (!body)
        return NULL;
    json_t *s = json_object_get(body, "source");
    if (json_unpack(body, "{s:s, s:s}", "exercise", &b->exercise, "source", &b->source) != 0) {
        http_error(res, 422, "invalid",
                   "send {\"exercise\": \"an id\", \"source\": \"the kernel\", \"language\"?: "
                   "\"cuda\" or \"numba\"}");
    } else if (!language_of(body, res, &b->language)) {
        /* answered */
    } else if ((b->size = json_string_length(s)) == 0) {
        http_error(res, 422, "empty_source", "the source is empty");
    } else if (b->size > GRADER_SOURCE_MAX_BYTES) {
        http_error(res, 413, "source_too_large",
                   "the source is %zu bytes, over %d: submit only your kernel", b->size,
                   GRADER_SOURCE_MAX_BYTES);
    } else {
        json_t *e = exercise_cache_find(req->service->config.exercises, b->exercise);
        bool taken = e && accepts(e, b->language, res);
        if (!e)
            http_error(res, 422, "unknown_exercise",
                       "no exercise '%.64s': see GET /api/v1/exercises", b->exercise);
        json_decref(e);
        if (taken)
            return body;
    }
    json_decref(body);
    return NULL;
}
