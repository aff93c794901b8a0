/*
 * Internal to server/: a deadline on each request's headers, against
 * slowloris. libmicrohttpd's connection timeout is an idle timeout: a
 * client that sends one header byte a second is never idle, and would hold
 * its connection (one of the CONNECTIONS_PER_CLIENT) for as long as it
 * likes. So every connection is registered when it opens, with its socket
 * and the time its request began; the access handler's first call (made
 * once the headers are complete) marks the deadline met; and a watchdog
 * thread shuts down the socket of any connection whose headers are not
 * complete `seconds` after its request began. libmicrohttpd sees the socket
 * end and closes and frees the connection its ordinary way.
 *
 * Why this way: shutdown(2) from another thread is safe where close(2) is
 * not: the descriptor stays the connection's until libmicrohttpd closes
 * it, and libmicrohttpd tells us (MHD_CONNECTION_NOTIFY_CLOSED) before it
 * closes it; the entry leaves the registry under the lock the watchdog
 * holds while it shuts sockets down, so the watchdog never touches a
 * descriptor already given to another connection. No libmicrohttpd state
 * is touched from the watchdog.
 *
 * A kept-alive connection's next request has the same deadline, counted
 * from the end of the previous one: an idle kept-alive connection is
 * closed after `seconds` too (a client opens another). Bodies are not
 * timed here: their size limit and the idle timeout bound them.
 */
#ifndef KGRADE_SERVER_HEADER_DEADLINE_H
#define KGRADE_SERVER_HEADER_DEADLINE_H

#include <microhttpd.h>
#include <stdbool.h>

struct header_deadlines;

/* The registry and its watchdog thread; NULL when they cannot start. */
struct header_deadlines *header_deadlines_start(int seconds);
/* Stops the watchdog (after the daemon, which closed every connection). */
void header_deadlines_stop(struct header_deadlines *d);

/* The MHD_OPTION_NOTIFY_CONNECTION callback, with the registry as `cls`. */
void header_deadlines_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                             enum MHD_ConnectionNotificationCode code);
/* The connection's request headers are complete. */
void header_deadlines_met(struct MHD_Connection *c);
/* The connection's request ended: the deadline of the next begins. */
void header_deadlines_next(struct MHD_Connection *c);

#endif
