/* Fuzz target `garch`: raid garch's job on the cpu context: the reader of returns or prices
 * (raid_garch_read_csv, src/jobs/garch.c) and, for some inputs, the fit (raid_garch_fit, few
 * iterations) and its output.
 *
 * Input: 3 option bytes, then the CSV.
 *   0     fz_io
 *   1     bit 0 prices (else returns); bits 1-3 the column names (NAMES); bit 4 fit; bits 5-6 the model
 *         (garch, gjr, egarch, garch); bit 7 Student-t errors
 *   2     bits 0-1 the window (full, rolling:50, expanding:50 step 7, full); bits 2-3 the mean (constant,
 *         zero, constant, zero); bit 4 the sample start (else backcast); bits 5-6 max_iter (3, 10, 30, 3)
 * Checks: the records (status and message of the reading and of the fit, notices, the fit's messages and
 * output) the same as with the reference knobs. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <string.h>

/* symbol, date, value (NULL: "symbol", "date", and "ret" or "price") */
static const char *const NAMES[8][3] = {{NULL, NULL, NULL}, {"sym", "d", "r"},     {NULL, "t", NULL},
                                         {NULL, NULL, "close"}, {"date", NULL, NULL}, {NULL, NULL, "date"},
                                         {"s", "date", "x"},   {"symbol", "symbol", NULL}};

typedef struct opts {
    const char *const *names;
    raid_garch_column kind;
    int fit;
    raid_garch_model model;
    raid_garch_dist dist;
    raid_garch_window window;
    int64_t window_n, step;
    raid_garch_mean mean;
    raid_garch_init init;
    int max_iter;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_garch_input *in = NULL;
    raid_status st = raid_garch_read_csv(path, o->names, o->kind, &in);
    fz_addf(r, "read %d %s\n", (int)st, st ? raid_errmsg() : "");
    FZ_CHECK((st == RAID_OK) == (in != NULL), "raid_garch_read_csv: status %d, input %p", (int)st, (void *)in);
    if (!in)
        return;
    for (size_t i = 0; i < raid_garch_input_notice_count(in); i++)
        fz_addf(r, "notice %s\n", raid_garch_input_notice(in, i));
    for (size_t s = 0; s < raid_garch_input_nsymbols(in); s++)
        fz_addf(r, "series '%s' %zu\n", raid_garch_input_symbol(in, s), raid_garch_input_length(in, s));
    if (o->fit) {
        raid_garch_spec *sp = NULL;
        FZ_CHECK(raid_garch_spec_create(&sp) == RAID_OK, "raid_garch_spec_create");
        raid_garch_spec_set_model(sp, o->model);
        raid_garch_spec_set_dist(sp, o->dist);
        raid_garch_spec_set_mean(sp, o->mean);
        raid_garch_spec_set_init(sp, o->init);
        raid_garch_spec_set_window(sp, o->window, o->window_n, o->step);
        raid_garch_spec_set_max_iter(sp, o->max_iter);
        raid_garch_result *res = NULL;
        raid_ctx *ctx = fz_cpu();
        st = raid_garch_fit(ctx, sp, in, &res);
        fz_addf(r, "fit %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
        if (res) {
            for (size_t i = 0; i < raid_garch_result_nmessages(res); i++)
                fz_addf(r, "message %s\n", raid_garch_result_message(res, i));
            FZ_WRITE(r, "write", f, raid_garch_write_csv(res, f));
        }
        raid_garch_result_destroy(res);
        raid_garch_spec_destroy(sp);
    }
    raid_garch_input_destroy(in);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in), b2 = fz_u8(&in);
    static const raid_garch_model models[4] = {RAID_GARCH_GARCH, RAID_GARCH_GJR, RAID_GARCH_EGARCH, RAID_GARCH_GARCH};
    static const raid_garch_window wk[4] = {RAID_GARCH_FULL, RAID_GARCH_ROLLING, RAID_GARCH_EXPANDING, RAID_GARCH_FULL};
    static const raid_garch_mean means[4] = {RAID_GARCH_MEAN_CONSTANT, RAID_GARCH_MEAN_ZERO, RAID_GARCH_MEAN_CONSTANT,
                                             RAID_GARCH_MEAN_ZERO};
    static const int iters[4] = {3, 10, 30, 3};
    opts o = {NAMES[(b1 >> 1) & 7],
              (b1 & 1) ? RAID_GARCH_PRICES : RAID_GARCH_RETURNS,
              (b1 >> 4) & 1,
              models[(b1 >> 5) & 3],
              (b1 & 128) ? RAID_GARCH_T : RAID_GARCH_NORMAL,
              wk[b2 & 3],
              RAID_GARCH_MIN_T,
              (b2 & 3) == 2 ? 7 : 1,
              means[(b2 >> 2) & 3],
              (b2 & 16) ? RAID_GARCH_INIT_SAMPLE : RAID_GARCH_INIT_BACKCAST,
              iters[(b2 >> 5) & 3]};
    fz_two_runs("garch", in.p, in.n, job, &o, &io, &o);
    return 0;
}
