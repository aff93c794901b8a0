/*
 * Internal to server/: the "known browser" cookie, so that nobody can lock
 * a student out by typing wrong passwords for their name. A browser where
 * an account logged in gets a cookie (a random nonce and its MAC with the
 * account's name, under a key derived from the service's signing key: no
 * state to store, and it cannot be forged or moved to another name). Login
 * attempts from a browser known for that name get a failure budget of
 * their own (login_limit.h); the account's and the address's budgets,
 * which anyone can spend, do not apply to them.
 */
#ifndef KGRADE_SERVER_KNOWN_BROWSER_H
#define KGRADE_SERVER_KNOWN_BROWSER_H

#include "http.h"
#include "signing_key.h"

#define KNOWN_BROWSER_COOKIE    "kgrade_browser"
#define KNOWN_BROWSER_SECONDS   (180 * 24 * 3600)
#define KNOWN_BROWSER_KEY_BYTES crypto_auth_KEYBYTES
#define KNOWN_BROWSER_VALUE_MAX 80 /* a cookie value, with its NUL */

/* The cookies' MAC key, derived from the signing key for this use only. */
void known_browser_key(const struct signing_key *signing_key,
                       unsigned char key[KNOWN_BROWSER_KEY_BYTES]);
/* A fresh cookie value for `name`. */
void known_browser_value(const unsigned char key[KNOWN_BROWSER_KEY_BYTES], const char *name,
                         char value[KNOWN_BROWSER_VALUE_MAX]);
/* Whether `value` is a cookie made for `name`. */
bool known_browser_check(const unsigned char key[KNOWN_BROWSER_KEY_BYTES], const char *value,
                         const char *name);

/* known_browser_check on the request's cookie. */
bool known_browser_of(struct http_request *req, const char *name);
/* Answers a cookie that makes this browser known for `name` (after a
 * login that worked). */
void known_browser_remember(struct http_request *req, struct http_response *res, const char *name);

#endif
