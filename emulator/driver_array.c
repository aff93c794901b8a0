/*
 * CUDA arrays: cuArrayCreate, cuArray3DCreate, cuArrayDestroy,
 * cuArrayGetDescriptor, cuArray3DGetDescriptor.
 *
 * An array's texels live in the context's device memory, in an allocation
 * of their own (EMU_ALLOC_ARRAY) whose kernel window is empty, rather than
 * in host memory the context owns. So an array is charged against the
 * device's capacity (cuMemGetInfo counts it; one too large fails with
 * CUDA_ERROR_OUT_OF_MEMORY, as on a GPU), its pages are zero-filled and
 * committed only when written, and the allocation table that checks every
 * kernel access knows it: a stray pointer into an array faults, with a
 * message saying what it hit, instead of scribbling on it unseen (kernels
 * reach arrays only through texture and surface objects, as on a GPU), and
 * a texture whose array was destroyed faults at its next fetch.
 *
 * Texels are laid out row by row, slice by slice, layer by layer with no
 * padding (a GPU tiles them in an opaque block-linear layout; nothing a
 * program sees depends on it). Descriptors are checked as the real driver
 * checks them: extents for each kind of array within the device's limits
 * (its CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE* and SURFACE* attributes),
 * formats and channel counts, flags; block-compressed and video formats,
 * sparse and deferred-mapping arrays are not supported
 * (CUDA_ERROR_NOT_SUPPORTED).
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define ARRAY_FLAGS_KNOWN                                                                          \
    (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |                     \
     CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT |    \
     CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE)
#define ARRAY_FLAGS_UNSUPPORTED                                                                    \
    (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE)
/* CUarray_format values the virtual GPU knows but does not implement. */
#define FORMAT_PACKED_1010102   0x50
#define FORMAT_COMPRESSED_FIRST 0x91 /* CU_AD_FORMAT_BC1_UNORM … */
#define FORMAT_COMPRESSED_LAST  0xb5 /* … CU_AD_FORMAT_YUV444_16bit_SemiPlanar */

/* ------------------------------------------------------------ releasing */

/* The arrays' memory goes with the context's memory. */
void driver_arrays_release(struct CUctx_st *ctx)
{
    driver_handle_remove_if(DRIVER_ARRAY, driver_handle_owned_by, ctx, driver_handle_free);
}

/* ------------------------------------------------------------- checking */

/* CUDA_ERROR_NOT_SUPPORTED for a format the virtual GPU knows but lacks,
 * CUDA_ERROR_INVALID_VALUE for one that is not a format with that many
 * channels. */
static CUresult array_format(const CUDA_ARRAY3D_DESCRIPTOR *d, struct emu_texel_format *out)
{
    if (emu_texel_format_of(d->Format, d->NumChannels, out) && d->NumChannels != 0)
        return CUDA_SUCCESS;
    bool known = d->Format == FORMAT_PACKED_1010102 ||
                 (d->Format >= FORMAT_COMPRESSED_FIRST && d->Format <= FORMAT_COMPRESSED_LAST);
    return known ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
}

/* The kinds of array a descriptor makes (cuArray3DCreate's documentation). */
enum array_kind {
    ARRAY_1D,
    ARRAY_2D,
    ARRAY_3D,
    ARRAY_1D_LAYERED,
    ARRAY_2D_LAYERED,
    ARRAY_CUBEMAP,
    ARRAY_CUBEMAP_LAYERED,
    ARRAY_GATHER, /* 2D, with CUDA_ARRAY3D_TEXTURE_GATHER */
    ARRAY_KINDS   /* none: extents and flags that make no array */
};

#define T(name) CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE##name
#define S(name) CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE##name
/* Each kind's largest width, height and depth (layers), as device
 * attributes (0: the extent must be 0), for a texture and, when the array
 * is made for surfaces, for a surface too: cuda.h's table. */
static const CUdevice_attribute array_limits[ARRAY_KINDS][2][3] = {
    [ARRAY_1D] = {{T(1D_WIDTH), 0, 0}, {S(1D_WIDTH), 0, 0}},
    [ARRAY_2D] = {{T(2D_WIDTH), T(2D_HEIGHT), 0}, {S(2D_WIDTH), S(2D_HEIGHT), 0}},
    [ARRAY_3D] = {{T(3D_WIDTH), T(3D_HEIGHT), T(3D_DEPTH)},
                  {S(3D_WIDTH), S(3D_HEIGHT), S(3D_DEPTH)}},
    [ARRAY_1D_LAYERED] = {{T(1D_LAYERED_WIDTH), 0, T(1D_LAYERED_LAYERS)},
                          {S(1D_LAYERED_WIDTH), 0, S(1D_LAYERED_LAYERS)}},
    [ARRAY_2D_LAYERED] = {{T(2D_LAYERED_WIDTH), T(2D_LAYERED_HEIGHT), T(2D_LAYERED_LAYERS)},
                          {S(2D_LAYERED_WIDTH), S(2D_LAYERED_HEIGHT), S(2D_LAYERED_LAYERS)}},
    [ARRAY_CUBEMAP] = {{T(CUBEMAP_WIDTH), T(CUBEMAP_WIDTH), 0},
                       {S(CUBEMAP_WIDTH), S(CUBEMAP_WIDTH), 0}},
    [ARRAY_CUBEMAP_LAYERED] = {{T(CUBEMAP_LAYERED_WIDTH), T(CUBEMAP_LAYERED_WIDTH),
                                T(CUBEMAP_LAYERED_LAYERS)},
                               {S(CUBEMAP_LAYERED_WIDTH), S(CUBEMAP_LAYERED_WIDTH),
                                S(CUBEMAP_LAYERED_LAYERS)}},
    [ARRAY_GATHER] = {{T(2D_GATHER_WIDTH), T(2D_GATHER_HEIGHT), 0}, {S(2D_WIDTH), S(2D_HEIGHT), 0}},
};
/* A 3D array may instead be within these. */
static const CUdevice_attribute alternate_3d[3] = {T(3D_WIDTH_ALTERNATE), T(3D_HEIGHT_ALTERNATE),
                                                   T(3D_DEPTH_ALTERNATE)};
#undef T
#undef S

static enum array_kind array_kind_of(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    bool layered = d->Flags & CUDA_ARRAY3D_LAYERED;
    if (d->Flags & CUDA_ARRAY3D_CUBEMAP)
        return layered ? ARRAY_CUBEMAP_LAYERED : ARRAY_CUBEMAP;
    if (layered)
        return d->Height == 0 ? ARRAY_1D_LAYERED : ARRAY_2D_LAYERED;
    if (d->Height == 0)
        return d->Depth == 0 ? ARRAY_1D : ARRAY_KINDS;
    if (d->Depth == 0)
        return d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER ? ARRAY_GATHER : ARRAY_2D;
    return d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER ? ARRAY_KINDS : ARRAY_3D;
}

/* Each extent in [1, its limit], or 0 where there is no limit; a cubemap's
 * depth is checked apart (6 faces a cube). */
static bool extents_within(const CUDA_ARRAY3D_DESCRIPTOR *d, const CUdevice_attribute limit[3],
                           bool cubemap)
{
    const size_t extent[3] = {d->Width, d->Height, d->Depth};
    for (int i = 0; i < 3; i++) {
        if (i == 2 && cubemap && limit[i] == 0)
            continue;
        bool ok = limit[i] == 0 ? extent[i] == 0
                                : extent[i] >= 1 && extent[i] <= (size_t)driver_attribute(limit[i]);
        if (!ok)
            return false;
    }
    return true;
}

/* The descriptor makes an array of `kind` the device allows. */
static bool array_fits(const CUDA_ARRAY3D_DESCRIPTOR *d, enum array_kind kind)
{
    bool cubemap = kind == ARRAY_CUBEMAP || kind == ARRAY_CUBEMAP_LAYERED;
    if (cubemap && (d->Width != d->Height || d->Depth % CUBEMAP_FACES != 0 ||
                    (kind == ARRAY_CUBEMAP && d->Depth != CUBEMAP_FACES)))
        return false;
    bool texture = extents_within(d, array_limits[kind][0], cubemap) ||
                   (kind == ARRAY_3D && extents_within(d, alternate_3d, false));
    bool surface = !(d->Flags & CUDA_ARRAY3D_SURFACE_LDST) ||
                   extents_within(d, array_limits[kind][1], cubemap);
    return texture && surface;
}

/* The image's shape: layers for the layered kinds, depth for 3D. */
static void array_shape(const CUDA_ARRAY3D_DESCRIPTOR *d, enum array_kind kind,
                        struct emu_image *image)
{
    bool layered = kind == ARRAY_1D_LAYERED || kind == ARRAY_2D_LAYERED || kind == ARRAY_CUBEMAP ||
                   kind == ARRAY_CUBEMAP_LAYERED;
    image->width = (uint32_t)d->Width;
    image->height = d->Height ? (uint32_t)d->Height : 1;
    image->depth = kind == ARRAY_3D ? (uint32_t)d->Depth : 1;
    image->layers = layered ? (uint32_t)d->Depth : 1;
    image->dims = d->Height == 0 ? 1 : kind == ARRAY_3D ? 3 : 2;
    image->layered = layered;
    image->cubemap = kind == ARRAY_CUBEMAP || kind == ARRAY_CUBEMAP_LAYERED;
}

static CUresult array_describe(const CUDA_ARRAY3D_DESCRIPTOR *d, struct emu_image *image)
{
    if (d->Flags & ~(unsigned)ARRAY_FLAGS_KNOWN)
        return CUDA_ERROR_INVALID_VALUE;
    if (d->Flags & ARRAY_FLAGS_UNSUPPORTED)
        return CUDA_ERROR_NOT_SUPPORTED;
    memset(image, 0, sizeof *image);
    CUresult rc = array_format(d, &image->format);
    if (rc != CUDA_SUCCESS)
        return rc;
    enum array_kind kind = array_kind_of(d);
    if (kind == ARRAY_KINDS || !array_fits(d, kind))
        return CUDA_ERROR_INVALID_VALUE;
    array_shape(d, kind, image);
    image->kind = EMU_IMAGE_ARRAY;
    image->surface = d->Flags & CUDA_ARRAY3D_SURFACE_LDST;
    image->gather = kind == ARRAY_GATHER;
    image->flags = d->Flags;
    emu_image_layout(image, 0);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------- creating */

/* Kernels may not touch the array through a pointer: its window is empty. */
static CUresult array_allocate(struct CUctx_st *ctx, struct emu_image *image)
{
    struct emu_range range;
    CUresult rc = emu_memory_alloc(ctx->memory, image->span, EMU_ALLOC_ARRAY, &image->base);
    if (rc == CUDA_SUCCESS)
        rc = emu_memory_set_window(ctx->memory, image->base, image->span, 0);
    if (rc == CUDA_SUCCESS && emu_memory_find(ctx->memory, image->base, 1, &range))
        image->allocation = range.serial;
    return rc;
}

static CUresult array_create(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (pHandle == NULL || d == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    struct CUarray_st *array = NULL;
    if (rc == CUDA_SUCCESS && (array = calloc(1, sizeof *array)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS)
        rc = array_describe(d, &array->image);
    if (rc == CUDA_SUCCESS)
        rc = array_allocate(ctx, &array->image);
    if (rc != CUDA_SUCCESS) {
        free(array);
        return driver_leave(rc);
    }
    array->desc = *d;
    driver_handle_add(DRIVER_ARRAY, &array->handle, ctx);
    *pHandle = array;
    return driver_leave(CUDA_SUCCESS);
}

EMU_EXPORT CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    return array_create(pHandle, pAllocateArray);
}

/* A 1D or 2D array: the 3D descriptor with no depth and no flags. */
EMU_EXPORT CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (pAllocateArray == NULL)
        return array_create(pHandle, NULL);
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = pAllocateArray->Width,
        .Height = pAllocateArray->Height,
        .Depth = 0,
        .Format = pAllocateArray->Format,
        .NumChannels = pAllocateArray->NumChannels,
        .Flags = 0,
    };
    return array_create(pHandle, &d);
}

EMU_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_ARRAY, hArray, ctx);
    if (rc != CUDA_SUCCESS)
        return driver_leave(rc);
    driver_handle_remove(DRIVER_ARRAY, &hArray->handle);
    emu_memory_free(ctx->memory, hArray->image.base);
    free(hArray);
    return driver_leave(CUDA_SUCCESS);
}

/* ---------------------------------------------------------- descriptors */

/* The live array `hArray` of the current context, for a Get call. */
static CUresult array_lookup(const void *out, CUarray hArray, struct CUctx_st **ctx)
{
    CUresult rc = driver_enter(ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && out == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_ARRAY, hArray, *ctx);
    return rc;
}

EMU_EXPORT CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    struct CUctx_st *ctx;
    CUresult rc = array_lookup(pArrayDescriptor, hArray, &ctx);
    if (rc == CUDA_SUCCESS)
        *pArrayDescriptor = (CUDA_ARRAY_DESCRIPTOR){
            .Width = hArray->desc.Width,
            .Height = hArray->desc.Height,
            .Format = hArray->desc.Format,
            .NumChannels = hArray->desc.NumChannels,
        };
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
                                           CUarray hArray)
{
    struct CUctx_st *ctx;
    CUresult rc = array_lookup(pArrayDescriptor, hArray, &ctx);
    if (rc == CUDA_SUCCESS)
        *pArrayDescriptor = hArray->desc;
    return driver_leave(rc);
}
