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
 * checks them: extents for each kind of array within the device's limits,
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

static bool within(size_t v, size_t max)
{
    return v >= 1 && v <= max;
}

/* The extents of a layered or cubemap array; fills the image's shape. */
static bool array_layered_shape(const CUDA_ARRAY3D_DESCRIPTOR *d, struct emu_image *image)
{
    bool cubemap = d->Flags & CUDA_ARRAY3D_CUBEMAP, layered = d->Flags & CUDA_ARRAY3D_LAYERED;
    image->layered = layered;
    image->cubemap = cubemap;
    image->layers = (uint32_t)d->Depth;
    image->dims = d->Height == 0 ? 1 : 2;
    if (cubemap)
        return d->Height != 0 && d->Width == d->Height &&
               within(d->Width, TEXTURE_CUBEMAP_WIDTH_MAX) &&
               (layered ? d->Depth % CUBEMAP_FACES == 0 && within(d->Depth, TEXTURE_LAYERS_MAX)
                        : d->Depth == CUBEMAP_FACES);
    return within(d->Width, TEXTURE_LAYERED_WIDTH_MAX) &&
           (d->Height == 0 || within(d->Height, TEXTURE_LAYERED_WIDTH_MAX)) &&
           within(d->Depth, TEXTURE_LAYERS_MAX);
}

/* The array's shape from its descriptor, within the device's limits. */
static bool array_shape(const CUDA_ARRAY3D_DESCRIPTOR *d, struct emu_image *image)
{
    image->width = (uint32_t)d->Width;
    image->height = d->Height ? (uint32_t)d->Height : 1;
    image->depth = 1;
    image->layers = 1;
    if (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP))
        return d->Depth != 0 && array_layered_shape(d, image);
    bool surface = d->Flags & CUDA_ARRAY3D_SURFACE_LDST;
    if (d->Height == 0 && d->Depth == 0) {
        image->dims = 1;
        return within(d->Width, surface ? SURFACE_1D_WIDTH_MAX : TEXTURE_1D_WIDTH_MAX);
    }
    if (d->Depth == 0) {
        image->dims = 2;
        return within(d->Width, TEXTURE_2D_WIDTH_MAX) && within(d->Height, TEXTURE_2D_HEIGHT_MAX);
    }
    image->dims = 3;
    image->depth = (uint32_t)d->Depth;
    return !(d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER) && within(d->Width, TEXTURE_3D_EXTENT_MAX) &&
           within(d->Height, TEXTURE_3D_EXTENT_MAX) && within(d->Depth, TEXTURE_3D_EXTENT_MAX);
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
    bool gather = d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER;
    if (!array_shape(d, image) || (gather && (image->dims != 2 || image->layered)))
        return CUDA_ERROR_INVALID_VALUE;
    image->kind = EMU_IMAGE_ARRAY;
    image->surface = d->Flags & CUDA_ARRAY3D_SURFACE_LDST;
    image->gather = gather;
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
