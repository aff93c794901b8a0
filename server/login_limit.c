/*
 * Wrong passwords counted per account and per address (login_limit.h),
 * in the service's rate limiter.
 */
#include "login_limit.h"

#include "known_browser.h"
#include "rate_limit.h"

#include <stdio.h>

#define KEY_MAX 128

/* The limiter's keys of an attempt: a known browser's own, or the
 * account's and the address's (`address` empty for a known browser).
 * Names are cut at DB_NAME_MAX characters: longer ones belong to no
 * account. */
static void keys_of(struct http_request *req, const char *name, char account[KEY_MAX],
                    char address[KEY_MAX])
{
    char browser[KNOWN_BROWSER_ID_MAX];
    if (known_browser_of(req, name, browser)) {
        snprintf(account, KEY_MAX, "login-browser:%s", browser);
        address[0] = '\0';
        return;
    }
    snprintf(account, KEY_MAX, "login-account:%.*s", DB_NAME_MAX, name);
    snprintf(address, KEY_MAX, "login-address:%s", req->client);
}

bool login_attempt_begin(struct http_request *req, struct http_response *res, const char *name)
{
    char account[KEY_MAX], address[KEY_MAX], retry[16];
    int wait = 0;
    keys_of(req, name, account, address);
    bool account_ok = rate_allow(req->service->rates, account, LOGIN_FAILURES_PER_ACCOUNT,
                                 LOGIN_FAILURE_WINDOW_S, &wait);
    bool address_ok = account_ok && (!address[0] || rate_allow(req->service->rates, address,
                                                               LOGIN_FAILURES_PER_ADDRESS,
                                                               LOGIN_FAILURE_WINDOW_S, &wait));
    if (address_ok)
        return true;
    if (account_ok)
        rate_refund(req->service->rates, account);
    snprintf(retry, sizeof retry, "%d", wait);
    http_header(res, "Retry-After", retry);
    http_error(res, 429, "too_many_logins",
               "too many wrong passwords %s: wait %s s, or ask an instructor for a new password",
               account_ok ? "from this address" : "for this account", retry);
    return false;
}

void login_attempt_succeeded(struct http_request *req, const char *name)
{
    char account[KEY_MAX], address[KEY_MAX];
    keys_of(req, name, account, address);
    rate_refund(req->service->rates, account);
    if (address[0])
        rate_refund(req->service->rates, address);
}
