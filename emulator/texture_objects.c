/*
 * The table of a context's texture and surface objects, by handle.
 *
 * A kernel receives an object as a 64-bit integer (CUtexObject,
 * CUsurfObject) and may pass any number; the table is how the texture unit
 * tells a live object from a stale or made-up one. Handles count up from 1
 * and are never reused, so a destroyed object's handle stays unknown
 * instead of naming whatever was created next. Textures and surfaces share
 * the count, so a texture handle given to suld is recognized as the wrong
 * kind.
 *
 * The table is an array sorted by handle (handles are appended in
 * increasing order), searched by bisection: O(log n) lookups, O(n)
 * removals, for programs that make a few objects and fetch millions of
 * times. The driver changes it only while no launch runs, so the host
 * threads of a launch read it without a lock.
 */
#include <stdlib.h>
#include <string.h>

#include "texture.h"

#define TABLE_INITIAL 8 /* slots at first; doubles when full */

struct emu_texture_objects {
    struct emu_texture_object *items; /* sorted by handle */
    size_t count, slots;
    uint64_t next_handle;
};

struct emu_texture_objects *emu_texture_objects_create(void)
{
    struct emu_texture_objects *objects = calloc(1, sizeof *objects);
    if (objects != NULL)
        objects->next_handle = 1;
    return objects;
}

void emu_texture_objects_destroy(struct emu_texture_objects *objects)
{
    if (objects == NULL)
        return;
    free(objects->items);
    free(objects);
}

CUresult emu_texture_objects_add(struct emu_texture_objects *objects,
                                 const struct emu_texture_object *object, uint64_t *handle)
{
    if (objects->count == objects->slots) {
        size_t slots = objects->slots ? objects->slots * 2 : TABLE_INITIAL;
        struct emu_texture_object *items = realloc(objects->items, slots * sizeof *items);
        if (items == NULL)
            return CUDA_ERROR_OUT_OF_MEMORY;
        objects->items = items;
        objects->slots = slots;
    }
    struct emu_texture_object *slot = &objects->items[objects->count++];
    *slot = *object;
    slot->handle = objects->next_handle++;
    *handle = slot->handle;
    return CUDA_SUCCESS;
}

/* The index of the object of `handle`, or count when there is none. */
static size_t position_of(const struct emu_texture_objects *objects, uint64_t handle)
{
    size_t lo = 0, hi = objects->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (objects->items[mid].handle < handle)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < objects->count && objects->items[lo].handle == handle ? lo : objects->count;
}

bool emu_texture_objects_remove(struct emu_texture_objects *objects, uint64_t handle, bool surface)
{
    if (objects == NULL)
        return false;
    size_t at = position_of(objects, handle);
    if (at == objects->count || objects->items[at].is_surface != surface)
        return false;
    memmove(&objects->items[at], &objects->items[at + 1],
            (objects->count - at - 1) * sizeof objects->items[0]);
    objects->count--;
    return true;
}

const struct emu_texture_object *emu_texture_objects_find(const struct emu_texture_objects *objects,
                                                          uint64_t handle)
{
    if (objects == NULL)
        return NULL;
    size_t at = position_of(objects, handle);
    return at < objects->count ? &objects->items[at] : NULL;
}
