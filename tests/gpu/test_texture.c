/*
 * Texture objects: kernels compiled by NVRTC fetch with tex1D, tex2D,
 * tex3D, tex1Dfetch, the layered, cubemap, gather, Lod and Grad forms, and
 * every result is compared bit for bit with a host reference written from
 * the CUDA C++ Programming Guide's "Texture Fetching" appendix: each
 * address mode (wrap, clamp, mirror, border), point and linear filtering
 * with the hardware's weights in 9-bit fixed point (8 fractional bits),
 * normalized coordinates, the read modes and channel formats (u8 s8 u16 s16
 * u32 s32 f16 f32, 1, 2 and 4 channels, sRGB), linear and pitch2D
 * resources, txq. Then what must fail: a bad handle, a destroyed object, an
 * object whose array was destroyed fault with CUDA_ERROR_ILLEGAL_ADDRESS;
 * cuTexObjectCreate and its siblings refuse bad descriptors as cuda.h says.
 */
#include <math.h>

#include "gpu_arrays.h"

#define THREADS      128
#define WEIGHT_STEPS 256.0 /* the filter weights' fixed point: 1/256 */
#define MAX_POINTS   4096
#define CUBE_WIDTH   4

static const char source[] =
    "#define LANE int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return\n"
    "extern \"C\" __global__ void fetch1d(cudaTextureObject_t t, const float4 *p, float4 *out,\n"
    "                                     int n)\n"
    "{ LANE; out[i] = tex1D<float4>(t, p[i].x); }\n"
    "extern \"C\" __global__ void fetch2d(cudaTextureObject_t t, const float4 *p, float4 *out,\n"
    "                                     int n)\n"
    "{ LANE; out[i] = tex2D<float4>(t, p[i].x, p[i].y); }\n"
    "extern \"C\" __global__ void fetch3d(cudaTextureObject_t t, const float4 *p, float4 *out,\n"
    "                                     int n)\n"
    "{ LANE; out[i] = tex3D<float4>(t, p[i].x, p[i].y, p[i].z); }\n"
    "extern \"C\" __global__ void fetch2d_int(cudaTextureObject_t t, const float4 *p, int4 *out,\n"
    "                                         int n)\n"
    "{ LANE; out[i] = tex2D<int4>(t, p[i].x, p[i].y); }\n"
    "extern \"C\" __global__ void fetch_index(cudaTextureObject_t t, const float4 *p, int4 *out,\n"
    "                                         int n)\n"
    "{ LANE; out[i] = tex1Dfetch<int4>(t, (int)p[i].x); }\n"
    "extern \"C\" __global__ void fetch_index_float(cudaTextureObject_t t, const float4 *p,\n"
    "                                               float4 *out, int n)\n"
    "{ LANE; out[i] = tex1Dfetch<float4>(t, (int)p[i].x); }\n"
    "extern \"C\" __global__ void fetch_layered(cudaTextureObject_t t, const float4 *p,\n"
    "                                           float4 *out, int n)\n"
    "{\n"
    "    LANE;\n"
    "    if (p[i].w != 0) out[i] = tex1DLayered<float4>(t, p[i].x, (int)p[i].z);\n"
    "    else out[i] = tex2DLayered<float4>(t, p[i].x, p[i].y, (int)p[i].z);\n"
    "}\n"
    "extern \"C\" __global__ void fetch_cube(cudaTextureObject_t t, const float4 *p, float4 *out,\n"
    "                                        int n)\n"
    "{\n"
    "    LANE;\n"
    "    if (p[i].w > 0) out[i] = texCubemapLayered<float4>(t, p[i].x, p[i].y, p[i].z,\n"
    "                                                       (int)p[i].w - 1);\n"
    "    else out[i] = texCubemap<float4>(t, p[i].x, p[i].y, p[i].z);\n"
    "}\n"
    "extern \"C\" __global__ void gather(cudaTextureObject_t t, const float4 *p, float4 *out,\n"
    "                                    int n)\n"
    "{\n"
    "    LANE;\n"
    "    out[4 * i + 0] = tex2Dgather<float4>(t, p[i].x, p[i].y, 0);\n"
    "    out[4 * i + 1] = tex2Dgather<float4>(t, p[i].x, p[i].y, 1);\n"
    "    out[4 * i + 2] = tex2Dgather<float4>(t, p[i].x, p[i].y, 2);\n"
    "    out[4 * i + 3] = tex2Dgather<float4>(t, p[i].x, p[i].y, 3);\n"
    "}\n"
    "extern \"C\" __global__ void mip(cudaTextureObject_t t, const float4 *p, float4 *out, int n)\n"
    "{\n"
    "    LANE;\n"
    "    bool resident = false;\n"
    "    out[3 * i] = tex2DLod<float4>(t, p[i].x, p[i].y, 2.5f);\n"
    "    out[3 * i + 1] = tex2DGrad<float4>(t, p[i].x, p[i].y, make_float2(4, 0),\n"
    "                                       make_float2(0, 4));\n"
    "    out[3 * i + 2] = tex2D<float4>(t, p[i].x, p[i].y, &resident);\n"
    "    if (!resident) out[3 * i + 2].x = -1.0f;\n"
    "}\n"
    "__device__ float sink;\n"
    "extern \"C\" __global__ void peek(cudaTextureObject_t t, int x, int y)\n"
    "{ sink = tex2D<float>(t, x + 0.5f, y + 0.5f); }\n"
    "extern \"C\" __global__ void query(cudaTextureObject_t t, int *out)\n"
    "{\n"
    "    asm(\"txq.width.b32 %0, [%1];\" : \"=r\"(out[0]) : \"l\"(t));\n"
    "    asm(\"txq.height.b32 %0, [%1];\" : \"=r\"(out[1]) : \"l\"(t));\n"
    "    asm(\"txq.depth.b32 %0, [%1];\" : \"=r\"(out[2]) : \"l\"(t));\n"
    "    asm(\"txq.normalized_coords.b32 %0, [%1];\" : \"=r\"(out[3]) : \"l\"(t));\n"
    "    asm(\"txq.filter_mode.b32 %0, [%1];\" : \"=r\"(out[4]) : \"l\"(t));\n"
    "    asm(\"txq.addr_mode_0.b32 %0, [%1];\" : \"=r\"(out[5]) : \"l\"(t));\n"
    "    asm(\"txq.array_size.b32 %0, [%1];\" : \"=r\"(out[6]) : \"l\"(t));\n"
    "    asm(\"txq.channel_order.b32 %0, [%1];\" : \"=r\"(out[7]) : \"l\"(t));\n"
    "    asm(\"txq.channel_data_type.b32 %0, [%1];\" : \"=r\"(out[8]) : \"l\"(t));\n"
    "}\n";

struct kernels {
    CUmodule module;
    CUfunction fetch1d, fetch2d, fetch3d, fetch2d_int, fetch_index, fetch_index_float;
    CUfunction fetch_layered, fetch_cube, gather, mip, query;
};

static char *ptx; /* compiled once, loaded into each context */

static int load(struct kernels *k)
{
    memset(k, 0, sizeof *k);
    struct {
        CUfunction *f;
        const char *name;
    } all[] = {{&k->fetch1d, "fetch1d"},
               {&k->fetch2d, "fetch2d"},
               {&k->fetch3d, "fetch3d"},
               {&k->fetch2d_int, "fetch2d_int"},
               {&k->fetch_index, "fetch_index"},
               {&k->fetch_index_float, "fetch_index_float"},
               {&k->fetch_layered, "fetch_layered"},
               {&k->fetch_cube, "fetch_cube"},
               {&k->gather, "gather"},
               {&k->mip, "mip"},
               {&k->query, "query"}};
    if (!CHECK_CU(gpu_test_load_ptx(&k->module, ptx, "texture.cu")))
        return 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!CHECK_CU(cuModuleGetFunction(all[i].f, k->module, all[i].name)))
            return 0;
    return 1;
}

/* Runs `f` on the n points `p`, n results of `out_bytes` each into `out`. */
static int run_points(CUfunction f, CUtexObject t, const float *p, int n, void *out,
                      size_t out_bytes)
{
    CUdeviceptr dp = gpu_test_upload(p, (size_t)n * 4 * sizeof(float));
    CUdeviceptr dout = gpu_test_upload(NULL, (size_t)n * out_bytes);
    void *args[] = {&t, &dp, &dout, &n};
    int ok = dp != 0 && dout != 0 &&
             gpu_test_run(f, (unsigned)(n + THREADS - 1) / THREADS, THREADS, args);
    ok = dout != 0 && gpu_test_download(out, dout, (size_t)n * out_bytes) && ok;
    cuMemFree(dp);
    return ok;
}

/* ------------------------------------------------------ the host reference */

/* A texture as the reference reads it. */
struct ref_texture {
    const uint8_t *texels;
    unsigned dims;
    long extent[3];
    size_t pitch, slice, layer_bytes;
    int kind; /* 0 unsigned, 1 signed, 2 float */
    unsigned channel_bytes, channels;
    CUaddress_mode mode;
    int linear, normalized, as_integer, srgb;
    float border[4];
};

static size_t texel_bytes(const struct ref_texture *t)
{
    return (size_t)t->channel_bytes * t->channels;
}

/* A reference over tightly packed `texels` of w × h × d (0: absent) with
 * `channels` channels of `channel_bytes` of `kind`; clamp, point,
 * unnormalized until the caller says otherwise. */
static struct ref_texture ref_of(const void *texels, unsigned dims, long w, long h, long d,
                                 int kind, unsigned channel_bytes, unsigned channels)
{
    struct ref_texture r = {.texels = texels,
                            .dims = dims,
                            .extent = {w, h ? h : 1, d ? d : 1},
                            .kind = kind,
                            .channel_bytes = channel_bytes,
                            .channels = channels,
                            .mode = CU_TR_ADDRESS_MODE_CLAMP};
    r.pitch = (size_t)w * texel_bytes(&r);
    r.slice = r.pitch * (size_t)r.extent[1];
    r.layer_bytes = r.slice * (size_t)r.extent[2];
    return r;
}

static float half_to_float(uint16_t h)
{
    int exponent = h >> 10 & 0x1f, mantissa = h & 0x3ff;
    float v = exponent == 0 ? ldexpf((float)mantissa, -24)
                            : ldexpf((float)(mantissa | 0x400), exponent - 25);
    return h & 0x8000 ? -v : v;
}

static int returns_float(const struct ref_texture *t)
{
    return t->kind == 2 || (t->channel_bytes < 4 && !t->as_integer);
}

/* Channel c of the texel at p: a float when the texture returns floats. */
static void ref_channel(const struct ref_texture *t, const uint8_t *p, unsigned c, float *f,
                        uint32_t *bits)
{
    const uint8_t *at = p + (size_t)c * t->channel_bytes;
    int64_t v = 0;
    if (t->channel_bytes == 1)
        v = t->kind == 1 ? (int8_t)at[0] : at[0];
    else if (t->channel_bytes == 2)
        v = t->kind == 1 ? (int16_t)(at[0] | at[1] << 8) : (uint16_t)(at[0] | at[1] << 8);
    else {
        uint32_t u = at[0] | at[1] << 8 | at[2] << 16 | (uint32_t)at[3] << 24;
        v = t->kind == 1 ? (int32_t)u : (int64_t)u;
    }
    *bits = (uint32_t)v;
    if (t->kind == 2)
        *f = t->channel_bytes == 2 ? half_to_float((uint16_t)v) : gpu_test_float_of((uint32_t)v);
    else if (returns_float(t) && t->kind == 0)
        *f = (float)v / (t->channel_bytes == 1 ? 255.0f : 65535.0f);
    else if (returns_float(t))
        *f = fmaxf((float)v / (t->channel_bytes == 1 ? 127.0f : 32767.0f), -1.0f);
    if (returns_float(t) && t->srgb && c < 3)
        *f = *f <= 0.04045f ? *f / 12.92f : powf((*f + 0.055f) / 1.055f, 2.4f);
    if (returns_float(t))
        *bits = gpu_test_float_bits(*f);
}

/* The texel at idx (a -1 index: the border color) as four floats and
 * their 32-bit words. */
static void ref_texel(const struct ref_texture *t, const long idx[3], long layer, float f[4],
                      uint32_t w[4])
{
    int border = idx[0] < 0 || idx[1] < 0 || idx[2] < 0;
    const uint8_t *p = t->texels + (size_t)layer * t->layer_bytes + (size_t)idx[2] * t->slice +
                       (size_t)idx[1] * t->pitch + (size_t)idx[0] * texel_bytes(t);
    for (unsigned c = 0; c < 4; c++) {
        if (border) {
            f[c] = t->border[c];
            w[c] = gpu_test_float_bits(f[c]);
        } else if (c < t->channels) {
            ref_channel(t, p, c, &f[c], &w[c]);
        } else {
            f[c] = c == 3 ? 1.0f : 0.0f;
            w[c] = returns_float(t) ? gpu_test_float_bits(f[c]) : (c == 3);
        }
    }
}

/* The programming guide's address modes on a texel index. */
static long ref_address(long i, long n, CUaddress_mode mode, int normalized)
{
    if (!normalized && (mode == CU_TR_ADDRESS_MODE_WRAP || mode == CU_TR_ADDRESS_MODE_MIRROR))
        mode = CU_TR_ADDRESS_MODE_CLAMP;
    if (mode == CU_TR_ADDRESS_MODE_WRAP)
        return (i % n + n) % n;
    if (mode == CU_TR_ADDRESS_MODE_MIRROR) {
        long m = (i % (2 * n) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    if (mode == CU_TR_ADDRESS_MODE_BORDER)
        return i < 0 || i >= n ? -1 : i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* tex(x): point sampling takes texel floor(x); linear filtering weighs the
 * texels around x - 0.5 by α = frac(x - 0.5) in 1/256ths. */
static void ref_sample(const struct ref_texture *t, const float *x, long layer, uint32_t out[4])
{
    double u[3] = {0, 0, 0}, alpha[3] = {0, 0, 0}, sum[4] = {0, 0, 0, 0};
    long base[3] = {0, 0, 0};
    int filter = t->linear && returns_float(t);
    for (unsigned d = 0; d < t->dims; d++) {
        u[d] = t->normalized ? (double)(x[d] * (float)t->extent[d]) : x[d];
        base[d] = (long)floor(filter ? u[d] - 0.5 : u[d]);
        alpha[d] = nearbyint((u[d] - 0.5 - (double)base[d]) * WEIGHT_STEPS) / WEIGHT_STEPS;
    }
    for (unsigned corner = 0; corner < (filter ? 1u << t->dims : 1u); corner++) {
        long idx[3] = {0, 0, 0};
        double weight = 1;
        for (unsigned d = 0; d < t->dims; d++) {
            unsigned up = corner >> d & 1;
            idx[d] = ref_address(base[d] + up, t->extent[d], t->mode, t->normalized);
            weight *= up ? alpha[d] : 1 - alpha[d];
        }
        float f[4];
        ref_texel(t, idx, layer, f, out);
        for (unsigned c = 0; filter && c < 4; c++)
            sum[c] += weight * f[c];
    }
    for (unsigned c = 0; filter && c < 4; c++)
        out[c] = gpu_test_float_bits((float)sum[c]);
}

/* ------------------------------------------------------------ the points */

/* Points spread over [lo, hi) in each of `dims` dimensions, n in all: a
 * grid, so that every address mode meets coordinates far outside. */
static int grid_points(float *p, unsigned dims, double lo, double hi, int per_axis)
{
    int n = 0;
    int ny = dims >= 2 ? per_axis : 1, nz = dims >= 3 ? per_axis : 1;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < per_axis; i++, n++) {
                p[4 * n] = (float)(lo + (hi - lo) * (i + 0.137) / per_axis);
                p[4 * n + 1] = (float)(lo + (hi - lo) * (j + 0.291) / ny);
                p[4 * n + 2] = (float)(lo + (hi - lo) * (k + 0.413) / nz);
                p[4 * n + 3] = 0;
            }
    return n;
}

static void random_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)gpu_test_rng();
}

/* Random floats in [-2, 2), n of them. */
static void random_floats(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)gpu_test_uniform(-2, 2);
}

/* An array of floats with `channels` channels, w × h × d (0: absent), its
 * texels random in [-2, 2) and also left in `texels`; NULL on failure. */
static CUarray random_float_array(float *texels, size_t w, size_t h, size_t d, unsigned channels,
                                  unsigned flags)
{
    size_t rows = h ? h : 1, slices = d ? d : 1;
    random_floats(texels, w * rows * slices * channels);
    CUarray a = gpu_test_array(w, h, d, CU_AD_FORMAT_FLOAT, channels, flags);
    if (a != NULL &&
        !gpu_test_array_copy(a, texels, w * channels * sizeof(float), rows, slices, 1)) {
        cuArrayDestroy(a);
        return NULL;
    }
    return a;
}

/* A texture with normalized coordinates over a random_float_array (whose
 * handle goes to *array); 0 on failure. */
static CUtexObject random_texture(float *texels, size_t w, size_t h, size_t d, unsigned channels,
                                  unsigned array_flags, CUaddress_mode mode, CUfilter_mode filter,
                                  CUarray *array)
{
    *array = random_float_array(texels, w, h, d, channels, array_flags);
    return *array
               ? gpu_test_array_texture(*array, mode, filter, CU_TRSF_NORMALIZED_COORDINATES, NULL)
               : 0;
}

/* Fetches the points through `t` with kernel `f` and compares every
 * result with the reference `r`, sampled at layer `layer`. */
static void check_points(CUfunction f, CUtexObject t, const struct ref_texture *r, const float *p,
                         int n, long layer, const char *what)
{
    static uint32_t got[MAX_POINTS * 4], want[MAX_POINTS * 4];
    if (t == 0 || !run_points(f, t, p, n, got, 16))
        return;
    for (int i = 0; i < n; i++)
        ref_sample(r, &p[4 * i], layer, &want[4 * i]);
    if (!gpu_test_same(got, want, (size_t)n, 16, what, __FILE__, __LINE__))
        fprintf(stderr, "  (%s)\n", what);
}

static CUfilter_mode filter_of(int linear)
{
    return linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
}

/* ------------------------------------------------- address modes, filters */

/* A float4 2D array sampled in every address mode, point and linear, with
 * and without normalized coordinates. */
static void test_modes_and_filters_2d(const struct kernels *k)
{
    enum { W = 5, H = 4 };
    static float texels[W * H * 4], p[MAX_POINTS * 4];
    static const float border[4] = {0.25f, -1.0f, 2.0f, 0.5f};
    static const CUaddress_mode modes[] = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                           CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};
    CUarray a = random_float_array(texels, W, H, 0, 4, 0);
    for (size_t m = 0; a != NULL && m < 4; m++)
        for (int linear = 0; linear < 2; linear++)
            for (int normalized = 0; normalized < 2; normalized++) {
                struct ref_texture r = ref_of(texels, 2, W, H, 0, 2, 4, 4);
                r.mode = modes[m];
                r.linear = linear;
                r.normalized = normalized;
                memcpy(r.border, border, sizeof border);
                int n = normalized ? grid_points(p, 2, -1.3, 2.4, 37)
                                   : grid_points(p, 2, -3.2, W + 3.7, 37);
                CUtexObject t =
                    gpu_test_array_texture(a, modes[m], filter_of(linear),
                                           normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0, border);
                char what[80];
                snprintf(what, sizeof what, "2D mode %d, %s, %s", (int)modes[m],
                         linear ? "linear" : "point", normalized ? "normalized" : "texels");
                check_points(k->fetch2d, t, &r, p, n, 0, what);
                CHECK_CU(cuTexObjectDestroy(t));
            }
    CHECK_CU(cuArrayDestroy(a));
}

/* 1D (one channel, mirror) and 3D (two channels, wrap) arrays, normalized,
 * linear and point. */
static void test_1d_and_3d(const struct kernels *k)
{
    enum { W1 = 9, W3 = 4, H3 = 3, D3 = 2 };
    static float one[W1], three[W3 * H3 * D3 * 2], p[MAX_POINTS * 4];
    CUarray a1 = random_float_array(one, W1, 0, 0, 1, 0);
    CUarray a3 = random_float_array(three, W3, H3, D3, 2, 0);
    for (int linear = 0; a1 != NULL && a3 != NULL && linear < 2; linear++) {
        struct ref_texture r1 = ref_of(one, 1, W1, 0, 0, 2, 4, 1);
        struct ref_texture r3 = ref_of(three, 3, W3, H3, D3, 2, 4, 2);
        r1.mode = CU_TR_ADDRESS_MODE_MIRROR;
        r3.mode = CU_TR_ADDRESS_MODE_WRAP;
        r1.linear = r3.linear = linear;
        r1.normalized = r3.normalized = 1;
        CUtexObject t1 = gpu_test_array_texture(a1, r1.mode, filter_of(linear),
                                                CU_TRSF_NORMALIZED_COORDINATES, NULL);
        CUtexObject t3 = gpu_test_array_texture(a3, r3.mode, filter_of(linear),
                                                CU_TRSF_NORMALIZED_COORDINATES, NULL);
        int n = grid_points(p, 1, -1.7, 2.9, 301);
        check_points(k->fetch1d, t1, &r1, p, n, 0, linear ? "1D linear" : "1D point");
        n = grid_points(p, 3, -1.2, 2.3, 13);
        check_points(k->fetch3d, t3, &r3, p, n, 0, linear ? "3D linear" : "3D point");
        CHECK_CU(cuTexObjectDestroy(t1));
        CHECK_CU(cuTexObjectDestroy(t3));
    }
    CHECK_CU(cuArrayDestroy(a1));
    CHECK_CU(cuArrayDestroy(a3));
}

/* ------------------------------------------------------------- formats */

struct format_case {
    CUarray_format format;
    unsigned channels;
    int kind, channel_bytes;
    unsigned flags; /* CU_TRSF_READ_AS_INTEGER, CU_TRSF_SRGB */
    int linear;
};

/* Random texels; halves and floats kept finite. */
static void format_texels(uint8_t *texels, size_t n, const struct format_case *c)
{
    random_bytes(texels, n);
    for (size_t i = 0; c->format == CU_AD_FORMAT_HALF && i + 1 < n; i += 2)
        texels[i + 1] &= 0xbb; /* exponent below 0x1f: no infinity or NaN */
    for (size_t i = 0; c->format == CU_AD_FORMAT_FLOAT && i + 3 < n; i += 4)
        texels[i + 3] &= 0xbf;
}

/* Each format and read mode: texels read at their centers and between
 * them, as floats or as integers. */
static void test_formats(const struct kernels *k)
{
    enum { W = 6, H = 3 };
    static const struct format_case cases[] = {
        {CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 1, 0, 1},
        {CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 1, CU_TRSF_READ_AS_INTEGER, 0},
        {CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 1, CU_TRSF_SRGB, 0},
        {CU_AD_FORMAT_SIGNED_INT8, 2, 1, 1, 0, 1},
        {CU_AD_FORMAT_SIGNED_INT8, 1, 1, 1, CU_TRSF_READ_AS_INTEGER, 0},
        {CU_AD_FORMAT_UNSIGNED_INT16, 1, 0, 2, 0, 1},
        {CU_AD_FORMAT_UNSIGNED_INT16, 2, 0, 2, CU_TRSF_READ_AS_INTEGER, 0},
        {CU_AD_FORMAT_SIGNED_INT16, 4, 1, 2, 0, 0},
        {CU_AD_FORMAT_SIGNED_INT16, 4, 1, 2, CU_TRSF_READ_AS_INTEGER, 0},
        {CU_AD_FORMAT_UNSIGNED_INT32, 2, 0, 4, 0, 0},
        {CU_AD_FORMAT_SIGNED_INT32, 1, 1, 4, 0, 0},
        {CU_AD_FORMAT_SIGNED_INT32, 4, 1, 4, 0, 1}, /* a linear filter on integers: point */
        {CU_AD_FORMAT_HALF, 4, 2, 2, 0, 1},
        {CU_AD_FORMAT_HALF, 1, 2, 2, 0, 0},
        {CU_AD_FORMAT_FLOAT, 2, 2, 4, 0, 1},
        {CU_AD_FORMAT_UNORM_INT8X4, 4, 0, 1, CU_TRSF_READ_AS_INTEGER, 1}, /* floats anyway */
        {CU_AD_FORMAT_SNORM_INT16X2, 2, 1, 2, 0, 0},
    };
    static uint8_t texels[W * H * 16];
    static float p[MAX_POINTS * 4];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct format_case *c = &cases[i];
        size_t bytes = (size_t)c->channel_bytes * c->channels;
        format_texels(texels, W * H * bytes, c);
        CUarray a = gpu_test_array(W, H, 0, c->format, c->channels, 0);
        if (a == NULL || !gpu_test_array_copy(a, texels, W * bytes, H, 1, 1))
            continue;
        CUtexObject t = gpu_test_array_texture(a, CU_TR_ADDRESS_MODE_CLAMP, filter_of(c->linear),
                                               c->flags, NULL);
        struct ref_texture r =
            ref_of(texels, 2, W, H, 0, c->kind, (unsigned)c->channel_bytes, c->channels);
        r.linear = c->linear;
        r.as_integer =
            (c->flags & CU_TRSF_READ_AS_INTEGER) && c->format < CU_AD_FORMAT_UNORM_INT8X1;
        r.srgb = (c->flags & CU_TRSF_SRGB) != 0;
        int n = grid_points(p, 2, -0.6, W + 0.9, 23);
        char what[64];
        snprintf(what, sizeof what, "format 0x%x x%u flags %u", (unsigned)c->format, c->channels,
                 c->flags);
        check_points(returns_float(&r) ? k->fetch2d : k->fetch2d_int, t, &r, p, n, 0, what);
        CHECK_CU(cuTexObjectDestroy(t));
        CHECK_CU(cuArrayDestroy(a));
    }
}

/* ------------------------------------------------------ linear, pitch2D */

/* A linear resource of `bytes` at d. */
static void set_linear(CUDA_RESOURCE_DESC *r, CUdeviceptr d, CUarray_format format,
                       unsigned channels, size_t bytes)
{
    memset(r, 0, sizeof *r);
    r->resType = CU_RESOURCE_TYPE_LINEAR;
    r->res.linear.devPtr = d;
    r->res.linear.format = format;
    r->res.linear.numChannels = channels;
    r->res.linear.sizeInBytes = bytes;
}

/* A pitch2D resource of one float channel, w × h texels, rows `pitch` apart. */
static void set_pitch2d(CUDA_RESOURCE_DESC *r, CUdeviceptr d, size_t w, size_t h, size_t pitch)
{
    memset(r, 0, sizeof *r);
    r->resType = CU_RESOURCE_TYPE_PITCH2D;
    r->res.pitch2D.devPtr = d;
    r->res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    r->res.pitch2D.numChannels = 1;
    r->res.pitch2D.width = w;
    r->res.pitch2D.height = h;
    r->res.pitch2D.pitchInBytes = pitch;
}

static CUtexObject linear_texture(CUdeviceptr d, CUarray_format format, unsigned channels,
                                  size_t bytes)
{
    CUDA_RESOURCE_DESC r;
    CUDA_TEXTURE_DESC t;
    set_linear(&r, d, format, channels, bytes);
    memset(&t, 0, sizeof t);
    CUtexObject o = 0;
    return CHECK_CU(cuTexObjectCreate(&o, &r, &t, NULL)) ? o : 0;
}

/* tex1Dfetch on linear memory: no filter, zeros outside. */
static void test_linear(const struct kernels *k)
{
    enum { N = 40 };
    static int32_t ints[N * 4];
    static uint8_t bytes[N];
    static float p[MAX_POINTS * 4];
    random_bytes((uint8_t *)ints, sizeof ints);
    random_bytes(bytes, N);
    CUdeviceptr di = gpu_test_upload(ints, sizeof ints), db = gpu_test_upload(bytes, N);
    CUtexObject ti = linear_texture(di, CU_AD_FORMAT_SIGNED_INT32, 4, sizeof ints);
    CUtexObject tb = linear_texture(db, CU_AD_FORMAT_UNSIGNED_INT8, 1, N);
    struct ref_texture ri = ref_of(ints, 1, N, 0, 0, 1, 4, 4);
    struct ref_texture rb = ref_of(bytes, 1, N, 0, 0, 0, 1, 1);
    ri.mode = rb.mode = CU_TR_ADDRESS_MODE_BORDER; /* a border of zeros */
    int n = grid_points(p, 1, -3, N + 3, N + 6);
    for (int i = 0; i < n; i++)
        p[4 * i] = floorf(p[4 * i]);
    check_points(k->fetch_index, ti, &ri, p, n, 0, "tex1Dfetch int4");
    check_points(k->fetch_index_float, tb, &rb, p, n, 0, "tex1Dfetch u8 as float");
    CHECK_CU(cuTexObjectDestroy(ti));
    CHECK_CU(cuTexObjectDestroy(tb));
    CHECK_CU(cuMemFree(di));
    CHECK_CU(cuMemFree(db));
}

/* A pitch2D resource in memory from cuMemAllocPitch filters like an array. */
static void test_pitch2d(const struct kernels *k)
{
    enum { W = 7, H = 5 };
    static float plane[W * H], p[MAX_POINTS * 4];
    random_floats(plane, W * H);
    CUdeviceptr d = 0;
    size_t pitch = 0;
    if (!CHECK_CU(cuMemAllocPitch(&d, &pitch, W * sizeof(float), H, 4)))
        return;
    CUDA_MEMCPY2D up = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                        .srcHost = plane,
                        .srcPitch = W * sizeof(float),
                        .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                        .dstDevice = d,
                        .dstPitch = pitch,
                        .WidthInBytes = W * sizeof(float),
                        .Height = H};
    CUDA_RESOURCE_DESC r;
    CUDA_TEXTURE_DESC t;
    set_pitch2d(&r, d, W, H, pitch);
    memset(&t, 0, sizeof t);
    t.filterMode = CU_TR_FILTER_MODE_LINEAR;
    CUtexObject o = 0;
    struct ref_texture ref = ref_of(plane, 2, W, H, 0, 2, 4, 1);
    ref.linear = 1;
    int n = grid_points(p, 2, -2, W + 2, 29);
    if (CHECK_CU(cuMemcpy2D(&up)) && CHECK_CU(cuTexObjectCreate(&o, &r, &t, NULL)))
        check_points(k->fetch2d, o, &ref, p, n, 0, "pitch2D linear");
    CHECK_CU(cuTexObjectDestroy(o));
    CHECK_CU(cuMemFree(d));
}

/* ------------------------------------------------- layers, cubes, gather */

static void test_layered(const struct kernels *k)
{
    enum { W = 4, H = 3, L = 3 };
    static float texels[W * H * L], p[MAX_POINTS * 4];
    CUarray a2 = random_float_array(texels, W, H, L, 1, CUDA_ARRAY3D_LAYERED);
    CUarray a1 = gpu_test_array(W, 0, L, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
    if (a2 == NULL || a1 == NULL || !gpu_test_array_copy(a1, texels, W * 4, 1, L, 1))
        return;
    CUtexObject t2 =
        gpu_test_array_texture(a2, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR, 0, NULL);
    CUtexObject t1 =
        gpu_test_array_texture(a1, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR, 0, NULL);
    struct ref_texture r2 = ref_of(texels, 2, W, H, 0, 2, 4, 1);
    struct ref_texture r1 = ref_of(texels, 1, W, 0, 0, 2, 4, 1);
    r1.linear = r2.linear = 1;
    for (long layer = 0; layer < L; layer++) {
        int n = grid_points(p, 2, -1, W + 1, 11);
        for (int i = 0; i < n; i++)
            p[4 * i + 2] = (float)layer;
        check_points(k->fetch_layered, t2, &r2, p, n, layer, "2D layered");
        for (int i = 0; i < n; i++)
            p[4 * i + 3] = 1; /* tex1DLayered */
        check_points(k->fetch_layered, t1, &r1, p, n, layer, "1D layered");
    }
    CHECK_CU(cuTexObjectDestroy(t1));
    CHECK_CU(cuTexObjectDestroy(t2));
    CHECK_CU(cuArrayDestroy(a1));
    CHECK_CU(cuArrayDestroy(a2));
}

/* The face a direction picks and where on it, as the programming guide's
 * cubemap table says. */
static long cube_reference(const float *dir, float st[2])
{
    float x = dir[0], y = dir[1], z = dir[2], ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
    long face;
    if (ax >= ay && ax >= az)
        face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
    else if (ay >= az)
        face = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
    else
        face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
    st[0] = (float)(((double)s / m + 1) / 2);
    st[1] = (float)(((double)t / m + 1) / 2);
    return face;
}

/* A layered cubemap: texCubemap reads cubemap 0, texCubemapLayered either. */
static void test_cubemaps(const struct kernels *k)
{
    enum { W = CUBE_WIDTH, FACES = 12 };
    static float texels[W * W * FACES], p[MAX_POINTS * 4];
    static uint32_t got[MAX_POINTS * 4], want[MAX_POINTS * 4];
    CUarray a;
    CUtexObject t =
        random_texture(texels, W, W, FACES, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED,
                       CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, &a);
    int n = grid_points(p, 3, -1, 1, 9);
    for (int i = 0; i < n; i++)
        p[4 * i + 3] = (float)(i % 3); /* 0: texCubemap; 1, 2: cubemap 0 or 1 of the array */
    if (t == 0 || !run_points(k->fetch_cube, t, p, n, got, 16))
        return;
    struct ref_texture r = ref_of(texels, 2, W, W, 0, 2, 4, 1);
    r.normalized = 1;
    for (int i = 0; i < n; i++) {
        float st[2];
        long face = cube_reference(&p[4 * i], st);
        long cube = p[4 * i + 3] > 0 ? (long)p[4 * i + 3] - 1 : 0;
        ref_sample(&r, st, cube * 6 + face, &want[4 * i]);
    }
    CHECK_SAME(got, want, (size_t)n * 4);
    CHECK_CU(cuTexObjectDestroy(t));
    CHECK_CU(cuArrayDestroy(a));
}

/* tld4: each component of the four texels around x - 0.5, counter-clockwise
 * from the lower left. */
static void test_gather(const struct kernels *k)
{
    enum { W = 5, H = 4 };
    static const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    static float texels[W * H * 4], p[MAX_POINTS * 4];
    static uint32_t got[MAX_POINTS * 16], want[MAX_POINTS * 16];
    CUarray a;
    CUtexObject t = random_texture(texels, W, H, 0, 4, CUDA_ARRAY3D_TEXTURE_GATHER,
                                   CU_TR_ADDRESS_MODE_WRAP, CU_TR_FILTER_MODE_POINT, &a);
    int n = grid_points(p, 2, -0.5, 1.5, 17);
    if (t == 0 || !run_points(k->gather, t, p, n, got, 64))
        return;
    struct ref_texture r = ref_of(texels, 2, W, H, 0, 2, 4, 4);
    for (int i = 0; i < n; i++) {
        long i0 = (long)floor(p[4 * i] * (float)W - 0.5);
        long j0 = (long)floor(p[4 * i + 1] * (float)H - 0.5);
        for (int texel = 0; texel < 4; texel++) {
            long idx[3] = {ref_address(i0 + order[texel][0], W, CU_TR_ADDRESS_MODE_WRAP, 1),
                           ref_address(j0 + order[texel][1], H, CU_TR_ADDRESS_MODE_WRAP, 1), 0};
            float f[4];
            uint32_t w[4];
            ref_texel(&r, idx, 0, f, w);
            for (int c = 0; c < 4; c++)
                want[16 * i + 4 * c + texel] = w[c];
        }
    }
    CHECK_SAME(got, want, (size_t)n * 16);
    CHECK_CU(cuTexObjectDestroy(t));
    CHECK_CU(cuArrayDestroy(a));
}

/* tex2DLod and tex2DGrad on a texture of one level read level 0; the
 * sparse form of tex2D says its texels are resident. */
static void test_lod_and_grad(const struct kernels *k)
{
    enum { W = 6, H = 6 };
    static float texels[W * H * 4], p[MAX_POINTS * 4];
    static uint32_t got[MAX_POINTS * 12], want[MAX_POINTS * 12];
    CUarray a;
    CUtexObject t = random_texture(texels, W, H, 0, 4, 0, CU_TR_ADDRESS_MODE_MIRROR,
                                   CU_TR_FILTER_MODE_LINEAR, &a);
    int n = grid_points(p, 2, -0.7, 1.6, 15);
    if (t == 0 || !run_points(k->mip, t, p, n, got, 48))
        return;
    struct ref_texture r = ref_of(texels, 2, W, H, 0, 2, 4, 4);
    r.mode = CU_TR_ADDRESS_MODE_MIRROR;
    r.linear = r.normalized = 1;
    for (int i = 0; i < n; i++) {
        ref_sample(&r, &p[4 * i], 0, &want[12 * i]);
        memcpy(&want[12 * i + 4], &want[12 * i], 16);
        memcpy(&want[12 * i + 8], &want[12 * i], 16);
    }
    CHECK_SAME(got, want, (size_t)n * 12);
    CHECK_CU(cuTexObjectDestroy(t));
    CHECK_CU(cuArrayDestroy(a));
}

static void test_query(const struct kernels *k)
{
    /* width, height, depth, normalized, linear, mirror, layers, CL_RGBA, CL_FLOAT */
    static const int want[9] = {7, 3, 1, 1, 1, 2, 5, 0x10B5, 0x10DE};
    int got[9] = {0};
    CUarray a = gpu_test_array(7, 3, 5, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_LAYERED);
    CUtexObject t =
        a ? gpu_test_array_texture(a, CU_TR_ADDRESS_MODE_MIRROR, CU_TR_FILTER_MODE_LINEAR,
                                   CU_TRSF_NORMALIZED_COORDINATES, NULL)
          : 0;
    CUdeviceptr out = gpu_test_upload(NULL, sizeof got);
    void *args[] = {&t, &out};
    if (t != 0 && out != 0 && gpu_test_run(k->query, 1, 1, args) &&
        gpu_test_download(got, out, sizeof got))
        CHECK_SAME(got, want, 9);
    CHECK_CU(cuTexObjectDestroy(t));
    CHECK_CU(cuArrayDestroy(a));
}

/* ------------------------------------------------------------------ faults */

static void test_faults(void)
{
    static const struct {
        enum gpu_test_handle handle;
        const char *words;
    } cases[] = {
        {GPU_TEST_MADE_UP, "texture object 999, which is no live texture object"},
        {GPU_TEST_DESTROYED, "which is no live texture object"},
        {GPU_TEST_ARRAY_DESTROYED, "was freed while the object still named it"},
        {GPU_TEST_OTHER_KIND, "which takes a texture object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        gpu_test_handle_fault(ptx, "peek", cases[i].handle, 0, 0, 0, CUDA_ERROR_ILLEGAL_ADDRESS,
                              cases[i].words);
}

/* ---------------------------------------------------------- error paths */

static void test_create_errors(void)
{
    CUarray a = gpu_test_array(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUdeviceptr d = gpu_test_upload(NULL, 4096);
    CUDA_RESOURCE_DESC r, got;
    CUDA_TEXTURE_DESC t;
    CUDA_RESOURCE_VIEW_DESC v;
    CUtexObject o = 0;
    memset(&r, 0, sizeof r);
    memset(&t, 0, sizeof t);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    CHECK_CU_IS(cuTexObjectCreate(NULL, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectCreate(&o, NULL, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    r.flags = 1;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    r.flags = 0;
    t.addressMode[1] = (CUaddress_mode)7;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    t.addressMode[1] = CU_TR_ADDRESS_MODE_WRAP;
    t.filterMode = (CUfilter_mode)2;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    t.filterMode = CU_TR_FILTER_MODE_POINT;
    t.flags = 0x100;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    t.flags = CU_TRSF_SEAMLESS_CUBEMAP; /* not a cubemap */
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    t.flags = 0;
    r.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    r.resType = (CUresourcetype)9;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    /* views: one mipmap level, the array's extents, plain formats of the same size */
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    memset(&v, 0, sizeof v);
    v.width = 8;
    v.height = 8;
    v.format = CU_RES_VIEW_FORMAT_UINT_1X32;
    CUDA_RESOURCE_VIEW_DESC got_v;
    if (CHECK_CU(cuTexObjectCreate(&o, &r, &t, &v)) &&
        CHECK_CU(cuTexObjectGetResourceViewDesc(&got_v, o)))
        CHECK(got_v.format == v.format && got_v.width == 8 && got_v.height == 8);
    CHECK_CU(cuTexObjectDestroy(o));
    v.format = CU_RES_VIEW_FORMAT_UINT_2X32;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, &v), CUDA_ERROR_INVALID_VALUE);
    v.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC1;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, &v), CUDA_ERROR_NOT_SUPPORTED);
    v.format = CU_RES_VIEW_FORMAT_NONE;
    v.lastMipmapLevel = 1;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, &v), CUDA_ERROR_INVALID_VALUE);
    v.lastMipmapLevel = 0;
    v.width = 4;
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, &v), CUDA_ERROR_INVALID_VALUE);
    /* linear memory: aligned, inside one allocation, a format with channels */
    set_linear(&r, d + 4, CU_AD_FORMAT_FLOAT, 1, 1024);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    set_linear(&r, d + 512, CU_AD_FORMAT_FLOAT, 1, 4096);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    set_linear(&r, d, CU_AD_FORMAT_FLOAT, 3, 1024);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    set_linear(&r, d, CU_AD_FORMAT_FLOAT, 1, 2);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    set_linear(&r, d + 512, CU_AD_FORMAT_FLOAT, 2, 1024);
    CHECK_CU(cuTexObjectCreate(&o, &r, &t, NULL));
    /* what was made is what the Get calls return */
    CHECK_CU(cuTexObjectGetResourceDesc(&got, o));
    CHECK(memcmp(&got, &r, sizeof r) == 0);
    CUDA_TEXTURE_DESC got_t;
    CHECK_CU(cuTexObjectGetTextureDesc(&got_t, o));
    CHECK(memcmp(&got_t, &t, sizeof t) == 0);
    CHECK_CU_IS(cuTexObjectGetResourceDesc(NULL, o), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectGetTextureDesc(NULL, o), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectGetResourceViewDesc(NULL, o), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuTexObjectDestroy(o));
    CHECK_CU_IS(cuTexObjectDestroy(o), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectGetResourceDesc(&got, o), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectGetTextureDesc(&got_t, o), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuTexObjectGetResourceViewDesc(&v, o), CUDA_ERROR_INVALID_VALUE);
    /* pitch2D: the pitch aligned to 32, wide enough; inside the allocation */
    set_pitch2d(&r, d, 8, 8, 48);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    set_pitch2d(&r, d, 16, 8, 32);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    set_pitch2d(&r, d, 8, 65, 64);
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    /* a destroyed array */
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU_IS(cuTexObjectCreate(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(d));
}

/* A fetch is a global request for the timing model, with a global load's
 * latency. */
static void test_timing(const struct kernels *k)
{
    int (*counters_of)(struct kgemu_counters *);
    *(void **)&counters_of = dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    if (counters_of == NULL)
        return;
    static float texels[64 * 4], p[64 * 4], out[64 * 4];
    random_floats(texels, 64 * 4);
    CUarray a = gpu_test_array(64, 0, 0, CU_AD_FORMAT_FLOAT, 4, 0);
    if (a == NULL || !gpu_test_array_copy(a, texels, 64 * 16, 1, 1, 1))
        return;
    CUtexObject t =
        gpu_test_array_texture(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0, NULL);
    int n = grid_points(p, 1, 0, 64, 64);
    struct kgemu_counters c;
    memset(&c, 0, sizeof c);
    if (t != 0 && run_points(k->fetch1d, t, p, n, out, 16) && CHECK_EQ(counters_of(&c), 1)) {
        CHECK(c.global_requests >= 4); /* the points' loads, the fetches, the stores */
        CHECK(c.latency_ms > 0);
    }
    CHECK_CU(cuTexObjectDestroy(t));
    CHECK_CU(cuArrayDestroy(a));
}

int main(void)
{
    CUcontext ctx;
    struct kernels k;
    ptx = gpu_test_compile(source, "texture.cu");
    if (ptx == NULL || !gpu_test_start(&ctx) || !load(&k))
        return gpu_test_summary();
    test_modes_and_filters_2d(&k);
    test_1d_and_3d(&k);
    test_formats(&k);
    test_linear(&k);
    test_pitch2d(&k);
    test_layered(&k);
    test_cubemaps(&k);
    test_gather(&k);
    test_lod_and_grad(&k);
    test_query(&k);
    test_timing(&k);
    test_create_errors();
    CHECK_CU(cuCtxDestroy(ctx));
    test_faults();
    free(ptx);
    return gpu_test_summary();
}
