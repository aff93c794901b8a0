/*
 * The languages a submission may be written in, by name and by file name
 * (grader.h).
 */
#include "grader.h"

#include <string.h>

static const char *const names[] = {
    [GRADER_LANGUAGE_CUDA] = "cuda",
    [GRADER_LANGUAGE_NUMBA] = "numba",
};

const char *grader_language_name(enum grader_language language)
{
    return language == GRADER_LANGUAGE_NUMBA ? names[GRADER_LANGUAGE_NUMBA]
                                             : names[GRADER_LANGUAGE_CUDA];
}

bool grader_language_parse(const char *name, enum grader_language *language)
{
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) {
            *language = (enum grader_language)i;
            return true;
        }
    return false;
}

enum grader_language grader_language_of_file(const char *file_name)
{
    size_t n = file_name ? strlen(file_name) : 0;
    return n > 3 && strcmp(file_name + n - 3, ".py") == 0 ? GRADER_LANGUAGE_NUMBA
                                                          : GRADER_LANGUAGE_CUDA;
}
