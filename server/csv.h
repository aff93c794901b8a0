/*
 * Internal to server/: CSV as RFC 4180 writes it, read and written. The
 * reader takes a whole text (an uploaded file, a request body) and hands
 * out one record at a time, with the line it starts on, so that errors
 * can name lines. It accepts what spreadsheets save: a UTF-8 byte-order
 * mark at the start, lines ended by CRLF, LF or CR, fields in double
 * quotes (holding commas, line breaks and doubled quotes), and blank
 * lines, which it skips. It refuses, naming the line: a quote inside an
 * unquoted field, text after a closing quote, a quoted field never
 * closed, and a NUL byte. The writer quotes a field only when it must.
 *
 * What kgrade writes as CSV (the grades, the imported accounts'
 * passwords) holds text that users chose, such as display names, and is
 * opened in spreadsheets, which run a cell that starts with = + - @ (or a
 * tab or carriage return) as a formula: "=HYPERLINK(...)" in a name would
 * run on the instructor's machine. So the writer follows OWASP's rule
 * ("CSV Injection"): such a cell is written with a single quote before it,
 * inside double quotes ("'=HYPERLINK(...)"), which spreadsheets show as
 * text. The cost: a value that starts so (a name "-eve", a negative
 * number) reads back with the quote; kgrade writes no negative numbers.
 */
#ifndef KGRADE_SERVER_CSV_H
#define KGRADE_SERVER_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CSV_FIELDS_MAX  16 /* fields kept per record; more are counted, not kept */
#define CSV_PROBLEM_MAX 160

struct csv_reader {
    const char *text;
    size_t size, at;
    int line;     /* the line `at` is on, from 1 */
    char *buffer; /* the current record's fields, NUL-terminated one after another */
    size_t buffer_size, buffer_cap;
};

struct csv_record {
    int line;                          /* the line the record starts on */
    int n_fields;                      /* all of them, even beyond CSV_FIELDS_MAX */
    const char *field[CSV_FIELDS_MAX]; /* valid until the next read */
};

enum csv_read { CSV_RECORD, CSV_END, CSV_BAD };

void csv_reader_init(struct csv_reader *r, const char *text, size_t size);
void csv_reader_free(struct csv_reader *r);
/* The next record that is not a blank line. CSV_BAD with a sentence in
 * `problem` (and the line in record->line) when the text is not CSV; the
 * reader then stops (every later call answers CSV_END). */
enum csv_read csv_read(struct csv_reader *r, struct csv_record *record,
                       char problem[CSV_PROBLEM_MAX]);

/* The first characters that make a spreadsheet read a cell as a formula. */
#define CSV_FORMULA_STARTS "=+-@\t\r"

/* Whether a spreadsheet would read a cell starting so as a formula: its
 * first character after any spaces (an import may trim them) is one of
 * CSV_FORMULA_STARTS. */
bool csv_is_formula(const char *text);

/* Writes one field (NULL as empty), quoted when it holds a comma, a quote
 * or a line break, then a comma, or a line end when it is the `last`; a
 * formula (csv_is_formula) is written '-prefixed and quoted, so that no
 * spreadsheet runs it: it reads back with the quote. */
void csv_field(FILE *out, const char *text, bool last);

#endif
