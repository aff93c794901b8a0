/*
 * The service's configuration file, <data>/config.json, all keys optional:
 * {"queue_max", "queue_max_per_user", "rate_per_minute", "compile_seconds", "run_seconds",
 *  "memory_mb", "client_timeout_seconds", "storage_mb_per_user"}. A key it does not know, or a
 * value out of range, is an error that names them.
 */
#include "service_config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CONFIG_FILE "config.json"

struct key {
    const char *name;
    double low, high;
};

static const struct key keys[] = {
    {"queue_max", 1, 1e9},
    {"queue_max_per_user", 1, 1e9},
    {"rate_per_minute", 1, 1e6},
    {"compile_seconds", 0.01, 600},
    {"run_seconds", 0.01, 3600},
    {"memory_mb", 64, 1 << 20},
    {"client_timeout_seconds", 1, 3600},
    {"storage_mb_per_user", 0.01, 1 << 24},
};
#define N_KEYS ((int)(sizeof keys / sizeof keys[0]))

static void apply(struct service_config *c, const char *name, double v)
{
    if (strcmp(name, "queue_max") == 0)
        c->queue_max = (int64_t)v;
    else if (strcmp(name, "queue_max_per_user") == 0)
        c->queue_max_per_user = (int64_t)v;
    else if (strcmp(name, "rate_per_minute") == 0)
        c->rate_per_minute = (int)v;
    else if (strcmp(name, "compile_seconds") == 0)
        c->limits.compile_seconds = v;
    else if (strcmp(name, "run_seconds") == 0)
        c->limits.run_seconds = v;
    else if (strcmp(name, "client_timeout_seconds") == 0)
        c->client_timeout_seconds = (int)v;
    else if (strcmp(name, "storage_mb_per_user") == 0)
        c->storage_per_user = (int64_t)(v * SERVICE_MB);
    else
        c->limits.memory_bytes = (uint64_t)(v * SERVICE_MB);
}

static bool check_key(const char *path, const char *name, json_t *value, char *error, size_t size,
                      double *v)
{
    for (int k = 0; k < N_KEYS; k++) {
        if (strcmp(name, keys[k].name) != 0)
            continue;
        *v = json_number_value(value);
        if (json_is_number(value) && *v >= keys[k].low && *v <= keys[k].high)
            return true;
        snprintf(error, size, "%s: '%s' must be a number from %g to %g", path, name, keys[k].low,
                 keys[k].high);
        return false;
    }
    int n = snprintf(error, size, "%s: unknown key '%s' (known:", path, name);
    for (int k = 0; k < N_KEYS && n > 0 && (size_t)n < size; k++)
        n += snprintf(error + n, size - (size_t)n, "%s %s", k ? "," : "", keys[k].name);
    if (n > 0 && (size_t)n < size)
        snprintf(error + n, size - (size_t)n, ")");
    return false;
}

bool service_config_load(struct service_config *c, char *error, size_t size)
{
    char path[2200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", c->data, CONFIG_FILE);
    if (stat(path, &st) != 0)
        return true; /* no file: the defaults */
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(root)) {
        snprintf(error, size, "%s: line %d: %s", path, jerr.line,
                 root ? "must be a JSON object" : jerr.text);
        json_decref(root);
        return false;
    }
    const char *name;
    json_t *value;
    bool ok = true;
    json_object_foreach(root, name, value)
    {
        double v = 0;
        if (ok && (ok = check_key(path, name, value, error, size, &v)))
            apply(c, name, v);
    }
    json_decref(root);
    return ok;
}
