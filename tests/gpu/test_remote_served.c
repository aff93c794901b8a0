/*
 * Served sessions of the remote driver (kgemu.h's kgemu_serve_start,
 * emulator/README.md "The remote driver"): one process serves several
 * clients at once, each on a thread of its own, and reads what each has
 * done while it is served, as the grade job of a host-form exercise does.
 *
 * This program is the serving process. It starts, at once, two clients
 * whose driver is build/emulator/remote/libcuda.so.1: this program again
 * ("client N SEED FD"), a C program against cuda.h that copies N floats
 * to the device, runs an NVRTC kernel (y = 2x + 1) and copies y back, one
 * of them more than the 64 MB window (in chunks); and, when Debian's
 * python3 has numba, tests/numba/numba_served_program.py doing the same
 * through numba's runtime and trying cuda.pinned_array. Each client then
 * says so on a control socket and waits there, still connected: the
 * server checks its session's stats (its own copies, launches and device
 * time, nothing of the other's), the hash of each copy record against
 * kgemu_hash of the bytes it computed itself, stops the session while the
 * client is connected, and only then lets the client go.
 *
 * Bytes as the host left them (kgemu_copy_record.host_bytes): none of y's
 * copy back, which only the kernel wrote, for the C clients and numba's;
 * all of it for a third C client that cheats ("client N SEED FD cheat"):
 * it computes y on the host, uploads it in two halves to another buffer,
 * copies that onto the kernel's y within the device and copies y back.
 *
 * A fault (kgemu_served_fault): a fourth C client ("… fault") launches the
 * kernel over 64 times its arrays; its session has the fault, the
 * kernel's name and an illegal address, where the others have none.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sys/socket.h>

#include "emulator/remote_protocol.h"
#include "gpu_test.h"

#define SMALL_FLOATS ((size_t)100000)
#define BIG_FLOATS   ((size_t)17 << 20) /* 68 MB: two chunks of the window */
#define NUMBA_FLOATS ((size_t)300000)   /* numba_served_program.py's N */
#define BLOCK        256
#define PYTHON       "/usr/bin/python3"
#define NUMBA_SCRIPT "tests/numba/numba_served_program.py"

static const char *twice_source =
    "extern \"C\" __global__ void twice(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n";

/* The client's input, and what the kernel makes of it: exact in float. */
static float *inputs(size_t n, unsigned seed)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((i * seed) % 4096);
    return x;
}

static float *outputs(const float *x, size_t n)
{
    float *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++)
        y[i] = 2.0f * x[i] + 1.0f;
    return y;
}

/* ------------------------------------------------------------ the client */

/* Says it is done on `control`, then waits there until the server lets go. */
static void client_hold(int control)
{
    char byte = 'd';
    CHECK(write(control, &byte, 1) == 1);
    CHECK(read(control, &byte, 1) == 0);
}

/* The cheat: y computed on the host, uploaded in halves, copied onto dy. */
static void cheat(CUdeviceptr dy, const float *want, size_t n)
{
    CUdeviceptr dz = 0;
    size_t bytes = n * sizeof *want, half = bytes / 2 + 1;
    CHECK_CU(cuMemAlloc(&dz, bytes));
    CHECK_CU(cuMemcpyHtoD(dz, want, half));
    CHECK_CU(cuMemcpyHtoD(dz + half, (const char *)want + half, bytes - half));
    CHECK_CU(cuMemcpyDtoD(dy, dz, bytes));
}

/* What a client does besides the kernel's work. */
enum client_mode { CLIENT_PLAIN, CLIENT_CHEATS, CLIENT_FAULTS };

#define FAULT_REACH 64 /* the faulting client's kernel runs over this many times its arrays */

static int run_client(size_t n, unsigned seed, int control, enum client_mode mode)
{
    CUcontext context = NULL;
    CUmodule module = NULL;
    CUfunction twice = NULL;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&context, 0));
    CHECK_CU(cuCtxPushCurrent(context));
    CHECK_CU(gpu_test_load_source(&module, twice_source, "twice.cu"));
    CHECK_CU(cuModuleGetFunction(&twice, module, "twice"));
    float *x = inputs(n, seed), *y = malloc(n * sizeof *y), *want = outputs(x, n);
    CUdeviceptr dx = gpu_test_upload(x, n * sizeof *x), dy = 0;
    CHECK_CU(cuMemAlloc(&dy, n * sizeof *y));
    size_t threads = mode == CLIENT_FAULTS ? n * FAULT_REACH : n;
    int count = (int)threads;
    void *args[] = {&dx, &dy, &count};
    CHECK_CU(cuLaunchKernel(twice, (unsigned)((threads + BLOCK - 1) / BLOCK), 1, 1, BLOCK, 1, 1, 0,
                            NULL, args, NULL));
    if (mode == CLIENT_CHEATS)
        cheat(dy, want, n);
    if (mode == CLIENT_FAULTS) {
        CHECK_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    } else {
        CHECK_CU(cuMemcpyDtoH(y, dy, n * sizeof *y));
        CHECK(memcmp(y, want, n * sizeof *y) == 0);
    }
    client_hold(control); /* the session is stopped meanwhile: no driver call after */
    free(x);
    free(y);
    free(want);
    return gpu_test_summary();
}

/* ------------------------------------------------------------ the server */

typedef int (*serve_start_fn)(int fd, struct kgemu_served **served);
typedef int (*served_stats_fn)(struct kgemu_served *served, struct kgemu_served_stats *stats);
typedef unsigned (*served_copies_fn)(struct kgemu_served *served, unsigned long long first,
                                     struct kgemu_copy_record *records, unsigned count);
typedef int (*serve_stop_fn)(struct kgemu_served *served);
typedef unsigned long long (*hash_fn)(const void *bytes, size_t size);
typedef int (*served_fault_fn)(struct kgemu_served *served, struct kgemu_fault *fault);

static struct {
    serve_start_fn start;
    served_stats_fn stats;
    served_copies_fn copies;
    serve_stop_fn stop;
    hash_fn hash;
    served_fault_fn fault;
} api;

/* One client: its process, its session, its control socket. */
struct client {
    pid_t pid;
    int fd, control;
    struct kgemu_served *served;
    size_t floats;
    unsigned seed;
    int launches; /* what it makes: copies of the floats each way, and these */
    bool cheats;  /* and y uploaded in two halves, copied within the device */
};

/* Starts `argv` with the client library as its driver (`remote_dir`), the
 * session's socket in KGEMU_REMOTE_FD, and serves it. */
static void client_start(struct client *c, const char *remote_dir, char *argv[], int control_arg)
{
    int sv[2], ctl[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) == 0);
    fflush(NULL);
    c->pid = fork();
    if (c->pid == 0) {
        char fd[16], control[16], driver[PATH_MAX];
        snprintf(fd, sizeof fd, "%d", dup(sv[1])); /* without CLOEXEC */
        snprintf(control, sizeof control, "%d", dup(ctl[1]));
        snprintf(driver, sizeof driver, "%s/libcuda.so.1", remote_dir);
        setenv(REMOTE_FD_VARIABLE, fd, 1);
        setenv("LD_LIBRARY_PATH", remote_dir, 1);
        setenv("NUMBA_CUDA_DRIVER", driver, 1);
        argv[control_arg] = control;
        execv(argv[0], argv);
        _exit(127);
    }
    close(sv[1]);
    close(ctl[1]);
    c->fd = sv[0];
    c->control = ctl[0];
    CHECK_CU(api.start(c->fd, &c->served));
}

/* The record of `kind` whose hash is that of `bytes`, as the client's
 * only one of that kind, with `host` bytes as the host left them. */
static void check_record(const struct client *c, int kind, const void *bytes, size_t size,
                         unsigned long long host)
{
    struct kgemu_copy_record records[8];
    unsigned n = api.copies(c->served, 0, records, 8), found = 0;
    unsigned long long hash = api.hash(bytes, size);
    for (unsigned i = 0; i < n; i++)
        found += records[i].kind == kind && records[i].bytes == size && records[i].hash == hash &&
                 records[i].host_bytes == host;
    CHECK_EQ(found, 1);
}

/* Once the client is done: its own copies, launch and time, and their
 * hashes; then the session stopped while it is connected, then it goes. */
static void client_check(struct client *c)
{
    char byte = 0;
    CHECK(read(c->control, &byte, 1) == 1 && byte == 'd');
    struct kgemu_served_stats stats;
    CHECK_CU(api.stats(c->served, &stats));
    CHECK(!stats.ended && stats.device_ms > 0);
    struct kgemu_fault fault;
    CHECK_EQ(api.fault(c->served, &fault), 0);
    size_t bytes = c->floats * sizeof(float);
    CHECK_EQ(stats.copies[KGEMU_COPY_HTOD], c->cheats ? 3 : 1);
    CHECK_EQ(stats.copies[KGEMU_COPY_DTOH], 1);
    CHECK_EQ(stats.copies[KGEMU_COPY_DTOD], c->cheats);
    CHECK_EQ(stats.bytes[KGEMU_COPY_HTOD], c->cheats ? 2 * bytes : bytes);
    CHECK_EQ(stats.bytes[KGEMU_COPY_DTOH], bytes);
    CHECK_EQ(stats.launches, c->launches);
    float *x = inputs(c->floats, c->seed), *y = outputs(x, c->floats);
    check_record(c, KGEMU_COPY_HTOD, x, bytes, 0);
    check_record(c, KGEMU_COPY_DTOH, y, bytes, c->cheats ? bytes : 0);
    free(x);
    free(y);
    CHECK_EQ(api.stop(c->served), 0);
    close(c->control);
    close(c->fd);
    int status = 0;
    CHECK(waitpid(c->pid, &status, 0) == c->pid);
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fprintf(stderr, "  (a client failed: status %#x)\n", (unsigned)status);
}

/* The faulting client: its session has the fault, the others none. */
static void client_fault_check(const char *remote_dir, char *self)
{
    char small[32];
    snprintf(small, sizeof small, "%zu", SMALL_FLOATS);
    struct client c = {.floats = SMALL_FLOATS, .seed = 11, .launches = 1};
    client_start(&c, remote_dir, (char *[]){self, "client", small, "11", NULL, "fault", NULL}, 4);
    char byte = 0;
    CHECK(read(c.control, &byte, 1) == 1 && byte == 'd');
    struct kgemu_fault fault;
    memset(&fault, 0, sizeof fault);
    CHECK_EQ(api.fault(c.served, &fault), 1);
    CHECK_EQ(fault.code, CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(strcmp(fault.kernel, "twice") == 0 && fault.has_thread && fault.message[0]);
    CHECK_EQ(api.fault(c.served, NULL), 0);
    CHECK_EQ(api.stop(c.served), 0);
    close(c.control);
    close(c.fd);
    int status = 0;
    CHECK(waitpid(c.pid, &status, 0) == c.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int numba_present(void)
{
    return access(PYTHON, X_OK) == 0 && system(PYTHON " -c 'import numba' >/dev/null 2>&1") == 0;
}

static int api_found(void)
{
    api.start = (serve_start_fn)dlsym(RTLD_DEFAULT, "kgemu_serve_start");
    api.stats = (served_stats_fn)dlsym(RTLD_DEFAULT, "kgemu_served_stats");
    api.copies = (served_copies_fn)dlsym(RTLD_DEFAULT, "kgemu_served_copies");
    api.stop = (serve_stop_fn)dlsym(RTLD_DEFAULT, "kgemu_serve_stop");
    api.hash = (hash_fn)dlsym(RTLD_DEFAULT, "kgemu_hash");
    api.fault = (served_fault_fn)dlsym(RTLD_DEFAULT, "kgemu_served_fault");
    return api.start && api.stats && api.copies && api.stop && api.hash && api.fault;
}

int main(int argc, char **argv)
{
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "client") == 0)
        return run_client(strtoull(argv[2], NULL, 10), (unsigned)atoi(argv[3]), atoi(argv[4]),
                          argc < 6                        ? CLIENT_PLAIN
                          : strcmp(argv[5], "cheat") == 0 ? CLIENT_CHEATS
                                                          : CLIENT_FAULTS);
    Dl_info where;
    if (!gpu_test_is_virtual()) {
        printf("skipped: the driver is not kgrade's virtual GPU\n");
        return gpu_test_summary();
    }
    if (!CHECK(api_found() && dladdr((void *)api.start, &where) != 0))
        return gpu_test_summary();
    char library[PATH_MAX], remote_dir[PATH_MAX], self[PATH_MAX], small[32], big[32];
    snprintf(library, sizeof library, "%s", where.dli_fname);
    snprintf(remote_dir, sizeof remote_dir, "%s/remote", dirname(library));
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(small, sizeof small, "%zu", SMALL_FLOATS);
    snprintf(big, sizeof big, "%zu", BIG_FLOATS);
    struct client a = {.floats = SMALL_FLOATS, .seed = 3, .launches = 1};
    struct client b = {.floats = BIG_FLOATS, .seed = 7, .launches = 1};
    client_start(&a, remote_dir, (char *[]){self, "client", small, "3", NULL, NULL}, 4);
    client_start(&b, remote_dir, (char *[]){self, "client", big, "7", NULL, NULL}, 4);
    client_check(&a);
    client_check(&b);
    struct client cheater = {.floats = SMALL_FLOATS, .seed = 9, .launches = 1, .cheats = true};
    client_start(&cheater, remote_dir, (char *[]){self, "client", small, "9", NULL, "cheat", NULL},
                 4);
    client_check(&cheater);
    client_fault_check(remote_dir, self);
    if (numba_present()) {
        struct client n = {.floats = NUMBA_FLOATS, .seed = 5, .launches = 1};
        client_start(&n, remote_dir, (char *[]){PYTHON, NUMBA_SCRIPT, NULL, NULL}, 2);
        client_check(&n);
    } else {
        printf("numba part skipped: no %s with numba\n", PYTHON);
    }
    return gpu_test_summary();
}
