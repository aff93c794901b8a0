/*
 * Internal to server/: issuing certificates when a graded submission
 * completes a course (every assessment passed at the assessment size).
 */
#ifndef KGRADE_SERVER_CERTIFICATE_ISSUE_H
#define KGRADE_SERVER_CERTIFICATE_ISSUE_H

#include "service.h"

/* After `user_id` passed `exercise` at the assessment size with
 * `submission` (NULL and 0: after any change that may make their passes
 * count, such as an extension): issues the certificate of each course this
 * completes and the user has not got, recording `submission` (0: none) as
 * the one that earned it. */
void certificates_issue(struct service *s, struct db *db, int64_t user_id, const char *exercise,
                        int64_t submission);
/* The same for every student (after a course's or an exercise's dates moved). */
void certificates_issue_students(struct service *s, struct db *db);

#endif
