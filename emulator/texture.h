/*
 * Internal to emulator/: the texture unit, what tex, tld4, txq, suld, sust,
 * sured and suq reach through a texture or surface object.
 *
 * An image is texels in device memory: a CUDA array (driver_array.c), or
 * the linear or pitched memory a texture object names. A texture object is
 * an image and a sampler (address modes, filter, normalized coordinates,
 * read mode, border color); a surface object is an image read and written
 * by bytes. The objects of a context live in a table (texture_objects.c)
 * under the 64-bit handles that kernels receive (CUtexObject,
 * CUsurfObject); a handle the table does not hold is a fault, never a
 * host pointer.
 *
 * The texture unit promises that every texel it reads or writes lies in
 * [base, base + span) of the image: coordinates are wrapped, clamped,
 * mirrored or replaced by the border color before an address is made. The
 * caller checks, before each use, that this range still lies in the
 * allocation it was made on (emu_memory_find, and the allocation's serial):
 * a texture whose memory was freed faults instead of reading freed host
 * memory or whatever was allocated there since.
 *
 * Sampling follows the CUDA C++ Programming Guide's "Texture Fetching"
 * appendix: point sampling takes texel floor(x); linear filtering weighs
 * the texels around x - 0.5 with weights in 9-bit fixed point (8
 * fractional bits, rounded to the nearest 1/256).
 */
#ifndef KGRADE_EMULATOR_TEXTURE_H
#define KGRADE_EMULATOR_TEXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "emu.h"

#define CUBEMAP_FACES 6

/* ---------------------------------------------------------------- texels */

enum emu_channel_kind { EMU_CHANNEL_UNSIGNED, EMU_CHANNEL_SIGNED, EMU_CHANNEL_FLOAT };

/* What a CUarray_format and a channel count make. */
struct emu_texel_format {
    uint32_t format;        /* the CUarray_format */
    uint8_t kind;           /* enum emu_channel_kind */
    uint8_t channel_bytes;  /* 1, 2 or 4 */
    uint8_t channels;       /* 1, 2 or 4 */
    uint8_t bytes;          /* of a texel */
    bool always_normalized; /* the UNORM and SNORM formats: read as floats whatever the flags */
};

/* The format a program describes with `format` and `channels` (0 for the
 * UNORM/SNORM formats, whose name says it); false for one the virtual GPU
 * does not have (block-compressed and video formats) or a bad channel
 * count. */
bool emu_texel_format_of(unsigned format, unsigned channels, struct emu_texel_format *out);

/* A texel's four 32-bit results: floats (their bits) when `as_float`,
 * else integers. Channels the format lacks read as 0, 0, 0 and 1. */
struct emu_texel {
    uint32_t word[4];
    float value[4]; /* the floats, when as_float */
    bool as_float;
};

/* Reads the texel at `p`: 8- and 16-bit integers as normalized floats in
 * [0, 1] or [-1, 1] unless `read_as_integer` (32-bit integers never),
 * halves as floats, sRGB-encoded color channels linearized when `srgb`. */
void emu_texel_decode(const struct emu_texel_format *f, const void *p, bool read_as_integer,
                      bool srgb, struct emu_texel *out);

/* ---------------------------------------------------------------- images */

enum emu_image_kind { EMU_IMAGE_ARRAY, EMU_IMAGE_LINEAR, EMU_IMAGE_PITCH2D };

/* Texel (x, y, z) of layer l is at base + l × layer_bytes + z × slice_bytes
 * + y × pitch + x × format.bytes. Extents are at least 1. */
struct emu_image {
    uint64_t base;       /* a device address */
    uint64_t span;       /* bytes from base that texels occupy */
    uint64_t allocation; /* the serial of the allocation that holds them (emu_range) */
    uint32_t width, height, depth, layers;
    uint64_t pitch, slice_bytes, layer_bytes;
    struct emu_texel_format format;
    uint8_t kind; /* enum emu_image_kind */
    uint8_t dims; /* 1, 2 or 3 */
    bool layered;
    bool cubemap;   /* layers are faces, 6 a cubemap */
    bool surface;   /* made with CUDA_ARRAY3D_SURFACE_LDST: surface objects may use it */
    bool gather;    /* made with CUDA_ARRAY3D_TEXTURE_GATHER */
    uint32_t flags; /* CUDA_ARRAY3D_* as the program gave them */
};

/* Fills the strides and span of an image whose extents and format are set,
 * tightly packed with rows of `pitch` bytes (0: width × texel). */
void emu_image_layout(struct emu_image *image, uint64_t pitch);

/* The device address of the texel at (x, y, z) of `layer`: in range. */
static inline uint64_t emu_image_texel(const struct emu_image *image, uint32_t x, uint32_t y,
                                       uint32_t z, uint32_t layer)
{
    return image->base + layer * image->layer_bytes + z * image->slice_bytes + y * image->pitch +
           (uint64_t)x * image->format.bytes;
}

/* ------------------------------------------------------------- samplers */

struct emu_sampler {
    uint8_t address[3]; /* CUaddress_mode per dimension */
    uint8_t filter;     /* CUfilter_mode */
    bool normalized_coords;
    bool read_as_integer;
    bool srgb;
    float border[4];
};

/* --------------------------------------------------------------- objects */

/* A texture or surface object, as cuTexObjectCreate or cuSurfObjectCreate
 * made it (the descriptors as given, for the Get calls). */
struct emu_texture_object {
    uint64_t handle;
    bool is_surface;
    struct emu_image image;
    struct emu_sampler sampler; /* textures */
    CUDA_RESOURCE_DESC resource;
    CUDA_TEXTURE_DESC texture;
    CUDA_RESOURCE_VIEW_DESC view;
    bool has_view;
};

struct emu_texture_objects;

struct emu_texture_objects *emu_texture_objects_create(void);
void emu_texture_objects_destroy(struct emu_texture_objects *objects);
/* Adds a copy of `object` under a new handle (never 0, never reused), which
 * it returns in *handle. CUDA_ERROR_OUT_OF_MEMORY when the table cannot grow. */
CUresult emu_texture_objects_add(struct emu_texture_objects *objects,
                                 const struct emu_texture_object *object, uint64_t *handle);
/* Removes the object of `handle` when it is of the kind `surface` says;
 * false when there is none. */
bool emu_texture_objects_remove(struct emu_texture_objects *objects, uint64_t handle, bool surface);
/* The object of `handle`, or NULL. Lookups may run on the host threads of a
 * launch at once; the driver changes the table only between launches. */
const struct emu_texture_object *emu_texture_objects_find(const struct emu_texture_objects *objects,
                                                          uint64_t handle);

/* -------------------------------------------------------------- sampling */

/* What one lane's fetch asks: coordinates as the instruction gives them. */
struct emu_fetch {
    uint8_t dims;   /* of the coordinates: 1, 2 or 3 */
    bool layered;   /* `layer` selects the layer */
    bool cube;      /* (x, y, z) is a direction (cube, acube) */
    bool integer;   /* coordinates are integers (ctype .s32): no filtering */
    float coord[3]; /* float coordinates */
    int32_t icoord[3];
    uint32_t layer; /* layered: the layer, or the cubemap of a cubemap array */
};

/* The texel the fetch reads first (for the timing model): its address, or
 * 0 when it read none (the border color). */
struct emu_fetch_result {
    uint32_t word[4];
    uint64_t first_texel;
};

/* tex: samples `t` as its sampler says. */
void emu_texture_sample(const struct emu_texture_object *t, const struct emu_fetch *fetch,
                        struct emu_fetch_result *out);

/* tld4: component `component` (0 r, 1 g, 2 b, 3 a) of the four texels
 * linear filtering would weigh, counter-clockwise from the lower left:
 * (i, j+1), (i+1, j+1), (i+1, j), (i, j). */
void emu_texture_gather(const struct emu_texture_object *t, const struct emu_fetch *fetch,
                        unsigned component, struct emu_fetch_result *out);

/* txq and suq: what the object says of itself. */
enum emu_texture_query {
    EMU_QUERY_WIDTH,
    EMU_QUERY_HEIGHT,
    EMU_QUERY_DEPTH,
    EMU_QUERY_CHANNEL_DATA_TYPE, /* OpenCL's CL_UNORM_INT8 …, for which PTX made txq */
    EMU_QUERY_CHANNEL_ORDER,     /* OpenCL's CL_R, CL_RG, CL_RGBA */
    EMU_QUERY_NORMALIZED_COORDS,
    EMU_QUERY_ARRAY_SIZE,
    EMU_QUERY_MIPMAP_LEVELS,
    EMU_QUERY_SAMPLES,
    EMU_QUERY_FORCE_UNNORMALIZED,
    EMU_QUERY_FILTER_MODE,
    EMU_QUERY_ADDRESS_MODE_0,
    EMU_QUERY_ADDRESS_MODE_1,
    EMU_QUERY_ADDRESS_MODE_2,
    EMU_QUERY_MEMORY_LAYOUT, /* suq: 1 for an array's block-linear layout */
};

uint32_t emu_texture_query(const struct emu_texture_object *t, enum emu_texture_query query);

/* -------------------------------------------------------------- surfaces */

/* What suld, sust and sured do with a coordinate outside the surface. */
enum emu_surface_bounds { EMU_SURFACE_TRAP, EMU_SURFACE_CLAMP, EMU_SURFACE_ZERO };

/* One lane's surface access: x in bytes, y and z in rows and slices. */
struct emu_surface_access {
    uint8_t dims; /* 1, 2 or 3 */
    bool layered;
    int32_t x_bytes, y, z;
    uint32_t layer;
    unsigned bytes; /* the access's size */
};

enum emu_surface_where {
    EMU_SURFACE_INSIDE,     /* *address is where the access goes (clamped when asked) */
    EMU_SURFACE_OUTSIDE,    /* out of bounds: .trap faults, .zero reads zeros or drops */
    EMU_SURFACE_MISALIGNED, /* x is not a multiple of the access's size */
};

/* Where an access goes, by the `bounds` mode. */
enum emu_surface_where emu_surface_address(const struct emu_image *image,
                                           const struct emu_surface_access *access,
                                           enum emu_surface_bounds bounds, uint64_t *address);

#endif
