/*
 * Internal to server/: secrets — passwords (Argon2id through libsodium's
 * crypto_pwhash, with a cap on hashings at once so logins cannot exhaust
 * memory), API tokens and session cookies (256 random bits, stored as
 * their BLAKE2b hash, checked in microseconds).
 */
#ifndef KGRADE_SERVER_CREDENTIALS_H
#define KGRADE_SERVER_CREDENTIALS_H

#include "db/db.h"

#include <stdbool.h>
#include <stddef.h>

#define CREDENTIAL_TEXT_MAX   72 /* a token or cookie as text: "kg_" and 43 base64url */
#define PASSWORD_HASH_MAX     128
#define PASSWORD_MIN_LENGTH   8
#define PASSWORD_MAX_LENGTH   1024
#define PASSWORD_HASHINGS_MAX 2 /* at once */

/* libsodium ready; false when it cannot start. */
bool credentials_init(void);

/* A fresh secret as text (prefix "kg_" for tokens) and its hash. */
bool credential_new(const char *prefix, char text[CREDENTIAL_TEXT_MAX],
                    unsigned char hash[DB_HASH_BYTES]);
/* The hash a stored secret is found by. */
void credential_hash(const char *text, unsigned char hash[DB_HASH_BYTES]);

/* Argon2id of a password (blocks while PASSWORD_HASHINGS_MAX run). */
bool password_hash(const char *password, char hash[PASSWORD_HASH_MAX]);
bool password_verify(const char *hash, const char *password);
/* A random password of `length` characters for a new admin account. */
void password_random(char *out, size_t length);

#endif
