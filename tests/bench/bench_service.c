/*
 * Benchmark: the service's throughput, measured with wrk (Debian's
 * package) against a real `kgrade serve` on a loopback port.
 *
 * The database is seeded with USERS accounts and RESULTS graded
 * submissions of one exercise, then wrk measures, each for WRK_SECONDS:
 * GET /api/v1/health (the baseline: routing, a log line, a tiny JSON),
 * GET /api/v1/exercises, and the exercise's scoreboard (each user's best
 * of the RESULTS results, ranked); then SUBMISSIONS submissions are
 * posted with an API token and accepted into the queue (the rate limit
 * and the queue's caps raised through config.json), and health is measured
 * again while the worker grades them. Each figure is printed with its
 * ratio to the health rate of the same run (targets: 10,000 requests/s
 * for the reads, 500/s for the submissions, on 2 cores).
 *
 * wrk runs for a duration, not a count (its thread:stop() leaves the
 * duration the divisor), so the submissions are posted for
 * POST_SECONDS, which at the target rate is SUBMISSIONS of them; the
 * number actually accepted is printed beside the rate.
 */
#include "db/db.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USERS           1000
#define RESULTS         10000
#define SUBMISSIONS     1000
#define WRK_SECONDS     5
#define POST_SECONDS    2 /* SUBMISSIONS at 500/s */
#define WRK_THREADS     2
#define WRK_CONNECTIONS 32
#define EXERCISES       "tests/service/exercises"
#define EXERCISE        "tiny-add"

struct bench {
    char dir[256], db[300], kgrade[4096], base[64];
    int port;
    pid_t server;
};

static const char source[] =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n)\\n"
    "{\\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\\n    if (i < n)\\n"
    "        c[i] = a[i] + b[i];\\n}\\n";

/* One graded submission of `user`, with a time that ranks it. */
static bool add_result(struct db *db, int64_t user, int k)
{
    int64_t id;
    struct db_job job;
    struct db_queue_limits limits = {.total = RESULTS + 1};
    struct db_new_submission n = {.user_id = user, .exercise = EXERCISE, .source = "x", .size = 1};
    if (db_submission_add(db, &n, &limits, &id) != DB_ENQUEUED ||
        db_submission_claim(db, "bench", &job) != DB_OK)
        return false;
    db_job_free(&job);
    double ms = 0.5 + (double)((k * 7919) % RESULTS) / RESULTS;
    struct db_result r = {.verdict = "passed",
                          .result_json = "{\"verdict\":\"passed\"}",
                          .student_ms = ms,
                          .ratio = ms / 0.5,
                          .assessment = true,
                          .exercise_version = "bench"};
    return db_submission_finish(db, id, &r) == DB_OK;
}

static bool seed(struct bench *b)
{
    char error[256];
    struct db *db = db_open(b->db, error, sizeof error);
    if (!db) {
        fprintf(stderr, "bench_service: %s\n", error);
        return false;
    }
    int64_t ids[USERS];
    bool ok = true;
    for (int u = 0; ok && u < USERS; u++) {
        char name[32];
        snprintf(name, sizeof name, "user%04d", u);
        ok = db_user_add(db, name, name, DB_ROLE_STUDENT, NULL, false, &ids[u]) == DB_OK;
    }
    for (int k = 0; ok && k < RESULTS; k++)
        ok = add_result(db, ids[k % USERS], k);
    if (!ok)
        fprintf(stderr, "bench_service: seeding failed: %s\n", db_error(db));
    db_close(db);
    return ok;
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fputs(text, f);
    return fclose(f) == 0;
}

/* The output's first line of `command`, in `out`. */
static bool first_line(const char *command, char *out, size_t size)
{
    FILE *p = popen(command, "r");
    if (!p)
        return false;
    bool got = fgets(out, (int)size, p) != NULL;
    int status = pclose(p);
    out[strcspn(out, "\n")] = '\0';
    return got && status == 0;
}

static bool port_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool open = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    return open;
}

static bool start_server(struct bench *b)
{
    char port[16], data[300];
    snprintf(port, sizeof port, "%d", b->port);
    snprintf(data, sizeof data, "%s", b->dir);
    b->server = fork();
    if (b->server == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(127);
        execl(b->kgrade, b->kgrade, "serve", "--port", port, "--data", data, "--exercises",
              EXERCISES, "--workers", "1", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; b->server > 0 && i < 200; i++) {
        if (port_open(b->port))
            return true;
        usleep(50000);
    }
    fprintf(stderr, "bench_service: %s serve did not start on port %d\n", b->kgrade, b->port);
    return false;
}

/* wrk's requests per second at `path`, with `script` when not NULL;
 * negative when wrk failed. Non-2xx answers are counted into `refused`. */
struct wrk_run {
    double rate;   /* requests per second; negative when wrk failed */
    long requests; /* answered */
    long refused;  /* of which not 2xx */
};

static struct wrk_run wrk(const struct bench *b, const char *path, const char *script, int seconds)
{
    char command[1024], line[512];
    snprintf(command, sizeof command, "wrk -t%d -c%d -d%ds %s%s %s%s 2>&1", WRK_THREADS,
             WRK_CONNECTIONS, seconds, script ? "-s " : "", script ? script : "", b->base, path);
    FILE *p = popen(command, "r");
    struct wrk_run run = {-1, 0, 0};
    while (p && fgets(line, sizeof line, p)) {
        sscanf(line, "Requests/sec: %lf", &run.rate);
        sscanf(line, "  Non-2xx or 3xx responses: %ld", &run.refused);
        sscanf(line, "  %ld requests in", &run.requests);
    }
    if (!p || pclose(p) != 0)
        run.rate = -1;
    return run;
}

static void print_rate(const char *what, struct wrk_run run, double health)
{
    if (run.rate < 0) {
        printf("  %-50s wrk failed\n", what);
        return;
    }
    printf("  %-50s %8.0f requests/s  (%.2f x health)\n", what, run.rate,
           health > 0 ? run.rate / health : 0);
    if (run.refused)
        printf("    %ld of %ld answers were not 2xx\n", run.refused, run.requests);
}

/* The Lua script that posts submissions. */
static bool write_post_script(const struct bench *b, const char *token, char *path, size_t size)
{
    snprintf(path, size, "%s/post.lua", b->dir);
    char *text = NULL;
    int n = asprintf(&text,
                     "wrk.method = \"POST\"\n"
                     "wrk.headers[\"Content-Type\"] = \"application/json\"\n"
                     "wrk.headers[\"Authorization\"] = \"Bearer %s\"\n"
                     "wrk.body = [[{\"exercise\": \"%s\", \"source\": \"%s\"}]]\n",
                     token, EXERCISE, source);
    bool ok = n > 0 && write_file(path, text);
    free(text);
    return ok;
}

static void measure(struct bench *b, const char *token)
{
    char script[512], what[128];
    struct wrk_run health = wrk(b, "/api/v1/health", NULL, WRK_SECONDS);
    print_rate("GET /api/v1/health (baseline)", health, health.rate);
    print_rate("GET /api/v1/exercises", wrk(b, "/api/v1/exercises", NULL, WRK_SECONDS),
               health.rate);
    snprintf(what, sizeof what, "GET /api/v1/scoreboard/%s (%d results)", EXERCISE, RESULTS);
    print_rate(what, wrk(b, "/api/v1/scoreboard/" EXERCISE, NULL, WRK_SECONDS), health.rate);
    if (!write_post_script(b, token, script, sizeof script))
        return;
    struct wrk_run posted = wrk(b, "/api/v1/submissions", script, POST_SECONDS);
    struct wrk_run busy = wrk(b, "/api/v1/health", NULL, WRK_SECONDS);
    print_rate("GET /api/v1/health (while the queue is graded)", busy, busy.rate);
    snprintf(what, sizeof what, "POST /api/v1/submissions (%ld accepted)",
             posted.requests - posted.refused);
    print_rate(what, posted, busy.rate);
}

static bool set_up(struct bench *b, const char *argv0)
{
    char self[4096];
    snprintf(self, sizeof self, "%s", argv0);
    snprintf(b->kgrade, sizeof b->kgrade, "%s/../kgrade", dirname(self));
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(b->dir, sizeof b->dir, "%s/kgrade-bench-XXXXXX", tmp);
    if (!mkdtemp(b->dir))
        return false;
    snprintf(b->db, sizeof b->db, "%s/kgrade.db", b->dir);
    char config[300];
    snprintf(config, sizeof config, "%s/config.json", b->dir);
    b->port = 20000 + (int)(getpid() % 20000);
    snprintf(b->base, sizeof b->base, "http://127.0.0.1:%d", b->port);
    return write_file(config, "{\"queue_max\": 1000000, \"queue_max_per_user\": 1000000, "
                              "\"rate_per_minute\": 1000000}\n");
}

static void tear_down(struct bench *b)
{
    if (b->server > 0) {
        kill(b->server, SIGKILL);
        waitpid(b->server, NULL, 0);
    }
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", b->dir);
    if (system(command) != 0)
        fprintf(stderr, "bench_service: could not remove %s\n", b->dir);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (system("command -v wrk >/dev/null") != 0) {
        printf("bench_service: skipped: wrk is not installed (apt-get install wrk)\n");
        return 0;
    }
    struct bench b = {0};
    char command[4500], token[256];
    bool ok = set_up(&b, argv[0]) && seed(&b);
    snprintf(command, sizeof command, "'%s' --db '%s' token create user0000", b.kgrade, b.db);
    ok = ok && first_line(command, token, sizeof token) && start_server(&b);
    if (ok) {
        printf("service on 2 cores' worth of this machine, wrk -t%d -c%d -d%ds:\n", WRK_THREADS,
               WRK_CONNECTIONS, WRK_SECONDS);
        measure(&b, token);
    }
    tear_down(&b);
    return ok ? 0 : 1;
}
