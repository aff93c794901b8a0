/*
 * Issuing certificates (certificate_issue.h): after a passing
 * assessment-size result, every course whose assessments the student has
 * now all passed gets its certificate, at once. Exactly one per student
 * and course: the database's UNIQUE (user, course) decides between two
 * workers finishing together, and later passes find it there. Only
 * counted passes count (not late: db_course_best); when an instructor
 * grants an extension or moves a deadline, the students it concerns are
 * considered again at once, so a pass it makes count issues the
 * certificate then, with no regrade.
 */
#include "certificate_issue.h"

#include "certificate.h"
#include "course_dates.h"
#include "grader/grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COURSE_ASSESSMENTS_MAX 32

static bool is_assessment(const json_t *course, const char *exercise)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(course, "assessments"), i,
                       a) if (strcmp(json_string_value(a), exercise) == 0) return true;
    return false;
}

static void issue(struct service *s, struct db *db, const struct db_user *user,
                  const json_t *course, const struct db_certificate_assessment *best, int n,
                  int64_t submission)
{
    char id[CERTIFICATE_ID_LENGTH + 1], signature[CERTIFICATE_SIGNATURE_BASE64_MAX];
    struct certificate_assessment signed_assessments[COURSE_ASSESSMENTS_MAX];
    for (int i = 0; i < n; i++)
        signed_assessments[i] =
            (struct certificate_assessment){best[i].exercise, best[i].submission, best[i].ratio};
    certificate_new_id(id);
    struct certificate_facts facts = {
        .id = id,
        .course_id = json_string_value(json_object_get(course, "id")),
        .course_title = json_string_value(json_object_get(course, "title")),
        .student = user->display_name,
        .issued_at_ms = db_now_ms(),
        .assessments = signed_assessments,
        .n_assessments = n,
    };
    char *payload = certificate_payload(&facts);
    if (!payload)
        return;
    certificate_sign(&s->signing_key, payload, signature);
    struct db_certificate c = {.id = id,
                               .course = facts.course_id,
                               .payload = payload,
                               .signature = signature,
                               .user_id = user->id,
                               .issued_at = facts.issued_at_ms,
                               .assessments = best,
                               .n_assessments = n,
                               .earned_by = submission};
    enum db_outcome o = db_certificate_add(db, &c);
    if (o == DB_OK)
        fprintf(stderr, "certificate %s issued to %s for %s\n", id, user->name, facts.course_id);
    else if (o == DB_FAILED)
        fprintf(stderr, "the certificate of %s for %s could not be stored: %s\n", user->name,
                facts.course_id, db_error(db));
    free(payload);
}

static void consider(struct service *s, struct db *db, const struct db_user *user,
                     const json_t *course, int64_t submission)
{
    const char *ids[COURSE_ASSESSMENTS_MAX];
    struct db_certificate_assessment best[COURSE_ASSESSMENTS_MAX];
    json_t *list = json_object_get(course, "assessments"), *a;
    size_t i;
    int n = 0;
    json_array_foreach(list, i, a) if (n < COURSE_ASSESSMENTS_MAX) ids[n++] = json_string_value(a);
    if (db_certificate_exists(db, user->id, json_string_value(json_object_get(course, "id"))) ||
        db_course_best(db, user->id, ids, n, best) != DB_OK)
        return;
    issue(s, db, user, course, best, n, submission);
}

/* `user`'s certificates among `courses`: of those `exercise` is an
 * assessment of (NULL: every course). */
static void consider_courses(struct service *s, struct db *db, const struct db_user *user,
                             const json_t *courses, const char *exercise, int64_t submission)
{
    size_t i;
    json_t *course;
    json_array_foreach(courses, i, course)
    {
        if (!json_object_get(course, "error") && (!exercise || is_assessment(course, exercise)))
            consider(s, db, user, course, submission);
    }
}

void certificates_issue(struct service *s, struct db *db, int64_t user_id, const char *exercise,
                        int64_t submission)
{
    struct db_user user;
    if (db_user_by_id(db, user_id, &user) != DB_OK)
        return;
    course_dates_sync(s, db); /* lateness reads the files' dates */
    json_t *courses = grader_courses(s->config.exercises);
    consider_courses(s, db, &user, courses, exercise, submission);
    json_decref(courses);
}

/* The courses read and the dates synced once for all the students. */
void certificates_issue_students(struct service *s, struct db *db)
{
    course_dates_sync(s, db);
    json_t *users = db_users_list(db), *u, *courses = grader_courses(s->config.exercises);
    size_t i;
    struct db_user user;
    json_array_foreach(users, i, u)
    {
        if (strcmp(json_string_value(json_object_get(u, "role")), "student") == 0 &&
            db_user_by_name(db, json_string_value(json_object_get(u, "name")), &user, NULL, 0) ==
                DB_OK)
            consider_courses(s, db, &user, courses, NULL, 0);
    }
    json_decref(courses);
    json_decref(users);
}
