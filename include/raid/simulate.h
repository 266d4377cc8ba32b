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
    /* Several correlated symbols observed at asynchronous trading times (docs/simulate.md "Correlated
     * symbols"). The arrays are the caller's, read during the call only. */
    const double *mean_vars; /* nsymbols variance levels (each > 0) replacing mean_var, or NULL (default) */
    double corr;             /* correlation of the price shocks of every two symbols, default 0 */
    const double *corr_matrix; /* or the nsymbols x nsymbols correlation matrix, row-major (symmetric, unit
                                  diagonal, positive semidefinite), NULL (default): corr for every pair */
    double trade_rate;       /* expected trades per second of every symbol (Poisson, in (0, 1e6]); 0
                                (default): every point of the grid is an observation */
    const double *trade_rates; /* or one rate per symbol (each in (0, 1e6]), NULL (default) */
} raid_sim_opts;

RAID_API void raid_sim_opts_init(raid_sim_opts *o);

/** The number of entries of a day's integrated covariance of n symbols, n (n + 1) / 2: the upper
 *  triangle, row by row ((0,0), (0,1), ..., (0,n-1), (1,1), ...): the order of the rows of
 *  raid_simulate_cov_csv's truth file and of raid_simulate_returns_cov's cov. */
RAID_API size_t raid_sim_cov_size(int n);

/** Simulate log returns directly (no CSV): nsymbols*ndays segments of obs_per_day-1 returns each, in
 *  symbol-major order. r must hold nsymbols*ndays*(obs_per_day-1) doubles, iv nsymbols*ndays (the
 *  integrated variance of each day, may be NULL). Errors: RAID_EINVAL (an option out of its range, named
 *  as raid_simulate_csv names it; r NULL; a return or iv not finite: "simulate: a price left the range of
 *  float64 ...", as raid_simulate_csv refuses such prices; r and iv are then partly written);
 *  message: raid_errmsg(). */
RAID_API raid_status raid_simulate_returns(const raid_sim_opts *o, double *r, double *iv);

/** raid_simulate_returns with the true integrated covariance of each day (docs/simulate.md "Correlated
 *  symbols"): cov (may be NULL) must hold ndays * raid_sim_cov_size(nsymbols) doubles, day by day, each
 *  day's upper triangle in raid_sim_cov_size's order, entry (j, k) = sum over the grid's steps of
 *  corr(j, k) sigma_j sigma_k dt (sigma at the step's left point; the diagonal equals iv). The returns are
 *  those of every point of the grid: trade rates (trade_rate > 0, trade_rates) are refused (RAID_EINVAL:
 *  trading times need timestamps, raid_simulate_cov_csv). Errors: those of raid_simulate_returns, and
 *  RAID_EINVAL for a correlation that is not positive semidefinite ("simulate: the correlation matrix is
 *  not positive semidefinite: the Cholesky pivot of symbol K (SKKKK) is P ..."), RAID_ENOMEM; message:
 *  raid_errmsg(). */
RAID_API raid_status raid_simulate_returns_cov(const raid_sim_opts *o, double *r, double *iv, double *cov);

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

/** raid_simulate_run_csv with, if cov_path is not NULL, the true daily integrated covariance as CSV
 *  "date,symbol_i,symbol_j,value", one row per pair i <= j in raid_sim_cov_size's order, day by day
 *  (docs/simulate.md "Correlated symbols"). With a correlation (corr != 0, corr_matrix) or trade rates the
 *  prices are written day by day, the rows of a day in time order (symbols interleaved; equal times in
 *  symbol order), each symbol observed at the open (09:30:00), at its Poisson trading times (microsecond
 *  timestamps) when it has a trade rate, else at every point of the grid, and at the close (16:00:00); the
 *  progress is then reported in days (unit "days"). Without them, exactly raid_simulate_run_csv's prices.
 *  The three files are written whole or not at all. Errors: those of raid_simulate_csv and
 *  raid_simulate_returns_cov (a correlation not positive semidefinite: RAID_EINVAL, no file written);
 *  message: raid_errmsg(), and raid_ctx_errmsg(ctx). */
RAID_API raid_status raid_simulate_cov_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path,
                                           const char *iv_path, const char *cov_path);

/** Read a correlation matrix of nsymbols symbols from the CSV "symbol_i,symbol_j,value" (the layout of the
 *  truth file without its date; other columns ignored) into corr (nsymbols * nsymbols doubles, row-major,
 *  symmetric): symbols named as the simulator names them (S0001 .. SNNNN), one row for each pair i < j in
 *  either order, rows of a symbol with itself optional (value 1). Errors: RAID_EPARSE ("FILE:LINE:COL:
 *  ..." for a symbol that is not simulated, a value outside [-1, 1], a diagonal value other than 1, a pair
 *  given twice; "FILE: the pair (SI, SJ) is missing" and the table reader's errors), RAID_EIO,
 *  RAID_EINVAL (NULL argument, nsymbols < 1), RAID_ENOMEM; message: raid_errmsg(). Whether the matrix is
 *  positive semidefinite is the simulator's check (raid_simulate_returns_cov). */
RAID_API raid_status raid_simulate_read_corr(const char *path, int nsymbols, double *corr);

#ifdef __cplusplus
}
#endif
#endif /* RAID_SIMULATE_H */
