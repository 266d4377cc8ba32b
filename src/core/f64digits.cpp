/* The shortest decimal digits of a float64 (core/outfile.h raidF64Digits), by the C++ library's
 * std::to_chars: the shortest text that reads back as v and, of several, the nearest to v (Ryu's digits,
 * Python's repr's). The project's own digit search (the C library's "%.*e" at 15, 16 and 17 digits, each
 * read back by strtod) gave the same digits on 3e6 random values, powers of two and subnormals, but took
 * 1.8 us a value against 34 ns here: raid simulate's 1.9e6 prices took 4.1 s instead of 1.3 s with
 * "%.17g". This file is why libraid needs libstdc++ (std::to_chars of a double is in the compiled library,
 * not in a header). No exceptions are thrown: to_chars reports a short buffer in its result. */
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "core/outfile.h"
}

extern "C" int raidF64Digits(double v, char digits[18], int *exp10)
{
    char b[40];
    const std::to_chars_result r = std::to_chars(b, b + sizeof b, std::fabs(v), std::chars_format::scientific);
    if (r.ec != std::errc() || !std::isfinite(v) || v == 0.0)
        return 0;
    *r.ptr = 0;
    int n = 0; /* "d[.ddd]e[+-]XX": the digits without the point, then the exponent */
    const char *s = b;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && n < 17)
            digits[n++] = *s;
    digits[n] = 0;
    *exp10 = *s == 'e' ? std::atoi(s + 1) : 0;
    return n;
}
