/*
 * Internal to server/: deadlines on each request's headers and body,
 * against slowloris and its slow-body kin. libmicrohttpd's connection
 * timeout is an idle timeout: a client that sends one byte a second is
 * never idle, and would hold its connection (one of the
 * CONNECTIONS_PER_CLIENT) for as long as it likes, whether it trickles its
 * headers or its body. So every connection is registered when it opens,
 * with its socket and the time its request began; the access handler's
 * first call (made once the headers are complete) starts the body's clock;
 * its call with the whole body (or an answer before it, such as a 413)
 * ends the request's deadlines; and a watchdog thread shuts down the
 * socket of any connection whose headers are not complete `headers_s`
 * seconds after its request began, or whose body is not complete `body_s`
 * seconds after its headers were. libmicrohttpd sees the socket end and
 * closes and frees the connection its ordinary way. An answer being sent
 * (an event stream, a large file) is not timed: the idle timeout bounds a
 * client that stops reading it.
 *
 * Why this way: shutdown(2) from another thread is safe where close(2) is
 * not: the descriptor stays the connection's until libmicrohttpd closes
 * it, and libmicrohttpd tells us (MHD_CONNECTION_NOTIFY_CLOSED) before it
 * closes it; the entry leaves the registry under the lock the watchdog
 * holds while it shuts sockets down, so the watchdog never touches a
 * descriptor already given to another connection. No libmicrohttpd state
 * is touched from the watchdog.
 *
 * A kept-alive connection's next request has the same deadlines, its
 * headers' counted from the end of the previous one: an idle kept-alive
 * connection is closed after `headers_s` too (a client opens another).
 */
#ifndef KGRADE_SERVER_REQUEST_DEADLINE_H
#define KGRADE_SERVER_REQUEST_DEADLINE_H

#include <microhttpd.h>
#include <stdbool.h>

struct request_deadlines;

/* The registry and its watchdog thread; NULL when they cannot start. */
struct request_deadlines *request_deadlines_start(int headers_s, int body_s);
/* Stops the watchdog (after the daemon, which closed every connection). */
void request_deadlines_stop(struct request_deadlines *d);

/* The MHD_OPTION_NOTIFY_CONNECTION callback, with the registry as `cls`. */
void request_deadlines_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code);
/* The connection's request headers are complete: its body's time begins. */
void request_deadlines_headers_done(struct MHD_Connection *c);
/* The connection's request is read whole (or answered before its body):
 * no deadline until its next request. */
void request_deadlines_answered(struct MHD_Connection *c);
/* The connection's request ended: the deadline of the next one's headers
 * begins. */
void request_deadlines_next(struct MHD_Connection *c);

#endif
