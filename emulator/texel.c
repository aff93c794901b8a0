/*
 * Texel formats: what each CUarray_format is made of, and reading one
 * texel into the four 32-bit results of a texture fetch.
 *
 * A texture returns floats or integers. 8- and 16-bit integer channels are
 * promoted to normalized floats (cudaReadModeNormalizedFloat: u8 / 255,
 * s8 / 127 clamped at -1, and so on) unless the texture reads them as
 * integers (CU_TRSF_READ_AS_INTEGER); 32-bit integers are never promoted;
 * halves are widened to floats. Channels a format lacks read as 0, 0, 0
 * and 1 (alpha), as OpenCL, for which PTX's texture model was made, says.
 */
#include <math.h>
#include <string.h>

#include "arith.h"
#include "ptx_types.h"
#include "texture.h"

struct format_entry {
    unsigned format;
    uint8_t kind;
    uint8_t channel_bytes;
    uint8_t channels; /* 0: the program says */
    bool always_normalized;
};

static const struct format_entry formats[] = {
    {CU_AD_FORMAT_UNSIGNED_INT8, EMU_CHANNEL_UNSIGNED, 1, 0, false},
    {CU_AD_FORMAT_UNSIGNED_INT16, EMU_CHANNEL_UNSIGNED, 2, 0, false},
    {CU_AD_FORMAT_UNSIGNED_INT32, EMU_CHANNEL_UNSIGNED, 4, 0, false},
    {CU_AD_FORMAT_SIGNED_INT8, EMU_CHANNEL_SIGNED, 1, 0, false},
    {CU_AD_FORMAT_SIGNED_INT16, EMU_CHANNEL_SIGNED, 2, 0, false},
    {CU_AD_FORMAT_SIGNED_INT32, EMU_CHANNEL_SIGNED, 4, 0, false},
    {CU_AD_FORMAT_HALF, EMU_CHANNEL_FLOAT, 2, 0, false},
    {CU_AD_FORMAT_FLOAT, EMU_CHANNEL_FLOAT, 4, 0, false},
    {CU_AD_FORMAT_UNORM_INT8X1, EMU_CHANNEL_UNSIGNED, 1, 1, true},
    {CU_AD_FORMAT_UNORM_INT8X2, EMU_CHANNEL_UNSIGNED, 1, 2, true},
    {CU_AD_FORMAT_UNORM_INT8X4, EMU_CHANNEL_UNSIGNED, 1, 4, true},
    {CU_AD_FORMAT_UNORM_INT16X1, EMU_CHANNEL_UNSIGNED, 2, 1, true},
    {CU_AD_FORMAT_UNORM_INT16X2, EMU_CHANNEL_UNSIGNED, 2, 2, true},
    {CU_AD_FORMAT_UNORM_INT16X4, EMU_CHANNEL_UNSIGNED, 2, 4, true},
    {CU_AD_FORMAT_SNORM_INT8X1, EMU_CHANNEL_SIGNED, 1, 1, true},
    {CU_AD_FORMAT_SNORM_INT8X2, EMU_CHANNEL_SIGNED, 1, 2, true},
    {CU_AD_FORMAT_SNORM_INT8X4, EMU_CHANNEL_SIGNED, 1, 4, true},
    {CU_AD_FORMAT_SNORM_INT16X1, EMU_CHANNEL_SIGNED, 2, 1, true},
    {CU_AD_FORMAT_SNORM_INT16X2, EMU_CHANNEL_SIGNED, 2, 2, true},
    {CU_AD_FORMAT_SNORM_INT16X4, EMU_CHANNEL_SIGNED, 2, 4, true},
};

bool emu_texel_format_of(unsigned format, unsigned channels, struct emu_texel_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        const struct format_entry *e = &formats[i];
        if (e->format != format)
            continue;
        unsigned n = e->channels ? e->channels : channels;
        if ((n != 1 && n != 2 && n != 4) || (e->channels && channels != 0 && channels != n))
            return false;
        *out = (struct emu_texel_format){
            .format = format,
            .kind = e->kind,
            .channel_bytes = e->channel_bytes,
            .channels = (uint8_t)n,
            .bytes = (uint8_t)(n * e->channel_bytes),
            .always_normalized = e->always_normalized,
        };
        return true;
    }
    return false;
}

/* Channel c of the texel at p, as raw bits extended by the kind's sign. */
static uint32_t channel_bits(const struct emu_texel_format *f, const uint8_t *p, unsigned c)
{
    return (uint32_t)ptx_load_value(p + (size_t)c * f->channel_bytes, f->channel_bytes,
                                    f->kind == EMU_CHANNEL_SIGNED);
}

/* An 8- or 16-bit integer channel as a normalized float. */
static float normalized(const struct emu_texel_format *f, uint32_t bits)
{
    float max = f->channel_bytes == 1 ? 255.0f : 65535.0f;
    if (f->kind == EMU_CHANNEL_UNSIGNED)
        return (float)bits / max;
    float smax = f->channel_bytes == 1 ? 127.0f : 32767.0f;
    float v = (float)(int32_t)bits / smax;
    return v < -1.0f ? -1.0f : v;
}

/* sRGB's transfer function, from encoded to linear. */
static float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

static uint32_t float_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

static float float_of(uint32_t u)
{
    float v;
    memcpy(&v, &u, 4);
    return v;
}

void emu_texel_decode(const struct emu_texel_format *f, const void *p, bool read_as_integer,
                      bool srgb, struct emu_texel *out)
{
    bool promote = f->kind != EMU_CHANNEL_FLOAT && f->channel_bytes < 4 &&
                   (!read_as_integer || f->always_normalized);
    out->as_float = f->kind == EMU_CHANNEL_FLOAT || promote;
    for (unsigned c = 0; c < 4; c++) {
        if (c >= f->channels) {
            out->value[c] = c == 3 ? 1.0f : 0.0f;
            out->word[c] = out->as_float ? float_bits(out->value[c]) : (c == 3);
            continue;
        }
        uint32_t bits = channel_bits(f, p, c);
        float v = 0.0f;
        if (promote)
            v = normalized(f, bits);
        else if (f->kind == EMU_CHANNEL_FLOAT)
            v = f->channel_bytes == 2 ? arith_f16_to_f32((uint16_t)bits) : float_of(bits);
        if (promote && srgb && c < 3)
            v = srgb_to_linear(v);
        out->value[c] = v;
        out->word[c] = out->as_float ? float_bits(v) : bits;
    }
}
