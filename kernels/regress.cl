/*
 * regress.cl -- sufficient statistics of many least-squares problems.
 *
 * An element is one row z = (z_1 .. z_D) of a problem's data: the regressors and the response, centred
 * and scaled by the host (src/regress/stats.c). One work-group reduces one chunk of rows of one problem
 * into NA = D(D+1)/2 + D double-float partials, float2 (hi, lo) at part[chunk * NA + a]:
 *   a = 0 .. D(D+1)/2 - 1   sum z_p z_q for p <= q, row by row of the upper triangle
 *   then D entries          sum z_p (first moments: the host's centring is not exact, and the map back
 *                           to raw moments uses them)
 * Work-item j takes rows [j*RAID_RUN, (j+1)*RAID_RUN) of the chunk. Products are exact (TwoProd, f32 input)
 * or double-float (df input); terms have either sign, so they are added with raid_df_add (relative error
 * 3u^2 of the sum of absolute values). The work-group reduces the accumulators eight at a time through
 * local memory with a fixed-order tree: the partials do not depend on scheduling.
 *
 * Compile-time parameters: RAID_WG (power of two), RAID_RUN (rows per work-item), RAID_D (columns,
 * 2 .. 9), RAID_INPUT_DF (0: float per value, policy f32; 1: float2 (hi, lo), policy df).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_RUN) || !defined(RAID_D) || !defined(RAID_INPUT_DF)
#error "regress.cl needs RAID_WG, RAID_RUN, RAID_D and RAID_INPUT_DF (set by src/regress/stats.c)"
#endif

#define NA (RAID_D * (RAID_D + 1) / 2 + RAID_D)
#define GROUP 8

#if RAID_INPUT_DF
typedef float2 in_t;
#define VAL(v) raid_df_make((v).x, (v).y)
#define PROD(a, b) raid_df_mul((a), (b))
#else
typedef float in_t;
#define VAL(v) raid_df_make((v), 0.0f)
#define PROD(a, b) raid_two_prod((a).hi, (b).hi)
#endif

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void reg_stats(RAID_GLOBAL const in_t *x, RAID_GLOBAL const uint2 *chunk, RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint2 ch = chunk[g]; /* (first row of the chunk in x, number of rows) */

    raid_df acc[NA];
#pragma unroll
    for (int a = 0; a < NA; a++)
        acc[a] = raid_df_make(0.0f, 0.0f);

    for (uint t = 0; t < RAID_RUN; t++) {
        const uint i = lid * RAID_RUN + t;
        if (i < ch.y) {
            RAID_GLOBAL const in_t *row = x + (size_t)(ch.x + i) * RAID_D;
            raid_df z[RAID_D];
#pragma unroll
            for (int p = 0; p < RAID_D; p++)
                z[p] = VAL(row[p]);
            int a = 0;
#pragma unroll
            for (int p = 0; p < RAID_D; p++)
#pragma unroll
                for (int q = p; q < RAID_D; q++) {
                    acc[a] = raid_df_add(acc[a], PROD(z[p], z[q]));
                    a++;
                }
#pragma unroll
            for (int p = 0; p < RAID_D; p++) {
                acc[a] = raid_df_add(acc[a], z[p]);
                a++;
            }
        }
    }

    RAID_LOCAL float lh[GROUP][RAID_WG];
    RAID_LOCAL float ll[GROUP][RAID_WG];
#pragma unroll
    for (int a0 = 0; a0 < NA; a0 += GROUP) {
#pragma unroll
        for (int j = 0; j < GROUP; j++)
            if (a0 + j < NA) {
                lh[j][lid] = acc[a0 + j].hi;
                ll[j][lid] = acc[a0 + j].lo;
            }
        RAID_BARRIER();
        for (uint s = RAID_WG / 2; s > 0; s >>= 1) {
            if (lid < s) {
#pragma unroll
                for (int j = 0; j < GROUP; j++)
                    if (a0 + j < NA) {
                        const raid_df v = raid_df_add(raid_df_make(lh[j][lid], ll[j][lid]),
                                                      raid_df_make(lh[j][lid + s], ll[j][lid + s]));
                        lh[j][lid] = v.hi;
                        ll[j][lid] = v.lo;
                    }
            }
            RAID_BARRIER();
        }
        /* Every slot is written whatever the width (a group narrower than GROUP writes several). */
        for (uint j = lid; j < GROUP && a0 + (int)j < NA; j += RAID_WG)
            part[(size_t)g * NA + a0 + j] = RAID_FLOAT2(lh[j][0], ll[j][0]);
        RAID_BARRIER();
    }
}
