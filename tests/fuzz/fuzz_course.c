/*
 * Fuzz target (libFuzzer): a course file (exercises/courses/<id>.json).
 * Any text must give the course or {id, error} with a sentence; never a
 * crash, a leak or a read past the end. A course accepted must have the
 * shape the pages rely on: sections of exercise ids, and assessments that
 * are among them, and dates that are null or ISO 8601 UTC text.
 */
#include "fuzz_input.h"
#include "grader/grader.h"
#include "grader/iso8601.h"

#include <stdlib.h>
#include <string.h>

static void check_shape(const json_t *c)
{
    size_t i;
    json_t *s;
    if (!json_is_string(json_object_get(c, "title")))
        abort();
    json_array_foreach(json_object_get(c, "sections"), i, s)
    {
        if (!json_is_array(json_object_get(s, "exercises")))
            abort();
    }
    if (json_array_size(json_object_get(c, "assessments")) == 0)
        abort();
    const char *keys[] = {"opens", "deadline"};
    for (int k = 0; k < 2; k++) {
        json_t *date = json_object_get(c, keys[k]);
        int64_t ms;
        char why[200];
        if (!json_is_null(date) &&
            !(json_is_string(date) && iso8601_parse(json_string_value(date), &ms, why, sizeof why)))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    json_t *c = grader_course_parse(text, size, "fuzz");
    if (!json_is_object(c) || strcmp(json_string_value(json_object_get(c, "id")), "fuzz") != 0)
        abort();
    json_t *error = json_object_get(c, "error");
    if (error) {
        if (!json_is_string(error) || json_string_length(error) == 0)
            abort();
    } else {
        check_shape(c);
    }
    json_decref(c);
    free(text);
    return 0;
}
