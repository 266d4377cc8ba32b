/*
 * raid_f64_returns.h -- the log return between two prices on binary64 words: one definition for the host
 * (the segmenter's returns of every job, src/core/logret.c; the cpu path of raid_f64_log_returns) and the
 * kernels (kernels/f64.cl's f64_log_returns), so that every path gives the same bits.
 *
 * One source for host C, OpenCL C and CUDA, in the dialect of raid_compat.h; no floating type: every step
 * is raid_f64.h's correctly rounded arithmetic or raid_f64_log.h's correctly rounded log and log1p.
 */
#ifndef RAID_F64_RETURNS_H
#define RAID_F64_RETURNS_H

#ifndef RAID_F64_LOG_H /* host C (kernels get the headers prepended: kernels/prelude.txt) */
#include "raid_f64_log.h"
#endif

/* The log return log(p / prev) from price prev to price p (the bits of two positive finite binary64
 * values; other inputs give what the formula gives, a NaN or an infinity, and are refused by the callers):
 *   q = fl(fl(p - prev) / prev);  r = log1p(q) if q is finite and -0.5 <= q <= 1, else fl(log(p) - log(prev))
 * with log1p and log correctly rounded. For p / prev in [0.5, 2] the difference p - prev is exact (Sterbenz),
 * q has one rounding (relative 2^-53) and log1p(q) adds at most half an ulp: r is within about one ulp of
 * log(p / prev) relative to r itself, however small the return (log(p) - log(prev) there would lose
 * log2|log p| - log2|r| bits to cancellation, and log(p / prev) has an absolute error of 2^-53 whatever r).
 * Outside [0.5, 2] (|r| > 0.69) the difference of the logarithms has an absolute error below 2 ulp(log p),
 * small against |r|, and cannot overflow (|r| < 1500) where q can (1e-200 to 1e200) or round to -1.
 * The branch is that of src/io/segment.c's returns since the first release (glibc's log1p and log then). */
RAID_F64_FN RaidU64 raidF64LogReturn(RaidU64 prev, RaidU64 p)
{
    const RaidU64 q = raidF64Div(raidF64Sub(p, prev), prev);
    const RaidU64 minus_half = (RaidU64)0xBFE << 52, one = (RaidU64)0x3FF << 52;
    if (raidF64Compare(q, minus_half, 6) && raidF64Compare(q, one, 4)) /* >= -0.5, <= 1: false for NaN, inf */
        return raidF64Log1p(q);
    return raidF64Sub(raidF64Log(p), raidF64Log(prev));
}

#endif
