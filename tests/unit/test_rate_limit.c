/*
 * Unit tests of the rate limiter (server/rate_limit.c): every key keeps its
 * own exact count, even keys that shared a slot in the old table of 4096
 * slots indexed by a 64-bit hash (where one key's event reset the other's
 * count); a key whose window is over is forgotten, and its memory freed, as
 * is a key refunded to 0; at the cap of live keys a new key pushes out the
 * oldest key with events left, never a spent one, and fails closed only
 * when every key is spent; a refund gives a spent key events again, and
 * with them its place among the keys that may be pushed out; several keys
 * are counted all or none; a check counts nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/rate_limit.h"

#include <stdio.h>
#include <string.h>

#define OLD_SLOTS 4096

static int64_t fake_now = 1000;

static int64_t fake_clock(void)
{
    return fake_now;
}

/* The slot a key had in the old table: FNV-1a 64 modulo 4096. */
static uint64_t old_slot(const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
    return h % OLD_SLOTS;
}

/* A login name whose key shared the old slot of `victim`'s key. */
static void colliding_key(const char *victim, char *out, size_t size)
{
    for (int i = 0;; i++) {
        snprintf(out, size, "login-account:guess%d", i);
        if (old_slot(out) == old_slot(victim) && strcmp(out, victim) != 0)
            return;
    }
}

static void test_colliding_keys_keep_separate_counts(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(RATE_KEYS_MAX, fake_clock);
    const char *victim = "login-account:alice";
    char other[64];
    int wait = 0;
    colliding_key(victim, other, sizeof other);
    assert_int_equal(old_slot(victim), old_slot(other)); /* they shared a slot */
    for (int i = 0; i < 3; i++)
        assert_true(rate_allow(r, victim, 3, 60, &wait));
    assert_false(rate_allow(r, victim, 3, 60, &wait));
    assert_true(rate_allow(r, other, 3, 60, &wait));   /* the crafted key's own count */
    assert_false(rate_allow(r, victim, 3, 60, &wait)); /* ... did not reset alice's */
    assert_true(wait >= 1 && wait <= 60);
    assert_true(rate_allow(r, other, 3, 60, &wait));
    assert_true(rate_allow(r, other, 3, 60, &wait));
    assert_false(rate_allow(r, other, 3, 60, &wait));
    rate_limiter_free(r);
}

/* Many keys, so many share a bucket: each is still counted exactly. */
static void test_many_keys_counted_exactly(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(RATE_KEYS_MAX, fake_clock);
    char key[32];
    int wait = 0;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 40000; i++) {
            snprintf(key, sizeof key, "address:%d", i);
            assert_true(rate_allow(r, key, 2, 60, &wait));
        }
    for (int i = 0; i < 40000; i++) {
        snprintf(key, sizeof key, "address:%d", i);
        assert_false(rate_allow(r, key, 2, 60, &wait));
    }
    assert_int_equal(rate_limiter_keys(r), 40000);
    rate_limiter_free(r);
}

/* A refund gives back one counted event (a login that worked): the
 * attempts are counted as they start, so many at once cannot overrun. */
static void test_refund(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(RATE_KEYS_MAX, fake_clock);
    int wait = -1;
    for (int i = 0; i < 50; i++) { /* fifty right passwords */
        assert_true(rate_allow(r, "login-account:bob", 2, 900, &wait));
        rate_refund(r, "login-account:bob");
        assert_int_equal(rate_limiter_keys(r), 0); /* refunded to 0: no key held */
    }
    assert_true(rate_allow(r, "login-account:bob", 2, 900, &wait)); /* two wrong ones */
    assert_true(rate_allow(r, "login-account:bob", 2, 900, &wait));
    fake_now += 100;
    assert_false(rate_allow(r, "login-account:bob", 2, 900, &wait));
    assert_int_equal(wait, 800);
    rate_refund(r, "login-account:nobody"); /* nothing to give back: nothing kept */
    assert_int_equal(rate_limiter_keys(r), 1);
    rate_limiter_free(r);
}

/* A refund that brings a count back to 0 forgets the key: attempts given
 * back cannot keep keys alive until the table is full. */
static void test_refunded_keys_hold_no_room(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(10, fake_clock);
    char key[32];
    int wait = 0;
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "login-account:x%d", i);
        assert_true(rate_allow(r, key, 10, 900, &wait));
        rate_refund(r, key);
    }
    assert_int_equal(rate_limiter_keys(r), 0);
    assert_true(rate_allow(r, "submit:1", 1, 60, &wait));
    rate_limiter_free(r);
}

/* rate_check tells whether an event is left, counting nothing and adding
 * no key. */
static void test_check(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(RATE_KEYS_MAX, fake_clock);
    int wait = -1;
    assert_true(rate_check(r, "logins:val", 2, &wait));
    assert_int_equal(wait, 0);
    assert_int_equal(rate_limiter_keys(r), 0);
    assert_true(rate_allow(r, "logins:val", 2, 900, &wait));
    assert_true(rate_check(r, "logins:val", 2, &wait));
    assert_true(rate_allow(r, "logins:val", 2, 900, &wait));
    fake_now += 100;
    assert_false(rate_check(r, "logins:val", 2, &wait));
    assert_int_equal(wait, 800);
    fake_now += 800;
    assert_true(rate_check(r, "logins:val", 2, &wait)); /* the window ended */
    rate_limiter_free(r);
}

static void test_expiry_frees_memory(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(RATE_KEYS_MAX, fake_clock);
    char key[32];
    int wait = 0;
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "submit:%d", i);
        assert_true(rate_allow(r, key, 1, 10, &wait));
    }
    assert_int_equal(rate_limiter_keys(r), 1000);
    assert_false(rate_allow(r, "submit:7", 1, 10, &wait));
    fake_now += 10;
    assert_true(rate_allow(r, "submit:7", 1, 10, &wait)); /* a new window */
    fake_now += RATE_SWEEP_SECONDS;
    assert_true(rate_allow(r, "another", 1, 10, &wait)); /* any call sweeps when due */
    assert_int_equal(rate_limiter_keys(r), 1);
    rate_limiter_free(r);
}

/* Counts one event of each key "login-address:FROM" to "login-address:TO-1"
 * under `limit`, in windows of 60 s. */
static void fill(struct rate_limiter *r, int from, int to, int limit)
{
    char key[32];
    int wait = 0;
    for (int i = from; i < to; i++) {
        snprintf(key, sizeof key, "login-address:%d", i);
        assert_true(rate_allow(r, key, limit, 60, &wait));
    }
}

/* 100 keys, the first spent: a new key pushes out the oldest key with
 * events left (the second), not the spent one, and keys are never more
 * than the cap. */
static void test_a_full_table_pushes_out_the_oldest_unspent_key(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(100, fake_clock);
    int wait = 0;
    fill(r, 0, 1, 1);
    fill(r, 1, 100, 5);
    assert_true(rate_allow(r, "login-address:new", 5, 60, &wait)); /* full: no one refused */
    assert_int_equal(rate_limiter_keys(r), 100);
    assert_false(rate_allow(r, "login-address:0", 1, 60, &wait)); /* the spent key stayed */
    for (int i = 0; i < 4; i++) /* key 2 kept its count: 1 + 4 events */
        assert_true(rate_allow(r, "login-address:2", 5, 60, &wait));
    assert_false(rate_allow(r, "login-address:2", 5, 60, &wait));
    /* key 1 was pushed out: its count starts again (pushing out key 3) */
    for (int i = 0; i < 5; i++)
        assert_true(rate_allow(r, "login-address:1", 5, 60, &wait));
    assert_false(rate_allow(r, "login-address:1", 5, 60, &wait));
    assert_int_equal(rate_limiter_keys(r), 100);
    rate_limiter_free(r);
}

/* A table whose every key is spent refuses a new key until the first
 * window ends; known keys go on. */
static void test_a_table_of_spent_keys_fails_closed(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(100, fake_clock);
    int wait = 0;
    fill(r, 0, 1, 1);
    fake_now += 10; /* the first window ends 10 s before the others */
    fill(r, 1, 100, 1);
    assert_false(rate_allow(r, "login-address:new", 5, 60, &wait));
    assert_int_equal(wait, 50);                  /* until the first window ends */
    assert_int_equal(rate_limiter_keys(r), 100); /* nothing overwritten */
    assert_false(rate_allow(r, "login-address:42", 1, 60, &wait));
    assert_true(rate_allow(r, "login-address:42", 2, 60, &wait)); /* a known key goes on */
    fake_now += 50;
    assert_true(rate_allow(r, "login-address:new", 5, 60, &wait)); /* the first one expired */
    assert_int_equal(rate_limiter_keys(r), 100);
    rate_limiter_free(r);
}

/* A spent key refunded has an event again: it is then the newest key that
 * may be pushed out. */
static void test_a_refund_makes_a_spent_key_pushable_again(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(3, fake_clock);
    int wait = 0;
    assert_true(rate_allow(r, "a", 2, 60, &wait));
    assert_true(rate_allow(r, "a", 2, 60, &wait)); /* a spent */
    assert_true(rate_allow(r, "b", 2, 60, &wait));
    rate_refund(r, "a"); /* a has one event left: younger than b */
    assert_true(rate_allow(r, "c", 2, 60, &wait));
    assert_true(rate_allow(r, "d", 2, 60, &wait)); /* pushes out b, the oldest with events left */
    assert_true(rate_allow(r, "a", 2, 60, &wait)); /* a kept its count: 1 + 1 */
    assert_false(rate_allow(r, "a", 2, 60, &wait));
    assert_true(rate_allow(r, "e", 2, 60, &wait)); /* pushes out c: a is spent again */
    assert_false(rate_allow(r, "a", 2, 60, &wait));
    assert_int_equal(rate_limiter_keys(r), 3);
    rate_limiter_free(r);
}

/* rate_allow_all counts every key or none: the first key with no event
 * left is named, and nothing is counted or added. */
static void test_all_or_none(void **state)
{
    (void)state;
    struct rate_limiter *r = rate_limiter_new(RATE_KEYS_MAX, fake_clock);
    const struct rate_event both[] = {{"address", 3}, {"account", 1}};
    int wait = -1;
    assert_int_equal(rate_allow_all(r, both, 2, 60, &wait), -1);
    assert_int_equal(wait, 0);
    fake_now += 10;
    assert_int_equal(rate_allow_all(r, both, 2, 60, &wait), 1); /* the account is spent */
    assert_int_equal(wait, 50);
    const struct rate_event other[] = {{"address", 3}, {"another", 1}};
    assert_int_equal(rate_allow_all(r, other, 2, 60, &wait), -1); /* the address had 2 left */
    assert_int_equal(rate_allow_all(r, other + 1, 1, 60, &wait), 0);
    const struct rate_event third[] = {{"address", 3}, {"a third", 1}};
    assert_int_equal(rate_allow_all(r, third, 2, 60, &wait), -1);
    assert_int_equal(rate_allow_all(r, third, 2, 60, &wait), 0); /* the address is spent */
    assert_int_equal(rate_limiter_keys(r), 4);                   /* no key added by a refusal */
    rate_limiter_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colliding_keys_keep_separate_counts),
        cmocka_unit_test(test_many_keys_counted_exactly),
        cmocka_unit_test(test_refund),
        cmocka_unit_test(test_refunded_keys_hold_no_room),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_expiry_frees_memory),
        cmocka_unit_test(test_a_full_table_pushes_out_the_oldest_unspent_key),
        cmocka_unit_test(test_a_table_of_spent_keys_fails_closed),
        cmocka_unit_test(test_a_refund_makes_a_spent_key_pushable_again),
        cmocka_unit_test(test_all_or_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
