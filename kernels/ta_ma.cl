/*
 * ta_ma.cl -- moving averages and rolling statistics by DIRECT windowed sums in double-float (issue 10,
 * docs/ta.md "The device path and its bound"). Host side: src/ta/ma_cl.c.
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

typedef struct ta_acc {
    float h, l, c;
} ta_acc;

inline ta_acc ta_zero(void)
{
    ta_acc a;
    a.h = 0.0f;
    a.l = 0.0f;
    a.c = 0.0f;
    return a;
}

/* l += t exactly, the rounding error of l into c. */
inline ta_acc ta_low(ta_acc a, float t)
{
    raid_df s = raid_two_sum(a.l, t);
    a.l = s.hi;
    a.c = a.c + s.lo;
    return a;
}

/* h += t exactly, its rounding error into the low parts. */
inline ta_acc ta_high(ta_acc a, float t)
{
    raid_df s = raid_two_sum(a.h, t);
    a.h = s.hi;
    return ta_low(a, s.lo);
}

/* Exact renormalisation: |l| <= ulp(h)/2, then c folded into l (its error the new c). */
inline ta_acc ta_renorm(ta_acc a)
{
    raid_df s = raid_two_sum(a.h, a.l);
    a.h = s.hi;
    a.l = s.lo;
    s = raid_two_sum(a.l, a.c);
    a.l = s.hi;
    a.c = s.lo;
    return a;
}

/* Add the square of the double-float d = (hi, lo): hi^2 (TwoProd), 2 hi lo (TwoProd, 2 hi exact) and
 * lo^2 (rounded: below u^4 d^2). */
inline ta_acc ta_add_sq(ta_acc a, float hi, float lo)
{
    raid_df p = raid_two_prod(hi, hi);
    raid_df q = raid_two_prod(2.0f * hi, lo);
    a = ta_high(a, p.hi);
    a = ta_low(a, p.lo);
    a = ta_low(a, q.hi);
    a = ta_low(a, q.lo);
    a = ta_low(a, lo * lo);
    return ta_renorm(a);
}

/* w (hi + lo) for an integer weight w <= 2^24 (exact in float): four exact terms. */
inline ta_acc ta_add_w(ta_acc a, float w, float hi, float lo)
{
    raid_df p = raid_two_prod(w, hi);
    raid_df q = raid_two_prod(w, lo);
    a = ta_high(a, p.hi);
    a = ta_low(a, p.lo);
    a = ta_low(a, q.hi);
    a = ta_low(a, q.lo);
    return ta_renorm(a);
}

/* The accumulator as a double-float (one rounding of l + c, below u^3 of the sum). */
inline raid_df ta_df(ta_acc a)
{
    return raid_two_sum(a.h, a.l + a.c);
}

/* s / d for a double-float s and a double-float d > 0 by long division: q1 = s.hi / d.hi, the remainder
 * s - q1 d formed with TwoProd (s.hi - p.hi exact by Sterbenz), q2 = remainder / d.hi. Relative error a
 * few u^2 (tests/test_ma_cl.c measures the results). */
inline raid_df ta_div(raid_df s, raid_df d)
{
    float q1 = s.hi / d.hi;
    raid_df p = raid_two_prod(q1, d.hi);
    float r = (((s.hi - p.hi) - p.lo) + s.lo) - q1 * d.lo;
    float q2 = r / d.hi;
    return raid_two_sum(q1, q2);
}

/* The WMA numerator sum_{j=1..n} j x_{i-n+j} of the window of n values ending at i. */
inline ta_acc ta_wma_sum(RAID_GLOBAL const float *x, int i, int n)
{
    ta_acc a = ta_zero();
    const int b = i - n + 1;
    for (int j = 0; j < n; j++)
        a = ta_add_w(a, (float)(j + 1), x[2 * (b + j)], x[2 * (b + j) + 1]);
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
    ta_acc a = ta_zero();
    if (stat == TA_WMA) {
        a = ta_wma_sum(x, i, n);
    } else if (stat == TA_SUMSQ) {
        for (int j = b; j <= i; j++)
            a = ta_add_sq(a, x[2 * j], x[2 * j + 1]);
    } else {
        for (int j = b; j <= i; j++) {
            a = ta_high(a, x[2 * j]);
            a = ta_low(a, x[2 * j + 1]);
            a = ta_renorm(a);
        }
        if (stat == TA_VAR) {
            const float nf = (float)n;
            const raid_df m = ta_div(ta_df(a), raid_df_make(nf, 0.0f));
            a = ta_zero();
            for (int j = b; j <= i; j++) {
                /* d = x_j - m: the high parts' difference exact (TwoSum), the low parts rounded twice */
                raid_df dh = raid_two_sum(x[2 * j], -m.hi);
                raid_df d = raid_two_sum(dh.hi, dh.lo + (x[2 * j + 1] - m.lo));
                a = ta_add_sq(a, d.hi, d.lo);
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
    const raid_df wn = ta_div(ta_df(ta_wma_sum(x, i, n)), raid_df_make(dn_hi, dn_lo));
    const raid_df wm = ta_div(ta_df(ta_wma_sum(x, i, m)), raid_df_make(dm_hi, dm_lo));
    const raid_df v = raid_df_add(raid_df_make(2.0f * wm.hi, 2.0f * wm.lo), raid_df_make(-wn.hi, -wn.lo));
    y[2 * i] = v.hi;
    y[2 * i + 1] = v.lo;
}

/* The EMA, one work-item per run of at least n values (runs[2k] its first index, runs[2k+1] its
 * length): the seed is the double-float mean of the first n values (summed as above), then
 * e_t = x_t alpha + e_{t-1} (1 - alpha) with alpha = (a_hi, a_lo) and 1 - alpha = (b_hi, b_lo) the
 * host's float64 values split (DWTimesDW3, AccurateDWPlusDW: each step's rounding below 13 u^2 of the
 * larger of |x_t|, |e_{t-1}|; the recursion contracts errors by 1 - alpha per step). out[2t], out[2t+1]:
 * e_t for t >= start + n - 1. */
RAID_KERNEL void ta_ema(RAID_GLOBAL const float *x, RAID_GLOBAL const int *runs, RAID_GLOBAL float *out, int nruns,
                        int n, float a_hi, float a_lo, float b_hi, float b_lo)
{
    const int k = (int)RAID_GLOBAL_ID(0);
    if (k >= nruns)
        return;
    const int s = runs[2 * k], len = runs[2 * k + 1];
    ta_acc a = ta_zero();
    for (int j = s; j < s + n; j++) {
        a = ta_high(a, x[2 * j]);
        a = ta_low(a, x[2 * j + 1]);
        a = ta_renorm(a);
    }
    raid_df e = ta_div(ta_df(a), raid_df_make((float)n, 0.0f));
    out[2 * (s + n - 1)] = e.hi;
    out[2 * (s + n - 1) + 1] = e.lo;
    const raid_df al = raid_df_make(a_hi, a_lo), be = raid_df_make(b_hi, b_lo);
    for (int t = s + n; t < s + len; t++) {
        e = raid_df_add(raid_df_mul(raid_df_make(x[2 * t], x[2 * t + 1]), al), raid_df_mul(e, be));
        out[2 * t] = e.hi;
        out[2 * t + 1] = e.lo;
    }
}
