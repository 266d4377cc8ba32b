/* The series of raid ma (raid_ma_input of include/raid/ma.h): what the CSV reader (src/jobs/ma.c) fills
 * and ma_input.c reads out and writes. Never installed. */
#ifndef RAID_TA_MA_INTERNAL_H
#define RAID_TA_MA_INTERNAL_H

#include "core/strlist.h"
#include "io/symtab.h"
#include "raid/ma.h"

#include <stddef.h>
#include <stdint.h>

struct raid_ma_input {
    size_t nrows, cap;
    size_t ncols;         /* value columns read (raid_ma_read_csv_columns) */
    double *v[RAID_MA_MAX_COLUMNS]; /* column j: nrows values, series after series; NULL when optional and absent */
    size_t *date_off;     /* nrows offsets into text */
    uint64_t *line;       /* nrows: the line of each row (messages of later checks, e.g. the sweep's prices) */
    size_t field[RAID_MA_MAX_COLUMNS]; /* the 1-based field of each value column, 0 when absent */
    char *path;           /* the file as named (messages) */
    char *text;           /* the dates, NUL-terminated */
    size_t text_len, text_cap;
    RaidSymtab syms;     /* the series' names in order (each once: the rows of a symbol are contiguous) */
    int64_t *offsets;     /* syms.n + 1 */
    size_t offsets_cap;
    uint64_t *end_line;   /* the last line of each series (messages) */
    int has_symbol;
    char *date_name;      /* the date column's header name */
    uint64_t header_line; /* the header's line (the sweep's message for a file without data rows) */
    size_t sym_field;     /* the 1-based field of the symbol column, 0 when absent */
    RaidStrlist notices;
};

/* The direct compensated window sums of one run of len finite values (x[t-n+1 .. t] for output t; NAN
 * for t < n - 1): stat sum, mean, sumsq, var or wma. The fallback of the exact fixed-point path of
 * raid_ma_compute, kept callable for the tests that hold the two to docs/ta.md's bound. */
void raidMaWindowDirect(raid_ma_stat stat, const double *x, int64_t len, int64_t n, double *out);

/* The backends of raid_ma_compute (arguments validated): the table in ma.c, chosen by
 * RAID_BACKEND(raidMaBackends, ctx); the cpu entry raidMaCpuCompute (ma.c, the float64 oracle, progress per
 * series) and the device entry raidMaDeviceCompute (ma_device.c). */
typedef struct RaidMaBackend {
    raid_status (*compute)(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                           size_t nseg, double *out);
} RaidMaBackend;
extern const RaidMaBackend raidMaBackends[2];
raid_status raidMaCpuCompute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x, const int64_t *offsets,
                               size_t nseg, double *out);

#endif
