/*
 * Internal to server/: the handlers of the REST API (DESIGN.md), one file
 * per area: api_public.c (health, exercises, scoreboards), api_auth.c
 * (login, logout, tokens), api_password.c (changing one's password),
 * api_submissions.c (submit, read, events),
 * api_instructor.c (progress, users, the audit log), api_import.c
 * (accounts in bulk from CSV), api_hide.c (hiding a submission, with a
 * reason), api_regrade.c (one submission, or an exercise), api_dates.c
 * (opening times, deadlines, extensions), api_gradebook.c (the gradebook,
 * the CSV export), metrics.c.
 */
#ifndef KGRADE_SERVER_API_H
#define KGRADE_SERVER_API_H

#include "http.h"

http_handler api_health, api_exercises, api_exercise, api_scoreboard, api_course_scoreboard;
http_handler api_login, api_logout, api_tokens_list, api_token_create, api_token_revoke;
http_handler api_me_password;
http_handler api_submit, api_submissions_list, api_submission, api_submission_events;
http_handler api_progress, api_users_list, api_user_create, api_user_password;
http_handler api_submission_hide, api_submission_regrade, api_export_grades, api_audit;
http_handler api_metrics, api_me, api_courses, api_certificate_key;
/* 503 queue_full with Retry-After: the grading queue (submissions and
 * trials) holds all it may (api_submissions.c). */
#define API_RETRY_FULL_QUEUE_S 30
void api_queue_full(struct http_response *res);
/* Whether the exercise takes the caller's submissions and trials now: an
 * instructor's or an admin's always, a student's from its opening time on;
 * false after answering 403 not_open with that time (api_submissions.c). */
bool api_exercise_open_to(struct http_request *req, struct http_response *res, struct db *db,
                          const char *exercise);
/* Trials: graded at the correctness sizes, never recorded (api_trials.c). */
http_handler api_trial_create, api_trial, api_trial_events;
http_handler api_certificates_list, api_certificate, api_certificate_revoke;
/* Hiding and regrading (api_hide.c, api_regrade.c). */
http_handler api_exercise_regrade, api_exercise_regrade_preview;
/* The longest reason kept for a hide or a certificate's revocation, in bytes. */
#define API_REASON_MAX 500
/* The request's JSON object, or an empty one when it has no body; NULL
 * after answering 400 or 415. */
json_t *api_optional_body(struct http_request *req, struct http_response *res);
/* "submission 12 of sam", for the audit log; false when there is none. */
bool api_submission_target(struct db *db, int64_t id, char *target, size_t size);
http_handler api_users_import;
/* Dates, extensions and the gradebook (api_dates.c, api_gradebook.c). */
http_handler api_dates, api_course_dates_set, api_course_dates_clear, api_exercise_dates_set;
http_handler api_exercise_dates_clear, api_extensions_list, api_extension_grant;
http_handler api_extension_revoke, api_gradebook;
/* The web pages (web_files.c). */
http_handler web_page, web_static, web_python_client;

#endif
