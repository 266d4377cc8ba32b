/* The host's fast log and log1p: the bits of kernels/raid_f64_log.h's correctly rounded raidF64Log and
 * raidF64Log1p, from a double-double evaluation in the host's binary64 arithmetic that returns only when its
 * proven error bound decides the rounding, and falls back to the integer-word functions otherwise
 * (src/core/fastlog.c derives the bounds). For the host's log returns (core/logret.h) and the cpu path of
 * raid_f64_map / raid_f64_eval. */
#ifndef RAID_CORE_FASTLOG_H
#define RAID_CORE_FASTLOG_H

#include <stdint.h>

/* The bounds the rounding tests use (fastlog.c's contract comment proves smaller ones): the relative error
 * of the series near 1 (|x| <= 2^-9 for log1p, |x - 1| <= 2^-9 for log; proven below 2^-71.3) and the
 * absolute error of the table path (elsewhere; proven below 2^-79.9). */
#define RAID_FASTLOG_EPS_SERIES 0x1p-70
#define RAID_FASTLOG_ERR_TABLE 0x1p-78

/* log(x) and log1p(x) correctly rounded (round to nearest even), the same bits as raidF64Log and
 * raidF64Log1p for every binary64 x, special values included (they are the fallback's). Thread-safe. */
double raidFastLog(double x);
double raidFastLog1p(double x);

/* The same on binary64 words (the cpu path of raid_f64_map / raid_f64_eval: the table of
 * src/f64/f64_internal.h's functions). */
uint64_t raidFastLogBits(uint64_t x);
uint64_t raidFastLog1pBits(uint64_t x);

/* The fast path alone, with the rounding tests' bounds as arguments (the tests pass the proven ones,
 * RAID_FASTLOG_EPS_SERIES and RAID_FASTLOG_ERR_TABLE, or deliberately broken ones): 1 with *r set when the
 * rounding test decides, 0 when the caller must fall back (special values, subnormal x for log, |x| < 2^-53
 * or x >= 2^1000 for log1p, and results too close to a rounding boundary). *h and *l (if not NULL) receive
 * the double-double before the test (zero when the fast path does not apply), for the tests' measure of its
 * error. */
int raidFastLogTry(double x, double eps_series, double err_table, double *r, double *h, double *l);
int raidFastLog1pTry(double x, double eps_series, double err_table, double *r, double *h, double *l);

#endif
