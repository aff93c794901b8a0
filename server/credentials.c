/*
 * Passwords, API tokens and session cookies (credentials.h).
 */
#include "credentials.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#define SECRET_BYTES 32

static pthread_mutex_t hashing_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hashing_done = PTHREAD_COND_INITIALIZER;
static int hashings;
/* A hash of no one's password, made once with the parameters of every
 * other, so that checking a password of no account costs what checking a
 * wrong one does. */
static pthread_once_t dummy_once = PTHREAD_ONCE_INIT;
static char dummy_hash[PASSWORD_HASH_MAX];

bool credentials_init(void)
{
    return sodium_init() >= 0;
}

bool credential_new(const char *prefix, char text[CREDENTIAL_TEXT_MAX],
                    unsigned char hash[DB_HASH_BYTES])
{
    unsigned char secret[SECRET_BYTES];
    char encoded[sodium_base64_ENCODED_LEN(SECRET_BYTES, sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
    randombytes_buf(secret, sizeof secret);
    sodium_bin2base64(encoded, sizeof encoded, secret, sizeof secret,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(secret, sizeof secret);
    int n = snprintf(text, CREDENTIAL_TEXT_MAX, "%s%s", prefix, encoded);
    if (n < 0 || n >= CREDENTIAL_TEXT_MAX)
        return false;
    credential_hash(text, hash);
    return true;
}

void credential_hash(const char *text, unsigned char hash[DB_HASH_BYTES])
{
    crypto_generichash(hash, DB_HASH_BYTES, (const unsigned char *)text, strlen(text), NULL, 0);
}

/* At most PASSWORD_HASHINGS_MAX Argon2 computations at once (each takes
 * crypto_pwhash_MEMLIMIT_INTERACTIVE, 64 MB). */
static void hashing_begin(void)
{
    pthread_mutex_lock(&hashing_lock);
    while (hashings >= PASSWORD_HASHINGS_MAX)
        pthread_cond_wait(&hashing_done, &hashing_lock);
    hashings++;
    pthread_mutex_unlock(&hashing_lock);
}

static void hashing_end(void)
{
    pthread_mutex_lock(&hashing_lock);
    hashings--;
    pthread_cond_signal(&hashing_done);
    pthread_mutex_unlock(&hashing_lock);
}

bool password_hash(const char *password, char hash[PASSWORD_HASH_MAX])
{
    _Static_assert(crypto_pwhash_STRBYTES <= PASSWORD_HASH_MAX, "room for the hash");
    hashing_begin();
    bool ok =
        crypto_pwhash_str(hash, password, strlen(password), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                          crypto_pwhash_MEMLIMIT_INTERACTIVE) == 0;
    hashing_end();
    return ok;
}

static void make_dummy_hash(void)
{
    char password[GENERATED_PASSWORD_LENGTH + 1];
    password_random(password, GENERATED_PASSWORD_LENGTH);
    if (!password_hash(password, dummy_hash))
        dummy_hash[0] = '\0';
}

bool password_verify(const char *hash, const char *password)
{
    bool none = !hash || !hash[0];
    if (none) {
        pthread_once(&dummy_once, make_dummy_hash);
        hash = dummy_hash;
    }
    hashing_begin();
    bool ok = crypto_pwhash_str_verify(hash, password, strlen(password)) == 0;
    hashing_end();
    return ok && !none;
}

bool password_check_account(struct db *db, const char *name, const char *password,
                            struct db_user *user)
{
    char hash[PASSWORD_HASH_MAX];
    bool known = db && db_user_by_name(db, name, user, hash, sizeof hash) == DB_OK;
    return strlen(password) <= PASSWORD_MAX_LENGTH &&
           password_verify(known ? hash : NULL, password);
}

void password_random(char *out, size_t length)
{
    static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    for (size_t i = 0; i < length; i++)
        out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
    out[length] = '\0';
}
