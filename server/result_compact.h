/*
 * Internal to server/: what the database keeps of a grade JSON. A result
 * is kept for ever (a regrade adds one more), so a student who submits
 * 64 KB of source with a thousand warnings at the rate limit must not
 * store 80 KB each time. result_compact_text cuts a copy of a result until
 * its compact text fits a cap (SERVICE_RESULT_STORED_MAX), in steps, each
 * taken only while the result is still over:
 *   1. the compile log and the kernel's printed output keep their first
 *      RESULT_TEXT_KEPT bytes;
 *   2. each list of diagnostics (the compiler's, the virtual GPU's) keeps
 *      its first RESULT_LIST_KEPT;
 *   3. every other text keeps its first RESULT_STRING_KEPT bytes;
 *   4. only the summary stays: the verdict and message, what was graded
 *      (exercise, version, language, seed, device), whether it was
 *      correct, and the performance without its counters;
 *   5. the last resort, should a result hold more than a grade JSON can:
 *      only the verdict and the message.
 * What a student and the gradebook read stays: the verdict, the message,
 * the first diagnostics, correctness and time. A cut text ends with a
 * note of how much was cut, and a compacted result carries "compacted":
 * a sentence saying what was cut and why. A result under the cap is
 * stored as it is.
 */
#ifndef KGRADE_SERVER_RESULT_COMPACT_H
#define KGRADE_SERVER_RESULT_COMPACT_H

#include <jansson.h>
#include <stddef.h>

#define RESULT_TEXT_KEPT   (4 * 1024) /* bytes of the compile log, of the output */
#define RESULT_LIST_KEPT   20         /* diagnostics of each list */
#define RESULT_STRING_KEPT 256        /* bytes of any other text */
/* Step 5's verdict and message, each cut to RESULT_STRING_KEPT bytes
 * that JSON may write six times as long (\u0001), with the note. */
#define RESULT_CAP_MIN (4 * 1024)

/* The compact JSON text of `result` (malloc'ed; NULL when out of memory),
 * of a copy cut as above to at most `cap` bytes (RESULT_CAP_MIN or more is
 * always reached); `result` itself is left whole. */
char *result_compact_text(const json_t *result, size_t cap);

#endif
