/*
 * raid/simulate.h -- the stochastic-volatility simulator with jumps and noise (docs/simulate.md).
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_SIMULATE_H
#define RAID_SIMULATE_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Simulation                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

/** Stochastic-volatility model with jumps and microstructure noise (docs/simulate.md). */
typedef struct raid_sim_opts {
    uint64_t seed;           /* default 1 */
    int nsymbols;            /* default 1 */
    int ndays;               /* default 1 */
    int64_t obs_per_day;     /* observations per day (prices), default 23401 (1 s over 6.5 h) */
    double mean_var;         /* long-run daily variance of log price, default 1e-4 */
    double vol_of_logvar;    /* volatility of log variance per sqrt(day), default 0.5 */
    double mean_reversion;   /* mean reversion of log variance per day, default 0.2 */
    double rho;              /* correlation of price and variance shocks (leverage), default -0.5 */
    double jump_rate;        /* expected jumps per day, default 0.1 */
    double jump_sd;          /* standard deviation of a jump in log price, default 0.005 */
    double noise_sd;         /* i.i.d. Gaussian noise on log price, default 0 */
    double start_price;      /* default 100 */
} raid_sim_opts;

RAID_API void raid_sim_opts_init(raid_sim_opts *o);

/** Simulate log returns directly (no CSV): nsymbols*ndays segments of obs_per_day-1 returns each, in
 *  symbol-major order. r must hold nsymbols*ndays*(obs_per_day-1) doubles, iv nsymbols*ndays (the
 *  integrated variance of each day, may be NULL). Errors: RAID_EINVAL (an option out of its range, named
 *  as raid_simulate_csv names it; r NULL; a return or iv not finite: "simulate: a price left the range of
 *  float64 ...", as raid_simulate_csv refuses such prices; r and iv are then partly written);
 *  message: raid_errmsg(). */
RAID_API raid_status raid_simulate_returns(const raid_sim_opts *o, double *r, double *iv);

/** Write the simulated prices as CSV "symbol,timestamp,price" to prices_path (09:30:00 to 16:00:00 on
 *  consecutive weekdays from 2020-01-02, evenly spaced) and, if iv_path is not NULL, "symbol,date,iv".
 *  Files are written to a temporary name and renamed: on failure neither file is left. Errors: RAID_EINVAL
 *  (an option out of its range, no path, the same file twice), RAID_EIO, RAID_ENOMEM; message:
 *  raid_errmsg() ("simulate: ..." for the options, "cannot write PATH: REASON" for a file). */
RAID_API raid_status raid_simulate_csv(const raid_sim_opts *o, const char *prices_path, const char *iv_path);

/** raid_simulate_csv as a job on ctx (NULL: exactly raid_simulate_csv): the same files, and the rows of
 *  prices written reported to ctx's progress callback (raid_ctx_set_progress, unit "rows", after each day
 *  of a symbol). Errors: those of raid_simulate_csv; message: raid_errmsg(), and raid_ctx_errmsg(ctx). */
RAID_API raid_status raid_simulate_run_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path,
                                           const char *iv_path);

#ifdef __cplusplus
}
#endif
#endif /* RAID_SIMULATE_H */
