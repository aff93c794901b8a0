/*
 * The web pages' files. Every page path answers the one HTML shell
 * (web/index.html), whose scripts draw the page from the REST API;
 * /static/NAME answers a file of web/static/, or of the editor bundle the
 * Makefile builds into build/web/ (missing until built: the pages then
 * use a plain text area). Types come from the extension; every file gets
 * an ETag from its size and modification time and `Cache-Control:
 * no-cache`, so a browser keeps it and revalidates it (304) on each use,
 * and a new deployment shows at once. /clients/kgrade_client.zip answers
 * the Python client the Makefile zips into build/web/ the same way, as a
 * download (README, "Notebooks and Python").
 */
#include "api.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATIC_FILE_MAX    (8u << 20) /* larger files are not served */
#define PYTHON_CLIENT_FILE "kgrade_client.zip"

static const struct {
    const char *extension, *type;
} types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".map", "application/json"},
    {".txt", "text/plain; charset=utf-8"},
    {".zip", "application/zip"},
};

/* The type of a file name's extension; NULL for one not served. */
static const char *type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].extension) == 0)
            return types[i].type;
    return NULL;
}

static char *read_all(int fd, size_t size)
{
    char *data = malloc(size + 1);
    size_t got = 0;
    while (data && got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n <= 0) {
            free(data);
            return NULL;
        }
        got += (size_t)n;
    }
    return data;
}

/* Serves `path`; false (nothing answered) when it is not a regular file. */
static bool serve_file(struct http_request *req, struct http_response *res, const char *path)
{
    const char *type = type_of(path);
    int fd = type ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > STATIC_FILE_MAX) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    char etag[64];
    snprintf(etag, sizeof etag, "\"%" PRIx64 "-%" PRIx64 "\"", (uint64_t)st.st_size,
             (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec);
    const char *known = http_header_of(req, "If-None-Match");
    char *body = known && strcmp(known, etag) == 0 ? strdup("") : read_all(fd, (size_t)st.st_size);
    close(fd);
    if (!body) {
        http_error(res, 500, "internal", "the file could not be read");
        return true;
    }
    bool unchanged = known && strcmp(known, etag) == 0;
    http_text(res, unchanged ? 304 : 200, type, body, unchanged ? 0 : (size_t)st.st_size);
    http_header(res, "ETag", etag);
    res->cache_control = "no-cache";
    return true;
}

void web_page(struct http_request *req, struct http_response *res)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/index.html", req->service->config.web);
    if (!serve_file(req, res, path))
        http_error(res, 404, "no_pages", "the web pages are not installed (no %s)", path);
}

void web_static(struct http_request *req, struct http_response *res)
{
    char path[2200];
    const char *name = req->path_name;
    bool found = false;
    if (name[0] != '.') { /* no "..", no hidden files */
        snprintf(path, sizeof path, "%s/static/%s", req->service->config.web, name);
        found = serve_file(req, res, path);
        snprintf(path, sizeof path, "%s/%s", req->service->config.web_bundle, name);
        found = found || serve_file(req, res, path);
    }
    if (!found)
        http_error(res, 404, "not_found", "no file '%s'", name);
}

void web_python_client(struct http_request *req, struct http_response *res)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/%s", req->service->config.web_bundle, PYTHON_CLIENT_FILE);
    if (serve_file(req, res, path))
        http_header(res, "Content-Disposition", "attachment; filename=\"" PYTHON_CLIENT_FILE "\"");
    else
        http_error(res, 404, "not_built",
                   "the Python client is not built on this server (make builds %s)", path);
}
