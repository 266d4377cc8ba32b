/* Fuzz target `groupby`: raid groupby's job on the cpu context: aggregation by a numeric key
 * (raid_groupby_run_csv, src/jobs/groupby.c: the table reader, the aggregation list, int64 or
 * float64 keys, exact sums) and the output (raid_groupby_table_write_csv).
 *
 * Input: 2 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-1 --by (BY); bits 2-5 --agg (AGGS, good and bad lists); bit 6 RAID_GROUPBY_SKIPNA
 * Checks: the records (status and message, notices, the output) the same as with the reference knobs. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <string.h>

static const char *const BY[4] = {"key", "a", "id", "x y"};
static const char *const AGGS[16] = {"sum:value",
                                     "count",
                                     "count:value,sum:value,mean:value,min:value,max:value,first:value,last:value",
                                     "sum:a,sum:b",
                                     "mean:price,count",
                                     "min:v,max:v",
                                     "sum:value,sum:value",
                                     "first:b,last:a",
                                     "sum:key",
                                     "median:value",
                                     "sum:",
                                     "",
                                     "count,count",
                                     "sum:value,",
                                     "max:x y",
                                     "last:value"};

typedef struct opts {
    const char *by, *aggs;
    unsigned flags;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_ctx *ctx = fz_cpu();
    raid_groupby_table *t = NULL;
    raid_status st = raid_groupby_run_csv(ctx, path, o->by, o->aggs, o->flags, &t);
    fz_addf(r, "groupby %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    FZ_CHECK((st == RAID_OK) == (t != NULL), "raid_groupby_run_csv: status %d, table %p", (int)st, (void *)t);
    if (!t)
        return;
    for (size_t i = 0; i < raid_groupby_table_notice_count(t); i++)
        fz_addf(r, "notice %s\n", raid_groupby_table_notice(t, i));
    FZ_WRITE(r, "write", f, raid_groupby_table_write_csv(t, f));
    raid_groupby_table_destroy(t);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in);
    opts o = {BY[b1 & 3], AGGS[(b1 >> 2) & 15], (b1 & 64) ? (unsigned)RAID_GROUPBY_SKIPNA : 0u};
    fz_two_runs("groupby", in.p, in.n, job, &o, &io, &o);
    return 0;
}
