/*
 * Stored results cut to a cap (result_compact.h): five steps, from the
 * cheapest loss to the last resort, each measured by the compact text
 * that would be stored. The grade JSON comes from a sandboxed job, so no
 * step trusts its shape: the last two keep named scalars only, which
 * bounds the size whatever it held.
 */
#include "result_compact.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_MAX 600 /* the "compacted" sentence */

/* What the summary keeps (step 4): these members when they are not
 * objects or lists, and the same of three objects, so that its size has a
 * bound whatever the grade JSON held. */
#define N_OF(a) (sizeof(a) / sizeof(a)[0])
static const char *const summary_keys[] = {
    "exercise", "exercise_version", "kgrade_version",   "language", "verdict",
    "message",  "assessment",       "correctness_only", "seed",     "compacted",
};
static const char *const device_keys[] = {"name", "emulated", "toolkit"};
static const char *const correctness_keys[] = {"passed"};
static const char *const performance_keys[] = {"student_ms",  "reference_ms", "ratio",
                                               "max_ratio",   "passed",       "estimated",
                                               "lower_bound", "suspicious"};
static const struct {
    const char *name;
    const char *const *keys;
    size_t n_keys;
} summary_objects[] = {
    {"device", device_keys, N_OF(device_keys)},
    {"correctness", correctness_keys, N_OF(correctness_keys)},
    {"performance", performance_keys, N_OF(performance_keys)},
};
/* What the last resort keeps (step 5). */
static const char *const verdict_keys[] = {"verdict", "message", "compacted"};

/* `text` cut to its first `keep` bytes (at a character's start), with
 * what was cut said at its end; NULL when it is not longer. */
static json_t *cut_text(const char *text, size_t size, size_t keep)
{
    if (size <= keep)
        return NULL;
    while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
        keep--; /* not inside a UTF-8 sequence */
    char note[96];
    int n = snprintf(note, sizeof note, "\n[... %zu more bytes not stored]", size - keep);
    char *joined = malloc(keep + (size_t)n + 1);
    if (!joined)
        return NULL;
    memcpy(joined, text, keep);
    memcpy(joined + keep, note, (size_t)n + 1);
    json_t *cut = json_stringn(joined, keep + (size_t)n);
    free(joined);
    return cut;
}

/* Cuts the string under `key` of `object` to `keep` bytes, if longer. */
static void cut_member(json_t *object, const char *key, size_t keep)
{
    json_t *v = json_object_get(object, key);
    json_t *cut =
        json_is_string(v) ? cut_text(json_string_value(v), json_string_length(v), keep) : NULL;
    if (cut)
        json_object_set_new(object, key, cut);
}

static void cut_logs(json_t *result)
{
    cut_member(json_object_get(result, "compile"), "log", RESULT_TEXT_KEPT);
    cut_member(result, "output", RESULT_TEXT_KEPT);
}

static void cut_list(json_t *list)
{
    while (json_array_size(list) > RESULT_LIST_KEPT)
        json_array_remove(list, json_array_size(list) - 1);
}

static void cut_lists(json_t *result)
{
    cut_list(json_object_get(json_object_get(result, "compile"), "diagnostics"));
    cut_list(json_object_get(result, "diagnostics"));
}

/* Every string under `v` cut to RESULT_STRING_KEPT bytes. */
static void cut_strings(json_t *v)
{
    const char *key;
    json_t *member;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, key, member)
        {
            if (json_is_string(member))
                cut_member(v, key, RESULT_STRING_KEPT);
            else
                cut_strings(member);
        }
    }
    json_array_foreach(v, i, member)
    {
        json_t *cut = json_is_string(member)
                          ? cut_text(json_string_value(member), json_string_length(member),
                                     RESULT_STRING_KEPT)
                          : NULL;
        if (cut)
            json_array_set_new(v, i, cut);
        else
            cut_strings(member);
    }
}

/* A copy of the members of `from` named by `keys` that are neither
 * objects nor lists. */
static json_t *scalars_of(const json_t *from, const char *const *keys, size_t n_keys)
{
    json_t *to = json_object();
    for (size_t k = 0; k < n_keys; k++) {
        json_t *v = json_object_get(from, keys[k]);
        if (v && !json_is_object(v) && !json_is_array(v))
            json_object_set(to, keys[k], v);
    }
    return to;
}

/* `result` replaced by `kept`. */
static void replace(json_t *result, json_t *kept)
{
    json_object_clear(result);
    json_object_update(result, kept);
    json_decref(kept);
}

static void summary_only(json_t *result)
{
    json_t *summary = scalars_of(result, summary_keys, N_OF(summary_keys));
    for (size_t i = 0; i < N_OF(summary_objects); i++) {
        json_t *from = json_object_get(result, summary_objects[i].name);
        if (json_is_object(from))
            json_object_set_new(
                summary, summary_objects[i].name,
                scalars_of(from, summary_objects[i].keys, summary_objects[i].n_keys));
    }
    replace(result, summary);
}

static void verdict_only(json_t *result)
{
    replace(result, scalars_of(result, verdict_keys, N_OF(verdict_keys)));
}

/* The steps, in order, with what each says it keeps: `said`, then `kept`
 * and `unit` when `kept` is not 0. */
static const struct {
    void (*cut)(json_t *result);
    const char *said;
    size_t kept;
    const char *unit;
} steps[] = {
    {cut_logs, "the compile log and the kernel's output keep their first", RESULT_TEXT_KEPT,
     " bytes"},
    {cut_lists, "each list of diagnostics its first", RESULT_LIST_KEPT, ""},
    {cut_strings, "every other text its first", RESULT_STRING_KEPT, " bytes"},
    {summary_only, "then only the summary of the verdict, correctness and time", 0, ""},
    {verdict_only, "then only the verdict and the message", 0, ""},
};

/* "compacted": what the steps up to `last` cut, and why. */
static void say_compacted(json_t *result, size_t last, size_t cap)
{
    char note[NOTE_MAX];
    int n = snprintf(note, sizeof note, "stored cut to %zu bytes at most:", cap);
    for (size_t i = 0; i <= last && n > 0 && (size_t)n < sizeof note; i++) {
        size_t room = sizeof note - (size_t)n;
        n += steps[i].kept ? snprintf(note + n, room, "%s %s %zu%s", i ? ";" : "", steps[i].said,
                                      steps[i].kept, steps[i].unit)
                           : snprintf(note + n, room, "%s %s", i ? ";" : "", steps[i].said);
    }
    json_object_set_new(result, "compacted", json_string(note));
}

char *result_compact_text(const json_t *result, size_t cap)
{
    char *text = json_dumps(result, JSON_COMPACT);
    bool over = text && strlen(text) > cap;
    json_t *cut = over ? json_deep_copy(result) : NULL;
    if (over && !cut) {
        free(text); /* out of memory */
        return NULL;
    }
    for (size_t i = 0; cut && strlen(text) > cap && i < N_OF(steps); i++) {
        steps[i].cut(cut);
        say_compacted(cut, i, cap);
        free(text);
        if (!(text = json_dumps(cut, JSON_COMPACT)))
            break;
    }
    json_decref(cut);
    return text;
}
