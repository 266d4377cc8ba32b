// The C shim over fast_float (fastfloat.h): the one C++ translation unit of the library, header-only
// library underneath, no exceptions, no C++ runtime needed at link time.
#include "io/fastfloat.h"

#include <fast_float/fast_float.h>

#include <cstdint>

extern "C" int raidParseF64(const char *s, size_t n, double *v)
{
    // Clinger's fast path (W. D. Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990), the
    // common short price: [-]digits[.digits] with at most 15 digits. The digits m (< 10^15 < 2^53) and
    // 10^k (k <= 15 < 23) are exact doubles, so one IEEE division gives the correctly rounded value, the
    // value of strtod and of fast_float (which takes the same path after more checks). Other forms go to
    // fast_float.
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    size_t i = n && s[0] == '-';
    uint64_t m = 0;
    int nd = 0, frac = 0, dot = 0;
    for (; i < n && nd <= 15; i++) {
        const unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d < 10) {
            m = m * 10 + d;
            nd++;
            frac += dot;
        } else if (s[i] == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (i == n && nd >= 1 && nd <= 15) {
        const double x = (double)m / p10[frac];
        *v = s[0] == '-' ? -x : x;
        return 0;
    }
    double x = 0;
    const fast_float::from_chars_result r = fast_float::from_chars(s, s + n, x);
    if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)
        return -1;
    if (r.ptr != s + n)
        return -1;
    *v = x;
    return 0;
}
