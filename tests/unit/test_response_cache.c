/*
 * Unit tests of the rendered-answer cache (server/response_cache.c): a
 * body comes back only at the version it was kept under, a newer version
 * replaces an older one and never the reverse, the least recently used
 * entry makes room, and over-long keys are not kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/response_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect_body(struct response_cache *c, const char *key, int64_t version,
                        const char *want)
{
    size_t size = 0;
    char *got = response_cache_get(c, key, version, &size);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(size, strlen(want));
    assert_string_equal(got, want);
    free(got);
}

static void test_versions(void **state)
{
    (void)state;
    struct response_cache *c = response_cache_new();
    expect_body(c, "exercise/a/0", 1, NULL);
    response_cache_put(c, "exercise/a/0", 1, "one", 3);
    expect_body(c, "exercise/a/0", 1, "one");
    expect_body(c, "exercise/a/0", 2, NULL); /* the data moved on */
    expect_body(c, "exercise/a/1", 1, NULL); /* another view */
    response_cache_put(c, "exercise/a/0", 3, "three", 5);
    response_cache_put(c, "exercise/a/0", 2, "two", 3); /* late and older: ignored */
    expect_body(c, "exercise/a/0", 3, "three");
    expect_body(c, "exercise/a/0", 2, NULL);
    response_cache_free(c);
}

static void test_least_recently_used_makes_room(void **state)
{
    (void)state;
    struct response_cache *c = response_cache_new();
    char key[32];
    for (int i = 0; i < RESPONSE_CACHE_ENTRIES; i++) {
        snprintf(key, sizeof key, "k%d", i);
        response_cache_put(c, key, 1, key, strlen(key));
    }
    expect_body(c, "k0", 1, "k0"); /* k0 used again: k1 is now the oldest */
    response_cache_put(c, "new", 1, "new", 3);
    expect_body(c, "k1", 1, NULL);
    expect_body(c, "k0", 1, "k0");
    expect_body(c, "new", 1, "new");
    snprintf(key, sizeof key, "k%d", RESPONSE_CACHE_ENTRIES - 1);
    expect_body(c, key, 1, key);
    response_cache_free(c);
}

static void test_long_keys_not_kept(void **state)
{
    (void)state;
    struct response_cache *c = response_cache_new();
    char key[RESPONSE_CACHE_KEY_MAX + 8];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    response_cache_put(c, key, 1, "x", 1);
    expect_body(c, key, 1, NULL);
    response_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_least_recently_used_makes_room),
        cmocka_unit_test(test_long_keys_not_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
