/*
 * The exchange with the Numba front end (grader/numba_compile.py), which
 * compiles a Numba source to PTX in a sandboxed job of its own: the request
 * it is given (grader_numba_request), and its result turned into the
 * student's side of a grading (numba_student_side).
 *
 * The result comes from a process that ran the student's module-level
 * code, so it is read as hostile: every field checked for type and size,
 * anything else the student's compile_error. A result that lies can only
 * hand the grader some PTX, which is then graded like any other, its
 * kernels' parameters checked against numba's ABI first (kernel_params.h).
 */
#include "numba_front.h"

#include "compile_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every parameter a buffer, the last the only output: what a @guvectorize
 * gufunc computes (numba's kernel for it is launched as the form's). */
bool numba_kernel_gufunc(const struct exercise *e, int k)
{
    const struct exercise_numba *n = &e->kernels[k].numba;
    for (int i = 0; i < n->n_params; i++) {
        int index = exercise_buffer_index(e, n->params[i].name);
        if (index < 0 || e->buffers[index].is_output != (i == n->n_params - 1))
            return false;
    }
    return n->n_params >= 2;
}

bool numba_kernel_reduces(const struct exercise *e, int k)
{
    const struct exercise_numba *n = &e->kernels[k].numba;
    if (n->n_params != 2 || !numba_kernel_gufunc(e, k) || n->params[0].n_dims > 1)
        return false;
    const struct exercise_buffer *in = &e->buffers[exercise_buffer_index(e, n->params[0].name)];
    const struct exercise_buffer *out = &e->buffers[exercise_buffer_index(e, n->params[1].name)];
    return in->type == out->type && strcmp(out->length, "1") == 0;
}

enum kernel_form numba_kernel_form(const struct numba_side *side, int k)
{
    return !side->is_numba   ? KERNEL_FORM_C
           : side->reduce[k] ? KERNEL_FORM_NUMBA_REDUCE
                             : KERNEL_FORM_NUMBA;
}

/* A gufunc's form whose buffers are 1-D of one length, the kernel's
 * launches never swapping buffers: what numba's elementwise kernel of a
 * @vectorize ufunc computes. */
bool numba_kernel_elementwise(const struct exercise *e, int k)
{
    const struct exercise_numba *n = &e->kernels[k].numba;
    if (!numba_kernel_gufunc(e, k))
        return false;
    const char *first = e->buffers[exercise_buffer_index(e, n->params[0].name)].length;
    for (int i = 0; i < n->n_params; i++) {
        const char *length = e->buffers[exercise_buffer_index(e, n->params[i].name)].length;
        if (n->params[i].n_dims != 1 || strcmp(first, length) != 0)
            return false;
    }
    for (int l = 0; l < e->n_launches; l++)
        if (e->launches[l].kernel == k && e->launches[l].swap[0] >= 0)
            return false;
    return true;
}

static json_t *kernel_request(const struct exercise *e, int k)
{
    const struct exercise_numba *n = &e->kernels[k].numba;
    char signature[EXERCISE_TEXT_MAX * 2];
    json_t *params = json_array();
    for (int i = 0; i < n->n_params; i++)
        json_array_append_new(params, json_string(n->params[i].as));
    if (!exercise_numba_signature(e, k, signature, sizeof signature)) {
        json_decref(params);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:o, s:b, s:b, s:b}", "name", n->name, "signature", signature,
                     "params", params, "elementwise", numba_kernel_elementwise(e, k), "gufunc",
                     numba_kernel_gufunc(e, k), "reduce", numba_kernel_reduces(e, k));
}

/* "sm_90" as [9, 0]. */
static bool compute_capability(const char *arch, int cc[2])
{
    int number = 0, used = 0;
    if (!arch || sscanf(arch, "sm_%d%n", &number, &used) != 1 || number < 10 || number > 999)
        return false;
    cc[0] = number / 10;
    cc[1] = number % 10;
    return true;
}

json_t *grader_numba_request(const struct grader_request *request, const json_t *reference,
                             const char *cuda_home, char *error, size_t size)
{
    struct exercise e;
    int cc[2];
    if (!exercise_parse(request->definition, request->definition_size, "exercise.json", &e, error,
                        size))
        return NULL;
    if (!compute_capability(json_string_value(json_object_get(reference, "arch")), cc)) {
        snprintf(error, size, "the reference names no architecture to compile Numba for");
        return NULL;
    }
    json_t *kernels = json_array();
    for (int k = 0; k < e.n_kernels; k++) {
        json_t *kernel = e.kernels[k].has_numba ? kernel_request(&e, k) : NULL;
        if (!kernel) {
            snprintf(error, size, "the exercise '%s' has no Numba form for its kernel '%s'", e.id,
                     e.kernels[k].name);
            json_decref(kernels);
            return NULL;
        }
        json_array_append_new(kernels, kernel);
    }
    /* the host form: the front end says whether the module defines its function */
    json_t *host = e.has_numba_host ? json_pack("{s:s}", "function", e.numba_host.function) : NULL;
    return json_pack("{s:s%, s:s, s:[i, i], s:s, s:o, s:o*}", "source", request->source,
                     request->size, "file_name",
                     request->file_name ? request->file_name : "kernel.py", "cc", cc[0], cc[1],
                     "cuda_home", cuda_home, "kernels", kernels, "numba_host", host);
}

/* ------------------------------------------------- the front end's result */

const char *numba_text_within(const json_t *value, size_t max)
{
    const char *text = json_string_value(value);
    return text && text[0] && json_string_length(value) <= max &&
                   strlen(text) == json_string_length(value)
               ? text
               : NULL;
}

/* A refusal or a compile error: the front end's sentence, at its line. */
static enum grader_verdict failed_compile(struct grader_compile_result *r, const json_t *result,
                                          bool rejected, char *message, size_t size)
{
    const char *said = json_string_value(json_object_get(result, "message"));
    const char *log = json_string_value(json_object_get(result, "log"));
    json_int_t line = json_integer_value(json_object_get(result, "line"));
    json_int_t column = json_integer_value(json_object_get(result, "column"));
    if (!said || !said[0])
        said = rejected ? "the module does not define the kernel the exercise asks for"
                        : "the Numba compile failed";
    r->status = rejected ? GRADER_COMPILE_REJECTED : GRADER_COMPILE_ERROR;
    r->log = strndup(log ? log : said, GRADER_COMPILE_LOG_MAX);
    snprintf(r->message, sizeof r->message, "%.400s", said);
    snprintf(message, size, "%s", r->message);
    if (!rejected && (r->diagnostics = calloc(1, sizeof *r->diagnostics)) != NULL) {
        r->n_diagnostics = 1;
        r->diagnostics[0] = (struct grader_diagnostic){
            .line = line > 0 && line < 1000000 ? (int)line : 0,
            .column = column > 0 && column < 100000 ? (int)column : 0,
            .severity = GRADER_SEVERITY_ERROR,
            .message = strdup(said),
        };
    }
    return rejected ? GRADER_VERDICT_REJECTED : GRADER_VERDICT_COMPILE_ERROR;
}

/* Kernel k's PTX, entry and form, from the front end's "ptx", "entries",
 * "vectorized" and "reduce" objects (a form only where the exercise's
 * fits it). */
static bool kernel_from_result(struct grading *g, int k, const json_t *result)
{
    const char *name = g->exercise.kernels[k].numba.name;
    struct grader_compile_result *r = &g->compiled[1];
    const char *ptx =
        numba_text_within(json_object_get(json_object_get(result, "ptx"), name), NUMBA_PTX_MAX);
    const char *entry = numba_text_within(json_object_get(json_object_get(result, "entries"), name),
                                          NUMBA_ENTRY_MAX);
    g->numba[1].ptx[k] = ptx ? strdup(ptx) : NULL;
    bool vectorized = json_is_true(json_object_get(json_object_get(result, "vectorized"), name));
    bool reduce = json_is_true(json_object_get(json_object_get(result, "reduce"), name));
    g->numba[1].vectorized[k] = vectorized;
    g->numba[1].reduce[k] = reduce;
    return g->numba[1].ptx[k] && entry && compile_result_set_entry(r, (size_t)k, entry, -1) &&
           (!vectorized || numba_kernel_elementwise(&g->exercise, k)) &&
           (!reduce || (!vectorized && numba_kernel_reduces(&g->exercise, k)));
}

/* The static data of every kernel's PTX within GRADER_STATIC_DATA_MAX. */
static bool static_data_fits(const struct grading *g, char *message, size_t size)
{
    uint64_t total = 0;
    for (int k = 0; k < g->exercise.n_kernels; k++) {
        struct ptx_static_data data;
        grader_ptx_static_data(g->numba[1].ptx[k], strlen(g->numba[1].ptx[k]), &data);
        total += data.total_bytes;
    }
    if (total <= GRADER_STATIC_DATA_MAX)
        return true;
    snprintf(message, size,
             "the kernels' constant and global arrays take %llu MB of device memory; at most "
             "%llu MB: keep large data in the exercise's arrays",
             (unsigned long long)(total >> 20), (unsigned long long)(GRADER_STATIC_DATA_MAX >> 20));
    return false;
}

enum grader_verdict numba_student_side(struct grading *g, char *message, size_t size)
{
    struct grader_compile_result *r = &g->compiled[1];
    const json_t *result = g->request->numba;
    const char *status = json_string_value(json_object_get(result, "status"));
    int n = g->exercise.n_kernels;
    g->numba[1].is_numba = true;
    if (status && (strcmp(status, "rejected") == 0 || strcmp(status, "compile_error") == 0))
        return failed_compile(r, result, status[0] == 'r', message, size);
    r->log = strdup("");
    bool ok = status && strcmp(status, "ok") == 0 && r->log &&
              compile_result_allocate_kernels(r, (size_t)n);
    for (int k = 0; ok && k < n; k++)
        ok = g->exercise.kernels[k].has_numba && kernel_from_result(g, k, result);
    if (!ok) { /* written after the module ran: the student's, never kgrade's */
        r->status = GRADER_COMPILE_ERROR;
        snprintf(message, size,
                 "the Numba front end's result is not valid: the module wrote on kgrade's "
                 "channel, or ended the compile");
        snprintf(r->message, sizeof r->message, "%s", message);
        return GRADER_VERDICT_COMPILE_ERROR;
    }
    r->status = GRADER_COMPILE_OK;
    snprintf(r->message, sizeof r->message, "compiled with numba %.40s",
             json_string_value(json_object_get(result, "numba"))
                 ? json_string_value(json_object_get(result, "numba"))
                 : "");
    if (!static_data_fits(g, message, size)) {
        r->status = GRADER_COMPILE_ERROR;
        snprintf(r->message, sizeof r->message, "%s", message);
        return GRADER_VERDICT_COMPILE_ERROR;
    }
    return GRADER_VERDICT_PASSED;
}

json_t *grader_numba_reference(const json_t *numba, const json_t *reference, char *error,
                               size_t error_size)
{
    const char *status = json_string_value(json_object_get(numba, "status"));
    const json_t *ptx = json_object_get(numba, "ptx"), *entries = json_object_get(numba, "entries");
    const json_t *vectorized = json_object_get(numba, "vectorized");
    if (!status || strcmp(status, "ok") != 0) {
        snprintf(error, error_size, "the Numba reference does not compile: %.300s",
                 json_string_value(json_object_get(numba, "message")));
        return NULL;
    }
    json_t *kernels = json_array();
    const char *name;
    const json_t *text;
    json_object_foreach((json_t *)ptx, name, text)
    {
        const char *entry = json_string_value(json_object_get(entries, name));
        json_array_append_new(kernels, json_pack("{s:s, s:s, s:i, s:s*, s:b}", "name", name,
                                                 "entry", entry ? entry : "", "registers", -1,
                                                 "ptx", json_string_value(text), "vectorized",
                                                 json_is_true(json_object_get(vectorized, name))));
    }
    json_t *built = json_pack("{s:O, s:s, s:o}", "arch", json_object_get(reference, "arch"),
                              "language", "numba", "kernels", kernels);
    json_t *alternative = json_object_get(reference, "alternative");
    if (built && alternative)
        json_object_set(built, "alternative", alternative);
    return built;
}

void numba_side_free(struct numba_side *side)
{
    for (int k = 0; k < EXERCISE_KERNELS_MAX; k++)
        free(side->ptx[k]);
    memset(side, 0, sizeof *side);
}
