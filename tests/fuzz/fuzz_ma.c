/* Fuzz target `ma`: raid ma's job on the cpu context: the reader of price series (raid_ma_read_csv,
 * src/jobs/ma.c), the statistic (raid_ma_compute) and the output (raid_ma_write_csv).
 *
 * Input: 3 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-2 the column names (NAMES); bits 3-5 the statistic (sum .. hma; 7: wma)
 *   2     the window: 1 + (byte mod 40) (hma at least 2)
 * Checks: the records (status and message of the reading and of the statistic, notices, the output) the
 * same as with the reference knobs; the series' offsets and the dates as raid_ma_input says. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[8][3] = {{NULL, NULL, NULL},   {"sym", "d", "p"},      {NULL, "timestamp", NULL},
                                         {NULL, NULL, "price"}, {"date", NULL, NULL},  {NULL, NULL, "date"},
                                         {"s", "t", "close"},  {"symbol", "symbol", NULL}};

typedef struct opts {
    const char *const *names;
    raid_ma_stat stat;
    int64_t window;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_ma_input *in = NULL;
    raid_status st = raid_ma_read_csv(path, o->names, &in);
    fz_addf(r, "read %d %s\n", (int)st, st ? raid_errmsg() : "");
    FZ_CHECK((st == RAID_OK) == (in != NULL), "raid_ma_read_csv: status %d, input %p", (int)st, (void *)in);
    if (!in)
        return;
    for (size_t i = 0; i < raid_ma_input_notice_count(in); i++)
        fz_addf(r, "notice %s\n", raid_ma_input_notice(in, i));
    const size_t n = raid_ma_input_nrows(in), ns = raid_ma_input_nseries(in);
    const int64_t *off = raid_ma_input_offsets(in);
    FZ_CHECK(off[0] == 0 && (size_t)off[ns] == n, "offsets 0 .. %lld for %zu rows", (long long)off[ns], n);
    for (size_t s = 0; s < ns; s++)
        FZ_CHECK(off[s] <= off[s + 1] && raid_ma_input_symbol(in, s), "series %zu", s);
    for (size_t i = 0; i < n; i++)
        FZ_CHECK(raid_ma_input_date(in, i) != NULL, "row %zu has no date", i);
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        fz_fail("out of memory");
    raid_ctx *ctx = fz_cpu();
    st = raid_ma_compute(ctx, o->stat, o->window, raid_ma_input_values(in), off, ns, y);
    fz_addf(r, "compute %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    if (st == RAID_OK) {
        FZ_WRITE(r, "write", f, raid_ma_write_csv(in, o->stat, y, f));
    }
    free(y);
    raid_ma_input_destroy(in);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in), b2 = fz_u8(&in);
    const unsigned st = (b1 >> 3) & 7;
    opts o = {NAMES[b1 & 7], st == 7 ? RAID_MA_WMA : (raid_ma_stat)st, 1 + (int64_t)(b2 % 40)};
    if (o.stat == RAID_MA_HMA && o.window < 2)
        o.window = 2;
    fz_two_runs("ma", in.p, in.n, job, &o, &io, &o);
    return 0;
}
