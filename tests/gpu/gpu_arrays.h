/*
 * Helpers for the GPU tests of CUDA arrays, textures and surfaces
 * (test_arrays.c, test_texture.c, test_surface.c): making an array, moving
 * whole arrays in and out with cuMemcpy3D, and texture objects over an
 * array with a given sampler. Each counts a failure through gpu_test.h's
 * CHECK macros and returns 0 (or a zero handle) when a call fails.
 */
#ifndef KGRADE_TESTS_GPU_ARRAYS_H
#define KGRADE_TESTS_GPU_ARRAYS_H

#include "gpu_test.h"

/* An array of width × height × depth texels (0 for absent extents, as
 * cuArray3DCreate takes them). */
static inline CUarray gpu_test_array(size_t width, size_t height, size_t depth,
                                     CUarray_format format, unsigned channels, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {width, height, depth, format, channels, flags};
    CUarray a = NULL;
    return CHECK_CU(cuArray3DCreate(&a, &d)) ? a : NULL;
}

/* A whole-array copy between `host` (rows of `row_bytes`, tightly packed,
 * `rows` rows a slice, `slices` slices) and `a`, to the array when
 * `to_array`. */
static inline int gpu_test_array_copy(CUarray a, void *host, size_t row_bytes, size_t rows,
                                      size_t slices, int to_array)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    *(to_array ? &c.srcMemoryType : &c.dstMemoryType) = CU_MEMORYTYPE_HOST;
    *(to_array ? &c.srcPitch : &c.dstPitch) = row_bytes;
    *(to_array ? &c.srcHeight : &c.dstHeight) = rows;
    *(to_array ? &c.dstMemoryType : &c.srcMemoryType) = CU_MEMORYTYPE_ARRAY;
    *(to_array ? &c.dstArray : &c.srcArray) = a;
    if (to_array)
        c.srcHost = host;
    else
        c.dstHost = host;
    c.WidthInBytes = row_bytes;
    c.Height = rows;
    c.Depth = slices;
    return CHECK_CU(cuMemcpy3D(&c));
}

/* A texture object over array `a`: the same address mode in every
 * dimension, `filter`, CU_TRSF_* `flags`, and `border` (may be NULL). */
static inline CUtexObject gpu_test_array_texture(CUarray a, CUaddress_mode mode,
                                                 CUfilter_mode filter, unsigned flags,
                                                 const float *border)
{
    CUDA_RESOURCE_DESC r;
    CUDA_TEXTURE_DESC t;
    memset(&r, 0, sizeof r);
    memset(&t, 0, sizeof t);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = mode;
    t.filterMode = filter;
    t.flags = flags;
    if (border != NULL)
        memcpy(t.borderColor, border, sizeof t.borderColor);
    CUtexObject o = 0;
    return CHECK_CU(cuTexObjectCreate(&o, &r, &t, NULL)) ? o : 0;
}

/* A surface object over array `a`. */
static inline CUsurfObject gpu_test_array_surface(CUarray a)
{
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    CUsurfObject s = 0;
    return CHECK_CU(cuSurfObjectCreate(&s, &r)) ? s : 0;
}

/* The virtual GPU's account of the last fault, or an empty message on
 * another driver. */
static inline struct kgemu_fault gpu_test_last_fault(void)
{
    int (*fault_of)(struct kgemu_fault *);
    *(void **)&fault_of = dlsym(RTLD_DEFAULT, "kgemu_last_fault");
    struct kgemu_fault fault;
    memset(&fault, 0, sizeof fault);
    if (fault_of != NULL)
        fault_of(&fault);
    return fault;
}

#endif
