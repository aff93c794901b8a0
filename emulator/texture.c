/*
 * Sampling: what tex, tld4 and txq compute from a texture object.
 *
 * Coordinates become texel indices as the CUDA C++ Programming Guide's
 * "Texture Fetching" appendix says. With normalized coordinates x is first
 * scaled by the extent N. Point sampling reads texel floor(x); linear
 * filtering reads the 2, 4 or 8 texels around x - 0.5 and weighs them with
 * α = frac(x - 0.5) held in 9-bit fixed point (8 fractional bits, so the
 * weights are multiples of 1/256; α is rounded to the nearest), the
 * products of the weights being exact; the weighted sum is taken in double
 * and rounded to float once. Each index then goes through the dimension's
 * address mode: wrap and mirror (normalized coordinates only; otherwise
 * they act as clamp, as CUDA documents), clamp, or border, which makes the
 * texel the border color. Integer results are never filtered: a linear
 * filter on a texture that returns integers samples the nearest texel.
 *
 * Linear resources (tex1Dfetch) have no address modes and no filter: an
 * index outside the buffer reads zeros. Cubemap directions pick a face by
 * their largest component and sample it at normalized coordinates; layer
 * indices are clamped to the layers there are.
 *
 * Every index is in range before an address is made (texture.h's promise).
 */
#include <math.h>
#include <string.h>

#include "texture.h"

#define FILTER_STEPS    256.0f /* the weights' fixed point: 8 fractional bits */
#define INDEX_MAGNITUDE 1e12   /* coordinates beyond this are clamped before floor() */
#define BORDER          (-1)   /* an index that reads the border color */

/* ------------------------------------------------------------- indices */

/* floor(u) as an integer; NaN gives 0 and huge values are clamped first,
 * so the conversion is always defined. */
static int64_t floor_index(double u)
{
    if (u != u)
        return 0;
    u = u < -INDEX_MAGNITUDE ? -INDEX_MAGNITUDE : u > INDEX_MAGNITUDE ? INDEX_MAGNITUDE : u;
    return (int64_t)floor(u);
}

/* Index i along an extent of n texels after address mode `mode`: in
 * [0, n), or BORDER. */
static int64_t address_index(int64_t i, uint32_t n, unsigned mode, bool normalized)
{
    if (!normalized && (mode == CU_TR_ADDRESS_MODE_WRAP || mode == CU_TR_ADDRESS_MODE_MIRROR))
        mode = CU_TR_ADDRESS_MODE_CLAMP;
    int64_t size = n;
    switch (mode) {
    case CU_TR_ADDRESS_MODE_WRAP: {
        int64_t m = i % size;
        return m < 0 ? m + size : m;
    }
    case CU_TR_ADDRESS_MODE_MIRROR: {
        int64_t m = i % (2 * size);
        m = m < 0 ? m + 2 * size : m;
        return m < size ? m : 2 * size - 1 - m;
    }
    case CU_TR_ADDRESS_MODE_BORDER:
        return i < 0 || i >= size ? BORDER : i;
    default:
        return i < 0 ? 0 : i >= size ? size - 1 : i;
    }
}

static uint32_t extent(const struct emu_image *image, unsigned dim)
{
    return dim == 0 ? image->width : dim == 1 ? image->height : image->depth;
}

/* --------------------------------------------------------------- texels */

/* Where the fetch samples: per dimension a coordinate in texels (scaled
 * when normalized), and the layer. */
struct sample_point {
    double u[3];
    uint8_t dims;
    uint32_t layer;
    bool normalized;
};

static bool returns_float(const struct emu_texture_object *t)
{
    const struct emu_texel_format *f = &t->image.format;
    return f->kind == EMU_CHANNEL_FLOAT ||
           (f->channel_bytes < 4 && (!t->sampler.read_as_integer || f->always_normalized));
}

/* The border color, as the texture returns it: floats, or integers
 * converted from the border's floats. */
static void border_texel(const struct emu_texture_object *t, struct emu_texel *out)
{
    out->as_float = returns_float(t);
    bool sgn = t->image.format.kind == EMU_CHANNEL_SIGNED;
    for (unsigned c = 0; c < 4; c++) {
        float v = t->sampler.border[c];
        out->value[c] = v;
        if (out->as_float)
            memcpy(&out->word[c], &v, 4);
        else
            out->word[c] = sgn ? (uint32_t)(int32_t)v : (uint32_t)(v > 0 ? v : 0);
    }
}

/* The texel at indices idx (BORDER in any dimension: the border color);
 * its address in *address (0 for the border). */
static void read_texel(const struct emu_texture_object *t, const int64_t idx[3], uint32_t layer,
                       struct emu_texel *out, uint64_t *address)
{
    if (idx[0] == BORDER || idx[1] == BORDER || idx[2] == BORDER) {
        border_texel(t, out);
        *address = 0;
        return;
    }
    *address =
        emu_image_texel(&t->image, (uint32_t)idx[0], (uint32_t)idx[1], (uint32_t)idx[2], layer);
    emu_texel_decode(&t->image.format, (const void *)(uintptr_t)*address,
                     t->sampler.read_as_integer, t->sampler.srgb, out);
}

/* The indices of texel `i` (per dimension, before address modes) mapped
 * through the address modes. */
static void addressed(const struct emu_texture_object *t, const struct sample_point *p,
                      const int64_t i[3], int64_t idx[3])
{
    for (unsigned d = 0; d < 3; d++)
        idx[d] = d < p->dims ? address_index(i[d], extent(&t->image, d), t->sampler.address[d],
                                             p->normalized)
                             : 0;
}

/* ------------------------------------------------------------- filtering */

static void point_sample(const struct emu_texture_object *t, const struct sample_point *p,
                         struct emu_fetch_result *out)
{
    int64_t i[3] = {0, 0, 0}, idx[3];
    for (unsigned d = 0; d < p->dims; d++)
        i[d] = floor_index(p->u[d]);
    addressed(t, p, i, idx);
    struct emu_texel texel;
    read_texel(t, idx, p->layer, &texel, &out->first_texel);
    memcpy(out->word, texel.word, sizeof out->word);
}

/* frac(u - 0.5) as the hardware holds it: the nearest multiple of 1/256. */
static double filter_weight(double below, double u)
{
    return nearbyint((u - 0.5 - below) * FILTER_STEPS) / FILTER_STEPS;
}

static void linear_sample(const struct emu_texture_object *t, const struct sample_point *p,
                          struct emu_fetch_result *out)
{
    int64_t i0[3] = {0, 0, 0};
    double alpha[3] = {0, 0, 0}, sum[4] = {0, 0, 0, 0};
    for (unsigned d = 0; d < p->dims; d++) {
        i0[d] = floor_index(p->u[d] - 0.5);
        alpha[d] = filter_weight((double)i0[d], p->u[d]);
    }
    out->first_texel = 0;
    for (unsigned corner = 0; corner < 1u << p->dims; corner++) {
        int64_t i[3], idx[3];
        double w = 1.0;
        for (unsigned d = 0; d < 3; d++) {
            unsigned up = corner >> d & 1;
            i[d] = i0[d] + up;
            if (d < p->dims)
                w *= up ? alpha[d] : 1.0 - alpha[d];
        }
        addressed(t, p, i, idx);
        struct emu_texel texel;
        uint64_t address;
        read_texel(t, idx, p->layer, &texel, &address);
        if (corner == 0)
            out->first_texel = address;
        for (unsigned c = 0; c < 4; c++)
            sum[c] += w * texel.value[c];
    }
    for (unsigned c = 0; c < 4; c++) {
        float v = (float)sum[c];
        memcpy(&out->word[c], &v, 4);
    }
}

/* ---------------------------------------------------------------- cubes */

/* The face a direction points at and its coordinates there, in [0, 1]
 * (the CUDA C++ Programming Guide's cubemap table). */
static unsigned cube_face(const float dir[3], double *s, double *t)
{
    double x = dir[0], y = dir[1], z = dir[2];
    double ax = fabs(x), ay = fabs(y), az = fabs(z), m, sc, tc;
    unsigned face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1;
        m = ax, sc = x >= 0 ? -z : z, tc = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3;
        m = ay, sc = x, tc = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5;
        m = az, sc = z >= 0 ? x : -x, tc = -y;
    }
    m = m > 0 ? m : 1;
    *s = (sc / m + 1) / 2;
    *t = (tc / m + 1) / 2;
    return face;
}

/* ------------------------------------------------------------- fetches */

static uint32_t clamp_layer(const struct emu_image *image, uint64_t layer)
{
    return layer < image->layers ? (uint32_t)layer : image->layers - 1;
}

/* The sample point of a float fetch. */
static struct sample_point point_of(const struct emu_texture_object *t,
                                    const struct emu_fetch *fetch)
{
    struct sample_point p = {.dims = fetch->dims, .normalized = t->sampler.normalized_coords};
    uint64_t layer = fetch->layered ? fetch->layer : 0;
    if (fetch->cube) {
        double s, tc;
        unsigned face = cube_face(fetch->coord, &s, &tc);
        layer = layer * CUBEMAP_FACES + face;
        p.dims = 2;
        p.normalized = true;
        p.u[0] = s * t->image.width;
        p.u[1] = tc * t->image.height;
    } else {
        for (unsigned d = 0; d < p.dims; d++)
            p.u[d] = p.normalized ? (double)(fetch->coord[d] * (float)extent(&t->image, d))
                                  : fetch->coord[d];
    }
    p.layer = clamp_layer(&t->image, layer);
    return p;
}

/* tex1Dfetch and integer coordinates: no filter; a linear resource reads
 * zeros outside, an array applies its address modes to the index. */
static void integer_fetch(const struct emu_texture_object *t, const struct emu_fetch *fetch,
                          struct emu_fetch_result *out)
{
    int64_t i[3] = {0, 0, 0}, idx[3];
    struct sample_point p = {.dims = fetch->dims, .normalized = false};
    p.layer = clamp_layer(&t->image, fetch->layered ? fetch->layer : 0);
    for (unsigned d = 0; d < fetch->dims; d++)
        i[d] = fetch->icoord[d];
    if (t->image.kind == EMU_IMAGE_LINEAR) {
        bool inside = i[0] >= 0 && i[0] < t->image.width;
        idx[0] = inside ? i[0] : BORDER;
        idx[1] = idx[2] = 0;
    } else {
        addressed(t, &p, i, idx);
    }
    struct emu_texel texel;
    if (idx[0] == BORDER && t->image.kind == EMU_IMAGE_LINEAR) {
        memset(out, 0, sizeof *out);
        return;
    }
    read_texel(t, idx, p.layer, &texel, &out->first_texel);
    memcpy(out->word, texel.word, sizeof out->word);
}

void emu_texture_sample(const struct emu_texture_object *t, const struct emu_fetch *fetch,
                        struct emu_fetch_result *out)
{
    if (fetch->integer || t->image.kind == EMU_IMAGE_LINEAR) {
        struct emu_fetch f = *fetch;
        for (unsigned d = 0; !fetch->integer && d < 3; d++)
            f.icoord[d] = (int32_t)floor_index(fetch->coord[d]);
        integer_fetch(t, &f, out);
        return;
    }
    struct sample_point p = point_of(t, fetch);
    if (t->sampler.filter == CU_TR_FILTER_MODE_LINEAR && returns_float(t))
        linear_sample(t, &p, out);
    else
        point_sample(t, &p, out);
}

void emu_texture_gather(const struct emu_texture_object *t, const struct emu_fetch *fetch,
                        unsigned component, struct emu_fetch_result *out)
{
    static const uint8_t order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}}; /* (di, dj) */
    struct sample_point p = point_of(t, fetch);
    p.dims = 2;
    int64_t i0[3] = {floor_index(p.u[0] - 0.5), floor_index(p.u[1] - 0.5), 0};
    for (unsigned k = 0; k < 4; k++) {
        int64_t i[3] = {i0[0] + order[k][0], i0[1] + order[k][1], 0}, idx[3];
        addressed(t, &p, i, idx);
        struct emu_texel texel;
        uint64_t address;
        read_texel(t, idx, p.layer, &texel, &address);
        out->word[k] = texel.word[component & 3];
        if (k == 3)
            out->first_texel = address;
    }
}

/* --------------------------------------------------------------- queries */

/* OpenCL's cl_channel_type of a format. */
static uint32_t channel_data_type(const struct emu_texel_format *f)
{
    enum {
        CL_SNORM_INT8 = 0x10D0,
        CL_UNORM_INT8 = 0x10D2,
        CL_SIGNED_INT8 = 0x10D7,
        CL_UNSIGNED_INT8 = 0x10DA,
        CL_HALF_FLOAT = 0x10DD,
        CL_FLOAT = 0x10DE,
    };
    unsigned wide = f->channel_bytes == 2 ? 1 : f->channel_bytes == 4 ? 2 : 0;
    if (f->kind == EMU_CHANNEL_FLOAT)
        return wide == 1 ? CL_HALF_FLOAT : CL_FLOAT;
    if (f->always_normalized)
        return (f->kind == EMU_CHANNEL_SIGNED ? CL_SNORM_INT8 : CL_UNORM_INT8) + wide;
    return (f->kind == EMU_CHANNEL_SIGNED ? CL_SIGNED_INT8 : CL_UNSIGNED_INT8) + wide;
}

uint32_t emu_texture_query(const struct emu_texture_object *t, enum emu_texture_query query)
{
    enum { CL_R = 0x10B0, CL_RG = 0x10B2, CL_RGBA = 0x10B5 };
    const struct emu_image *image = &t->image;
    switch (query) {
    case EMU_QUERY_WIDTH:
        return image->width;
    case EMU_QUERY_HEIGHT:
        return image->height;
    case EMU_QUERY_DEPTH:
        return image->depth;
    case EMU_QUERY_CHANNEL_DATA_TYPE:
        return channel_data_type(&image->format);
    case EMU_QUERY_CHANNEL_ORDER:
        return image->format.channels == 1 ? CL_R : image->format.channels == 2 ? CL_RG : CL_RGBA;
    case EMU_QUERY_NORMALIZED_COORDS:
        return t->sampler.normalized_coords;
    case EMU_QUERY_ARRAY_SIZE:
        return image->cubemap ? image->layers / CUBEMAP_FACES : image->layers;
    case EMU_QUERY_MIPMAP_LEVELS:
        return 1;
    case EMU_QUERY_SAMPLES:
        return 0;
    case EMU_QUERY_FORCE_UNNORMALIZED:
        return 0;
    case EMU_QUERY_FILTER_MODE:
        return t->sampler.filter;
    case EMU_QUERY_ADDRESS_MODE_0:
    case EMU_QUERY_ADDRESS_MODE_1:
    case EMU_QUERY_ADDRESS_MODE_2:
        return t->sampler.address[query - EMU_QUERY_ADDRESS_MODE_0];
    case EMU_QUERY_MEMORY_LAYOUT:
        return image->kind == EMU_IMAGE_ARRAY;
    }
    return 0;
}

/* ---------------------------------------------------------------- layout */

void emu_image_layout(struct emu_image *image, uint64_t pitch)
{
    image->pitch = pitch ? pitch : (uint64_t)image->width * image->format.bytes;
    image->slice_bytes = image->pitch * image->height;
    image->layer_bytes = image->slice_bytes * image->depth;
    image->span = image->layer_bytes * (image->layers - 1) +
                  image->slice_bytes * (image->depth - 1) + image->pitch * (image->height - 1) +
                  (uint64_t)image->width * image->format.bytes;
}
