/*
 * ta_ma.cl -- moving averages and rolling statistics by DIRECT windowed sums in double-float (
 * docs/ta.md "The device path and its bound"). Host side: src/ta/ma_device.c.
 *
 * Input: the values as double-float pairs x[2i] = hi, x[2i+1] = lo (the host's split of float64: hi =
 * (float)v, lo = (float)(v - hi), so |hi + lo - v| <= u^2 |v|, u = 2^-24), and rs[i], the index of the
 * first value of the run of non-NaN values that holds i (-1 at a NaN): a run is a series of its own
 * (include/raid/ma.h). Point i is computed when rs[i] >= 0 and i - rs[i] + 1 >= minlen; the host makes
 * the validity mask from the same rule (it never reads the other points).
 *
 * Every window is summed directly, its own values only (no prefix sums, no running add-and-subtract
 * sums), near the scale of the values. Each term is split into floats whose sum is the term EXACTLY
 * (TwoProd with fma): the high part goes into h by TwoSum, its error and the low parts into l by TwoSum,
 * l's errors into c; after every element (h, l) and (l, c) are renormalised by TwoSum (exact). So the
 * only roundings are those of c (|c| <= a few u^2 S_abs, S_abs the sum of the terms' magnitudes): the
 * window sum h + l + c is within about 20 k u^3 S_abs of the exact sum of the k float terms (k = 2 to 5
 * per element), far below u^2. The host combines ((double)h + (double)l) + (double)c.
 *
 * OpenCL C 1.2, FP_CONTRACT OFF, no 64-bit float type; one work-item per output point (neighbouring
 * work-items read neighbouring values: coalesced, cached), one work-item per run for the EMA.
 */
#pragma OPENCL FP_CONTRACT OFF

#define TA_SUM 0
#define TA_SUMSQ 2
#define TA_VAR 3
#define TA_WMA 4

/* s / d for a double-float s and a double-float d > 0 by long division: q1 = s.hi / d.hi, the remainder
 * s - q1 d formed with TwoProd (s.hi - p.hi exact by Sterbenz), q2 = remainder / d.hi. Relative error a
 * few u^2 (tests/test_ma_cl.c measures the results). */
RAID_FN RaidDf ta_div(RaidDf s, RaidDf d)
{
    float q1 = s.hi / d.hi;
    RaidDf p = raidTwoProd(q1, d.hi);
    float r = (((s.hi - p.hi) - p.lo) + s.lo) - q1 * d.lo;
    float q2 = r / d.hi;
    return raidTwoSum(q1, q2);
}

/* The WMA numerator sum_{j=1..n} j x_{i-n+j} of the window of n values ending at i. */
RAID_FN RaidTacc ta_wma_sum(RAID_GLOBAL const float *x, int i, int n)
{
    RaidTacc a = raidTaccZero();
    const int b = i - n + 1;
    for (int j = 0; j < n; j++)
        a = raidTaccAddW(a, (float)(j + 1), x[2 * (b + j)], x[2 * (b + j) + 1]);
    return a;
}

/* One window statistic per point: out[3i .. 3i+2] = (h, l, c), the window's sum (sum, mean), sum of
 * squares (sumsq), WMA numerator (wma) or, for var, the sum of squared deviations about the window's
 * double-float mean (two passes). The host divides (by n, n (n+1)/2, n - 1) in float64. Points not
 * computed are left unwritten. */
RAID_KERNEL void ta_window(RAID_GLOBAL const float *x, RAID_GLOBAL const int *rs, RAID_GLOBAL float *out,
                           int npts, int n, int minlen, int stat)
{
    const int i = (int)RAID_GLOBAL_ID(0);
    if (i >= npts)
        return;
    const int r = rs[i];
    if (r < 0 || i - r + 1 < minlen)
        return;
    const int b = i - n + 1;
    RaidTacc a = raidTaccZero();
    if (stat == TA_WMA) {
        a = ta_wma_sum(x, i, n);
    } else if (stat == TA_SUMSQ) {
        for (int j = b; j <= i; j++)
            a = raidTaccAddSq(a, x[2 * j], x[2 * j + 1]);
    } else {
        for (int j = b; j <= i; j++)
            a = raidTaccAddDf(a, x[2 * j], x[2 * j + 1]);
        if (stat == TA_VAR) {
            const float nf = (float)n;
            const RaidDf m = ta_div(raidTaccDf(a), raidDfMake(nf, 0.0f));
            a = raidTaccZero();
            for (int j = b; j <= i; j++) {
                /* d = x_j - m: the high parts' difference exact (TwoSum), the low parts rounded twice */
                RaidDf dh = raidTwoSum(x[2 * j], -m.hi);
                RaidDf d = raidTwoSum(dh.hi, dh.lo + (x[2 * j + 1] - m.lo));
                a = raidTaccAddSq(a, d.hi, d.lo);
            }
        }
    }
    out[3 * i] = a.h;
    out[3 * i + 1] = a.l;
    out[3 * i + 2] = a.c;
}

/* The HMA's inner series at each point whose WMA(n) window is complete: y = 2 WMA(x, m) - WMA(x, n) as
 * a double-float (y[2i], y[2i+1]); dm, dn the WMA divisors m (m+1)/2 and n (n+1)/2 as double-floats
 * (exact). Other points get 0 (never read: the outer WMA's windows lie inside the valid ones). */
RAID_KERNEL void ta_hma_inner(RAID_GLOBAL const float *x, RAID_GLOBAL const int *rs, RAID_GLOBAL float *y,
                              int npts, int n, int m, float dn_hi, float dn_lo, float dm_hi, float dm_lo)
{
    const int i = (int)RAID_GLOBAL_ID(0);
    if (i >= npts)
        return;
    const int r = rs[i];
    if (r < 0 || i - r + 1 < n) {
        y[2 * i] = 0.0f;
        y[2 * i + 1] = 0.0f;
        return;
    }
    const RaidDf wn = ta_div(raidTaccDf(ta_wma_sum(x, i, n)), raidDfMake(dn_hi, dn_lo));
    const RaidDf wm = ta_div(raidTaccDf(ta_wma_sum(x, i, m)), raidDfMake(dm_hi, dm_lo));
    const RaidDf v = raidDfAdd(raidDfMake(2.0f * wm.hi, 2.0f * wm.lo), raidDfMake(-wn.hi, -wn.lo));
    y[2 * i] = v.hi;
    y[2 * i + 1] = v.lo;
}

/* The EMA, one work-item per run of at least n values (runs[2k] its first index, runs[2k+1] its
 * length): the seed is the double-float mean of the first n values (summed as above), then
 * e_t = x_t alpha + e_{t-1} (1 - alpha) with alpha = (a_hi, a_lo) and 1 - alpha = (b_hi, b_lo) the
 * host's float64 values split (DWTimesDW3, AccurateDWPlusDW: each step's rounding below 13 u^2 of the
 * larger of |x_t|, |e_{t-1}|; the recursion contracts errors by 1 - alpha per step). out[2t], out[2t+1]:
 * e_t for t >= start + n - 1, out = out_base + 2 off (a row of the sweep's table, or 0). */
RAID_KERNEL void ta_ema(RAID_GLOBAL const float *x, RAID_GLOBAL const int *runs, RAID_GLOBAL float *out_base,
                        int off, int nruns, int n, float a_hi, float a_lo, float b_hi, float b_lo)
{
    RAID_GLOBAL float *out = out_base + 2 * (size_t)off;
    const int k = (int)RAID_GLOBAL_ID(0);
    if (k >= nruns)
        return;
    const int s = runs[2 * k], len = runs[2 * k + 1];
    RaidTacc a = raidTaccZero();
    for (int j = s; j < s + n; j++)
        a = raidTaccAddDf(a, x[2 * j], x[2 * j + 1]);
    RaidDf e = ta_div(raidTaccDf(a), raidDfMake((float)n, 0.0f));
    out[2 * (s + n - 1)] = e.hi;
    out[2 * (s + n - 1) + 1] = e.lo;
    const RaidDf al = raidDfMake(a_hi, a_lo), be = raidDfMake(b_hi, b_lo);
    for (int t = s + n; t < s + len; t++) {
        e = raidDfAdd(raidDfMul(raidDfMake(x[2 * t], x[2 * t + 1]), al), raidDfMul(e, be));
        out[2 * t] = e.hi;
        out[2 * t + 1] = e.lo;
    }
}

/* ---- The sweep's table (src/ta/ma_device.c raidMaDeviceTable; docs/ta_sweep.md "The device sweep") ----
 * One row of moving-average VALUES per period, resident on the device for the trade scan
 * (kernels/ta_sweep.cl): tab[2 (off + i)], tab[2 (off + i) + 1] = the value at point i as a normalised
 * double-float (the window sum divided on the device by ta_div), or NaN in both where point i is not
 * computed (the same rule as ta_window's). */

/* Whether point i of a row is computed; if not, its value is set to NaN here. */
RAID_FN int ta_row_valid(RAID_GLOBAL float *tab, int off, RAID_GLOBAL const int *rs, int i, int minlen)
{
    const int r = rs[i];
    if (r >= 0 && i - r + 1 >= minlen)
        return 1;
    tab[2 * ((size_t)off + (size_t)i)] = RAID_NAN;
    tab[2 * ((size_t)off + (size_t)i) + 1] = RAID_NAN;
    return 0;
}

/* The mean (wma 0: window sum / n) or the WMA (wma 1: numerator / (n (n+1) / 2)); div = the divisor as
 * an exact double-float. */
RAID_KERNEL void ta_ma_row(RAID_GLOBAL const float *x, RAID_GLOBAL const int *rs, RAID_GLOBAL float *tab, int off,
                           int npts, int n, int minlen, int wma, float div_hi, float div_lo)
{
    const int i = (int)RAID_GLOBAL_ID(0);
    if (i >= npts || !ta_row_valid(tab, off, rs, i, minlen))
        return;
    RAID_GLOBAL float *o = tab + 2 * ((size_t)off + (size_t)i);
    RaidTacc a;
    if (wma) {
        a = ta_wma_sum(x, i, n);
    } else {
        a = raidTaccZero();
        for (int j = i - n + 1; j <= i; j++)
            a = raidTaccAddDf(a, x[2 * j], x[2 * j + 1]);
    }
    const RaidDf v = ta_div(raidTaccDf(a), raidDfMake(div_hi, div_lo));
    o[0] = v.hi;
    o[1] = v.lo;
}

/* --precision f32: plain float32 direct window sums, the float32 Metal backtest's method, operation for
 * operation the host emulation of src/ta/sweep_parity.c (raidSweepF32Ma): acc += w_j x_j in window
 * order (w_j = j for the WMA, 1 for the mean), then acc / div correctly rounded (ta_div_rn), div the
 * divisor rounded to float. Reads
 * x's high parts only; writes (value, 0). */
/* a / b correctly rounded (OpenCL allows float division 2.5 ulp, NVIDIA's takes it): the quotient's
 * neighbours are tried and the one with the smallest remainder a - q b (fma: exact for the candidates
 * near a / b) kept. b here is a positive integer-valued float (a window length or WMA divisor), so a / b
 * is never halfway between two floats and the smallest remainder is the nearest quotient. */
RAID_FN float ta_div_rn(float a, float b)
{
    float q = a / b;
    for (int it = 0; it < 3; it++) {
        const float r = RAID_FABSF(RAID_FMAF(-q, b, a));
        const float qu = RAID_NEXTAFTERF(q, RAID_INFINITY), qd = RAID_NEXTAFTERF(q, -RAID_INFINITY);
        const float ru = RAID_FABSF(RAID_FMAF(-qu, b, a)), rd = RAID_FABSF(RAID_FMAF(-qd, b, a));
        if (ru < r && ru <= rd)
            q = qu;
        else if (rd < r)
            q = qd;
        else
            break;
    }
    return q;
}

RAID_FN float ta_window_f32(RAID_GLOBAL const float *x, int i, int n, int wma)
{
    float acc = 0.0f;
    const int b = i - n + 1;
    for (int j = 1; j <= n; j++)
        acc += (wma ? (float)j : 1.0f) * x[2 * (b + j - 1)];
    return acc;
}

RAID_KERNEL void ta_ma_row_f32(RAID_GLOBAL const float *x, RAID_GLOBAL const int *rs, RAID_GLOBAL float *tab, int off,
                               int npts, int n, int minlen, int wma, float div)
{
    const int i = (int)RAID_GLOBAL_ID(0);
    if (i >= npts || !ta_row_valid(tab, off, rs, i, minlen))
        return;
    RAID_GLOBAL float *o = tab + 2 * ((size_t)off + (size_t)i);
    o[0] = ta_div_rn(ta_window_f32(x, i, n, wma), div);
    o[1] = 0.0f;
}

/* The HMA's inner series in plain float32: y = 2 (WMA(x, m) / dm) - WMA(x, n) / dn, as (y, 0). */
RAID_KERNEL void ta_hma_inner_f32(RAID_GLOBAL const float *x, RAID_GLOBAL const int *rs, RAID_GLOBAL float *y,
                                  int npts, int n, int m, float dn, float dm)
{
    const int i = (int)RAID_GLOBAL_ID(0);
    if (i >= npts)
        return;
    const int r = rs[i];
    y[2 * i + 1] = 0.0f;
    if (r < 0 || i - r + 1 < n) {
        y[2 * i] = 0.0f;
        return;
    }
    const float a = ta_div_rn(ta_window_f32(x, i, m, 1), dm), b = ta_div_rn(ta_window_f32(x, i, n, 1), dn);
    y[2 * i] = 2.0f * a - b;
}
