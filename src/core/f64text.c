/* The text of a float64 in RAID's CSV outputs (core/outfile.h raidF64Text, docs/input.md "Round trip"):
 * the shortest decimal that reads back as the same double, the digits of Python's repr and of Ryu (Steele
 * and White's shortest, the nearest of them: raidF64Digits, std::to_chars), laid out as printf's "%.17g"
 * lays out 17 digits (scientific below 1e-4 and from 1e17 on), so that a value whose shortest text has 17
 * digits is written byte for byte as before. The layout is made here, with a '.' whatever LC_NUMERIC says
 * (printf's own "%.17g" wrote the locale's decimal comma into the CSV). */
#include "core/outfile.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *raidF64Text(char buf[RAID_F64_TEXT], double v)
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
    char d[18];
    int e = 0;
    int nd = raidF64Digits(v, d, &e);
    assert(nd > 0); /* v is finite and nonzero here */
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
