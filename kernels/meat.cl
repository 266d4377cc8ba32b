/*
 * meat.cl -- the residual cross-products that White and Newey-West standard errors need.
 *
 * Input (resident: uploaded once per call, shared by the overlapping row ranges of rolling windows): rows
 * of RAID_K + 1 values, the regressors x_t[0..K-1] - c then y_t - c_y, centred by the group's column
 * means and scaled by the host by a power of two per column (src/regress/meat_device.c); then per problem its
 * coefficients beta (K double-float pairs), a = sum_p c_p beta_p - c_y and the scores' offsets d (K
 * pairs), all in the same scaled units. One work-group takes one chunk of at most RAID_CHUNK rows of one
 * problem:
 *   1. stage: work-items form the scores u_t[p] = e_t ((x_t[p] - c_p) + d[p]) of the chunk's rows,
 *      e_t = (y_t - c_y) - sum_p (x_t[p] - c_p) beta[p] - a, in double-float (centred, the subtraction
 *      loses only about 2^-46 of |y_t - c_y| + sum_p |(x_t[p] - c_p) beta[p]| + |a|, not of the levels),
 *      and store u_t in local memory (hi and lo for the df policy, the rounded binary32 value for f32).
 *      d = c gives the scores e_t x_t; the host passes instead the offsets to a centre of the problem's
 *      own rows when the design has a constant column, and maps the sums back (meat_device.c);
 *   2. work-item j computes the combinations c = j, j + RAID_WG, ... of (lag l, p, q), c = (l k + p) k + q:
 *        part[chunk * NC + c] = sum_{t = l}^{len-1} u_t[p] u_{t-l}[q]   (both rows inside the chunk)
 *      in double-float (raidDfAdd: terms of either sign), rows in order, so the result does not depend
 *      on scheduling. Pairs that straddle chunks are added by the host in float64.
 *
 * Compile-time parameters: RAID_WG, RAID_CHUNK (rows per chunk), RAID_K (columns), RAID_L (largest lag),
 * RAID_INPUT_DF (0: float values, policy f32; 1: float2 (hi, lo), policy df).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_CHUNK) || !defined(RAID_K) || !defined(RAID_L) || !defined(RAID_INPUT_DF)
#error "meat.cl needs RAID_WG, RAID_CHUNK, RAID_K, RAID_L and RAID_INPUT_DF (set by src/regress/meat_device.c)"
#endif

#define NC ((RAID_L + 1) * RAID_K * RAID_K)

#if RAID_INPUT_DF
typedef float2 in_t;
#define IN_DF(v) raidDfMake((v).x, (v).y)
#else
typedef float in_t;
#define IN_DF(v) raidDfMake((v), 0.0f)
#endif

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void reg_meat(RAID_GLOBAL const in_t *rows, RAID_GLOBAL const uint4 *chunk, RAID_GLOBAL float2 *part,
              RAID_GLOBAL const float2 *beta)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint4 ch = chunk[g]; /* (first row in rows, number of rows, problem, 0) */

    RAID_SHARED float sh[RAID_CHUNK * RAID_K];
#if RAID_INPUT_DF
    RAID_SHARED float sl[RAID_CHUNK * RAID_K];
#endif
    /* beta: per problem its K coefficients, a, and the K offsets d of its scores */
    RAID_GLOBAL const float2 *bz = beta + (size_t)ch.z * (2 * RAID_K + 1);
    RaidDf b[RAID_K], cen[RAID_K];
    for (uint p = 0; p < RAID_K; p++) {
        const float2 v = bz[p], c = bz[RAID_K + 1 + p];
        b[p] = raidDfMake(-v.x, -v.y);
        cen[p] = raidDfMake(c.x, c.y);
    }
    const RaidDf na = raidDfMake(-bz[RAID_K].x, -bz[RAID_K].y);
    for (uint t = lid; t < ch.y; t += RAID_WG) {
        RAID_GLOBAL const in_t *row = rows + ((size_t)ch.x + t) * (RAID_K + 1);
        RaidDf e = raidDfAdd(IN_DF(row[RAID_K]), na);
        for (uint p = 0; p < RAID_K; p++)
            e = raidDfAdd(e, raidDfMul(IN_DF(row[p]), b[p]));
        for (uint p = 0; p < RAID_K; p++) {
            const RaidDf u = raidDfMul(e, raidDfAdd(IN_DF(row[p]), cen[p]));
#if RAID_INPUT_DF
            sh[t * RAID_K + p] = u.hi;
            sl[t * RAID_K + p] = u.lo;
#else
            sh[t * RAID_K + p] = u.hi;
#endif
        }
    }
    RAID_BARRIER();

    for (uint c = lid; c < NC; c += RAID_WG) {
        const uint l = c / (RAID_K * RAID_K), p = c / RAID_K % RAID_K, q = c % RAID_K;
        RaidDf acc = raidDfMake(0.0f, 0.0f);
        for (uint t = l; t < ch.y; t++) {
#if RAID_INPUT_DF
            const RaidDf a = raidDfMake(sh[t * RAID_K + p], sl[t * RAID_K + p]);
            const RaidDf bb = raidDfMake(sh[(t - l) * RAID_K + q], sl[(t - l) * RAID_K + q]);
            acc = raidDfAdd(acc, raidDfMul(a, bb));
#else
            acc = raidDfAdd(acc, raidTwoProd(sh[t * RAID_K + p], sh[(t - l) * RAID_K + q]));
#endif
        }
        part[(size_t)g * NC + c] = RAID_FLOAT2(acc.hi, acc.lo);
    }
}
