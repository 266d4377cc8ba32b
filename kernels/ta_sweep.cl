/*
 * ta_sweep.cl -- the trade scan and the statistics of the crossover sweep on the device (
 * 2; docs/ta_sweep.md "The device sweep" is the specification). Host side: src/ta/sweep_device.c.
 *
 * The table: one row per period of moving-average values as normalised double-floats (hi, lo), NaN where
 * undefined (kernels/ta_ma.cl ta_ma_row; or a host table split by the host). The decision at bar t is
 * +1 when fast[t] > slow[t] (both numbers), -1 (short) or 0 otherwise, 0 while either is NaN, the
 * comparison of the two double-floats (hi first, then lo): exact for normalised pairs.
 *
 * The position after the fills of bar t depends on the decision at bar t - 1 only (1 <= t <= n - 2: a
 * change decided at t - 1 is filled at t; before bar 1 the position is 0; at the last bar n - 1 the fill
 * at the close only exits, and a position still open is closed at close[n - 1]). So the bars cut into
 * chunks that are scanned independently: work-item g = j ncomb + k scans chunk j of combination k (the
 * chunk plan's chunks of the return bars 1 .. n - 1), starting from the position the decision at its
 * first bar - 2 gives, exactly as the float64 cpu path (src/ta/sweep_cpu.c) scans the whole series.
 *
 * Pass 0: per work-item the trades that START in its chunk and the bars in a position (integers), and
 * five double-float partials of the per-bar log returns r[t] of its chunk (the float64 lc, lgap, lin of
 * the host split into pairs; costs c per side): their sum E and sum of squares SS (triple-float
 * accumulators, RaidTacc), and, of the equity from the chunk's start, its peak P (>= 0), its minimum
 * MN (<= 0) and the largest drop from a peak MDD (>= 0), all including the start's 0. The host combines
 * them in float64 in chunk order. Pass 1 (the trade list): base[g] is the slot of the first trade that
 * starts in the chunk (combination-major prefix sums of pass 0's counts); each entry writes its bar and
 * side at its slot, each exit its bar at the slot of the trade open then (negative, -(bar + 1), for the
 * final exit at close[n - 1]): no two work-items write the same int.
 *
 * OpenCL C 1.2, FP_CONTRACT OFF, no 64-bit float type.
 */
#pragma OPENCL FP_CONTRACT OFF

/* d from fast (fh, fl) and slow (sh, sl). */
RAID_FN int ta_decide(float fh, float fl, float sh, float sl, int short_side)
{
    if (RAID_ISNAN(fh) || RAID_ISNAN(sh))
        return 0;
    const int gt = fh != sh ? fh > sh : fl > sl;
    return gt ? 1 : (short_side ? -1 : 0);
}

RAID_FN int ta_df_gt(RaidDf a, RaidDf b)
{
    return a.hi != b.hi ? a.hi > b.hi : a.lo > b.lo;
}

/* side (+-1) times the pair at ret[2t]. */
RAID_FN RaidDf ta_signed(RAID_GLOBAL const float *ret, int t, int side)
{
    const float sg = side > 0 ? 1.0f : -1.0f;
    return raidDfMake(sg * ret[2 * t], sg * ret[2 * t + 1]);
}

/* The partials of one chunk's nonzero per-bar returns (a zero one changes none of them). */
typedef struct ta_stats {
    RaidTacc E, SS;         /* sum, sum of squares */
    RaidDf peak, mn, mdd;   /* of the equity E since the chunk's start (0 included) */
} ta_stats;

RAID_FN ta_stats ta_add_return(ta_stats A, RaidDf r)
{
    A.E = raidTaccAddDf(A.E, r.hi, r.lo);
    A.SS = raidTaccAddSq(A.SS, r.hi, r.lo);
    const RaidDf e = raidTaccDf(A.E);
    if (ta_df_gt(e, A.peak))
        A.peak = e;
    if (ta_df_gt(A.mn, e))
        A.mn = e;
    const RaidDf d = raidDfAdd(A.peak, raidDfMake(-e.hi, -e.lo));
    if (ta_df_gt(d, A.mdd))
        A.mdd = d;
    return A;
}

/* tab: the table; fidx, sidx: each combination's rows; chunks: (first bar, bars) per chunk; ret: the
 * pairs of lc[0..n), then (at_open) lgap[0..n) and lin[0..n) (index 0 unused); c = (c_hi, c_lo) the log
 * cost of one side (<= 0). Pass 0 writes cnt[2g] (trades starting in the chunk), cnt[2g + 1] (bars in a
 * position) and part[10g ..] = E, SS, P, MN, MDD (pairs); pass 1 writes the trades tr[3 slot ..] =
 * (entry bar, exit bar, side). */
RAID_KERNEL void ta_sweep_scan(RAID_GLOBAL const float *tab, RAID_GLOBAL const uint *fidx, RAID_GLOBAL const uint *sidx,
                               RAID_GLOBAL const uint *chunks, RAID_GLOBAL const float *ret, int n, int ncomb,
                               int nchunks, int short_side, int at_open, float c_hi, float c_lo, int pass,
                               RAID_GLOBAL int *cnt, RAID_GLOBAL float *part, RAID_GLOBAL const int *base,
                               RAID_GLOBAL int *tr)
{
    const int g = (int)RAID_GLOBAL_ID(0);
    if (g >= ncomb * nchunks)
        return;
    const int k = g % ncomb, j = g / ncomb;
    const RAID_GLOBAL float *F = tab + 2 * (size_t)fidx[k] * (size_t)n;
    const RAID_GLOBAL float *S = tab + 2 * (size_t)sidx[k] * (size_t)n;
    const RAID_GLOBAL float *lgap = ret + 2 * (size_t)n, *lin = ret + 4 * (size_t)n;
    const int t0 = (int)chunks[2 * j], t1 = t0 + (int)chunks[2 * j + 1];
    const RaidDf c = raidDfMake(c_hi, c_lo);
    int pos = t0 >= 2 ? ta_decide(F[2 * (t0 - 2)], F[2 * (t0 - 2) + 1], S[2 * (t0 - 2)], S[2 * (t0 - 2) + 1], short_side) : 0;
    int entries = 0, held = 0, slot = pass ? base[g] : 0; /* slot: the next trade's */
    ta_stats A;
    A.E = raidTaccZero();
    A.SS = A.E;
    A.peak = raidDfMake(0.0f, 0.0f);
    A.mn = A.peak;
    A.mdd = A.peak;
    for (int t = t0; t < t1; t++) {
        int target = ta_decide(F[2 * (t - 1)], F[2 * (t - 1) + 1], S[2 * (t - 1)], S[2 * (t - 1) + 1], short_side);
        const int last = t == n - 1;
        if (target == pos && !last) { /* no fill */
            if (pos == 0)
                continue;
            held++;
            if (pass)
                continue;
            A = ta_add_return(A, ta_signed(ret, t, pos));
            continue;
        }
        if (last && !at_open)
            target = 0; /* the fill at the last close only exits */
        const int old = pos;
        int sides = 0;
        if (target != old) {
            if (old != 0) { /* the exit of the open trade */
                if (pass)
                    tr[3 * (slot - 1) + 1] = t;
                sides++;
            }
            pos = target;
            if (target != 0) { /* an entry */
                if (pass) {
                    tr[3 * slot] = t;
                    tr[3 * slot + 2] = target;
                }
                slot++;
                entries++;
                sides++;
            }
        }
        held += old != 0 || (at_open && pos != 0);
        RaidDf r = raidDfMake(0.0f, 0.0f);
        if (!at_open || pos == old) {
            if (old != 0)
                r = ta_signed(ret, t, old);
        } else {
            if (old != 0)
                r = ta_signed(lgap, t, old);
            if (pos != 0)
                r = old != 0 ? raidDfAdd(r, ta_signed(lin, t, pos)) : ta_signed(lin, t, pos);
        }
        if (last && pos != 0) { /* the final exit at close[n - 1] */
            if (pass)
                tr[3 * (slot - 1) + 1] = -t - 1;
            sides++;
            pos = 0;
        }
        if (pass)
            continue;
        for (int i = 0; i < sides; i++)
            r = raidDfAdd(r, c);
        if (r.hi == 0.0f && r.lo == 0.0f)
            continue;
        A = ta_add_return(A, r);
    }
    if (pass)
        return;
    cnt[2 * g] = entries;
    cnt[2 * g + 1] = held;
    const RaidDf e = raidTaccDf(A.E), ss = raidTaccDf(A.SS);
    RAID_GLOBAL float *o = part + 10 * (size_t)g;
    o[0] = e.hi, o[1] = e.lo, o[2] = ss.hi, o[3] = ss.lo, o[4] = A.peak.hi, o[5] = A.peak.lo;
    o[6] = A.mn.hi, o[7] = A.mn.lo, o[8] = A.mdd.hi, o[9] = A.mdd.lo;
}
