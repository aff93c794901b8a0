/*
 * The interpreter's texture and surface instructions: tex, tld4, txq,
 * suld, sust, sured and suq, lane by lane (operands as ptx_texture.c lays
 * them out).
 *
 * Each lane's object is looked up in the context's table (texture_objects.c)
 * before any lane runs (lanes usually share one handle, looked up once); a
 * handle that names no live object of the right kind, or an object whose
 * memory was freed since it was made, stops the launch with
 * CUDA_ERROR_ILLEGAL_ADDRESS and a message naming the thread, the handle
 * and what is wrong, as a bad pointer does. A surface access outside the
 * surface faults the same way under .trap (cudaBoundaryModeTrap), and a
 * misaligned one with CUDA_ERROR_MISALIGNED_ADDRESS.
 *
 * For the timing model a fetch or a surface access is one global request
 * of the lanes' first texels (the first of a filter's footprint), through
 * the L2, as a load or store would be (emulator/README.md says what this
 * leaves out: the texture cache, the arrays' tiled layout).
 */
#include <inttypes.h>
#include <string.h>

#include "exec.h"
#include "texture.h"

_Static_assert((int)PTX_SU_TRAP == (int)EMU_SURFACE_TRAP &&
                   (int)PTX_SU_CLAMP == (int)EMU_SURFACE_CLAMP &&
                   (int)PTX_SU_ZERO == (int)EMU_SURFACE_ZERO,
               "a surface instruction's clamp mode is the texture unit's bounds mode");

static const char *kind_name(bool surface)
{
    return surface ? "surface" : "texture";
}

/* The fault of lane `lane`, whose handle names no object of the kind
 * `surface` says whose memory is still allocated. */
static bool object_fault(struct warp *w, const struct ptx_insn *insn, int lane, uint64_t handle,
                         bool surface, const struct emu_texture_object *t)
{
    const char *kind = kind_name(surface);
    if (t == NULL)
        launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, 0,
                     "used %s object %" PRIu64 ", which is no live %s object of this context "
                     "(never created, or destroyed)",
                     kind, handle, kind);
    else if (t->is_surface != surface)
        launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, 0,
                     "passed %s object %" PRIu64 " to '%s', which takes a %s object",
                     kind_name(t->is_surface), handle, ptx_op_name((enum ptx_op)insn->op), kind);
    else
        launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, t->image.base,
                     "used %s object %" PRIu64 ", whose memory (%" PRIu64
                     " bytes of allocation #%" PRIu64 ") was freed while the object still named it",
                     kind, handle, t->image.span, t->image.allocation);
    return false;
}

/* The object `handle` names when it is of the kind `surface` says and its
 * memory is still the allocation it was made on; NULL otherwise. */
static const struct emu_texture_object *live_object(const struct emu_launch *cfg, uint64_t handle,
                                                    bool surface)
{
    const struct emu_texture_object *t = emu_texture_objects_find(cfg->textures, handle);
    struct emu_range held;
    if (t == NULL || t->is_surface != surface ||
        !emu_memory_find(cfg->memory, t->image.base, t->image.span, &held) ||
        held.serial != t->image.allocation)
        return NULL;
    return t;
}

/* Each lane's object, by the handles of operand `o` (looked up again only
 * where a lane's handle differs from the lane before's); false after
 * recording the first bad lane's fault. */
static bool lane_objects(struct warp *w, const struct frame *f, const struct ptx_insn *insn,
                         uint32_t m, const struct ptx_operand *o, bool surface,
                         const struct emu_texture_object *objects[WARP_SIZE])
{
    const struct emu_launch *cfg = w->block->launch->cfg;
    const struct emu_texture_object *last = NULL;
    uint64_t last_handle = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        uint64_t handle = mem_operand_lane(f, o, l);
        if (last == NULL || handle != last_handle)
            last = live_object(cfg, handle, surface);
        last_handle = handle;
        if (last == NULL)
            return object_fault(w, insn, (int)l, handle, surface,
                                emu_texture_objects_find(cfg->textures, handle));
        objects[l] = last;
    }
    return true;
}

/* Lane l's element i of a vector of registers (0 for "_"). */
static uint64_t element(const struct frame *f, const struct ptx_operand *v, unsigned i, uint32_t l)
{
    return i < v->count && v->vec[i] != PTX_NO_REG ? f->regs[v->vec[i]][l] : 0;
}

/* Sets element i of a register or a vector of registers. */
static void set_element(struct frame *f, const struct ptx_operand *o, unsigned i, uint32_t l,
                        uint64_t value)
{
    if (o->kind == PTX_OPD_REG && i == 0)
        f->regs[o->reg][l] = value;
    else if (o->kind == PTX_OPD_VEC && i < o->count && o->vec[i] != PTX_NO_REG)
        f->regs[o->vec[i]][l] = value;
}

/* Tells the timing model about a request of the lanes of `mask`. */
static void account(struct warp *w, const struct ptx_insn *insn, uint32_t mask,
                    const uint64_t *address, unsigned bytes, enum timing_access kind)
{
    struct timing_launch *t = &w->block->launch->timing;
    if (t->enabled && mask != 0)
        timing_global_request(&w->timing, t, &w->block->log, insn, mask, address, bytes, kind);
}

/* ---------------------------------------------------------------- fetches */

/* Lane l's fetch: the coordinates of o[2] as the geometry places them. */
static void fetch_of(const struct frame *f, const struct ptx_insn *insn, uint32_t l,
                     struct emu_fetch *fetch)
{
    const struct ptx_operand *c = &insn->o[2];
    enum ptx_geom geom = (enum ptx_geom)insn->geom;
    bool layered = geom == PTX_GEOM_A1D || geom == PTX_GEOM_A2D || geom == PTX_GEOM_ACUBE;
    unsigned first = layered ? 1 : 0;
    memset(fetch, 0, sizeof *fetch);
    fetch->layered = layered;
    fetch->cube = geom == PTX_GEOM_CUBE || geom == PTX_GEOM_ACUBE;
    fetch->dims = geom == PTX_GEOM_1D || geom == PTX_GEOM_A1D   ? 1
                  : geom == PTX_GEOM_2D || geom == PTX_GEOM_A2D ? 2
                                                                : 3;
    fetch->integer = insn->type2 == PTX_S32;
    fetch->layer = layered ? (uint32_t)element(f, c, 0, l) : 0;
    for (unsigned d = 0; d < fetch->dims; d++) {
        uint64_t v = element(f, c, first + d, l);
        fetch->coord[d] = slot_f32(v);
        fetch->icoord[d] = (int32_t)v;
    }
}

static bool exec_fetch(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    const struct emu_texture_object *objects[WARP_SIZE];
    if (!lane_objects(w, f, insn, m, &insn->o[1], false, objects))
        return false;
    uint64_t address[WARP_SIZE];
    uint32_t read = 0;
    unsigned bytes = 4;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        struct emu_fetch fetch;
        struct emu_fetch_result r;
        fetch_of(f, insn, l, &fetch);
        if (insn->op == PTX_OP_TLD4)
            emu_texture_gather(objects[l], &fetch, insn->bool_op, &r);
        else
            emu_texture_sample(objects[l], &fetch, &r);
        for (unsigned i = 0; i < 4; i++)
            set_element(f, &insn->o[0], i, l, r.word[i]);
        address[l] = r.first_texel;
        read |= (uint32_t)(r.first_texel != 0) << l;
        bytes = objects[l]->image.format.bytes;
    }
    if (insn->o[5].kind == PTX_OPD_PRED) /* d|p: every texel is resident */
        f->preds[insn->o[5].reg] |= m;
    account(w, insn, read, address, bytes, TIMING_READ);
    return true;
}

/* ---------------------------------------------------------------- queries */

static bool exec_query(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    static const enum emu_texture_query asked[] = {
        [PTX_TXQ_WIDTH] = EMU_QUERY_WIDTH,
        [PTX_TXQ_HEIGHT] = EMU_QUERY_HEIGHT,
        [PTX_TXQ_DEPTH] = EMU_QUERY_DEPTH,
        [PTX_TXQ_CHANNEL_DATA_TYPE] = EMU_QUERY_CHANNEL_DATA_TYPE,
        [PTX_TXQ_CHANNEL_ORDER] = EMU_QUERY_CHANNEL_ORDER,
        [PTX_TXQ_NORMALIZED_COORDS] = EMU_QUERY_NORMALIZED_COORDS,
        [PTX_TXQ_ARRAY_SIZE] = EMU_QUERY_ARRAY_SIZE,
        [PTX_TXQ_NUM_MIPMAP_LEVELS] = EMU_QUERY_MIPMAP_LEVELS,
        [PTX_TXQ_NUM_SAMPLES] = EMU_QUERY_SAMPLES,
        [PTX_TXQ_FORCE_UNNORMALIZED_COORDS] = EMU_QUERY_FORCE_UNNORMALIZED,
        [PTX_TXQ_FILTER_MODE] = EMU_QUERY_FILTER_MODE,
        [PTX_TXQ_ADDR_MODE_0] = EMU_QUERY_ADDRESS_MODE_0,
        [PTX_TXQ_ADDR_MODE_1] = EMU_QUERY_ADDRESS_MODE_1,
        [PTX_TXQ_ADDR_MODE_2] = EMU_QUERY_ADDRESS_MODE_2,
        [PTX_TXQ_MEMORY_LAYOUT] = EMU_QUERY_MEMORY_LAYOUT,
    };
    const struct emu_texture_object *objects[WARP_SIZE];
    if (!lane_objects(w, f, insn, m, &insn->o[1], insn->op == PTX_OP_SUQ, objects))
        return false;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if (m >> l & 1)
            set_element(f, &insn->o[0], 0, l, emu_texture_query(objects[l], asked[insn->bool_op]));
    return true;
}

/* --------------------------------------------------------------- surfaces */

/* Lane l's surface access: the coordinates of `c` as the geometry places them. */
static void access_of(const struct frame *f, const struct ptx_insn *insn,
                      const struct ptx_operand *c, uint32_t l, struct emu_surface_access *a)
{
    enum ptx_geom geom = (enum ptx_geom)insn->geom;
    unsigned first = geom == PTX_GEOM_A1D || geom == PTX_GEOM_A2D ? 1 : 0;
    memset(a, 0, sizeof *a);
    a->layered = first == 1;
    a->dims = geom == PTX_GEOM_1D || geom == PTX_GEOM_A1D ? 1 : geom == PTX_GEOM_3D ? 3 : 2;
    a->layer = a->layered ? (uint32_t)element(f, c, 0, l) : 0;
    a->x_bytes = (int32_t)element(f, c, first, l);
    a->y = a->dims >= 2 ? (int32_t)element(f, c, first + 1, l) : 0;
    a->z = a->dims >= 3 ? (int32_t)element(f, c, first + 2, l) : 0;
    a->bytes = ptx_type_bytes((enum ptx_type)insn->type) * insn->vec;
}

/* The fault of an access the surface does not hold. */
static bool surface_fault(struct warp *w, const struct ptx_insn *insn, uint32_t l,
                          const struct emu_texture_object *t, const struct emu_surface_access *a,
                          enum emu_surface_where where)
{
    const struct emu_image *s = &t->image;
    const char *verb = insn->op == PTX_OP_SULD ? "read" : "wrote";
    if (where == EMU_SURFACE_MISALIGNED)
        launch_fault(w, (int)l, insn, CUDA_ERROR_MISALIGNED_ADDRESS, 0,
                     "%s %u bytes at x = %d bytes of surface object %" PRIu64
                     ", which is not a multiple of %u (x is in bytes, not texels)",
                     verb, a->bytes, a->x_bytes, t->handle, a->bytes);
    else
        launch_fault(w, (int)l, insn, CUDA_ERROR_ILLEGAL_ADDRESS, 0,
                     "%s %u bytes at x = %d bytes, y = %d, z = %d, layer %u of surface object "
                     "%" PRIu64 ", outside its %u x %u x %u texels of %u bytes and %u layer%s "
                     "(boundary mode trap; x is in bytes)",
                     verb, a->bytes, a->x_bytes, a->y, a->z, a->layer, t->handle, s->width,
                     s->height, s->depth, s->format.bytes, s->layers, s->layers == 1 ? "" : "s");
    return false;
}

/* Loads, stores or reduces `n` elements of `size` bytes at `p` for lane l. */
static void surface_transfer(struct frame *f, const struct ptx_insn *insn, uint32_t l, uint8_t *p,
                             unsigned size, unsigned n)
{
    const struct ptx_operand *value = &insn->o[insn->op == PTX_OP_SULD ? 0 : 2];
    for (unsigned i = 0; i < n; i++) {
        uint64_t v =
            value->kind == PTX_OPD_VEC ? element(f, value, i, l) : mem_operand_lane(f, value, l);
        if (insn->op == PTX_OP_SULD) {
            uint64_t loaded = 0;
            if (p != NULL)
                memcpy(&loaded, p + i * size, size);
            set_element(f, value, i, l, loaded);
        } else if (p != NULL && insn->op == PTX_OP_SUST) {
            memcpy(p + i * size, &v, size);
        } else if (p != NULL) {
            mem_atomic_apply(p, insn, v, 0, true);
        }
    }
}

static bool exec_surface(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    bool load = insn->op == PTX_OP_SULD;
    const struct ptx_operand *object = &insn->o[load ? 1 : 0], *coords = &insn->o[load ? 2 : 1];
    enum emu_surface_bounds bounds = (enum emu_surface_bounds)insn->bool_op;
    unsigned size = ptx_type_bytes((enum ptx_type)insn->type);
    const struct emu_texture_object *objects[WARP_SIZE];
    if (!lane_objects(w, f, insn, m, object, true, objects))
        return false;
    uint64_t address[WARP_SIZE];
    uint32_t touched = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        struct emu_surface_access a;
        access_of(f, insn, coords, l, &a);
        enum emu_surface_where where =
            emu_surface_address(&objects[l]->image, &a, bounds, &address[l]);
        if (where == EMU_SURFACE_MISALIGNED ||
            (where == EMU_SURFACE_OUTSIDE && bounds != EMU_SURFACE_ZERO))
            return surface_fault(w, insn, l, objects[l], &a, where);
        bool inside = where == EMU_SURFACE_INSIDE;
        touched |= (uint32_t)inside << l;
        surface_transfer(f, insn, l, inside ? (uint8_t *)(uintptr_t)address[l] : NULL, size,
                         insn->vec);
    }
    enum timing_access kind = load                      ? TIMING_READ
                              : insn->op == PTX_OP_SUST ? TIMING_WRITE
                                                        : TIMING_ATOMIC;
    account(w, insn, touched, address, size * insn->vec, kind);
    return true;
}

bool texture_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_TEX:
    case PTX_OP_TLD4:
        return exec_fetch(w, f, insn, m);
    case PTX_OP_TXQ:
    case PTX_OP_SUQ:
        return exec_query(w, f, insn, m);
    default:
        return exec_surface(w, f, insn, m);
    }
}
