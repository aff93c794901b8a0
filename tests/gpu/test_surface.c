/*
 * Surface objects: kernels compiled by NVRTC read and write CUDA arrays
 * with surf1D/2D/3D/2DLayered read and write (suld.b, sust.b), in each
 * boundary mode, with vector elements, and reduce with sured; suq reports
 * the surface. Every result is checked against the host's expectation by
 * copying the arrays back. Then what must fail: an access outside the
 * surface under cudaBoundaryModeTrap, a misaligned x, a bad, destroyed or
 * texture handle, a surface whose array was destroyed; cuSurfObjectCreate
 * and its siblings refuse bad descriptors as cuda.h says.
 */
#include "gpu_arrays.h"

#define THREADS 64

static const char source[] =
    "#define LANE int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return\n"
    "extern \"C\" __global__ void transform(cudaSurfaceObject_t in, cudaSurfaceObject_t out,\n"
    "                                      int w, int h)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;\n"
    "    if (x >= w || y >= h) return;\n"
    "    float v = surf2Dread<float>(in, x * 4, y);\n"
    "    surf2Dwrite(v * 2.0f + 1.0f, out, x * 4, y);\n"
    "}\n"
    "extern \"C\" __global__ void modes(cudaSurfaceObject_t s, const int2 *xy, int *out, int n)\n"
    "{\n"
    "    LANE;\n"
    "    int x = xy[i].x * 4, y = xy[i].y;\n"
    "    out[2 * i] = surf2Dread<int>(s, x, y, cudaBoundaryModeClamp);\n"
    "    out[2 * i + 1] = surf2Dread<int>(s, x, y, cudaBoundaryModeZero);\n"
    "    __syncthreads();\n"
    "    surf2Dwrite(1000 + i, s, x, y, cudaBoundaryModeZero);\n"
    "}\n"
    "extern \"C\" __global__ void shapes(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3,\n"
    "                                   cudaSurfaceObject_t sl, cudaSurfaceObject_t s4)\n"
    "{\n"
    "    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;\n"
    "    if (y == 0 && z == 0) surf1Dwrite<short>((short)(x * 3 - 7), s1, x * 2);\n"
    "    if (x < 4) surf3Dwrite(make_float2(x + 10 * y, 100 * z), s3, x * 8, y, z);\n"
    "    if (x < 4) surf2DLayeredwrite(x + 10 * y + 100 * z, sl, x * 4, y, z);\n"
    "    if (x < 4 && z == 0) {\n"
    "        uchar4 c = surf2Dread<uchar4>(s4, x * 4, y);\n"
    "        surf2Dwrite(make_uchar4(c.w, c.z, c.y, c.x), s4, x * 4, y);\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void reduce(cudaSurfaceObject_t s, int n)\n"
    "{\n"
    "    LANE;\n"
    "    asm volatile(\"sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;\"\n"
    "                 :: \"l\"(s), \"r\"((i % 4) * 4), \"r\"(1), \"r\"(i) : \"memory\");\n"
    "}\n"
    "extern \"C\" __global__ void query(cudaSurfaceObject_t s, int *out)\n"
    "{\n"
    "    asm(\"suq.width.b32 %0, [%1];\" : \"=r\"(out[0]) : \"l\"(s));\n"
    "    asm(\"suq.height.b32 %0, [%1];\" : \"=r\"(out[1]) : \"l\"(s));\n"
    "    asm(\"suq.depth.b32 %0, [%1];\" : \"=r\"(out[2]) : \"l\"(s));\n"
    "    asm(\"suq.array_size.b32 %0, [%1];\" : \"=r\"(out[3]) : \"l\"(s));\n"
    "    asm(\"suq.memory_layout.b32 %0, [%1];\" : \"=r\"(out[4]) : \"l\"(s));\n"
    "    asm(\"suq.channel_order.b32 %0, [%1];\" : \"=r\"(out[5]) : \"l\"(s));\n"
    "}\n"
    "extern \"C\" __global__ void poke(cudaSurfaceObject_t s, int x, int y)\n"
    "{\n"
    "    surf2Dwrite(1.0f, s, x, y);\n"
    "}\n";

struct kernels {
    CUmodule module;
    CUfunction transform, modes, shapes, reduce, query, poke;
};

static char *ptx; /* compiled once, loaded into each context */

static int load(struct kernels *k)
{
    memset(k, 0, sizeof *k);
    return CHECK_CU(gpu_test_load_ptx(&k->module, ptx, "surface.cu")) &&
           CHECK_CU(cuModuleGetFunction(&k->transform, k->module, "transform")) &&
           CHECK_CU(cuModuleGetFunction(&k->modes, k->module, "modes")) &&
           CHECK_CU(cuModuleGetFunction(&k->shapes, k->module, "shapes")) &&
           CHECK_CU(cuModuleGetFunction(&k->reduce, k->module, "reduce")) &&
           CHECK_CU(cuModuleGetFunction(&k->query, k->module, "query")) &&
           CHECK_CU(cuModuleGetFunction(&k->poke, k->module, "poke"));
}

/* An array made for surfaces, holding `host`'s texels. */
static CUarray surface_array(void *host, size_t w, size_t h, size_t d, CUarray_format format,
                             unsigned channels, unsigned flags, size_t texel_bytes)
{
    CUarray a = gpu_test_array(w, h, d, format, channels, flags | CUDA_ARRAY3D_SURFACE_LDST);
    if (a != NULL && !gpu_test_array_copy(a, host, w * texel_bytes, h ? h : 1, d ? d : 1, 1)) {
        cuArrayDestroy(a);
        return NULL;
    }
    return a;
}

/* ---------------------------------------------------------------- reads */

/* out = in × 2 + 1, texel by texel, through two surfaces. */
static void test_transform(const struct kernels *k)
{
    enum { W = 37, H = 5 };
    static float in[W * H], out[W * H], want[W * H];
    for (int i = 0; i < W * H; i++) {
        in[i] = (float)gpu_test_uniform(-10, 10);
        want[i] = in[i] * 2.0f + 1.0f;
    }
    CUarray a = surface_array(in, W, H, 0, CU_AD_FORMAT_FLOAT, 1, 0, 4);
    CUarray b = surface_array(out, W, H, 0, CU_AD_FORMAT_FLOAT, 1, 0, 4);
    CUsurfObject sa = a ? gpu_test_array_surface(a) : 0, sb = b ? gpu_test_array_surface(b) : 0;
    int w = W, h = H;
    void *args[] = {&sa, &sb, &w, &h};
    if (sa && sb &&
        gpu_test_run3(k->transform, (W + THREADS - 1) / THREADS, H, 1, THREADS, 1, 1, 0, args) &&
        gpu_test_array_copy(b, out, W * 4, H, 1, 0))
        CHECK_SAME(out, want, W * H);
    CHECK_CU(cuSurfObjectDestroy(sa));
    CHECK_CU(cuSurfObjectDestroy(sb));
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU(cuArrayDestroy(b));
}

/* cudaBoundaryModeClamp reads the nearest texel, cudaBoundaryModeZero
 * reads zeros outside and drops the writes there. */
static void test_boundary_modes(const struct kernels *k)
{
    enum { W = 6, H = 4, N = 64 };
    static int texels[W * H], after[W * H], want_after[W * H], xy[N * 2], got[N * 2], want[N * 2];
    for (int i = 0; i < W * H; i++)
        texels[i] = i * 7 + 3;
    memcpy(want_after, texels, sizeof texels);
    for (int i = 0; i < N; i++) {
        int x = i % 10 - 2, y = i / 10 - 1; /* x in -2..7, y in -1..5 */
        int cx = x < 0 ? 0 : x >= W ? W - 1 : x, cy = y < 0 ? 0 : y >= H ? H - 1 : y;
        int inside = x == cx && y == cy;
        xy[2 * i] = x;
        xy[2 * i + 1] = y;
        want[2 * i] = texels[cy * W + cx];
        want[2 * i + 1] = inside ? texels[y * W + x] : 0;
        if (inside)
            want_after[y * W + x] = 1000 + i;
    }
    CUarray a = surface_array(texels, W, H, 0, CU_AD_FORMAT_SIGNED_INT32, 1, 0, 4);
    CUsurfObject s = a ? gpu_test_array_surface(a) : 0;
    CUdeviceptr dxy = gpu_test_upload(xy, sizeof xy), dout = gpu_test_upload(NULL, sizeof got);
    int n = N;
    void *args[] = {&s, &dxy, &dout, &n};
    if (s && gpu_test_run(k->modes, 1, N, args) && gpu_test_download(got, dout, sizeof got) &&
        gpu_test_array_copy(a, after, W * 4, H, 1, 0)) {
        CHECK_SAME(got, want, N * 2);
        CHECK_SAME(after, want_after, W * H);
    }
    CHECK_CU(cuMemFree(dxy));
    CHECK_CU(cuSurfObjectDestroy(s));
    CHECK_CU(cuArrayDestroy(a));
}

/* ---------------------------------------------------------------- shapes */

/* 1D shorts, 3D float2, 2D layered ints, 2D uchar4 read and written back. */
static void test_shapes(const struct kernels *k)
{
    enum { W1 = 16, W = 4, H = 3, D = 2 };
    static int16_t one[W1], one_want[W1];
    static float three[W * H * D * 2], three_want[W * H * D * 2];
    static int32_t layers[W * H * D], layers_want[W * H * D];
    static uint8_t colors[W * H * 4], colors_want[W * H * 4];
    for (int x = 0; x < W1; x++)
        one_want[x] = (int16_t)(x * 3 - 7);
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int i = (z * H + y) * W + x;
                three_want[2 * i] = (float)(x + 10 * y);
                three_want[2 * i + 1] = (float)(100 * z);
                layers_want[i] = x + 10 * y + 100 * z;
            }
    for (int i = 0; i < W * H * 4; i++)
        colors[i] = (uint8_t)gpu_test_rng();
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 4; c++)
            colors_want[4 * i + c] = colors[4 * i + 3 - c];
    CUarray a1 = surface_array(one, W1, 0, 0, CU_AD_FORMAT_SIGNED_INT16, 1, 0, 2);
    CUarray a3 = surface_array(three, W, H, D, CU_AD_FORMAT_FLOAT, 2, 0, 8);
    CUarray al =
        surface_array(layers, W, H, D, CU_AD_FORMAT_SIGNED_INT32, 1, CUDA_ARRAY3D_LAYERED, 4);
    CUarray a4 = surface_array(colors, W, H, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 4);
    if (a1 == NULL || a3 == NULL || al == NULL || a4 == NULL)
        return;
    CUsurfObject s1 = gpu_test_array_surface(a1), s3 = gpu_test_array_surface(a3),
                 sl = gpu_test_array_surface(al), s4 = gpu_test_array_surface(a4);
    void *args[] = {&s1, &s3, &sl, &s4};
    if (gpu_test_run3(k->shapes, 1, 1, 1, W1, H, D, 0, args) &&
        gpu_test_array_copy(a1, one, W1 * 2, 1, 1, 0) &&
        gpu_test_array_copy(a3, three, W * 8, H, D, 0) &&
        gpu_test_array_copy(al, layers, W * 4, H, D, 0) &&
        gpu_test_array_copy(a4, colors, W * 4, H, 1, 0)) {
        CHECK_SAME(one, one_want, W1);
        CHECK_SAME(three, three_want, W * H * D * 2);
        CHECK_SAME(layers, layers_want, W * H * D);
        CHECK_SAME(colors, colors_want, W * H * 4);
    }
    CUsurfObject all[] = {s1, s3, sl, s4};
    CUarray arrays[] = {a1, a3, al, a4};
    for (int i = 0; i < 4; i++) {
        CHECK_CU(cuSurfObjectDestroy(all[i]));
        CHECK_CU(cuArrayDestroy(arrays[i]));
    }
}

/* sured.add from 256 threads onto 4 texels of row 1; suq. */
static void test_reduce_and_query(const struct kernels *k)
{
    enum { W = 8, H = 2, N = 256 };
    static uint32_t texels[W * H], want[W * H];
    for (int i = 0; i < N; i++)
        want[W + i % 4] += (uint32_t)i;
    CUarray a = surface_array(texels, W, H, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0, 4);
    CUsurfObject s = a ? gpu_test_array_surface(a) : 0;
    int n = N;
    void *args[] = {&s, &n};
    if (s && gpu_test_run(k->reduce, N / THREADS, THREADS, args) &&
        gpu_test_array_copy(a, texels, W * 4, H, 1, 0))
        CHECK_SAME(texels, want, W * H);
    /* width, height, depth, layers, block-linear, CL_R */
    static const int want_query[6] = {W, H, 1, 1, 1, 0x10B0};
    int got[6] = {0};
    CUdeviceptr out = gpu_test_upload(NULL, sizeof got);
    void *query_args[] = {&s, &out};
    if (s && gpu_test_run(k->query, 1, 1, query_args) && gpu_test_download(got, out, sizeof got))
        CHECK_SAME(got, want_query, 6);
    CHECK_CU(cuSurfObjectDestroy(s));
    CHECK_CU(cuArrayDestroy(a));
}

/* ---------------------------------------------------------------- faults */

static void test_faults(void)
{
    static const struct {
        enum gpu_test_handle handle;
        int x, y;
        CUresult code;
        const char *words;
    } cases[] = {
        {GPU_TEST_LIVE, 16, 0, CUDA_ERROR_ILLEGAL_ADDRESS,
         "x = 16 bytes, y = 0, z = 0, layer 0 of surface object 1, outside its 4 x 4 x 1 texels "
         "of 4 bytes"},
        {GPU_TEST_LIVE, 0, -1, CUDA_ERROR_ILLEGAL_ADDRESS, "boundary mode trap"},
        {GPU_TEST_LIVE, 2, 0, CUDA_ERROR_MISALIGNED_ADDRESS, "which is not a multiple of 4"},
        {GPU_TEST_MADE_UP, 0, 0, CUDA_ERROR_ILLEGAL_ADDRESS,
         "surface object 999, which is no live"},
        {GPU_TEST_DESTROYED, 0, 0, CUDA_ERROR_ILLEGAL_ADDRESS, "which is no live surface object"},
        {GPU_TEST_ARRAY_DESTROYED, 0, 0, CUDA_ERROR_ILLEGAL_ADDRESS, "was freed"},
        {GPU_TEST_OTHER_KIND, 0, 0, CUDA_ERROR_ILLEGAL_ADDRESS, "which takes a surface object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        gpu_test_handle_fault(ptx, "poke", cases[i].handle, 1, cases[i].x, cases[i].y,
                              cases[i].code, cases[i].words);
}

/* ---------------------------------------------------------- error paths */

static void test_create_errors(void)
{
    CUarray plain = gpu_test_array(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUarray a = gpu_test_array(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST);
    CUdeviceptr d = gpu_test_upload(NULL, 1024);
    CUDA_RESOURCE_DESC r, got;
    CUsurfObject s = 0;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    CHECK_CU_IS(cuSurfObjectCreate(NULL, &r), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuSurfObjectCreate(&s, NULL), CUDA_ERROR_INVALID_VALUE);
    r.flags = 1;
    CHECK_CU_IS(cuSurfObjectCreate(&s, &r), CUDA_ERROR_INVALID_VALUE);
    r.flags = 0;
    r.res.array.hArray = plain; /* made without CUDA_ARRAY3D_SURFACE_LDST */
    CHECK_CU_IS(cuSurfObjectCreate(&s, &r), CUDA_ERROR_INVALID_VALUE);
    r.res.array.hArray = a;
    CHECK_CU(cuSurfObjectCreate(&s, &r));
    CHECK_CU(cuSurfObjectGetResourceDesc(&got, s));
    CHECK(memcmp(&got, &r, sizeof r) == 0);
    CHECK_CU_IS(cuSurfObjectGetResourceDesc(NULL, s), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectDestroy(s), CUDA_ERROR_INVALID_VALUE); /* not a texture */
    CHECK_CU(cuSurfObjectDestroy(s));
    CHECK_CU_IS(cuSurfObjectDestroy(s), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuSurfObjectGetResourceDesc(&got, s), CUDA_ERROR_INVALID_VALUE);
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_LINEAR; /* surfaces take arrays only */
    r.res.linear.devPtr = d;
    r.res.linear.format = CU_AD_FORMAT_FLOAT;
    r.res.linear.numChannels = 1;
    r.res.linear.sizeInBytes = 1024;
    CHECK_CU_IS(cuSurfObjectCreate(&s, &r), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuArrayDestroy(a));
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a; /* destroyed */
    CHECK_CU_IS(cuSurfObjectCreate(&s, &r), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuArrayDestroy(plain));
    CHECK_CU(cuMemFree(d));
}

int main(void)
{
    CUcontext ctx;
    struct kernels k;
    ptx = gpu_test_compile(source, "surface.cu");
    if (ptx == NULL || !gpu_test_start(&ctx) || !load(&k))
        return gpu_test_summary();
    test_transform(&k);
    test_boundary_modes(&k);
    test_shapes(&k);
    test_reduce_and_query(&k);
    test_create_errors();
    CHECK_CU(cuCtxDestroy(ctx));
    test_faults();
    free(ptx);
    return gpu_test_summary();
}
