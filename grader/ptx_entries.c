/*
 * PTX → the names of its kernels.
 *
 * A kernel is an `.entry` directive: `.visible .entry vec_add(` in NVRTC's
 * output, possibly `.weak` or with the parameter list on the next line. Only
 * the name is read here; the virtual GPU parses PTX in full.
 */
#include "compile_output.h"
#include "text_lines.h"

#include <stdlib.h>
#include <string.h>

#define PTX_ENTRY_DIRECTIVE ".entry"

/* PTX identifiers: [a-zA-Z_$%][a-zA-Z0-9_$%]* (with a leading letter, _ $ or %). */
static bool is_identifier_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '$' || ch == '%';
}

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* The name after ".entry" on `line`, or an empty line when it has none.
 * The directive must stand as a whole word among the line's leading tokens. */
static struct text_line entry_name(struct text_line line)
{
    struct text_line none = {line.start, 0};
    struct text_line rest = line_trim(line);
    while (rest.len > 0 && rest.start[0] == '.') {
        size_t word = 0;
        while (word < rest.len && !is_blank(rest.start[word]))
            word++;
        bool is_entry = word == strlen(PTX_ENTRY_DIRECTIVE) &&
                        memcmp(rest.start, PTX_ENTRY_DIRECTIVE, word) == 0;
        rest = line_trim(line_after(rest, word));
        if (!is_entry)
            continue;
        size_t n = 0;
        while (n < rest.len && is_identifier_char(rest.start[n]))
            n++;
        return (struct text_line){rest.start, n};
    }
    return none;
}

void grader_names_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

int grader_ptx_entries(const char *ptx, size_t len, char ***names, size_t *count)
{
    char **list = NULL;
    size_t n = 0;
    struct line_cursor c = line_cursor_of(ptx, len);
    struct text_line line;
    *names = NULL;
    *count = 0;
    while (line_next(&c, &line)) {
        struct text_line name = entry_name(line);
        if (name.len == 0)
            continue;
        char **grown = realloc(list, (n + 1) * sizeof *grown);
        char *copy = grown ? strndup(name.start, name.len) : NULL;
        if (grown)
            list = grown;
        if (!copy) {
            grader_names_free(list, n);
            return -1;
        }
        list[n++] = copy;
    }
    *names = list;
    *count = n;
    return 0;
}
