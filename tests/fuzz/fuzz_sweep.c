/* Fuzz target `sweep`: raid sweep's job on the cpu context: the reader of closes (and opens)
 * (raid_ma_read_csv_columns, src/jobs/ma.c), a small grid of crossovers (raid_sweep_run) and the
 * outputs (raid_sweep_write_csv, raid_sweep_write_trades).
 *
 * Input: 3 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-1 the column names (NAMES); bit 2 fill at the next open (reads the open column); bit 3 the
 *         open column optional (else required when read); bits 4-5 the moving average (hma, wma, mean, ema);
 *         bit 6 short side; bit 7 the context's precision RAID_PREC_F32 (not with ema)
 *   2     bits 0-1 the grid (fast 2:4 slow 3:8, fast 2 slow 3, fast 1:3 slow 2:6:2, fast 5:9 slow 6:12);
 *         bit 2 a cost of 10 bps
 * Checks: the records (status and message of the reading and of the sweep, notices, the outputs) the same
 * as with the reference knobs. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <string.h>

/* symbol, date (names) and close, open (cols) */
static const char *const NAMES[4][5] = {{NULL, NULL, NULL, "close", "open"},
                                        {"sym", "d", NULL, "c", "o"},
                                        {NULL, "timestamp", NULL, "price", "open"},
                                        {"symbol", NULL, NULL, "close", "close"}};

typedef struct opts {
    const char *const *names;
    size_t ncols;
    unsigned optional;
    raid_sweep_spec spec;
    raid_precision prec; /* the context's */
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_ma_input *in = NULL;
    raid_status st = raid_ma_read_csv_columns(path, o->names, o->names + 3, o->ncols, o->optional, &in);
    fz_addf(r, "read %d %s\n", (int)st, st ? raid_errmsg() : "");
    FZ_CHECK((st == RAID_OK) == (in != NULL), "raid_ma_read_csv_columns: status %d, input %p", (int)st, (void *)in);
    if (!in)
        return;
    for (size_t i = 0; i < raid_ma_input_notice_count(in); i++)
        fz_addf(r, "notice %s\n", raid_ma_input_notice(in, i));
    raid_ctx *ctx = fz_cpu();
    FZ_CHECK(raid_ctx_set_precision(ctx, o->prec) == RAID_OK, "raid_ctx_set_precision: %s", raid_ctx_errmsg(ctx));
    raid_sweep_result *res = NULL;
    st = raid_sweep_run(ctx, &o->spec, in, &res);
    fz_addf(r, "sweep %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    FZ_CHECK((st == RAID_OK) == (res != NULL), "raid_sweep_run: status %d, result %p", (int)st, (void *)res);
    if (res) {
        FZ_WRITE(r, "write", f, raid_sweep_write_csv(res, f));
        FZ_WRITE(r, "trades", f, raid_sweep_write_trades(res, f));
    }
    raid_sweep_result_destroy(res);
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
    static const raid_ma_stat mas[4] = {RAID_MA_HMA, RAID_MA_WMA, RAID_MA_MEAN, RAID_MA_EMA};
    static const int grids[4][6] = {{2, 4, 1, 3, 8, 1}, {2, 2, 1, 3, 3, 1}, {1, 3, 1, 2, 6, 2}, {5, 9, 2, 6, 12, 3}};
    opts o;
    memset(&o, 0, sizeof o);
    o.names = NAMES[b1 & 3];
    raid_sweep_spec_default(&o.spec);
    const int next_open = (b1 >> 2) & 1;
    o.ncols = next_open ? 2 : 1;
    o.optional = next_open && (b1 & 8) ? 2u : 0u;
    o.spec.fill = next_open ? RAID_SWEEP_FILL_NEXT_OPEN : RAID_SWEEP_FILL_CLOSE;
    o.spec.ma = mas[(b1 >> 4) & 3];
    o.spec.short_side = (b1 >> 6) & 1;
    o.prec = (b1 & 128) && o.spec.ma != RAID_MA_EMA ? RAID_PREC_F32 : RAID_PREC_DF;
    const int *g = grids[b2 & 3];
    o.spec.fast_lo = g[0], o.spec.fast_hi = g[1], o.spec.fast_step = g[2];
    o.spec.slow_lo = g[3], o.spec.slow_hi = g[4], o.spec.slow_step = g[5];
    if (o.spec.ma == RAID_MA_HMA && o.spec.fast_lo < 2)
        o.spec.fast_lo = 2;
    o.spec.cost_bps = (b2 & 4) ? 10 : 0;
    o.spec.keep_trades = 1;
    if (raid_sweep_spec_check(NULL, &o.spec) != RAID_OK)
        fz_fail("spec: %s", raid_errmsg());
    fz_two_runs("sweep", in.p, in.n, job, &o, &io, &o);
    return 0;
}
