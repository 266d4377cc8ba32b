/* Cube root for the host's float64 reference paths, without library calls.
 *
 * glibc's cbrt calls frexp and scalbn for every argument; in the cpu path of the realized measures
 * (one cube root per return, for tpq) those calls were more than half of the time (perf, 2026-12-01).
 * raidCbrt is inline arithmetic on the bits:
 *   1. |x| < 2^-1000 or > 2^1000 is scaled by 2^+-54 (a multiple of 3), so that no step below overflows
 *      or underflows; the result is scaled back by 2^-+18, exactly.
 *   2. Seed: the binary64 bits divided by 3 plus an offset (Kahan, "Computing a real cube root", 1991):
 *      relative error 0.0320 at most (measured over [1, 8), i.e. the three residues of the exponent).
 *   3. One Halley step t ((t^3 + 2x) / (2 t^3 + x)) (cubic convergence; the ratio first, so that nothing
 *      overflows): 2^-15.5 at most (measured, as is the next figure).
 *   4. Two Newton steps t - (t - x / t^2) / 3 (quadratic, the division by 3 a multiplication by its
 *      rounded reciprocal): the first gives 2^-31.1; the second's quadratic term is then 2^-62, a five
 *      hundredth of an ulp, and its own roundings, t^2 (u = 2^-53 relative) and x / t^2 (half an ulp
 *      of t), put at most 1.5 ulp into x / t^2 and a third of that into the step; the subtraction adds
 *      half an ulp: within 1.002 ulp of the true cube root by this count, which is why the measured
 *      figure below, not the count, is the working bound.
 * Measured against cbrtl (long double, 64-bit significand) on 2 x 10^6 random binary64 numbers from
 * every binade, the subnormals, the powers of two and their neighbours: at most 0.732 ulp (a larger
 * search found 0.7354; the test holds it to 0.75); k^3 for every k up to 2^17 and 2^(3j) give
 * their exact roots (tests/test_df.c, test_host_cbrt). About 10 ns against glibc's 15 to 25 on the
 * development machine (AMD EPYC, noisy).
 * Defined for every finite x; cbrt(-x) = -cbrt(x), cbrt(+-0) = +-0; an infinity or NaN is returned as it
 * is. */
#ifndef RAID_CBRT_H
#define RAID_CBRT_H

#include <stdint.h>
#include <string.h>

static inline double raidCbrt(double x)
{
    const double ax = x < 0 ? -x : x;
    if (!(ax > 0) || ax > 1.7976931348623157e308) /* +-0, NaN, infinity */
        return x;
    double s = ax, back = 1;
    if (ax < 0x1p-1000)
        s = ax * 0x1p54, back = 0x1p-18;
    else if (ax > 0x1p1000)
        s = ax * 0x1p-54, back = 0x1p18;
    uint64_t b;
    memcpy(&b, &s, sizeof b);
    /* exponent and significand bits divided by 3, re-biased: (1023 - 1023 / 3 - 0.0331) 2^52 */
    b = b / 3 + ((uint64_t)715094163 << 32);
    double t;
    memcpy(&t, &b, sizeof t);
    const double t3 = t * t * t;
    t = t * ((t3 + 2 * s) / (2 * t3 + s));
    const double third = 1.0 / 3; /* a multiplication, not a division: its rounding (u) falls on a
                                     correction that is itself at most 2^-26 and 2^-52 of t */
    t = t - (t - s / (t * t)) * third;
    t = t - (t - s / (t * t)) * third;
    t *= back;
    return x < 0 ? -t : t;
}

#endif
