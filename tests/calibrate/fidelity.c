/*
 * make fidelity: the timing model held to a card's measured times.
 *
 * Reads a dataset of times measured on a real GPU (tests/device/CARD-DATE.json: the
 * card, its driver, the date, and per kernel its table, its source, its sizes
 * and its measured ms), models every kernel on the virtual GPU of the same
 * card (KGEMU_DEVICE is set from the dataset), and prints per kernel modeled
 * ms, measured ms and their ratio; per table and over all of them the mean
 * absolute error (|modeled - measured| / measured), the worst factor (the
 * largest of ratio and 1 / ratio) and Spearman's rank correlation; then the
 * speed verdicts: every ordered pair of an exercise's kernels (one as the
 * reference, the other as the student) judged against the exercise's
 * max_ratio from the measured times and from the modeled ones.
 *
 * The dataset's "bars" are a regression bar, never a fit: the figures of the
 * model when they were recorded (--record), with a little slack — per table
 * (mean absolute error, worst factor; held only when the whole table is
 * compared), per kernel (its factor) and the verdict pairs allowed to
 * disagree. --check fails when the model does worse than they say.
 *
 * The calibration tables' kernels (tests/calibrate/kernels/) run here, as
 * make calibrate runs them; the assessment kernels are graded by kgrade with
 * the speed bar lifted (tests/device/fidelity.sh), whose full modeled times
 * come in with --modeled.
 *
 *   fidelity DATASET [--modeled FILE] [--tables LIST] [--leave-out ID]...
 *            [--check] [--record FILE]
 *
 * --modeled FILE: lines "ID MS", the modeled times of kernels run elsewhere;
 * --tables LIST: the tables to compare, comma-separated (default: all);
 * --leave-out ID: a kernel not to compare (make test leaves out the costly);
 * --check: exit 1 when the model does worse than the dataset's bars;
 * --record FILE: today's figures with their slack, as bars, into FILE (JSON).
 *
 * Exits 1 when a kernel cannot run, computes a wrong result, has no modeled
 * time, or (--check) a bar is passed; 2 on a usage error.
 */
#include <dlfcn.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lit_gpu.h"
#include "spearman.h"

#define FID_KERNELS      64 /* kernels a dataset may hold (SPEARMAN_MAX at most) */
#define FID_TABLES       8  /* tables a dataset may hold */
#define FID_NAME         160
#define FID_ASSESSMENT   "assessment"
#define FID_ALL          "all"
#define FID_CALIBRATION  "calibration" /* every table's kernels but the assessment's */
#define FID_EXERCISES    "exercises/"
#define FID_DEVICE_ENV   "KGEMU_DEVICE"
#define FID_WITHIN_TIGHT 1.5 /* the goal: every kernel within 1.5x */
#define FID_WITHIN_LOOSE 2.0
#define FID_LEAVE_OUT    16   /* --leave-out options at most */
#define FID_SLACK_ERROR  0.02 /* a recorded bar: mean absolute error + 2 points, */
#define FID_SLACK_FACTOR 1.05 /* factors × 1.05, */
#define FID_BAR_DIGITS   1000 /* rounded up to 3 decimals, */
#define FID_BAR_ROUNDING 1e-9 /* what the sums' rounding adds not counted */

struct fid_kernel {
    char id[FID_NAME], table[FID_NAME], exercise[FID_NAME], source[FID_NAME];
    long n;             /* the size a calibration table's runner takes */
    double measured_ms; /* on the dataset's card */
    double modeled_ms;  /* on the virtual GPU; 0: none yet */
    bool wanted;        /* compared: its table is asked for, it is not left out */
};

struct fid_dataset {
    json_t *root;
    const char *path;
    char card[FID_NAME], device[FID_NAME];
    struct fid_kernel kernels[FID_KERNELS];
    int n_kernels;
    char tables[FID_TABLES][FID_NAME];
    int n_tables;
};

/* One set's figures: a table's, or all compared kernels'. */
struct fid_figures {
    int n, within_tight, within_loose;
    double mean_abs_error, worst_factor, rho;
};

struct fid_options {
    const char *dataset, *modeled, *tables, *record;
    const char *leave_out[FID_LEAVE_OUT];
    int n_leave_out;
    bool check;
};

static int usage(void)
{
    fprintf(stderr,
            "usage: fidelity DATASET [--modeled FILE] [--tables LIST] [--leave-out ID]... "
            "[--check] [--record FILE]\n"
            "  (tests/device/fidelity.sh runs it with the assessment kernels' modeled times)\n");
    return 2;
}

static bool parse(int argc, char **argv, struct fid_options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        bool has_value = i + 1 < argc;
        if (strcmp(argv[i], "--check") == 0)
            o->check = true;
        else if (strcmp(argv[i], "--modeled") == 0 && has_value)
            o->modeled = argv[++i];
        else if (strcmp(argv[i], "--tables") == 0 && has_value)
            o->tables = argv[++i];
        else if (strcmp(argv[i], "--record") == 0 && has_value)
            o->record = argv[++i];
        else if (strcmp(argv[i], "--leave-out") == 0 && has_value && o->n_leave_out < FID_LEAVE_OUT)
            o->leave_out[o->n_leave_out++] = argv[++i];
        else if (argv[i][0] != '-' && !o->dataset)
            o->dataset = argv[i];
        else
            return false;
    }
    return o->dataset != NULL;
}

/* ---------------------------------------------------------- the dataset */

static bool copy_string(json_t *object, const char *key, char *out, bool required,
                        const char *where)
{
    const char *s = json_string_value(json_object_get(object, key));
    snprintf(out, FID_NAME, "%s", s ? s : "");
    if (s || !required)
        return true;
    fprintf(stderr, "fidelity: %s has no string \"%s\"\n", where, key);
    return false;
}

/* Notes the table of a kernel; false (printed) when there are too many. */
static bool note_table(struct fid_dataset *d, const char *table)
{
    for (int t = 0; t < d->n_tables; t++)
        if (strcmp(d->tables[t], table) == 0)
            return true;
    if (d->n_tables == FID_TABLES) {
        fprintf(stderr, "fidelity: %s has more than %d tables\n", d->path, FID_TABLES);
        return false;
    }
    snprintf(d->tables[d->n_tables++], FID_NAME, "%s", table);
    return true;
}

static bool load_kernel(struct fid_dataset *d, json_t *entry, int i)
{
    struct fid_kernel *k = &d->kernels[i];
    char where[FID_NAME];
    snprintf(where, sizeof where, "%s's kernel %d", d->path, i + 1);
    json_t *ms = json_object_get(entry, "measured_ms");
    if (!copy_string(entry, "id", k->id, true, where) ||
        !copy_string(entry, "table", k->table, true, where) ||
        !copy_string(entry, "source", k->source, true, where) ||
        !copy_string(entry, "exercise", k->exercise, false, where))
        return false;
    k->measured_ms = json_number_value(ms);
    k->n = (long)json_integer_value(json_object_get(json_object_get(entry, "sizes"), "n"));
    if (!json_is_number(ms) || k->measured_ms <= 0) {
        fprintf(stderr, "fidelity: %s (%s) has no positive \"measured_ms\"\n", where, k->id);
        return false;
    }
    return note_table(d, k->table);
}

static bool load_dataset(const char *path, struct fid_dataset *d)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    json_error_t error;
    d->root = json_load_file(path, 0, &error);
    if (!d->root) {
        fprintf(stderr, "fidelity: %s, line %d: %s\n", path, error.line, error.text);
        return false;
    }
    json_t *card = json_object_get(d->root, "card"), *kernels = json_object_get(d->root, "kernels");
    if (!copy_string(card, "name", d->card, true, "the dataset's card") ||
        !copy_string(card, "kgemu_device", d->device, true, "the dataset's card"))
        return false;
    d->n_kernels = (int)json_array_size(kernels);
    if (d->n_kernels < 1 || d->n_kernels > FID_KERNELS) {
        fprintf(stderr, "fidelity: %s holds %d kernels (1 to %d)\n", path, d->n_kernels,
                FID_KERNELS);
        return false;
    }
    for (int i = 0; i < d->n_kernels; i++)
        if (!load_kernel(d, json_array_get(kernels, (size_t)i), i))
            return false;
    return true;
}

static struct fid_kernel *kernel_named(struct fid_dataset *d, const char *id)
{
    for (int i = 0; i < d->n_kernels; i++)
        if (strcmp(d->kernels[i].id, id) == 0)
            return &d->kernels[i];
    return NULL;
}

/* Marks the kernels of the tables in `list` (NULL: all); false on an unknown table. */
static bool select_tables(struct fid_dataset *d, const char *list)
{
    for (int i = 0; i < d->n_kernels; i++)
        d->kernels[i].wanted = list == NULL;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        bool known = false;
        for (int i = 0; i < d->n_kernels; i++)
            if (strlen(d->kernels[i].table) == len && strncmp(d->kernels[i].table, p, len) == 0)
                known = d->kernels[i].wanted = true;
        if (!known) {
            fprintf(stderr, "fidelity: no table '%.*s' in %s\n", (int)len, p, d->path);
            return false;
        }
        p += len + (p[len] == ',');
    }
    return true;
}

/* The kernels compared: those of the tables asked for, less those left out. */
static bool select_kernels(struct fid_dataset *d, const struct fid_options *o)
{
    if (!select_tables(d, o->tables))
        return false;
    for (int i = 0; i < o->n_leave_out; i++) {
        struct fid_kernel *k = kernel_named(d, o->leave_out[i]);
        if (!k) {
            fprintf(stderr, "fidelity: no kernel '%s' in %s\n", o->leave_out[i], d->path);
            return false;
        }
        k->wanted = false;
    }
    return true;
}

/* The modeled times of kernels run elsewhere: lines "ID MS". */
static bool read_modeled(struct fid_dataset *d, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fidelity: cannot read %s\n", path);
        return false;
    }
    char id[FID_NAME];
    double ms;
    bool ok = true;
    while (ok && fscanf(f, "%159s %lf", id, &ms) == 2) {
        struct fid_kernel *k = kernel_named(d, id);
        if (k)
            k->modeled_ms = ms;
        else
            fprintf(stderr, "fidelity: %s names '%s', which %s does not hold\n", path, id, d->path);
        ok = k != NULL;
    }
    fclose(f);
    return ok;
}

/* --------------------------------------------- the calibration kernels */

/* The calibration table's kernel whose file is `source`, and its table. */
static const struct lit_kernel *lit_kernel_of(const char *source, const struct lit_table **table)
{
    size_t dir = strlen(LIT_KERNEL_DIR);
    if (strncmp(source, LIT_KERNEL_DIR, dir) != 0)
        return NULL;
    for (int t = 0; t < LIT_TABLES; t++)
        for (int k = 0; k < lit_tables[t].n_kernels; k++)
            if (strcmp(lit_tables[t].kernels[k].file, source + dir) == 0) {
                *table = &lit_tables[t];
                return &lit_tables[t].kernels[k];
            }
    return NULL;
}

static bool model_calibration_kernel(struct lit_gpu *gpu, struct fid_kernel *k)
{
    const struct lit_table *table = NULL;
    const struct lit_kernel *kernel = lit_kernel_of(k->source, &table);
    if (!kernel || k->n <= 0 || k->n % table->multiple != 0) {
        fprintf(stderr,
                "fidelity: %s: %s is not a kernel of make calibrate's tables at a size \"n\" "
                "they take\n",
                k->id, k->source);
        return false;
    }
    struct lit_outcome out;
    memset(&out, 0, sizeof out);
    if (!table->run(gpu, kernel, k->n, &out))
        return false;
    if (out.mismatches) {
        fprintf(stderr, "fidelity: %s computed %ld wrong elements\n", k->id, out.mismatches);
        return false;
    }
    k->modeled_ms = out.ms;
    return true;
}

/* Runs every wanted kernel that has no modeled time yet (the calibration's). */
static bool model_kernels(struct fid_dataset *d)
{
    bool needed = false;
    for (int i = 0; i < d->n_kernels; i++)
        needed |= d->kernels[i].wanted && d->kernels[i].modeled_ms <= 0;
    if (!needed)
        return true;
    setenv(FID_DEVICE_ENV, d->device, 1);
    struct lit_gpu gpu;
    if (!lit_gpu_start(&gpu))
        return false;
    bool all = true;
    if (!dlsym(RTLD_DEFAULT, "kgemu_is_virtual")) {
        fprintf(stderr,
                "fidelity: the driver is not the virtual GPU (LD_LIBRARY_PATH=build/emulator)\n");
        all = false;
    }
    for (int i = 0; all && i < d->n_kernels; i++) {
        struct fid_kernel *k = &d->kernels[i];
        if (k->wanted && k->modeled_ms <= 0 && strcmp(k->table, FID_ASSESSMENT) == 0) {
            fprintf(stderr,
                    "fidelity: %s has no modeled time (tests/device/fidelity.sh grades it)\n",
                    k->id);
            all = false;
        } else if (k->wanted && k->modeled_ms <= 0) {
            all = model_calibration_kernel(&gpu, k);
        }
    }
    lit_gpu_stop(&gpu);
    return all;
}

/* ---------------------------------------------------------- the bars */

/* The bars recorded with the dataset: its "bars" (see the dataset's "about"). */
static json_t *bars_of(const struct fid_dataset *d, const char *key)
{
    return json_object_get(json_object_get(d->root, "bars"), key);
}

/* A bar from today's figure: the figure with a little slack, rounded up. */
static double bar_from(double figure, double slack_add, double slack_times)
{
    return ceil((figure * slack_times + slack_add) * FID_BAR_DIGITS - FID_BAR_ROUNDING) /
           FID_BAR_DIGITS;
}

/* ---------------------------------------------------------- the figures */

static double ratio_of(const struct fid_kernel *k)
{
    return k->modeled_ms / k->measured_ms;
}

static double factor_of(const struct fid_kernel *k)
{
    double r = ratio_of(k);
    return r >= 1 ? r : 1 / r;
}

/* Whether kernel `k` is of `set`: a table, FID_CALIBRATION or FID_ALL. The
 * assessment kernels and the calibration's are the two halves of a held-out
 * check (a change tuned on one, checked on the other). */
static bool in_set(const struct fid_kernel *k, const char *set)
{
    if (strcmp(set, FID_CALIBRATION) == 0)
        return strcmp(k->table, FID_ASSESSMENT) != 0;
    return strcmp(set, FID_ALL) == 0 || strcmp(set, k->table) == 0;
}

/* Whether every kernel of `set` is compared (its bar holds only then). */
static bool set_complete(const struct fid_dataset *d, const char *set)
{
    for (int i = 0; i < d->n_kernels; i++)
        if (in_set(&d->kernels[i], set) && !d->kernels[i].wanted)
            return false;
    return true;
}

/* The figures of the compared kernels of `set`. */
static struct fid_figures figures_of(const struct fid_dataset *d, const char *set)
{
    struct fid_figures f = {0};
    double measured[FID_KERNELS], modeled[FID_KERNELS], error = 0;
    for (int i = 0; i < d->n_kernels; i++) {
        const struct fid_kernel *k = &d->kernels[i];
        if (!k->wanted || !in_set(k, set))
            continue;
        double factor = factor_of(k);
        measured[f.n] = k->measured_ms;
        modeled[f.n++] = k->modeled_ms;
        error += fabs(ratio_of(k) - 1);
        f.worst_factor = factor > f.worst_factor ? factor : f.worst_factor;
        f.within_tight += factor <= FID_WITHIN_TIGHT;
        f.within_loose += factor <= FID_WITHIN_LOOSE;
    }
    f.mean_abs_error = f.n ? error / f.n : 0;
    f.rho = spearman(measured, modeled, f.n);
    return f;
}

/* Every compared kernel, table by table, with its own bar; false when one is passed. */
static bool print_kernels(const struct fid_dataset *d, json_t *record)
{
    printf("%-50s %11s %10s %8s %8s\n", "kernel", "measured ms", "modeled ms", "mod/meas", "bar");
    json_t *bars = bars_of(d, "kernels"), *recorded = json_object();
    bool within = true;
    for (int t = 0; t < d->n_tables; t++)
        for (int i = 0; i < d->n_kernels; i++) {
            const struct fid_kernel *k = &d->kernels[i];
            if (!k->wanted || strcmp(k->table, d->tables[t]) != 0)
                continue;
            double bar = json_number_value(json_object_get(bars, k->id));
            bool kept = bar <= 0 || factor_of(k) <= bar;
            char text[32] = "-";
            if (bar > 0)
                snprintf(text, sizeof text, "%.3fx%s", bar, kept ? "" : " PASSED");
            printf("%-50s %11.4g %10.4g %8.2f %8s\n", k->id, k->measured_ms, k->modeled_ms,
                   ratio_of(k), text);
            json_object_set_new(recorded, k->id,
                                json_real(bar_from(factor_of(k), 0, FID_SLACK_FACTOR)));
            within &= kept;
        }
    json_object_set_new(record, "kernels", recorded);
    return within;
}

/* One line of the figures of `set`, its bar recorded in `record`; false when a bar is passed. */
static bool print_figures(const struct fid_dataset *d, const char *set, json_t *record)
{
    struct fid_figures f = figures_of(d, set);
    json_t *bar = json_object_get(bars_of(d, "tables"), set);
    double bar_error = json_number_value(json_object_get(bar, "mean_abs_error"));
    double bar_factor = json_number_value(json_object_get(bar, "worst_factor"));
    bool barred = bar_error > 0 && bar_factor > 0 && set_complete(d, set);
    bool within = !barred || (f.mean_abs_error <= bar_error && f.worst_factor <= bar_factor);
    char text[64] = "-";
    if (barred)
        snprintf(text, sizeof text, "%.1f %%, %.3fx%s", bar_error * 100, bar_factor,
                 within ? "" : ": PASSED");
    printf("%-12s %7d %14.1f %% %12.2f %8.3f %5d %5d   %s\n", set, f.n, f.mean_abs_error * 100,
           f.worst_factor, f.rho, f.within_tight, f.within_loose, text);
    json_t *recorded =
        json_pack("{s:f, s:f}", "mean_abs_error", bar_from(f.mean_abs_error, FID_SLACK_ERROR, 1),
                  "worst_factor", bar_from(f.worst_factor, 0, FID_SLACK_FACTOR));
    json_object_set_new(record, set, recorded);
    return within;
}

/* The figures per table, of the calibration's and of all (each bar only over
 * a whole set); false when a bar is passed. */
static bool print_tables(const struct fid_dataset *d, json_t *record)
{
    printf("\n%-12s %7s %16s %12s %8s %5s %5s   %s\n", "set", "kernels", "mean abs error",
           "worst factor", "Spearman", "<1.5x", "<2x", "bar (mean abs error, worst factor)");
    json_t *recorded = json_object();
    bool within = true;
    for (int t = 0; t < d->n_tables; t++) {
        bool wanted = false;
        for (int i = 0; i < d->n_kernels; i++)
            wanted |= d->kernels[i].wanted && strcmp(d->kernels[i].table, d->tables[t]) == 0;
        if (wanted)
            within = print_figures(d, d->tables[t], recorded) && within;
    }
    if (figures_of(d, FID_CALIBRATION).n > 0)
        within = print_figures(d, FID_CALIBRATION, recorded) && within;
    within = print_figures(d, FID_ALL, recorded) && within;
    json_object_set_new(record, "tables", recorded);
    return within;
}

/* ---------------------------------------------------------- the verdicts */

/* The speed bar of an exercise (its exercise.json's speed.max_ratio); 0 when unread. */
static double max_ratio_of(const char *exercise)
{
    char path[2 * FID_NAME];
    snprintf(path, sizeof path, "%s%s/exercise.json", FID_EXERCISES, exercise);
    json_t *root = json_load_file(path, 0, NULL);
    double ratio = json_number_value(json_object_get(json_object_get(root, "speed"), "max_ratio"));
    json_decref(root);
    if (ratio <= 0)
        fprintf(stderr, "fidelity: no speed.max_ratio in %s\n", path);
    return ratio;
}

/* The grader's rule (grade.c): too_slow past the bar. */
static const char *verdict(double ratio, double max_ratio)
{
    return ratio > max_ratio ? "too_slow" : "passed";
}

/* The short name of a kernel: its id after the exercise's "/". */
static const char *short_name(const struct fid_kernel *k)
{
    const char *slash = strchr(k->id, '/');
    return slash ? slash + 1 : k->id;
}

/* Whether the dataset's bars let the pair "REF -> STUDENT" disagree. */
static bool may_disagree(const struct fid_dataset *d, const char *pair)
{
    json_t *list = bars_of(d, "verdicts_disagreeing"), *v;
    size_t i;
    json_array_foreach(list, i, v) if (json_string_value(v) &&
                                       strcmp(json_string_value(v), pair) == 0) return true;
    return false;
}

/* Tallies of the verdicts. */
struct fid_verdicts {
    int pairs, agree;
    bool within;         /* every disagreement is one the bars allow */
    json_t *disagreeing; /* "REF -> STUDENT" of each disagreement */
};

/* One pair: `ref` as the reference, `student` as the student. */
static void print_pair(const struct fid_dataset *d, const struct fid_kernel *ref,
                       const struct fid_kernel *student, double max_ratio, struct fid_verdicts *v)
{
    double measured = student->measured_ms / ref->measured_ms;
    double modeled = student->modeled_ms / ref->modeled_ms;
    const char *card = verdict(measured, max_ratio), *model = verdict(modeled, max_ratio);
    bool agree = strcmp(card, model) == 0;
    char pair[2 * FID_NAME + 8];
    snprintf(pair, sizeof pair, "%s -> %s", ref->id, student->id);
    bool barred = bars_of(d, "verdicts_disagreeing") != NULL, listed = may_disagree(d, pair);
    bool allowed = agree || !barred || listed;
    printf("%-12s %-28s %-28s %5.2f %7.2f %-8s %7.2f %-8s %s\n", ref->exercise, short_name(ref),
           short_name(student), max_ratio, measured, card, modeled, model,
           agree     ? "yes"
           : listed  ? "no (as the bars allow)"
           : !barred ? "NO"
                     : "NO, PASSED the bars");
    v->pairs++;
    v->agree += agree;
    v->within &= allowed;
    if (!agree)
        json_array_append_new(v->disagreeing, json_string(pair));
}

/* Every ordered pair of compared kernels of the exercise of kernel `first`. */
static bool print_exercise_pairs(const struct fid_dataset *d, int first, struct fid_verdicts *v)
{
    const char *exercise = d->kernels[first].exercise;
    double max_ratio = max_ratio_of(exercise);
    if (max_ratio <= 0)
        return false;
    for (int i = first; i < d->n_kernels; i++)
        for (int j = first; j < d->n_kernels; j++) {
            const struct fid_kernel *ref = &d->kernels[i], *student = &d->kernels[j];
            if (i != j && ref->wanted && student->wanted && strcmp(ref->exercise, exercise) == 0 &&
                strcmp(student->exercise, exercise) == 0)
                print_pair(d, ref, student, max_ratio, v);
        }
    return true;
}

/* The speed verdicts of the compared assessment kernels, the disagreements
 * recorded in `record`; false when an exercise's bar cannot be read. */
static bool print_verdicts(const struct fid_dataset *d, struct fid_verdicts *v, json_t *record)
{
    printf("\nSpeed verdicts: each pair of an exercise's kernels, one as the reference, the other "
           "as the student;\nratio = student / reference, too_slow past the exercise's max_ratio, "
           "from the card's times and from the model's\n");
    printf("%-12s %-28s %-28s %5s %7s %-8s %7s %-8s %s\n", "exercise", "reference", "student",
           "bar", "card", "verdict", "model", "verdict", "agree");
    *v = (struct fid_verdicts){.within = true, .disagreeing = json_array()};
    bool ok = true;
    for (int i = 0; i < d->n_kernels; i++) {
        const struct fid_kernel *k = &d->kernels[i];
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= d->kernels[j].wanted && strcmp(d->kernels[j].exercise, k->exercise) == 0;
        if (k->wanted && k->exercise[0] && !seen)
            ok = print_exercise_pairs(d, i, v) && ok;
    }
    printf("%d of %d verdicts agree with the card's\n", v->agree, v->pairs);
    json_object_set_new(record, "verdicts_disagreeing", v->disagreeing);
    return ok;
}

static void print_header(const struct fid_dataset *d)
{
    json_t *card = json_object_get(d->root, "card");
    printf("The virtual GPU (%s=%s) against %s (driver %s, CUDA %s), measured %s; %s\n"
           "full modeled times (the assessment kernels graded with the speed bar lifted)\n\n",
           FID_DEVICE_ENV, d->device, d->card, json_string_value(json_object_get(card, "driver")),
           json_string_value(json_object_get(card, "cuda")),
           json_string_value(json_object_get(d->root, "date")), d->path);
}

/* Writes today's figures, with their slack, as the dataset's bars to `path`. */
static bool write_record(const struct fid_dataset *d, json_t *record, const char *path)
{
    if (!set_complete(d, FID_ALL)) {
        fprintf(stderr, "fidelity: --record needs every kernel of the dataset\n");
        return false;
    }
    if (json_dump_file(record, path, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) == 0)
        return true;
    fprintf(stderr, "fidelity: cannot write %s\n", path);
    return false;
}

/* Compares and prints; false when a bar is passed or a verdict cannot be judged. */
static bool compare(const struct fid_dataset *d, const struct fid_options *o, bool *judged)
{
    json_t *record = json_object();
    print_header(d);
    bool within = print_kernels(d, record);
    within = print_tables(d, record) && within;
    struct fid_verdicts v = {.within = true};
    *judged = print_verdicts(d, &v, record);
    within &= v.within;
    if (o->record)
        *judged = write_record(d, record, o->record) && *judged;
    json_decref(record);
    return within;
}

int main(int argc, char **argv)
{
    struct fid_options o;
    if (!parse(argc, argv, &o))
        return usage();
    struct fid_dataset d;
    bool ok = load_dataset(o.dataset, &d) && select_kernels(&d, &o) &&
              (!o.modeled || read_modeled(&d, o.modeled)) && model_kernels(&d);
    bool judged = false, within = ok && compare(&d, &o, &judged);
    if (ok && o.check && !within)
        printf("\nThe model's error on %s grew past the bars recorded with it: find what made it "
               "worse; for a change of the model meant to trade one kernel for another, record "
               "new bars (tests/device/fidelity.sh BUILD DATASET --record).\n",
               d.path);
    json_decref(d.root);
    return ok && judged && (within || !o.check) ? 0 : 1;
}
