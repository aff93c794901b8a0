/*
 * Transfers on the modeled timeline (emulator/README.md, "Transfers"):
 * copies between host and device take the time of the GPU's PCIe link,
 * pinned memory faster than pageable; copies within device memory and
 * memsets that of its DRAM; each copy a fixed latency. Copies and kernels
 * of different streams overlap as the copy engines allow (one copy each
 * way at a time, one kernel at a time), the legacy NULL stream orders the
 * blocking streams, a pageable copy holds the host until it is done, and
 * events record points of that timeline, so that a copy before a kernel's
 * start event never counts in the kernel's time.
 *
 * Written against cuda.h and NVRTC. The rates are checked within bands a
 * GPU's figures fall in too (a pinned copy at 60-100 % of its PCIe
 * generation's raw rate, a copy within device memory at 30-50 % of the
 * DRAM peak since it reads and writes every byte); on the virtual GPU,
 * whose timeline is exact, overlaps and event points are also checked
 * exactly. The rates run on every modeled device (KGEMU_DEVICE).
 */
#include <math.h>
#include <stdbool.h>

#include "gpu_test.h"

#define RATE_BYTES     ((size_t)256 << 20) /* the brief's 256 MB copies on the H100 */
#define CHILD_BYTES    ((size_t)64 << 20)  /* on the other devices */
#define PROBE_BYTES    ((size_t)1 << 20)
#define TIMELINE_MAX   ((size_t)64 << 20) /* a timeline case's copy, at most */
#define SPIN_STEPS     100000
#define SPIN_THREADS   32
#define SMALL_COPIES   1000
#define LATENCY_MAX_MS 0.05
/* What a pageable copy costs at least, against a pinned one. */
#define PAGEABLE_SLOWER 1.2

static const char source[] =
    "extern \"C\" __global__ void spin(float *out, int steps)\n"
    "{\n"
    "    float x = out[threadIdx.x];\n"
    "    for (int k = 0; k < steps; k++)\n"
    "        x = x * 0.999f + 1.0f; /* each step waits for the one before */\n"
    "    out[threadIdx.x] = x;\n"
    "}\n";

static int is_virtual;

/* One x16 link's raw rate each way, by PCIe generation: 128 bits in 130
 * at 8, 16, 32 GT/s a lane. The GPUs of compute capability 7.5, 8.0 and
 * 9.0 (T4, A100, H100/H200) have PCIe 3.0, 4.0 and 5.0. */
static double link_raw_rate(int cc_major)
{
    double gt_per_s = cc_major >= 9 ? 32e9 : cc_major == 8 ? 16e9 : 8e9;
    return gt_per_s * 16 * 128 / 130 / 8;
}

static int attribute(CUdevice_attribute which)
{
    CUdevice device;
    int value = 0;
    CHECK_CU(cuDeviceGet(&device, 0));
    CHECK_CU(cuDeviceGetAttribute(&value, which, device));
    return value;
}

/* The DRAM peak, from the memory clock and bus width (double data rate). */
static double dram_peak(void)
{
    return 2.0 * attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3 *
           attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8;
}

/* The ms between events on the NULL stream around `work(arg)`; the stop
 * event waits for the work of every blocking stream issued before it. */
static float event_ms(void (*work)(const void *), const void *arg)
{
    CUevent start, stop;
    float ms = -1;
    CHECK_CU(cuEventCreate(&start, 0));
    CHECK_CU(cuEventCreate(&stop, 0));
    CHECK_CU(cuEventRecord(start, NULL));
    work(arg);
    CHECK_CU(cuEventRecord(stop, NULL));
    CHECK_CU(cuEventSynchronize(stop));
    CHECK_CU(cuEventElapsedTime(&ms, start, stop));
    CHECK_CU(cuEventDestroy(start));
    CHECK_CU(cuEventDestroy(stop));
    return ms;
}

/* ------------------------------------------------------------- rates */

/* The buffers of the rate checks: `bytes` each. */
struct rate_buffers {
    size_t bytes;
    void *pinned, *pageable;
    CUdeviceptr a, b;
};

enum copy_kind { HTOD_PINNED, HTOD_PAGEABLE, DTOH_PINNED, DTOH_PAGEABLE, DTOD, MEMSET };

static void copy_once(const struct rate_buffers *r, enum copy_kind kind, size_t bytes)
{
    switch (kind) {
    case HTOD_PINNED:
        CHECK_CU(cuMemcpyHtoD(r->a, r->pinned, bytes));
        break;
    case HTOD_PAGEABLE:
        CHECK_CU(cuMemcpyHtoD(r->a, r->pageable, bytes));
        break;
    case DTOH_PINNED:
        CHECK_CU(cuMemcpyDtoH(r->pinned, r->a, bytes));
        break;
    case DTOH_PAGEABLE:
        CHECK_CU(cuMemcpyDtoH(r->pageable, r->a, bytes));
        break;
    case DTOD:
        CHECK_CU(cuMemcpyDtoD(r->b, r->a, bytes));
        break;
    case MEMSET:
        CHECK_CU(cuMemsetD8(r->b, 0x5a, bytes));
        break;
    }
}

struct copies {
    const struct rate_buffers *r;
    enum copy_kind kind;
    size_t bytes;
    int count;
};

static void copies_run(const void *arg)
{
    const struct copies *c = arg;
    for (int i = 0; i < c->count; i++)
        copy_once(c->r, c->kind, c->bytes);
}

/* The ms `count` copies of `bytes` take. */
static float timed_copies(const struct rate_buffers *r, enum copy_kind kind, size_t bytes,
                          int count)
{
    struct copies c = {r, kind, bytes, count};
    return event_ms(copies_run, &c);
}

/* Bytes a second of a copy that took `ms`, within [low, high]. */
static void check_rate(const char *what, size_t bytes, float ms, double low, double high)
{
    double rate = (double)bytes / (ms / 1e3);
    if (!CHECK(ms > 0 && rate >= low && rate <= high))
        fprintf(stderr, "  %s: %zu bytes in %.4f ms: %.1f GB/s, expected %.1f-%.1f GB/s\n", what,
                bytes, ms, rate / 1e9, low / 1e9, high / 1e9);
}

static void check_slower(const char *what, float slow, float fast, double factor)
{
    if (!CHECK(slow >= factor * fast))
        fprintf(stderr, "  %s: %.4f ms, not %.2fx the pinned copy's %.4f ms\n", what, slow, factor,
                fast);
}

static void check_rates(const struct rate_buffers *r)
{
    double link = link_raw_rate(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
    double peak = dram_peak();
    float htod = timed_copies(r, HTOD_PINNED, r->bytes, 1);
    float dtoh = timed_copies(r, DTOH_PINNED, r->bytes, 1);
    check_rate("pinned host to device", r->bytes, htod, 0.6 * link, link);
    check_rate("pinned device to host", r->bytes, dtoh, 0.6 * link, link);
    check_slower("pageable host to device", timed_copies(r, HTOD_PAGEABLE, r->bytes, 1), htod,
                 PAGEABLE_SLOWER);
    check_slower("pageable device to host", timed_copies(r, DTOH_PAGEABLE, r->bytes, 1), dtoh,
                 PAGEABLE_SLOWER);
    check_rate("device to device", r->bytes, timed_copies(r, DTOD, r->bytes, 1), 0.3 * peak,
               0.5 * peak);
    check_rate("memset", r->bytes, timed_copies(r, MEMSET, r->bytes, 1), 0.6 * peak, peak);
}

/* A copy of a few bytes costs its latency: more than nothing, far less
 * than a kernel's launch on a GPU, and the same each time. */
static void check_latency(const struct rate_buffers *r)
{
    float one = timed_copies(r, HTOD_PINNED, 4, 1);
    float many = timed_copies(r, HTOD_PINNED, 4, SMALL_COPIES);
    if (!CHECK(one > 0 && one <= LATENCY_MAX_MS))
        fprintf(stderr, "  a 4-byte copy took %.6f ms\n", one);
    if (is_virtual && !CHECK(fabsf(many - SMALL_COPIES * one) <= 1e-3f * many))
        fprintf(stderr, "  %d 4-byte copies took %.6f ms, one %.6f ms\n", SMALL_COPIES, many, one);
}

static int rate_buffers_make(struct rate_buffers *r, size_t bytes)
{
    memset(r, 0, sizeof *r);
    r->bytes = bytes;
    r->pageable = malloc(bytes);
    return CHECK(r->pageable != NULL) && CHECK_CU(cuMemHostAlloc(&r->pinned, bytes, 0)) &&
           CHECK_CU(cuMemAlloc(&r->a, bytes)) && CHECK_CU(cuMemAlloc(&r->b, bytes));
}

static void rate_buffers_free(struct rate_buffers *r)
{
    free(r->pageable);
    if (r->pinned)
        CHECK_CU(cuMemFreeHost(r->pinned));
    cuMemFree(r->a);
    cuMemFree(r->b);
}

static void rates(size_t bytes)
{
    struct rate_buffers r;
    if (rate_buffers_make(&r, bytes)) {
        memset(r.pageable, 1, bytes); /* its pages exist, as a program's data's do */
        check_rates(&r);
        check_latency(&r);
    }
    rate_buffers_free(&r);
}

/* The rates of another modeled GPU, in a child process (gpu_test_in_child). */
static void child_rates(void)
{
    CUcontext ctx;
    if (gpu_test_start(&ctx)) {
        rates(CHILD_BYTES);
        CHECK_CU(cuCtxDestroy(ctx));
    }
}

/* ---------------------------------------------------------- timelines */

/* What the timeline cases use: a kernel of a fixed length, copies of
 * about its length, three streams. */
struct timeline {
    CUfunction spin;
    CUdeviceptr out;
    CUstream a, b;  /* blocking: the NULL stream orders them */
    CUstream quiet; /* CU_STREAM_NON_BLOCKING */
    CUevent mark;
    size_t bytes;
    void *pinned, *pageable; /* 2 × bytes: the first half goes up, the second comes down */
    CUdeviceptr device;      /* 2 × bytes */
};

static void spin(const struct timeline *t, CUstream stream)
{
    int steps = SPIN_STEPS;
    CUdeviceptr out = t->out;
    void *args[] = {&out, &steps};
    CHECK_CU(cuLaunchKernel(t->spin, 1, 1, 1, SPIN_THREADS, 1, 1, 0, stream, args, NULL));
}

static void upload(const struct timeline *t, CUstream stream)
{
    CHECK_CU(cuMemcpyHtoDAsync(t->device, t->pinned, t->bytes, stream));
}

static void download(const struct timeline *t, CUstream stream)
{
    CHECK_CU(
        cuMemcpyDtoHAsync((char *)t->pinned + t->bytes, t->device + t->bytes, t->bytes, stream));
}

static void upload_pageable(const struct timeline *t, CUstream stream)
{
    CHECK_CU(cuMemcpyHtoDAsync(t->device, t->pageable, t->bytes, stream));
}

struct timeline_work {
    const struct timeline *t;
    void (*work)(const struct timeline *);
};

static void timeline_work_run(const void *arg)
{
    const struct timeline_work *w = arg;
    w->work(w->t);
}

/* The ms `work` takes, between events on the NULL stream. */
static float timed(const struct timeline *t, void (*work)(const struct timeline *))
{
    struct timeline_work w = {t, work};
    return event_ms(timeline_work_run, &w);
}

static void kernel_a(const struct timeline *t)
{
    spin(t, t->a);
}

static void kernel_null(const struct timeline *t)
{
    spin(t, NULL);
}

static void upload_b(const struct timeline *t)
{
    upload(t, t->b);
}

static void download_b(const struct timeline *t)
{
    download(t, t->b);
}

static void pageable_b(const struct timeline *t)
{
    upload_pageable(t, t->b);
}

static void kernel_a_upload_b(const struct timeline *t)
{
    spin(t, t->a);
    upload(t, t->b);
}

static void kernel_a_upload_null(const struct timeline *t)
{
    spin(t, t->a);
    upload(t, NULL);
}

/* The NULL stream does not wait for a non-blocking stream: the stop event
 * is made to, through an event. */
static void kernel_quiet_upload_null(const struct timeline *t)
{
    spin(t, t->quiet);
    upload(t, NULL);
    CHECK_CU(cuEventRecord(t->mark, t->quiet));
    CHECK_CU(cuStreamWaitEvent(NULL, t->mark, 0));
}

static void kernel_per_thread_upload_null(const struct timeline *t)
{
    spin(t, CU_STREAM_PER_THREAD);
    upload(t, NULL);
}

static void kernel_per_thread_upload_b(const struct timeline *t)
{
    spin(t, CU_STREAM_PER_THREAD);
    upload(t, t->b);
}

static void upload_a_download_b(const struct timeline *t)
{
    upload(t, t->a);
    download(t, t->b);
}

static void upload_a_upload_b(const struct timeline *t)
{
    upload(t, t->a);
    upload(t, t->b);
}

static void pinned_b_then_kernel_a(const struct timeline *t)
{
    upload(t, t->b);
    spin(t, t->a);
}

/* The pageable copy holds the host until it is done: the kernel issued
 * after it cannot overlap it. */
static void pageable_b_then_kernel_a(const struct timeline *t)
{
    upload_pageable(t, t->b);
    spin(t, t->a);
}

/* The host waits for stream a before it issues b's copy. */
static void kernel_a_sync_upload_b(const struct timeline *t)
{
    spin(t, t->a);
    CHECK_CU(cuStreamSynchronize(t->a));
    upload(t, t->b);
}

/* Stream b waits for an event recorded after a's kernel. */
static void kernel_a_event_upload_b(const struct timeline *t)
{
    spin(t, t->a);
    CHECK_CU(cuEventRecord(t->mark, t->a));
    CHECK_CU(cuStreamWaitEvent(t->b, t->mark, 0));
    upload(t, t->b);
}

/* Work of `x` and `y` ms that overlaps: the pair saves at least half the
 * shorter one (on the virtual GPU, all of it). */
static void check_overlapped(const char *what, float pair, float x, float y)
{
    bool ok =
        CHECK(pair <= x + y - 0.5f * fminf(x, y)) && (!is_virtual || CHECK(pair == fmaxf(x, y)));
    if (!ok)
        fprintf(stderr, "  %s: %.4f ms, alone %.4f and %.4f ms: should overlap\n", what, pair, x,
                y);
}

/* Work of `x` and `y` ms that runs one after the other. */
static void check_serialized(const char *what, float pair, float x, float y)
{
    bool ok = CHECK(pair >= 0.9f * (x + y)) &&
              (!is_virtual || CHECK(fabsf(pair - (x + y)) <= 1e-5f * (x + y)));
    if (!ok)
        fprintf(stderr, "  %s: %.4f ms, alone %.4f and %.4f ms: should not overlap\n", what, pair,
                x, y);
}

static void check_overlaps(const struct timeline *t, float k, float up)
{
    float down = timed(t, download_b), pageable = timed(t, pageable_b);
    check_overlapped("a kernel in a, a copy in b", timed(t, kernel_a_upload_b), k, up);
    check_overlapped("a copy in b, then a kernel in a", timed(t, pinned_b_then_kernel_a), k, up);
    check_serialized("a kernel in a, a copy in the NULL stream", timed(t, kernel_a_upload_null), k,
                     up);
    check_overlapped("a kernel in a non-blocking stream, a copy in the NULL stream",
                     timed(t, kernel_quiet_upload_null), k, up);
    check_serialized("a kernel in the per-thread stream, a copy in the NULL stream",
                     timed(t, kernel_per_thread_upload_null), k, up);
    check_overlapped("a kernel in the per-thread stream, a copy in b",
                     timed(t, kernel_per_thread_upload_b), k, up);
    check_overlapped("copies each way", timed(t, upload_a_download_b), up, down);
    check_serialized("two copies to the device", timed(t, upload_a_upload_b), up, up);
    check_serialized("a pageable copy in b, then a kernel in a", timed(t, pageable_b_then_kernel_a),
                     pageable, k);
    check_serialized("a kernel in a, the host waits, a copy in b", timed(t, kernel_a_sync_upload_b),
                     k, up);
    check_serialized("b waits for an event after a's kernel", timed(t, kernel_a_event_upload_b), k,
                     up);
}

/* Events record points of the timeline: where their stream's work ends. */
static void check_event_points(const struct timeline *t, float k, float up)
{
    CUevent start, after_kernel, after_copy, stop;
    CHECK_CU(cuEventCreate(&start, 0));
    CHECK_CU(cuEventCreate(&after_kernel, 0));
    CHECK_CU(cuEventCreate(&after_copy, 0));
    CHECK_CU(cuEventCreate(&stop, 0));
    CHECK_CU(cuEventRecord(start, NULL));
    spin(t, t->a);
    CHECK_CU(cuEventRecord(after_kernel, t->a));
    upload(t, t->b);
    CHECK_CU(cuEventRecord(after_copy, t->b));
    CHECK_CU(cuEventRecord(stop, NULL));
    CHECK_CU(cuEventSynchronize(stop));
    float to_kernel = -1, to_copy = -1, to_stop = -1;
    CHECK_CU(cuEventElapsedTime(&to_kernel, start, after_kernel));
    CHECK_CU(cuEventElapsedTime(&to_copy, start, after_copy));
    CHECK_CU(cuEventElapsedTime(&to_stop, start, stop));
    CHECK(to_stop >= to_kernel && to_stop >= to_copy);
    if (is_virtual && !CHECK(to_kernel == k && to_copy == up && to_stop == fmaxf(k, up)))
        fprintf(stderr, "  events at %.4f, %.4f, %.4f ms; the kernel %.4f, the copy %.4f ms\n",
                to_kernel, to_copy, to_stop, k, up);
    cuEventDestroy(start);
    cuEventDestroy(after_kernel);
    cuEventDestroy(after_copy);
    cuEventDestroy(stop);
}

/* As the grader times a kernel: copies before the start event, in any
 * blocking stream, are not in its time. */
static void check_no_leak(const struct timeline *t)
{
    float alone = timed(t, kernel_null);
    CHECK_CU(cuMemcpyHtoD(t->device, t->pageable, t->bytes));
    float after_copy = timed(t, kernel_null);
    upload(t, t->b);
    float after_async = timed(t, kernel_null);
    bool ok = is_virtual ? CHECK(after_copy == alone && after_async == alone)
                         : CHECK(after_copy <= 1.1f * alone && after_async <= 1.1f * alone);
    if (!ok)
        fprintf(stderr, "  a kernel alone %.4f ms, after a copy %.4f and %.4f ms\n", alone,
                after_copy, after_async);
}

/* kgemu_device_time: where the queued work ends, which moves by a copy's
 * time, and by the longer of a kernel and a copy that overlap. */
static void check_device_time(const struct timeline *t, float k, float up)
{
    int (*device_time)(double *);
    *(void **)&device_time = dlsym(RTLD_DEFAULT, "kgemu_device_time");
    if (!is_virtual || !CHECK(device_time != NULL))
        return;
    double before = -1, after_copy = -1, after_pair = -1;
    CHECK_EQ(device_time(NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuCtxSynchronize());
    CHECK_EQ(device_time(&before), CUDA_SUCCESS);
    upload(t, t->b);
    CHECK_EQ(device_time(&after_copy), CUDA_SUCCESS);
    CHECK_CU(cuCtxSynchronize()); /* the pair starts where the copy ends */
    kernel_a_upload_b(t);
    CHECK_EQ(device_time(&after_pair), CUDA_SUCCESS);
    if (!CHECK(fabs(after_copy - before - up) <= 1e-5 * up &&
               fabs(after_pair - after_copy - fmaxf(k, up)) <= 1e-5 * k))
        fprintf(stderr, "  device time %.6f, %.6f, %.6f ms; the copy %.6f, the kernel %.6f ms\n",
                before, after_copy, after_pair, up, k);
}

static void probe_copy(const struct timeline *t)
{
    CHECK_CU(cuMemcpyHtoD(t->device, t->pinned, PROBE_BYTES));
}

/* A copy about as long as the kernel, so that overlaps show. */
static size_t copy_bytes_like(const struct timeline *t, float kernel_ms)
{
    float probe = timed(t, probe_copy);
    size_t bytes = probe > 0 ? (size_t)((double)kernel_ms / probe * PROBE_BYTES) : PROBE_BYTES;
    bytes = bytes < PROBE_BYTES ? PROBE_BYTES : bytes > TIMELINE_MAX ? TIMELINE_MAX : bytes;
    return bytes / 4096 * 4096;
}

static int timeline_make(struct timeline *t, CUmodule *module)
{
    memset(t, 0, sizeof *t);
    t->bytes = TIMELINE_MAX;
    t->pageable = calloc(2, TIMELINE_MAX);
    return CHECK(t->pageable != NULL) &&
           CHECK_CU(gpu_test_load_source(module, source, "transfers.cu")) &&
           CHECK_CU(cuModuleGetFunction(&t->spin, *module, "spin")) &&
           CHECK_CU(cuMemAlloc(&t->out, SPIN_THREADS * sizeof(float))) &&
           CHECK_CU(cuMemsetD8(t->out, 0, SPIN_THREADS * sizeof(float))) &&
           CHECK_CU(cuStreamCreate(&t->a, CU_STREAM_DEFAULT)) &&
           CHECK_CU(cuStreamCreate(&t->b, CU_STREAM_DEFAULT)) &&
           CHECK_CU(cuStreamCreate(&t->quiet, CU_STREAM_NON_BLOCKING)) &&
           CHECK_CU(cuEventCreate(&t->mark, CU_EVENT_DISABLE_TIMING)) &&
           CHECK_CU(cuMemHostAlloc(&t->pinned, 2 * TIMELINE_MAX, 0)) &&
           CHECK_CU(cuMemAlloc(&t->device, 2 * TIMELINE_MAX));
}

static void timelines(void)
{
    struct timeline t;
    CUmodule module = NULL;
    if (timeline_make(&t, &module)) {
        float k = timed(&t, kernel_a);
        t.bytes = copy_bytes_like(&t, k);
        float up = timed(&t, upload_b);
        CHECK(k > 0 && up > 0);
        check_overlaps(&t, k, up);
        check_event_points(&t, k, up);
        check_no_leak(&t);
        check_device_time(&t, k, up);
    }
    CHECK_CU(cuCtxSynchronize());
    free(t.pageable);
    if (t.pinned)
        cuMemFreeHost(t.pinned);
    cuMemFree(t.device);
    cuMemFree(t.out);
    if (module)
        cuModuleUnload(module);
}

int main(void)
{
    is_virtual = gpu_test_is_virtual();
    if (is_virtual) { /* each model's link and memory, before this process's cuInit */
        gpu_test_in_child("a100", child_rates);
        gpu_test_in_child("t4", child_rates);
        gpu_test_in_child("h200", child_rates);
    }
    CUcontext ctx;
    if (!gpu_test_start(&ctx))
        return gpu_test_summary();
    rates(RATE_BYTES);
    timelines();
    CHECK_CU(cuCtxDestroy(ctx));
    return gpu_test_summary();
}
