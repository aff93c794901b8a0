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

#define CREDENTIAL_TEXT_MAX       72 /* a token or cookie as text: "kg_" and 43 base64url */
#define PASSWORD_HASH_MAX         128
#define PASSWORD_MIN_LENGTH       8
#define PASSWORD_MAX_LENGTH       1024
#define PASSWORD_HASHINGS_MAX     2  /* at once */
#define GENERATED_PASSWORD_LENGTH 16 /* a password kgrade makes up */

/* libsodium ready; false when it cannot start. */
bool credentials_init(void);

/* A fresh secret as text (prefix "kg_" for tokens) and its hash. */
bool credential_new(const char *prefix, char text[CREDENTIAL_TEXT_MAX],
                    unsigned char hash[DB_HASH_BYTES]);
/* The hash a stored secret is found by. */
void credential_hash(const char *text, unsigned char hash[DB_HASH_BYTES]);

/* Argon2id of a password (blocks while PASSWORD_HASHINGS_MAX run). */
bool password_hash(const char *password, char hash[PASSWORD_HASH_MAX]);
/* Whether `password` is the one of `hash`. With no hash (an unknown
 * account, or one without a password) it is checked against a dummy hash
 * all the same and is false: the answer takes as long as for a wrong
 * password, so timing does not tell which accounts exist. */
bool password_verify(const char *hash, const char *password);
/* Whether `password` is the one of the account `name`, whose user it
 * fills; an unknown name costs the time of a wrong password. */
bool password_check_account(struct db *db, const char *name, const char *password,
                            struct db_user *user);
/* A random password of `length` characters (GENERATED_PASSWORD_LENGTH for
 * the ones kgrade makes up). */
void password_random(char *out, size_t length);

#endif
