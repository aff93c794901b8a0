/*
 * UTF-8: validating a sequence, and repairing text that must become JSON.
 *
 * Everything kgrade stores or sends is JSON text, which must be UTF-8. The
 * student's source is checked before compiling; other text (a compiler log
 * echoing a header, a kernel's printf output) is repaired instead, each
 * invalid byte replaced by U+FFFD, so that a result is never lost to a byte.
 */
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UTF8_REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

/* Length of the UTF-8 sequence starting at s[0] (at most `left` bytes
 * available), or 0 when it is not a valid, shortest-form sequence. */
size_t utf8_sequence_length(const unsigned char *s, size_t left)
{
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
        cp = s[0] & 0x1F;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        cp = s[0] & 0x0F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > left)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF)
        return 0; /* overlong encoding or beyond Unicode */
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0; /* UTF-16 surrogates are not characters */
    return len;
}

char *utf8_sanitize(const char *text, size_t len)
{
    /* Each invalid byte grows into 3 bytes at most. */
    char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    const unsigned char *s = (const unsigned char *)text;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = s[i] ? utf8_sequence_length(s + i, len - i) : 0;
        if (n == 0) {
            memcpy(out + o, UTF8_REPLACEMENT, 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(out + o, s + i, n);
        o += n;
        i += n;
    }
    out[o] = '\0';
    return out;
}

int utf8_prefix(const char *text, size_t max)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t at = 0;
    while (at < max && s[at] != '\0') {
        size_t n = utf8_sequence_length(s + at, strnlen(text + at, 4));
        if (n == 0 || at + n > max)
            break;
        at += n;
    }
    return (int)at;
}

json_t *utf8_json(const char *text)
{
    if (!text)
        return json_string("");
    json_t *j = json_string(text);
    if (j)
        return j;
    char *clean = utf8_sanitize(text, strlen(text));
    j = clean ? json_string(clean) : NULL;
    free(clean);
    return j;
}
