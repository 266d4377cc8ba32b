/*
 * From accumulators to realized measures, in float64 (docs/measures.md).
 *
 *   rv     = sum r^2                                     Andersen, Bollerslev, Diebold, Labys (2001)
 *   rs_neg = sum r^2 1{r<0}, rs_pos = sum r^2 1{r>0}     Barndorff-Nielsen, Kinnebrock, Shephard (2010)
 *   bpv    = (pi/2) sum_{i>=2} |r_i||r_{i-1}|             Barndorff-Nielsen and Shephard (2004)
 *   rq     = (M/3) sum r^4                               Barndorff-Nielsen and Shephard (2002)
 *   tpq    = M (M/(M-2)) mu43^-3 sum_{i>=3} prod_{j=0..2} |r_{i-j}|^(4/3),  mu43 = 2^(2/3) G(7/6)/G(1/2)
 *                                                         Barndorff-Nielsen and Shephard (2006)
 *   medrv  = pi/(6 - 4 sqrt(3) + pi) (M/(M-2)) sum_{i=2}^{M-1} med(|r_{i-1}|,|r_i|,|r_{i+1}|)^2
 *                                                         Andersen, Dobrev and Schaumburg (2012)
 *   jump_z = sqrt(M) (1 - bpv/rv) / sqrt((pi^2/4 + pi - 5) max(1, tpq/bpv^2)),  jump_p = 1 - Phi(jump_z)
 *                                                         Huang and Tauchen (2005), ratio statistic
 */
#include "realized/realized_internal.h"

#include <float.h>
#include <math.h>

static const double PI = 3.14159265358979323846;

void raidMeasuresFromAcc(const double acc[RAID_NACC], int64_t M, raid_realized *o)
{
    const double m = (double)M;
    o->n = M;
    o->rv = o->bpv = o->rs_neg = o->rs_pos = o->rq = o->tpq = o->medrv = o->jump_z = o->jump_p = NAN;
    if (M >= 1) {
        o->rs_neg = acc[RAID_ACC_RS_NEG];
        o->rs_pos = acc[RAID_ACC_RS_POS];
        o->rv = o->rs_neg + o->rs_pos;
        o->rq = m / 3.0 * acc[RAID_ACC_QUART];
    }
    if (M >= 2)
        o->bpv = PI / 2.0 * acc[RAID_ACC_BPV];
    if (M >= 3) {
        const double mu43 = pow(2.0, 2.0 / 3.0) * tgamma(7.0 / 6.0) / tgamma(0.5);
        const double small = m / (m - 2.0);
        o->tpq = m * small * acc[RAID_ACC_TPQ] / (mu43 * mu43 * mu43);
        o->medrv = PI / (6.0 - 4.0 * sqrt(3.0) + PI) * small * acc[RAID_ACC_MED];
        /* tpq / bpv^2, without forming bpv^2 where it would underflow (bpv below 1.5e-154). Where bpv^2
         * and tpq are both below float64's normal range (a day of returns near 1e-80 and below, or a
         * subnormal return), the float64 values do not determine the ratio (tpq's terms underflowed, 0/0
         * once): jump_z and jump_p are left empty rather than made up (a day of 1e-3,
         * 1e-250, 1e-3 gave p = 0.013 where the exact p is 0.5). */
        const double bb = o->bpv * o->bpv;
        if (o->rv > 0.0 && o->bpv >= DBL_MIN && (bb >= DBL_MIN || o->tpq >= DBL_MIN)) {
            const double theta = PI * PI / 4.0 + PI - 5.0;
            const double ratio = bb >= DBL_MIN ? o->tpq / bb : o->tpq / o->bpv / o->bpv;
            o->jump_z = sqrt(m) * (1.0 - o->bpv / o->rv) / sqrt(theta * (ratio > 1.0 ? ratio : 1.0));
            o->jump_p = 0.5 * erfc(o->jump_z / sqrt(2.0));
        }
    }
}
