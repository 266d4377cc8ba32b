/* Window plans over the rows of one series, and their sufficient statistics from block statistics.
 *
 * For every model that is re-estimated on moving windows: HAR's rolling and expanding fits
 * (src/models/har_fit.c) today; rolling moving averages, the backtest's parameter sweep and GARCH refits
 * are meant to reuse it rather than write a window loop again. A series of m rows is cut into blocks of
 * B rows (the last one may be short) whose statistics come from one raid_reg_stats_compute call for
 * every block of every series (one device pass); a window's statistics then combine the whole blocks
 * it covers with its partial edge blocks (raid_reg_stats_range), so a window costs O((m/B + B) k^2) and
 * no row is ever added and then subtracted. Windows are independent: raidWindowCpus gives one float64
 * cpu context per OpenMP thread for the edge blocks. */
#ifndef RAID_MODELS_WINDOW_H
#define RAID_MODELS_WINDOW_H

#include "raid.h"

#include <stddef.h>
#include <stdint.h>

typedef enum RaidWindowKind {
    RAID_WINDOW_FULL = 0,      /* one window: all rows */
    RAID_WINDOW_ROLLING = 1,   /* the last N rows up to the end row */
    RAID_WINDOW_EXPANDING = 2  /* every row up to the end row; the first window has N rows */
} RaidWindowKind;

/* Rows per block of the block statistics (HAR's windows use it; the output does not depend on it
 * beyond float64 rounding, and recorded outputs were made with 50). */
#define RAID_WINDOW_BLOCK 50

/* The number of windows of N rows over m rows: m - N + 1, or 0 when m < N (or N is 0). A full window
 * plan (RAID_WINDOW_FULL) has one window when m > 0. */
size_t raidWindowCount(RaidWindowKind kind, size_t m, size_t N);

/* Rows [*s0, *s1) of window w (0-based, by end row e = w + N - 1) of a plan over m rows. */
void raidWindowRows(RaidWindowKind kind, size_t m, size_t N, size_t w, int64_t *s0, int64_t *s1);

/* Blocks of B rows over m rows: ceil(m / B). */
size_t raidWindowNblocks(size_t m, size_t B);

/* Write the end offsets of the blocks of a series of m rows that starts at row pos of a stacked array:
 * off[1..nblocks] (off[0] is the caller's, the series' start); returns nblocks. */
size_t raidWindowBlockOffsets(size_t pos, size_t m, size_t B, int64_t *off);

/* The statistics of window w of a plan over the m rows of one series (X row-major, k columns; y), from
 * the statistics of its blocks of B rows (blocks[b]: rows [b B, (b + 1) B), one raid_reg_stats_compute
 * problem each): the whole blocks inside the window combined, its partial edge blocks computed on cpu
 * (a context of the cpu backend, used from this thread only; raid_reg_stats_range). The window's rows
 * go to *s0, *s1. Errors: those of raid_reg_stats_range. */
raid_status raidWindowStats(raid_ctx *cpu, const raid_reg_stats *blocks, size_t B, const double *X, const double *y,
                              int k, RaidWindowKind kind, size_t m, size_t N, size_t w, int64_t *s0, int64_t *s1,
                              raid_reg_stats *out);

/* Contexts of the float64 cpu backend, one per OpenMP thread (omp_get_max_threads(); *n receives the
 * count): the first is ctx itself when ctx is a cpu context. Errors: RAID_ENOMEM and raid_ctx_create's;
 * the message on ctx. Free with raidWindowCpusFree. */
raid_status raidWindowCpus(raid_ctx *ctx, raid_ctx ***out, int *n);
void raidWindowCpusFree(raid_ctx *ctx, raid_ctx **cpus, int n);

#endif
