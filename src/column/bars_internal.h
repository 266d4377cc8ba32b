/* Ticks to bars (include/raid/bars.h, docs/column.md "Ticks to bars"): the bars as the group-by computes
 * them (src/column/bars.c) from the keyed trades that their job hands it (src/jobs/bars.c: the trades of
 * a CSV file or of arrays, checked, in sessions and intervals of local time). Never installed. */
#ifndef RAID_COLUMN_BARS_INTERNAL_H
#define RAID_COLUMN_BARS_INTERNAL_H

#include "core/internal.h"
#include "core/strlist.h"
#include "io/symtab.h"

#define RAID_BARS_KEY_BITS 40 /* the interval index's bits in a key: the symbol's index above them */

struct raid_bars {
    RaidSymtab syms;
    size_t n;                  /* bars */
    uint32_t *sym;             /* n symbol indices */
    int64_t *start_us;         /* n local wall-clock starts (microseconds since 1970-01-01T00:00:00) */
    double *open, *high, *low, *close, *volume, *vwap;
    int64_t *trades;
    RaidStrlist notices;      /* the table reader's (raid_bars_notice); none from arrays */
};

/* The trades kept by a job: n group keys (the symbol's index above RAID_BARS_KEY_BITS bits, the interval
 * index less base, offset by 2^(RAID_BARS_KEY_BITS - 1), below), prices and sizes; the intervals are iv
 * microseconds long. */
typedef struct RaidBarsTrades {
    int64_t iv;
    size_t n;
    int64_t base;
    const int64_t *key;
    const double *price, *size;
} RaidBarsTrades;

/* The bars of the trades r into bars (bars->syms already filled): three group-bys on ctx (NULL: the cpu
 * path), then the fields; the same bits on the cpu path and a device. RAID_OK, or RAID_ENOMEM or the
 * group-by's error, reported through raidFail(NULL, ...). */
raid_status raidBarsMake(raid_ctx *ctx, raid_bars *bars, const RaidBarsTrades *r);

#endif
