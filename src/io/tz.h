/* Internal time helpers of the CSV reader: civil dates, ISO 8601 timestamps (timeparse.c) and IANA time
 * zones read from the system's TZif files (tz.c, RFC 8536). Never installed. */
#ifndef RAID_IO_TZ_H
#define RAID_IO_TZ_H

#include "raid.h"

#include <stddef.h>
#include <stdint.h>

#define RAID_US_PER_S INT64_C(1000000)
#define RAID_US_PER_DAY INT64_C(86400000000)

/* Floor division and the matching non-negative remainder (b > 0). */
static inline int64_t raidIoFloordiv(int64_t a, int64_t b) { return a / b - (a % b < 0); }
static inline int64_t raidIoFloormod(int64_t a, int64_t b) { int64_t m = a % b; return m < 0 ? m + b : m; }

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d, and back (H. Hinnant's algorithms). */
int64_t raidIoDaysFromCivil(int64_t y, int m, int d);
void raidIoCivilFromDays(int64_t days, int64_t *y, int *m, int *d);
int raidIoIsLeap(int64_t y);
int raidIoDaysInMonth(int64_t y, int m);

/* t (microseconds since 1970-01-01T00:00:00) as "YYYY-MM-DDTHH:MM:SS[.ffffff][Z]" into buf (at least 40
 * bytes): the fraction only when not zero, Z when utc. The form every output of RAID writes a time in
 * (raid bars' start, raid returns' timestamp) and the messages quote. Returns buf. */
const char *raidIoFormatTime(char *buf, size_t len, int64_t t, int utc);

/* A parsed ISO 8601 timestamp "YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z|+HH:MM|-HH:MM|+HHMM|+HH]".
 * wall_us: the written wall-clock time as microseconds since 1970-01-01T00:00:00 (fraction truncated to
 * microseconds); has_offset: 1 if an offset (or Z) was given, offset_s its value (east positive). */
typedef struct RaidIoTs {
    int64_t wall_us;
    int has_offset;
    int32_t offset_s;
} RaidIoTs;

/* Parse s[0..n) (no surrounding blanks). Returns 0 on success, -1 if it is not such a timestamp or a
 * field is out of range. */
int raidIoParseTimestamp(const char *s, size_t n, RaidIoTs *out);
/* Parse "YYYY-MM-DD" into days since the epoch. Returns 0 or -1. */
int raidIoParseDate(const char *s, size_t n, int64_t *days);
/* The date of the last parse, for the _c variants below (zero it before the first): the same results,
 * rows of one day parsed once (the table reader keeps one per block). */
typedef struct RaidIoDayCache {
    char ymd[10];
    int valid;
    int64_t days;
} RaidIoDayCache;
int raidIoParseTimestampC(const char *s, size_t n, RaidIoTs *out, RaidIoDayCache *c);
int raidIoParseDateC(const char *s, size_t n, int64_t *days, RaidIoDayCache *c);

/* A time zone: UT offsets over time, from a TZif file (version 1 to 4) and its POSIX TZ footer. */
typedef struct RaidIoTz RaidIoTz;

/* Load the IANA zone `name` ("Europe/Zurich") from $TZDIR (if set and not empty) or /usr/share/zoneinfo.
 * NULL means "UTC" ("" is an unknown zone); "UTC" works without zoneinfo files. The process environment
 * is only read.
 * Errors (raid_errmsg): RAID_EINVAL "unknown time zone 'X'" (also for a file that is not TZif), RAID_ENOMEM. */
raid_status raidIoTzOpen(RaidIoTz **out, const char *name);
/* The zone of the TZif file whose bytes are p[0..n) (RFC 8536; what raidIoTzOpen reads from the file,
 * parsed by the same code): for callers that have the bytes, and the fuzz harness tests/fuzz/fuzz_tzif.c.
 * Errors (raid_errmsg): RAID_EINVAL "not a valid TZif file (RFC 8536)" (also p NULL), RAID_ENOMEM. */
raid_status raidIoTzFromTzif(RaidIoTz **out, const unsigned char *p, size_t n);
/* A zone given by a POSIX TZ string alone ("CET-1CEST,M3.5.0,M10.5.0/3"). Errors (raid_errmsg): RAID_EINVAL,
 * RAID_ENOMEM. */
raid_status raidIoTzFromPosix(RaidIoTz **out, const char *tzstring);
void raidIoTzFree(RaidIoTz *tz);

/* UT offset in seconds (east positive) of local time at UTC instant t (seconds since the epoch).
 * If lo/hi are not NULL they receive an interval [*lo, *hi) containing t over which the offset is
 * constant (a cache key for the caller). */
int32_t raidIoTzOffset(const RaidIoTz *tz, int64_t t, int64_t *lo, int64_t *hi);
/* The UTC instant (microseconds) of local wall-clock time w_us: the offset at w_us read as UTC, then at the
 * instant so found, then the other one, the first that gives w_us back (a repeated local hour: one of its
 * two instants); a local time that does not exist (the hour skipped by a switch to summer time) is the
 * instant of the switch, so that local times in order have instants in order (equal in the gap). */
int64_t raidIoTzInstant(const RaidIoTz *tz, int64_t w_us);

#endif
