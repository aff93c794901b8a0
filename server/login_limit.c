/*
 * Logins counted (login_limit.h): failures per account and per address in
 * the anonymous limiter, a known browser's failures and the logins that
 * worked per account in the accounts' limiter.
 */
#include "login_limit.h"

#include "client_address.h"
#include "known_browser.h"
#include "rate_limit.h"

#include <stdio.h>

#define KEY_MAX 128

/* The key `kind:text`, the text cut at DB_NAME_MAX characters (a longer
 * name belongs to no account; an address group is shorter). */
static const char *key_of(char key[KEY_MAX], const char *kind, const char *text)
{
    snprintf(key, KEY_MAX, "%s:%.*s", kind, DB_NAME_MAX, text);
    return key;
}

/* Counts a failure of an attempt from a browser not known for the name,
 * under the address and the name at once, or under neither: an address
 * with no failures left adds no key of a name, nor a name spent a key of
 * an address. */
static enum login_limit count_anonymous(struct rate_limiter *r, const struct login_attempt *a,
                                        int *retry_after)
{
    char address[KEY_MAX], account[KEY_MAX];
    const struct rate_event failures[] = {
        {key_of(address, "login-address", a->address), LOGIN_FAILURES_PER_ADDRESS},
        {key_of(account, "login-account", a->name), LOGIN_FAILURES_PER_ACCOUNT},
    };
    int spent = rate_allow_all(r, failures, 2, LOGIN_WINDOW_S, retry_after);
    return spent < 0 ? LOGIN_ALLOWED : spent == 0 ? LOGIN_ADDRESS_SPENT : LOGIN_ACCOUNT_SPENT;
}

enum login_limit login_limit_begin(const struct service_limiters *l, const struct login_attempt *a,
                                   int *retry_after)
{
    char key[KEY_MAX];
    if (!rate_check(l->accounts, key_of(key, "logins", a->name), LOGIN_SUCCESSES_PER_ACCOUNT,
                    retry_after))
        return LOGIN_SUCCESSES_SPENT;
    if (!a->known_browser)
        return count_anonymous(l->anonymous, a, retry_after);
    return rate_allow(l->accounts, key_of(key, "known", a->name), LOGIN_FAILURES_PER_ACCOUNT,
                      LOGIN_WINDOW_S, retry_after)
               ? LOGIN_ALLOWED
               : LOGIN_ACCOUNT_SPENT;
}

enum login_limit login_limit_succeeded(const struct service_limiters *l,
                                       const struct login_attempt *a, int *retry_after)
{
    char key[KEY_MAX];
    if (a->known_browser) {
        rate_refund(l->accounts, key_of(key, "known", a->name));
    } else {
        rate_refund(l->anonymous, key_of(key, "login-account", a->name));
        rate_refund(l->anonymous, key_of(key, "login-address", a->address));
    }
    return rate_allow(l->accounts, key_of(key, "logins", a->name), LOGIN_SUCCESSES_PER_ACCOUNT,
                      LOGIN_WINDOW_S, retry_after)
               ? LOGIN_ALLOWED
               : LOGIN_SUCCESSES_SPENT;
}

/* ------------------------------------------------------ for a request */

/* 429 with Retry-After, saying which budget is spent, how large it is
 * and (for an address) which address it is: behind a proxy that does not
 * pass the client's address on, it is the proxy's, shared by everyone. */
static bool refuse(struct http_response *res, enum login_limit why, int wait,
                   const struct login_attempt *a)
{
    char retry[16];
    snprintf(retry, sizeof retry, "%d", wait);
    http_header(res, "Retry-After", retry);
    if (why == LOGIN_SUCCESSES_SPENT)
        http_error(res, 429, "too_many_logins",
                   "this account logged in (or had its password checked) %d times in %d minutes: "
                   "wait %s s; the sessions it has go on",
                   LOGIN_SUCCESSES_PER_ACCOUNT, LOGIN_WINDOW_S / 60, retry);
    else if (why == LOGIN_ADDRESS_SPENT)
        http_error(
            res, 429, "too_many_logins",
            "too many wrong passwords from this address (%s): %d in %d minutes, whatever "
            "the names; wait %s s, or log in from a browser where this account logged in before",
            a->address, LOGIN_FAILURES_PER_ADDRESS, LOGIN_WINDOW_S / 60, retry);
    else
        http_error(res, 429, "too_many_logins",
                   "too many wrong passwords for this account%s: %d in %d minutes; wait %s s, or "
                   "ask an instructor for a new password",
                   a->known_browser ? " from the browsers where it logged in before" : "",
                   LOGIN_FAILURES_PER_ACCOUNT, LOGIN_WINDOW_S / 60, retry);
    return false;
}

typedef enum login_limit login_step(const struct service_limiters *l, const struct login_attempt *a,
                                    int *retry_after);

/* One step of the limits for a request; false after answering 429. */
static bool step(struct http_request *req, struct http_response *res, const char *name,
                 login_step *counted)
{
    char group[CLIENT_GROUP_MAX];
    int wait = 0;
    client_address_group(req->client, group);
    struct login_attempt a = {name, group, known_browser_of(req, name)};
    enum login_limit why = counted(&req->service->limiters, &a, &wait);
    return why == LOGIN_ALLOWED || refuse(res, why, wait, &a);
}

bool login_attempt_begin(struct http_request *req, struct http_response *res, const char *name)
{
    return step(req, res, name, login_limit_begin);
}

bool login_attempt_succeeded(struct http_request *req, struct http_response *res, const char *name)
{
    return step(req, res, name, login_limit_succeeded);
}
