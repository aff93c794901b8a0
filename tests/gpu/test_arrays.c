/*
 * CUDA arrays and the copies that take pitches: cuArrayCreate,
 * cuArray3DCreate, cuArrayDestroy, cuArray(3D)GetDescriptor for each kind
 * of array; cuMemAllocPitch; cuMemcpy2D, cuMemcpy2DUnaligned,
 * cuMemcpy2DAsync, cuMemcpy3D, cuMemcpy3DAsync between host, device and
 * array memory with pitches, offsets and boxes, every byte checked,
 * padding left alone; the copies by offset (cuMemcpyHtoA, AtoH, DtoA, AtoD,
 * AtoA and the async ones); each call's error paths as cuda.h documents
 * them; and cuGetProcAddress finding every one.
 */
#include "gpu_arrays.h"

#define SENTINEL 0xA5

/* ---------------------------------------------------------------- arrays */

static void check_descriptor(CUarray a, const CUDA_ARRAY3D_DESCRIPTOR *want)
{
    CUDA_ARRAY3D_DESCRIPTOR got3;
    CUDA_ARRAY_DESCRIPTOR got2;
    if (!CHECK_CU(cuArray3DGetDescriptor(&got3, a)) || !CHECK_CU(cuArrayGetDescriptor(&got2, a)))
        return;
    CHECK_EQ(got3.Width, want->Width);
    CHECK_EQ(got3.Height, want->Height);
    CHECK_EQ(got3.Depth, want->Depth);
    CHECK_EQ(got3.Format, want->Format);
    CHECK_EQ(got3.NumChannels, want->NumChannels);
    CHECK_EQ(got3.Flags, want->Flags);
    CHECK_EQ(got2.Width, want->Width);
    CHECK_EQ(got2.Height, want->Height);
    CHECK_EQ(got2.Format, want->Format);
    CHECK_EQ(got2.NumChannels, want->NumChannels);
}

/* Every kind of array is made, described as it was asked for, charged to
 * device memory, and destroyed. */
static void test_kinds(void)
{
    static const CUDA_ARRAY3D_DESCRIPTOR kinds[] = {
        {2048, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0},
        {640, 480, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SURFACE_LDST},
        {64, 32, 16, CU_AD_FORMAT_HALF, 2, 0},
        {8, 8, 20000, CU_AD_FORMAT_FLOAT, 1, 0}, /* within the alternate 3D extents */
        {100, 0, 8, CU_AD_FORMAT_SIGNED_INT16, 1, CUDA_ARRAY3D_LAYERED},
        {30, 20, 10, CU_AD_FORMAT_UNSIGNED_INT32, 4, CUDA_ARRAY3D_LAYERED},
        {16, 16, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP},
        {16, 16, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED},
        {64, 64, 0, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_TEXTURE_GATHER},
        {64, 64, 0, CU_AD_FORMAT_UNORM_INT8X4, 4, 0},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t free_before = 0, free_after = 0, total = 0;
        CUarray a = NULL;
        CHECK_CU(cuMemGetInfo(&free_before, &total));
        if (!CHECK_CU(cuArray3DCreate(&a, &kinds[i])))
            continue;
        CHECK_CU(cuMemGetInfo(&free_after, &total));
        CHECK(free_after < free_before);
        check_descriptor(a, &kinds[i]);
        CHECK_CU(cuArrayDestroy(a));
        CHECK_CU(cuMemGetInfo(&free_after, &total));
        CHECK_EQ(free_after, free_before);
    }
    CUDA_ARRAY_DESCRIPTOR two = {300, 200, CU_AD_FORMAT_SIGNED_INT8, 2};
    CUDA_ARRAY3D_DESCRIPTOR as3 = {300, 200, 0, CU_AD_FORMAT_SIGNED_INT8, 2, 0};
    CUarray a = NULL;
    if (CHECK_CU(cuArrayCreate(&a, &two))) {
        check_descriptor(a, &as3);
        CHECK_CU(cuArrayDestroy(a));
    }
}

static void test_array_errors(void)
{
    struct {
        CUDA_ARRAY3D_DESCRIPTOR d;
        CUresult code;
    } bad[] = {
        {{0, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0}, CUDA_ERROR_INVALID_VALUE},   /* no width */
        {{8, 8, 0, CU_AD_FORMAT_FLOAT, 3, 0}, CUDA_ERROR_INVALID_VALUE},   /* 3 channels */
        {{8, 8, 0, CU_AD_FORMAT_FLOAT, 0, 0}, CUDA_ERROR_INVALID_VALUE},   /* no channels */
        {{8, 8, 0, (CUarray_format)0x77, 1, 0}, CUDA_ERROR_INVALID_VALUE}, /* no such format */
        {{8, 8, 0, CU_AD_FORMAT_BC1_UNORM, 2, 0}, CUDA_ERROR_NOT_SUPPORTED},
        {{8, 8, 0, CU_AD_FORMAT_NV12, 1, 0}, CUDA_ERROR_NOT_SUPPORTED},
        {{8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0x10000}, CUDA_ERROR_INVALID_VALUE}, /* unknown flag */
        {{8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE}, CUDA_ERROR_NOT_SUPPORTED},
        {{8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED}, CUDA_ERROR_INVALID_VALUE},
        {{8, 0, 2, CU_AD_FORMAT_FLOAT, 1, 0}, CUDA_ERROR_INVALID_VALUE}, /* depth, no height */
        {{8, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP}, CUDA_ERROR_INVALID_VALUE},
        {{8, 8, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP}, CUDA_ERROR_INVALID_VALUE},
        {{8, 8, 7, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED},
         CUDA_ERROR_INVALID_VALUE},
        {{8, 8, 8, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER}, CUDA_ERROR_INVALID_VALUE},
        {{131073, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0}, CUDA_ERROR_INVALID_VALUE},
        {{32769, 0, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST}, CUDA_ERROR_INVALID_VALUE},
        {{9000, 8, 16385, CU_AD_FORMAT_FLOAT, 1, 0}, CUDA_ERROR_INVALID_VALUE}, /* both 3D limits */
        {{16384, 16384, 16384, CU_AD_FORMAT_FLOAT, 4, 0}, CUDA_ERROR_OUT_OF_MEMORY},
    };
    CUarray a = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!CHECK_CU_IS(cuArray3DCreate(&a, &bad[i].d), bad[i].code))
            fprintf(stderr, "  (case %zu)\n", i);
    CUDA_ARRAY3D_DESCRIPTOR good = {8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUDA_ARRAY_DESCRIPTOR two = {8, 8, CU_AD_FORMAT_FLOAT, 3};
    CHECK_CU_IS(cuArray3DCreate(NULL, &good), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuArray3DCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuArrayCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuArrayCreate(&a, &two), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    if (!CHECK_CU(cuArray3DCreate(&a, &good)))
        return;
    CUDA_ARRAY_DESCRIPTOR d;
    CHECK_CU_IS(cuArrayGetDescriptor(NULL, a), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuArray3DGetDescriptor(NULL, a), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU_IS(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuArrayGetDescriptor(&d, a), CUDA_ERROR_INVALID_HANDLE);
    CUDA_ARRAY3D_DESCRIPTOR d3;
    CHECK_CU_IS(cuArray3DGetDescriptor(&d3, a), CUDA_ERROR_INVALID_HANDLE);
}

/* --------------------------------------------------------- pitched memory */

static void test_alloc_pitch(void)
{
    CUdeviceptr d = 0;
    size_t pitch = 0;
    if (CHECK_CU(cuMemAllocPitch(&d, &pitch, 1000, 7, 4))) {
        CHECK(pitch >= 1000 && pitch % 32 == 0);
        if (gpu_test_is_virtual())
            CHECK_EQ(pitch, 1024); /* rows aligned to 512 bytes, as a GPU's */
        CUdeviceptr base = 0;
        size_t size = 0;
        CHECK_CU(cuMemGetAddressRange(&base, &size, d));
        CHECK(base == d && size >= pitch * 7);
        CHECK_CU(cuMemFree(d));
    }
    CHECK_CU_IS(cuMemAllocPitch(&d, &pitch, 1000, 7, 3), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocPitch(&d, &pitch, 0, 7, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocPitch(&d, &pitch, 1000, 0, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocPitch(NULL, &pitch, 1000, 7, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocPitch(&d, NULL, 1000, 7, 4), CUDA_ERROR_INVALID_VALUE);
}

/* ---------------------------------------------------------------- copies */

/* A 2D copy descriptor from a host region to another (the caller changes
 * the ends it wants elsewhere). */
static CUDA_MEMCPY2D host_to_host(const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
                                  size_t width, size_t height)
{
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = src_pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = dst;
    c.dstPitch = dst_pitch;
    c.WidthInBytes = width;
    c.Height = height;
    return c;
}

static void as_array(CUmemorytype *type, CUarray *handle, CUarray a)
{
    *type = CU_MEMORYTYPE_ARRAY;
    *handle = a;
}

static void as_device(CUmemorytype *type, CUdeviceptr *device, size_t *pitch, CUdeviceptr d,
                      size_t row_pitch)
{
    *type = CU_MEMORYTYPE_DEVICE;
    *device = d;
    *pitch = row_pitch;
}

/* One end of a 3D copy: its fields in a CUDA_MEMCPY3D. */
struct end3 {
    CUmemorytype *type;
    const void **host;
    CUdeviceptr *device;
    CUarray *array;
    size_t *pitch, *height;
};

static struct end3 source3(CUDA_MEMCPY3D *c)
{
    return (struct end3){&c->srcMemoryType, &c->srcHost,  &c->srcDevice,
                         &c->srcArray,      &c->srcPitch, &c->srcHeight};
}

static struct end3 destination3(CUDA_MEMCPY3D *c)
{
    return (struct end3){&c->dstMemoryType, (const void **)&c->dstHost,
                         &c->dstDevice,     &c->dstArray,
                         &c->dstPitch,      &c->dstHeight};
}

/* Host or device memory (`host` NULL) with rows `pitch` apart, slices
 * `height` rows apart; or an array. */
static void set_memory(struct end3 e, const void *host, CUdeviceptr device, size_t pitch,
                       size_t height)
{
    *e.type = host != NULL ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    *e.host = host;
    *e.device = device;
    *e.pitch = pitch;
    *e.height = height;
}

static void set_array(struct end3 e, CUarray a)
{
    *e.type = CU_MEMORYTYPE_ARRAY;
    *e.array = a;
}

/* A 3D copy of a box of width bytes × height rows × depth slices. */
static CUDA_MEMCPY3D box3(size_t width, size_t height, size_t depth)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.WidthInBytes = width;
    c.Height = height;
    c.Depth = depth;
    return c;
}

/* rows × width bytes of `p` at `pitch` equal those of `q` at its pitch. */
static int same_rows(const uint8_t *p, size_t p_pitch, const uint8_t *q, size_t q_pitch,
                     size_t width, size_t rows)
{
    for (size_t y = 0; y < rows; y++)
        if (memcmp(p + y * p_pitch, q + y * q_pitch, width) != 0)
            return 0;
    return 1;
}

/* Host → array → host with pitches wider than the rows, through every
 * kind of end: array, pitched device memory (cuMemAllocPitch), another
 * array; the padding of the host rows is never written. */
static void test_copies_2d(void)
{
    enum { W = 13, H = 6, ROW = W * 4, IN_PITCH = ROW + 12, OUT_PITCH = ROW + 20 };
    static uint8_t in[IN_PITCH * H], out[OUT_PITCH * H], untouched[OUT_PITCH * H];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)gpu_test_rng();
    memset(out, SENTINEL, sizeof out);
    memcpy(untouched, out, sizeof out);
    CUarray a = gpu_test_array(W, H, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUarray b = gpu_test_array(W, H, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUdeviceptr d = 0;
    size_t d_pitch = 0;
    if (a == NULL || b == NULL || !CHECK_CU(cuMemAllocPitch(&d, &d_pitch, ROW, H, 4)))
        return;
    CUDA_MEMCPY2D c = host_to_host(in, IN_PITCH, NULL, 0, ROW, H);
    as_array(&c.dstMemoryType, &c.dstArray, a); /* host → array */
    CHECK_CU(cuMemcpy2D(&c));
    c = host_to_host(NULL, 0, NULL, 0, ROW, H);
    as_array(&c.srcMemoryType, &c.srcArray, a); /* array → pitched device */
    as_device(&c.dstMemoryType, &c.dstDevice, &c.dstPitch, d, d_pitch);
    CHECK_CU(cuMemcpy2DUnaligned(&c));
    c = host_to_host(NULL, 0, NULL, 0, ROW, H);
    as_device(&c.srcMemoryType, &c.srcDevice, &c.srcPitch, d, d_pitch); /* device → array b */
    as_array(&c.dstMemoryType, &c.dstArray, b);
    CHECK_CU(cuMemcpy2DAsync(&c, NULL));
    c = host_to_host(NULL, 0, out, OUT_PITCH, ROW, H);
    as_array(&c.srcMemoryType, &c.srcArray, b); /* array b → host */
    CHECK_CU(cuMemcpy2D(&c));
    CHECK(same_rows(in, IN_PITCH, out, OUT_PITCH, ROW, H));
    for (size_t y = 0; y < H; y++)
        CHECK(memcmp(out + y * OUT_PITCH + ROW, untouched + y * OUT_PITCH + ROW, OUT_PITCH - ROW) ==
              0);
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU(cuArrayDestroy(b));
}

/* A box inside both ends: from (8 bytes, row 1) of a host image to
 * (4 bytes, row 2) of an array, then from the array to device memory at
 * (12 bytes, row 3); everything else keeps its old bytes. */
static void test_boxes_2d(void)
{
    enum { W = 5, H = 4, ROW = W * 4, BOX_W = 8, BOX_H = 2, D_PITCH = 64 };
    static uint8_t host[ROW * H], array[ROW * H], want[ROW * H], dev[D_PITCH * 8],
        dev_want[D_PITCH * 8];
    for (size_t i = 0; i < sizeof host; i++)
        host[i] = (uint8_t)gpu_test_rng();
    memset(array, 0, sizeof array);
    memcpy(want, array, sizeof want);
    memset(dev, SENTINEL, sizeof dev);
    memcpy(dev_want, dev, sizeof dev);
    for (int y = 0; y < BOX_H; y++) {
        memcpy(want + (2 + y) * ROW + 4, host + (1 + y) * ROW + 8, BOX_W);
        memcpy(dev_want + (3 + y) * D_PITCH + 12, host + (1 + y) * ROW + 8, BOX_W);
    }
    CUarray a = gpu_test_array(W, H, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUdeviceptr d = gpu_test_upload(dev, sizeof dev);
    if (a == NULL || d == 0 || !gpu_test_array_copy(a, array, ROW, H, 1, 1))
        return;
    CUDA_MEMCPY2D c = host_to_host(host, ROW, NULL, 0, BOX_W, BOX_H);
    c.srcXInBytes = 8;
    c.srcY = 1;
    as_array(&c.dstMemoryType, &c.dstArray, a);
    c.dstXInBytes = 4;
    c.dstY = 2;
    CHECK_CU(cuMemcpy2D(&c));
    c = host_to_host(NULL, 0, NULL, 0, BOX_W, BOX_H);
    as_array(&c.srcMemoryType, &c.srcArray, a);
    c.srcXInBytes = 4;
    c.srcY = 2;
    as_device(&c.dstMemoryType, &c.dstDevice, &c.dstPitch, d, D_PITCH);
    c.dstXInBytes = 12;
    c.dstY = 3;
    CHECK_CU(cuMemcpy2D(&c));
    if (gpu_test_array_copy(a, array, ROW, H, 1, 0) && gpu_test_download(dev, d, sizeof dev)) {
        CHECK_SAME(array, want, sizeof want);
        CHECK_SAME(dev, dev_want, sizeof dev);
    }
    CHECK_CU(cuArrayDestroy(a));
}

/* 3D: host slices with padded rows and a taller slice height → a 3D
 * array → device memory with pitches → host; a box between layers of a
 * layered array. */
static void test_copies_3d(void)
{
    enum { W = 5, H = 4, D = 3, ROW = W * 8, PITCH = ROW + 8, HEIGHT = H + 1 };
    static uint8_t in[PITCH * HEIGHT * D], out[ROW * H * D];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)gpu_test_rng();
    CUarray a = gpu_test_array(W, H, D, CU_AD_FORMAT_FLOAT, 2, 0);
    CUdeviceptr dev = gpu_test_upload(NULL, 128 * H * D);
    if (a == NULL || dev == 0)
        return;
    CUDA_MEMCPY3D c = box3(ROW, H, D);
    set_memory(source3(&c), in, 0, PITCH, HEIGHT); /* host → array */
    set_array(destination3(&c), a);
    CHECK_CU(cuMemcpy3D(&c));
    c = box3(ROW, H, D);
    set_array(source3(&c), a); /* array → device */
    set_memory(destination3(&c), NULL, dev, 128, H);
    CHECK_CU(cuMemcpy3DAsync(&c, NULL));
    c = box3(ROW, H, D);
    set_memory(source3(&c), NULL, dev, 128, H); /* device → host */
    set_memory(destination3(&c), out, 0, ROW, H);
    CHECK_CU(cuMemcpy3D(&c));
    int same = 1;
    for (int z = 0; z < D; z++)
        same &= same_rows(in + z * PITCH * HEIGHT, PITCH, out + z * ROW * H, ROW, ROW, H);
    CHECK(same);
    /* layer 2 of a layered array from slice 1 of the 3D array, rows 1..2 */
    CUarray l = gpu_test_array(W, H, 4, CU_AD_FORMAT_FLOAT, 2, CUDA_ARRAY3D_LAYERED);
    static uint8_t layers[ROW * H * 4], layers_want[ROW * H * 4];
    CUDA_MEMCPY3D box = box3(ROW, 2, 1);
    set_array(source3(&box), a);
    box.srcY = 1;
    box.srcZ = 1;
    set_array(destination3(&box), l);
    box.dstY = 1;
    box.dstZ = 2;
    for (int y = 1; y < 3; y++)
        memcpy(layers_want + (2 * H + y) * ROW, in + (1 * HEIGHT + y) * PITCH, ROW);
    if (l != NULL && CHECK_CU(cuMemcpy3D(&box)) && gpu_test_array_copy(l, layers, ROW, H, 4, 0))
        CHECK_SAME(layers, layers_want, sizeof layers);
    CHECK_CU(cuArrayDestroy(l));
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU(cuMemFree(dev));
}

/* The copies by offset into an array's bytes. */
static void test_copies_by_offset(void)
{
    enum { N = 64 };
    static uint8_t in[N], out[N], want[N];
    for (int i = 0; i < N; i++)
        in[i] = (uint8_t)(i * 5 + 1);
    CUarray a = gpu_test_array(N / 4, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUarray b = gpu_test_array(N / 4, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUdeviceptr d = gpu_test_upload(NULL, N);
    if (a == NULL || b == NULL || d == 0)
        return;
    CHECK_CU(cuMemcpyHtoA(a, 0, in, N));
    CHECK_CU(cuMemcpyAtoA(b, 8, a, 0, N - 8)); /* b[8..] = in[0..N-8) */
    CHECK_CU(cuMemcpyHtoAAsync(b, 0, in + N - 8, 8, NULL));
    CHECK_CU(cuMemcpyAtoD(d, b, 0, N));
    CHECK_CU(cuMemcpyDtoA(a, 0, d, N));
    CHECK_CU(cuMemcpyAtoHAsync(out, a, 0, N, NULL));
    memcpy(want, in + N - 8, 8);
    memcpy(want + 8, in, N - 8);
    CHECK_SAME(out, want, N);
    CHECK_CU(cuMemcpyAtoH(out, a, 16, 8));
    CHECK_SAME(out, want + 16, 8);
    CHECK_CU_IS(cuMemcpyHtoA(a, 8, in, N), CUDA_ERROR_INVALID_VALUE); /* past the end */
    CHECK_CU_IS(cuMemcpyAtoH(out, a, N, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyAtoD(d, a, 0, N + 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoA(a, 0, d + N, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyHtoA(NULL, 0, in, 4), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyHtoAAsync(a, 0, in, 4, (CUstream)(uintptr_t)0x1234),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyAtoHAsync(out, a, 0, 4, (CUstream)(uintptr_t)0x1234),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyAtoA(a, 0, NULL, 0, 4), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyAtoA(a, N - 2, b, 0, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyAtoH(NULL, a, 0, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU(cuArrayDestroy(b));
}

/* cudaMemcpy2D with cudaMemcpyDefault: both ends unified addresses, one
 * on the host and one on the device. */
static void test_unified(void)
{
    enum { ROW = 24, H = 3, PITCH = 32 };
    static uint8_t in[ROW * H], out[ROW * H];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 3);
    CUdeviceptr d = gpu_test_upload(NULL, PITCH * H);
    CUDA_MEMCPY2D c = host_to_host(NULL, 0, NULL, 0, ROW, H);
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = (CUdeviceptr)(uintptr_t)in;
    c.srcPitch = ROW;
    c.dstDevice = d;
    c.dstPitch = PITCH;
    CHECK_CU(cuMemcpy2D(&c));
    c.srcDevice = d;
    c.srcPitch = PITCH;
    c.dstDevice = (CUdeviceptr)(uintptr_t)out;
    c.dstPitch = ROW;
    CHECK_CU(cuMemcpy2D(&c));
    CHECK_SAME(out, in, sizeof in);
    c.srcDevice = d + PITCH; /* device memory, but the box runs past it */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(d));
}

/* What every 2D and 3D copy refuses. */
static void test_copy_errors(void)
{
    enum { ROW = 64 };
    static uint8_t host[ROW * 8];
    CUarray a = gpu_test_array(8, 4, 0, CU_AD_FORMAT_FLOAT, 2, 0); /* rows of 64 bytes */
    CUdeviceptr d = gpu_test_upload(NULL, ROW * 8);
    if (a == NULL || d == 0)
        return;
    CHECK_CU_IS(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY2D c = host_to_host(host, ROW, NULL, 0, ROW, 8);
    as_device(&c.dstMemoryType, &c.dstDevice, &c.dstPitch, d, ROW);
    CHECK_CU(cuMemcpy2D(&c));
    c.dstPitch = ROW - 1; /* narrower than the rows */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstPitch = ROW;
    c.dstY = 1; /* one row past the allocation */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstY = 0;
    c.srcPitch = (size_t)1 << 32; /* above CU_DEVICE_ATTRIBUTE_MAX_PITCH */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcPitch = ROW;
    c.dstMemoryType = (CUmemorytype)9;
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcHost = NULL;
    as_device(&c.dstMemoryType, &c.dstDevice, &c.dstPitch, d, ROW);
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c = host_to_host(host, ROW, NULL, 0, 8, 2);
    as_array(&c.dstMemoryType, &c.dstArray, a);
    c.dstXInBytes = 4; /* half a texel of 8 bytes */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstXInBytes = 64; /* past the row */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstXInBytes = 0;
    c.dstY = 3; /* rows 3 and 4 of 4 */
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstY = 0;
    c.WidthInBytes = 0; /* nothing to copy */
    CHECK_CU(cuMemcpy2D(&c));
    c.WidthInBytes = 8;
    CHECK_CU_IS(cuMemcpy2DAsync(&c, (CUstream)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);
    c.dstY = 3;
    CHECK_CU_IS(cuMemcpy2DUnaligned(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstY = 0;
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU_IS(cuMemcpy2D(&c), CUDA_ERROR_INVALID_HANDLE);
    CUDA_MEMCPY3D c3 = box3(ROW, 3, 2);
    set_memory(source3(&c3), host, 0, ROW, 2); /* slices of 2 rows hold no box of 3 rows */
    set_memory(destination3(&c3), NULL, d, ROW, 3);
    CHECK_CU_IS(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
    c3.srcHeight = 4;
    CHECK_CU(cuMemcpy3D(&c3));
    c3.srcLOD = 1;
    CHECK_CU_IS(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpy3DAsync(&c3, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpy3DAsync(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    c3.srcLOD = 0;
    c3.reserved0 = host;
    CHECK_CU_IS(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
    c3.reserved0 = NULL;
    c3.dstHeight = 4; /* rows 2..4 and 6..8 of the allocation's 8 */
    c3.dstY = 2;
    CHECK_CU_IS(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(d));
}

/* cuGetProcAddress finds each entry point, the version cuda.h maps it to. */
static void test_proc_address(void)
{
    static const struct gpu_test_entry entries[] = {
        {"cuArrayCreate", (void *)cuArrayCreate},
        {"cuArray3DCreate", (void *)cuArray3DCreate},
        {"cuArrayDestroy", (void *)cuArrayDestroy},
        {"cuArrayGetDescriptor", (void *)cuArrayGetDescriptor},
        {"cuArray3DGetDescriptor", (void *)cuArray3DGetDescriptor},
        {"cuMemAllocPitch", (void *)cuMemAllocPitch},
        {"cuMemcpy2D", (void *)cuMemcpy2D},
        {"cuMemcpy2DUnaligned", (void *)cuMemcpy2DUnaligned},
        {"cuMemcpy2DAsync", (void *)cuMemcpy2DAsync},
        {"cuMemcpy3D", (void *)cuMemcpy3D},
        {"cuMemcpy3DAsync", (void *)cuMemcpy3DAsync},
        {"cuMemcpyHtoA", (void *)cuMemcpyHtoA},
        {"cuMemcpyAtoH", (void *)cuMemcpyAtoH},
        {"cuMemcpyHtoAAsync", (void *)cuMemcpyHtoAAsync},
        {"cuMemcpyAtoHAsync", (void *)cuMemcpyAtoHAsync},
        {"cuMemcpyDtoA", (void *)cuMemcpyDtoA},
        {"cuMemcpyAtoD", (void *)cuMemcpyAtoD},
        {"cuMemcpyAtoA", (void *)cuMemcpyAtoA},
        {"cuTexObjectCreate", (void *)cuTexObjectCreate},
        {"cuTexObjectDestroy", (void *)cuTexObjectDestroy},
        {"cuTexObjectGetResourceDesc", (void *)cuTexObjectGetResourceDesc},
        {"cuTexObjectGetTextureDesc", (void *)cuTexObjectGetTextureDesc},
        {"cuTexObjectGetResourceViewDesc", (void *)cuTexObjectGetResourceViewDesc},
        {"cuSurfObjectCreate", (void *)cuSurfObjectCreate},
        {"cuSurfObjectDestroy", (void *)cuSurfObjectDestroy},
        {"cuSurfObjectGetResourceDesc", (void *)cuSurfObjectGetResourceDesc},
    };
    gpu_test_procs_found(entries, sizeof entries / sizeof entries[0]);
}

int main(void)
{
    CUcontext ctx;
    if (!gpu_test_start(&ctx))
        return gpu_test_summary();
    test_kinds();
    test_array_errors();
    test_alloc_pitch();
    test_copies_2d();
    test_boxes_2d();
    test_copies_3d();
    test_copies_by_offset();
    test_unified();
    test_copy_errors();
    test_proc_address();
    CHECK_CU(cuCtxDestroy(ctx));
    return gpu_test_summary();
}
