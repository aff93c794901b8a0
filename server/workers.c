/*
 * The worker pool: each worker takes the next queued submission or trial
 * (fairly between users: db_submission_claim), grades it in its language
 * in the sandbox (grading_job.c), a trial at its exercise's correctness
 * sizes only, publishes its progress as events and stores its result (a
 * trial's in the trials table, where nothing that counts reads it).
 * A worker that finds the queue empty waits until a submission is queued
 * (or a second passes, so a submission queued by another process is found
 * too). Stopping lets each worker finish the job it has.
 *
 * A grading interrupted by no fault of the student's, its worker process
 * killed or crashed, or the server itself dead (found at the next start),
 * is graded again once: the second interruption is stored as
 * internal_error with the reason, so a job that kills the server each time
 * is not retried for ever.
 */
#include "certificate_issue.h"
#include "events.h"
#include "metrics.h"
#include "result_compact.h"
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IDLE_WAIT_SECONDS 1

struct worker {
    struct service *service;
    char name[32];
    int64_t submission;    /* the one being graded (or trial), for progress */
    enum events_kind kind; /* which of the two it is */
};

static enum events_kind kind_of(const struct db_job *job)
{
    return job->trial ? EVENTS_TRIAL : EVENTS_SUBMISSION;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_progress(void *context, const char *phase, const json_t *line)
{
    struct worker *w = context;
    json_t *data = json_deep_copy(line);
    json_object_del(data, "phase");
    json_object_set_new(data, "id", json_integer((json_int_t)w->submission));
    events_publish(w->service->events, w->kind, w->submission, phase, data);
    json_decref(data);
}

/* A trial's result, in the trials table, compacted as a submission's. */
static bool store_trial(const char *who, struct db *db, const struct db_job *job, json_t *result,
                        const char *verdict)
{
    char *text = result_compact_text(result, SERVICE_RESULT_STORED_MAX);
    bool stored = text && db_trial_finish(db, job->id, verdict, text) == DB_OK;
    if (!stored)
        fprintf(stderr, "%s: the result of trial %lld could not be stored: %s\n", who,
                (long long)job->id, db_error(db));
    free(text);
    return stored;
}

/* The result to store: the grade JSON (compacted to
 * SERVICE_RESULT_STORED_MAX bytes: result_compact.h), its verdict, times
 * and version. `who` names the worker in a log line. */
static bool store(const char *who, struct db *db, const struct db_job *job, json_t *result,
                  const char *verdict)
{
    if (job->trial)
        return store_trial(who, db, job, result, verdict);
    json_t *perf = json_object_get(result, "performance");
    json_t *ms = json_object_get(perf, "student_ms"), *ratio = json_object_get(perf, "ratio");
    char *text = result_compact_text(result, SERVICE_RESULT_STORED_MAX);
    struct db_result r = {
        .verdict = verdict,
        .result_json = text ? text : "{}",
        .student_ms = json_is_number(ms) ? json_number_value(ms) : -1,
        .ratio = json_is_number(ratio) ? json_number_value(ratio) : -1,
        .assessment = json_is_true(json_object_get(result, "assessment")),
        .exercise_version = json_string_value(json_object_get(result, "exercise_version")),
    };
    if (!r.exercise_version)
        r.exercise_version = "";
    bool stored = db_submission_finish(db, job->id, &r) == DB_OK;
    if (!stored)
        fprintf(stderr, "%s: the result of submission %lld could not be stored: %s\n", who,
                (long long)job->id, db_error(db));
    free(text);
    return stored;
}

/* "twice", "3 times": how often a grading was interrupted. */
static void how_often(int attempts, char *out, size_t size)
{
    if (attempts == 2)
        snprintf(out, size, "twice");
    else
        snprintf(out, size, "%d times", attempts);
}

/* A job whose worker died: back in the queue (true), unless this was its
 * last attempt; then its result says so. */
static bool retried(struct worker *w, struct db *db, const struct db_job *job, json_t *result)
{
    const char *reason = json_string_value(json_object_get(result, "message"));
    if (!reason)
        reason = "the grading worker failed";
    if (job->attempt < SERVICE_GRADING_ATTEMPTS) {
        if ((job->trial ? db_trial_retry(db, job->id) : db_submission_retry(db, job->id)) != DB_OK)
            return false;
        fprintf(stderr, "%s %lld %s: %s; it is graded again (%s)\n", job->trial ? "trial" : "job",
                (long long)job->id, job->exercise, reason, w->name);
        events_queue_moved(w->service->events);
        return true;
    }
    char times[32];
    how_often(job->attempt, times, sizeof times);
    json_object_set_new(
        result, "message",
        json_sprintf("%s (it died %s: a grading is tried again once only)", reason, times));
    return false;
}

/* A graded job: its result stored, a certificate it earns issued, the
 * metrics, a log line, and the "done" event. */
static void conclude(struct worker *w, struct db *db, const struct db_job *job, json_t *result,
                     enum grader_verdict verdict, double seconds)
{
    struct service *s = w->service;
    const char *name = grader_verdict_name(verdict);
    store(w->name, db, job, result, name);
    if (!job->trial && verdict == GRADER_VERDICT_PASSED &&
        json_is_true(json_object_get(result, "assessment")))
        certificates_issue(s, db, job->user_id, job->exercise, job->id);
    metrics_graded(s->metrics, name, seconds);
    fprintf(stderr, "%s %lld %s by user %lld: %s in %.1f s (%s)\n", job->trial ? "trial" : "job",
            (long long)job->id, job->exercise, (long long)job->user_id, name, seconds, w->name);
    json_t *done = json_pack("{s:I, s:s}", "id", (json_int_t)job->id, "verdict", name);
    events_publish(s->events, kind_of(job), job->id, "done", done);
    json_decref(done);
}

static void grade(struct worker *w, struct db *db, struct db_job *job)
{
    struct service *s = w->service;
    w->submission = job->id;
    w->kind = kind_of(job);
    events_begin(s->events, w->kind, job->id);
    struct grader_request request = {
        .exercises = s->config.exercises,
        .exercise = job->exercise,
        .source = job->source,
        .size = job->size,
        .seed_given = true,
        .seed = grader_fresh_seed(),
        .correctness_only = job->trial,
    };
    /* The API stored only a language it knows; another is kgrade's fault. */
    bool known = grader_language_parse(job->language, &request.language);
    request.file_name = request.language == GRADER_LANGUAGE_NUMBA ? "kernel.py" : "kernel.cu";
    bool died = false;
    struct grading_job g = {
        .request = &request,
        .references = s->references,
        .limits = s->config.limits,
        .progress = on_progress,
        .context = w,
        .worker_died = &died,
    };
    enum grader_verdict verdict = GRADER_VERDICT_INTERNAL_ERROR;
    char error[512];
    double started = now_seconds();
    json_t *result = NULL;
    if (known)
        result = grading_job_run(&g, &verdict, error, sizeof error);
    else
        snprintf(error, sizeof error, "the submission's language '%.16s' is not one kgrade grades",
                 job->language);
    if (!result)
        result = grader_verdict_json(&request, GRADER_VERDICT_INTERNAL_ERROR, error, false);
    if (!died || !retried(w, db, job, result))
        conclude(w, db, job, result, verdict, now_seconds() - started);
    json_decref(result);
}

static void wait_for_work(struct service *s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += IDLE_WAIT_SECONDS;
    pthread_mutex_lock(&s->queue_lock);
    if (!atomic_load(&s->stopping))
        pthread_cond_timedwait(&s->queue_ready, &s->queue_lock, &until);
    pthread_mutex_unlock(&s->queue_lock);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct service *s = w->service;
    struct db *db = service_db(s);
    while (db && !atomic_load(&s->stopping)) {
        struct db_job job;
        enum db_outcome taken = db_submission_claim(db, w->name, &job);
        if (taken != DB_OK) {
            wait_for_work(s);
            continue;
        }
        atomic_fetch_add(&s->busy_workers, 1);
        events_queue_moved(s->events);
        grade(w, db, &job);
        db_job_free(&job);
        atomic_fetch_sub(&s->busy_workers, 1);
    }
    free(w);
    return NULL;
}

bool workers_start(struct service *s, char *error, size_t error_size)
{
    for (int i = 0; i < s->config.workers && i < SERVICE_WORKERS_MAX; i++) {
        struct worker *w = calloc(1, sizeof *w);
        if (!w) {
            snprintf(error, error_size, "out of memory");
            return false;
        }
        w->service = s;
        snprintf(w->name, sizeof w->name, "worker-%d", i + 1);
        if (pthread_create(&s->workers[i], NULL, work, w) != 0) {
            free(w);
            snprintf(error, error_size, "cannot start worker %d", i + 1);
            return false;
        }
        s->n_workers++;
    }
    return true;
}

/* A submission whose gradings the server's end interrupted
 * SERVICE_GRADING_ATTEMPTS times: internal_error. False when it cannot be
 * stored. */
static bool give_up(struct service *s, struct db *db, const struct db_job *job)
{
    char times[32], message[GRADER_MESSAGE_MAX];
    how_often(job->attempt, times, sizeof times);
    snprintf(message, sizeof message,
             "the grading was interrupted %s, the server ending while it ran: it is not tried "
             "again",
             times);
    struct grader_request request = {.exercises = s->config.exercises, .exercise = job->exercise};
    grader_language_parse(job->language, &request.language);
    json_t *result = grader_verdict_json(&request, GRADER_VERDICT_INTERNAL_ERROR, message, false);
    const char *name = grader_verdict_name(GRADER_VERDICT_INTERNAL_ERROR);
    bool stored = result && store("kgrade serve", db, job, result, name);
    if (stored)
        metrics_graded(s->metrics, name, 0);
    fprintf(stderr, "job %lld %s by user %lld: %s: %s\n", (long long)job->id, job->exercise,
            (long long)job->user_id, name, message);
    json_decref(result);
    return stored;
}

/* Trials left running: back in the queue, or after their last attempt
 * finished as internal_error; the expired ones deleted. Their number
 * requeued. */
static int64_t recover_trials(struct db *db)
{
    json_t *result = json_pack(
        "{s:s, s:s, s:b}", "verdict", grader_verdict_name(GRADER_VERDICT_INTERNAL_ERROR), "message",
        "the trial was interrupted by the server's end more than once: it is not "
        "tried again",
        "correctness_only", true);
    char *text = json_dumps(result, JSON_COMPACT);
    int64_t n = text ? db_trials_recover(db, SERVICE_GRADING_ATTEMPTS, text) : -1;
    free(text);
    json_decref(result);
    return n > 0 ? n : 0;
}

int64_t workers_recover(struct service *s, struct db *db)
{
    struct db_job job;
    bool stored = true;
    while (stored && db_submission_interrupted(db, SERVICE_GRADING_ATTEMPTS, &job) == DB_OK) {
        stored = give_up(s, db, &job);
        db_job_free(&job);
    }
    int64_t trials = recover_trials(db);
    int64_t submissions = db_submissions_requeue_running(db);
    return submissions < 0 ? submissions : submissions + trials;
}

void workers_stop(struct service *s)
{
    atomic_store(&s->stopping, true);
    pthread_mutex_lock(&s->queue_lock);
    pthread_cond_broadcast(&s->queue_ready);
    pthread_mutex_unlock(&s->queue_lock);
    for (int i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i], NULL);
    s->n_workers = 0;
}
