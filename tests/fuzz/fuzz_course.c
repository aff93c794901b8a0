/*
 * Fuzz target (libFuzzer): a course file (exercises/courses/<id>.json).
 * Any text must give the course or {id, error} with a sentence; never a
 * crash, a leak or a read past the end. A course accepted must have the
 * shape the pages rely on: sections of exercise ids, and assessments that
 * are among them.
 */
#include "fuzz_input.h"
#include "grader/grader.h"

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
