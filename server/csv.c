/*
 * CSV fields (csv.h).
 */
#include "csv.h"

#include <string.h>

void csv_field(FILE *out, const char *text, bool last)
{
    if (text && strpbrk(text, ",\"\r\n")) {
        fputc('"', out);
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
