/*
 * NVRTC log → diagnostics.
 *
 * NVRTC writes a message as
 *
 *     kernel.cu(4): error: identifier "x" is undefined
 *       a[i] = x + 1.0f;
 *              ^
 *               detected during instantiation of ...   (optional continuation)
 *
 * where the source line and the caret line are echoed indented by two columns
 * (tabs of the source are kept, so byte offsets carry over). Warnings carry a
 * number ("warning #177-D: ..."), which is dropped from the message. ptxas and
 * NVRTC's own option errors come as "ptxas error   : ..." and "nvrtc: error:
 * ...", with no place. Everything else in the log (ptxas info, remarks, the
 * closing "N errors detected" line) is not a diagnostic.
 *
 * The column is counted in characters of the source line, not bytes, so an
 * editor can place it even after non-ASCII text.
 */
#include "compile_output.h"
#include "text_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines are numbered well below this; a longer digit run is not a line number. */
#define LOG_LINE_NUMBER_MAX 100000000L
/* NVRTC indents the echoed source line and the caret line by this much. */
#define LOG_ECHO_INDENT 2

struct diagnostic_list {
    struct grader_diagnostic *items;
    size_t count;
    size_t capacity;
};

struct severity_word {
    const char *word;
    enum grader_severity severity;
};

static const struct severity_word severity_words[] = {
    {"error", GRADER_SEVERITY_ERROR},       {"catastrophic error", GRADER_SEVERITY_ERROR},
    {"fatal error", GRADER_SEVERITY_ERROR}, {"warning", GRADER_SEVERITY_WARNING},
    {"remark", GRADER_SEVERITY_NOTE},       {"note", GRADER_SEVERITY_NOTE},
};

/* One located message head: "FILE(LINE): SEVERITY[ #CODE]: MESSAGE". */
struct located_head {
    struct text_line file;
    long line;
    enum grader_severity severity;
    struct text_line message;
};

/* Reads "SEVERITY[ #CODE] : MESSAGE" (ptxas pads before the colon): on
 * success stores the severity and the trimmed message. */
static bool parse_severity(struct text_line text, enum grader_severity *severity,
                           struct text_line *message)
{
    const char *colon = memchr(text.start, ':', text.len);
    if (!colon)
        return false;
    struct text_line word = line_trim((struct text_line){text.start, (size_t)(colon - text.start)});
    const char *code = memchr(word.start, '#', word.len); /* "warning #177-D" */
    if (code)
        word = line_trim((struct text_line){word.start, (size_t)(code - word.start)});
    for (size_t w = 0; w < sizeof severity_words / sizeof severity_words[0]; w++) {
        const char *name = severity_words[w].word;
        if (word.len == strlen(name) && memcmp(word.start, name, word.len) == 0) {
            *severity = severity_words[w].severity;
            *message = line_trim(line_after(text, (size_t)(colon - text.start) + 1));
            return true;
        }
    }
    return false;
}

/* Finds "(DIGITS): " in `line` and reads the head around it. */
static bool parse_located_head(struct text_line line, struct located_head *head)
{
    for (size_t open = 0; open < line.len; open++) {
        if (line.start[open] != '(' || open == 0)
            continue;
        size_t i = open + 1;
        long number = 0;
        while (i < line.len && line.start[i] >= '0' && line.start[i] <= '9' &&
               number < LOG_LINE_NUMBER_MAX) {
            number = number * 10 + (line.start[i] - '0');
            i++;
        }
        if (i == open + 1 || number >= LOG_LINE_NUMBER_MAX)
            continue;
        if (i + 2 >= line.len || line.start[i] != ')' || line.start[i + 1] != ':' ||
            line.start[i + 2] != ' ')
            continue;
        if (!parse_severity(line_after(line, i + 3), &head->severity, &head->message))
            continue;
        head->file.start = line.start;
        head->file.len = open;
        head->line = number;
        return true;
    }
    return false;
}

/* A caret line holds only blanks and one '^' at its end. Returns the byte
 * offset of the caret, or -1. */
static long caret_offset(struct text_line line)
{
    struct text_line trimmed = line_trim(line);
    if (trimmed.len != 1 || trimmed.start[0] != '^')
        return -1;
    return (long)(trimmed.start - line.start);
}

/* Characters (UTF-8 code points) in the first `bytes` bytes of `text`; bytes
 * beyond the end of `text` count one each (the caret may stand past the end). */
static int count_characters(struct text_line text, size_t bytes)
{
    int characters = 0;
    for (size_t i = 0; i < bytes; i++) {
        if (i >= text.len || ((unsigned char)text.start[i] & 0xC0) != 0x80)
            characters++;
    }
    return characters;
}

/* Reads the echoed source line and its caret, when `c` is at them, and
 * returns the 1-based column (0 when there is no caret). */
static int read_echo_column(struct line_cursor *c)
{
    struct line_cursor look = *c;
    struct text_line echo, caret;
    if (!line_next(&look, &echo) || !line_next(&look, &caret))
        return 0;
    long offset = caret_offset(caret);
    if (offset < LOG_ECHO_INDENT || !line_starts_with(echo, "  "))
        return 0;
    *c = look;
    return count_characters(line_after(echo, LOG_ECHO_INDENT), (size_t)offset - LOG_ECHO_INDENT) +
           1;
}

/* Appends "\n" + each indented continuation line ("detected during ...") to
 * the message. Stops at a blank line or an unindented one. */
static bool append_continuations(struct line_cursor *c, char **message)
{
    struct line_cursor look = *c;
    struct text_line line;
    while (line_next(&look, &line)) {
        struct text_line body = line_trim(line);
        if (body.len == 0 || (line.start[0] != ' ' && line.start[0] != '\t'))
            break;
        size_t old = strlen(*message);
        char *grown = realloc(*message, old + 1 + body.len + 1);
        if (!grown)
            return false;
        grown[old] = '\n';
        memcpy(grown + old + 1, body.start, body.len);
        grown[old + 1 + body.len] = '\0';
        *message = grown;
        *c = look;
    }
    return true;
}

static bool list_push(struct diagnostic_list *list, struct grader_diagnostic d)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 8;
        struct grader_diagnostic *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown)
            return false;
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = d;
    return true;
}

/* "prefix" + text, as a new string. */
static char *join_text(const char *prefix, struct text_line text)
{
    size_t plen = strlen(prefix);
    char *s = malloc(plen + text.len + 1);
    if (!s)
        return NULL;
    memcpy(s, prefix, plen);
    memcpy(s + plen, text.start, text.len);
    s[plen + text.len] = '\0';
    return s;
}

static bool file_is(struct text_line file, const char *name)
{
    return file.len == strlen(name) && memcmp(file.start, name, file.len) == 0;
}

/* A located message. Messages about another file (a header) keep their place
 * in the text, since the student's line numbers do not apply to them. */
static bool take_located(struct line_cursor *c, const struct located_head *head,
                         const char *file_name, struct diagnostic_list *list)
{
    struct grader_diagnostic d = {0, 0, head->severity, NULL};
    if (file_is(head->file, file_name)) {
        d.line = (int)head->line;
        d.message = join_text("", head->message);
    } else {
        char place[64];
        int plen = (int)(head->file.len < 40 ? head->file.len : 40);
        snprintf(place, sizeof place, "%.*s(%ld): ", plen, head->file.start, head->line);
        d.message = join_text(place, head->message);
    }
    if (!d.message)
        return false;
    int column = read_echo_column(c);
    if (d.line > 0)
        d.column = column;
    if (!append_continuations(c, &d.message) || !list_push(list, d)) {
        free(d.message);
        return false;
    }
    return true;
}

/* "ptxas error   : MSG", "ptxas warning : MSG", "nvrtc: error: MSG": a
 * message with no place, pushed when `line` is one. "ptxas info" and other
 * lines are not diagnostics and leave the list as it is. False only when out
 * of memory. */
static bool take_unlocated(struct text_line line, struct diagnostic_list *list)
{
    static const struct {
        const char *prefix;
        const char *label;
    } tools[] = {{"ptxas ", "ptxas: "}, {"nvrtc: ", "nvrtc: "}};
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        struct grader_diagnostic d = {0, 0, GRADER_SEVERITY_ERROR, NULL};
        struct text_line message;
        if (!line_starts_with(line, tools[t].prefix) ||
            !parse_severity(line_after(line, strlen(tools[t].prefix)), &d.severity, &message))
            continue;
        d.message = join_text(tools[t].label, message);
        if (!d.message || !list_push(list, d)) {
            free(d.message);
            return false;
        }
        return true;
    }
    return true;
}

void grader_diagnostics_free(struct grader_diagnostic *diagnostics, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(diagnostics[i].message);
    free(diagnostics);
}

int grader_parse_log(const char *log, size_t len, const char *file_name,
                     struct grader_diagnostic **diagnostics, size_t *count)
{
    struct diagnostic_list list = {NULL, 0, 0};
    struct line_cursor c = line_cursor_of(log, len);
    struct text_line line;
    while (list.count < GRADER_DIAGNOSTICS_MAX && line_next(&c, &line)) {
        struct located_head head;
        bool ok = parse_located_head(line, &head) ? take_located(&c, &head, file_name, &list)
                                                  : take_unlocated(line, &list);
        if (!ok) {
            grader_diagnostics_free(list.items, list.count);
            *diagnostics = NULL;
            *count = 0;
            return -1;
        }
    }
    *diagnostics = list.items;
    *count = list.count;
    return 0;
}
