/*
 * Internal to server/: the gradebook of a course, as GET /api/v1/gradebook
 * answers it and the wide CSV export writes it: every student (every
 * account with the role student, whether they submitted or not), the
 * course's exercises in its order (sections, assessments marked, with
 * their effective dates), and per student and exercise the standing that
 * counts (db_progress: the best counted pass, late marks), how many
 * assessments they passed and their certificate.
 */
#ifndef KGRADE_SERVER_GRADEBOOK_H
#define KGRADE_SERVER_GRADEBOOK_H

#include "service.h"

#include <jansson.h>

/* {course: {id, title} or null, courses: [{id, title}],
 *  exercises: [{id, title, section, assessment, opens, deadline}],
 *  students: [{name, display_name, assessments_passed,
 *              certificate: {id, issued_at, revoked} or null,
 *              cells: {EXERCISE: {status, best_ratio, submissions, late,
 *                                 submission, best_submission, best_at, first_at}}}]}
 * of `course` (NULL: the first course; every exercise when there is no
 * course). NULL with a sentence in `error` when no course has that id. */
json_t *gradebook_build(struct service *s, struct db *db, const char *course, char *error,
                        size_t error_size);

#endif
