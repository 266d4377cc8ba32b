/* Fuzz target `bars`: raid bars' job on the cpu context: trades to OHLCV bars (raid_bars_run_csv,
 * src/jobs/bars.c: the table reader, time zones, sessions, the group-by) and the output
 * (raid_bars_write_csv).
 *
 * Input: 3 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-3 --interval; bits 4-7 --session
 *   2     bits 0-3 --tz
 * Checks: the records (status and message, notices, the output) the same as with the reference knobs;
 * each bar's low <= open, close <= high and at least one trade. */
#include "fuzz_common.h"

#include "raid.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const INTERVALS[16] = {"1min", "5min", "1s", "1h", "1d", "30min", "7s", "250ms",
                                          "2d", "90min", "25h", "1ms", "3650d", "15s", "1500min", "4h"};
static const char *const SESSIONS[16] = {NULL,          "09:30-16:00", "17:00-16:00", "00:00-24:00",
                                         "23:59-00:00", "00:00-00:00", "12:00-12:00", "22:00-02:00",
                                         "00:01-23:59", "16:00-09:30", "09:30-09:31", "00:00-23:59",
                                         "23:00-24:00", "01:00-00:59", "12:00-11:00", "04:00-20:00"};
static const char *const ZONES[16] = {NULL,           "UTC",           "Europe/Zurich",     "America/New_York",
                                      "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham", "Africa/Casablanca",
                                      "Europe/Dublin", "America/Sao_Paulo", "Antarctica/Troll", "Asia/Tokyo",
                                      "Pacific/Kiritimati", "Pacific/Niue", "America/St_Johns", "Mars/Olympus_Mons"};

typedef struct opts {
    const char *interval, *session, *tz;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_ctx *ctx = fz_cpu();
    raid_bars *b = NULL;
    raid_status st = raid_bars_run_csv(ctx, path, o->interval, o->tz, o->session, &b);
    fz_addf(r, "bars %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    FZ_CHECK((st == RAID_OK) == (b != NULL), "raid_bars_run_csv: status %d, bars %p", (int)st, (void *)b);
    if (!b)
        return;
    for (size_t i = 0; i < raid_bars_notice_count(b); i++)
        fz_addf(r, "notice %s\n", raid_bars_notice(b, i));
    const size_t n = raid_bars_count(b);
    if (n) {
        const double *op = raid_bars_field(b, RAID_BARS_OPEN), *hi = raid_bars_field(b, RAID_BARS_HIGH),
                     *lo = raid_bars_field(b, RAID_BARS_LOW), *cl = raid_bars_field(b, RAID_BARS_CLOSE);
        const int64_t *tr = raid_bars_trades(b);
        for (size_t i = 0; i < n; i++)
            FZ_CHECK(lo[i] <= op[i] && op[i] <= hi[i] && lo[i] <= cl[i] && cl[i] <= hi[i] && lo[i] > 0 && tr[i] >= 1,
                     "bar %zu: open %g high %g low %g close %g trades %lld", i, op[i], hi[i], lo[i], cl[i],
                     (long long)tr[i]);
    }
    FZ_WRITE(r, "write", f, raid_bars_write_csv(b, f));
    raid_bars_destroy(b);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in), b2 = fz_u8(&in);
    opts o = {INTERVALS[b1 & 15], SESSIONS[b1 >> 4], ZONES[b2 & 15]};
    fz_two_runs("bars", in.p, in.n, job, &o, &io, &o);
    return 0;
}
