/* raidLogReturn (core/logret.h): kernels/raid_f64_returns.h's function on the host's doubles, the same bits.
 * For two positive normal finite prices the formula runs here in the host's binary64 arithmetic (its
 * subtraction, division, comparisons and final subtraction are the correctly rounded operations that
 * raid_f64.h computes on integer words: the same bits) with core/fastlog.h's log1p and log, which return the
 * bits of raid_f64_log.h's; any other input goes to raidF64LogReturn itself (the NaNs' payloads, zeros,
 * infinities and subnormals are its rules, and the callers refuse those prices anyway). */
#include "core/logret.h"
#include "core/fastlog.h"
#include "raid_f64_returns.h"

#include <string.h>

double raidLogReturn(double prev, double p)
{
    if (prev >= 0x1p-1022 && prev <= 0x1.fffffffffffffp+1023 && p >= 0x1p-1022 && p <= 0x1.fffffffffffffp+1023) {
        const double q = (p - prev) / prev;
        if (q >= -0.5 && q <= 1.0) /* raidF64LogReturn's branch: false for NaN and the infinities */
            return raidFastLog1p(q);
        return raidFastLog(p) - raidFastLog(prev);
    }
    RaidU64 a, b;
    memcpy(&a, &prev, sizeof a);
    memcpy(&b, &p, sizeof b);
    const RaidU64 r = raidF64LogReturn(a, b);
    double out;
    memcpy(&out, &r, sizeof out);
    return out;
}
