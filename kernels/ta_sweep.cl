/*
 * ta_sweep.cl -- the trade scan of the crossover sweep on the device (issue 10, section 2; docs/ta_sweep.md
 * is the specification, "The trade scan on the device"). Host side: src/ta/sweep_cl.c.
 *
 * One work-item per combination scans its series bar by bar: the decision at bar t - 1 from its two rows
 * of the moving-average table, then the fills of bar t, exactly as the float64 cpu path (src/ta/sweep_cpu.c
 * raid_sweep_one) does. Only the trades' bars and sides and the number of bars in a position come out:
 * integers, so equal to the cpu path's whenever every decision is.
 *
 * The table holds each float64 value split EXACTLY into three floats v = h + m + l (h = (float)v,
 * m = (float)(v - h), l = v - h - m: exact for a value whose exponent keeps l a normal float; the host
 * checks). Rounding to nearest is monotone, so comparing (h, m, l) lexicographically is comparing the
 * float64 values: the decisions are the float64 path's on the same table, bit for bit. A NaN value has
 * h NaN. OpenCL C 1.2, FP_CONTRACT OFF, no 64-bit float type.
 */
#pragma OPENCL FP_CONTRACT OFF

/* d[t] from fast (f) and slow (s), each three floats: +1 when both are numbers and f > s, else -1 (short)
 * or 0 when both are numbers, 0 when either is NaN. */
static int ta_decide(const RAID_GLOBAL float *f, const RAID_GLOBAL float *s, int short_side)
{
    if (isnan(f[0]) || isnan(s[0]))
        return 0;
    const int gt = f[0] != s[0] ? f[0] > s[0] : (f[1] != s[1] ? f[1] > s[1] : f[2] > s[2]);
    return gt ? 1 : (short_side ? -1 : 0);
}

/* ma: nperiods rows of n values, 3 floats each; combination k reads rows fidx[k], sidx[k]. Outputs:
 * count[k] trades, held[k] bars in a position (the exposure's numerator), and the first cap trades at
 * tr[3 (k cap + i)]: entry bar, exit bar, side (+-1; +-2 when the exit is the final close at bar n - 1,
 * so that the host takes the close there rather than the fill price). */
RAID_KERNEL void ta_sweep_trades(const RAID_GLOBAL float *ma, const RAID_GLOBAL uint *fidx,
                                 const RAID_GLOBAL uint *sidx, int n, int ncomb, int short_side, int at_open,
                                 int cap, RAID_GLOBAL int *count, RAID_GLOBAL int *held_out, RAID_GLOBAL int *tr)
{
    const int k = (int)RAID_GLOBAL_ID(0);
    if (k >= ncomb)
        return;
    const RAID_GLOBAL float *F = ma + (size_t)fidx[k] * 3 * (size_t)n;
    const RAID_GLOBAL float *S = ma + (size_t)sidx[k] * 3 * (size_t)n;
    RAID_GLOBAL int *T = tr + (size_t)k * 3 * (size_t)cap;
    int pos = 0, entry = 0, ntr = 0, held = 0;
    for (int t = 1; t < n; t++) {
        int target = ta_decide(F + 3 * (t - 1), S + 3 * (t - 1), short_side);
        const int last = t == n - 1;
        if (target == pos && !last) { /* no fill */
            held += pos != 0;
            continue;
        }
        if (last && !at_open)
            target = 0; /* the fill at the last close only exits */
        const int old = pos;
        if (target != old) {
            if (old != 0) {
                if (ntr < cap)
                    T[3 * ntr] = entry, T[3 * ntr + 1] = t, T[3 * ntr + 2] = old;
                ntr++;
            }
            pos = target;
            if (target != 0)
                entry = t;
        }
        held += old != 0 || (at_open && pos != 0);
        if (last && pos != 0) { /* the final exit at close[n - 1] */
            if (ntr < cap)
                T[3 * ntr] = entry, T[3 * ntr + 1] = t, T[3 * ntr + 2] = 2 * pos;
            ntr++;
            pos = 0;
        }
    }
    count[k] = ntr;
    held_out[k] = held;
}
