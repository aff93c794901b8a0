/*
 * Unit tests of a host job's CPU time (grader/host_cpu.c): /proc/PID/stat
 * read as the kernel writes it, a process name the student's code set
 * (")", spaces, digits) not mistaken for the fields after it, anything
 * else refused; this process's own CPU time read through a descriptor, as
 * the grade job reads a host job's, growing as it works; and the rule's
 * bar (HOST_CPU_FACTOR × the reference's, plus the floor).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/host_form.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static bool ticks_of(const char *text, unsigned long long *ticks)
{
    return host_stat_cpu_ticks(text, strlen(text), ticks);
}

static void stat_text_is_read(void **state)
{
    (void)state;
    unsigned long long ticks = 0;
    /* fields 14 and 15 are utime 70 and stime 5; tpgid (8) is -1 */
    assert_true(ticks_of("7579 (python3) R 7577 7577 22753 0 -1 4194304 840 0 0 0 70 5 0 0 20 "
                         "0 1 0 4363404\n",
                         &ticks));
    assert_int_equal(ticks, 75);
    /* a name the job chose: ") R 1 2 3 4 5 6 7 8 9 10 999" is 15 bytes at most, but any */
    assert_true(ticks_of("12 (x) R 1 2 3 4) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0\n", &ticks));
    assert_int_equal(ticks, 7);
    assert_true(
        ticks_of("12 () 9 9 9 9 9 9 9 9 9 9 9 9 9)) S 1 1 1 0 -1 0 0 0 0 0 1 2 0\n", &ticks));
    assert_int_equal(ticks, 3);
}

static void anything_else_is_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "12 (x)",
        "12 (x) R",
        "12 (x) R 1 2 3 4 5 6 7 8 9 10",                          /* no utime */
        "12 (x) R 1 2 3 4 5 6 7 8 9 10 11",                       /* no stime */
        "12 (x) R 1 2 3 4 5 6 7 8 9 10 -1 2 0",                   /* a negative time */
        "12 (x) R 1 2 3 4 5 6 7 8 9 10 1x 2 0",                   /* not a number */
        "12 (x)R 1 2 3 4 5 6 7 8 9 10 1 2 0",                     /* not the kernel's spacing */
        "12 (x) R 1 2 3 4 5 6 7 8 9 10 99999999999999999999 2 0", /* past 64 bits */
        "12 (x) R 1 2 3 4 5 6 7 8 9 10 18446744073709551615 1 0", /* the sum past them */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned long long ticks = 12345;
        if (ticks_of(bad[i], &ticks))
            fail_msg("accepted: %s", bad[i]);
        assert_int_equal(ticks, 12345);
    }
    unsigned long long ticks;
    char with_nul[] = "12 (x) R 1 2 3 4 5 6 7 8 9 10 1 2 0";
    with_nul[3] = '\0';
    assert_false(host_stat_cpu_ticks(with_nul, sizeof with_nul - 1, &ticks));
}

static void own_cpu_time_grows_as_it_works(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    double before = host_cpu_ms(fd);
    assert_true(before >= 0);
    clock_t start = clock();
    volatile unsigned long spin = 0;
    while ((double)(clock() - start) / CLOCKS_PER_SEC < 0.1)
        spin++;
    double after = host_cpu_ms(fd); /* the same descriptor, read afresh */
    assert_true(after >= before + 50);
    close(fd);
    assert_true(host_cpu_ms(fd) < 0); /* closed: unknown */
    assert_true(host_cpu_ms(-1) < 0);
}

static struct host_form timed(double reference_ms, double student_ms)
{
    struct host_form host = {.timed_known = true};
    host.timed[HOST_REFERENCE].host_cpu_ms = reference_ms;
    host.timed[HOST_STUDENT].host_cpu_ms = student_ms;
    return host;
}

static void the_bar_is_a_factor_and_a_floor(void **state)
{
    (void)state;
    double bar;
    struct host_form host = timed(1000, 1700);
    assert_false(host_cpu_too_much(&host, &bar));
    assert_true(bar == HOST_CPU_FACTOR * 1000 + HOST_CPU_FLOOR_SECONDS * 1e3);
    host = timed(1000, bar + 10);
    assert_true(host_cpu_too_much(&host, &bar));
    host = timed(10, 200); /* 20×, under the floor */
    assert_false(host_cpu_too_much(&host, &bar));
    host = timed(-1, 5000); /* unknown: no verdict from it */
    assert_false(host_cpu_too_much(&host, &bar));
    host = timed(10, 5000);
    host.timed_known = false;
    assert_false(host_cpu_too_much(&host, &bar));
    host = timed(10, 1000);
    char text[GRADER_MESSAGE_MAX];
    assert_true(host_cpu_too_much(&host, &bar));
    host_cpu_text(&host, "create_hidden_layer", bar, text, sizeof text);
    assert_non_null(strstr(text, "create_hidden_layer used 1.00 s of the host's CPU against the "
                                 "reference's 10.0 ms; the bar is 265 ms"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stat_text_is_read),
        cmocka_unit_test(anything_else_is_refused),
        cmocka_unit_test(own_cpu_time_grows_as_it_works),
        cmocka_unit_test(the_bar_is_a_factor_and_a_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
