/* IANA time zones without touching the process environment (no setenv("TZ"), no tzset()).
 *
 * Reads the system's TZif files (RFC 8536, "The Time Zone Information Format (TZif)") from $TZDIR or
 * /usr/share/zoneinfo: the version 2+ 64-bit data block when present (the 32-bit block of version 1
 * files otherwise), and the footer's POSIX TZ string (RFC 8536 sec. 3.3; POSIX.1-2017 sec. 8.3 with the
 * RFC's extensions: hours up to 167 and negative transition times) for instants after the last
 * transition. Leap-second records are skipped (the "right/" zones are not supported: their transition
 * times count leap seconds). */
#define _POSIX_C_SOURCE 200809L
#include "io/tz.h"
#include "io/table.h"
#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tz_rule {
    char kind;       /* 'J' (1..365, no Feb 29), 'D' (0..365), 'M' (month.week.day) */
    int a, b, c;
    int32_t time;    /* seconds after local midnight, in the time in effect before the transition */
} tz_rule;

typedef struct posix_tz {
    int valid;
    int has_dst;
    int32_t std_off, dst_off; /* UT offsets, east positive */
    tz_rule start, end;
} posix_tz;

struct RaidIoTz {
    int64_t *trans;   /* ntrans transition instants, ascending */
    uint8_t *idx;     /* the type of each transition */
    size_t ntrans;
    int32_t *utoff;   /* ntypes UT offsets */
    size_t ntypes;
    posix_tz footer;
};

/* ---------------------------------------------------------------------------------------------- */
/* POSIX TZ strings                                                                                */
/* ---------------------------------------------------------------------------------------------- */

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *parse_name(const char *p)
{
    if (*p == '<') {
        const char *q = ++p;
        while (*q && *q != '>') {
            if (!is_alpha(*q) && !is_digit(*q) && *q != '+' && *q != '-')
                return NULL;
            q++;
        }
        if (*q != '>' || q - p < 3)
            return NULL;
        return q + 1;
    }
    const char *q = p;
    while (is_alpha(*q))
        q++;
    return q - p >= 3 ? q : NULL;
}

static const char *parse_num(const char *p, int *v, int maxdigits, int maxval)
{
    int n = 0, x = 0;
    while (is_digit(*p) && n < maxdigits) {
        x = x * 10 + (*p++ - '0');
        n++;
    }
    if (n == 0 || x > maxval)
        return NULL;
    *v = x;
    return p;
}

/* [+-]hh[:mm[:ss]] into signed seconds. */
static const char *parse_hms(const char *p, int32_t *out, int maxh)
{
    int sign = 1, h = 0, m = 0, s = 0;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    if (!(p = parse_num(p, &h, 3, maxh)))
        return NULL;
    if (*p == ':') {
        if (!(p = parse_num(p + 1, &m, 2, 59)))
            return NULL;
        if (*p == ':' && !(p = parse_num(p + 1, &s, 2, 59)))
            return NULL;
    }
    *out = sign * (h * 3600 + m * 60 + s);
    return p;
}

static const char *parse_rule(const char *p, tz_rule *r)
{
    if (*p == 'J') {
        r->kind = 'J';
        if (!(p = parse_num(p + 1, &r->a, 3, 365)) || r->a < 1)
            return NULL;
    } else if (*p == 'M') {
        r->kind = 'M';
        if (!(p = parse_num(p + 1, &r->a, 2, 12)) || r->a < 1 || *p != '.')
            return NULL;
        if (!(p = parse_num(p + 1, &r->b, 1, 5)) || r->b < 1 || *p != '.')
            return NULL;
        if (!(p = parse_num(p + 1, &r->c, 1, 6)))
            return NULL;
    } else if (is_digit(*p)) {
        r->kind = 'D';
        if (!(p = parse_num(p, &r->a, 3, 365)))
            return NULL;
    } else {
        return NULL;
    }
    r->time = 7200;
    if (*p == '/' && !(p = parse_hms(p + 1, &r->time, 167)))
        return NULL;
    return p;
}

static int parse_posix(const char *s, posix_tz *z)
{
    memset(z, 0, sizeof *z);
    const char *p = parse_name(s);
    int32_t off;
    if (!p || !(p = parse_hms(p, &off, 24)))
        return -1;
    z->std_off = -off; /* POSIX offsets are positive west of Greenwich */
    if (*p) {
        if (!(p = parse_name(p)))
            return -1;
        z->has_dst = 1;
        z->dst_off = z->std_off + 3600;
        if (*p && *p != ',') {
            if (!(p = parse_hms(p, &off, 24)))
                return -1;
            z->dst_off = -off;
        }
        if (*p == ',') {
            if (!(p = parse_rule(p + 1, &z->start)) || *p != ',' || !(p = parse_rule(p + 1, &z->end)))
                return -1;
        } else {
            /* No rule: the US rules, as glibc assumes. */
            z->start = (tz_rule){'M', 3, 2, 0, 7200};
            z->end = (tz_rule){'M', 11, 1, 0, 7200};
        }
    }
    if (*p)
        return -1;
    z->valid = 1;
    return 0;
}

/* Local (in the time before the transition) seconds since the epoch of rule r in year y. */
static int64_t rule_local(const tz_rule *r, int64_t y)
{
    int64_t days;
    if (r->kind == 'J') {
        days = raidIoDaysFromCivil(y, 1, 1) + r->a - 1 + (raidIoIsLeap(y) && r->a >= 60);
    } else if (r->kind == 'D') {
        days = raidIoDaysFromCivil(y, 1, 1) + r->a;
    } else {
        int64_t first = raidIoDaysFromCivil(y, r->a, 1);
        int wday = (int)raidIoFloormod(first + 4, 7); /* 1970-01-01 was a Thursday */
        int d = 1 + (r->c - wday + 7) % 7 + (r->b - 1) * 7;
        int dim = raidIoDaysInMonth(y, r->a);
        while (d > dim)
            d -= 7;
        days = first + d - 1;
    }
    return days * 86400 + r->time;
}

static int32_t posix_offset(const posix_tz *z, int64_t t, int64_t *lo, int64_t *hi)
{
    if (!z->has_dst) {
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        return z->std_off;
    }
    int64_t y0, yy;
    int mm, dd;
    raidIoCivilFromDays(raidIoFloordiv(t + z->std_off, 86400), &y0, &mm, &dd);
    /* The latest transition at or before t and the earliest after it, among years y0-2 .. y0+2. A rule's
     * transition of year y lies within about 8 days of year y (rule times of -167 to 167 hours, offsets of
     * a day), and a rule's transitions increase with the year: the latest one at or before t is of year
     * y0-2 at the earliest (that of y0-1 can fall after t, early in January: M12.5.0/98), the earliest one
     * after t of year y0+2 at the latest. */
    int64_t best = INT64_MIN, next = INT64_MAX;
    int best_dst = 0;
    for (yy = y0 - 2; yy <= y0 + 2; yy++) {
        int64_t e = rule_local(&z->end, yy) - z->dst_off;
        int64_t s = rule_local(&z->start, yy) - z->std_off;
        /* On a tie the start of DST wins (a zone in DST all year ends and restarts at one instant). */
        if (e <= t && e > best) {
            best = e;
            best_dst = 0;
        }
        if (s <= t && s >= best) {
            best = s;
            best_dst = 1;
        }
        if (e > t && e < next)
            next = e;
        if (s > t && s < next)
            next = s;
    }
    *lo = best;
    *hi = next;
    return best_dst ? z->dst_off : z->std_off;
}

/* ---------------------------------------------------------------------------------------------- */
/* TZif                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static int64_t be64(const unsigned char *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

typedef struct tzif_counts { uint32_t isut, isstd, leap, time, type, chr; } tzif_counts;

static int read_header(const unsigned char *p, size_t n, size_t at, tzif_counts *c, int *version)
{
    if (at > n || n - at < 44 || memcmp(p + at, "TZif", 4) != 0)
        return -1;
    *version = p[at + 4] == 0 ? 1 : p[at + 4] - '0';
    const unsigned char *q = p + at + 20;
    c->isut = be32(q);
    c->isstd = be32(q + 4);
    c->leap = be32(q + 8);
    c->time = be32(q + 12);
    c->type = be32(q + 16);
    c->chr = be32(q + 20);
    if (c->type == 0 || c->type > 256 || c->time > 1000000 || c->leap > 100000 || c->chr > 100000 ||
        (c->isut != 0 && c->isut != c->type) || (c->isstd != 0 && c->isstd != c->type))
        return -1;
    return 0;
}

static size_t block_size(const tzif_counts *c, size_t tsize)
{
    return (size_t)c->time * (tsize + 1) + (size_t)c->type * 6 + c->chr + (size_t)c->leap * (tsize + 4) +
           c->isstd + c->isut;
}

/* Returns 0, -1 (not a valid TZif file) or -2 (out of memory). */
static int parse_tzif(const unsigned char *p, size_t n, RaidIoTz *z)
{
    tzif_counts c;
    int version;
    if (read_header(p, n, 0, &c, &version) != 0)
        return -1;
    size_t at = 44, tsize = 4;
    if (version >= 2) {
        size_t skip = block_size(&c, 4);
        if (n - at < skip)
            return -1;
        at += skip;
        int v2;
        if (read_header(p, n, at, &c, &v2) != 0)
            return -1;
        at += 44;
        tsize = 8;
    }
    if (n - at < block_size(&c, tsize))
        return -1;
    z->ntrans = c.time;
    z->ntypes = c.type;
    z->trans = malloc((c.time ? c.time : 1) * sizeof *z->trans);
    z->idx = malloc(c.time ? c.time : 1);
    z->utoff = malloc(c.type * sizeof *z->utoff);
    if (!z->trans || !z->idx || !z->utoff)
        return -2;
    const unsigned char *q = p + at;
    for (size_t i = 0; i < c.time; i++, q += tsize) {
        z->trans[i] = tsize == 8 ? be64(q) : (int64_t)(int32_t)be32(q);
        if (i > 0 && z->trans[i] <= z->trans[i - 1])
            return -1;
    }
    for (size_t i = 0; i < c.time; i++, q++) {
        if (*q >= c.type)
            return -1;
        z->idx[i] = *q;
    }
    for (size_t i = 0; i < c.type; i++, q += 6) {
        int32_t off = (int32_t)be32(q);
        if (off < -89999 || off > 93599)
            return -1;
        z->utoff[i] = off;
    }
    q += c.chr + (size_t)c.leap * (tsize + 4) + c.isstd + c.isut;
    if (version >= 2) {
        /* Footer: "\n" TZ-string "\n". */
        size_t left = n - (size_t)(q - p);
        if (left < 2 || q[0] != '\n')
            return -1;
        const unsigned char *e = memchr(q + 1, '\n', left - 1);
        if (!e || e - q - 1 > 255)
            return -1;
        char buf[256];
        memcpy(buf, q + 1, (size_t)(e - q - 1));
        buf[e - q - 1] = 0;
        if (buf[0] && parse_posix(buf, &z->footer) != 0)
            return -1;
    }
    return 0;
}

void raidIoTzFree(RaidIoTz *tz)
{
    if (!tz)
        return;
    free(tz->trans);
    free(tz->idx);
    free(tz->utoff);
    free(tz);
}

/* A zone from the TZif bytes p[0..n): 0 and *out, -1 (not a valid TZif file) or -2 (out of memory); *out
 * NULL on failure. The one parse of raidIoTzOpen and raidIoTzFromTzif. */
static int tzif_load(const unsigned char *p, size_t n, RaidIoTz **out)
{
    *out = NULL;
    RaidIoTz *z = calloc(1, sizeof *z);
    const int rc = z ? parse_tzif(p, n, z) : -2;
    if (rc != 0) {
        raidIoTzFree(z);
        return rc;
    }
    *out = z;
    return 0;
}

raid_status raidIoTzFromTzif(RaidIoTz **out, const unsigned char *p, size_t n)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raidIoTzFromTzif: out is NULL");
    const int rc = p ? tzif_load(p, n, out) : -1;
    if (rc == -2)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    if (rc != 0)
        return raidFail(NULL, RAID_EINVAL, "not a valid TZif file (RFC 8536)");
    return RAID_OK;
}

static RaidIoTz *tz_utc(void)
{
    RaidIoTz *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->utoff = calloc(1, sizeof *z->utoff);
    if (!z->utoff) {
        free(z);
        return NULL;
    }
    z->ntypes = 1;
    return z;
}

static int valid_name(const char *s)
{
    if (s[0] == '/' || s[0] == 0 || strlen(s) > 255)
        return 0;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!is_alpha(c) && !is_digit(c) && c != '/' && c != '_' && c != '-' && c != '+' && c != '.')
            return 0;
        if (c == '.' && (p == s || p[-1] == '/'))
            return 0; /* no "..", no hidden files */
    }
    return 1;
}

raid_status raidIoTzOpen(RaidIoTz **out, const char *name)
{
    *out = NULL;
    if (!name)
        name = "UTC"; /* "" is not a zone name: it fails valid_name below */
    if (!valid_name(name))
        return raidFail(NULL, RAID_EINVAL, "unknown time zone '%s'", RAID_SHOWZ(name));
    const char *dir = getenv("TZDIR");
    if (!dir || !*dir)
        dir = "/usr/share/zoneinfo";
    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    if (!path)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    snprintf(path, plen, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    free(path);
    unsigned char *buf = NULL;
    size_t n = 0;
    if (f) {
        const size_t cap = (size_t)1 << 20; /* real TZif files are a few KiB */
        buf = malloc(cap);
        if (!buf) {
            fclose(f);
            return raidFail(NULL, RAID_ENOMEM, "out of memory");
        }
        n = raidIoReadFull(f, buf, cap);
        if (ferror(f) || n == cap)
            n = 0;
        fclose(f);
    }
    RaidIoTz *z = NULL;
    int rc = n > 0 ? tzif_load(buf, n, &z) : -1;
    free(buf);
    if (rc == 0) {
        *out = z;
        return RAID_OK;
    }
    if (rc == -1 && (strcmp(name, "UTC") == 0 || strcmp(name, "Etc/UTC") == 0)) {
        rc = (z = tz_utc()) ? 0 : -2;
        if (rc == 0) {
            *out = z;
            return RAID_OK;
        }
    }
    if (rc == -2)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    return raidFail(NULL, RAID_EINVAL, "unknown time zone '%s'", RAID_SHOWZ(name));
}

raid_status raidIoTzFromPosix(RaidIoTz **out, const char *tzstring)
{
    *out = NULL;
    posix_tz p;
    if (!tzstring || parse_posix(tzstring, &p) != 0)
        return raidFail(NULL, RAID_EINVAL, "bad POSIX TZ string '%s'", RAID_SHOWZ(tzstring));
    RaidIoTz *z = tz_utc();
    if (!z)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    z->utoff[0] = p.std_off;
    z->footer = p;
    *out = z;
    return RAID_OK;
}

int32_t raidIoTzOffset(const RaidIoTz *z, int64_t t, int64_t *lo, int64_t *hi)
{
    int64_t l, h;
    int32_t off;
    if (z->ntrans == 0 || t >= z->trans[z->ntrans - 1]) {
        int64_t base = z->ntrans ? z->trans[z->ntrans - 1] : INT64_MIN;
        if (z->footer.valid) {
            off = posix_offset(&z->footer, t, &l, &h);
            if (l < base)
                l = base;
        } else {
            off = z->utoff[z->ntrans ? z->idx[z->ntrans - 1] : 0];
            l = base;
            h = INT64_MAX;
        }
    } else if (t < z->trans[0]) {
        off = z->utoff[0]; /* RFC 8536: before the first transition, time type 0 */
        l = INT64_MIN;
        h = z->trans[0];
    } else {
        size_t a = 0, b = z->ntrans - 1; /* trans[a] <= t < trans[b] */
        while (b - a > 1) {
            size_t m = a + (b - a) / 2;
            if (z->trans[m] <= t)
                a = m;
            else
                b = m;
        }
        off = z->utoff[z->idx[a]];
        l = z->trans[a];
        h = z->trans[b];
    }
    if (lo)
        *lo = l;
    if (hi)
        *hi = h;
    return off;
}

int64_t raidIoTzInstant(const RaidIoTz *tz, int64_t w_us)
{
    const int64_t w = raidIoFloordiv(w_us, RAID_US_PER_S);
    const int32_t o1 = raidIoTzOffset(tz, w, NULL, NULL);
    int64_t lo, hi;
    const int32_t o2 = raidIoTzOffset(tz, w - o1, &lo, &hi);
    if (o2 == o1)
        return w_us - (int64_t)o1 * RAID_US_PER_S;
    if (raidIoTzOffset(tz, w - o2, NULL, NULL) == o2)
        return w_us - (int64_t)o2 * RAID_US_PER_S;
    /* in the gap: the switch lies between w - o1 and w - o2, at an end of the interval of w - o1 */
    return (o1 < o2 ? lo : hi) * RAID_US_PER_S;
}
