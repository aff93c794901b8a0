/*
 * Numbers people can read: ratios and times with three significant
 * figures, so that a histogram 207 times faster than its reference reads
 * "0.00484×, 207× faster than the reference" and not "0.00×" (issue 16).
 * Every sentence, table, CSV field and certificate of kgrade that shows a
 * ratio or a time takes it from here; web/static/format.js does the same
 * for the pages, and tests/unit/number_text_cases.json checks both.
 *
 * The rounding is printf's ("%.2e": the exact binary value, to nearest),
 * so a value is rounded once, before its unit or its wording is chosen.
 */
#include "grader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNIFICANT 3
/* Plain decimal for exponents in [PLAIN_LOW, PLAIN_HIGH); beyond, 4.84e-7. */
#define PLAIN_LOW  (-6)
#define PLAIN_HIGH 15
/* The longest number: "-" and PLAIN_HIGH digits, or "-4.84e-324". */
#define NUMBER_MAX (PLAIN_HIGH + 3)

/* The SIGNIFICANT digits of |x| rounded, and its decimal exponent. */
static int rounded_digits(double x, char digits[SIGNIFICANT + 1])
{
    char sci[32]; /* "d.dde+XX" */
    snprintf(sci, sizeof sci, "%.*e", SIGNIFICANT - 1, fabs(x));
    digits[0] = sci[0];
    memcpy(digits + 1, sci + 2, SIGNIFICANT - 1);
    digits[SIGNIFICANT] = '\0';
    return atoi(strchr(sci, 'e') + 1);
}

/* The digits placed around the decimal point for `exponent` (within
 * [PLAIN_LOW, PLAIN_HIGH), so `out` needs PLAIN_HIGH + 2 bytes at most). */
static void plain_decimal(const char *digits, int exponent, char *out)
{
    if (exponent < 0) { /* 0.00484 */
        *out++ = '0';
        *out++ = '.';
        for (int i = -1; i > exponent; i--)
            *out++ = '0';
    }
    int last = exponent >= SIGNIFICANT - 1 ? exponent : SIGNIFICANT - 1;
    for (int i = 0; i <= last; i++) { /* 207, 12300, 1.00, 12.3 */
        *out++ = i < SIGNIFICANT ? digits[i] : '0';
        if (i == exponent && i < last)
            *out++ = '.';
    }
    *out = '\0';
}

static const char *number(double x, char out[NUMBER_MAX])
{
    if (isnan(x) || isinf(x) || x == 0) {
        snprintf(out, NUMBER_MAX, "%s",
                 isnan(x)   ? "nan"
                 : isinf(x) ? (x < 0 ? "-inf" : "inf")
                            : "0");
        return out;
    }
    char digits[SIGNIFICANT + 1];
    int exponent = rounded_digits(x, digits);
    const char *sign = x < 0 ? "-" : "";
    if (exponent < PLAIN_LOW || exponent >= PLAIN_HIGH) {
        snprintf(out, NUMBER_MAX, "%s%c.%se%+d", sign, digits[0], digits + 1, exponent);
    } else {
        char plain[PLAIN_HIGH + 2];
        plain_decimal(digits, exponent, plain);
        snprintf(out, NUMBER_MAX, "%s%s", sign, plain);
    }
    return out;
}

const char *grader_number_text(double x, char out[GRADER_NUMBER_TEXT_MAX])
{
    char text[NUMBER_MAX];
    snprintf(out, GRADER_NUMBER_TEXT_MAX, "%s", number(x, text));
    return out;
}

const char *grader_ratio_text(double ratio, char out[GRADER_NUMBER_TEXT_MAX])
{
    char text[NUMBER_MAX], speedup[NUMBER_MAX];
    double shown = strtod(number(ratio, text), NULL); /* the wording follows what is printed */
    if (shown > 0 && shown <= GRADER_RATIO_FASTER_AT)
        snprintf(out, GRADER_NUMBER_TEXT_MAX, "%s×, %s× faster than the reference", text,
                 number(1 / ratio, speedup));
    else
        snprintf(out, GRADER_NUMBER_TEXT_MAX, "%s×", text);
    return out;
}

const char *grader_ms_text(double ms, char out[GRADER_NUMBER_TEXT_MAX])
{
    char text[NUMBER_MAX];
    double shown = fabs(strtod(number(ms, text), NULL)); /* the unit follows what is printed */
    if (isfinite(ms) && shown != 0 && shown < 1)
        snprintf(out, GRADER_NUMBER_TEXT_MAX, "%s µs", number(ms * 1e3, text));
    else if (isfinite(ms) && shown >= 1000)
        snprintf(out, GRADER_NUMBER_TEXT_MAX, "%s s", number(ms / 1e3, text));
    else
        snprintf(out, GRADER_NUMBER_TEXT_MAX, "%s ms", text);
    return out;
}

const char *grader_bytes_text(unsigned long long bytes, bool binary,
                              char out[GRADER_NUMBER_TEXT_MAX])
{
    static const char *const units[2][7] = {
        {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"},
        {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"},
    };
    double step = binary ? 1024 : 1000, value = (double)bytes;
    int unit = 0;
    while (value >= step && unit < 6) {
        value /= step;
        unit++;
    }
    snprintf(out, GRADER_NUMBER_TEXT_MAX, "%.3g %s", value, units[binary][unit]);
    return out;
}
