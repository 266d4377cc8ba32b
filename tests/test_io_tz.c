/* Time zones (src/io/tz.c, RFC 8536 TZif + POSIX TZ footer) against glibc's localtime_r, and the ISO 8601
 * timestamp parser. setenv("TZ") is used here only, to get glibc's answer. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "io/tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int32_t glibc_offset(int64_t t, struct tm *out)
{
    time_t tt = (time_t)t;
    struct tm tm;
    assert_non_null(localtime_r(&tt, &tm));
    if (out)
        *out = tm;
    /* tm_gmtoff is a GNU extension: recompute it from the broken-down local time. */
    int64_t local = raidIoDaysFromCivil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday) * 86400 +
                    tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
    return (int32_t)(local - t);
}

/* Compare our offsets with glibc's for zone `tzenv` (the TZ value) over 1970-2040: every 6 hours,
 * around every transition glibc shows, and at a pseudo-random set of instants. */
static size_t compare_zone(const RaidIoTz *z, const char *tzenv)
{
    setenv("TZ", tzenv, 1);
    tzset();
    const int64_t t0 = 0, t1 = raidIoDaysFromCivil(2041, 1, 1) * 86400;
    int32_t prev = glibc_offset(t0, NULL);
    size_t nswitch = 0;
    for (int64_t t = t0; t < t1; t += 6 * 3600) {
        int32_t g = glibc_offset(t, NULL);
        int32_t m = raidIoTzOffset(z, t, NULL, NULL);
        if (g != m)
            fail_msg("%s: t=%lld: glibc %d, raid %d", tzenv, (long long)t, g, m);
        if (g != prev) {
            /* A switch in (t - 6h, t]: find it to the second by bisection and check both sides. */
            int64_t lo = t - 6 * 3600, hi = t;
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                if (glibc_offset(mid, NULL) == prev)
                    lo = mid;
                else
                    hi = mid;
            }
            for (int64_t u = hi - 2; u <= hi + 1; u++) {
                int64_t l, h;
                int32_t mm = raidIoTzOffset(z, u, &l, &h);
                assert_int_equal(mm, glibc_offset(u, NULL));
                assert_true(l <= u && u < h);
            }
            nswitch++;
            prev = g;
        }
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t t = t0 + (int64_t)(x % (uint64_t)(t1 - t0));
        struct tm tm;
        int32_t g = glibc_offset(t, &tm);
        int64_t l, h;
        int32_t m = raidIoTzOffset(z, t, &l, &h);
        if (g != m)
            fail_msg("%s: t=%lld: glibc %d, raid %d", tzenv, (long long)t, g, m);
        assert_true(l <= t && t < h);
        /* The offset really is constant over the reported interval's ends (clipped to the range). */
        if (l > t0)
            assert_int_equal(glibc_offset(l, NULL), m);
        if (h - 1 < t1)
            assert_int_equal(glibc_offset(h - 1, NULL), m);
        /* Local civil time agrees too. */
        int64_t y;
        int mo, d;
        raidIoCivilFromDays(raidIoFloordiv(t + m, 86400), &y, &mo, &d);
        assert_int_equal(y, tm.tm_year + 1900);
        assert_int_equal(mo, tm.tm_mon + 1);
        assert_int_equal(d, tm.tm_mday);
    }
    unsetenv("TZ");
    tzset();
    if (strchr(tzenv, ','))
        assert_true(nswitch > 100);
    return nswitch;
}

static void check_iana(const char *name, size_t min_switches)
{
    RaidIoTz *z = NULL;
    assert_int_equal(raidIoTzOpen(&z, name), RAID_OK);
    size_t ns = compare_zone(z, name);
    if (ns < min_switches)
        fail_msg("%s: only %zu switches seen", name, ns);
    raidIoTzFree(z);
}

static void test_zurich(void **st) { (void)st; check_iana("Europe/Zurich", 100); }
static void test_new_york(void **st) { (void)st; check_iana("America/New_York", 100); }
static void test_tokyo(void **st) { (void)st; check_iana("Asia/Tokyo", 0); }
static void test_sydney(void **st) { (void)st; check_iana("Australia/Sydney", 100); }
static void test_utc(void **st)
{
    (void)st;
    check_iana("UTC", 0);
    RaidIoTz *z = NULL;
    assert_int_equal(raidIoTzOpen(&z, NULL), RAID_OK);
    assert_int_equal(raidIoTzOffset(z, 1234567890, NULL, NULL), 0);
    raidIoTzFree(z);
}

/* Known values, independent of glibc. */
static void test_known_offsets(void **st)
{
    (void)st;
    RaidIoTz *z = NULL;
    assert_int_equal(raidIoTzOpen(&z, "Europe/Zurich"), RAID_OK);
    int64_t d = raidIoDaysFromCivil(2020, 3, 29) * 86400; /* CET -> CEST at 01:00 UTC */
    assert_int_equal(raidIoTzOffset(z, d + 3600 - 1, NULL, NULL), 3600);
    assert_int_equal(raidIoTzOffset(z, d + 3600, NULL, NULL), 7200);
    d = raidIoDaysFromCivil(2039, 10, 30) * 86400; /* footer era: last Sunday of October 2039 */
    assert_int_equal(raidIoTzOffset(z, d + 3600 - 1, NULL, NULL), 7200);
    assert_int_equal(raidIoTzOffset(z, d + 3600, NULL, NULL), 3600);
    assert_int_equal(raidIoTzOffset(z, raidIoDaysFromCivil(1975, 7, 1) * 86400, NULL, NULL), 3600);
    raidIoTzFree(z);
}

/* The instant of a local time (raidIoTzInstant, the order key of a CSV row without offset under --tz):
 * exact away from the switches, one of the two in a repeated hour, the switch itself in a skipped hour, so
 * that local times in order never give instants out of order. New York and Sydney (east), in both eras. */
static void test_local_instants(void **st)
{
    (void)st;
    static const struct {
        const char *zone;
        int y, m, d, hh, mm;
        int64_t want_s; /* seconds after that day's 00:00 UTC; or below: either */
        int64_t or_s;
    } c[] = {
        {"America/New_York", 2020, 1, 15, 12, 0, 17 * 3600, -1},
        {"America/New_York", 2020, 3, 8, 1, 59, 6 * 3600 + 59 * 60, -1},
        {"America/New_York", 2020, 3, 8, 2, 0, 7 * 3600, -1},  /* skipped: the switch, 07:00Z */
        {"America/New_York", 2020, 3, 8, 2, 30, 7 * 3600, -1},
        {"America/New_York", 2020, 3, 8, 3, 0, 7 * 3600, -1},  /* 03:00 EDT */
        {"America/New_York", 2020, 3, 8, 3, 1, 7 * 3600 + 60, -1},
        {"America/New_York", 2020, 11, 1, 1, 30, 5 * 3600 + 1800, 6 * 3600 + 1800}, /* repeated */
        {"America/New_York", 2020, 11, 1, 2, 0, 7 * 3600, -1},
        {"America/New_York", 2045, 3, 12, 2, 30, 7 * 3600, -1}, /* the footer's rules */
        {"Australia/Sydney", 2020, 10, 4, 2, 30, -8 * 3600, -1}, /* 02:00 AEST -> 03:00 AEDT = 16:00Z the day before */
        {"Australia/Sydney", 2020, 10, 4, 3, 30, -8 * 3600 + 1800, -1},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        RaidIoTz *z = NULL;
        assert_int_equal(raidIoTzOpen(&z, c[i].zone), RAID_OK);
        const int64_t day = raidIoDaysFromCivil(c[i].y, c[i].m, c[i].d) * 86400;
        const int64_t w_us = (day + c[i].hh * 3600 + c[i].mm * 60) * RAID_US_PER_S;
        const int64_t got = raidIoTzInstant(z, w_us) / RAID_US_PER_S - day;
        if (got != c[i].want_s && got != c[i].or_s)
            fail_msg("%s %d-%02d-%02d %02d:%02d: %lld s, expected %lld", c[i].zone, c[i].y, c[i].m, c[i].d, c[i].hh,
                     c[i].mm, (long long)got, (long long)c[i].want_s);
        raidIoTzFree(z);
    }
}

/* POSIX TZ strings alone (the footer code), against glibc given the same string. */
static void test_posix_strings(void **st)
{
    (void)st;
    const char *s[] = {"CET-1CEST,M3.5.0,M10.5.0/3", "AEST-10AEDT,M10.1.0,M4.1.0/3", "EST5EDT,M3.2.0,M11.1.0",
                       "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "JST-9", "IST-2IDT,M3.4.4/26,M10.5.0",
                       "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "XXX3YYY,J60/2,300/3"};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
        RaidIoTz *z = NULL;
        assert_int_equal(raidIoTzFromPosix(&z, s[i]), RAID_OK);
        compare_zone(z, s[i]);
        raidIoTzFree(z);
    }
    RaidIoTz *z = NULL;
    assert_int_equal(raidIoTzFromPosix(&z, "CET"), RAID_EINVAL);
    assert_int_equal(raidIoTzFromPosix(&z, "CET-1CEST,M13.5.0,M10.5.0"), RAID_EINVAL);
    assert_null(z);
}

/* Rules whose transitions fall in the next year (RFC 8536 allows rule times up to 167 hours): the last
 * Sunday of December + 98 h ends summer time in January, after the next year's start (day 0, 02:00). The
 * offset of an instant is that of the latest transition before it, which may then belong to the year
 * before last (y - 2): only years y - 1 .. y + 1 were looked at, so that 0001-12-31T23:00 read as summer
 * time with an interval overlapping the one before (found by fuzzing, tests/fuzz/corpus/time). Each
 * instant's interval [lo, hi) has its offset at both ends, and the intervals tile time. */
static void test_posix_rules_across_years(void **st)
{
    (void)st;
    const char *s[] = {"ETm1CEST,0,M12.5.0/98", "AAA3BBB,J365/167,J1/-167", "AAA-3BBB,M12.4.0/150,M1.1.0/-100"};
    for (size_t k = 0; k < sizeof s / sizeof *s; k++) {
        RaidIoTz *z = NULL;
        assert_int_equal(raidIoTzFromPosix(&z, s[k]), RAID_OK);
        const int64_t from[] = {INT64_C(-62135596800), INT64_C(1546300800)}; /* 0001 and 2019 */
        for (size_t f = 0; f < 2; f++) {
            int64_t t = from[f], prev_hi = 0;
            for (int step = 0; step < 40; step++) {
                int64_t lo, hi, lo2, hi2;
                const int32_t off = raidIoTzOffset(z, t, &lo, &hi);
                assert_true(lo <= t && t < hi);
                if (step > 0)
                    assert_true(lo == prev_hi);
                assert_int_equal(raidIoTzOffset(z, hi - 1, &lo2, &hi2), off);
                assert_true(lo2 == lo && hi2 == hi);
                prev_hi = hi;
                t = hi;
            }
        }
        raidIoTzFree(z);
    }
    RaidIoTz *z = NULL;
    assert_int_equal(raidIoTzFromPosix(&z, "ETm1CEST,0,M12.5.0/98"), RAID_OK);
    /* 0001-12-31T23:00 local: the summer time of 0001 ended on 0001-01-04 (rule of year 0); 0002's starts
     * at 0002-01-01T02:00 */
    assert_int_equal(raidIoTzOffset(z, INT64_C(-62104050001), NULL, NULL), -3600);
    assert_int_equal(raidIoTzOffset(z, INT64_C(-62104050000), NULL, NULL), 0);
    raidIoTzFree(z);
}

static void test_unknown_and_tzdir(void **st)
{
    (void)st;
    RaidIoTz *z = NULL;
    assert_int_equal(raidIoTzOpen(&z, "Mars/Olympus_Mons"), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "unknown time zone 'Mars/Olympus_Mons'");
    assert_null(z);
    assert_int_equal(raidIoTzOpen(&z, "../../etc/passwd"), RAID_EINVAL);
    assert_int_equal(raidIoTzOpen(&z, "Europe"), RAID_EINVAL); /* a directory */
    assert_string_equal(raid_errmsg(), "unknown time zone 'Europe'");
    assert_int_equal(raidIoTzOpen(&z, ""), RAID_EINVAL); /* NULL is UTC, "" is not */
    assert_string_equal(raid_errmsg(), "unknown time zone ''");
    assert_null(z);

    /* TZDIR: a private copy of Asia/Tokyo under another name; a non-TZif file is unknown. */
    char *data = NULL;
    FILE *f = fopen("/usr/share/zoneinfo/Asia/Tokyo", "rb");
    assert_non_null(f);
    data = malloc(65536);
    size_t n = fread(data, 1, 65536, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", t_tmppath("zi/My"));
    assert_int_equal(system(cmd), 0);
    f = fopen(t_tmppath("zi/My/Zone"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    free(data);
    assert_int_equal(t_write_file(t_tmppath("zi/My/Junk"), "not a tzif file\n"), 0);
    setenv("TZDIR", t_tmppath("zi"), 1);
    assert_int_equal(raidIoTzOpen(&z, "My/Zone"), RAID_OK);
    assert_int_equal(raidIoTzOffset(z, 1600000000, NULL, NULL), 9 * 3600);
    raidIoTzFree(z);
    assert_int_equal(raidIoTzOpen(&z, "My/Junk"), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "unknown time zone 'My/Junk'");
    /* UTC works without any zoneinfo file. */
    assert_int_equal(raidIoTzOpen(&z, "UTC"), RAID_OK);
    assert_int_equal(raidIoTzOffset(z, 1600000000, NULL, NULL), 0);
    raidIoTzFree(z);
    unsetenv("TZDIR");
}

static void test_civil(void **st)
{
    (void)st;
    assert_int_equal(raidIoDaysFromCivil(1970, 1, 1), 0);
    assert_int_equal(raidIoDaysFromCivil(2000, 3, 1), 11017);
    assert_int_equal(raidIoDaysFromCivil(1969, 12, 31), -1);
    for (int64_t d = -800000; d < 800000; d += 7) {
        int64_t y;
        int m, dd;
        raidIoCivilFromDays(d, &y, &m, &dd);
        assert_int_equal(raidIoDaysFromCivil(y, m, dd), d);
    }
}

static void expect_ts(const char *s, int64_t wall_us, int has_off, int32_t off)
{
    RaidIoTs ts;
    if (raidIoParseTimestamp(s, strlen(s), &ts) != 0)
        fail_msg("rejected '%s'", s);
    assert_int_equal(ts.wall_us, wall_us);
    assert_int_equal(ts.has_offset, has_off);
    assert_int_equal(ts.offset_s, off);
}

static void test_timestamps(void **st)
{
    (void)st;
    const int64_t base = raidIoDaysFromCivil(2020, 3, 29) * 86400 * INT64_C(1000000);
    const int64_t h = 3600 * INT64_C(1000000);
    expect_ts("2020-03-29T01:30:00", base + h + h / 2, 0, 0);
    expect_ts("2020-03-29 01:30:00", base + h + h / 2, 0, 0);
    expect_ts("2020-03-29T01:30:00Z", base + h + h / 2, 1, 0);
    expect_ts("2020-03-29T01:30:00.5+01:00", base + h + h / 2 + 500000, 1, 3600);
    expect_ts("2020-03-29T01:30:00.123456789-0530", base + h + h / 2 + 123456, 1, -19800);
    expect_ts("2020-03-29T01:30:00,000001+02", base + h + h / 2 + 1, 1, 7200);
    expect_ts("1960-01-01T00:00:00", raidIoDaysFromCivil(1960, 1, 1) * 86400 * INT64_C(1000000), 0, 0);
    const char *bad[] = {"2020-13-01T00:00:00", "2020-02-30T00:00:00", "2019-02-29T00:00:00",
                         "2020-01-01T24:00:00", "2020-01-01T00:60:00", "2020-01-01T00:00:60",
                         "2020-01-01T00:00", "2020-01-01", "2020-01-01X00:00:00", "2020-01-01T00:00:00.",
                         "2020-01-01T00:00:00.1234567890", "2020-01-01T00:00:00+1", "2020-01-01T00:00:00+24:00",
                         "2020-01-01T00:00:00Zx", "2020-01-01T00:00:00 ", "20-01-01T00:00:00", "",
                         "2020-1-01T00:00:00", "2020-01-01T00:00:00+01:60"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        RaidIoTs ts;
        if (raidIoParseTimestamp(bad[i], strlen(bad[i]), &ts) == 0)
            fail_msg("accepted '%s'", bad[i]);
    }
    int64_t d;
    assert_int_equal(raidIoParseDate("2020-02-29", 10, &d), 0);
    assert_int_equal(d, raidIoDaysFromCivil(2020, 2, 29));
    assert_int_equal(raidIoParseDate("2021-02-29", 10, &d), -1);
    assert_int_equal(raidIoParseDate("2021-02-28T", 11, &d), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_civil),         cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_local_instants),
        cmocka_unit_test(test_known_offsets), cmocka_unit_test(test_zurich),
        cmocka_unit_test(test_new_york),      cmocka_unit_test(test_tokyo),
        cmocka_unit_test(test_sydney),        cmocka_unit_test(test_utc),
        cmocka_unit_test(test_posix_strings), cmocka_unit_test(test_unknown_and_tzdir),
        cmocka_unit_test(test_posix_rules_across_years),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
