/*
 * Internal to server/: how many wrong passwords are let through. Only
 * failures count (a login that works costs nothing), per account and per
 * client address apart, in windows of LOGIN_FAILURE_WINDOW_S: an account
 * gets LOGIN_FAILURES_PER_ACCOUNT, enough for typos, too few to guess a
 * password; an address gets LOGIN_FAILURES_PER_ADDRESS, so a class of 30
 * behind one NAT, typos included, still logs in, while one machine cannot
 * try passwords on account after account. A name with no account is
 * counted like any other, so the limit tells nothing of which accounts
 * exist. A browser where the account logged in before (known_browser.h)
 * has a budget of its own, LOGIN_FAILURES_PER_ACCOUNT, and the account's
 * and the address's do not apply to it: a classmate who spends them, or
 * a whole NAT's, cannot lock a student out of the browser they use. Each
 * attempt is counted as a failure before its password is
 * checked and given back when it was right, so attempts sent all at once
 * cannot overrun the limit while the checks queue.
 */
#ifndef KGRADE_SERVER_LOGIN_LIMIT_H
#define KGRADE_SERVER_LOGIN_LIMIT_H

#include "http.h"

#define LOGIN_FAILURES_PER_ACCOUNT 10
#define LOGIN_FAILURES_PER_ADDRESS 100
#define LOGIN_FAILURE_WINDOW_S     (15 * 60)

/* Before a password of the account `name` is checked: counts a failure
 * for the account and the request's address; false, with 429 and
 * Retry-After answered and nothing counted, when either has none left. */
bool login_attempt_begin(struct http_request *req, struct http_response *res, const char *name);
/* The password was right: the failure counted is given back. */
void login_attempt_succeeded(struct http_request *req, const char *name);

#endif
