/* Civil dates and ISO 8601 timestamps for the CSV reader.
 *
 * Accepted (ISO 8601 extended format, with the RFC 3339 space allowed for 'T'):
 *   YYYY-MM-DDTHH:MM:SS[.fffffffff][Z | +HH:MM | -HH:MM | +HHMM | -HHMM | +HH | -HH]
 * The fraction has 1 to 9 digits ('.' or ','), truncated to microseconds. Leap seconds (:60) and 24:00
 * are rejected. Civil-date arithmetic: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms". */
#include "io/tz.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int raidIoIsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int raidIoDaysInMonth(int64_t y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12)
        return 0;
    return dm[m - 1] + (m == 2 && raidIoIsLeap(y));
}

int64_t raidIoDaysFromCivil(int64_t y, int m, int d)
{
    y -= m <= 2;
    const int64_t era = raidIoFloordiv(y, 400);
    const int64_t yoe = y - era * 400;                                       /* [0, 399] */
    const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;     /* [0, 365] */
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;               /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

void raidIoCivilFromDays(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    const int64_t era = raidIoFloordiv(z, 146097);
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int dd = (int)(doy - (153 * mp + 2) / 5 + 1);
    const int mm = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (mm <= 2);
    *m = mm;
    *d = dd;
}

/* n decimal digits at s (all must be digits); -1 if not. */
static int64_t digits(const char *s, int n)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* "YYYY-MM-DD" at s[0..10) into days since the epoch; the date of the previous call is remembered in c
 * (NULL: none), so that rows of one day cost a comparison. */
static int parse_ymd(const char *s, size_t n, int64_t *days, RaidIoDayCache *c)
{
    if (n < 10)
        return -1;
    if (c && c->valid && memcmp(s, c->ymd, 10) == 0) {
        *days = c->days;
        return 0;
    }
    if (s[4] != '-' || s[7] != '-')
        return -1;
    int64_t y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
    if (y < 1 || m < 1 || m > 12 || d < 1 || d > raidIoDaysInMonth(y, (int)m))
        return -1;
    *days = raidIoDaysFromCivil(y, (int)m, (int)d);
    if (c) {
        memcpy(c->ymd, s, 10);
        c->days = *days;
        c->valid = 1;
    }
    return 0;
}

int raidIoParseDateC(const char *s, size_t n, int64_t *days, RaidIoDayCache *c)
{
    if (n != 10)
        return -1;
    return parse_ymd(s, n, days, c);
}

int raidIoParseDate(const char *s, size_t n, int64_t *days) { return raidIoParseDateC(s, n, days, NULL); }

int raidIoParseTimestamp(const char *s, size_t n, RaidIoTs *out) { return raidIoParseTimestampC(s, n, out, NULL); }

int raidIoParseTimestampC(const char *s, size_t n, RaidIoTs *out, RaidIoDayCache *c)
{
    int64_t days;
    if (n < 19 || parse_ymd(s, n, &days, c) != 0)
        return -1;
    if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
        return -1;
    if (s[13] != ':' || s[16] != ':')
        return -1;
    int64_t hh = digits(s + 11, 2), mi = digits(s + 14, 2), ss = digits(s + 17, 2);
    if (hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 59)
        return -1;
    size_t i = 19;
    int64_t frac_us = 0;
    if (i < n && (s[i] == '.' || s[i] == ',')) {
        i++;
        int nd = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (nd < 6)
                frac_us = frac_us * 10 + (s[i] - '0');
            nd++;
            i++;
        }
        if (nd < 1 || nd > 9)
            return -1;
        for (int k = nd; k < 6; k++)
            frac_us *= 10;
    }
    out->has_offset = 0;
    out->offset_s = 0;
    if (i < n) {
        if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == n) {
            out->has_offset = 1;
        } else if (s[i] == '+' || s[i] == '-') {
            int sign = s[i] == '-' ? -1 : 1;
            const char *o = s + i + 1;
            size_t rest = n - i - 1;
            int64_t oh, om = 0;
            if (rest == 2) {
                oh = digits(o, 2);
            } else if (rest == 4) {
                oh = digits(o, 2);
                om = digits(o + 2, 2);
            } else if (rest == 5 && o[2] == ':') {
                oh = digits(o, 2);
                om = digits(o + 3, 2);
            } else {
                return -1;
            }
            if (oh < 0 || oh > 23 || om < 0 || om > 59)
                return -1;
            out->has_offset = 1;
            out->offset_s = (int32_t)(sign * (oh * 3600 + om * 60));
        } else {
            return -1;
        }
    }
    out->wall_us = (days * 86400 + hh * 3600 + mi * 60 + ss) * RAID_US_PER_S + frac_us;
    return 0;
}

const char *raidIoFormatTime(char *buf, size_t len, int64_t t, int utc)
{
    const int64_t day = raidIoFloordiv(t, RAID_US_PER_DAY);
    const int64_t tod = t - day * RAID_US_PER_DAY;
    int64_t y;
    int m, d;
    raidIoCivilFromDays(day, &y, &m, &d);
    const int64_t s = tod / RAID_US_PER_S, us = tod % RAID_US_PER_S;
    int k = snprintf(buf, len, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d", y, m, d, (int)(s / 3600),
                     (int)(s / 60 % 60), (int)(s % 60));
    if (us && k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, ".%06d", (int)us);
    if (utc && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, "Z");
    return buf;
}
