/*
 * noise.cl -- the heavy sums of the noise-robust realized measures (src/realized/noise_device.c;
 * docs/measures.md "Noise-robust measures", docs/precision.md "The noise-robust measures").
 *
 * The host has chosen each segment's bandwidth H, subsample count K and pre-averaging window kn (from the
 * float64 noise ratio), scaled each segment by the power of two 2^-e that brings its largest |r| into
 * [0.5, 1) and split every scaled return into a double-float pair (hi, lo) (policy f32: (RN(r), 0)). The
 * pairs are resident on the device (argument 0, element i at position i of the group); the chunk reduction
 * (src/device/chunk.h) launches one work-group per chunk of a range of positions, with the table (argument
 * 1: uint4 position, length, range, 0) and the partials (argument 2: NACC float2 per chunk); argument 3
 * holds one uint4 per range (lo, p1, p2, 0):
 *
 *   noise_pair  range = a segment; p1, p2 unused; lo = its first position.   NACC = 2 RAID_WG:
 *               partial lid: sum r_a^2, partial RAID_WG + lid: sum min(|r_a|, |r_{a-1}|)^2 (a - 1 >= lo),
 *               over the positions a = start + t RAID_WG + lid of the chunk.
 *   noise_lags  range = the interior of a segment's jittered returns (positions o + 2 .. o + M - 3);
 *               p1 = H; lo = o + 2.   NACC = RAID_NL (>= H + 1): partial h = sum over the chunk's
 *               positions a with a - h >= lo of r_a r_{a-h} (0 for h > H), work-item lid taking the lags
 *               h = lid, lid + RAID_WG, ...
 *   noise_win   range = the starts i of the windows r_i .. r_{i+L-1} inside a segment; p1 = L (the
 *               window), p2 = 0 (weights 1: TSRV's K-step returns) or 1 (weights min(k+1, L-k), k = 0 ..
 *               L-1: kn g(j/kn) of the pre-averaged returns, L = kn - 1, integers exact in float).
 *               NACC = RAID_WG: partial lid = sum over the work-item's windows of (sum_k w_k r_{i+k})^2.
 *
 * Every sum is a triple-float accumulator (raid_df.h's RaidTacc: every term split into floats whose sum
 * is the term exactly, errors only in the third component): within about 20 k u^3 of the sum of the
 * terms' magnitudes after k float terms, so the results are within the input pairs' own rounding (u^2 for
 * df) of the exact sums of the products, whatever the signs: the autocovariances and window sums cancel.
 * Each work-item writes its own partials (no tree): the host adds them in float64 with compensated sums
 * in a fixed order (work-item, chunk), so the result depends only on the work-group width and the chunk
 * length: bitwise reproducible.
 *
 * Compile-time parameters: RAID_WG (power of two, the launch's width), RAID_NL (noise_lags' partials).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_NL)
#error "noise.cl needs RAID_WG and RAID_NL (set by src/realized/noise_device.c)"
#endif

/* a + x y for double-floats x, y: three exact TwoProds (hi hi, hi lo, lo hi) and lo lo rounded (below
 * u^4 |x y|). */
RAID_FN RaidTacc noise_add_prod(RaidTacc a, float2 x, float2 y)
{
    const RaidDf p = raidTwoProd(x.x, y.x);
    const RaidDf q = raidTwoProd(x.x, y.y);
    const RaidDf s = raidTwoProd(x.y, y.x);
    a = raidTaccHigh(a, p.hi);
    a = raidTaccLow(a, p.lo);
    a = raidTaccLow(a, q.hi);
    a = raidTaccLow(a, q.lo);
    a = raidTaccLow(a, s.hi);
    a = raidTaccLow(a, s.lo);
    a = raidTaccLow(a, x.y * y.y);
    return raidTaccRenorm(a);
}

RAID_FN float2 noise_out(RaidTacc a)
{
    const RaidDf d = raidTaccDf(a);
    return RAID_FLOAT2(d.hi, d.lo);
}

/* |x| of a normalised pair, as a pair (the sign is hi's; hi = 0 implies lo = 0). */
RAID_FN RaidDf noise_abs(float2 x)
{
    return x.x < 0.0f ? raidDfMake(-x.x, -x.y) : raidDfMake(x.x, x.y);
}

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void noise_pair(RAID_GLOBAL const float2 *x, RAID_GLOBAL const uint4 *chunk, RAID_GLOBAL float2 *part,
                RAID_GLOBAL const uint4 *rng)
{
    const uint g = RAID_GROUP_ID(0), lid = RAID_LOCAL_ID(0);
    const uint4 ch = chunk[g];
    const uint lo = rng[ch.z].x;
    RaidTacc sq = raidTaccZero(), mn = raidTaccZero();
    for (uint t = lid; t < ch.y; t += RAID_WG) {
        const uint a = ch.x + t;
        const float2 v = x[a];
        sq = raidTaccAddSq(sq, v.x, v.y);
        if (a > lo) {
            const RaidDf m = raidDfMin(noise_abs(v), noise_abs(x[a - 1]));
            mn = raidTaccAddSq(mn, m.hi, m.lo);
        }
    }
    part[(size_t)g * (2 * RAID_WG) + lid] = noise_out(sq);
    part[(size_t)g * (2 * RAID_WG) + RAID_WG + lid] = noise_out(mn);
}

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void noise_lags(RAID_GLOBAL const float2 *x, RAID_GLOBAL const uint4 *chunk, RAID_GLOBAL float2 *part,
                RAID_GLOBAL const uint4 *rng)
{
    const uint g = RAID_GROUP_ID(0), lid = RAID_LOCAL_ID(0);
    const uint4 ch = chunk[g];
    const uint lo = rng[ch.z].x, H = rng[ch.z].y;
    for (uint h = lid; h < RAID_NL; h += RAID_WG) {
        RaidTacc s = raidTaccZero();
        if (h <= H) {
            /* the chunk's positions a with a - h >= lo */
            const uint a0 = ch.x >= lo + h ? ch.x : lo + h;
            for (uint a = a0; a < ch.x + ch.y; a++)
                s = noise_add_prod(s, x[a], x[a - h]);
        }
        part[(size_t)g * RAID_NL + h] = noise_out(s);
    }
}

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void noise_win(RAID_GLOBAL const float2 *x, RAID_GLOBAL const uint4 *chunk, RAID_GLOBAL float2 *part,
               RAID_GLOBAL const uint4 *rng)
{
    const uint g = RAID_GROUP_ID(0), lid = RAID_LOCAL_ID(0);
    const uint4 ch = chunk[g];
    const uint L = rng[ch.z].y, tri = rng[ch.z].z;
    RaidTacc q = raidTaccZero();
    for (uint t = lid; t < ch.y; t += RAID_WG) {
        const uint i = ch.x + t;
        RaidTacc s = raidTaccZero();
        for (uint k = 0; k < L; k++) {
            const float2 v = x[i + k];
            if (tri) {
                const uint w = RAID_MIN(k + 1u, L - k);
                s = raidTaccAddW(s, (float)w, v.x, v.y);
            } else {
                s = raidTaccAddDf(s, v.x, v.y);
            }
        }
        const RaidDf d = raidTaccDf(s);
        q = raidTaccAddSq(q, d.hi, d.lo);
    }
    part[(size_t)g * RAID_WG + lid] = noise_out(q);
}
