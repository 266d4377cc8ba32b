/* Fuzz target `quantile`: raid quantile's job on the cpu context: quantiles of a column, optionally per
 * integer key (raid_quantile_run_csv, src/jobs/quantile.c: the table reader, the q list, the sort and
 * the selection) and the output (raid_quantile_table_write_csv).
 *
 * Input: 2 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-2 --col (COLS); bits 3-5 --q (QS, good and bad lists); bits 6-7 --by (none, key, a, id)
 * Checks: the records (status and message, notices, the output) the same as with the reference knobs. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <string.h>

static const char *const COLS[8] = {"value", "price", "a", "b", "x y", "key", "ret", "v"};
static const char *const QS[8] = {"0.5", "0,0.25,0.5,0.75,1", "0.1,0.9", "1", "0.5,0.50", "1.5", "0.999999999999", "0"};
static const char *const BY[4] = {NULL, "key", "a", "id"};

typedef struct opts {
    const char *col, *qs, *by;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_ctx *ctx = fz_cpu();
    raid_quantile_table *t = NULL;
    raid_status st = raid_quantile_run_csv(ctx, path, o->col, o->qs, o->by, &t);
    fz_addf(r, "quantile %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    FZ_CHECK((st == RAID_OK) == (t != NULL), "raid_quantile_run_csv: status %d, table %p", (int)st, (void *)t);
    if (!t)
        return;
    for (size_t i = 0; i < raid_quantile_table_notice_count(t); i++)
        fz_addf(r, "notice %s\n", raid_quantile_table_notice(t, i));
    FZ_WRITE(r, "write", f, raid_quantile_table_write_csv(t, f));
    raid_quantile_table_destroy(t);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in);
    opts o = {COLS[b1 & 7], QS[(b1 >> 3) & 7], BY[b1 >> 6]};
    fz_two_runs("quantile", in.p, in.n, job, &o, &io, &o);
    return 0;
}
