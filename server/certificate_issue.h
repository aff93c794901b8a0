/*
 * Internal to server/: issuing certificates when a graded submission
 * completes a course (every assessment passed at the assessment size).
 */
#ifndef KGRADE_SERVER_CERTIFICATE_ISSUE_H
#define KGRADE_SERVER_CERTIFICATE_ISSUE_H

#include "service.h"

/* After `user_id` passed `exercise` at the assessment size with
 * `submission`: issues the certificate of each course this completes and
 * the user has not got, recording `submission` as the one that earned it. */
void certificates_issue(struct service *s, struct db *db, int64_t user_id, const char *exercise,
                        int64_t submission);

#endif
