/*
 * CSV read and written (csv.h): a reader of whole texts, record by record,
 * that knows which line each record starts on, and the writer of one
 * field, which makes a cell a spreadsheet would run as a formula inert.
 */
#include "csv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UTF8_BOM "\xEF\xBB\xBF"

void csv_reader_init(struct csv_reader *r, const char *text, size_t size)
{
    memset(r, 0, sizeof *r);
    r->text = text;
    r->size = size;
    r->line = 1;
    if (size >= 3 && memcmp(text, UTF8_BOM, 3) == 0)
        r->at = 3;
}

void csv_reader_free(struct csv_reader *r)
{
    free(r->buffer);
    r->buffer = NULL;
}

static bool is_line_break(char c)
{
    return c == '\r' || c == '\n';
}

/* Steps over the line end at `at` (CRLF, LF or CR: one line). */
static void skip_line_end(struct csv_reader *r)
{
    if (r->text[r->at] == '\r' && r->at + 1 < r->size && r->text[r->at + 1] == '\n')
        r->at++;
    r->at++;
    r->line++;
}

static bool append(struct csv_reader *r, char c)
{
    if (r->buffer_size == r->buffer_cap) {
        size_t cap = r->buffer_cap ? 2 * r->buffer_cap : 256;
        char *grown = realloc(r->buffer, cap);
        if (!grown)
            return false;
        r->buffer = grown;
        r->buffer_cap = cap;
    }
    r->buffer[r->buffer_size++] = c;
    return true;
}

/* Gives up on the text: every later read is the end. */
static enum csv_read refuse(struct csv_reader *r, char problem[CSV_PROBLEM_MAX], const char *what)
{
    snprintf(problem, CSV_PROBLEM_MAX, "%s", what);
    r->at = r->size;
    return CSV_BAD;
}

/* A field in double quotes, from its opening quote to what follows the
 * closing one; NULL when it is right, else what is wrong. */
static const char *quoted_field(struct csv_reader *r)
{
    r->at++;
    for (;;) {
        if (r->at >= r->size)
            return "a field opened with a double quote is never closed: close it, or double the "
                   "quotes inside it";
        char c = r->text[r->at];
        if (c == '\0')
            return "a NUL byte: this is not a text file";
        if (c == '"' && !(r->at + 1 < r->size && r->text[r->at + 1] == '"')) {
            r->at++;
            break;
        }
        if (c == '"')
            r->at++; /* a doubled quote is one quote */
        if (is_line_break(c) && !(c == '\r' && r->at + 1 < r->size && r->text[r->at + 1] == '\n'))
            r->line++;
        if (!append(r, c))
            return "out of memory";
        r->at++;
    }
    if (r->at < r->size && r->text[r->at] != ',' && !is_line_break(r->text[r->at]))
        return "text after a closing double quote: put the whole field in quotes, and double "
               "the quotes inside it";
    return NULL;
}

/* A field without quotes, up to a comma, a line end or the end. */
static const char *plain_field(struct csv_reader *r)
{
    for (; r->at < r->size && r->text[r->at] != ',' && !is_line_break(r->text[r->at]); r->at++) {
        char c = r->text[r->at];
        if (c == '\0')
            return "a NUL byte: this is not a text file";
        if (c == '"')
            return "a double quote inside a field: put the whole field in double quotes, and "
                   "double the quote";
        if (!append(r, c))
            return "out of memory";
    }
    return NULL;
}

enum csv_read csv_read(struct csv_reader *r, struct csv_record *record,
                       char problem[CSV_PROBLEM_MAX])
{
    size_t offsets[CSV_FIELDS_MAX];
    while (r->at < r->size && is_line_break(r->text[r->at]))
        skip_line_end(r);
    if (r->at >= r->size)
        return CSV_END;
    memset(record, 0, sizeof *record);
    record->line = r->line;
    r->buffer_size = 0;
    for (;;) {
        size_t start = r->buffer_size;
        bool quoted = r->at < r->size && r->text[r->at] == '"';
        const char *wrong = quoted ? quoted_field(r) : plain_field(r);
        if (wrong || !append(r, '\0'))
            return refuse(r, problem, wrong ? wrong : "out of memory");
        if (record->n_fields < CSV_FIELDS_MAX)
            offsets[record->n_fields] = start;
        record->n_fields++;
        if (r->at < r->size && r->text[r->at] == ',') {
            r->at++;
            continue;
        }
        if (r->at < r->size)
            skip_line_end(r);
        break;
    }
    for (int i = 0; i < record->n_fields && i < CSV_FIELDS_MAX; i++)
        record->field[i] = r->buffer + offsets[i];
    return CSV_RECORD;
}

/* OWASP's list of a formula's first characters, tab and carriage return
 * included. */
bool csv_is_formula(const char *text)
{
    text += strspn(text, " ");
    return text[0] && strchr(CSV_FORMULA_STARTS, text[0]);
}

void csv_field(FILE *out, const char *text, bool last)
{
    bool formula = text && csv_is_formula(text);
    if (formula || (text && strpbrk(text, ",\"\r\n"))) {
        fputs(formula ? "\"'" : "\"", out);
        for (const char *p = text; *p; p++) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(text ? text : "", out);
    }
    fputc(last ? '\n' : ',', out);
}
