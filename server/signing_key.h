/*
 * Internal to server/: the service's Ed25519 signing key, which signs
 * certificates. Created at the first start in the data folder
 * (signing.key, mode 0600, never copied elsewhere) and read at every later
 * start, so the public key anyone verifies with stays the same.
 */
#ifndef KGRADE_SERVER_SIGNING_KEY_H
#define KGRADE_SERVER_SIGNING_KEY_H

#include <sodium.h>
#include <stdbool.h>
#include <stddef.h>

#define SIGNING_KEY_FILE "signing.key"

struct signing_key {
    unsigned char secret[crypto_sign_SECRETKEYBYTES];
    unsigned char public_key[crypto_sign_PUBLICKEYBYTES];
};

/* Reads <data>/signing.key, or creates it when there is none. False with a
 * sentence in `why` when the file cannot be made or is not a key (a file
 * readable by others is refused: the key must stay secret). */
bool signing_key_load(const char *data, struct signing_key *key, char *why, size_t why_size);

/* The public key in standard base64 (out holds SIGNING_KEY_BASE64_MAX). */
#define SIGNING_KEY_BASE64_MAX                                                                     \
    sodium_base64_ENCODED_LEN(crypto_sign_PUBLICKEYBYTES, sodium_base64_VARIANT_ORIGINAL)
void signing_key_public_base64(const struct signing_key *key, char *out);

#endif
