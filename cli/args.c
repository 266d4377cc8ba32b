/* Strict parsing of option values: the whole string must be a number in range, no overflow. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_u64(const char *s, uint64_t *v)
{
    const char *p = s;
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(p, &end, 0);
    if (errno || *end || end == p)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno || *end || end == s || x < lo || x > hi)
        return -1;
    *v = (int64_t)x;
    return 0;
}

int cli_parse_double(const char *s, double *v)
{
    errno = 0;
    char *end;
    double x = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

int cli_parse_precision(const char *cmd, const char *s, raid_precision *p)
{
    if (!strcmp(s, "df") || !strcmp(s, "f32")) {
        *p = s[0] == 'd' ? RAID_PREC_DF : RAID_PREC_F32;
        return 0;
    }
    fprintf(stderr, "raid %s: bad --precision '%s' (expected df or f32)\n", cmd, RAID_SHOWZ(s));
    return EXIT_USAGE;
}

const char *cli_precision_name(raid_precision p) { return p == RAID_PREC_F32 ? "f32" : "df"; }
