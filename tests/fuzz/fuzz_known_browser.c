/*
 * Fuzz target (libFuzzer): the known-browser cookie check
 * (server/known_browser.c) on a cookie value a client sends. The input is
 * "name\nvalue". Any value must be checked without a crash or undefined
 * behaviour; a value made for the name must pass, for that name only;
 * and no value the fuzzer makes up may pass (a forged MAC).
 */
#include "fuzz_input.h"
#include "server/known_browser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char key[KNOWN_BROWSER_KEY_BYTES];
    static bool ready;
    char made[KNOWN_BROWSER_VALUE_MAX];
    if (!ready) {
        if (sodium_init() < 0)
            abort();
        crypto_auth_keygen(key);
        ready = true;
    }
    char *text = malloc(size + 1), *other = malloc(size + 2);
    if (!text || !other)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *newline = strchr(text, '\n');
    const char *name = text, *value = "";
    if (newline) {
        *newline = '\0';
        value = newline + 1;
    }
    if (known_browser_check(key, value, name))
        abort(); /* a forgery passed */
    known_browser_value(key, name, made);
    if (!known_browser_check(key, made, name))
        abort();
    snprintf(other, size + 2, "%sx", name);
    if (known_browser_check(key, made, other))
        abort(); /* a cookie of one name passed for another */
    free(text);
    free(other);
    return 0;
}
