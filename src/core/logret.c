/* raidLogReturn (core/logret.h): kernels/raid_f64_returns.h's function on the host's doubles, through
 * their bits (no floating operation here: the kernels compute the same bits on every device). */
#include "core/logret.h"
#include "raid_f64_returns.h"

#include <string.h>

double raidLogReturn(double prev, double p)
{
    RaidU64 a, b;
    memcpy(&a, &prev, sizeof a);
    memcpy(&b, &p, sizeof b);
    const RaidU64 r = raidF64LogReturn(a, b);
    double out;
    memcpy(&out, &r, sizeof out);
    return out;
}
