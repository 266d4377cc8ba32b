// The C shim over fast_float (fastfloat.h): the one C++ translation unit of the library, header-only
// library underneath, no exceptions, no C++ runtime needed at link time.
#include "io/fastfloat.h"

#include <fast_float/fast_float.h>

extern "C" int raid_parse_f64(const char *s, size_t n, double *v)
{
    double x = 0;
    const fast_float::from_chars_result r = fast_float::from_chars(s, s + n, x);
    if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)
        return -1;
    if (r.ptr != s + n)
        return -1;
    *v = x;
    return 0;
}
