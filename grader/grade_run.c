/*
 * One case of a grading: the protocol of DESIGN.md for one set of sizes.
 *
 * Inputs are generated on the host and kept pristine. The reference runs
 * first; its outputs are copied to host memory and its device buffers
 * overwritten, so its answer never sits on the device while student code
 * runs. Then the inputs are restored, the outputs poisoned (or zeroed), the
 * guard zones around every buffer (inside the same allocation) refilled,
 * and the student's launches run. Guards are checked, then outputs
 * compared (against the reference's alternative too, where the exercise
 * declares one). On the virtual GPU the timed case's student launches carry a
 * modeled-time budget of (speed bar × the reference's time).
 */
#include "grade_run.h"

#include "compare.h"
#include "gpu_wait.h"
#include "host_form.h"
#include "kernel_params.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The student's outputs are checked this many bytes at a time. */
#define CHECK_PART_BYTES ((size_t)16 << 20)

/* A reference run on fewer bytes than this is mostly overhead: it does not
 * tell the emulation's speed. */
#define SPEED_SAMPLE_BYTES_MIN (1u << 20)

/* An access of more bytes must be aligned to this many (a GPU's widest). */
#define ALIGNMENT_MAX 16u

bool run_fail(struct run *r, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(r->error, r->error_size, format, ap);
    va_end(ap);
    return false;
}

static int64_t eval(struct run *r, const char *text)
{
    return expr_value(text, &r->env);
}

/* -------------------------------------------------------------- buffers */

/* A host buffer of a case (hundreds of MB at the assessed sizes): on
 * huge-page boundaries with transparent huge pages asked for, so that its
 * first touch takes one page fault per 2 MiB instead of per 4 KiB. Freed
 * with free(). */
static void *host_buffer(size_t bytes)
{
    const size_t huge_page = (size_t)2 << 20;
    if (bytes < huge_page)
        return malloc(bytes);
    void *p = NULL;
    if (posix_memalign(&p, huge_page, bytes) != 0)
        return NULL;
    madvise(p, bytes, MADV_HUGEPAGE); /* advice: refused, only the speed changes */
    return p;
}

/* The scratch memory numba's reduction needs, when a kernel of the
 * student's is one, between guard zones. */
static bool allocate_scratch(struct run *r)
{
    bool needed = false;
    for (int k = 0; k < r->g->exercise.n_kernels; k++)
        needed = needed || r->g->numba[1].reduce[k];
    if (!needed)
        return true;
    if (r->g->api.cuMemAlloc(&r->scratch_base, NUMBA_REDUCE_SCRATCH_BYTES + 2 * GUARD_BYTES) !=
        CUDA_SUCCESS)
        return run_fail(r, "no device memory for numba's partials");
    r->scratch = r->scratch_base + GUARD_BYTES;
    if (r->g->api.kgemu_guard)
        r->g->api.kgemu_guard(r->scratch_base, GUARD_BYTES, GUARD_BYTES);
    return true;
}

bool run_host_buffer(struct run *r, int i)
{
    struct run_buffer *b = &r->buffers[i];
    b->spec = &r->g->exercise.buffers[i];
    b->count = (size_t)eval(r, b->spec->length);
    b->bytes = b->count * value_type_bytes(b->spec->type);
    r->g->case_bytes += (double)b->bytes;
    void **host = b->spec->is_output ? &b->expected : &b->pristine;
    if (!(*host = host_buffer(b->bytes)))
        return run_fail(r, "out of host memory for buffer '%s'", b->spec->name);
    struct rng_key key = {r->g->seed, (uint64_t)i};
    if (!b->spec->is_output &&
        !inputs_generate(b->pristine, b->spec->type, b->count, &b->spec->content, key, 0))
        return run_fail(r, "cannot generate the inputs of '%s'", b->spec->name);
    return true;
}

static bool allocate(struct run *r)
{
    const struct exercise *e = &r->g->exercise;
    if (!allocate_scratch(r))
        return false;
    for (int i = 0; i < e->n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        if (!run_host_buffer(r, i))
            return false;
        if (r->g->api.cuMemAlloc(&b->base, b->bytes + 2 * GUARD_BYTES) != CUDA_SUCCESS)
            return run_fail(r, "no device memory for buffer '%s' (%zu bytes)", b->spec->name,
                            b->bytes);
        b->data = b->base + GUARD_BYTES;
        r->current[i] = b->data;
        /* The virtual GPU faults on any access to the guards, reads included;
         * a GPU only lets the guards' contents show writes afterwards. */
        if (r->g->api.kgemu_guard)
            r->g->api.kgemu_guard(b->base, GUARD_BYTES, GUARD_BYTES);
        bool alternative = b->spec->is_output && exercise_has_alternative(&r->g->exercise);
        if (alternative && !(b->alternative = host_buffer(b->bytes)))
            return run_fail(r, "out of host memory for buffer '%s'", b->spec->name);
    }
    return true;
}

void run_release(struct run *r)
{
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        if (b->base && !r->g->api.stuck)
            r->g->api.cuMemFree(b->base);
        if (b->mapped)
            munmap(b->pristine, b->bytes);
        else
            free(b->pristine);
        free(b->expected);
        free(b->alternative);
    }
    if (r->scratch_base && !r->g->api.stuck)
        r->g->api.cuMemFree(r->scratch_base);
    free(r->check_part);
}

/* Inputs restored, outputs poisoned or zeroed, guards refilled. */
static bool prepare_buffers(struct run *r)
{
    struct cuda_api *api = &r->g->api;
    unsigned char guard[GUARD_BYTES];
    guard_fill(guard, sizeof guard);
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        r->current[i] = b->data;
        bool ok = api->cuMemcpyHtoD(b->base, guard, GUARD_BYTES) == CUDA_SUCCESS &&
                  api->cuMemcpyHtoD(b->data + b->bytes, guard, GUARD_BYTES) == CUDA_SUCCESS;
        if (b->spec->is_output)
            ok = ok &&
                 api->cuMemsetD8(b->data, b->spec->content.distribution == INPUT_ZERO ? 0 : 0xFF,
                                 b->bytes) == CUDA_SUCCESS;
        else
            ok = ok && api->cuMemcpyHtoD(b->data, b->pristine, b->bytes) == CUDA_SUCCESS;
        if (!ok)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------- launches */

static void set_scalars(struct run *r)
{
    const struct exercise *e = &r->g->exercise;
    for (int i = 0; i < e->n_scalars; i++) {
        const struct exercise_scalar *s = &e->scalars[i];
        unsigned char *slot = r->scalars[i];
        memset(slot, 0, RUN_SCALAR_BYTES);
        if (s->type == VALUE_F32 || s->type == VALUE_F64) {
            char *end;
            double d = strtod(s->value, &end);
            if (*end != '\0')
                d = (double)eval(r, s->value);
            float f = (float)d;
            memcpy(slot, s->type == VALUE_F32 ? (void *)&f : (void *)&d, value_type_bytes(s->type));
        } else {
            int64_t v = eval(r, s->value);
            memcpy(slot, &v, value_type_bytes(s->type)); /* little-endian: the low bytes */
        }
    }
}

/* kernelParams of a launch: each parameter's value, by name. */
static void kernel_args(struct run *r, const struct exercise_kernel *k, void *args[])
{
    const struct exercise *e = &r->g->exercise;
    for (int p = 0; p < k->n_params; p++)
        for (int i = 0; i < e->n_buffers; i++)
            if (strcmp(e->buffers[i].name, k->params[p]) == 0)
                args[p] = &r->current[i];
    for (int p = 0; p < k->n_params; p++)
        for (int i = 0; i < e->n_scalars; i++)
            if (strcmp(e->scalars[i].name, k->params[p]) == 0)
                args[p] = r->scalars[i];
}

/* Kernel k's parameters for a side, packed as its form lays them out
 * (kernel_params.h); their size. */
static size_t pack_params(struct run *r, int side, int k, unsigned char *packed)
{
    const struct exercise *e = &r->g->exercise;
    bool numba = r->g->numba[side].is_numba;
    void *args[KERNEL_PARAMS_MAX];
    uint64_t numba_values[NUMBA_ARGS_MAX];
    if (numba)
        numba_kernel_args(e, k, &r->env, r->current, r->scalars, numba_values, args);
    else
        kernel_args(r, &e->kernels[k], args);
    struct kernel_params layout;
    kernel_params_layout(e, k, numba_kernel_form(&r->g->numba[side], k), &layout);
    kernel_params_pack(&layout, args, packed);
    return layout.bytes;
}

/* A launch's shape: the exercise's, or for a @vectorize ufunc's kernel
 * kgrade's, one thread per element of its output. */
static void launch_shape(struct run *r, int side, const struct exercise_launch *l, unsigned grid[3],
                         unsigned block[3])
{
    for (int d = 0; d < 3; d++) {
        grid[d] = (unsigned)eval(r, l->grid[d]);
        block[d] = (unsigned)eval(r, l->block[d]);
    }
    if (!r->g->numba[side].vectorized[l->kernel])
        return;
    const struct exercise_numba *form = &r->g->exercise.kernels[l->kernel].numba;
    int out = exercise_buffer_index(&r->g->exercise, form->params[form->n_params - 1].name);
    int64_t n = eval(r, r->g->exercise.buffers[out].length);
    grid[0] = (unsigned)((n + NUMBA_VECTORIZE_BLOCK - 1) / NUMBA_VECTORIZE_BLOCK);
    block[0] = NUMBA_VECTORIZE_BLOCK;
    grid[1] = grid[2] = block[1] = block[2] = 1;
}

/* One launch of the exercise's, queued; for a @cuda.reduce's kernel,
 * numba's launches for it instead. */
static CUresult launch_one(struct run *r, int side, const struct exercise_launch *l)
{
    if (r->g->numba[side].reduce[l->kernel])
        return numba_reduce_launches(r, side, l->kernel);
    unsigned grid[3], block[3];
    launch_shape(r, side, l, grid, block);
    unsigned char packed[KERNEL_PARAMS_BYTES_MAX];
    size_t bytes = pack_params(r, side, l->kernel, packed);
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                     CU_LAUNCH_PARAM_END};
    return r->g->api.cuLaunchKernel(r->g->functions[side][l->kernel], grid[0], grid[1], grid[2],
                                    block[0], block[1], block[2], 0, NULL, NULL, extra);
}

/* Every launch of the exercise for one side, queued; the first failure to
 * queue one is returned (what a kernel does shows when it is waited for). */
static CUresult launch_all(struct run *r, int side)
{
    const struct exercise *e = &r->g->exercise;
    for (int i = 0; i < e->n_launches; i++) {
        const struct exercise_launch *l = &e->launches[i];
        int64_t repeat = eval(r, l->repeat);
        for (int64_t k = 0; k < repeat; k++) {
            CUresult rc = launch_one(r, side, l);
            if (rc != CUDA_SUCCESS)
                return rc;
            if (l->swap[0] >= 0) {
                CUdeviceptr t = r->current[l->swap[0]];
                r->current[l->swap[0]] = r->current[l->swap[1]];
                r->current[l->swap[1]] = t;
            }
        }
    }
    return CUDA_SUCCESS;
}

/* Runs one side between two events, waited for as gpu_wait says (within
 * `budget_ms` on a real GPU; 0: no deadline); the elapsed time in ms. */
static CUresult timed_launches(struct run *r, int side, double budget_ms, float *ms)
{
    struct cuda_api *api = &r->g->api;
    CUevent start = NULL, stop = NULL;
    CUresult rc = api->cuEventCreate(&start, 0);
    if (rc == CUDA_SUCCESS)
        rc = api->cuEventCreate(&stop, 0);
    if (rc == CUDA_SUCCESS)
        rc = api->cuEventRecord(start, NULL);
    CUresult queued = rc == CUDA_SUCCESS ? launch_all(r, side) : CUDA_SUCCESS;
    /* recorded even after a launch that could not be queued: the ones
     * before it are waited for (and left, if stuck), then its error given */
    if (rc == CUDA_SUCCESS)
        rc = api->cuEventRecord(stop, NULL);
    if (rc == CUDA_SUCCESS)
        rc = gpu_wait(api, stop, budget_ms);
    if (queued != CUDA_SUCCESS && !api->stuck)
        rc = queued;
    if (rc == CUDA_SUCCESS)
        rc = api->cuEventElapsedTime(ms, start, stop);
    if (start && !api->stuck)
        api->cuEventDestroy(start);
    if (stop && !api->stuck)
        api->cuEventDestroy(stop);
    return rc;
}

/* ------------------------------------------------------------ the sides */

void run_wipe(struct run *r)
{
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        r->g->api.cuMemsetD8(b->base, 0, b->bytes + 2 * GUARD_BYTES);
    }
}

/* One run of a side of kgrade's (the reference or its alternative). */
static bool run_kgrade_side(struct run *r, int side, bool keep_outputs, float *ms)
{
    if (!prepare_buffers(r))
        return run_fail(r, "cannot set up the device buffers");
    CUresult rc = timed_launches(r, side, 0, ms);
    if (!keep_outputs)
        run_wipe(r);
    if (rc == CUDA_SUCCESS)
        return true;
    char what[256];
    cuda_api_describe(&r->g->api, rc, what, sizeof what);
    return run_fail(r, "the %s kernel failed (%s)",
                    side == SIDE_ALTERNATIVE ? "reference's alternative" : "reference", what);
}

bool run_reference_once(struct run *r, bool keep_outputs, float *ms)
{
    return run_kgrade_side(r, SIDE_REFERENCE, keep_outputs, ms);
}

/* The outputs of the side that just ran, saved on the host (in `expected`,
 * or with `alternative` in `alternative`), then wiped from the device:
 * kgrade's answers do not stay there. */
static bool save_outputs(struct run *r, bool alternative)
{
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        if (b->spec->is_output && r->g->api.cuMemcpyDtoH(alternative ? b->alternative : b->expected,
                                                         r->current[i], b->bytes) != CUDA_SUCCESS)
            return run_fail(r, "cannot read the reference's '%s'", b->spec->name);
    }
    run_wipe(r);
    return true;
}

/* The correctness run of the reference, then of its alternative when the
 * exercise has one: their outputs saved on the host. */
static bool run_reference(struct run *r, bool timed)
{
    float ms = 0;
    grade_phase(r->g, GRADER_PHASE_REFERENCE);
    double started = timing_now_seconds();
    if (!run_reference_once(r, true, &ms))
        return false;
    r->g->case_reference_seconds = timing_now_seconds() - started;
    if (r->g->case_bytes >= SPEED_SAMPLE_BYTES_MIN) /* smaller runs are mostly overhead */
        r->g->seconds_per_byte = r->g->case_reference_seconds / r->g->case_bytes;
    if (timed)
        r->g->reference_ms = ms;
    r->g->case_reference_ms = ms;
    if (!save_outputs(r, false))
        return false;
    if (!exercise_has_alternative(&r->g->exercise))
        return true;
    float ignored;
    return run_kgrade_side(r, SIDE_ALTERNATIVE, true, &ignored) && save_outputs(r, true);
}

const char *run_buffer_name(const struct run *r, const struct run_buffer *b)
{
    return r->g->numba[1].is_numba ? exercise_numba_name(&r->g->exercise, b->spec->name)
                                   : b->spec->name;
}

/* A memory_error naming the element `offset` bytes from a buffer's first
 * element, outside it: "<who> c[-1], before the start of the 1000-element
 * buffer 'c'<where>". */
static void outside_message(const struct run *r, const struct run_buffer *b, int64_t offset,
                            const char *who, const char *where, struct case_outcome *out)
{
    int64_t element = (int64_t)value_type_bytes(b->spec->type);
    const char *name = run_buffer_name(r, b);
    out->verdict = GRADER_VERDICT_MEMORY_ERROR;
    if (offset < 0)
        snprintf(out->message, sizeof out->message,
                 "%s %s[-%" PRId64 "], before the start of the %zu-element buffer '%s'%s", who,
                 name, (-offset + element - 1) / element, b->count, name, where);
    else
        snprintf(out->message, sizeof out->message,
                 "%s %s[%" PRId64 "], past the end of the %zu-element buffer '%s'%s", who, name,
                 offset / element, b->count, name, where);
}

/* The first guard zone the student's kernel changed, as a verdict. */
static bool guards_intact(struct run *r, struct case_outcome *out)
{
    unsigned char zone[GUARD_BYTES];
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        for (int side = 0; side < 2; side++) {
            CUdeviceptr at = side == 0 ? b->base : b->data + b->bytes;
            size_t changed;
            if (r->g->api.cuMemcpyDtoH(zone, at, GUARD_BYTES) != CUDA_SUCCESS ||
                guard_intact(zone, GUARD_BYTES, &changed))
                continue;
            int64_t offset =
                side == 0 ? (int64_t)changed - GUARD_BYTES : (int64_t)(b->bytes + changed);
            outside_message(r, b, offset, "the kernel wrote", "", out);
            return false;
        }
    }
    return true;
}

/* "c[10] + 2 bytes": the element of `b` that `offset` bytes from its first
 * falls in (before it: negative), and the bytes past that element's start. */
static void element_text(const struct run *r, const struct run_buffer *b, int64_t offset, char *out,
                         size_t size)
{
    int64_t element = (int64_t)value_type_bytes(b->spec->type);
    int64_t index = offset >= 0 ? offset / element : -((-offset + element - 1) / element);
    int64_t rest = offset - index * element;
    const char *name = run_buffer_name(r, b);
    if (rest)
        snprintf(out, size, "%s[%" PRId64 "] + %" PRId64 " bytes", name, index, rest);
    else
        snprintf(out, size, "%s[%" PRId64 "]", name, index);
}

/* A memory fault's sentence with the buffer the virtual GPU's message named
 * (f->buffer, a buffer's first element: b->data) called by its name: "thread
 * (0,0,0) of block (0,0,0) wrote c[-1], before the start of the
 * 1000-element buffer 'c' (line 5)". */
static void buffer_fault_message(struct run *r, const struct run_buffer *b,
                                 const struct kgemu_fault *f, struct case_outcome *out)
{
    int64_t offset = (int64_t)(f->address - b->data);
    char who[128] = "the kernel", line[32] = "", at[EXERCISE_NAME_MAX + 64];
    const char *verb = f->access_write ? "wrote" : "read";
    if (f->has_thread)
        snprintf(who, sizeof who, "thread (%u,%u,%u) of block (%u,%u,%u)", f->thread[0],
                 f->thread[1], f->thread[2], f->block[0], f->block[1], f->block[2]);
    if (f->source_line > 0)
        snprintf(line, sizeof line, " (line %d)", f->source_line);
    element_text(r, b, offset, at, sizeof at);
    const char *name = run_buffer_name(r, b);
    out->verdict = GRADER_VERDICT_MEMORY_ERROR;
    if (f->code == CUDA_ERROR_MISALIGNED_ADDRESS)
        snprintf(out->message, sizeof out->message,
                 "%s %s %u bytes at %s of the %zu-element buffer '%s', an address that is not a "
                 "multiple of %u%s",
                 who, verb, f->access_bytes, at, b->count, name,
                 f->access_bytes > ALIGNMENT_MAX ? ALIGNMENT_MAX : f->access_bytes, line);
    else if (offset >= 0 && (uint64_t)offset < b->bytes)
        snprintf(out->message, sizeof out->message,
                 "%s %s %u bytes at %s, which run past the end of the %zu-element buffer '%s'%s",
                 who, verb, f->access_bytes, at, b->count, name, line);
    else {
        size_t n = strlen(who);
        snprintf(who + n, sizeof who - n, " %s", verb);
        outside_message(r, b, offset, who, line, out);
    }
}

/* A memory fault named by its buffer; a fault whose message names none (an
 * address outside every buffer, shared memory: the device's sentence, which
 * never holds a host address) keeps the device's. */
static void name_fault_buffer(struct run *r, const struct kgemu_fault *f, struct case_outcome *out)
{
    if (f->buffer == 0 || f->access_bytes == 0)
        return;
    for (int i = 0; i < r->g->exercise.n_buffers; i++)
        if (f->buffer == r->buffers[i].data) {
            buffer_fault_message(r, &r->buffers[i], f, out);
            return;
        }
}

void run_fault(struct run *r, CUresult rc, struct case_outcome *out)
{
    struct kgemu_fault fault;
    out->verdict = grade_fault_verdict(r->g, rc, &fault, out->message, sizeof out->message);
    if (out->verdict == GRADER_VERDICT_MEMORY_ERROR)
        name_fault_buffer(r, &fault, out);
    grade_fault_diagnostic(r->g, out->verdict, &fault, out->message);
}

/* The first mismatch: its buffer, index, row and column (null for 1-D
 * outputs, `columns` 0), expected and actual values, and the inputs at
 * that index (mismatch_inputs.c). */
static json_t *first_mismatch_json(const struct run *r, const struct run_buffer *b,
                                   const struct compare_result *c, int64_t columns)
{
    json_t *row = json_null(), *col = json_null();
    if (columns > 0) {
        row = json_integer((json_int_t)(c->first_index / (uint64_t)columns));
        col = json_integer((json_int_t)(c->first_index % (uint64_t)columns));
    }
    bool indexed = b->spec->check.kind != CHECK_SCALAR;
    enum value_type type = b->spec->type;
    return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "buffer", run_buffer_name(r, b),
                     "index", (json_int_t)c->first_index, "row", row, "col", col, "expected",
                     mismatch_value_json(type, c->first_expected_bits, c->first_expected), "actual",
                     mismatch_value_json(type, c->first_actual_bits, c->first_actual), "inputs",
                     indexed ? mismatch_inputs_json(r, b, c->first_index) : json_array());
}

/* The wrong_answer sentence, from the first mismatch's JSON. */
static void mismatch_message(const struct run_buffer *b, const char *name,
                             const struct compare_result *c, const json_t *first,
                             struct case_outcome *out)
{
    char where[64] = "", expected[MISMATCH_VALUE_TEXT_MAX], actual[MISMATCH_VALUE_TEXT_MAX];
    json_t *row = json_object_get(first, "row"), *col = json_object_get(first, "col");
    if (json_is_integer(row))
        snprintf(where, sizeof where, " (row %lld, column %lld)",
                 (long long)json_integer_value(row), (long long)json_integer_value(col));
    mismatch_value_text(b->spec->type, c->first_expected_bits, c->first_expected, expected,
                        sizeof expected);
    mismatch_value_text(b->spec->type, c->first_actual_bits, c->first_actual, actual,
                        sizeof actual);
    out->verdict = GRADER_VERDICT_WRONG_ANSWER;
    snprintf(out->message, sizeof out->message,
             "%" PRIu64 " of %zu elements of '%s' are wrong; the first is [%" PRIu64
             "]%s: expected %s, got %s",
             c->mismatches, b->count, name, c->first_index, where, expected, actual);
}

/* Part [first, first + n) of the student's output buffer i: from
 * `actual` (host memory) when given, else read from the device into
 * r->check_part. NULL when the device cannot be read (r->error set). */
static const void *student_part(struct run *r, int i, const void *actual, size_t first, size_t n)
{
    const struct run_buffer *b = &r->buffers[i];
    size_t size = value_type_bytes(b->spec->type);
    if (actual)
        return (const unsigned char *)actual + first * size;
    if (r->g->api.cuMemcpyDtoH(r->check_part, r->current[i] + first * size, n * size) !=
        CUDA_SUCCESS) {
        run_fail(r, "cannot read the output '%s'", b->spec->name);
        return NULL;
    }
    return r->check_part;
}

/* Output buffer i of the student (`actual`, or on the device) against
 * `expected` (a side of kgrade's), read from the device CHECK_PART_BYTES at
 * a time into one reused host buffer: a whole copy would be hundreds of MB
 * more, touched once (at 100M elements, most of the check's time went to
 * the kernel clearing its pages). False when the device cannot be read
 * (r->error set). */
static bool compare_with(struct run *r, int i, const void *expected, const void *actual,
                         struct compare_result *c)
{
    const struct run_buffer *b = &r->buffers[i];
    const struct exercise_check *check = &b->spec->check;
    struct compare_tolerance tol = {check->atol, check->rtol};
    size_t size = value_type_bytes(b->spec->type);
    *c = (struct compare_result){0};
    if (!actual && !r->check_part && !(r->check_part = malloc(CHECK_PART_BYTES)))
        return run_fail(r, "out of host memory to check the outputs");
    if (check->kind == CHECK_SCALAR) {
        const void *part = student_part(r, i, actual, 0, 1);
        if (!part)
            return false;
        double v = b->spec->type == VALUE_F32 ? *(const float *)part : *(const double *)part;
        if (!compare_scalar(v, check->value, check->tolerance))
            *c = (struct compare_result){1, true, 0, check->value, v, 0, 0, 0};
        return true;
    }
    size_t per_part = size ? CHECK_PART_BYTES / size : b->count; /* no type: all wrong, at once */
    for (size_t first = 0; first < b->count; first += per_part) {
        size_t n = b->count - first < per_part ? b->count - first : per_part;
        const void *part = student_part(r, i, actual, first, n);
        if (!part)
            return false;
        compare_buffers_part((const unsigned char *)expected + first * size, part, b->spec->type,
                             first, n, check->kind == CHECK_TOLERANCE ? &tol : NULL, c);
    }
    return true;
}

/* Output buffer i of the student against the reference's, and when that
 * fails, against the alternative's (where the exercise has one): a match
 * with either passes; a mismatch is reported against the reference's. */
static bool compare_output(struct run *r, int i, const void *actual, struct compare_result *c)
{
    const struct run_buffer *b = &r->buffers[i];
    if (!compare_with(r, i, b->expected, actual, c))
        return false;
    if (c->mismatches == 0 || !b->alternative)
        return true;
    struct compare_result alternative;
    if (!compare_with(r, i, b->alternative, actual, &alternative))
        return false;
    if (alternative.mismatches == 0)
        *c = alternative;
    return true;
}

/* Compares every output on the device, or (`only` ≥ 0) only output
 * `only`, the student's as `actual` in host memory; fills the case's JSON
 * and, on a mismatch, the verdict. False when an output cannot be read
 * (r->error set). */
static bool compare_outputs(struct run *r, int only, const void *actual, struct case_outcome *out,
                            json_t *entry)
{
    uint64_t mismatches = 0;
    double max_error = 0;
    json_t *first = json_null();
    for (int i = 0; i < r->g->exercise.n_buffers; i++) {
        struct run_buffer *b = &r->buffers[i];
        if (!b->spec->is_output || (only >= 0 && i != only))
            continue;
        struct compare_result c;
        if (!compare_output(r, i, actual, &c)) {
            json_decref(first);
            return false;
        }
        max_error = c.max_abs_error > max_error ? c.max_abs_error : max_error;
        if (c.mismatches && !mismatches) {
            int64_t columns = b->spec->columns[0] ? eval(r, b->spec->columns) : 0;
            json_decref(first);
            first = first_mismatch_json(r, b, &c, columns);
            mismatch_message(b, run_buffer_name(r, b), &c, first, out);
        }
        mismatches += c.mismatches;
    }
    json_object_set_new(entry, "passed", json_boolean(mismatches == 0));
    json_object_set_new(entry, "mismatches", json_integer((json_int_t)mismatches));
    json_object_set_new(entry, "first_mismatch", first);
    json_object_set_new(entry, "max_abs_error", json_real(max_error));
    return true;
}

static void sizes_json(struct run *r, json_t *entry)
{
    json_t *sizes = json_object();
    for (int i = 0; i < r->g->exercise.n_sizes; i++)
        json_object_set_new(sizes, r->g->exercise.sizes[i], json_integer(r->c->values[i]));
    json_object_set_new(entry, "sizes", sizes);
}

static void note_bytes(struct run *r)
{
    double bytes = 0;
    for (int i = 0; i < r->g->exercise.n_buffers; i++)
        bytes += (double)r->buffers[i].bytes;
    r->g->bytes_moved = bytes;
}

bool run_student_once(struct run *r, bool capture, float *ms, CUresult *rc)
{
    struct cuda_api *api = &r->g->api;
    if (!prepare_buffers(r))
        return run_fail(r, "cannot set up the device buffers");
    /* Every student run has a time budget: the bar × the reference's time
     * at the assessment (beyond it: too_slow, decided without running to
     * the end), and a generous multiple elsewhere and for --n (beyond it:
     * an endless loop; a --n run that finishes is then judged by its time).
     * The virtual GPU counts it in modeled time and stops the kernel; a
     * real GPU's is wall-clock time, at least GPU_WAIT_FLOOR_MS. */
    double budget_ms = r->g->timed_case
                           ? r->g->exercise.max_ratio * r->g->reference_ms
                           : r->g->case_reference_ms * TIMEOUT_FACTOR + TIMEOUT_FLOOR_MS;
    bool modeled = api->emulated && api->kgemu_set_time_budget;
    if (modeled)
        api->kgemu_set_time_budget(budget_ms);
    bool capturing = capture && output_capture_begin(&r->g->output);
    *rc = timed_launches(r, 1, budget_ms > GPU_WAIT_FLOOR_MS ? budget_ms : GPU_WAIT_FLOOR_MS, ms);
    if (capturing)
        output_capture_end(&r->g->output);
    if (modeled)
        api->kgemu_set_time_budget(0);
    return true;
}

bool run_check_student(struct run *r, struct case_outcome *out)
{
    if (!guards_intact(r, out))
        return true;
    return compare_outputs(r, -1, NULL, out, out->json);
}

bool run_check_returned(struct run *r, int i, const void *actual, struct case_outcome *out)
{
    return compare_outputs(r, i, actual, out, out->json);
}

bool run_wants_repeated_timing(const struct grading *g)
{
    return g->timing == GRADER_TIMING_REPEATED && !g->lower_bound &&
           g->student_ms <= 2 * g->exercise.max_ratio * g->reference_ms;
}

/* The correctness run of the student (the only timed one on the virtual
 * GPU), then the repeated timing when the device calls for it. */
static bool run_student(struct run *r, bool timed, struct case_outcome *out)
{
    struct cuda_api *api = &r->g->api;
    float ms = 0;
    r->g->timed_case = timed && r->g->assessment;
    grade_phase(r->g, GRADER_PHASE_STUDENT);
    CUresult rc;
    if (!run_student_once(r, true, &ms, &rc))
        return false;
    if (rc != CUDA_SUCCESS) {
        run_fault(r, rc, out);
        return true;
    }
    if (timed) {
        r->g->student_ms = ms;
        note_bytes(r);
        r->g->has_counters = api->kgemu_last_counters && api->kgemu_last_counters(&r->g->counters);
    }
    grade_phase(r->g, GRADER_PHASE_CHECK);
    if (!run_check_student(r, out))
        return false;
    if (timed && out->verdict == GRADER_VERDICT_PASSED && run_wants_repeated_timing(r->g))
        return run_time_repeated(r, out);
    return true;
}

struct run *run_begin(struct grading *g, const struct exercise_case *c, struct case_outcome *out,
                      char *error, size_t error_size)
{
    struct run *r = calloc(1, sizeof *r);
    out->json = NULL;
    if (!r) {
        snprintf(error, error_size, "out of host memory");
        return NULL;
    }
    r->g = g;
    r->c = c;
    r->error = error;
    r->error_size = error_size;
    exercise_env(&g->exercise, c, r->bindings, &r->env);
    out->verdict = GRADER_VERDICT_PASSED;
    out->message[0] = '\0';
    out->json = json_object();
    sizes_json(r, out->json);
    set_scalars(r);
    g->case_bytes = 0;
    grade_phase(g, GRADER_PHASE_INPUTS);
    return r;
}

void run_end(struct run *r, bool ok, struct case_outcome *out)
{
    if (ok && out->verdict != GRADER_VERDICT_PASSED && !json_object_get(out->json, "passed"))
        json_object_set_new(out->json, "passed", json_false());
    run_release(r);
    free(r);
}

bool grade_case(struct grading *g, const struct exercise_case *c, bool timed,
                struct case_outcome *out, char *error, size_t error_size)
{
    if (g->host)
        return host_case(g, c, timed, out, error, error_size);
    struct run *r = run_begin(g, c, out, error, error_size);
    if (!r)
        return false;
    bool ok = allocate(r) && run_reference(r, timed) && run_student(r, timed, out);
    run_end(r, ok, out);
    return ok;
}
