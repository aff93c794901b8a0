/*
 * Internal to server/: writing CSV (RFC 4180), as the grade exports answer
 * it: a field is quoted when it holds a comma, a quote or a line break.
 */
#ifndef KGRADE_SERVER_CSV_H
#define KGRADE_SERVER_CSV_H

#include <stdbool.h>
#include <stdio.h>

/* One field (NULL: empty), then a comma, or the line's end when `last`. */
void csv_field(FILE *out, const char *text, bool last);

#endif
