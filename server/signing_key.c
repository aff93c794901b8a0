/*
 * The service's Ed25519 signing key (signing_key.h).
 *
 * The file holds libsodium's 64-byte secret key (seed and public key)
 * and nothing else. It is created with O_EXCL and mode 0600 so two
 * servers starting at once cannot both write one, and it is refused when
 * group or others may read it.
 */
#include "signing_key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool write_all(int fd, const unsigned char *bytes, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, bytes, size);
        if (n <= 0)
            return false;
        bytes += n;
        size -= (size_t)n;
    }
    return true;
}

static bool create(const char *path, struct signing_key *key, char *why, size_t why_size)
{
    crypto_sign_keypair(key->public_key, key->secret);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write_all(fd, key->secret, sizeof key->secret) && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok) {
        snprintf(why, why_size, "%s: the signing key cannot be written: %s", path, strerror(saved));
        if (fd >= 0)
            unlink(path);
    }
    return ok;
}

static bool read_key(int fd, const char *path, struct signing_key *key, char *why, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, size, "%s: not a regular file", path);
        return false;
    }
    if (st.st_mode & 077) {
        snprintf(why, size, "%s: others may read it (mode %03o): chmod 600 it", path,
                 (unsigned)(st.st_mode & 0777));
        return false;
    }
    ssize_t n = read(fd, key->secret, sizeof key->secret);
    char extra;
    if (n != (ssize_t)sizeof key->secret || read(fd, &extra, 1) != 0) {
        snprintf(why, size, "%s: not a signing key (%zu bytes expected)", path, sizeof key->secret);
        return false;
    }
    crypto_sign_ed25519_sk_to_pk(key->public_key, key->secret);
    return true;
}

bool signing_key_load(const char *data, struct signing_key *key, char *why, size_t why_size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", data, SIGNING_KEY_FILE);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (create(path, key, why, why_size))
            return true;
        fd = open(path, O_RDONLY | O_CLOEXEC); /* another server made it first? */
        if (fd < 0)
            return false; /* `why` says what create met */
    }
    if (fd < 0) {
        snprintf(why, why_size, "%s: cannot be read: %s", path, strerror(errno));
        return false;
    }
    bool ok = read_key(fd, path, key, why, why_size);
    close(fd);
    return ok;
}

void signing_key_public_base64(const struct signing_key *key, char *out)
{
    sodium_bin2base64(out, SIGNING_KEY_BASE64_MAX, key->public_key, sizeof key->public_key,
                      sodium_base64_VARIANT_ORIGINAL);
}
