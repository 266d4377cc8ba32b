/* HAR-RV (Corsi 2009) with Newey-West (1987) standard errors on rolling windows of 1,000 days of SPY's
 * daily realized variance (data/spy_realized_measures.csv, the 5-minute RV column), with out-of-sample
 * forecasts and their MSE and QLIKE (Patton 2011) losses: a program that uses only the public header.
 *
 *   har_rolling [FILE] [OUT]   FILE default data/spy_realized_measures.csv; OUT (optional) receives the
 *                              coefficients CSV, OUT.forecasts.csv and OUT.losses.csv beside it
 *
 * It prints the last window's coefficients and the losses. Written with OUT, its files are those of
 *   raid har FILE --date-col DT --rv-col RV5 --model har --window rolling:1000 --se nw -o OUT.csv
 * byte for byte (the ctest test example_har_rolling checks it). */
#include <raid.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write one of the result's CSVs to path; 0 or -1. */
static int save(const char *path, raid_status (*write)(const raid_har_result *, FILE *), const raid_har_result *res)
{
    raid_outfile *o;
    if (raid_outfile_create(&o, path) != RAID_OK) {
        fprintf(stderr, "har_rolling: %s\n", raid_errmsg());
        return -1;
    }
    if (write(res, raid_outfile_fp(o)) != RAID_OK) {
        raid_outfile_discard(o);
        return -1;
    }
    if (raid_outfile_finish(o) != RAID_OK) {
        fprintf(stderr, "har_rolling: %s\n", raid_errmsg());
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "data/spy_realized_measures.csv";
    const char *out = argc > 2 ? argv[2] : NULL;
    /* the specification: HAR-RV (lags 1, 5, 22), Newey-West errors with the default lag rule, rolling
       windows of 1,000 design rows */
    raid_har_spec *spec;
    if (raid_har_spec_create(&spec) != RAID_OK || raid_har_spec_set_model(spec, RAID_HAR_RV) != RAID_OK ||
        raid_har_spec_set_se(spec, RAID_SE_NW, -1) != RAID_OK ||
        raid_har_spec_set_window(spec, RAID_HAR_ROLLING, 1000) != RAID_OK) {
        fprintf(stderr, "har_rolling: %s\n", raid_errmsg());
        return 1;
    }
    /* the input: the date column is DT, rv is the 5-minute RV5; no symbol column */
    const char *names[6] = {NULL, "DT", "RV5", NULL, NULL, NULL};
    raid_har_input *in;
    if (raid_har_read_csv(path, names, 0, RAID_HAR_RV, &in) != RAID_OK) {
        fprintf(stderr, "har_rolling: %s\n", raid_errmsg());
        raid_har_spec_destroy(spec);
        return 2;
    }
    char err[512];
    raid_ctx *ctx;
    if (raid_ctx_create(&ctx, "cpu", err, sizeof err) != RAID_OK) {
        fprintf(stderr, "har_rolling: %s\n", err);
        return 4;
    }
    raid_har_result *res;
    if (raid_har_fit(ctx, spec, in, &res) != RAID_OK) {
        fprintf(stderr, "har_rolling: %s\n", raid_ctx_errmsg(ctx));
        return 2;
    }
    for (size_t i = 0; i < raid_har_result_nmessages(res); i++)
        fprintf(stderr, "har_rolling: %s\n", raid_har_result_message(res, i));

    /* the last window: coefficients, Newey-West standard errors and t statistics */
    const size_t nr = raid_har_result_nrows(res);
    const int k = raid_har_result_k(res);
    if (nr > 0) {
        const double *b = raid_har_result_beta(res) + (nr - 1) * (size_t)k, *se = raid_har_result_se(res) + (nr - 1) * (size_t)k;
        printf("%zu windows; the last ends %s (n = %lld, R^2 = %.4f)\n", nr, raid_har_result_row_end(res, nr - 1),
               (long long)raid_har_result_row_n(res)[nr - 1], raid_har_result_r2(res)[nr - 1]);
        for (int j = 0; j < k; j++)
            printf("  %-6s % .6e  (se %.3e)\n", raid_har_result_coef_name(res, j), b[j], se[j]);
    }
    size_t n, nq;
    double mse, qlike;
    if (raid_har_result_loss(res, 0, &n, &mse, &qlike, &nq))
        printf("%zu forecasts: MSE %.6e, QLIKE %.6f\n", n, mse, qlike);

    int rc = raid_har_result_nestimated(res) ? 0 : 2;
    if (out && rc == 0) {
        /* OUT, and the forecasts and losses beside it as raid har names them */
        const size_t len = strlen(out), stem = len > 4 && !strcmp(out + len - 4, ".csv") ? len - 4 : len;
        char *fc = malloc(stem + 32), *ls = malloc(stem + 32);
        if (!fc || !ls)
            rc = 2;
        else {
            snprintf(fc, stem + 32, "%.*s.forecasts.csv", (int)stem, out);
            snprintf(ls, stem + 32, "%.*s.losses.csv", (int)stem, out);
            if (save(out, raid_har_write_coefs, res) || save(fc, raid_har_write_forecasts, res) ||
                save(ls, raid_har_write_losses, res))
                rc = 2;
        }
        free(fc);
        free(ls);
    }
    raid_har_result_destroy(res);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(spec);
    raid_ctx_destroy(ctx);
    return rc;
}
