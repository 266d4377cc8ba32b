/* Fuzz target `time`: the parsers of timestamps, dates and the time options (src/io/timeparse.c,
 * src/io/segment.c, src/jobs/bars.c, src/io/tz.c).
 *
 * Input: 1 option byte, then the text.
 *   0     mode (mod 7): 0 timestamp, 1 date (the table reader's parsers, raidIoParseTimestamp and
 *         raidIoParseDate), 2 --session (raid_parse_session), 3 --sample (raid_parse_sample), 4 the bars'
 *         --interval (raid_bars_parse_interval), 5 --tz (raidIoTzOpen: a zone name, read from the
 *         system's zoneinfo), 6 a POSIX TZ string (raidIoTzFromPosix, the TZif footer's parser)
 * Checks: what parses round-trips (the fields of a timestamp or date written back from its value, a session
 * written back as HH:MM-HH:MM parses to the same seconds, ...); the day cache of the table reader gives
 * the uncached result; a failure sets a message; a zone's offsets keep their contract (fz_check_tz). */
#include "fuzz_common.h"

#include "io/tz.h"
#include "raid.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int64_t num(const char *s, int n)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

static void check_timestamp(const char *s, size_t n)
{
    RaidIoTs ts, tc;
    const int rc = raidIoParseTimestamp(s, n, &ts);
    /* the table reader's day cache, primed by this date (and by another one), gives the same */
    RaidIoDayCache cache;
    memset(&cache, 0, sizeof cache);
    int64_t d;
    raidIoParseDateC("2000-01-01", 10, &d, &cache);
    if (n >= 10)
        raidIoParseDateC(s, 10, &d, &cache);
    const int rc2 = raidIoParseTimestampC(s, n, &tc, &cache);
    FZ_CHECK(rc == rc2, "timestamp '%.*s': %d without the day cache, %d with it", (int)n, s, rc, rc2);
    if (rc != 0)
        return;
    FZ_CHECK(ts.wall_us == tc.wall_us && ts.has_offset == tc.has_offset && ts.offset_s == tc.offset_s,
             "timestamp '%.*s': the day cache changes its value", (int)n, s);
    /* the fields written back */
    const int64_t day = raidIoFloordiv(ts.wall_us, RAID_US_PER_DAY), us = raidIoFloormod(ts.wall_us, RAID_US_PER_DAY);
    int64_t y;
    int m, dd;
    raidIoCivilFromDays(day, &y, &m, &dd);
    FZ_CHECK(n >= 19 && y == num(s, 4) && m == num(s + 5, 2) && dd == num(s + 8, 2) &&
                 us / 3600000000 == num(s + 11, 2) && us / 60000000 % 60 == num(s + 14, 2) &&
                 us / 1000000 % 60 == num(s + 17, 2),
             "timestamp '%.*s' read as %lld us", (int)n, s, (long long)ts.wall_us);
    size_t i = 19;
    int64_t frac = 0;
    int nd = 0;
    if (i < n && (s[i] == '.' || s[i] == ',')) {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, nd++)
            if (nd < 6)
                frac = frac * 10 + (s[i] - '0');
        for (int k = nd; k < 6; k++)
            frac *= 10;
    }
    FZ_CHECK(us % 1000000 == frac, "timestamp '%.*s': fraction %lld us, read as %lld", (int)n, s, (long long)frac,
             (long long)(us % 1000000));
    FZ_CHECK(ts.has_offset == (i < n), "timestamp '%.*s': offset %d", (int)n, s, ts.has_offset);
    if (i < n && s[i] != 'Z' && s[i] != 'z') {
        const int sign = s[i] == '-' ? -1 : 1;
        const char *o = s + i + 1;
        const size_t rest = n - i - 1;
        const int64_t off = rest == 2 ? num(o, 2) * 3600
                            : rest == 4 ? num(o, 2) * 3600 + num(o + 2, 2) * 60
                                        : num(o, 2) * 3600 + num(o + 3, 2) * 60;
        FZ_CHECK(ts.offset_s == sign * off && ts.offset_s > -86400 && ts.offset_s < 86400,
                 "timestamp '%.*s': offset %d s", (int)n, s, (int)ts.offset_s);
    } else if (i < n) {
        FZ_CHECK(ts.offset_s == 0 && i + 1 == n, "timestamp '%.*s': Z", (int)n, s);
    }
}

static void check_date(const char *s, size_t n)
{
    int64_t d;
    if (raidIoParseDate(s, n, &d) != 0)
        return;
    int64_t y;
    int m, dd;
    raidIoCivilFromDays(d, &y, &m, &dd);
    char buf[32];
    snprintf(buf, sizeof buf, "%04lld-%02d-%02d", (long long)y, m, dd);
    FZ_CHECK(n == 10 && memcmp(buf, s, 10) == 0, "date '%.*s' read as %s", (int)n, s, buf);
    FZ_CHECK(raidIoDaysFromCivil(y, m, dd) == d, "date '%s': days %lld", buf, (long long)d);
}

static void check_session(const char *s)
{
    int32_t a = -7, b = -7;
    if (raid_parse_session(s, &a, &b) != RAID_OK) {
        FZ_CHECK(*raid_errmsg() && a == -7 && b == -7, "session '%s': a failure without a message, or outputs set", s);
        return;
    }
    FZ_CHECK(a >= 0 && a < 86400 && a % 60 == 0 && b >= 0 && b <= 86400 && b % 60 == 0 &&
                 !(b < a && b == 86400),
             "session '%s': %d-%d", s, (int)a, (int)b);
    char buf[32];
    snprintf(buf, sizeof buf, "%02d:%02d-%02d:%02d", (int)(a / 3600), (int)(a / 60 % 60), (int)(b / 3600),
             (int)(b / 60 % 60));
    int32_t a2, b2;
    FZ_CHECK(raid_parse_session(buf, &a2, &b2) == RAID_OK && a2 == a && b2 == b, "session '%s' written back as '%s'",
             s, buf);
}

static void check_sample(const char *s)
{
    int64_t us = -7;
    if (raid_parse_sample(s, &us) != RAID_OK) {
        FZ_CHECK(*raid_errmsg() && us == -7, "sample '%s': a failure without a message, or the output set", s);
        return;
    }
    FZ_CHECK(us >= 0 && us <= RAID_US_PER_DAY && (us == 0) == (strcasecmp(s, "tick") == 0), "sample '%s': %lld us",
             s, (long long)us);
}

static void check_interval(const char *s)
{
    int64_t us = -7;
    if (raid_bars_parse_interval(s, &us) != RAID_OK) {
        FZ_CHECK(*raid_errmsg() && us == -7, "interval '%s': a failure without a message, or the output set", s);
        return;
    }
    FZ_CHECK(us > 0 && us <= 3650 * RAID_US_PER_DAY, "interval '%s': %lld us", s, (long long)us);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return -1;
    fz_in in = {data, size};
    const unsigned mode = fz_u8(&in) % 7;
    char *s = malloc(in.n + 1); /* the text, NUL-terminated (the option parsers take C strings) */
    if (!s)
        return 0;
    memcpy(s, in.p, in.n);
    s[in.n] = 0;
    RaidIoTz *tz = NULL;
    switch (mode) {
    case 0: check_timestamp(s, in.n); break;
    case 1: check_date(s, in.n); break;
    case 2: check_session(s); break;
    case 3: check_sample(s); break;
    case 4: check_interval(s); break;
    case 5:
        if (strlen(s) <= 64 && raidIoTzOpen(&tz, s) == RAID_OK)
            fz_check_tz(tz, 64);
        break;
    case 6:
        if (raidIoTzFromPosix(&tz, s) == RAID_OK)
            fz_check_tz(tz, 64);
        else
            FZ_CHECK(tz == NULL && *raid_errmsg(), "raidIoTzFromPosix('%s') failed without a message", s);
        break;
    }
    raidIoTzFree(tz);
    free(s);
    return 0;
}
