/*
 * Unit tests of KGEMU_TIER (emulator/tier.c) and its compare mode
 * (emulator/tier_compare.c, tier_image.c): the tier's name is parsed or
 * refused; every field of the fault and the counters is compared, and a
 * difference names the field and both values; copies of device memory and
 * of the malloc heap are written back exactly and a changed byte is found
 * with its allocation and offset; and a launch in compare mode gives the
 * results, faults and heap blocks of a plain launch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/exec.h"
#include "emulator/jit.h"
#include "emulator/tier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPACITY  ((size_t)1 << 30)
#define WHAT      2048
#define BIG_BYTES ((size_t)3 << 20) /* several image chunks, mostly zero */
#define HEAP      ((size_t)1 << 20)
#define N         100
#define THREADS   32

/* ------------------------------------------------------------- the tier */

static void tier_names_are_parsed_and_others_refused(void **state)
{
    (void)state;
    assert_int_equal(emu_tier_parse("jit"), EMU_TIER_JIT);
    assert_int_equal(emu_tier_parse("interp"), EMU_TIER_INTERP);
    assert_int_equal(emu_tier_parse("compare"), EMU_TIER_COMPARE);
    enum emu_tier fallback = emu_tier_parse(NULL);
    assert_int_equal(emu_tier_parse(""), fallback);
    assert_int_equal(emu_tier_parse("JIT"), fallback); /* said on stderr */
    assert_int_equal(emu_tier_parse("comparison"), fallback);
    assert_true(fallback != EMU_TIER_COMPARE);
}

/* -------------------------------------------------------------- results */

static struct emu_launch_result sample_result(void)
{
    struct emu_launch_result r;
    memset(&r, 0, sizeof r);
    r.counters.modeled_ms = 0.0123;
    r.counters.global_sectors = 4096;
    r.counters.warp_instructions[4] = 77;
    snprintf(r.counters.limiter, sizeof r.counters.limiter, "dram");
    r.counters.blocks_complete = 8;
    r.fault.code = 700;
    snprintf(r.fault.message, sizeof r.fault.message, "thread (1,0,0) wrote out[9]");
    r.fault.access_bytes = 4;
    r.warp_instructions = 1234;
    return r;
}

/* The two results must differ, and `what` name each of `needles`. */
static void assert_differ(const struct emu_launch_result *a, const struct emu_launch_result *b,
                          const char *const *needles, size_t n)
{
    char what[WHAT] = "";
    assert_false(tier_results_agree(a, b, what, sizeof what));
    for (size_t i = 0; i < n; i++)
        if (!strstr(what, needles[i]))
            fail_msg("'%s' is not in: %s", needles[i], what);
}

static void equal_results_agree(void **state)
{
    (void)state;
    struct emu_launch_result a = sample_result(), b = sample_result();
    char what[WHAT] = "";
    b.elapsed_ms = 99; /* the host's time when KGEMU_TIMING=off: not compared */
    assert_true(tier_results_agree(&a, &b, what, sizeof what));
}

static void each_counter_is_compared_by_name(void **state)
{
    (void)state;
    struct emu_launch_result a = sample_result(), b = sample_result();
    b.counters.modeled_ms = nextafter(a.counters.modeled_ms, 1.0); /* one bit */
    assert_differ(&a, &b, (const char *[]){"modeled_ms", "0.0123 ", "bits 0x"}, 3);
    b = sample_result();
    b.counters.global_sectors = 4097;
    assert_differ(&a, &b, (const char *[]){"global_sectors", "4096", "4097"}, 3);
    b = sample_result();
    b.counters.warp_instructions[4] = 78;
    assert_differ(&a, &b, (const char *[]){"warp_instructions[4]", "77", "78"}, 3);
    b = sample_result();
    snprintf(b.counters.limiter, sizeof b.counters.limiter, "issue");
    assert_differ(&a, &b, (const char *[]){"limiter", "\"dram\"", "\"issue\""}, 3);
    b = sample_result();
    b.counters.blocks_complete = 7;
    assert_differ(&a, &b, (const char *[]){"blocks_complete"}, 1);
    b = sample_result();
    b.warp_instructions = 1235;
    assert_differ(&a, &b, (const char *[]){"warp instructions", "1234", "1235"}, 3);
}

static void a_fault_difference_shows_both_messages(void **state)
{
    (void)state;
    struct emu_launch_result a = sample_result(), b = sample_result();
    b.fault.access_bytes = 8;
    assert_differ(&a, &b, (const char *[]){"access_bytes", "4", "8", "wrote out[9]"}, 4);
    b = sample_result();
    snprintf(b.fault.message, sizeof b.fault.message, "thread (2,0,0) wrote out[10]");
    assert_differ(&a, &b, (const char *[]){"message", "wrote out[9]", "wrote out[10]"}, 3);
    b = sample_result();
    b.fault.bound_at_stop_ms = 1.5;
    assert_differ(&a, &b, (const char *[]){"bound_at_stop_ms"}, 1);
}

#define RUNAWAY                                                                                    \
    "block (0,0,0): the kernel ran past its budget (%d warp instructions, %d s) and was stopped"

/* How long a runaway kernel ran is how fast the tier is: not compared. */
static void a_timeout_differs_only_in_its_instructions(void **state)
{
    (void)state;
    struct emu_launch_result a = sample_result(), b = sample_result();
    snprintf(a.fault.message, sizeof a.fault.message, RUNAWAY, 5000, 3);
    snprintf(b.fault.message, sizeof b.fault.message, RUNAWAY, 5000, 0);
    char what[WHAT];
    assert_true(tier_results_agree(&a, &b, what, sizeof what));
    snprintf(b.fault.message, sizeof b.fault.message, RUNAWAY, 5001, 3);
    assert_differ(&a, &b, (const char *[]){"5000 warp", "5001 warp"}, 2);
}

/* --------------------------------------------------------------- memory */

static void an_image_is_written_back_and_compared(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY);
    uint64_t small, big;
    assert_int_equal(emu_memory_alloc(m, 100, EMU_ALLOC_USER, &small), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, BIG_BYTES, EMU_ALLOC_USER, &big), CUDA_SUCCESS);
    uint8_t *s = (uint8_t *)(uintptr_t)small, *b = (uint8_t *)(uintptr_t)big;
    memset(s, 0x11, 100);
    b[BIG_BYTES - 1] = 0x22;
    struct tier_image image;
    assert_true(tier_image_take(&image, m, NULL));
    char what[WHAT] = "";
    assert_true(tier_image_agrees(&image, m, NULL, what, sizeof what));

    s[42] = 0x12;
    s[43] = 0x13;
    assert_false(tier_image_agrees(&image, m, NULL, what, sizeof what));
    const char *allocation = small < big ? "allocation 1 of 2" : "allocation 2 of 2";
    if (!strstr(what, allocation) || !strstr(what, "byte offset 42") ||
        !strstr(what, "0x11 in the interpreter, 0x12 in the compiled tier") ||
        !strstr(what, "2 bytes of it differ"))
        fail_msg("unexpected: %s", what);
    assert_true(tier_image_put(&image, m, NULL));
    assert_true(tier_image_agrees(&image, m, NULL, what, sizeof what));
    assert_int_equal(s[42], 0x11);

    b[(1 << 20) + 5] = 0x7f; /* in a chunk that was all zero */
    assert_false(tier_image_agrees(&image, m, NULL, what, sizeof what));
    assert_non_null(strstr(what, "byte offset 1048581: 0x00 in the interpreter, 0x7f"));
    assert_true(tier_image_put(&image, m, NULL));
    assert_true(tier_image_agrees(&image, m, NULL, what, sizeof what));
    assert_int_equal(b[(1 << 20) + 5], 0);
    assert_int_equal(b[BIG_BYTES - 1], 0x22);

    b[BIG_BYTES - 1] = 0;
    assert_false(tier_image_agrees(&image, m, NULL, what, sizeof what));
    assert_non_null(strstr(what, "0x22 in the interpreter, 0x00 in the compiled tier"));

    uint64_t later;
    assert_int_equal(emu_memory_alloc(m, 64, EMU_ALLOC_USER, &later), CUDA_SUCCESS);
    assert_false(tier_image_agrees(&image, m, NULL, what, sizeof what));
    assert_non_null(strstr(what, "table of device allocations"));
    assert_int_equal(emu_memory_free(m, small), CUDA_SUCCESS);
    assert_false(tier_image_put(&image, m, NULL)); /* what it copied is gone */
    tier_image_free(&image);
    emu_memory_destroy(m);
}

static void the_heaps_blocks_are_written_back_and_compared(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY);
    struct emu_heap *h = emu_heap_create(m, HEAP);
    uint64_t kept = emu_heap_malloc(h, 48);
    assert_true(kept != 0);
    struct tier_image image;
    assert_true(tier_image_take(&image, m, h));
    uint64_t extra = emu_heap_malloc(h, 16);
    char what[WHAT] = "";
    assert_false(tier_image_agrees(&image, m, h, what, sizeof what));
    assert_non_null(strstr(what, "malloc heap's blocks"));
    assert_true(tier_image_put(&image, m, h));
    assert_true(tier_image_agrees(&image, m, h, what, sizeof what));
    assert_false(emu_heap_free(h, extra)); /* no longer given out */
    assert_int_equal(emu_heap_malloc(h, 16), extra);
    assert_true(emu_heap_free(h, kept));
    tier_image_free(&image);
    emu_heap_destroy(h, m);
    emu_memory_destroy(m);
}

/* ------------------------------------------------------------ a launch */

static const char ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
    ".visible .entry scale(.param .u64 p_in, .param .u64 p_out, .param .u32 p_n)\n"
    "{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<6>;\n    .reg .f32 %f<3>;\n    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [p_in];\n    ld.param.u64 %rd2, [p_out];\n"
    "    ld.param.u32 %r1, [p_n];\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.s32 %p1, %r5, %r1;\n    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd3, %rd1;\n    cvta.to.global.u64 %rd4, %rd2;\n"
    "    mul.wide.s32 %rd5, %r5, 4;\n    add.s64 %rd6, %rd3, %rd5;\n"
    "    ld.global.f32 %f1, [%rd6];\n    fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;\n"
    "    add.s64 %rd7, %rd4, %rd5;\n    st.global.f32 [%rd7], %f2;\n"
    "DONE:\n    ret;\n}\n"
    ".visible .entry grab(.param .u64 p_out)\n"
    "{\n"
    "    .reg .b32 %r<2>;\n    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [p_out];\n    mov.u64 %rd5, 32;\n"
    "    {\n    .param .b64 param0;\n    st.param.b64 [param0+0], %rd5;\n"
    "    .param .b64 retval0;\n    call.uni (retval0), malloc, (param0);\n"
    "    ld.param.b64 %rd2, [retval0+0];\n    }\n"
    "    mov.u32 %r1, %tid.x;\n    st.u32 [%rd2], %r1;\n"
    "    mul.wide.u32 %rd3, %r1, 8;\n    add.s64 %rd4, %rd1, %rd3;\n    st.u64 [%rd4], %rd2;\n"
    "    ret;\n}\n"
    ".visible .entry params(.param .u8 p_a, .param .s8 p_b, .param .u16 p_c, .param .s16 p_d,\n"
    "                       .param .s32 p_e, .param .f32 p_f, .param .u64 p_out)\n"
    "{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<3>;\n    .reg .f32 %f<2>;\n    .reg .b64 %rd<12>;\n"
    "    ld.param.u64 %rd1, [p_out];\n    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd2, %r1, 64;\n    add.s64 %rd3, %rd1, %rd2;\n"
    "    ld.param.u8 %rd4, [p_a];\n    ld.param.s8 %rd5, [p_b];\n"
    "    ld.param.u16 %rd6, [p_c];\n    ld.param.s16 %rd7, [p_d];\n"
    "    ld.param.s32 %rd8, [p_e];\n    ld.param.u32 %rd9, [p_e];\n"
    "    ld.param.f32 %f1, [p_f];\n    mov.u64 %rd10, 99;\n    setp.lt.u32 %p1, %r1, 7;\n"
    "    @%p1 ld.param.s32 %rd10, [p_e];\n"
    "    st.global.u64 [%rd3], %rd4;\n    st.global.u64 [%rd3+8], %rd5;\n"
    "    st.global.u64 [%rd3+16], %rd6;\n    st.global.u64 [%rd3+24], %rd7;\n"
    "    st.global.u64 [%rd3+32], %rd8;\n    st.global.u64 [%rd3+40], %rd9;\n"
    "    st.global.f32 [%rd3+48], %f1;\n    st.global.u64 [%rd3+56], %rd10;\n"
    "    ret;\n}\n"
    /* what numba's PTX does (generic loads and stores, its stack in local
     * memory, libdevice's float64 code, 64-bit index arithmetic) */
    ".visible .entry numba_like(.param .u64 p_in, .param .u64 p_out, .param .u32 p_n)\n"
    "{\n"
    "    .local .align 8 .b8 __local_depot3[16];\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<12>;\n    .reg .f32 %f<4>;\n"
    "    .reg .f64 %fd<12>;\n    .reg .b64 %rd<12>;\n"
    "    mov.u64 %rd10, __local_depot3;\n    cvta.local.u64 %rd11, %rd10;\n"
    "    ld.param.u64 %rd1, [p_in];\n    ld.param.u64 %rd2, [p_out];\n"
    "    ld.param.u32 %r1, [p_n];\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.s32 %p1, %r5, %r1;\n    @%p1 bra DONE;\n"
    "    cvt.s64.s32 %rd3, %r5;\n    mad.lo.s64 %rd4, %rd3, 4, %rd1;\n"
    "    ld.f32 %f1, [%rd4];\n    cvt.f64.f32 %fd1, %f1;\n"
    "    fma.rn.f64 %fd2, %fd1, 0d3FF8000000000000, 0d3FE0000000000000;\n"
    "    div.rn.f64 %fd3, %fd2, 0d4008000000000000;\n    sqrt.rn.f64 %fd4, %fd3;\n"
    "    rcp.approx.ftz.f64 %fd5, %fd4;\n    neg.f64 %fd6, %fd5;\n    abs.f64 %fd7, %fd6;\n"
    "    mov.b64 {%r6, %r7}, %fd7;\n    and.b32 %r8, %r7, 2147483647;\n"
    "    mov.b64 %fd8, {%r6, %r8};\n    copysign.f64 %fd9, %fd6, %fd8;\n"
    "    st.f64 [%rd11], %fd9;\n    ld.f64 %fd11, [%rd11];\n"
    "    mul.hi.u32 %r9, %r5, 0x9E3779B1;\n    st.local.u32 [%rd10+8], %r9;\n"
    "    ld.local.u32 %r10, [__local_depot3+8];\n"
    "    mul.f64 %fd10, %fd11, 0d408F400000000000;\n    cvt.rn.f32.f64 %f2, %fd10;\n"
    "    cvt.rni.f32.f32 %f3, %f2;\n    mul.wide.s32 %rd5, %r5, 32;\n"
    "    add.s64 %rd6, %rd2, %rd5;\n    st.f32 [%rd6], %f2;\n    st.f32 [%rd6+4], %f3;\n"
    "    st.u32 [%rd6+8], %r10;\n    st.f64 [%rd6+16], %fd11;\n"
    "DONE:\n    ret;\n}\n";

struct fixture {
    struct emu_memory *memory;
    struct emu_heap *heap;
    struct emu_module *module;
    uint64_t in, out;
};

static void fixture_open(struct fixture *fx)
{
    char log[512] = "";
    fx->memory = emu_memory_create(CAPACITY);
    fx->heap = emu_heap_create(fx->memory, HEAP);
    if (emu_module_load(ptx, sizeof ptx - 1, fx->memory, &fx->module, log, sizeof log) !=
        CUDA_SUCCESS)
        fail_msg("the PTX did not load: %s", log);
    assert_int_equal(emu_memory_alloc(fx->memory, N * 4, EMU_ALLOC_USER, &fx->in), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(fx->memory, N * 8, EMU_ALLOC_USER, &fx->out), CUDA_SUCCESS);
    float *in = (float *)(uintptr_t)fx->in;
    for (int i = 0; i < N; i++)
        in[i] = (float)i * 0.5f;
}

static void fixture_close(struct fixture *fx)
{
    emu_module_unload(fx->module);
    emu_heap_destroy(fx->heap, fx->memory);
    emu_memory_destroy(fx->memory);
}

static struct emu_launch launch_config(struct fixture *fx, const char *kernel, unsigned blocks,
                                       const void *params)
{
    return (struct emu_launch){
        .function = emu_module_function(fx->module, kernel),
        .grid = {blocks, 1, 1},
        .block = {THREADS, 1, 1},
        .shared_carveout = -1,
        .params = params,
        .memory = fx->memory,
        .heap = fx->heap,
        .device = emu_device_model_find("h100"),
        .printf_bytes = 1 << 20,
    };
}

static CUresult launch(struct fixture *fx, const char *kernel, unsigned blocks, const void *params,
                       struct emu_launch_result *result)
{
    struct emu_launch cfg = launch_config(fx, kernel, blocks, params);
    assert_non_null(cfg.function);
    return tier_compare_run(&cfg, result);
}

static void a_compared_launch_gives_the_launchs_results(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_open(&fx);
    struct {
        uint64_t in, out;
        uint32_t n;
    } params = {fx.in, fx.out, N};
    struct emu_launch_result result;
    assert_int_equal(launch(&fx, "scale", (N + THREADS - 1) / THREADS, &params, &result),
                     CUDA_SUCCESS);
    assert_int_equal(result.fault.code, CUDA_SUCCESS);
    assert_true(result.counters.global_requests > 0);
    assert_true(result.counters.modeled_ms > 0);
    const float *out = (const float *)(uintptr_t)fx.out;
    for (int i = 0; i < N; i++)
        assert_true(out[i] == (float)i * 0.5f * 2.0f + 1.0f);

    params.n = N + 1; /* one past the end of `in` */
    assert_int_equal(launch(&fx, "scale", (N + THREADS) / THREADS, &params, &result), CUDA_SUCCESS);
    assert_int_equal(result.fault.code, CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(result.fault.thread[0], N % THREADS);
    fixture_close(&fx);
}

static void a_compared_launch_leaves_the_heap_as_one_run_does(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_open(&fx);
    uint64_t params = fx.out;
    struct emu_launch_result result;
    assert_int_equal(launch(&fx, "grab", 1, &params, &result), CUDA_SUCCESS);
    assert_int_equal(result.fault.code, CUDA_SUCCESS);
    const uint64_t *blocks = (const uint64_t *)(uintptr_t)fx.out;
    for (int t = 0; t < THREADS; t++) {
        assert_true(blocks[t] != 0);
        assert_int_equal(*(const uint32_t *)(uintptr_t)blocks[t], t);
        assert_true(emu_heap_free(fx.heap, blocks[t])); /* given out once, not twice */
    }
    fixture_close(&fx);
}

/* Kernel parameters of each size, signed and unsigned, in a guarded load
 * too: both tiers (the compiled one loads them natively) give the values
 * extended as the type says. */
static void parameters_of_each_size_are_loaded_alike(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_open(&fx);
    uint8_t params[24] = {0};
    params[0] = 0xF0;                           /* .u8 240 */
    params[1] = 0x80;                           /* .s8 -128 */
    memcpy(params + 2, &(uint16_t){0xFFFE}, 2); /* .u16 65534 */
    memcpy(params + 4, &(int16_t){-2}, 2);      /* .s16 */
    memcpy(params + 8, &(int32_t){-5}, 4);      /* .s32 */
    memcpy(params + 12, &(float){1.5f}, 4);     /* .f32 */
    uint64_t out;
    assert_int_equal(emu_memory_alloc(fx.memory, THREADS * 64, EMU_ALLOC_USER, &out), CUDA_SUCCESS);
    memcpy(params + 16, &out, 8); /* .u64 */
    struct emu_launch_result result;
    assert_int_equal(launch(&fx, "params", 1, params, &result), CUDA_SUCCESS);
    assert_int_equal(result.fault.code, CUDA_SUCCESS);
    for (int t = 0; t < THREADS; t++) {
        const uint64_t *row = (const uint64_t *)(uintptr_t)out + 8 * t;
        assert_int_equal(row[0], 240);
        assert_int_equal(row[1], (uint64_t)-128);
        assert_int_equal(row[2], 65534);
        assert_int_equal(row[3], (uint64_t)-2);
        assert_int_equal(row[4], (uint64_t)-5);
        assert_int_equal(row[5], 0xFFFFFFFBu);
        float f;
        memcpy(&f, &row[6], 4);
        assert_true(f == 1.5f);
        assert_int_equal(row[7], t < 7 ? (uint64_t)-5 : 99);
    }
    fixture_close(&fx);
}

/* numba's constructs (numba_like): a generic load of global memory,
 * generic stores and loads of local memory (its stack), .local by register
 * and by the depot's symbol, f64 arithmetic, a double's halves unpacked and
 * packed, conversions between f32 and f64 and to an integral f32, 64-bit
 * mad and mul.hi: both tiers agree (compare), the results are the host's,
 * and the compiled tier runs them natively (all but the depot's mov and
 * the ret, per warp). */
static void numbas_constructs_compile_and_agree(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_open(&fx);
    uint64_t out;
    assert_int_equal(emu_memory_alloc(fx.memory, N * 32, EMU_ALLOC_USER, &out), CUDA_SUCCESS);
    struct {
        uint64_t in, out;
        uint32_t n;
    } params = {fx.in, out, N};
    unsigned blocks = (N + THREADS - 1) / THREADS;
    struct emu_launch_result result;
    assert_int_equal(launch(&fx, "numba_like", blocks, &params, &result), CUDA_SUCCESS);
    assert_int_equal(result.fault.code, CUDA_SUCCESS);
    for (int i = 0; i < N; i++) {
        const uint8_t *row = (const uint8_t *)(uintptr_t)out + 32 * i;
        double x = (double)((float)i * 0.5f), want = -1.0 / sqrt(fma(x, 1.5, 0.5) / 3.0), got;
        float f2, f3;
        uint32_t hi;
        memcpy(&f2, row, 4);
        memcpy(&f3, row + 4, 4);
        memcpy(&hi, row + 8, 4);
        memcpy(&got, row + 16, 8);
        assert_true(got == want);
        assert_true(f2 == (float)(want * 1000.0));
        assert_true(f3 == rintf(f2));
        assert_int_equal(hi, (uint32_t)((uint64_t)i * 0x9E3779B1u >> 32));
    }
    struct emu_launch cfg = launch_config(&fx, "numba_like", blocks, &params);
    cfg.host_threads = 1;
    assert_int_equal(launch_execute(&cfg, EMU_TIER_JIT, &result, NULL), CUDA_SUCCESS);
    uint64_t warps = blocks * (THREADS / 32);
    assert_true(result.counters.compiled_instructions > 0);
    assert_int_equal(result.counters.interpreted_instructions, 2 * warps);
    fixture_close(&fx);
}

/* A kernel that writes a global variable and its address: each load of
 * the module places the variable anew. */
static const char placed_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".global .align 8 .u64 where;\n"
    ".visible .entry placed(.param .u64 p_out)\n"
    "{\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p_out];\n    mov.u64 %rd2, where;\n"
    "    st.global.u64 [%rd1], %rd2;\n    mov.u64 %rd3, 7;\n    st.global.u64 [where], %rd3;\n"
    "    ret;\n}\n";

/* Launches `placed` of a fresh load of placed_ptx (*loaded, for the caller
 * to unload) in `tier` and checks that it wrote its own variable and that
 * variable's address; returns the kernel's compiled code. */
static const struct jit_kernel *run_placed(struct fixture *fx, enum emu_tier tier,
                                           struct emu_module **loaded)
{
    char log[512] = "";
    struct emu_module *m;
    if (emu_module_load(placed_ptx, sizeof placed_ptx - 1, fx->memory, &m, log, sizeof log) !=
        CUDA_SUCCESS)
        fail_msg("the PTX did not load: %s", log);
    uint64_t where, size;
    assert_int_equal(emu_module_global(m, "where", &where, &size), CUDA_SUCCESS);
    struct emu_launch cfg = launch_config(fx, "placed", 1, &fx->out);
    cfg.function = emu_module_function(m, "placed");
    cfg.host_threads = 1;
    const struct jit_kernel *k = jit_kernel_find(cfg.function->ptx, false);
    struct emu_launch_result result;
    assert_int_equal(tier == EMU_TIER_COMPARE ? tier_compare_run(&cfg, &result)
                                              : launch_execute(&cfg, tier, &result, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(result.fault.code, CUDA_SUCCESS);
    assert_int_equal(*(const uint64_t *)(uintptr_t)fx->out, where);
    assert_int_equal(*(const uint64_t *)(uintptr_t)where, 7);
    if (tier == EMU_TIER_COMPARE)
        k = jit_kernel_find(cfg.function->ptx, false);
    *loaded = m;
    return k;
}

/* The compiled code of a kernel with a global variable serves the module
 * loaded again (numba's kernels have error globals, and a grading loads the
 * student's module more than once): the cache's key leaves the variable's
 * address out, and the code reads it from the running instruction. */
static void a_module_loaded_again_finds_its_code_with_its_own_variables(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_open(&fx);
    struct emu_module *a, *b; /* both loaded at once: their variables differ */
    const struct jit_kernel *first = run_placed(&fx, EMU_TIER_COMPARE, &a); /* compiles it */
    assert_non_null(first);
    assert_ptr_equal(run_placed(&fx, EMU_TIER_JIT, &b), first); /* found, not compiled again */
    emu_module_unload(b);
    emu_module_unload(a);
    fixture_close(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tier_names_are_parsed_and_others_refused),
        cmocka_unit_test(equal_results_agree),
        cmocka_unit_test(each_counter_is_compared_by_name),
        cmocka_unit_test(a_fault_difference_shows_both_messages),
        cmocka_unit_test(a_timeout_differs_only_in_its_instructions),
        cmocka_unit_test(an_image_is_written_back_and_compared),
        cmocka_unit_test(the_heaps_blocks_are_written_back_and_compared),
        cmocka_unit_test(a_compared_launch_gives_the_launchs_results),
        cmocka_unit_test(a_compared_launch_leaves_the_heap_as_one_run_does),
        cmocka_unit_test(parameters_of_each_size_are_loaded_alike),
        cmocka_unit_test(numbas_constructs_compile_and_agree),
        cmocka_unit_test(a_module_loaded_again_finds_its_code_with_its_own_variables),
    };
    return cmocka_run_group_tests_name("emu_tier", tests, NULL, NULL);
}
