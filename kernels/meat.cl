/*
 * meat.cl -- the residual cross-products that White and Newey-West standard errors need.
 *
 * An element is one row u_t = e_t x_t (k values, computed and scaled by the host: src/regress/meat_cl.c).
 * One work-group takes one chunk of at most RAID_CHUNK rows of one problem, stages it in local memory,
 * and work-item j computes the combinations c = j, j + RAID_WG, ... of (lag l, p, q), c = (l k + p) k + q:
 *   part[chunk * NC + c] = sum_{t = l}^{len-1} u_t[p] u_{t-l}[q]   (both rows inside the chunk)
 * in double-float (raid_df_add: terms of either sign), rows in order, so the result does not depend on
 * scheduling. Pairs that straddle chunks are added by the host in float64.
 *
 * Compile-time parameters: RAID_WG, RAID_CHUNK (rows per chunk), RAID_K (columns), RAID_L (largest lag),
 * RAID_INPUT_DF (0: float values, policy f32; 1: float2 (hi, lo), policy df).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_CHUNK) || !defined(RAID_K) || !defined(RAID_L) || !defined(RAID_INPUT_DF)
#error "meat.cl needs RAID_WG, RAID_CHUNK, RAID_K, RAID_L and RAID_INPUT_DF (set by src/regress/meat_cl.c)"
#endif

#define NC ((RAID_L + 1) * RAID_K * RAID_K)

#if RAID_INPUT_DF
typedef float2 in_t;
#else
typedef float in_t;
#endif

__kernel __attribute__((reqd_work_group_size(RAID_WG, 1, 1)))
void reg_meat(__global const in_t *x, __global const uint2 *chunk, __global float2 *part)
{
    const uint g = get_group_id(0);
    const uint lid = get_local_id(0);
    const uint2 ch = chunk[g]; /* (first row of the chunk in x, number of rows) */

    __local float sh[RAID_CHUNK * RAID_K];
#if RAID_INPUT_DF
    __local float sl[RAID_CHUNK * RAID_K];
#endif
    for (uint i = lid; i < ch.y * RAID_K; i += RAID_WG) {
        const in_t v = x[(size_t)ch.x * RAID_K + i];
#if RAID_INPUT_DF
        sh[i] = v.x;
        sl[i] = v.y;
#else
        sh[i] = v;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint c = lid; c < NC; c += RAID_WG) {
        const uint l = c / (RAID_K * RAID_K), p = c / RAID_K % RAID_K, q = c % RAID_K;
        raid_df acc = raid_df_make(0.0f, 0.0f);
        for (uint t = l; t < ch.y; t++) {
#if RAID_INPUT_DF
            const raid_df a = raid_df_make(sh[t * RAID_K + p], sl[t * RAID_K + p]);
            const raid_df b = raid_df_make(sh[(t - l) * RAID_K + q], sl[(t - l) * RAID_K + q]);
            acc = raid_df_add(acc, raid_df_mul(a, b));
#else
            acc = raid_df_add(acc, raid_two_prod(sh[t * RAID_K + p], sh[(t - l) * RAID_K + q]));
#endif
        }
        part[(size_t)g * NC + c] = (float2)(acc.hi, acc.lo);
    }
}
