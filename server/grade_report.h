/*
 * Internal to server/: printing a grade JSON for a person (or as JSON) and
 * the exit code of its verdict, shared by `kgrade grade` and `kgrade submit`.
 */
#ifndef KGRADE_SERVER_GRADE_REPORT_H
#define KGRADE_SERVER_GRADE_REPORT_H

#include "source_file.h"

#include <jansson.h>
#include <stdbool.h>

/* Prints `result` on stdout: a few lines naming `file_name` and quoting
 * `source` at the diagnostics' lines, or the JSON itself when `as_json`. */
void grade_report_print(const json_t *result, const char *file_name,
                        const struct source_file *source, bool as_json);

/* 0 for passed, 3 for internal_error or no verdict, 1 for any other. */
int grade_report_exit_code(const char *verdict);

#endif
