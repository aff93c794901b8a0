/*
 * Unit tests of the login limits (server/login_limit.c) on limiters of a
 * fake clock: one address sending 66,000 made-up names (more than the
 * 65,536 keys a limiter holds) adds only its own budget of keys, so a
 * classmate still logs in and submissions are still counted; the
 * filling script of issue 32 (650 addresses x 101 names, more keys than
 * the limiter holds) locks no one out: a teacher's right password from a
 * new address logs in, while the accounts and addresses it spent stay
 * limited; a refunded attempt holds no key; logins that work
 * are limited per account; a known browser's budget is the account's,
 * whatever cookie it comes with. And the address a client is counted
 * under (server/client_address.c): IPv6 by its /64, IPv4-mapped IPv6 as
 * IPv4.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/client_address.h"
#include "server/login_limit.h"
#include "server/rate_limit.h"

#include <stdio.h>

static int64_t fake_now = 1000;

static int64_t fake_clock(void)
{
    return fake_now;
}

static struct service_limiters limiters(int anonymous_keys)
{
    return (struct service_limiters){rate_limiter_new(anonymous_keys, fake_clock),
                                     rate_limiter_new(RATE_KEYS_MAX, fake_clock),
                                     rate_limiter_new(RATE_KEYS_MAX, fake_clock)};
}

static void limiters_free(struct service_limiters *l)
{
    rate_limiter_free(l->anonymous);
    rate_limiter_free(l->accounts);
    rate_limiter_free(l->submissions);
}

/* A whole login: the attempt counted, and given back when `right`. */
static enum login_limit log_in(struct service_limiters *l, const char *name, const char *address,
                               bool known, bool right)
{
    struct login_attempt a = {name, address, known};
    int wait = 0;
    enum login_limit why = login_limit_begin(l, &a, &wait);
    if (why == LOGIN_ALLOWED && right)
        why = login_limit_succeeded(l, &a, &wait);
    return why;
}

static void test_one_address_cannot_fill_the_limiter(void **state)
{
    (void)state;
    struct service_limiters l = limiters(RATE_KEYS_MAX);
    char name[32];
    int refused = 0, wait = 0;
    for (int i = 0; i < 66000; i++) {
        snprintf(name, sizeof name, "x%d", i);
        refused += log_in(&l, name, "198.51.100.7", false, false) == LOGIN_ADDRESS_SPENT;
    }
    assert_int_equal(refused, 66000 - LOGIN_FAILURES_PER_ADDRESS);
    /* the address's key and one per name it was let try: not 65,536 */
    assert_int_equal(rate_limiter_keys(l.anonymous), LOGIN_FAILURES_PER_ADDRESS + 1);
    assert_int_equal(log_in(&l, "alice", "203.0.113.9", false, true), LOGIN_ALLOWED);
    assert_int_equal(log_in(&l, "bob", "198.51.100.7", true, true), LOGIN_ALLOWED);
    assert_true(rate_allow(l.submissions, "submit:42", 30, 60, &wait));
    /* the logins that worked left no key of a failure behind */
    assert_int_equal(rate_limiter_keys(l.anonymous), LOGIN_FAILURES_PER_ADDRESS + 1);
    limiters_free(&l);
}

/* The filling script's shape (issue 32): 650 addresses, each trying 101
 * names of its own with wrong passwords: 650 x (100 names + the address)
 * = 65,650 keys, more than the anonymous limiter holds. Before it, an
 * attacker spent alice's failures and an address spent its own. Once full,
 * the table never refuses a right password from a new address, and what
 * was spent stays spent. */
static void test_the_filling_script_locks_no_one_out(void **state)
{
    (void)state;
    struct service_limiters l = limiters(RATE_KEYS_MAX);
    char name[32], address[32];
    int wait = 0;
    for (int i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++)
        assert_int_equal(log_in(&l, "alice", "198.51.100.1", false, false), LOGIN_ALLOWED);
    for (int i = 0; i < LOGIN_FAILURES_PER_ADDRESS; i++) {
        snprintf(name, sizeof name, "guess%d", i);
        assert_int_equal(log_in(&l, name, "198.51.100.2", false, false), LOGIN_ALLOWED);
    }
    for (int a = 0; a < 650; a++)
        for (int n = 0; n < 101; n++) {
            snprintf(name, sizeof name, "x%d-%d", a, n);
            snprintf(address, sizeof address, "127.0.%d.%d", a / 250, 1 + a % 250);
            assert_int_equal(log_in(&l, name, address, false, false),
                             n < LOGIN_FAILURES_PER_ADDRESS ? LOGIN_ALLOWED : LOGIN_ADDRESS_SPENT);
        }
    assert_int_equal(rate_limiter_keys(l.anonymous), RATE_KEYS_MAX);
    assert_int_equal(log_in(&l, "teacher", "203.0.113.9", false, true), LOGIN_ALLOWED);
    assert_int_equal(log_in(&l, "alice", "203.0.113.10", false, true), LOGIN_ACCOUNT_SPENT);
    assert_int_equal(log_in(&l, "bob", "198.51.100.2", false, true), LOGIN_ADDRESS_SPENT);
    assert_int_equal(log_in(&l, "bob", "127.0.0.1", false, true), LOGIN_ADDRESS_SPENT);
    assert_int_equal(log_in(&l, "alice", "203.0.113.9", true, true), LOGIN_ALLOWED);
    assert_true(rate_allow(l.submissions, "submit:42", 30, 60, &wait));
    fake_now += LOGIN_WINDOW_S; /* the windows end: alice logs in from anywhere again */
    assert_int_equal(log_in(&l, "alice", "203.0.113.10", false, true), LOGIN_ALLOWED);
    limiters_free(&l);
}

/* An account whose budget is spent costs the address nothing more, nor
 * does a login that works. */
static void test_account_and_address_budgets(void **state)
{
    (void)state;
    struct service_limiters l = limiters(RATE_KEYS_MAX);
    char name[32];
    for (int i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++)
        assert_int_equal(log_in(&l, "tess", "192.0.2.1", false, false), LOGIN_ALLOWED);
    for (int i = 0; i < 50; i++)
        assert_int_equal(log_in(&l, "tess", "192.0.2.1", false, true), LOGIN_ACCOUNT_SPENT);
    for (int i = 0; i < LOGIN_FAILURES_PER_ADDRESS - LOGIN_FAILURES_PER_ACCOUNT; i++) {
        snprintf(name, sizeof name, "n%d", i);
        assert_int_equal(log_in(&l, name, "192.0.2.1", false, false), LOGIN_ALLOWED);
        if (i % 10 == 0)
            assert_int_equal(log_in(&l, "uma", "192.0.2.1", false, true), LOGIN_ALLOWED);
    }
    assert_int_equal(log_in(&l, "vic", "192.0.2.1", false, true), LOGIN_ADDRESS_SPENT);
    assert_int_equal(log_in(&l, "vic", "192.0.2.2", false, true), LOGIN_ALLOWED);
    limiters_free(&l);
}

/* A known browser's failures are the account's, however many cookies a
 * student collected by logging in again and again; and only the holder
 * adds that key, in the accounts' limiter. */
static void test_known_browsers_share_the_account_budget(void **state)
{
    (void)state;
    struct service_limiters l = limiters(RATE_KEYS_MAX);
    for (int i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++)
        assert_int_equal(log_in(&l, "uma", "192.0.2.1", true, false), LOGIN_ALLOWED);
    assert_int_equal(log_in(&l, "uma", "2001:db8::/64", true, true), LOGIN_ACCOUNT_SPENT);
    assert_int_equal(log_in(&l, "uma", "192.0.2.1", false, true), LOGIN_ALLOWED); /* not these */
    assert_int_equal(rate_limiter_keys(l.anonymous), 0);
    limiters_free(&l);
}

/* LOGIN_SUCCESSES_PER_ACCOUNT logins a window; the next is refused before
 * its password is checked, wrong or right; logins at once cannot overrun. */
static void test_successful_logins_limited(void **state)
{
    (void)state;
    struct service_limiters l = limiters(RATE_KEYS_MAX);
    struct login_attempt a = {"val", "192.0.2.1", false}, b = a;
    int wait = 0;
    for (int i = 0; i < LOGIN_SUCCESSES_PER_ACCOUNT - 1; i++)
        assert_int_equal(log_in(&l, "val", "192.0.2.1", i % 2, true), LOGIN_ALLOWED);
    assert_int_equal(login_limit_begin(&l, &a, &wait), LOGIN_ALLOWED); /* two at once */
    assert_int_equal(login_limit_begin(&l, &b, &wait), LOGIN_ALLOWED);
    assert_int_equal(login_limit_succeeded(&l, &a, &wait), LOGIN_ALLOWED);
    assert_int_equal(login_limit_succeeded(&l, &b, &wait), LOGIN_SUCCESSES_SPENT);
    fake_now += 60;
    assert_int_equal(login_limit_begin(&l, &a, &wait), LOGIN_SUCCESSES_SPENT);
    assert_int_equal(wait, LOGIN_WINDOW_S - 60);
    assert_int_equal(log_in(&l, "val", "192.0.2.1", false, false), LOGIN_SUCCESSES_SPENT);
    assert_int_equal(log_in(&l, "wes", "192.0.2.1", false, true), LOGIN_ALLOWED);
    assert_int_equal(rate_limiter_keys(l.anonymous), 0); /* right passwords hold no key */
    fake_now += LOGIN_WINDOW_S;
    assert_int_equal(log_in(&l, "val", "192.0.2.1", false, true), LOGIN_ALLOWED);
    limiters_free(&l);
}

static void test_client_address_groups(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"192.0.2.7", "192.0.2.7"},
        {"::ffff:192.0.2.7", "192.0.2.7"},
        {"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
        {"2001:db8:1:2::1", "2001:db8:1:2::/64"},
        {"2001:db8:1:3:ffff::1", "2001:db8:1:3::/64"},
        {"::1", "::/64"},
        {"?", "?"},
    };
    char group[CLIENT_GROUP_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        client_address_group(cases[i][0], group);
        assert_string_equal(group, cases[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_address_cannot_fill_the_limiter),
        cmocka_unit_test(test_the_filling_script_locks_no_one_out),
        cmocka_unit_test(test_account_and_address_budgets),
        cmocka_unit_test(test_known_browsers_share_the_account_budget),
        cmocka_unit_test(test_successful_logins_limited),
        cmocka_unit_test(test_client_address_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
