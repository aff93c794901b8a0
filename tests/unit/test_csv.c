/*
 * Unit tests of the CSV reader and writer (server/csv.h): fields and
 * records with the line each starts on; quoted fields with commas, doubled
 * quotes and line breaks; CRLF, LF and CR line ends; a byte-order mark;
 * blank lines skipped; what is refused (a stray quote, text after a
 * closing quote, an unclosed quote, a NUL byte) with its line, after
 * which the reader stops; more fields than it keeps, counted; the
 * writer's quoting, read back; and cells a spreadsheet would run as
 * formulas (OWASP's first characters) written inert, quoted with a '.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/csv.h"

#include <stdlib.h>
#include <string.h>

/* Reads every record of `text` into "line:field|field;" form, or
 * "BAD line: problem" at the first refusal. */
static char *records_of(const char *text, size_t size)
{
    static char out[4096];
    struct csv_reader r;
    struct csv_record rec;
    char problem[CSV_PROBLEM_MAX];
    enum csv_read got;
    size_t n = 0;
    out[0] = '\0';
    csv_reader_init(&r, text, size);
    while ((got = csv_read(&r, &rec, problem)) == CSV_RECORD) {
        n += (size_t)snprintf(out + n, sizeof out - n, "%d:", rec.line);
        for (int i = 0; i < rec.n_fields && i < CSV_FIELDS_MAX; i++)
            n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? "|" : "", rec.field[i]);
        n += (size_t)snprintf(out + n, sizeof out - n, ";");
    }
    if (got == CSV_BAD)
        snprintf(out + n, sizeof out - n, "BAD %d: %s", rec.line, problem);
    assert_int_equal(csv_read(&r, &rec, problem), CSV_END); /* stays ended */
    csv_reader_free(&r);
    return out;
}

static const char *read_all(const char *text)
{
    return records_of(text, strlen(text));
}

static void test_plain_records(void **state)
{
    (void)state;
    assert_string_equal(read_all("a,b,c\n1,2,3\n"), "1:a|b|c;2:1|2|3;");
    assert_string_equal(read_all("a,b"), "1:a|b;");           /* no last line end */
    assert_string_equal(read_all("a,,\n"), "1:a||;");         /* empty fields */
    assert_string_equal(read_all(" a , b \n"), "1: a | b ;"); /* spaces kept */
    assert_string_equal(read_all(""), "");
    assert_string_equal(records_of("a,", 2), "1:a|;"); /* the end right after a comma */
}

static void test_line_ends_and_blank_lines(void **state)
{
    (void)state;
    assert_string_equal(read_all("a\r\nb\r\n"), "1:a;2:b;");
    assert_string_equal(read_all("a\rb\r"), "1:a;2:b;");
    assert_string_equal(read_all("a\n\n\r\nb\n\n\n"), "1:a;4:b;");
    assert_string_equal(read_all("\n\nh\n"), "3:h;");
}

static void test_byte_order_mark(void **state)
{
    (void)state;
    assert_string_equal(read_all("\xEF\xBB\xBFname,role\n"), "1:name|role;");
    assert_string_equal(read_all("\xEF\xBB\xBF"), "");
}

static void test_quoted_fields(void **state)
{
    (void)state;
    assert_string_equal(read_all("\"Lee, Ann\",x\n"), "1:Lee, Ann|x;");
    assert_string_equal(read_all("\"say \"\"hi\"\"\"\n"), "1:say \"hi\";");
    assert_string_equal(read_all("\"\",\"\"\n"), "1:|;");
    /* a line break inside quotes: one record, and the next is on line 3 */
    assert_string_equal(read_all("\"two\nlines\",x\nnext\n"), "1:two\nlines|x;3:next;");
    assert_string_equal(read_all("\"two\r\nlines\"\r\nnext\r\n"), "1:two\r\nlines;3:next;");
}

static void test_refusals_name_the_line(void **state)
{
    (void)state;
    assert_non_null(strstr(read_all("a\nb\"c\n"), "1:a;BAD 2: a double quote inside a field"));
    assert_non_null(strstr(read_all("\"ab\"c\nz\n"), "BAD 1: text after a closing double quote"));
    assert_non_null(strstr(read_all("a\n\"open\nstill\n"), "1:a;BAD 2: a field opened with"));
    assert_non_null(strstr(records_of("a\nb\0c\nd\n", 8), "1:a;BAD 2: a NUL byte"));
    assert_non_null(strstr(records_of("\"a\0\"\n", 5), "BAD 1: a NUL byte"));
}

static void test_many_fields_counted(void **state)
{
    (void)state;
    char text[256] = "";
    for (int i = 0; i < CSV_FIELDS_MAX + 4; i++)
        strcat(text, i ? ",f" : "f");
    struct csv_reader r;
    struct csv_record rec;
    char problem[CSV_PROBLEM_MAX];
    csv_reader_init(&r, text, strlen(text));
    assert_int_equal(csv_read(&r, &rec, problem), CSV_RECORD);
    assert_int_equal(rec.n_fields, CSV_FIELDS_MAX + 4);
    assert_string_equal(rec.field[CSV_FIELDS_MAX - 1], "f");
    csv_reader_free(&r);
}

static void test_long_field(void **state)
{
    (void)state;
    size_t n = 100000;
    char *text = malloc(n + 3);
    memset(text, 'x', n);
    memcpy(text + n, ",y", 3);
    struct csv_reader r;
    struct csv_record rec;
    char problem[CSV_PROBLEM_MAX];
    csv_reader_init(&r, text, n + 2);
    assert_int_equal(csv_read(&r, &rec, problem), CSV_RECORD);
    assert_int_equal(strlen(rec.field[0]), n);
    assert_string_equal(rec.field[1], "y");
    csv_reader_free(&r);
    free(text);
}

static void test_writer_reads_back(void **state)
{
    (void)state;
    const char *fields[] = {"plain", "Lee, Ann", "say \"hi\"", "two\nlines", "", NULL};
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    for (int i = 0; fields[i]; i++)
        csv_field(out, fields[i], fields[i + 1] == NULL);
    csv_field(out, NULL, true);
    fclose(out);
    assert_string_equal(text, "plain,\"Lee, Ann\",\"say \"\"hi\"\"\",\"two\nlines\",\n\n");
    assert_string_equal(read_all(text), "1:plain|Lee, Ann|say \"hi\"|two\nlines|;");
    free(text);
}

/* One field as the writer writes it, without its line end. */
static char *written(const char *field)
{
    static char text[256];
    FILE *out = fmemopen(text, sizeof text, "w");
    csv_field(out, field, true);
    fclose(out);
    text[strcspn(text, "\n")] = '\0';
    return text;
}

static void test_formulas_made_inert(void **state)
{
    (void)state;
    assert_string_equal(written("=HYPERLINK(\"http://x\",\"y\")"),
                        "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
    assert_string_equal(written("+1+1"), "\"'+1+1\"");
    assert_string_equal(written("-2+3"), "\"'-2+3\"");
    assert_string_equal(written("@SUM(A1)"), "\"'@SUM(A1)\"");
    assert_string_equal(written("\t=1"), "\"'\t=1\"");
    assert_string_equal(written("\r=1"), "\"'\r=1\"");
    assert_string_equal(written("  =1+1"), "\"'  =1+1\""); /* an import may trim the spaces */
    assert_string_equal(written("=1,2"), "\"'=1,2\"");
    /* a formula character later in the cell is only text */
    assert_string_equal(written("a=1+2"), "a=1+2");
    assert_string_equal(written("sam-2"), "sam-2");
    assert_string_equal(read_all("\"'=1+1\",x\n"), "1:'=1+1|x;"); /* reads back with its quote */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_records),
        cmocka_unit_test(test_line_ends_and_blank_lines),
        cmocka_unit_test(test_byte_order_mark),
        cmocka_unit_test(test_quoted_fields),
        cmocka_unit_test(test_refusals_name_the_line),
        cmocka_unit_test(test_many_fields_counted),
        cmocka_unit_test(test_long_field),
        cmocka_unit_test(test_writer_reads_back),
        cmocka_unit_test(test_formulas_made_inert),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
