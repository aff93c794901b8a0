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

/* The handles the fault cases of texture and surface objects use. */
enum gpu_test_handle {
    GPU_TEST_LIVE,            /* an object over a 4 x 4 float array */
    GPU_TEST_MADE_UP,         /* 999: never created */
    GPU_TEST_DESTROYED,       /* destroyed before the launch */
    GPU_TEST_ARRAY_DESTROYED, /* its array destroyed before the launch */
    GPU_TEST_OTHER_KIND,      /* a surface for a texture, a texture for a surface */
};

/* A handle of a texture object (`surface` 0) or a surface object, as `h`
 * says. */
static inline unsigned long long gpu_test_handle_of(enum gpu_test_handle h, int surface)
{
    if (h == GPU_TEST_MADE_UP)
        return 999;
    int kind = h == GPU_TEST_OTHER_KIND ? !surface : surface;
    CUarray a =
        gpu_test_array(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, kind ? CUDA_ARRAY3D_SURFACE_LDST : 0);
    unsigned long long o = a == NULL ? 0
                           : kind    ? gpu_test_array_surface(a)
                                     : gpu_test_array_texture(a, CU_TR_ADDRESS_MODE_CLAMP,
                                                              CU_TR_FILTER_MODE_POINT, 0, NULL);
    if (h == GPU_TEST_DESTROYED)
        CHECK_CU(kind ? cuSurfObjectDestroy(o) : cuTexObjectDestroy(o));
    if (h == GPU_TEST_ARRAY_DESTROYED)
        CHECK_CU(cuArrayDestroy(a));
    return o;
}

/* A fault case, in a context of its own (a fault is sticky): loads `ptx`,
 * launches `kernel` on one thread with a handle of `h` (of a surface object
 * when `surface`) and the ints x and y, and expects `code` and, on the
 * virtual GPU, a message that has `words`. */
static inline void gpu_test_handle_fault(const char *ptx, const char *kernel,
                                         enum gpu_test_handle h, int surface, int x, int y,
                                         CUresult code, const char *words)
{
    CUcontext ctx;
    CUdevice dev;
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(cuDeviceGet(&dev, 0)) || !CHECK_CU(cuCtxCreate(&ctx, NULL, 0, dev)))
        return;
    if (CHECK_CU(gpu_test_load_ptx(&module, ptx, kernel)) &&
        CHECK_CU(cuModuleGetFunction(&f, module, kernel))) {
        unsigned long long handle = gpu_test_handle_of(h, surface);
        void *args[] = {&handle, &x, &y};
        CHECK_CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        CHECK_CU_IS(cuCtxSynchronize(), code);
        struct kgemu_fault fault = gpu_test_last_fault();
        if (gpu_test_is_virtual() && !CHECK(strstr(fault.message, words) != NULL))
            fprintf(stderr, "  the message was: %s\n", fault.message);
        CHECK(gpu_test_no_host_address(fault.message));
    }
    CHECK_CU(cuCtxDestroy(ctx));
}

#endif
