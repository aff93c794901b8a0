/*
 * Internal to server/: the HTTP daemon (libmicrohttpd, a thread pool on
 * epoll) that carries the REST API.
 */
#ifndef KGRADE_SERVER_HTTP_DAEMON_H
#define KGRADE_SERVER_HTTP_DAEMON_H

#include "service.h"

struct MHD_Daemon;

/* Listens on the configured address and port. NULL with a sentence. */
struct MHD_Daemon *http_daemon_start(struct service *service, char *error, size_t error_size);
/* Stops accepting; running requests end. */
void http_daemon_quiesce(struct MHD_Daemon *daemon);
void http_daemon_stop(struct MHD_Daemon *daemon);

#endif
