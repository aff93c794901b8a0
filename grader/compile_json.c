/*
 * A compile result as the "compile" object of the grade JSON (DESIGN.md).
 *
 * Unknown numbers (a line the compiler did not name, registers ptxas did not
 * report) are JSON null rather than 0 or -1, so that no client mistakes them
 * for values. Texts are repaired to UTF-8 (a log may echo a header's bytes),
 * since jansson refuses anything else.
 */
#include "grader.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

static const char *status_name(enum grader_compile_status status)
{
    switch (status) {
    case GRADER_COMPILE_OK:
        return "ok";
    case GRADER_COMPILE_REJECTED:
        return "rejected";
    case GRADER_COMPILE_ERROR:
        return "compile_error";
    case GRADER_COMPILE_INTERNAL:
        return "internal_error";
    }
    return "internal_error";
}

/* A positive number, or null. */
static json_t *known_or_null(int value)
{
    return value > 0 ? json_integer(value) : json_null();
}

static json_t *diagnostic_to_json(const struct grader_diagnostic *d)
{
    return json_pack("{s:o, s:o, s:s, s:o}", "line", known_or_null(d->line), "column",
                     known_or_null(d->column), "severity", grader_severity_name(d->severity),
                     "message", utf8_json(d->message));
}

static json_t *kernel_to_json(const struct grader_kernel *k)
{
    return json_pack("{s:o, s:o, s:o}", "name", utf8_json(k->name), "signature",
                     utf8_json(k->signature), "registers",
                     k->registers >= 0 ? json_integer(k->registers) : json_null());
}

/* The log, cut at GRADER_COMPILE_LOG_MAX bytes with a note saying so (a
 * template bomb's log runs to megabytes). */
static json_t *log_json(const char *log)
{
    static const char note[] = "\n[kgrade: compile log truncated]\n";
    size_t n = strlen(log);
    if (n <= GRADER_COMPILE_LOG_MAX)
        return utf8_json(log);
    size_t keep = GRADER_COMPILE_LOG_MAX - (sizeof note - 1);
    while (keep > 0 && ((unsigned char)log[keep] & 0xC0) == 0x80)
        keep--; /* not inside a UTF-8 character */
    char *cut = malloc(keep + sizeof note);
    if (!cut)
        return json_string(note);
    memcpy(cut, log, keep);
    memcpy(cut + keep, note, sizeof note);
    json_t *j = utf8_json(cut);
    free(cut);
    return j;
}

json_t *grader_compile_result_to_json(const struct grader_compile_result *result)
{
    json_t *diagnostics = json_array();
    json_t *kernels = json_array();
    size_t shown = result->n_diagnostics < GRADER_DIAGNOSTICS_SHOWN ? result->n_diagnostics
                                                                    : GRADER_DIAGNOSTICS_SHOWN;
    for (size_t i = 0; diagnostics && i < shown; i++)
        json_array_append_new(diagnostics, diagnostic_to_json(&result->diagnostics[i]));
    for (size_t i = 0; kernels && i < result->n_kernels; i++)
        if (result->kernels[i].name)
            json_array_append_new(kernels, kernel_to_json(&result->kernels[i]));
    /* "o" steals the references, including on failure. */
    return json_pack("{s:b, s:s, s:o, s:o, s:o, s:o}", "ok", result->status == GRADER_COMPILE_OK,
                     "status", status_name(result->status), "message", utf8_json(result->message),
                     "log", log_json(result->log ? result->log : ""), "diagnostics", diagnostics,
                     "kernels", kernels);
}
