/* The text of a float64 in RAID's CSV outputs (core/outfile.h raid_f64_text, docs/input.md "Round trip"):
 * the shortest decimal that reads back as the same double, the digits of Python's repr and of Ryu (Steele
 * and White's shortest, the nearest of them), laid out as printf's "%.17g" lays out 17 digits (scientific
 * below 1e-4 and from 1e17 on), so that a value whose shortest text has 17 digits is written byte for byte
 * as before. The digits come from the C library's correctly rounded "%.*e" at 15, 16 and 17 significant
 * digits, each read back (strtod in the "C" locale) until one gives v: any decimal of at most 15 digits
 * that reads as a normal v is what "%.15e" prints (DBL_DIG; a subnormal, of fewer bits, tries 1 to 17
 * digits), 17 digits always read back, and at 16 the correctly rounded decimal may miss v's rounding
 * interval where the other 16-digit neighbour of v lies in it (the interval of a power of two is narrower
 * below: 2^975 is 6.386688990511104e+293, which "%.16e" misses), so that neighbour is tried too. The
 * layout is made here, with a '.' whatever LC_NUMERIC says (printf's own "%.17g" wrote the locale's
 * decimal comma into the CSV). No C++ runtime: std::to_chars would need libstdc++. */
#define _GNU_SOURCE /* strtod_l */
#include "core/outfile.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* s read as a double in the "C" locale (strtod without a C locale object: then LC_NUMERIC's point). */
static double read_c(const char *s)
{
    pthread_once(&c_locale_once, c_locale_init);
    return c_locale ? strtod_l(s, NULL, c_locale) : strtod(s, NULL);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The significant digits of "%.*e"'s text of |v| (p digits, the locale's point skipped) into *m and the
 * decimal exponent of the first digit into *e. */
static void e_digits(double v, int p, uint64_t *m, int *e)
{
    char b[48];
    snprintf(b, sizeof b, "%.*e", p - 1, fabs(v));
    uint64_t x = 0;
    const char *s = b;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            x = x * 10 + (uint64_t)(*s - '0');
    *m = x;
    *e = *s == 'e' ? atoi(s + 1) : 0;
}

/* m (p digits) 10^(e - p + 1) with v's sign, as text that strtod reads in the "C" locale. */
static double value_of(double v, uint64_t m, int p, int e)
{
    char b[48];
    snprintf(b, sizeof b, "%s%llue%d", signbit(v) ? "-" : "", (unsigned long long)m, e - p + 1);
    return read_c(b);
}

const char *raid_f64_text(char buf[RAID_F64_TEXT], double v)
{
    if (isnan(v)) {
        snprintf(buf, RAID_F64_TEXT, "%s", signbit(v) ? "-nan" : "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, RAID_F64_TEXT, "%s", v < 0 ? "-inf" : "inf");
        return buf;
    }
    if (v == 0.0) {
        snprintf(buf, RAID_F64_TEXT, "%s", signbit(v) ? "-0" : "0");
        return buf;
    }
    uint64_t m = 0;
    int e = 0, p = fabs(v) < 0x1p-1022 ? 1 : 15; /* a subnormal has fewer bits: its shortest text may be
                                                    shorter than its 15-digit rounding (5e-324) */
    for (; p < 17; p++) {
        e_digits(v, p, &m, &e);
        const double w = value_of(v, m, p, e);
        if (same_bits(w, v))
            break;
        if (p == 16) { /* the 16-digit neighbour on v's other side (not 10^16 or 10^15 - 1: fewer digits) */
            const uint64_t n = fabs(w) < fabs(v) ? m + 1 : m - 1;
            if (n < 10000000000000000ull && n >= 1000000000000000ull && same_bits(value_of(v, n, p, e), v)) {
                m = n;
                break;
            }
        }
    }
    if (p == 17)
        e_digits(v, 17, &m, &e); /* 17 digits always read back */
    char d[24];
    int nd = snprintf(d, sizeof d, "%llu", (unsigned long long)m);
    while (nd > 1 && d[nd - 1] == '0') /* trailing zeros are not digits of the shortest text */
        d[--nd] = 0;
    /* %.17g's layout: scientific when the exponent is below -4 or at least 17, else fixed */
    char *o = buf;
    if (signbit(v))
        *o++ = '-';
    if (e < -4 || e >= 17) {
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        snprintf(o, RAID_F64_TEXT - (size_t)(o - buf), "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (e < 0) { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int z = 0; z < -e - 1; z++)
            *o++ = '0';
        memcpy(o, d, (size_t)nd);
        o[nd] = 0;
    } else { /* ddd[.ddd], zeros up to the point */
        for (int i = 0; i <= e || i < nd; i++) {
            if (i == e + 1)
                *o++ = '.';
            *o++ = i < nd ? d[i] : '0';
        }
        *o = 0;
    }
    return buf;
}
