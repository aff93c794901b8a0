/*
 * The reference as a grading job is handed it (grader_reference_build):
 * {"arch": "sm_90", "ptx": "…", "kernels": [{"entry": "…", "registers": N}]},
 * one entry per kernel of the exercise, in its order; or a Numba reference,
 * {"arch", "language": "numba", "kernels": [{"name", "entry", "registers",
 * "ptx", "vectorized"}]}, a module per kernel. Either carries, when the
 * exercise declares alternatives, "alternative": reference.cu compiled with
 * them in place, as a C reference is written. Written where the
 * reference is compiled, apart from any student's code; read back in the
 * job, which checks it against the exercise and its device before use.
 */
#include "grade.h"
#include "numba_front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_NAME_MAX 4096
#define REGISTERS_MAX  255

/* A side compiled from reference.cu, as JSON. */
static json_t *c_side_to_json(const struct grading *g, int side)
{
    const struct grader_compile_result *r = &g->compiled[side];
    char arch[16];
    grade_arch(g, arch);
    json_t *kernels = json_array();
    for (int k = 0; kernels && k < g->exercise.n_kernels; k++) {
        int registers = -1;
        for (size_t i = 0; i < r->n_kernels; i++)
            if (strcmp(r->kernels[i].name, r->lowered_names[k]) == 0)
                registers = r->kernels[i].registers;
        json_array_append_new(
            kernels, json_pack("{s:s, s:i}", "entry", r->lowered_names[k], "registers", registers));
    }
    return json_pack("{s:s, s:s, s:o}", "arch", arch, "ptx", r->ptx, "kernels", kernels);
}

json_t *reference_to_json(const struct grading *g)
{
    json_t *built = c_side_to_json(g, SIDE_REFERENCE);
    if (built && exercise_has_alternative(&g->exercise) &&
        json_object_set_new(built, "alternative", c_side_to_json(g, SIDE_ALTERNATIVE)) != 0) {
        json_decref(built);
        return NULL;
    }
    return built;
}

static char *copy_of(const char *text)
{
    return text ? strdup(text) : NULL;
}

static bool entry_from_json(struct grader_compile_result *r, size_t k, const json_t *kernel)
{
    const char *entry = json_string_value(json_object_get(kernel, "entry"));
    json_t *registers = json_object_get(kernel, "registers");
    if (!entry || !entry[0] || strlen(entry) > ENTRY_NAME_MAX || !json_is_integer(registers) ||
        json_integer_value(registers) < -1 || json_integer_value(registers) > REGISTERS_MAX)
        return false;
    return compile_result_set_entry(r, k, entry, (int)json_integer_value(registers));
}

/* A Numba reference's kernel k: its own module's PTX, entry and form,
 * found by the Numba form's name. */
static bool numba_kernel_from_json(struct grading *g, size_t k, const json_t *kernels)
{
    const char *name = g->exercise.kernels[k].numba.name;
    size_t i;
    const json_t *kernel;
    json_array_foreach(kernels, i, kernel)
    {
        const char *ptx = json_string_value(json_object_get(kernel, "ptx"));
        const char *own = json_string_value(json_object_get(kernel, "name"));
        if (!own || strcmp(own, name) != 0 || !ptx || !ptx[0] ||
            !entry_from_json(&g->compiled[0], k, kernel))
            continue;
        g->numba[0].ptx[k] = copy_of(ptx);
        g->numba[0].vectorized[k] = json_is_true(json_object_get(kernel, "vectorized")) &&
                                    numba_kernel_elementwise(&g->exercise, (int)k);
        return g->numba[0].ptx[k] != NULL;
    }
    return false;
}

/* A Numba reference (grader_numba_reference): a module per kernel. */
static bool numba_reference_from_json(struct grading *g, const json_t *kernels)
{
    struct grader_compile_result *r = &g->compiled[0];
    bool ok =
        json_is_array(kernels) && compile_result_allocate_kernels(r, (size_t)g->exercise.n_kernels);
    for (size_t k = 0; ok && k < r->n_kernels; k++)
        ok = g->exercise.kernels[k].has_numba && numba_kernel_from_json(g, k, kernels);
    g->numba[0].is_numba = true;
    r->ptx = ok ? copy_of("") : NULL; /* the PTX is the kernels' own */
    return r->ptx != NULL;
}

/* Whether a handed reference (or its alternative) was built for the
 * device's architecture; else why. */
static bool built_for_device(struct grading *g, const json_t *reference, char *error, size_t size)
{
    const char *built_for = json_string_value(json_object_get(reference, "arch"));
    char arch[16];
    grade_arch(g, arch);
    if (built_for && strcmp(built_for, arch) == 0)
        return true;
    snprintf(error, size, "the reference was built for %.16s, and the device is %s",
             built_for ? built_for : "no architecture", arch);
    return false;
}

/* A side compiled from reference.cu: its PTX and one entry per kernel. */
static bool c_side_from_json(struct grading *g, int side, const json_t *reference, char *error,
                             size_t size)
{
    struct grader_compile_result *r = &g->compiled[side];
    const char *ptx = json_string_value(json_object_get(reference, "ptx"));
    json_t *kernels = json_object_get(reference, "kernels");
    if (!built_for_device(g, reference, error, size))
        return false;
    bool ok = ptx && ptx[0] && json_is_array(kernels) &&
              json_array_size(kernels) == (size_t)g->exercise.n_kernels &&
              compile_result_allocate_kernels(r, json_array_size(kernels));
    for (size_t k = 0; ok && k < r->n_kernels; k++)
        ok = entry_from_json(r, k, json_array_get(kernels, k));
    r->ptx = ok ? copy_of(ptx) : NULL;
    if (!r->ptx) {
        grader_compile_result_free(r);
        snprintf(error, size, "the reference handed to the job is not valid");
        return false;
    }
    r->ptx_size = strlen(r->ptx);
    r->status = GRADER_COMPILE_OK;
    return true;
}

/* The reference side, C or Numba. */
static bool reference_side_from_json(struct grading *g, const json_t *reference, char *error,
                                     size_t size)
{
    struct grader_compile_result *r = &g->compiled[SIDE_REFERENCE];
    const char *language = json_string_value(json_object_get(reference, "language"));
    if (!language || strcmp(language, "numba") != 0)
        return c_side_from_json(g, SIDE_REFERENCE, reference, error, size);
    if (!built_for_device(g, reference, error, size))
        return false;
    if (!numba_reference_from_json(g, json_object_get(reference, "kernels"))) {
        grader_compile_result_free(r);
        numba_side_free(&g->numba[SIDE_REFERENCE]);
        snprintf(error, size, "the Numba reference handed to the job is not valid");
        return false;
    }
    r->status = GRADER_COMPILE_OK;
    return true;
}

bool reference_from_json(struct grading *g, const json_t *reference, char *error, size_t size)
{
    if (!reference_side_from_json(g, reference, error, size))
        return false;
    if (!exercise_has_alternative(&g->exercise))
        return true;
    const json_t *alternative = json_object_get(reference, "alternative");
    if (json_is_object(alternative))
        return c_side_from_json(g, SIDE_ALTERNATIVE, alternative, error, size);
    snprintf(error, size, "the reference handed to the job has no alternative");
    return false;
}
