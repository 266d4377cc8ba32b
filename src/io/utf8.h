/* UTF-8 validation (RFC 3629) of symbols and other text fields read by src/io. Never installed. */
#ifndef RAID_IO_UTF8_H
#define RAID_IO_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The offset of the first byte of s[0..n) that does not start or continue a well-formed UTF-8
 * sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence),
 * or n when all of s is valid. ASCII text costs one comparison per byte. */
static inline size_t raidUtf8InvalidAt(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        const unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0;
            else if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;
        } else
            return i;
        if (i + 1 >= n || p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (size_t k = 2; k < len; k++)
            if (i + k >= n || (p[i + k] & 0xC0) != 0x80)
                return i;
        i += len;
    }
    return n;
}

#endif
