/*
 * Surface addressing: where suld, sust and sured go in a surface's image.
 *
 * PTX addresses a surface by bytes along x (the coordinate is not scaled
 * by the texel size) and by rows, slices and layers along the rest; an
 * access must be aligned to its own size. A coordinate outside the
 * surface is handled by the instruction's mode: .trap faults, .clamp moves
 * the access to the nearest place inside (x to the last whole access of
 * the row), .zero reads zeros or drops the store. The address returned is
 * always inside [base, base + span).
 */
#include "texture.h"

/* v clamped into [0, n - 1]. */
static int64_t clamp_to(int64_t v, int64_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

enum emu_surface_where emu_surface_address(const struct emu_image *image,
                                           const struct emu_surface_access *access,
                                           enum emu_surface_bounds bounds, uint64_t *address)
{
    int64_t row_bytes = (int64_t)image->width * image->format.bytes;
    int64_t bytes = access->bytes;
    int64_t x = access->x_bytes;
    int64_t y = access->dims >= 2 ? access->y : 0;
    int64_t z = access->dims >= 3 ? access->z : 0;
    uint64_t layer = access->layered ? access->layer : 0;
    if (x % bytes != 0)
        return EMU_SURFACE_MISALIGNED;
    bool inside = x >= 0 && x + bytes <= row_bytes && y >= 0 && y < image->height && z >= 0 &&
                  z < image->depth && layer < image->layers;
    if (!inside && bounds != EMU_SURFACE_CLAMP)
        return EMU_SURFACE_OUTSIDE;
    if (!inside) {
        int64_t last = (row_bytes - bytes) / bytes * bytes; /* the last whole access */
        if (last < 0)
            return EMU_SURFACE_OUTSIDE; /* the access is wider than a row */
        x = x < 0 ? 0 : x > last ? last : x;
        y = clamp_to(y, image->height);
        z = clamp_to(z, image->depth);
        layer = layer < image->layers ? layer : image->layers - 1;
    }
    *address = image->base + layer * image->layer_bytes + (uint64_t)z * image->slice_bytes +
               (uint64_t)y * image->pitch + (uint64_t)x;
    return EMU_SURFACE_INSIDE;
}
