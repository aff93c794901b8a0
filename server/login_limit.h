/*
 * Internal to server/: how many logins are let through.
 *
 * Wrong passwords are counted per account and per client address apart,
 * in windows of LOGIN_WINDOW_S: an account gets
 * LOGIN_FAILURES_PER_ACCOUNT, enough for typos, too few to guess a
 * password; an address (an IPv6 /64, client_address.h) gets
 * LOGIN_FAILURES_PER_ADDRESS, so a class of 30 behind one NAT, typos
 * included, still logs in, while one machine cannot try passwords on
 * account after account. A name with no account is counted like any
 * other, so the limit tells nothing of which accounts exist. The address
 * and the account are counted at once or not at all (rate_allow_all): an
 * attempt refused adds no key, so one address adds at most
 * LOGIN_FAILURES_PER_ADDRESS names to the anonymous limiter a window, and
 * every key added costs its adder an Argon2 check (a password over
 * PASSWORD_MAX_LENGTH is refused before it is counted: it would cost
 * none). Many addresses can still fill the limiter; a full one pushes
 * out its oldest key with failures left, never a spent one (rate_limit.h):
 * a right password from a new address always gets its keys and logs in,
 * an account or address whose failures are spent stays limited, and one
 * with failures left is pushed out only after RATE_KEYS_MAX newer keys,
 * at least half as many Argon2 checks (PASSWORD_HASHINGS_MAX at once, 78
 * ms each on 2 cores: some 20 minutes, longer than the window it buys).
 *
 * A browser where the account logged in before (known_browser.h) has a
 * budget of its own, LOGIN_FAILURES_PER_ACCOUNT for all of the account's
 * known browsers together, and the account's and the address's do not
 * apply to it: a classmate who spends them, or a whole NAT's, cannot lock
 * a student out of the browser they use. Its key is only the account
 * holder's to add, in a limiter of its own.
 *
 * Each attempt is counted as a failure before its password is checked and
 * given back when it was right, so attempts sent all at once cannot
 * overrun the limit while the checks queue. Logins that work are counted
 * too, LOGIN_SUCCESSES_PER_ACCOUNT a window: each costs an Argon2 check
 * and a session, so a script that logs in for ever cannot hold the
 * hashing for the others; the budget is checked before the password (an
 * account that has spent it costs no Argon2) and spent after.
 */
#ifndef KGRADE_SERVER_LOGIN_LIMIT_H
#define KGRADE_SERVER_LOGIN_LIMIT_H

#include "http.h"

#define LOGIN_FAILURES_PER_ACCOUNT  10
#define LOGIN_FAILURES_PER_ADDRESS  100
#define LOGIN_SUCCESSES_PER_ACCOUNT 30
#define LOGIN_WINDOW_S              (15 * 60)

/* An attempt as the limits see it. */
struct login_attempt {
    const char *name;    /* the login name given (cut at DB_NAME_MAX characters) */
    const char *address; /* the client's group (client_address.h) */
    bool known_browser;  /* from a browser known for `name` */
};

enum login_limit {
    LOGIN_ALLOWED,
    LOGIN_ADDRESS_SPENT,   /* the address's failures */
    LOGIN_ACCOUNT_SPENT,   /* the account's failures (or its known browsers') */
    LOGIN_SUCCESSES_SPENT, /* the account's logins */
};

/* Before a password is checked: counts a failure; what refuses the
 * attempt (nothing counted), with the seconds to wait. */
enum login_limit login_limit_begin(const struct service_limiters *l, const struct login_attempt *a,
                                   int *retry_after);
/* The password was right: gives the failure back and counts a login;
 * LOGIN_SUCCESSES_SPENT when logins at once spent the last one first. */
enum login_limit login_limit_succeeded(const struct service_limiters *l,
                                       const struct login_attempt *a, int *retry_after);

/* login_limit_begin for a request and the account `name`; false after
 * answering 429 with Retry-After. */
bool login_attempt_begin(struct http_request *req, struct http_response *res, const char *name);
/* login_limit_succeeded for a request; false after answering 429. */
bool login_attempt_succeeded(struct http_request *req, struct http_response *res, const char *name);

#endif
