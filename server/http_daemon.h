/*
 * Internal to server/: the HTTP daemon (libmicrohttpd, a thread pool on
 * epoll) that carries the REST API.
 */
#ifndef KGRADE_SERVER_HTTP_DAEMON_H
#define KGRADE_SERVER_HTTP_DAEMON_H

#include "service.h"

struct http_daemon;

/* Listens on the configured address and port. NULL with a sentence. */
struct http_daemon *http_daemon_start(struct service *service, char *error, size_t error_size);
/* Stops accepting; running requests end. */
void http_daemon_quiesce(struct http_daemon *daemon);
/* Stops and frees the daemon. */
void http_daemon_stop(struct http_daemon *daemon);

#endif
