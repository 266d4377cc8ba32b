/* Fuzz target `har`: raid har's job on the cpu context: the reader of daily measures (raid_har_read_csv,
 * src/jobs/har.c) and the fit (raid_har_fit) with its three outputs (coefficients, forecasts, losses).
 *
 * Input: 3 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-1 the model (har, har-j, har-cj, harq: the columns it reads); bit 2 symbol required; bits 3-5
 *         the column names (NAMES); bits 6-7 the transform (none, log, sqrt, none)
 *   2     bits 0-1 the standard errors (ols, white, nw, nw lag 2); bits 2-3 the window (full, rolling:10,
 *         expanding:8, rolling:3); bit 4 lags 1,2,3 (else 1,5,22); bit 5 horizon 2
 * Checks: the records (status and message of the reading and of the fit, notices, the three outputs, the
 * fit's messages) the same as with the reference knobs. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <string.h>

/* symbol, date, rv, bpv, rq, jump_p: the defaults, renamings as the CLI's --*-col give them, columns named
 * twice (one header column for two roles) */
static const char *const NAMES[8][6] = {
    {NULL, NULL, NULL, NULL, NULL, NULL},      {"sym", "d", "RV5", "BPV5", "RQ5", "p"},
    {NULL, "DT", "RV5", "BPV5", "RQ5", NULL},  {NULL, NULL, "bpv", NULL, NULL, NULL},
    {"date", NULL, NULL, NULL, NULL, NULL},    {NULL, NULL, "rv", "rv", "rv", "rv"},
    {NULL, NULL, NULL, "rq", "bpv", "jump_z"}, {"s", "date", "x", NULL, NULL, NULL}};

typedef struct opts {
    const char *const *names;
    int symbol_required;
    raid_har_model model;
    raid_har_transform transform;
    raid_se_kind se;
    int64_t nw_lag;
    raid_har_window window;
    int64_t window_n;
    int short_lags, horizon;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_har_input *in = NULL;
    raid_status st = raid_har_read_csv(path, o->names, o->symbol_required, o->model, &in);
    fz_addf(r, "read %d %s\n", (int)st, st ? raid_errmsg() : "");
    FZ_CHECK((st == RAID_OK) == (in != NULL), "raid_har_read_csv: status %d, input %p", (int)st, (void *)in);
    if (!in)
        return;
    for (size_t i = 0; i < raid_har_input_notice_count(in); i++)
        fz_addf(r, "notice %s\n", raid_har_input_notice(in, i));
    raid_har_spec *sp = NULL;
    FZ_CHECK(raid_har_spec_create(&sp) == RAID_OK, "raid_har_spec_create");
    static const int lags3[3] = {1, 2, 3};
    raid_har_spec_set_model(sp, o->model);
    raid_har_spec_set_transform(sp, o->transform);
    raid_har_spec_set_se(sp, o->se, o->nw_lag);
    raid_har_spec_set_window(sp, o->window, o->window_n);
    if (o->short_lags)
        raid_har_spec_set_lags(sp, lags3, 3);
    raid_har_spec_set_horizon(sp, o->horizon);
    raid_har_result *res = NULL;
    raid_ctx *ctx = fz_cpu();
    st = raid_har_fit(ctx, sp, in, &res);
    fz_addf(r, "fit %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    if (res) {
        for (size_t i = 0; i < raid_har_result_nmessages(res); i++)
            fz_addf(r, "message %s\n", raid_har_result_message(res, i));
        FZ_WRITE(r, "coefs", f, raid_har_write_coefs(res, f));
        if (o->window != RAID_HAR_FULL) {
            FZ_WRITE(r, "forecasts", f, raid_har_write_forecasts(res, f));
            FZ_WRITE(r, "losses", f, raid_har_write_losses(res, f));
            FZ_WRITE(r, "loss table", f, raid_har_write_loss_table(res, f));
        }
    }
    raid_har_result_destroy(res);
    raid_har_spec_destroy(sp);
    raid_har_input_destroy(in);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in), b2 = fz_u8(&in);
    static const raid_har_transform tr[4] = {RAID_HAR_NONE, RAID_HAR_LOG, RAID_HAR_SQRT, RAID_HAR_NONE};
    static const raid_se_kind se[4] = {RAID_SE_OLS, RAID_SE_WHITE, RAID_SE_NW, RAID_SE_NW};
    static const raid_har_window wk[4] = {RAID_HAR_FULL, RAID_HAR_ROLLING, RAID_HAR_EXPANDING, RAID_HAR_ROLLING};
    static const int64_t wn[4] = {0, 10, 8, 3};
    opts o = {NAMES[(b1 >> 3) & 7], (b1 >> 2) & 1, (raid_har_model)(b1 & 3), tr[b1 >> 6], se[b2 & 3],
              (b2 & 3) == 3 ? 2 : -1, wk[(b2 >> 2) & 3], wn[(b2 >> 2) & 3], (b2 >> 4) & 1, (b2 & 32) ? 2 : 1};
    fz_two_runs("har", in.p, in.n, job, &o, &io, &o);
    return 0;
}
