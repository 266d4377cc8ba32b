/* raid_bars_compute (include/raid/bars.h) against raid_bars_run_csv on the same trades written as CSV: the
 * same bars bit for bit (one path), local times and UTC instants (RAID_BARS_UTC) in a zone, sessions (one
 * across midnight), interleaved symbols, no sizes; the accessors; the array entry's errors with their row.
 * tests/python/test_bars.py checks both against pandas. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <raid.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 400
#define BASE_S INT64_C(1704153600) /* 2024-01-02T00:00:00 */

static void same_bars(const raid_bars *a, const raid_bars *b)
{
    const size_t n = raid_bars_count(a);
    assert_int_equal(n, raid_bars_count(b));
    assert_true(n > 0);
    assert_memory_equal(raid_bars_start(a), raid_bars_start(b), n * sizeof(int64_t));
    assert_memory_equal(raid_bars_trades(a), raid_bars_trades(b), n * sizeof(int64_t));
    for (int f = RAID_BARS_OPEN; f <= RAID_BARS_VWAP; f++)
        assert_memory_equal(raid_bars_field(a, f), raid_bars_field(b, f), n * sizeof(double));
    for (size_t g = 0; g < n; g++)
        assert_string_equal(raid_bars_symbol(a, raid_bars_symbols(a)[g]), raid_bars_symbol(b, raid_bars_symbols(b)[g]));
}

static void test_same_as_csv(void **state)
{
    (void)state;
    static const char *const names[2] = {"AAA", "B,\"q\""};
    int64_t sym[N], ts[N];
    double price[N], size[N];
    uint64_t s = 7;
    int64_t t = BASE_S * 1000000;
    for (int utc = 0; utc <= 1; utc++) {
        for (int with_size = 0; with_size <= 1; with_size++) {
            const char *path = t_tmppath("trades.csv");
            FILE *f = fopen(path, "w");
            assert_non_null(f);
            fputs(with_size ? "symbol,timestamp,price,size\n" : "symbol,timestamp,price\n", f);
            for (int i = 0; i < N; i++) {
                t += (int64_t)(t_splitmix64(&s) % 900000000); /* up to 15 min apart: about 2.5 days */
                sym[i] = (int64_t)(t_splitmix64(&s) % 2), ts[i] = t;
                price[i] = 100.0 + (double)(t_splitmix64(&s) % 1000) / 64.0;
                size[i] = (double)(t_splitmix64(&s) % 300);
            }
            for (int i = 0, flip = (int)sym[0]; i < N; i++) /* codes in order of first appearance, as the CSV's */
                sym[i] ^= flip;
            for (int i = 0; i < N; i++) {
                const int64_t ti = ts[i];
                const time_t sec = (time_t)(ti / 1000000);
                struct tm tm;
                gmtime_r(&sec, &tm);
                char buf[64];
                strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
                fprintf(f, "%s,%s.%06lld%s,%.17g", sym[i] ? "\"B,\"\"q\"\"\"" : "AAA", buf, (long long)(ti % 1000000),
                        utc ? "Z" : "", price[i]);
                if (with_size)
                    fprintf(f, ",%.17g", size[i]);
                fputc('\n', f);
            }
            fclose(f);
            static const char *const cases[][3] = {{"1h", NULL, NULL},           {"5min", "America/New_York", NULL},
                                                   {"1d", NULL, "09:30-16:00"}, {"1d", "Europe/London", "17:00-16:00"},
                                                   {"1h", NULL, "17:00-16:00"}, {"2d", "Asia/Tokyo", "00:00-24:00"}};
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                for (int dev = 0; dev <= t_have_opencl(); dev++) {
                    raid_ctx *ctx = t_open_ctx(dev ? t_device() : "cpu");
                    raid_bars *a = NULL, *b = NULL;
                    if (raid_bars_run_csv(ctx, path, cases[c][0], cases[c][1], cases[c][2], &a) != RAID_OK)
                        fail_msg("csv: %s", raid_ctx_errmsg(ctx));
                    if (raid_bars_compute(ctx, sym, (const char *const *)names, 2, ts, price, with_size ? size : NULL, N,
                                          cases[c][0], cases[c][1], cases[c][2], utc ? RAID_BARS_UTC : 0, &b) != RAID_OK)
                        fail_msg("arrays: %s", raid_ctx_errmsg(ctx));
                    same_bars(a, b);
                    assert_int_equal(raid_bars_nsymbols(b), 2);
                    raid_bars_destroy(a), raid_bars_destroy(b);
                    raid_ctx_destroy(ctx);
                }
            }
        }
    }
}

static void expect(raid_status want, const char *part, raid_status got, raid_bars **b)
{
    assert_int_equal(got, want);
    assert_null(*b);
    *b = (raid_bars *)1;
    if (!strstr(raid_errmsg(), part))
        fail_msg("message '%s' lacks '%s'", raid_errmsg(), part);
}

static void test_errors(void **state)
{
    (void)state;
    const char *names[2] = {"A", "B"};
    int64_t sym[3] = {0, 1, 0}, ts[3] = {BASE_S * 1000000, BASE_S * 1000000, BASE_S * 1000000 + 1};
    double price[3] = {1, 2, 3};
    raid_bars *b = NULL;
    assert_int_equal(raid_bars_compute(NULL, NULL, NULL, 0, ts, price, NULL, 3, "1min", NULL, NULL, 0, &b), RAID_OK);
    assert_int_equal(raid_bars_count(b), 1);
    assert_string_equal(raid_bars_symbol(b, 0), "");
    assert_true(raid_bars_field(b, RAID_BARS_VOLUME)[0] == 3.0 && raid_bars_trades(b)[0] == 3);
    assert_null(raid_bars_field(b, (raid_bars_col)6));
    raid_bars_destroy(b);
    b = NULL;
    assert_int_equal(raid_bars_compute(NULL, sym, names, 2, ts, price, NULL, 0, "1min", NULL, "10:00-11:00", 0, &b), RAID_OK);
    assert_int_equal(raid_bars_count(b), 0);
    assert_null(raid_bars_start(b));
    raid_bars_destroy(b);
    b = (raid_bars *)1;
    expect(RAID_EINVAL, "symbol code 2 outside [0, 2)", raid_bars_compute(NULL, (int64_t[3]){0, 2, 0}, names, 2, ts, price,
                                                                         NULL, 3, "1min", NULL, NULL, 0, &b), &b);
    expect(RAID_EINVAL, "symbol name 'A' given twice",
           raid_bars_compute(NULL, sym, (const char *[2]){"A", "A"}, 2, ts, price, NULL, 3, "1min", NULL, NULL, 0, &b), &b);
    expect(RAID_EINVAL, "unknown flags", raid_bars_compute(NULL, sym, names, 2, ts, price, NULL, 3, "1min", NULL, NULL, 4, &b), &b);
    expect(RAID_EINVAL, "row 1: timestamp earlier than the previous trade of symbol 'A'",
           raid_bars_compute(NULL, (int64_t[3]){0, 0, 0}, names, 2, (int64_t[3]){5, 4, 6}, price, NULL, 3, "1min", NULL, NULL,
                             0, &b), &b);
    expect(RAID_EINVAL, "row 2: price -1", raid_bars_compute(NULL, sym, names, 2, ts, (double[3]){1, 1, -1}, NULL, 3,
                                                            "1min", NULL, NULL, 0, &b), &b);
    expect(RAID_EINVAL, "row 0: size nan", raid_bars_compute(NULL, sym, names, 2, ts, price, (double[3]){NAN, 1, 1}, 3,
                                                            "1min", NULL, NULL, 0, &b), &b);
    expect(RAID_EINVAL, "row 0: timestamp", raid_bars_compute(NULL, sym, names, 2, (int64_t[3]){INT64_MAX, 0, 0}, price,
                                                             NULL, 3, "1min", NULL, NULL, RAID_BARS_UTC, &b), &b);
    expect(RAID_EINVAL, "bad session '10:00'", raid_bars_compute(NULL, sym, names, 2, ts, price, NULL, 3, "1min", NULL,
                                                                "10:00", 0, &b), &b);
    expect(RAID_EINVAL, "unknown time zone", raid_bars_compute(NULL, sym, names, 2, ts, price, NULL, 3, "1min", "Mars/X",
                                                              NULL, 0, &b), &b);
    expect(RAID_EINVAL, "bad interval", raid_bars_compute(NULL, sym, names, 2, ts, price, NULL, 3, "0min", NULL, NULL, 0, &b), &b);
    expect(RAID_EINVAL, "NULL timestamps", raid_bars_compute(NULL, sym, names, 2, NULL, price, NULL, 3, "1min", NULL, NULL,
                                                            0, &b), &b);
    expect(RAID_EINVAL, "no symbol names", raid_bars_compute(NULL, sym, NULL, 2, ts, price, NULL, 3, "1min", NULL, NULL, 0, &b),
           &b);
    /* rows outside the session are still checked */
    expect(RAID_EINVAL, "row 0: price -1", raid_bars_compute(NULL, sym, names, 2, ts, (double[3]){-1, 1, 1}, NULL, 3, "1min",
                                                            NULL, "10:00-11:00", 0, &b), &b);
}

/* Every unit takes any N up to the 3650-day limit (25h, 1500min, 90000s as well as 2d); one message. */
#define US_S INT64_C(1000000)
#define US_DAY (86400 * US_S)

static void test_parse_interval(void **state)
{
    (void)state;
    static const struct { const char *s; int64_t us; } good[] = {
        {"1ms", 1000},
        {"90000s", INT64_C(90000) * US_S},
        {"1500min", INT64_C(90000) * US_S},
        {"25h", INT64_C(90000) * US_S},
        {"48h", 2 * US_DAY},
        {"24h", US_DAY},
        {"1440min", US_DAY},
        {"2d", 2 * US_DAY},
        {"7D", 7 * US_DAY},
        {"3650d", INT64_C(3650) * US_DAY},
        {"87600h", INT64_C(3650) * US_DAY},
        {"315360000000ms", INT64_C(3650) * US_DAY},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int64_t us = 0;
        assert_int_equal(raid_bars_parse_interval(good[i].s, &us), RAID_OK);
        assert_true(us == good[i].us);
    }
    static const char *const bad[] = {"0d", "0min", "3651d", "87601h", "315360000001ms", "5m", "1.5h", "-1h", "h", "",
                                      "1d ", " 1d", "99999999999999999999999s", "1y"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int64_t us = -7;
        assert_int_equal(raid_bars_parse_interval(bad[i], &us), RAID_EINVAL);
        assert_true(us == -7);
        char want[200];
        snprintf(want, sizeof want, "bad interval '%s' (expected Nms, Ns, Nmin, Nh or Nd, N a positive integer, at most "
                 "3650 days)", bad[i]);
        assert_string_equal(raid_errmsg(), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_as_csv), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_parse_interval)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
