/*
 * The known-browser cookie (known_browser.h): "<nonce>.<mac>", both
 * base64url, the MAC (HMAC-SHA-512-256) over the nonce and the name.
 */
#include "known_browser.h"

#include "service.h"

#include <stdio.h>
#include <string.h>

#define NONCE_BYTES 16
#define B64         sodium_base64_VARIANT_URLSAFE_NO_PADDING
#define NONCE_TEXT  sodium_base64_ENCODED_LEN(NONCE_BYTES, B64)
#define MAC_TEXT    sodium_base64_ENCODED_LEN(crypto_auth_BYTES, B64)

_Static_assert(NONCE_TEXT + MAC_TEXT <= KNOWN_BROWSER_VALUE_MAX, "a value fits");
_Static_assert(crypto_sign_SEEDBYTES == crypto_kdf_KEYBYTES, "the seed is a KDF key");

void known_browser_key(const struct signing_key *signing_key,
                       unsigned char key[KNOWN_BROWSER_KEY_BYTES])
{
    crypto_kdf_derive_from_key(key, KNOWN_BROWSER_KEY_BYTES, 1, "kgbrowsr", signing_key->secret);
}

static void mac_of(const unsigned char key[KNOWN_BROWSER_KEY_BYTES],
                   const unsigned char nonce[NONCE_BYTES], const char *name,
                   unsigned char mac[crypto_auth_BYTES])
{
    crypto_auth_hmacsha512256_state state;
    crypto_auth_hmacsha512256_init(&state, key, KNOWN_BROWSER_KEY_BYTES);
    crypto_auth_hmacsha512256_update(&state, nonce, NONCE_BYTES);
    crypto_auth_hmacsha512256_update(&state, (const unsigned char *)name, strlen(name));
    crypto_auth_hmacsha512256_final(&state, mac);
}

void known_browser_value(const unsigned char key[KNOWN_BROWSER_KEY_BYTES], const char *name,
                         char value[KNOWN_BROWSER_VALUE_MAX])
{
    unsigned char nonce[NONCE_BYTES], mac[crypto_auth_BYTES];
    randombytes_buf(nonce, sizeof nonce);
    mac_of(key, nonce, name, mac);
    sodium_bin2base64(value, NONCE_TEXT, nonce, sizeof nonce, B64);
    value[NONCE_TEXT - 1] = '.';
    sodium_bin2base64(value + NONCE_TEXT, MAC_TEXT, mac, sizeof mac, B64);
}

/* Decodes exactly `bytes` bytes from the `text_length` characters at
 * `text`. */
static bool decode(unsigned char *out, size_t bytes, const char *text, size_t text_length)
{
    size_t decoded;
    return sodium_base642bin(out, bytes, text, text_length, NULL, &decoded, NULL, B64) == 0 &&
           decoded == bytes;
}

bool known_browser_check(const unsigned char key[KNOWN_BROWSER_KEY_BYTES], const char *value,
                         const char *name)
{
    unsigned char nonce[NONCE_BYTES], mac[crypto_auth_BYTES], expected[crypto_auth_BYTES];
    const size_t nonce_length = NONCE_TEXT - 1, mac_length = MAC_TEXT - 1;
    if (strlen(value) != nonce_length + 1 + mac_length || value[nonce_length] != '.' ||
        !decode(nonce, sizeof nonce, value, nonce_length) ||
        !decode(mac, sizeof mac, value + nonce_length + 1, mac_length))
        return false;
    mac_of(key, nonce, name, expected);
    return sodium_memcmp(mac, expected, sizeof mac) == 0;
}

bool known_browser_of(struct http_request *req, const char *name)
{
    unsigned char key[KNOWN_BROWSER_KEY_BYTES];
    const char *value =
        MHD_lookup_connection_value(req->connection, MHD_COOKIE_KIND, KNOWN_BROWSER_COOKIE);
    if (!value)
        return false;
    known_browser_key(&req->service->signing_key, key);
    bool known = known_browser_check(key, value, name);
    sodium_memzero(key, sizeof key);
    return known;
}

void known_browser_remember(struct http_request *req, struct http_response *res, const char *name)
{
    unsigned char key[KNOWN_BROWSER_KEY_BYTES];
    char value[KNOWN_BROWSER_VALUE_MAX], header[256];
    known_browser_key(&req->service->signing_key, key);
    known_browser_value(key, name, value);
    sodium_memzero(key, sizeof key);
    snprintf(header, sizeof header,
             "%s=%s; Path=/api/v1/login; HttpOnly; SameSite=Strict; Max-Age=%d%s",
             KNOWN_BROWSER_COOKIE, value, KNOWN_BROWSER_SECONDS,
             http_forwarded_tls(req) ? "; Secure" : "");
    http_header(res, "Set-Cookie", header);
}
