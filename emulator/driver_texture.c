/*
 * Texture and surface objects: cuTexObjectCreate, cuTexObjectDestroy,
 * cuTexObjectGetResourceDesc, cuTexObjectGetTextureDesc,
 * cuTexObjectGetResourceViewDesc, cuSurfObjectCreate, cuSurfObjectDestroy,
 * cuSurfObjectGetResourceDesc.
 *
 * An object is its image (a CUDA array, or linear or pitched device
 * memory) and, for a texture, its sampler, kept in the context's table
 * (texture_objects.c) under the handle the kernel receives. Descriptors
 * are checked as cuda.h documents: the resource live and of this context,
 * linear and pitched memory aligned to CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT
 * (pitches to CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT), inside one
 * allocation and within the device's extents (its attributes), address and filter modes and flags
 * known, reserved flags zero, a surface's array made with CUDA_ARRAY3D_SURFACE_LDST; anything else
 * is CUDA_ERROR_INVALID_VALUE. A resource view may pick layers and reinterpret the texel format at
 * the same texel size; block-compressed views get CUDA_ERROR_NOT_SUPPORTED. Mipmapped arrays do not
 * exist here (cuMipmappedArrayCreate is not implemented), so no mipmapped resource is valid.
 *
 * Seamless cubemap filtering is taken as clamping at the faces' edges.
 */
#include <stddef.h>
#include <string.h>

#include "driver.h"

#define TEXTURE_FLAGS_KNOWN                                                                        \
    (CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |                     \
     CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP)
#define VIEW_FORMAT_LAST_PLAIN CU_RES_VIEW_FORMAT_FLOAT_4X32 /* then block-compressed ones */

/* ------------------------------------------------------------- resources */

/* A format and channel count of linear or pitched memory. */
static bool memory_format(CUarray_format format, unsigned channels, struct emu_texel_format *out)
{
    return channels != 0 && emu_texel_format_of(format, channels, out);
}

/* The image is aligned and inside one live allocation of the context,
 * which it remembers. */
static CUresult image_allocated(struct CUctx_st *ctx, struct emu_image *image)
{
    struct emu_range range;
    if (image->base % (uint64_t)driver_attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT) != 0 ||
        !emu_memory_find(ctx->memory, image->base, image->span, &range))
        return CUDA_ERROR_INVALID_VALUE;
    image->allocation = range.serial;
    return CUDA_SUCCESS;
}

static CUresult linear_image(struct CUctx_st *ctx, const CUDA_RESOURCE_DESC *r,
                             struct emu_image *image)
{
    if (!memory_format(r->res.linear.format, r->res.linear.numChannels, &image->format))
        return CUDA_ERROR_INVALID_VALUE;
    size_t width = r->res.linear.sizeInBytes / image->format.bytes;
    if (width == 0 ||
        width > (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH))
        return CUDA_ERROR_INVALID_VALUE;
    image->kind = EMU_IMAGE_LINEAR;
    image->dims = 1;
    image->width = (uint32_t)width;
    image->height = image->depth = image->layers = 1;
    image->base = r->res.linear.devPtr;
    emu_image_layout(image, 0);
    return image_allocated(ctx, image);
}

static CUresult pitch2d_image(struct CUctx_st *ctx, const CUDA_RESOURCE_DESC *r,
                              struct emu_image *image)
{
    if (!memory_format(r->res.pitch2D.format, r->res.pitch2D.numChannels, &image->format))
        return CUDA_ERROR_INVALID_VALUE;
    size_t width = r->res.pitch2D.width, height = r->res.pitch2D.height;
    size_t pitch = r->res.pitch2D.pitchInBytes;
    size_t alignment = (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
    if (width == 0 ||
        width > (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH) ||
        height == 0 ||
        height > (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT) ||
        pitch % alignment != 0 ||
        pitch > (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH) ||
        pitch < width * image->format.bytes)
        return CUDA_ERROR_INVALID_VALUE;
    image->kind = EMU_IMAGE_PITCH2D;
    image->dims = 2;
    image->width = (uint32_t)width;
    image->height = (uint32_t)height;
    image->depth = image->layers = 1;
    image->base = r->res.pitch2D.devPtr;
    emu_image_layout(image, pitch);
    return image_allocated(ctx, image);
}

/* The image a resource descriptor names. */
static CUresult resource_image(struct CUctx_st *ctx, const CUDA_RESOURCE_DESC *r,
                               struct emu_image *image)
{
    memset(image, 0, sizeof *image);
    if (r->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        if (driver_handle_check(DRIVER_ARRAY, r->res.array.hArray, ctx) != CUDA_SUCCESS)
            return CUDA_ERROR_INVALID_VALUE;
        *image = r->res.array.hArray->image;
        return CUDA_SUCCESS;
    case CU_RESOURCE_TYPE_LINEAR:
        return linear_image(ctx, r, image);
    case CU_RESOURCE_TYPE_PITCH2D:
        return pitch2d_image(ctx, r, image);
    default: /* mipmapped arrays included: none can exist */
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* ----------------------------------------------------------------- views */

/* A view's format as the array format and channels it reads texels as. */
static CUresult view_format(CUresourceViewFormat v, struct emu_texel_format *out)
{
    static const CUarray_format kinds[] = {
        CU_AD_FORMAT_UNSIGNED_INT8, CU_AD_FORMAT_SIGNED_INT8,    CU_AD_FORMAT_UNSIGNED_INT16,
        CU_AD_FORMAT_SIGNED_INT16,  CU_AD_FORMAT_UNSIGNED_INT32, CU_AD_FORMAT_SIGNED_INT32,
        CU_AD_FORMAT_HALF,          CU_AD_FORMAT_FLOAT,
    };
    static const unsigned channels[] = {1, 2, 4};
    if (v > VIEW_FORMAT_LAST_PLAIN)
        return v <= CU_RES_VIEW_FORMAT_UNSIGNED_BC7 ? CUDA_ERROR_NOT_SUPPORTED
                                                    : CUDA_ERROR_INVALID_VALUE;
    unsigned i = (unsigned)v - 1;
    return emu_texel_format_of(kinds[i / 3], channels[i % 3], out) ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_INVALID_VALUE;
}

/* Applies a resource view to an array's image: a texel format of the same
 * size, a range of layers; extents as the array's, one mipmap level. */
static CUresult view_apply(const CUDA_RESOURCE_VIEW_DESC *v, const CUDA_RESOURCE_DESC *r,
                           struct emu_image *image)
{
    if (r->resType != CU_RESOURCE_TYPE_ARRAY)
        return CUDA_ERROR_INVALID_VALUE;
    const CUDA_ARRAY3D_DESCRIPTOR *d = &r->res.array.hArray->desc;
    if (v->width != d->Width || v->height != d->Height || v->depth != d->Depth ||
        v->firstMipmapLevel != 0 || v->lastMipmapLevel != 0 || v->firstLayer > v->lastLayer ||
        v->lastLayer >= image->layers)
        return CUDA_ERROR_INVALID_VALUE;
    if (v->format != CU_RES_VIEW_FORMAT_NONE) {
        struct emu_texel_format f;
        CUresult rc = view_format(v->format, &f);
        if (rc != CUDA_SUCCESS || f.bytes != image->format.bytes)
            return rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_VALUE;
        image->format = f;
    }
    unsigned layers = v->lastLayer - v->firstLayer + 1;
    if (image->cubemap && (v->firstLayer % CUBEMAP_FACES != 0 || layers % CUBEMAP_FACES != 0))
        return CUDA_ERROR_INVALID_VALUE;
    image->base += v->firstLayer * image->layer_bytes;
    image->layers = layers;
    emu_image_layout(image, image->pitch);
    return CUDA_SUCCESS;
}

/* -------------------------------------------------------------- samplers */

static CUresult sampler_of(const CUDA_TEXTURE_DESC *t, const struct emu_image *image,
                           struct emu_sampler *s)
{
    if ((t->flags & ~(unsigned)TEXTURE_FLAGS_KNOWN) != 0 ||
        t->filterMode > CU_TR_FILTER_MODE_LINEAR ||
        ((t->flags & CU_TRSF_SEAMLESS_CUBEMAP) && !image->cubemap))
        return CUDA_ERROR_INVALID_VALUE;
    memset(s, 0, sizeof *s);
    for (int d = 0; d < 3; d++) {
        if (t->addressMode[d] > CU_TR_ADDRESS_MODE_BORDER)
            return CUDA_ERROR_INVALID_VALUE;
        s->address[d] = (t->flags & CU_TRSF_SEAMLESS_CUBEMAP) ? CU_TR_ADDRESS_MODE_CLAMP
                                                              : (uint8_t)t->addressMode[d];
    }
    s->filter = (uint8_t)t->filterMode;
    s->normalized_coords = t->flags & CU_TRSF_NORMALIZED_COORDINATES;
    s->read_as_integer = t->flags & CU_TRSF_READ_AS_INTEGER;
    s->srgb = t->flags & CU_TRSF_SRGB;
    memcpy(s->border, t->borderColor, sizeof s->border);
    return CUDA_SUCCESS;
}

/* --------------------------------------------------------------- objects */

/* Adds the object to the context's table (made at the first object). */
static CUresult object_add(struct CUctx_st *ctx, const struct emu_texture_object *object,
                           uint64_t *handle)
{
    if (ctx->textures == NULL && (ctx->textures = emu_texture_objects_create()) == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    return emu_texture_objects_add(ctx->textures, object, handle);
}

void driver_texture_objects_release(struct CUctx_st *ctx)
{
    emu_texture_objects_destroy(ctx->textures);
    ctx->textures = NULL;
}

/* A Get call: copies `size` bytes at `offset` of the current context's
 * live object `handle` (of the kind `surface` says) to `out`. */
static CUresult object_get(void *out, size_t size, uint64_t handle, bool surface, size_t offset)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    const struct emu_texture_object *t =
        rc == CUDA_SUCCESS ? emu_texture_objects_find(ctx->textures, handle) : NULL;
    if (rc == CUDA_SUCCESS && (out == NULL || t == NULL || t->is_surface != surface))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        memcpy(out, (const uint8_t *)t + offset, size);
    return driver_leave(rc);
}

static CUresult object_destroy(uint64_t handle, bool surface)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && !emu_texture_objects_remove(ctx->textures, handle, surface))
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}

/* ---------------------------------------------------------------- textures */

static CUresult texture_describe(struct CUctx_st *ctx, const CUDA_RESOURCE_DESC *r,
                                 const CUDA_TEXTURE_DESC *t, const CUDA_RESOURCE_VIEW_DESC *v,
                                 struct emu_texture_object *object)
{
    memset(object, 0, sizeof *object);
    CUresult rc = resource_image(ctx, r, &object->image);
    if (rc == CUDA_SUCCESS && v != NULL)
        rc = view_apply(v, r, &object->image);
    if (rc == CUDA_SUCCESS)
        rc = sampler_of(t, &object->image, &object->sampler);
    object->resource = *r;
    object->texture = *t;
    object->has_view = v != NULL;
    if (v != NULL)
        object->view = *v;
    return rc;
}

EMU_EXPORT CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                      const CUDA_TEXTURE_DESC *pTexDesc,
                                      const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (pTexObject == NULL || pResDesc == NULL || pTexDesc == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    struct emu_texture_object object;
    if (rc == CUDA_SUCCESS)
        rc = texture_describe(ctx, pResDesc, pTexDesc, pResViewDesc, &object);
    uint64_t handle = 0;
    if (rc == CUDA_SUCCESS)
        rc = object_add(ctx, &object, &handle);
    if (rc == CUDA_SUCCESS)
        *pTexObject = handle;
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuTexObjectDestroy(CUtexObject texObject)
{
    return object_destroy(texObject, false);
}

EMU_EXPORT CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject)
{
    return object_get(pResDesc, sizeof *pResDesc, texObject, false,
                      offsetof(struct emu_texture_object, resource));
}

EMU_EXPORT CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject)
{
    return object_get(pTexDesc, sizeof *pTexDesc, texObject, false,
                      offsetof(struct emu_texture_object, texture));
}

/* A texture made without a view answers a zeroed one. */
EMU_EXPORT CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc,
                                                   CUtexObject texObject)
{
    return object_get(pResViewDesc, sizeof *pResViewDesc, texObject, false,
                      offsetof(struct emu_texture_object, view));
}

/* ---------------------------------------------------------------- surfaces */

EMU_EXPORT CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject,
                                       const CUDA_RESOURCE_DESC *pResDesc)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS &&
        (pSurfObject == NULL || pResDesc == NULL || pResDesc->resType != CU_RESOURCE_TYPE_ARRAY))
        rc = CUDA_ERROR_INVALID_VALUE;
    struct emu_texture_object object;
    memset(&object, 0, sizeof object);
    if (rc == CUDA_SUCCESS)
        rc = resource_image(ctx, pResDesc, &object.image);
    if (rc == CUDA_SUCCESS && !object.image.surface)
        rc = CUDA_ERROR_INVALID_VALUE; /* the array lacks CUDA_ARRAY3D_SURFACE_LDST */
    object.is_surface = true;
    uint64_t handle = 0;
    if (rc == CUDA_SUCCESS) {
        object.resource = *pResDesc;
        rc = object_add(ctx, &object, &handle);
    }
    if (rc == CUDA_SUCCESS)
        *pSurfObject = handle;
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuSurfObjectDestroy(CUsurfObject surfObject)
{
    return object_destroy(surfObject, true);
}

EMU_EXPORT CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc,
                                                CUsurfObject surfObject)
{
    return object_get(pResDesc, sizeof *pResDesc, surfObject, true,
                      offsetof(struct emu_texture_object, resource));
}
