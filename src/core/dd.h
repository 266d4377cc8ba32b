/* Compensated float64 summation for the host's reference paths: an unevaluated pair s + c kept with
 * TwoSum (Knuth, TAOCP vol. 2, 4.2.2), so that a sum of n terms is accurate to about n 2^-106 of the sum
 * of their absolute values plus one rounding (Higham 1993). */
#ifndef RAID_DD_H
#define RAID_DD_H

typedef struct RaidDd {
    double s, c;
} RaidDd;

static inline void raidDdAdd(RaidDd *x, double t)
{
    const double s = x->s + t;
    const double bb = s - x->s;
    x->c += (x->s - (s - bb)) + (t - bb);
    x->s = s;
}

static inline double raidDdValue(RaidDd x) { return x.s + x.c; }

#endif
