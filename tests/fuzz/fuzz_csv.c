/*
 * Fuzz target (libFuzzer): the CSV reader (server/csv.c) that reads the
 * accounts of POST /api/v1/users/import and `kgrade user import`. Any text
 * must read without a crash or undefined behaviour (the copy is exactly
 * the input's size, so a read past its end is caught), lines must never
 * go back, and every record must survive a round trip: written with
 * csv_field and read again, it gives the same fields (a formula's with the
 * quote that makes it inert before it).
 */
#include "fuzz_input.h"
#include "server/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Written with the writer and read back: the same fields. */
static void round_trip(const struct csv_record *record)
{
    if (record->n_fields > CSV_FIELDS_MAX || (record->n_fields == 1 && !record->field[0][0]))
        return; /* fields not kept; a lone empty field writes a blank line, which is skipped */
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return;
    for (int i = 0; i < record->n_fields; i++)
        csv_field(out, record->field[i], i == record->n_fields - 1);
    fclose(out);
    struct csv_reader again;
    struct csv_record copy;
    char problem[CSV_PROBLEM_MAX];
    csv_reader_init(&again, text, size);
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        again.at = 0; /* a first field that starts like a byte-order mark is data here */
    if (csv_read(&again, &copy, problem) != CSV_RECORD || copy.n_fields != record->n_fields)
        abort();
    for (int i = 0; i < record->n_fields; i++) {
        const char *got = copy.field[i];
        if (csv_is_formula(record->field[i]) && *got++ != '\'')
            abort();
        if (strcmp(got, record->field[i]) != 0)
            abort();
    }
    if (csv_read(&again, &copy, problem) != CSV_END)
        abort();
    csv_reader_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_exact_copy(data, size);
    if (!text)
        return 0;
    struct csv_reader reader;
    struct csv_record record;
    char problem[CSV_PROBLEM_MAX];
    enum csv_read got;
    int last_line = 0;
    csv_reader_init(&reader, text, size);
    while ((got = csv_read(&reader, &record, problem)) == CSV_RECORD) {
        if (record.line <= last_line || record.n_fields < 1)
            abort();
        last_line = record.line;
        round_trip(&record);
    }
    if (got == CSV_BAD && (record.line < last_line || !problem[0]))
        abort();
    csv_reader_free(&reader);
    free(text);
    return 0;
}
