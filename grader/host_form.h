/*
 * Internal to grader/: the host form's grading (exercise.json's
 * "numba_host"; /work/notes/host-form-spec.md, sections 5 and 6).
 *
 * A Numba submission whose module defines the course's host function
 * (create_hidden_layer) is graded by calling it: two host jobs, each a
 * sandboxed python3 running grader/numba_host.py on a module (the
 * exercise's reference_host.py, the student's source), are started beside
 * the grade job by server/grading_job.c. Each job's CUDA driver is the
 * remote driver client, served here on a thread of its own
 * (kgemu_serve_start), so the grade job owns the virtual GPU and sees every
 * copy and launch; each job's calls come and go on a seqpacket socket, one
 * JSON text per packet with the arrays as memfds. Everything a host job
 * sends is hostile: bounded, parsed strictly, its descriptors closed
 * unread.
 *
 * Per case: the inputs generated as for the kernel form, the reference's
 * call (its returned array is the expected one; its device time the
 * speed's yardstick), then the student's: its returned array must have been
 * copied back from the GPU (host_check.c), then it is compared by the
 * exercise's tolerance as the kernel form's outputs are.
 *
 * On a real GPU (grader_request.host_wall_time: the host jobs run on a
 * driver of their own, which the grade job cannot serve) each call's time
 * is its wall-clock time, measured here from the request sent to the reply
 * received, as DLI's assess measures it: host work, copies, kernels and
 * synchronisation all count, and a result computed by numpy on the host
 * is judged by that time, not by where it came from (host_wall.c).
 */
#ifndef KGRADE_GRADER_HOST_FORM_H
#define KGRADE_GRADER_HOST_FORM_H

#include "grade.h"

/* The grade job's descriptors for the host jobs (server/grading_job.c
 * passes them): each job's driver, a stream socket its remote CUDA driver
 * speaks on (served here), and its calls, a seqpacket socket
 * (numba_host.py's protocol). */
#define HOST_REFERENCE_DRIVER_FD 4
#define HOST_REFERENCE_CALLS_FD  5
#define HOST_STUDENT_DRIVER_FD   6
#define HOST_STUDENT_CALLS_FD    7
/* Each job's /proc/PID/stat (host_cpu.c), opened by the worker as the
 * sandbox started the job, before any of its code ran. */
#define HOST_REFERENCE_CPU_FD 8
#define HOST_STUDENT_CPU_FD   9

/* The largest packet either way (one JSON text), and the most descriptors
 * a call carries (its array arguments, then the returned array's). */
#define HOST_PACKET_MAX      (64 * 1024)
#define HOST_DESCRIPTORS_MAX (EXERCISE_PARAMS_MAX + 1)

/* How long a host job may take to import its module and say it is ready
 * (numba's import alone takes seconds on a loaded machine), and the
 * reference's call (the job's own limit ends it sooner). */
#define HOST_READY_SECONDS          120.0
#define HOST_REFERENCE_CALL_SECONDS 3600.0
/* A student's call may take this many times the reference's wall-clock
 * time on the case, at least the floor, before it is a timeout: below the
 * job's own limit for a student's run (server/grading_job.h: 50×, 10 s),
 * so the grade job says it first, naming the function. */
#define HOST_STUDENT_CALL_FACTOR        40.0
#define HOST_STUDENT_CALL_FLOOR_SECONDS 8.0
/* The provenance check hashes at most this many times the returned
 * array's bytes while matching it with the call's copies back. */
#define HOST_PROVENANCE_HASH_FACTOR 8
/* The returned array may hold at most this fraction (1 / divisor) of
 * bytes that came back as the host left them (kgemu_copy_record.
 * host_bytes), and as much of bytes in chunks the session uploaded
 * (kgemu_served_uploaded_bytes): a page of outputs may rightly equal what
 * the host put there (zeros a kernel left as they were), an answer may
 * not. */
#define HOST_FROM_HOST_SHARE_DIVISOR 4
/* An input array must reach the device whole, but for at most this
 * fraction (1 / divisor) of its bytes (the content-defined chunks cut at
 * the ends of the pieces it was sent in); inputs under the checked size
 * are too few chunks to tell. */
#define HOST_INPUT_UNSENT_DIVISOR 16
#define HOST_INPUT_CHECKED_BYTES  (64 * 1024)
/* The host's CPU time a student's call may use at the timed case of an
 * assessment (its correctness cases ran first: numba's compiles are
 * done): this many times the reference's call's, plus the floor. Host
 * work counts on a GPU server's clock (DLI's assess times the call); the
 * virtual GPU's timeline is the device's, so the host's work is measured
 * apart: the remote driver's copies make the reference's call cost the
 * host about a second at 100M elements, numpy's tanh over the same
 * arrays about as much again. */
#define HOST_CPU_FACTOR        1.5
#define HOST_CPU_FLOOR_SECONDS 0.25
/* The longest reason the provenance rule gives (before the function's
 * name and the rest of the message). */
#define HOST_WHY_MAX 256

enum host_side { HOST_REFERENCE, HOST_STUDENT, HOST_SIDES };

/* What one call did on the device: its served session's figures after the
 * reply less those before the request; its device time from the point the
 * session was settled at before the request (kgemu_served_settle: the
 * call starts from an idle device) to the end of its work. */
struct host_call_stats {
    double device_ms;
    double host_cpu_ms; /* the host job's CPU time in the call; -1: unknown */
    unsigned long long copies[KGEMU_COPY_KINDS], bytes[KGEMU_COPY_KINDS];
    unsigned long long launches;
    unsigned long long first_record, records; /* the call's copy records */
};

/* One host job: its descriptors and its served driver session (NULL on a
 * driver of its own: host_form.wall_time). */
struct host_job {
    int driver_fd, calls_fd, cpu_fd;
    struct kgemu_served *served;
    bool stuck; /* a call outlived its limit: the session is left as it is */
};

struct host_form {
    struct host_job jobs[HOST_SIDES];
    struct host_call_stats timed[HOST_SIDES]; /* the calls at the timed case */
    bool timed_known;
    bool wall_time; /* calls timed by the wall clock, no session served (host_wall.c) */
};

/* Whether the request's Numba result is the host form's ("form": "host"). */
bool host_form_requested(const struct grader_request *request);

/* The compile phase of a host form's grading: the exercise must declare
 * one and the device be the virtual GPU; both jobs' driver sessions are
 * served, and both jobs must say their module imported. PASSED (g->host
 * set, the compile result says the module imported), compile_error (the
 * student's module did not import: its traceback), or internal_error. */
enum grader_verdict host_form_start(struct grading *g, char *message, size_t size);

/* The host form's case (grade_case's, for g->host). */
bool host_case(struct grading *g, const struct exercise_case *c, bool timed,
               struct case_outcome *out, char *error, size_t error_size);

/* Ends both sessions (neither once a call is stuck: g->api.stuck) and frees g->host. */
void host_form_stop(struct grading *g);

/* -------------------------------------------------------- host_call.c */

/* What a host job answered. */
enum host_reply {
    HOST_REPLY_READY,         /* {"ready": true} */
    HOST_REPLY_IMPORT_FAILED, /* {"import_failed": TEXT} */
    HOST_REPLY_RETURNED,      /* {"returned": true}: the return memfd holds the array */
    HOST_REPLY_WRONG,         /* {"wrong": MESSAGE} */
    HOST_REPLY_RAISED,        /* {"raised": TEXT} */
    HOST_REPLY_ENDED,         /* the socket closed, or the packet was not one of these */
    HOST_REPLY_LATE,          /* nothing within the limit */
    HOST_REPLY_OUT_OF_TURN,   /* host_call: a packet was waiting before the request */
};

/* Waits up to `seconds` for the job's next packet: its kind, and its TEXT
 * (at most `size` − 1 bytes; "" for the others). Descriptors it carries are
 * closed unread. */
enum host_reply host_receive(int fd, double seconds, char *text, size_t size);

/* Sends `packet` (`length` bytes, at most HOST_PACKET_MAX) with `fds` (`n`,
 * at most HOST_DESCRIPTORS_MAX) in one packet; false when it did not go. */
bool host_send_packet(int fd, const char *packet, size_t length, const int *fds, int n);

/* One call of the job's function: `request` (its JSON text) sent with the
 * argument memfds `fds` (`n`) and a fresh memfd of `returned_bytes` for
 * the result, waited for up to `seconds`; the device's figures of the call
 * in `stats`, its wall-clock seconds in `*seconds_taken`; when it returned,
 * the array copied into `returned`. A job that sent a packet before the
 * request (only numba_host.py speaks, and only to answer) is
 * HOST_REPLY_OUT_OF_TURN, `text` saying what it sent ("a \"ready\"
 * reply"); the request is not sent. A failure of the grade job's own (no
 * memfd) is HOST_REPLY_ENDED with `text` saying so and `*own_failure`. */
enum host_reply host_call(struct grading *g, struct host_job *job, const char *request,
                          const int *fds, int n, void *returned, size_t returned_bytes,
                          double seconds, struct host_call_stats *stats, double *seconds_taken,
                          char *text, size_t size, bool *own_failure);

/* A sealed memfd holding `bytes` of `data` (an input: no job can change
 * it); -1 with errno set. */
int host_sealed_memfd(const char *name, const void *data, size_t bytes);

/* ------------------------------------------ host_form.c, for host_wall.c */

struct run; /* a case running (grade_run.h) */

/* A call past its limit: its job is stuck, and so is the driver (no
 * session is stopped, nothing released that would wait for it). */
void host_job_stuck(struct grading *g, struct host_job *job);

/* How long a student's call may take on the case running: the
 * reference's wall-clock time there scaled (HOST_STUDENT_CALL_*). */
double host_student_limit(const struct grading *g);

/* The student's reply other than an array, as a verdict in `out`
 * (wrong_answer, timeout past `limit` seconds, runtime_error). */
void host_student_failed(struct run *r, enum host_reply reply, const char *text, double limit,
                         struct case_outcome *out);

/* ------------------------------------------------------- host_wall.c */

/* Whether the grading's calls are timed by the wall clock: its host jobs
 * run on a driver of their own (grader_request.host_wall_time). */
bool host_wall_requested(const struct grading *g);

/* A call's time: its wall-clock `seconds` in ms when the calls are timed
 * so, else its device time. */
double host_call_ms(const struct host_form *host, const struct host_call_stats *call,
                    double seconds);

/* A call's figures for the case's "calls": host_call_json's when its
 * session was served, else {"wall_ms"}. */
json_t *host_call_figures(const struct host_form *host, const struct host_call_stats *call,
                          double seconds);

/* The repeated timing of the wall-clock calls, after the timed case's
 * calls passed (grading.timing REPEATED: a real GPU's default): a warm-up
 * call of each side, then calls in alternation, student first on even
 * runs, each student's result checked, until timing_enough; the medians
 * are g->student_ms and g->reference_ms. The case's request `request`
 * with the memfds `fds` (`n`), the returned buffer `returned`. A failed
 * student's call leaves its verdict in `out` ("on timed run 3: ...").
 * False only when the grader failed (r->error set). */
bool host_time_repeated(struct run *r, const char *request, const int *fds, int n, int returned,
                        struct case_outcome *out);

/* What the speed's message adds for the host form: where the time went
 * (host_copies_text) for served calls, else how it was measured. */
void host_speed_text(const struct grading *g, char *out, size_t size);

/* ------------------------------------------------------- host_check.c */

/* The provenance rule: whether `returned` (`bytes`) is, byte for byte, the
 * concatenation in some order of whole device-to-host copies of the call,
 * none of which brought back what a host-to-device copy of the call put
 * there, and at most a quarter of it (HOST_FROM_HOST_SHARE_DIVISOR) bytes
 * the session copied to the device, wherever they went since
 * (kgemu_served_uploaded_bytes: a copy kernel moves them unchanged). When
 * not, why, in `why`. */
bool host_returned_from_gpu(struct grading *g, struct host_job *job,
                            const struct host_call_stats *call, const void *returned, size_t bytes,
                            char *why, size_t size);

/* Every input array the call was given reached the device, but for about
 * a chunk at each end of its pieces (kgemu_served_uploaded_bytes): a GPU
 * computes from its inputs, and with the reference's two copies to the
 * device and one back, a host answer that also sends the inputs costs
 * more than the reference. Else false with the sentence in `why`. */
bool host_inputs_sent(struct grading *g, struct host_job *job, const struct run_buffer *buffers,
                      char *why, size_t size);

/* "4 copies to the device (1.6 GB) and 3 back, against the reference's 2
 * and 1", from the timed case's calls. */
void host_copies_text(const struct host_form *host, char *out, size_t size);

/* A call's figures for the case's JSON: {"device_ms", "copies_to_device",
 * "bytes_to_device", "copies_back", "bytes_back", "launches"}. */
json_t *host_call_json(const struct host_call_stats *call);

/* --------------------------------------------------------- host_cpu.c */

/* The CPU time (user and system, in clock ticks) in a /proc/PID/stat
 * text of `length` bytes; false when it is not one. */
bool host_stat_cpu_ticks(const char *text, size_t length, unsigned long long *ticks);

/* The CPU time in ms of the job whose /proc/PID/stat is `fd` (whole clock
 * ticks: differences are exact); -1 when it cannot be read (no such
 * descriptor, the job has ended). */
double host_cpu_ms(int fd);

/* Whether the student's timed call used more of the host's CPU than the
 * bar (HOST_CPU_FACTOR × the reference's + the floor, in `*bar_ms`); false
 * when either is unknown. */
bool host_cpu_too_much(const struct host_form *host, double *bar_ms);

/* "create_hidden_layer used 2.9 s of the host's CPU against the
 * reference's 1.4 s; the bar is …". */
void host_cpu_text(const struct host_form *host, const char *function, double bar_ms, char *out,
                   size_t size);

#endif
