/* Fuzz target `realized`: raid realized's job on the cpu context: the CSV reader of prices or returns
 * (raid_reader_open, src/io/reader.c: the table reader, the parsing threads' per-block work, the
 * segmenter's order checks, time zones, sessions and sampling) and the realized table
 * (raid_realized_table_add_reader, finish, write_csv: src/jobs/realized.c).
 *
 * Input: 4 option bytes, then the CSV.
 *   0     fz_io; bits 6-7: RAID_REALIZED_PART (unset, 1, 7, 50 returns: the cpu path's parts)
 *   1     bit 0 returns input; bits 1-3 --sample; bits 4-7 --session
 *   2     bits 0-3 --tz; bit 4 --symbol-col sym; bit 5 --time-col t / --date-col d; bit 6 --price-col p /
 *         --ret-col r; bit 7 --check (a second cpu context)
 *   3     bits 0-2 max_returns per batch
 * Checks: the job's output (or status and message) and notices the same as with the reference knobs, one
 * batch and no parts (fuzz_common.h); measures not negative where they cannot be. */
#include "fuzz_common.h"

#include "raid.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const SAMPLES[8] = {"5min", "tick", "30s", "1min", "30min", "1h", "7s", "90min"};
static const char *const SESSIONS[16] = {NULL,          "09:30-16:00", "17:00-16:00", "00:00-24:00",
                                         "23:59-00:00", "00:00-00:00", "12:00-12:00", "22:00-02:00",
                                         "00:01-23:59", "16:00-09:30", "09:30-09:31", "00:00-23:59",
                                         "23:00-24:00", "01:00-00:59", "12:00-11:00", "04:00-20:00"};
static const char *const ZONES[16] = {NULL,
                                      "UTC",
                                      "Europe/Zurich",
                                      "America/New_York",
                                      "Australia/Lord_Howe",
                                      "Asia/Kathmandu",
                                      "Pacific/Chatham",
                                      "Africa/Casablanca",
                                      "Europe/Dublin",
                                      "America/Sao_Paulo",
                                      "Antarctica/Troll",
                                      "Asia/Tokyo",
                                      "Pacific/Kiritimati",
                                      "Pacific/Niue",
                                      "America/St_Johns",
                                      "Mars/Olympus_Mons"};
static const size_t MAX_RETURNS[8] = {(size_t)1 << 24, 1, 2, 7, 100, 1000, 4096, 65536};
static const char *const PARTS[4] = {NULL, "1", "7", "50"};

static raid_ctx *cpu2; /* the --check context */

typedef struct opts {
    raid_read_opts ro;
    int check;
    size_t max_returns;
    const char *part;
} opts;

static void run(const uint8_t *data, size_t n, const fz_io *io, const opts *o, fz_buf *r)
{
    fz_io_apply(io);
    if (o->part)
        setenv("RAID_REALIZED_PART", o->part, 1);
    else
        unsetenv("RAID_REALIZED_PART");
    fz_file f;
    fz_file_open(&f, data, n, io->stream);
    raid_ctx *ctx = fz_cpu();
    raid_reader *rd = NULL;
    raid_realized_table *tab = NULL;
    raid_status st = raid_reader_open(&rd, f.path, &o->ro);
    fz_addf(r, "open %d %s\n", (int)st, st ? raid_errmsg() : "");
    FZ_CHECK((st == RAID_OK) == (rd != NULL), "raid_reader_open: status %d, reader %p", (int)st, (void *)rd);
    if (rd && raid_realized_table_create(&tab) == RAID_OK) {
        int done = 0;
        while (!done && (st = raid_realized_table_add_reader(tab, ctx, o->check ? cpu2 : NULL, rd, o->max_returns,
                                                              &done)) == RAID_OK) {
        }
        fz_addf(r, "add %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
        if (st == RAID_OK) {
            for (size_t i = 0; i < raid_reader_notice_count(rd); i++)
                fz_addf(r, "notice %s\n", raid_reader_notice(rd, i));
            st = raid_realized_table_finish(tab);
            fz_addf(r, "finish %d\n", (int)st);
        }
        if (st == RAID_OK) {
            const size_t nr = raid_realized_table_nrows(tab);
            const int64_t *nn = raid_realized_table_n(tab);
            for (int k = 0; k < 7; k++) { /* rv, bpv, rs_neg, rs_pos, rq, tpq, medrv: sums of squares */
                const double *v = raid_realized_table_column(tab, k);
                for (size_t i = 0; i < nr; i++)
                    FZ_CHECK(isnan(v[i]) || v[i] >= 0, "measure %d of row %zu: %g", k, i, v[i]);
            }
            for (size_t i = 0; i < nr; i++)
                FZ_CHECK(nn[i] >= 0, "row %zu: n = %lld", i, (long long)nn[i]);
            FZ_WRITE(r, "write", out, raid_realized_table_write_csv(tab, out));
            if (o->check) {
                double md[RAID_REALIZED_NMEASURES];
                int ok[RAID_REALIZED_NMEASURES];
                const size_t nc = raid_realized_table_check(tab, md, NULL, ok);
                FZ_CHECK(nc == nr, "checked %zu rows of %zu", nc, nr);
                for (int k = 0; k < RAID_REALIZED_NMEASURES; k++)
                    FZ_CHECK(md[k] == 0 && ok[k], "the cpu path against itself: measure %d differs by %g", k, md[k]);
            }
        }
    }
    raid_realized_table_destroy(tab);
    raid_reader_close(rd);
    fz_file_close(&f);
    unsetenv("RAID_REALIZED_PART");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_init();
    fz_cpu();
    if (raid_ctx_create(&cpu2, "cpu") != RAID_OK)
        fz_fail("raid_ctx_create(cpu): %s", raid_errmsg());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const unsigned b0 = fz_u8(&in), b1 = fz_u8(&in), b2 = fz_u8(&in), b3 = fz_u8(&in);
    const fz_io io = fz_io_of(b0);
    opts o;
    raid_read_opts_init(&o.ro);
    o.ro.kind = (b1 & 1) ? RAID_INPUT_RETURNS : RAID_INPUT_PRICES;
    if (raid_parse_sample(SAMPLES[(b1 >> 1) & 7], &o.ro.sample_us) != RAID_OK)
        fz_fail("sample");
    const char *ses = SESSIONS[b1 >> 4];
    if (ses && raid_parse_session(ses, &o.ro.session_start_s, &o.ro.session_end_s) != RAID_OK)
        fz_fail("session %s", ses);
    o.ro.tz = ZONES[b2 & 15];
    if (b2 & 16)
        o.ro.symbol_col = "sym";
    if (b2 & 32)
        o.ro.time_col = "t", o.ro.date_col = "d";
    if (b2 & 64)
        o.ro.price_col = "p", o.ro.ret_col = "r";
    o.check = (b2 >> 7) & 1;
    o.max_returns = MAX_RETURNS[b3 & 7];
    o.part = PARTS[b0 >> 6];
    /* the reference: the defaults, one batch, no parts */
    opts o0 = o;
    o0.max_returns = (size_t)1 << 24;
    o0.part = NULL;
    const fz_io io0 = fz_io_ref();
    fz_buf ref = {0}, got = {0};
    run(in.p, in.n, &io0, &o0, &ref);
    run(in.p, in.n, &io, &o, &got);
    fz_same("realized", &ref, &got);
    fz_free(&ref);
    fz_free(&got);
    return 0;
}
