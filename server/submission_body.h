/*
 * Internal to server/: the body of a submission or a trial (POST
 * /api/v1/submissions, POST /api/v1/trials), checked: {"exercise": an id
 * the exercise cache knows, "source": 1 to GRADER_SOURCE_MAX_BYTES bytes,
 * "language"?: "cuda" (the default) or "numba", one the exercise takes},
 * each refusal answered with its status and a sentence (422, 413).
 */
#ifndef KGRADE_SERVER_SUBMISSION_BODY_H
#define KGRADE_SERVER_SUBMISSION_BODY_H

#include "http.h"

/* What a submission's body holds, checked. */
struct submission_body {
    const char *exercise, *source, *language;
    size_t size;
};

/* The body of the request, checked (`b` points into it: json_decref the
 * result after); NULL after answering. */
json_t *submission_body(struct http_request *req, struct http_response *res,
                        struct submission_body *b);

#endif
