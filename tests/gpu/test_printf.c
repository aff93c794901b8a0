/*
 * printf from kernels on the virtual GPU. Each case runs in a child process
 * (fork before any CUDA call) whose standard output is a pipe the parent
 * reads, so the exact text can be checked:
 * - the conversions %d %i %u %x %X %o %ld %lld %llu %llx %f %e %E %g %G %s
 *   %c %p and %%, with flags, widths and precisions, ints, 64-bit values,
 *   floats promoted to double, strings from literals and from device
 *   memory;
 * - printf's return value, the number of arguments (CUDA Programming Guide,
 *   "Formatted Output");
 * - many threads at once (every line once, in any order across warps);
 * - the ordering with the host's output around a launch;
 * - output beyond CU_LIMIT_PRINTF_FIFO_SIZE, truncated with a note, the
 *   lines that remain whole and unrepeated.
 * A child that hangs is killed after CHILD_SECONDS and fails the test.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_test.h"

#define CHILD_SECONDS 60
#define OUTPUT_MAX    (1 << 20)
#define FIFO_BYTES    4096
#define MANY_BLOCKS   3
#define MANY_THREADS  70

/* ------------------------------------------------------ child processes */

struct child_output {
    char *text; /* what the child wrote to stdout, NUL-terminated */
    size_t size;
    int status; /* the child's exit status, or -1 when it did not exit normally */
};

/* Runs `body` in a child with stdout on a pipe; collects what it writes. */
static int run_child(int (*body)(void), struct child_output *out)
{
    int fds[2];
    memset(out, 0, sizeof *out);
    out->status = -1;
    out->text = calloc(1, OUTPUT_MAX + 1);
    if (!CHECK(out->text != NULL) || !CHECK(pipe(fds) == 0))
        return 0;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        int rc = body();
        fflush(stdout);
        _exit(rc);
    }
    close(fds[1]);
    if (!CHECK(pid > 0)) {
        close(fds[0]);
        return 0;
    }
    time_t deadline = time(NULL) + CHILD_SECONDS;
    int timed_out = 0;
    for (;;) {
        struct pollfd p = {fds[0], POLLIN, 0};
        int ready = poll(&p, 1, 1000);
        if (ready > 0) {
            ssize_t k = read(fds[0], out->text + out->size,
                             out->size < OUTPUT_MAX ? OUTPUT_MAX - out->size : 1);
            if (k <= 0)
                break;
            if (out->size < OUTPUT_MAX)
                out->size += (size_t)k;
        }
        if (time(NULL) > deadline) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
    }
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    out->text[out->size] = '\0';
    if (!timed_out && WIFEXITED(status))
        out->status = WEXITSTATUS(status);
    if (timed_out)
        fprintf(stderr, "  the child did not finish in %d s\n", CHILD_SECONDS);
    return CHECK(!timed_out) && CHECK_EQ(out->status, 0);
}

/* In the child: a new current context, with the printf FIFO limit set
 * when fifo_bytes is not 0. Failures go to the exit status. */
static int child_context(size_t fifo_bytes)
{
    CUcontext context;
    if (cuInit(0) != CUDA_SUCCESS || cuCtxCreate(&context, NULL, 0, 0) != CUDA_SUCCESS)
        return 2;
    if (fifo_bytes != 0) {
        size_t got = 0;
        if (cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, fifo_bytes) != CUDA_SUCCESS ||
            cuCtxGetLimit(&got, CU_LIMIT_PRINTF_FIFO_SIZE) != CUDA_SUCCESS || got != fifo_bytes)
            return 3;
    }
    return 0;
}

/* In the child's context: loads `source`, launches `kernel` and waits. */
static int child_launch(const char *source, const char *kernel, unsigned blocks, unsigned threads,
                        void **args)
{
    CUmodule module;
    CUfunction f;
    if (gpu_test_load_source(&module, source, kernel) != CUDA_SUCCESS ||
        cuModuleGetFunction(&f, module, kernel) != CUDA_SUCCESS)
        return 4;
    CUresult rc = cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
    if (rc == CUDA_SUCCESS)
        rc = cuCtxSynchronize();
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "launch of %s: %s\n", kernel, gpu_test_error_name(rc));
        gpu_test_print_fault();
        return 5;
    }
    return 0;
}

/* ------------------------------------------------------------- formats */

static const char formats_source[] =
    "extern \"C\" __global__ void formats(const char *dynamic, int *returned)\n"
    "{\n"
    "    float inf = __int_as_float(0x7f800000);\n"
    "    returned[0] = printf(\"d=%d i=%i u=%u x=%x X=%X o=%o\\n\", -42, 7, 4000000000u,\n"
    "                         0xbeef, 0xbeef, 8);\n"
    "    printf(\"ld=%ld lld=%lld llu=%llu llx=%llx\\n\", -1234567890123l,\n"
    "           (-9223372036854775807ll - 1), 18446744073709551615ull, 0x123456789abcdefull);\n"
    "    printf(\"f=%f e=%e E=%E g=%g G=%G g2=%g\\n\", 3.14159, 12345.678, 0.00042, 0.0001234,\n"
    "           1e20, 100000.0);\n"
    "    printf(\"w=[%5d] [%-5d] [%05d] [%+d] [% d] [%x]\\n\", 42, 42, 42, 42, 42, -1);\n"
    "    printf(\"p=[%.3f] [%10.2f] [%-10.1e] [%.0f] [%#x] [%#o] [%8.3s]\\n\", 2.0 / 3, -1.5,\n"
    "           12345.0, 2.5, 255, 8, \"abcdef\");\n"
    "    printf(\"s=[%s] [%10s] [%-10s] [%.3s] c=[%c%c%c]\\n\", \"hello\", \"right\", \"left\",\n"
    "           \"truncate\", 'a', 'b', 'c');\n"
    "    printf(\"promoted %f %.2f %g\\n\", 1.5f, -0.25f, inf);\n"
    "    printf(\"dynamic [%s] at %p\\n\", dynamic, (void *)0x1234);\n"
    "    returned[1] = printf(\"percent %% and no arguments\\n\");\n"
    "    printf(\"%s|%d|%s\\n\", \"\", 0, \"end\");\n"
    "    returned[2] = printf(\"%hd %hhu %lu\\n\", (short)-5, (unsigned char)200, 77ul);\n"
    "}\n";

static const char formats_want[] =
    "d=-42 i=7 u=4000000000 x=beef X=BEEF o=10\n"
    "ld=-1234567890123 lld=-9223372036854775808 llu=18446744073709551615 llx=123456789abcdef\n"
    "f=3.141590 e=1.234568e+04 E=4.200000E-04 g=0.0001234 G=1E+20 g2=100000\n"
    "w=[   42] [42   ] [00042] [+42] [ 42] [ffffffff]\n"
    "p=[0.667] [     -1.50] [1.2e+04   ] [2] [0xff] [010] [     abc]\n"
    "s=[hello] [     right] [left      ] [tru] c=[abc]\n"
    "promoted 1.500000 -0.25 inf\n"
    "dynamic [from device memory] at 0x1234\n"
    "percent % and no arguments\n"
    "|0|end\n"
    "-5 200 77\n";

static int formats_child(void)
{
    static const char text[] = "from device memory";
    CUdeviceptr d_text, d_returned;
    int returned[3] = {-9, -9, -9};
    int rc = child_context(0);
    if (rc != 0)
        return rc;
    if (cuMemAlloc(&d_text, sizeof text) != CUDA_SUCCESS ||
        cuMemAlloc(&d_returned, sizeof returned) != CUDA_SUCCESS ||
        cuMemcpyHtoD(d_text, text, sizeof text) != CUDA_SUCCESS)
        return 6;
    void *args[] = {&d_text, &d_returned};
    rc = child_launch(formats_source, "formats", 1, 1, args);
    if (rc == 0 && cuMemcpyDtoH(returned, d_returned, sizeof returned) == CUDA_SUCCESS)
        printf("returned %d %d %d\n", returned[0], returned[1], returned[2]);
    return rc;
}

/* Prints the first line where `got` and `want` differ. */
static void show_difference(const char *got, const char *want)
{
    size_t line = 1;
    while (*got && *got == *want) {
        line += *got == '\n';
        got++;
        want++;
    }
    const char *g_end = strchr(got, '\n'), *w_end = strchr(want, '\n');
    fprintf(stderr, "  line %zu differs at \"%.*s\": expected \"%.*s\"\n", line,
            (int)(g_end ? g_end - got : (long)strlen(got)), got,
            (int)(w_end ? w_end - want : (long)strlen(want)), want);
}

static void test_formats(void)
{
    struct child_output out;
    if (run_child(formats_child, &out)) {
        char want[sizeof formats_want + 64];
        /* printf returns the number of arguments: 6, 0 and 3 */
        snprintf(want, sizeof want, "%sreturned 6 0 3\n", formats_want);
        if (!CHECK(strcmp(out.text, want) == 0))
            show_difference(out.text, want);
    }
    free(out.text);
}

/* ------------------------------------------------------- many threads */

static const char many_source[] =
    "extern \"C\" __global__ void many()\n"
    "{\n"
    "    if (threadIdx.x % 3 == 1) return;\n"
    "    printf(\"block %d thread %3d value %d\\n\", blockIdx.x, threadIdx.x,\n"
    "           (int)(threadIdx.x * threadIdx.x) - 100 * (int)blockIdx.x);\n"
    "}\n";

static int many_child(void)
{
    int rc = child_context(0);
    printf("before the launch\n");
    if (rc == 0)
        rc = child_launch(many_source, "many", MANY_BLOCKS, MANY_THREADS, NULL);
    printf("after the synchronization\n");
    return rc;
}

static int compare_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits text into its lines (in place); returns how many. */
static int split_lines(char *text, char **lines, int max)
{
    int n = 0;
    for (char *p = text; *p && n < max;) {
        char *end = strchr(p, '\n');
        lines[n++] = p;
        if (!end)
            break;
        *end = '\0';
        p = end + 1;
    }
    return n;
}

static void test_many_threads(void)
{
    enum { MAX_LINES = 1024 };
    static char *lines[MAX_LINES], *want_lines[MAX_LINES];
    static char want_text[MAX_LINES * 64];
    struct child_output out;
    if (!run_child(many_child, &out)) {
        free(out.text);
        return;
    }
    size_t used = 0;
    int n_want = 0;
    for (int b = 0; b < MANY_BLOCKS; b++)
        for (int t = 0; t < MANY_THREADS; t++)
            if (t % 3 != 1) {
                want_lines[n_want++] = want_text + used;
                used += (size_t)sprintf(want_text + used, "block %d thread %3d value %d", b, t,
                                        t * t - 100 * b) +
                        1;
            }
    int n = split_lines(out.text, lines, MAX_LINES);
    CHECK_EQ(n, n_want + 2);
    if (n == n_want + 2) {
        CHECK(strcmp(lines[0], "before the launch") == 0);
        CHECK(strcmp(lines[n - 1], "after the synchronization") == 0);
        qsort(lines + 1, (size_t)n_want, sizeof *lines, compare_lines);
        qsort(want_lines, (size_t)n_want, sizeof *want_lines, compare_lines);
        int wrong = 0;
        for (int i = 0; i < n_want; i++)
            if (strcmp(lines[1 + i], want_lines[i]) != 0 && wrong++ < 5)
                fprintf(stderr, "  line \"%s\", expected \"%s\"\n", lines[1 + i], want_lines[i]);
        CHECK_EQ(wrong, 0);
    }
    free(out.text);
}

/* -------------------------------------------------------- truncation */

static const char flood_source[] =
    "extern \"C\" __global__ void flood()\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    printf(\"line %05d: the quick brown fox jumps over\\n\", i);\n"
    "}\n";

#define FLOOD_THREADS 2000
#define FLOOD_TAIL    " the quick brown fox jumps over\n"
#define FLOOD_LINE    (11 + (int)sizeof FLOOD_TAIL - 1) /* "line 00000:" and the tail */

static int flood_child(void)
{
    int rc = child_context(FIFO_BYTES);
    return rc != 0 ? rc : child_launch(flood_source, "flood", FLOOD_THREADS / 100, 100, NULL);
}

static void test_truncation(void)
{
    struct child_output out;
    if (!run_child(flood_child, &out)) {
        free(out.text);
        return;
    }
    /* 88000 bytes were printed; at most FIFO_BYTES of them may come out,
     * then a note that says the output was cut. */
    const char *note = strstr(out.text, "truncated");
    CHECK(note != NULL);
    CHECK(out.size < FIFO_BYTES + 256);
    const char *note_line = note;
    while (note_line > out.text && note_line[-1] != '\n')
        note_line--;
    size_t data = (size_t)(note_line - out.text);
    CHECK(data > FIFO_BYTES / 2 && data <= FIFO_BYTES + 1);
    /* the whole lines before the note: well formed, each thread at most once */
    static unsigned char seen[FLOOD_THREADS];
    int bad = 0, whole = 0;
    for (const char *p = out.text; p + FLOOD_LINE <= note_line; p += FLOOD_LINE) {
        int i = -1;
        if (sscanf(p, "line %05d: ", &i) != 1 || i < 0 || i >= FLOOD_THREADS || seen[i] ||
            strncmp(p + 11, FLOOD_TAIL, sizeof FLOOD_TAIL - 1) != 0) {
            if (bad++ < 3)
                fprintf(stderr, "  bad line \"%.*s\"\n", FLOOD_LINE - 1, p);
            continue;
        }
        seen[i] = 1;
        whole++;
    }
    CHECK_EQ(bad, 0);
    CHECK(whole >= (FIFO_BYTES / 2) / FLOOD_LINE);
    free(out.text);
}

int main(void)
{
    /* no CUDA call in this process before the children are forked */
    test_formats();
    test_many_threads();
    test_truncation();
    return gpu_test_summary();
}
