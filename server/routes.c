/*
 * The route table of the REST API (DESIGN.md), with who may call each, and
 * matching a method and path against it.
 */
#include "api.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ID_DIGITS_MAX 18
#define NAME_MAX_LEN  64 /* fits http_request.path_name */

static const struct http_route routes[] = {
    {"GET", "/api/v1/health", HTTP_PUBLIC, api_health},
    {"GET", "/api/v1/exercises", HTTP_PUBLIC, api_exercises},
    {"GET", "/api/v1/exercises/{name}", HTTP_PUBLIC, api_exercise},
    {"GET", "/api/v1/courses", HTTP_PUBLIC, api_courses},
    {"GET", "/api/v1/certificates/public-key", HTTP_PUBLIC, api_certificate_key},
    {"GET", "/api/v1/certificates/{name}", HTTP_PUBLIC, api_certificate},
    {"GET", "/api/v1/certificates", HTTP_SIGNED_IN, api_certificates_list},
    {"POST", "/api/v1/certificates/{name}/revoke", HTTP_INSTRUCTOR, api_certificate_revoke},
    {"GET", "/api/v1/scoreboard/course/{name}", HTTP_PUBLIC, api_course_scoreboard},
    {"GET", "/api/v1/scoreboard/{name}", HTTP_PUBLIC, api_scoreboard},
    {"GET", "/metrics", HTTP_PUBLIC, api_metrics},
    {"POST", "/api/v1/login", HTTP_PUBLIC, api_login},
    {"POST", "/api/v1/logout", HTTP_ACCOUNT, api_logout},
    {"GET", "/api/v1/me", HTTP_PUBLIC, api_me},
    {"POST", "/api/v1/me/password", HTTP_ACCOUNT, api_me_password},
    {"POST", "/api/v1/submissions", HTTP_SIGNED_IN, api_submit},
    {"GET", "/api/v1/submissions", HTTP_SIGNED_IN, api_submissions_list},
    {"GET", "/api/v1/submissions/{id}", HTTP_SIGNED_IN, api_submission},
    {"GET", "/api/v1/submissions/{id}/events", HTTP_SIGNED_IN, api_submission_events},
    /* trials: "Try at small n", never recorded (api_trials.c) */
    {"POST", "/api/v1/trials", HTTP_SIGNED_IN, api_trial_create},
    {"GET", "/api/v1/trials/{id}", HTTP_SIGNED_IN, api_trial},
    {"GET", "/api/v1/trials/{id}/events", HTTP_SIGNED_IN, api_trial_events},
    {"GET", "/api/v1/tokens", HTTP_SIGNED_IN, api_tokens_list},
    {"POST", "/api/v1/tokens", HTTP_SIGNED_IN, api_token_create},
    {"DELETE", "/api/v1/tokens/{id}", HTTP_SIGNED_IN, api_token_revoke},
    {"GET", "/api/v1/progress", HTTP_INSTRUCTOR, api_progress},
    {"GET", "/api/v1/users", HTTP_INSTRUCTOR, api_users_list},
    {"POST", "/api/v1/users", HTTP_INSTRUCTOR, api_user_create},
    {"POST", "/api/v1/users/import", HTTP_INSTRUCTOR, api_users_import},
    {"POST", "/api/v1/users/{name}/password", HTTP_INSTRUCTOR, api_user_password},
    {"POST", "/api/v1/submissions/{id}/hide", HTTP_INSTRUCTOR, api_submission_hide},
    {"POST", "/api/v1/submissions/{id}/regrade", HTTP_INSTRUCTOR, api_submission_regrade},
    {"GET", "/api/v1/export/grades.csv", HTTP_INSTRUCTOR, api_export_grades},
    {"GET", "/api/v1/audit", HTTP_INSTRUCTOR, api_audit},
    /* the instructors' tools: regrading an exercise */
    {"GET", "/api/v1/exercises/{name}/regrade", HTTP_INSTRUCTOR, api_exercise_regrade_preview},
    {"POST", "/api/v1/exercises/{name}/regrade", HTTP_INSTRUCTOR, api_exercise_regrade},
    /* dates, extensions, the gradebook */
    {"GET", "/api/v1/dates", HTTP_INSTRUCTOR, api_dates},
    {"PUT", "/api/v1/courses/{name}/dates", HTTP_INSTRUCTOR, api_course_dates_set},
    {"DELETE", "/api/v1/courses/{name}/dates", HTTP_INSTRUCTOR, api_course_dates_clear},
    {"PUT", "/api/v1/exercises/{name}/dates", HTTP_INSTRUCTOR, api_exercise_dates_set},
    {"DELETE", "/api/v1/exercises/{name}/dates", HTTP_INSTRUCTOR, api_exercise_dates_clear},
    {"GET", "/api/v1/extensions", HTTP_INSTRUCTOR, api_extensions_list},
    {"POST", "/api/v1/extensions", HTTP_INSTRUCTOR, api_extension_grant},
    {"DELETE", "/api/v1/extensions/{id}", HTTP_INSTRUCTOR, api_extension_revoke},
    {"GET", "/api/v1/gradebook", HTTP_INSTRUCTOR, api_gradebook},
    /* the web pages: each page path is the one shell that draws them */
    {"GET", "/static/{name}", HTTP_PUBLIC, web_static},
    {"GET", "/clients/kgrade_client.zip", HTTP_PUBLIC, web_python_client},
    {"GET", "/", HTTP_PUBLIC, web_page},
    {"GET", "/login", HTTP_PUBLIC, web_page},
    {"GET", "/exercises/{name}", HTTP_PUBLIC, web_page},
    {"GET", "/submissions", HTTP_PUBLIC, web_page},
    {"GET", "/submissions/{id}", HTTP_PUBLIC, web_page},
    {"GET", "/scoreboard/{name}", HTTP_PUBLIC, web_page},
    {"GET", "/scoreboard/course/{name}", HTTP_PUBLIC, web_page},
    {"GET", "/tokens", HTTP_PUBLIC, web_page},
    {"GET", "/password", HTTP_PUBLIC, web_page},
    {"GET", "/certificates/{name}", HTTP_PUBLIC, web_page},
    {"GET", "/instructor", HTTP_PUBLIC, web_page},
    {"GET", "/instructor/students/{name}", HTTP_PUBLIC, web_page},
    /* the instructors' tools: the audit log, the certificates issued */
    {"GET", "/instructor/audit", HTTP_PUBLIC, web_page},
    {"GET", "/instructor/certificates", HTTP_PUBLIC, web_page},
};

#define N_ROUTES ((int)(sizeof routes / sizeof routes[0]))

const struct http_route *http_route(int index)
{
    return &routes[index];
}

int http_route_count(void)
{
    return N_ROUTES;
}

/* One path segment against one pattern segment; fills {id} and {name}. */
static bool segment_matches(const char *pattern, size_t pn, const char *path, size_t n,
                            struct http_request *req)
{
    if (pn == 4 && strncmp(pattern, "{id}", 4) == 0) {
        if (n == 0 || n > ID_DIGITS_MAX)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!isdigit((unsigned char)path[i]))
                return false;
        req->path_id = strtoll(path, NULL, 10);
        return true;
    }
    if (pn == 6 && strncmp(pattern, "{name}", 6) == 0) {
        if (n == 0 || n > NAME_MAX_LEN)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!isalnum((unsigned char)path[i]) && path[i] != '-' && path[i] != '_' &&
                path[i] != '.')
                return false;
        return true;
    }
    return pn == n && strncmp(pattern, path, n) == 0;
}

/* The whole path against a pattern. The {name} is copied into `name`. */
static bool path_matches(const char *pattern, const char *path, struct http_request *req,
                         char *name)
{
    while (*pattern && *path) {
        if (*pattern != '/' || *path != '/')
            return false;
        pattern++, path++;
        size_t pn = strcspn(pattern, "/"), n = strcspn(path, "/");
        if (!segment_matches(pattern, pn, path, n, req))
            return false;
        if (pn == 6 && strncmp(pattern, "{name}", 6) == 0) {
            memcpy(name, path, n);
            name[n] = '\0';
        }
        pattern += pn, path += n;
    }
    return *pattern == '\0' && *path == '\0';
}

int http_route_find(const char *method, const char *path, struct http_request *req)
{
    int found = -1;
    for (int i = 0; i < N_ROUTES; i++) {
        if (!path_matches(routes[i].pattern, path, req, req->path_name))
            continue;
        if (strcmp(routes[i].method, method) == 0)
            return i;
        found = -2;
    }
    return found;
}
