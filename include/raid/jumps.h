/*
 * raid/jumps.h -- the Lee-Mykland test for a jump in each intraday return: the statistic of a series of
 * returns (the capability), and the job of `raid jumps` and of the Python package's raid.jumps over a table
 * of returns (include/raid/returns.h). Formulas, constants and the choices below: docs/measures.md
 * "Jumps: Lee-Mykland".
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * Lee, S. S. and Mykland, P. A. (2008), "Jumps in financial markets: a new nonparametric test and jump
 * dynamics", Review of Financial Studies 21, 2535-2563.
 */
#ifndef RAID_JUMPS_H
#define RAID_JUMPS_H

#include "raid/core.h"
#include "raid/returns.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The outcome of the test at a return (raid_jumps_lm's jump[i]). */
enum {
    RAID_JUMP_YES = 1,        /* tested; a jump: (|L_i| - C_n)/S_n > beta* */
    RAID_JUMP_NO = 0,         /* tested; no jump */
    RAID_JUMP_UNTESTED = -1,  /* fewer than K - 1 earlier returns in the series: no window, no statistic */
    RAID_JUMP_UNDEFINED = -2  /* a full window, but no decision: its bipower sum is 0 (statistic NAN), or
                                 the return's day has fewer than 2 returns (C_n needs log log n) */
};

/** The Lee-Mykland (2008) statistic and test of every return of one series (one symbol): its trading
 *  days' returns back to back in time order, day s being r[offsets[s] .. offsets[s+1]), nseg days. The
 *  window rolls over the whole series, across the days (the returns of the previous days of the series
 *  come before the day's first ones; there is no return between two days). For the t-th return of the
 *  series (t = 0, 1, ...; i = offsets[0] + t) with t >= K - 1:
 *    sigma_i^2 = (1/(K-2)) sum_{j=i-K+2}^{i-1} |r_j||r_{j-1}|,   stat[i] = L_i = r_i / sigma_i,
 *  NAN when the sum is 0; jump[i] = RAID_JUMP_YES when (|L_i| - C_n)/S_n > beta*, with n the number of
 *  returns of the day of r_i (offsets[s+1] - offsets[s]),
 *    c = sqrt(2/pi), C_n = sqrt(2 log n)/c - (log pi + log log n)/(2 c sqrt(2 log n)),
 *    S_n = 1/(c sqrt(2 log n)), beta* = -log(-log(1 - alpha)) (computed as -log(-log1p(-alpha))),
 *  so that each day of returns without jumps has a probability of about alpha of any false detection
 *  (LM's Gumbel limit of the maximum over n returns). Earlier returns (t < K - 1): stat NAN, jump
 *  RAID_JUMP_UNTESTED. Units: r dimensionless log returns; stat in units of the bipower estimate of
 *  the local standard deviation (under the null |L| is |Z|/c, Z standard normal, as LM define it).
 *  window K >= 3 (LM's recommendation: raid_jumps_lm_window). alpha in (0, 1): the significance of a
 *  day's test (LM's 1%: 0.01). stat, jump: arrays indexed as r (entries offsets[0] .. offsets[nseg] are
 *  written). Sums are compensated (core/dd.h) and restarted from the window's terms whenever a large
 *  term has left it, so sigma_i^2 is within a few roundings of its exact value. Host memory; O(1) work a
 *  return. Errors (message: raid_errmsg()): RAID_EINVAL (NULL pointers, offsets[0] < 0 or decreasing,
 *  K < 3 or above 2^40, alpha not in (0, 1), a return not finite or above RAID_MAX_RETURN = 1e74 in
 *  magnitude, named by its index). */
RAID_API raid_status raid_jumps_lm(const double *r, const int64_t *offsets, size_t nseg, size_t window,
                                   double alpha, double *stat, int8_t *jump);

/** LM's window for a series of nret returns over ndays days: K = ceil(sqrt(252 m)), m = nret / ndays
 *  the mean number of returns a day (LM 2008: K = sqrt(252 x returns a day), e.g. 270 for 5-minute
 *  returns of a 24-hour market, 141 for the 78 five-minute returns of a 6.5-hour session), at least 3.
 *  Computed exactly: the smallest K with K^2 ndays >= 252 nret. 0 when ndays <= 0 or nret < 0. */
RAID_API size_t raid_jumps_lm_window(int64_t nret, int64_t ndays);

/* The job: the test of every return of a table of returns (raid_returns_table, finished), each symbol's
 * rows one series of raid_jumps_lm (its days in date order, the window across them), per symbol K the
 * given window or, for window 0, raid_jumps_lm_window of that symbol's returns and days. */
typedef struct raid_jumps_table raid_jumps_table;

/** Test every row of ret (finished). window: K for every symbol, or 0 for LM's per symbol; alpha in (0, 1).
 *  Errors (message: raid_errmsg()): RAID_EINVAL (NULL, ret not finished, window 1, 2 or above 2^40, alpha
 *  not in (0, 1)), RAID_ENOMEM, raid_jumps_lm's. Memory: 9 bytes a row. The table keeps no reference to
 *  ret: pass the same ret to raid_jumps_table_write_csv. */
RAID_API raid_status raid_jumps_table_compute(raid_jumps_table **out, const raid_returns_table *ret, size_t window,
                                              double alpha);
/** Free the table. NULL is a no-op. */
RAID_API void raid_jumps_table_destroy(raid_jumps_table *tab);
/** The rows: those of the returns table, in its order (NULL while there are none): the statistic L (NAN
 *  where none: RAID_JUMP_UNTESTED, or a zero bipower sum) and the outcome (RAID_JUMP_*). */
RAID_API size_t raid_jumps_table_nrows(const raid_jumps_table *tab);
RAID_API const double *raid_jumps_table_statistic(const raid_jumps_table *tab);
RAID_API const int8_t *raid_jumps_table_jump(const raid_jumps_table *tab);
/** The window K used for symbol j (the returns table's symbol index); 0 out of range. */
RAID_API size_t raid_jumps_table_window(const raid_jumps_table *tab, size_t j);
/** The number of rows with RAID_JUMP_YES. */
RAID_API size_t raid_jumps_table_njumps(const raid_jumps_table *tab);

/** Write the CSV "symbol,date,timestamp,ret,statistic,sign": one row a detected jump (RAID_JUMP_YES), the
 *  first four fields as raid_returns_table_write_csv writes them, the statistic L as the shortest digits
 *  that read back to its bits, sign 1 or -1 (the sign of ret). all = 1: every row with a full window
 *  (RAID_JUMP_YES, RAID_JUMP_NO, RAID_JUMP_UNDEFINED) and a last column "jump", 1 or 0, empty for
 *  RAID_JUMP_UNDEFINED (as is the statistic where it is NAN; sign 0 for a zero return). ret: the table the
 *  jumps were computed from. Errors: RAID_EINVAL (NULL, ret not finished or of another row count), RAID_EIO
 *  (a failed write); message: raid_errmsg(). */
RAID_API raid_status raid_jumps_table_write_csv(const raid_jumps_table *tab, const raid_returns_table *ret, FILE *f,
                                                int all);

#ifdef __cplusplus
}
#endif

#endif
