/*
 * A client of kgrade's REST API over libcurl (api_client.h).
 *
 * One easy handle per client, so consecutive requests reuse the
 * connection. Nothing follows redirects: the token must not travel to
 * another host. Only http and https are spoken.
 */
#include "api_client.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_MAX 512

struct api_client {
    CURL *curl;
    char *base; /* without a trailing slash */
    char authorization[TOKEN_MAX + 32];
};

/* What a transfer collects. */
struct transfer {
    struct api_client *client;
    struct api_reply *reply;
    char *body;
    size_t size;
    bool too_large;
    /* event streams */
    struct sse_parser *sse;
    sse_event_fn fn;
    void *context;
    bool stopped;
};

static bool url_usable(const char *url, char *why, size_t why_size)
{
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
        snprintf(why, why_size,
                 "the server '%.200s' is not an http:// or https:// URL (e.g. "
                 "https://kgrade.example)",
                 url);
        return false;
    }
    for (const char *c = url; *c; c++)
        if (!isgraph((unsigned char)*c)) {
            snprintf(why, why_size, "the server URL holds a space or a control character");
            return false;
        }
    return true;
}

static bool token_usable(const char *token, char *why, size_t why_size)
{
    size_t n = strlen(token);
    bool printable = n > 0 && n <= TOKEN_MAX;
    for (size_t i = 0; printable && i < n; i++)
        printable = isgraph((unsigned char)token[i]);
    if (!printable)
        snprintf(why, why_size,
                 "the token is not usable: it has 1 to %d visible characters and no spaces (make "
                 "one with `kgrade token create` or on the tokens page)",
                 TOKEN_MAX);
    return printable;
}

struct api_client *api_client_new(const char *base_url, const char *token, char *why,
                                  size_t why_size)
{
    if (!url_usable(base_url, why, why_size) || (token && !token_usable(token, why, why_size)))
        return NULL;
    struct api_client *c = calloc(1, sizeof *c);
    if (c)
        c->base = strdup(base_url);
    if (c && c->base)
        c->curl = curl_easy_init();
    if (!c || !c->base || !c->curl) {
        snprintf(why, why_size, "out of memory");
        api_client_free(c);
        return NULL;
    }
    size_t n = strlen(c->base);
    while (n > 0 && c->base[n - 1] == '/')
        c->base[--n] = '\0';
    if (token)
        snprintf(c->authorization, sizeof c->authorization, "Authorization: Bearer %s", token);
    else /* no credential: a header curl leaves out */
        snprintf(c->authorization, sizeof c->authorization, "Authorization:");
    return c;
}

void api_client_free(struct api_client *client)
{
    if (!client)
        return;
    if (client->curl)
        curl_easy_cleanup(client->curl);
    free(client->base);
    free(client);
}

const char *api_client_server(const struct api_client *client)
{
    return client->base;
}

void api_reply_free(struct api_reply *reply)
{
    json_decref(reply->body);
    reply->body = NULL;
}

static size_t collect(struct transfer *t, const char *bytes, size_t n)
{
    if (t->size + n > API_CLIENT_BODY_MAX) {
        t->too_large = true;
        return 0;
    }
    char *grown = realloc(t->body, t->size + n + 1);
    if (!grown)
        return 0;
    memcpy(grown + t->size, bytes, n);
    t->body = grown;
    t->size += n;
    t->body[t->size] = '\0';
    return n;
}

static size_t on_body(char *bytes, size_t one, size_t n, void *arg)
{
    struct transfer *t = arg;
    long status = 0;
    curl_easy_getinfo(t->client->curl, CURLINFO_RESPONSE_CODE, &status);
    if (!t->sse || status != 200)
        return collect(t, bytes, one * n);
    if (!sse_parser_feed(t->sse, bytes, one * n, t->fn, t->context)) {
        t->stopped = true;
        return 0;
    }
    return one * n;
}

static size_t on_header(char *line, size_t one, size_t n, void *arg)
{
    struct transfer *t = arg;
    size_t size = one * n;
    static const char name[] = "retry-after:";
    if (size > sizeof name - 1 && strncasecmp(line, name, sizeof name - 1) == 0) {
        char value[32] = "";
        size_t v = size - (sizeof name - 1);
        memcpy(value, line + sizeof name - 1, v < sizeof value - 1 ? v : sizeof value - 1);
        char *end;
        long seconds = strtol(value, &end, 10);
        if (end != value && seconds >= 0)
            t->reply->retry_after = seconds;
    }
    return size;
}

/* The reply's sentence for an error status: the server's own words when
 * it sent the error JSON of DESIGN.md. */
static void describe_status(struct api_reply *reply)
{
    json_t *error = json_object_get(reply->body, "error");
    const char *message = json_string_value(json_object_get(error, "message"));
    if (message)
        snprintf(reply->message, sizeof reply->message, "%s", message);
    else
        snprintf(reply->message, sizeof reply->message, "the server answered HTTP %ld",
                 reply->status);
}

static void common_options(struct api_client *c, struct transfer *t, struct curl_slist *headers)
{
    CURL *curl = c->curl;
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, (long)API_CLIENT_CONNECT_SECONDS);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "kgrade/" KGRADE_VERSION);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, t);
}

/* Runs the transfer set up on the handle and fills the reply. */
static bool perform(struct transfer *t)
{
    struct api_reply *reply = t->reply;
    char detail[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(t->client->curl, CURLOPT_ERRORBUFFER, detail);
    CURLcode rc = curl_easy_perform(t->client->curl);
    curl_easy_getinfo(t->client->curl, CURLINFO_RESPONSE_CODE, &reply->status);
    if (t->size > 0)
        reply->body = json_loadb(t->body, t->size, 0, NULL);
    free(t->body);
    t->body = NULL;
    if (t->stopped)
        return true;
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t->too_large)) {
        snprintf(reply->message, sizeof reply->message, "%s cannot be reached: %s", t->client->base,
                 detail[0] ? detail : curl_easy_strerror(rc));
        return false;
    }
    if (t->too_large) {
        snprintf(reply->message, sizeof reply->message,
                 "the server's answer is larger than %u MB: is %s a kgrade server?",
                 API_CLIENT_BODY_MAX >> 20, t->client->base);
        return false;
    }
    if (reply->status < 200 || reply->status > 299)
        describe_status(reply);
    return true;
}

static void reply_init(struct api_reply *reply)
{
    memset(reply, 0, sizeof *reply);
    reply->retry_after = -1;
}

static char *url_of(const struct api_client *c, const char *path)
{
    char *url = NULL;
    return asprintf(&url, "%s%s", c->base, path) < 0 ? NULL : url;
}

bool api_client_request(struct api_client *client, const char *method, const char *path,
                        const json_t *body, const char *key, struct api_reply *reply)
{
    reply_init(reply);
    char idempotency[160] = "";
    struct curl_slist *headers = curl_slist_append(NULL, client->authorization);
    headers = curl_slist_append(headers, "Accept: application/json");
    if (body)
        headers = curl_slist_append(headers, "Content-Type: application/json");
    if (key) {
        snprintf(idempotency, sizeof idempotency, "Idempotency-Key: %s", key);
        headers = curl_slist_append(headers, idempotency);
    }
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    char *url = url_of(client, path);
    struct transfer t = {.client = client, .reply = reply};
    bool ok = false;
    if (headers && url && (!body || text)) {
        common_options(client, &t, headers);
        curl_easy_setopt(client->curl, CURLOPT_URL, url);
        curl_easy_setopt(client->curl, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(client->curl, CURLOPT_TIMEOUT, (long)API_CLIENT_REQUEST_SECONDS);
        if (text)
            curl_easy_setopt(client->curl, CURLOPT_POSTFIELDS, text);
        ok = perform(&t);
    } else {
        snprintf(reply->message, sizeof reply->message, "out of memory");
    }
    curl_slist_free_all(headers);
    free(text);
    free(url);
    return ok;
}

bool api_client_events(struct api_client *client, const char *path, sse_event_fn fn, void *context,
                       struct api_reply *reply)
{
    reply_init(reply);
    struct sse_parser sse;
    sse_parser_init(&sse);
    struct curl_slist *headers = curl_slist_append(NULL, client->authorization);
    headers = curl_slist_append(headers, "Accept: text/event-stream");
    char *url = url_of(client, path);
    struct transfer t = {
        .client = client, .reply = reply, .sse = &sse, .fn = fn, .context = context};
    bool ok = false;
    if (headers && url) {
        common_options(client, &t, headers);
        curl_easy_setopt(client->curl, CURLOPT_URL, url);
        curl_easy_setopt(client->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(client->curl, CURLOPT_LOW_SPEED_TIME,
                         (long)API_CLIENT_STREAM_SILENCE_SECONDS);
        ok = perform(&t) && t.stopped;
        if (!ok && !t.stopped && reply->status == 200 && reply->message[0] == '\0')
            snprintf(reply->message, sizeof reply->message, "the event stream ended early");
    } else {
        snprintf(reply->message, sizeof reply->message, "out of memory");
    }
    curl_slist_free_all(headers);
    free(url);
    sse_parser_free(&sse);
    return ok;
}
