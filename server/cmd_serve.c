/*
 * kgrade serve: the grading service. Makes the data folder private
 * (0700, an existing one too, saying so), takes it and the database file
 * for itself (serve_lock.c: a second server on either, by any path or
 * link, refuses to start), opens the database (migrating it,
 * putting back in the queue what a crash left running, finishing as
 * internal_error what crashes interrupted twice), creates the first admin
 * account of a new database (its temporary password printed once), checks
 * the sandbox (refusing to grade without seccomp, limits and the
 * timeout), starts the workers and the HTTP daemon, and on SIGINT or
 * SIGTERM drains: stops accepting, lets the workers finish their jobs,
 * closes the database, lets go of the locks, exits.
 */
#include "cli.h"
#include "credentials.h"
#include "events.h"
#include "http_daemon.h"
#include "metrics.h"
#include "rate_limit.h"
#include "reference_cache.h"
#include "response_cache.h"
#include "serve_lock.h"
#include "service_config.h"

#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_PORT     8080
#define DEFAULT_BIND     "127.0.0.1"
#define HTTP_THREADS     4
#define ADMIN_NAME       "admin"
#define DATA_FOLDER_MODE 0700u /* whatever it was, and whatever the umask */

/* One per GPU; on the virtual GPU, one per 2 cores. */
static int default_workers(void)
{
    glob_t g;
    int gpus = 0;
    if (glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0)
        gpus = (int)g.gl_pathc;
    globfree(&g);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int half = (int)(cores / 2);
    return gpus > 0 ? gpus : half > 0 ? half : 1;
}

static bool first_admin(struct db *db)
{
    if (db_user_count(db) != 0)
        return true;
    char password[GENERATED_PASSWORD_LENGTH + 1], hash[PASSWORD_HASH_MAX];
    password_random(password, GENERATED_PASSWORD_LENGTH);
    if (!password_hash(password, hash) ||
        db_user_add(db, ADMIN_NAME, "Administrator", DB_ROLE_ADMIN, hash, true, NULL) != DB_OK)
        return false;
    printf("A new database: created the account '%s' with the temporary password\n\n    %s\n\n"
           "(shown only now; it works until it is changed, and every login with it leads\n"
           "only to the password page, which asks for a password of your own).\n",
           ADMIN_NAME, password);
    return true;
}

/* An existing folder made private: it holds the accounts, the sources and
 * the signing key, and a folder made by hand (mkdir's 0755) would show
 * them to every user of the machine. */
static bool make_private(const char *folder, const struct stat *st, char *error, size_t size)
{
    unsigned mode = (unsigned)(st->st_mode & 07777);
    if ((mode & 0777) == DATA_FOLDER_MODE)
        return true;
    if (chmod(folder, DATA_FOLDER_MODE) != 0) {
        snprintf(error, size,
                 "the data folder %s is %04o and cannot be made %04o: %s (chmod %o %s)", folder,
                 mode, DATA_FOLDER_MODE, strerror(errno), DATA_FOLDER_MODE, folder);
        return false;
    }
    fprintf(stderr,
            "kgrade serve: the data folder %s was %04o: made it %04o (only its owner may "
            "read the accounts and the signing key)\n",
            folder, mode, DATA_FOLDER_MODE);
    return true;
}

static bool make_data_folder(struct service *s, char *error, size_t size)
{
    struct stat st;
    const char *folder = s->config.data;
    if (stat(folder, &st) != 0) {
        if (mkdir(folder, DATA_FOLDER_MODE) == 0)
            return true;
        snprintf(error, size, "the data folder %s cannot be made: %s", folder, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(error, size, "the data folder %s is not a folder", folder);
        return false;
    }
    return make_private(folder, &st, error, size);
}

static bool open_store(struct service *s, char *error, size_t size)
{
    if (!signing_key_load(s->config.data, &s->signing_key, error, size))
        return false;
    struct db *db = service_db(s);
    if (!db) {
        snprintf(error, size, "the database %s cannot be opened", s->config.db_path);
        return false;
    }
    int64_t back = workers_recover(s, db);
    if (back > 0)
        printf("%lld submissions left running by the last run are queued again\n", (long long)back);
    if (!first_admin(db)) {
        snprintf(error, size, "the first admin account cannot be created: %s", db_error(db));
        return false;
    }
    return true;
}

static bool check_sandbox(struct service *s, char *error, size_t size)
{
    char why[512];
    if (!sandbox_probe(&s->protections, why, sizeof why)) {
        snprintf(error, size, "the sandbox does not work here (%s): no job will be graded", why);
        return false;
    }
    printf("sandbox protections:\n");
    sandbox_print_protections(&s->protections, stdout);
    const char *missing = sandbox_missing_minimum(&s->protections);
    if (missing) {
        snprintf(error, size, "refusing to grade untrusted kernels: %s", missing);
        return false;
    }
    return true;
}

static void configure(const struct cli_args *args, struct service *s, char *data, char *db,
                      char *exercises)
{
    cli_data_folder(args, data, 2048);
    cli_db_path(args, db, 2048);
    cli_exercises_folder(args, exercises, 2048);
    s->config = (struct service_config){
        .bind = cli_given(args, OPT_BIND) ? args->value[OPT_BIND] : DEFAULT_BIND,
        .port = (int)cli_u64(args, OPT_PORT, DEFAULT_PORT),
        .data = data,
        .db_path = db,
        .exercises = exercises,
        .workers = (int)cli_u64(args, OPT_WORKERS, (uint64_t)default_workers()),
        .queue_max = SERVICE_QUEUE_MAX,
        .queue_max_per_user = SERVICE_QUEUE_MAX_PER_USER,
        .rate_per_minute = SERVICE_RATE_PER_MINUTE,
        .storage_per_user = (int64_t)SERVICE_STORAGE_MB_PER_USER * SERVICE_MB,
        .http_threads = HTTP_THREADS,
        .client_timeout_seconds = SERVICE_CLIENT_TIMEOUT,
    };
    grading_default_limits(&s->config.limits);
    if (s->config.workers > SERVICE_WORKERS_MAX)
        s->config.workers = SERVICE_WORKERS_MAX;
}

/* Waits for SIGINT or SIGTERM (blocked in every thread). */
static int wait_for_stop(const sigset_t *stop)
{
    int signal_number = 0;
    sigwait(stop, &signal_number);
    return signal_number;
}

static int serve(struct service *s, const sigset_t *stop, int locks[SERVE_LOCKS])
{
    char error[1024];
    struct http_daemon *daemon = NULL;
    if (!service_config_load(&s->config, error, sizeof error) ||
        !make_data_folder(s, error, sizeof error) ||
        !serve_locks_take(s->config.data, s->config.db_path, locks, error, sizeof error) ||
        !open_store(s, error, sizeof error) || !check_sandbox(s, error, sizeof error) ||
        !workers_start(s, error, sizeof error) ||
        !(daemon = http_daemon_start(s, error, sizeof error))) {
        fprintf(stderr, "kgrade serve: %s\n", error);
        workers_stop(s);
        return CLI_EXIT_USAGE;
    }
    printf("kgrade serving on http://%s:%d/ with %d workers (database %s, exercises %s)\n",
           s->config.bind, s->config.port, s->n_workers, s->config.db_path, s->config.exercises);
    fflush(stdout);
    int signal_number = wait_for_stop(stop);
    fprintf(stderr, "kgrade serve: %s: draining (the running jobs finish)\n",
            strsignal(signal_number));
    http_daemon_quiesce(daemon);
    workers_stop(s);
    http_daemon_stop(daemon);
    return CLI_EXIT_OK;
}

int cmd_serve(const struct cli_args *args)
{
    static struct service s;
    static char data[2048], db[2048], exercises[2048], web[2048], bundle[2048];
    int locks[SERVE_LOCKS] = {-1, -1};
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before any thread starts */
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stderr, NULL, _IOLBF, 0);
    if (!credentials_init()) {
        fprintf(stderr, "kgrade serve: libsodium cannot start\n");
        return CLI_EXIT_INTERNAL;
    }
    configure(args, &s, data, db, exercises);
    cli_web_folders(web, bundle, sizeof web);
    s.config.web = web;
    s.config.web_bundle = bundle;
    pthread_mutex_init(&s.queue_lock, NULL);
    pthread_cond_init(&s.queue_ready, NULL);
    s.metrics = metrics_new(http_route_count());
    s.limiters = (struct service_limiters){rate_limiter_new(RATE_KEYS_MAX, NULL),
                                           rate_limiter_new(RATE_KEYS_MAX, NULL),
                                           rate_limiter_new(RATE_KEYS_MAX, NULL)};
    s.events = events_new(&s);
    s.answers = response_cache_new();
    s.references = reference_cache_new();
    if (!s.metrics || !s.limiters.anonymous || !s.limiters.accounts || !s.limiters.submissions ||
        !s.events || !s.answers || !s.references) {
        fprintf(stderr, "kgrade serve: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    int code = serve(&s, &stop, locks);
    events_free(s.events); /* the last thread with a connection of its own ends */
    service_db_close();    /* then the main thread's: the database is closed */
    serve_locks_release(locks);
    response_cache_free(s.answers);
    reference_cache_free(s.references);
    rate_limiter_free(s.limiters.anonymous);
    rate_limiter_free(s.limiters.accounts);
    rate_limiter_free(s.limiters.submissions);
    metrics_free(s.metrics);
    return code;
}
