/* HAR estimation (raid_har_fit, include/raid/har.h): per-symbol designs, sufficient statistics of all
 * symbols (or of all blocks of rows, for windows) from ONE raid_reg_stats_compute call on the context's
 * device (there from the rows' float64 bits, the one device path since 2026-12-02; the host-converting
 * path that first recorded tests/golden's device outputs was removed, tests/golden/README.md), OLS and
 * robust inference in float64 on the host, windows from block statistics (src/models/window.h), forecasts
 * and losses (src/models/loss.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/har_internal.h"
#include "models/window.h"
#include "core/internal.h"
#include "regress/ols_internal.h"

#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cpu path of the windows' meat: 1 takes overlapping windows from block sums (src/regress/meat_block.c:
 * about 100x faster on 1,000-row windows with 22 lags, each window within a proven 2^-36 of the meat's scale or
 * summed from its rows); 0 sums every window's meat from its rows (long double scores), as when
 * tests/golden/expected was first recorded. Switched to 1 on 2026-12-02, after an exact
 * oracle (tests/tools/har_oracle.py) put both paths' standard errors within 5e-14 of the exact ones on the
 * recorded outputs; har_spy_harq_roll_cpu.csv and har_usdchf_roll_cpu.csv were re-recorded
 * (tests/golden/README.md). A single full-sample range is one window: it always takes the rows. */
#define HAR_MEAT_BLOCKS 1

/* Newey and West (1994) rule of thumb, as statsmodels users commonly write it. */
static int har_nw_default(int64_t n)
{
    return (int)floor(4.0 * pow((double)n / 100.0, 2.0 / 9.0));
}

/* The largest lag the meat of n rows needs: 0 for White, nw_lag (or the default rule when negative) for
 * Newey-West, at most n - 1. */
static int har_meat_lag(raid_se_kind se, int64_t nw_lag, int64_t n)
{
    int64_t L = se == RAID_SE_WHITE ? 0 : nw_lag >= 0 ? nw_lag : har_nw_default(n);
    return (int)(L > n - 1 ? n - 1 : L);
}

/* A failed raid_ols_robust_at (about the means) as the fit reports it (raidFail: raid_errmsg()): when a
 * regressor's level dwarfs its spread, say so (the rounding of the means costs 2^-53 R of the robust
 * variances, refused above RAID_REG_MAX_ROBUST_LOSS). */
static raid_status har_robust_fail(const raid_reg_stats *s, raid_status rs)
{
    const double R = raid_reg_level_ratio(s);
    if (rs == RAID_ESINGULAR && 0x1p-53 * R > RAID_REG_MAX_ROBUST_LOSS)
        return raidFail(NULL, rs, "robust standard errors would be float64 rounding: a regressor's mean is %.3g "
                         "times its standard deviation, and the rounding of the means alone costs 2^-53 x %.3g = %.2g "
                         "of the robust variances (limit %g); subtract a constant from rv, or use --transform log or "
                         "--se ols", R, R, 0x1p-53 * R, RAID_REG_MAX_ROBUST_LOSS);
    return raidFail(NULL, rs, "robust standard errors: %s", raid_strerror(rs));
}

/* Whether a failed robust meat is the whole call's failure rather than one symbol's or window's: RAID_EINVAL
 * is the problem's own data (a residual times a regressor not finite); anything else (memory, the device)
 * would fail every problem alike, and turning it into per-symbol statuses would hide it in a result that
 * looks fitted-but-singular (a device that ran out of memory showed "no window could be estimated"). */
static int har_meat_fatal(raid_status s) { return s != RAID_OK && s != RAID_EINVAL; }

/* OLS and inference of rows [0, m) of X, y with statistics s; on failure the status, and the message in
 * raid_errmsg() (as the result's messages give it); a failure of the meat that har_meat_fatal calls the
 * call's is returned as it is, its message on ctx. */
static raid_status har_fit1(raid_ctx *ctx, const raid_reg_stats *s, const double *X, const double *y, int k,
                            int64_t m, raid_se_kind se, int64_t nw_lag, raid_ols *o)
{
    raid_status st = raid_ols_from_stats(s, 1, o);
    if (st != RAID_OK || se == RAID_SE_OLS)
        return st;
    const int L = har_meat_lag(se, nw_lag, m);
    double *meat = malloc((size_t)(L + 1) * (size_t)k * (size_t)k * sizeof *meat);
    if (!meat)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    int64_t lo = 0, hi = m;
    double c[RAID_REG_MAX_K];
    raid_reg_stats_centre(s, c);
    st = raidRegMeatRangesHow(ctx, X, y, k, &lo, &hi, 1, o->beta, c, L, meat, HAR_MEAT_BLOCKS);
    if (st == RAID_OK)
        st = raid_ols_robust_at(s, meat, c, L, se, o);
    else if (har_meat_fatal(st)) {
        free(meat);
        return st;
    }
    free(meat);
    return st == RAID_OK ? RAID_OK : har_robust_fail(s, st);
}

/* A symbol's design and where its problems sit in the stacked arrays. */
typedef struct har_sym {
    const har_in_sym *in;
    const char *nm;  /* for messages: the name, or "(no symbol)" */
    double *X, *y;
    size_t *tix;
    size_t m;        /* design rows */
    int ok;          /* design usable */
} har_sym;

typedef struct har_job {
    raid_ctx *ctx;
    const raid_har_spec *sp;
    const raid_har_input *in;
    raid_har_result *res;
    int k;
    raid_ctx **cpus;
    int ncpu;
    har_sym *sy;
    uint64_t win_done, win_total; /* progress of the windows (unit "windows"), over every symbol */
    double *Xall, *yall;
    int64_t *off;
    raid_reg_stats *stats;
} har_job;

#define NOMEM(ctx) raidFail((ctx), RAID_ENOMEM, "out of memory")

/* Where day t of symbol S is (include/raid/har.h, raid_har_input_add): "line L" (lines given, with a source
 * file), "row L" (lines given, no source: the caller's row numbers as given), "row T" (no lines: 1-based
 * within the symbol). */
static void har_where(const raid_har_input *in, const har_in_sym *S, size_t t, char *buf, size_t n)
{
    if (S->lines)
        snprintf(buf, n, "%s %lld", in->path ? "line" : "row", (long long)S->lines[t]);
    else
        snprintf(buf, n, "row %zu", t + 1);
}

/* Check one symbol's input and build its design; sets S->ok, or reports why not. */
static raid_status har_prepare(har_job *J, size_t q)
{
    const raid_har_spec *sp = J->sp;
    const raid_har_input *in = J->in;
    har_sym *S = &J->sy[q];
    const har_in_sym *I = S->in;
    char nm_shown[RAID_SHOW_CAP]; /* the symbol in the messages: escaped as every quoted input */
    const char *nm = raid_show_text(nm_shown, S->nm, RAID_SHOW_NUL);
    const int k = J->k;
    raid_har_result *res = J->res;
    raid_status st = RAID_OK;
#define MSG(code, ...)                                                                                           \
    do {                                                                                                         \
        res->status[q] = (code);                                                                                 \
        if ((st = raidHarResultMsg(res, q, __VA_ARGS__)) != RAID_OK)                                              \
            return NOMEM(J->ctx);                                                                                \
    } while (0)
    const int need_col = sp->model == RAID_HAR_J ? 1 : sp->model == RAID_HAR_Q ? 2 : -1;
    if (need_col >= 0 && !I->v[need_col]) {
        MSG(RAID_EINVAL, "%s: no column '%s' (needed by --model %s)", nm, RAID_SHOWZ(in->colname[need_col]),
            raid_har_model_name((raid_har_model)sp->model));
        return RAID_OK;
    }
    if (sp->model == RAID_HAR_CJ && (!I->v[1] || !I->v[3])) {
        MSG(RAID_EINVAL, "%s: no column '%s' (needed by --model har-cj)", nm,
            RAID_SHOWZ(!I->v[1] ? in->colname[1] : in->colname[3]));
        return RAID_OK;
    }
    for (size_t r = 0; sp->model == RAID_HAR_CJ && r < I->n; r++) {
        const double p = I->v[3][r];
        if (isnan(p) || (p >= 0 && p <= 1))
            continue;
        char where[64];
        har_where(in, I, r, where, sizeof where);
        MSG(RAID_EINVAL, "%s: %s %.17g on %s (date '%s') is not a p-value (expected a number in [0, 1], or NAN "
            "for none); symbol skipped", nm, RAID_SHOWZ(in->colname[3]), p, where, RAID_SHOWZ(I->dates[r]));
        return RAID_OK;
    }
    size_t bad = 0;
    S->X = malloc((I->n ? I->n : 1) * (size_t)k * sizeof *S->X);
    S->y = malloc((I->n ? I->n : 1) * sizeof *S->y);
    S->tix = malloc((I->n ? I->n : 1) * sizeof *S->tix);
    if (!S->X || !S->y || !S->tix ||
        (S->m = raidHarDesign(sp, I->n, I->v[0], I->v[1], I->v[2], I->v[3], S->X, S->y, S->tix, &bad)) == (size_t)-1)
        return NOMEM(J->ctx);
    { /* rows left out for missing or invalid days: say how many, and where the first one is */
        const size_t lo = (size_t)sp->lags[sp->nlags - 1] - 1,
                     nposs = I->n >= lo + (size_t)sp->h + 1 ? I->n - lo - (size_t)sp->h : 0;
        if (S->m < nposs && bad < I->n) {
            char where[64];
            har_where(in, I, bad, where, sizeof where);
            if ((st = raidHarResultMsg(res, q, "%s: %zu of %zu design rows left out: they touch a day whose value is "
                                     "empty, not finite or invalid for the transform (the first such day: %s, %s)",
                                     nm, nposs - S->m, nposs, RAID_SHOWZ(I->dates[bad]), where)) != RAID_OK)
                return NOMEM(J->ctx);
        }
    }
    /* The statistics take values up to 1e150 (their products must not overflow float64): a symbol
     * with larger ones is reported and skipped, the others are still estimated. */
    int in_range = 1;
    for (size_t i = 0; i < S->m * (size_t)k && in_range; i++)
        in_range = fabs(S->X[i]) <= 1e150;
    for (size_t i = 0; i < S->m && in_range; i++)
        in_range = fabs(S->y[i]) <= 1e150;
    if (!in_range) {
        MSG(RAID_EINVAL, "%s: a regressor or target beyond 1e150 in magnitude (rv out of range)", nm);
        return RAID_OK;
    }
    /* Robust errors sum products of four values (e^2 x x'): beyond 1e60, or nonzero below 1e-60, those
     * leave float64's normal range and the standard errors would be silently wrong or empty. */
    if (sp->se != RAID_SE_OLS) {
        for (size_t i = 0; i < S->m * ((size_t)k + 1) && in_range; i++) {
            const double v = i < S->m * (size_t)k ? S->X[i] : S->y[i - S->m * (size_t)k];
            in_range = v == 0 || (fabs(v) >= 1e-60 && fabs(v) <= 1e60);
        }
        if (!in_range) {
            MSG(RAID_EINVAL, "%s: robust standard errors need regressors and targets within 1e-60 to 1e60 in "
                "magnitude (sums of their fourth powers must stay in float64's normal range): rescale rv, or use "
                "--se ols", nm);
            return RAID_OK;
        }
    }
    const size_t need_rows = sp->win_kind ? (size_t)sp->win : (size_t)k + 1;
    if (S->m < need_rows) {
        MSG(RAID_EINVAL, "%s: too few observations (%zu usable rows of %zu days, need %zu)", nm, S->m, I->n,
            need_rows);
        return RAID_OK;
    }
#undef MSG
    S->ok = 1;
    return RAID_OK;
}

/* Full-sample fits: every symbol's OLS first, then (robust errors) the meat of all of them in ONE call
 * (one device pass for thousands of symbols), each symbol with the lags it needs read from a common
 * (Lmax + 1) k k layout. Should that call fail for a value the device path refuses (RAID_EINVAL), each
 * symbol falls back to its own call, so that one symbol's problem does not stop the others; any other
 * failure (memory, the device) fails the fit. */
static raid_status har_fit_full(har_job *J, size_t nprob)
{
    const raid_har_spec *sp = J->sp;
    const int k = J->k;
    const raid_se_kind se = sp->se;
    raid_ols *fit = NULL;
    double *fit_meat = NULL, *fit_centre = NULL;
    int fit_lmax = 0;
    raid_status st = RAID_OK;
    if (se != RAID_SE_OLS) {
        fit = calloc(nprob, sizeof *fit);
        double *fb = calloc(nprob * (size_t)k, sizeof *fb), *fc = calloc(nprob * (size_t)k, sizeof *fc);
        if (fit && fb && fc) {
            size_t gg = 0;
            for (size_t q = 0; q < J->in->nsym; q++) {
                if (!J->sy[q].ok)
                    continue;
                raid_reg_stats_centre(&J->stats[gg], fc + gg * (size_t)k);
                if (raid_ols_from_stats(&J->stats[gg], 1, &fit[gg]) == RAID_OK) {
                    memcpy(fb + gg * (size_t)k, fit[gg].beta, (size_t)k * sizeof *fb);
                    const int L = har_meat_lag(se, sp->nw_lag, (int64_t)J->sy[q].m);
                    fit_lmax = L > fit_lmax ? L : fit_lmax;
                } else {
                    fit[gg].k = 0; /* failed: reported by the per-symbol path */
                }
                gg++;
            }
            const size_t nc = (size_t)(fit_lmax + 1) * (size_t)k * (size_t)k;
            fit_meat = malloc(nprob * nc * sizeof *fit_meat);
            const raid_status ms = fit_meat ? raidRegMeatRangesHow(J->ctx, J->Xall, J->yall, k, J->off,
                                                                       J->off + 1, nprob, fb, fc, fit_lmax, fit_meat,
                                                                       HAR_MEAT_BLOCKS)
                                            : RAID_OK;
            if (ms != RAID_OK) {
                free(fit_meat);
                fit_meat = NULL;
                if (har_meat_fatal(ms))
                    st = ms; /* its message is on the context */
            }
            fit_centre = fc;
            fc = NULL;
        }
        free(fb);
        free(fc);
    }
    raid_status fatal = st; /* the call's failure: returned as it is, not as out of memory */
    size_t g = 0;
    for (size_t q = 0; q < J->in->nsym && st == RAID_OK; q++) {
        har_sym *S = &J->sy[q];
        if (!S->ok)
            continue;
        raid_ols o;
        raid_status fs;
        if (fit_meat && fit[g].k) { /* the batched path */
            const int L = har_meat_lag(se, sp->nw_lag, (int64_t)S->m);
            o = fit[g];
            const size_t nc = (size_t)(fit_lmax + 1) * (size_t)k * (size_t)k;
            const raid_status rs = raid_ols_robust_at(&J->stats[g], fit_meat + g * nc, fit_centre + g * (size_t)k, L,
                                                      se, &o);
            fs = rs == RAID_OK ? RAID_OK : har_robust_fail(&J->stats[g], rs);
        } else {
            fs = har_fit1(J->ctx, &J->stats[g], S->X, S->y, k, (int64_t)S->m, se, sp->nw_lag, &o);
            if (fs != RAID_OK && fs != RAID_ESINGULAR && fs != RAID_EINVAL) { /* har_meat_fatal's */
                st = fatal = fs;
                break;
            }
        }
        if (fs == RAID_OK) {
            st = raidHarResultRow(J->res, q, NULL, &o);
            J->res->nok++;
        } else {
            J->res->status[q] = RAID_ESINGULAR;
            st = raidHarResultMsg(J->res, q, "%s: %s", RAID_SHOWZ(S->nm), raid_errmsg());
        }
        g++;
    }
    free(fit);
    free(fit_meat);
    free(fit_centre);
    if (fatal != RAID_OK)
        return raidFail(J->ctx, fatal, "robust standard errors: %s", raid_ctx_errmsg(J->ctx));
    return st == RAID_OK ? RAID_OK : NOMEM(J->ctx);
}

/* Windows of one symbol over its design rows: end e (inclusive), start s = e-N+1 (rolling) or 0
 * (expanding); bs its block statistics. */
static raid_status har_fit_windows(har_job *J, size_t q, const raid_reg_stats *bs)
{
    const raid_har_spec *sp = J->sp;
    const int k = J->k;
    har_sym *S = &J->sy[q];
    const RaidWindowKind wk = (RaidWindowKind)sp->win_kind;
    const size_t N = (size_t)sp->win, nwin = raidWindowCount(wk, S->m, N);
    raid_har_result *res = J->res;
    const raid_se_kind se = sp->se;
    size_t fails = 0, nfit = 0;
    char firsterr[512] = "";
    raid_status st = RAID_OK;
    assert(nwin > 0);
    /* Phase 1: every window's statistics and OLS coefficients. */
    raid_reg_stats *wst = malloc(nwin * sizeof *wst);
    raid_ols *wo = malloc(nwin * sizeof *wo);
    int64_t *wlo = malloc(nwin * sizeof *wlo), *whi = malloc(nwin * sizeof *whi);
    int *wok = calloc(nwin, sizeof *wok);
    double *wbeta = malloc(nwin * (size_t)k * sizeof *wbeta), *wmeat = NULL, *wcen = NULL;
    raid_status *wsc = malloc(nwin * sizeof *wsc);
    if (!wst || !wo || !wlo || !whi || !wok || !wbeta || !wsc) {
        st = NOMEM(J->ctx);
        goto out;
    }
    int lmax = 0;
    /* Windows are independent: solved in parallel, each thread with its own cpu context; statuses are
     * kept per window and reported in window order below (the first failure's message is recomputed
     * there), so the result does not depend on the threads. */
    const long long nwl = (long long)nwin;
    raid_ctx **cpus = J->cpus;
    const int ncpu = J->ncpu;
    size_t ndone = 0; /* windows solved so far, reported by thread 0 (the caller's: raidProgress's contract) */
#pragma omp parallel for schedule(dynamic, 16)
    for (long long wl = 0; wl < nwl; wl++) {
        const int tid = omp_get_thread_num();
        assert(tid < ncpu);
        raid_ctx *mycpu = cpus[tid < ncpu ? tid : 0];
        const size_t w = (size_t)wl;
        int64_t s0, s1; /* rows [s0, s1) */
        raid_reg_stats ws;
        const raid_status sw =
            raidWindowStats(mycpu, bs, RAID_WINDOW_BLOCK, S->X, S->y, k, wk, S->m, N, w, &s0, &s1, &ws);
        wsc[w] = sw;
        wst[w] = ws;
        wlo[w] = s0;
        whi[w] = s1;
        if (sw == RAID_OK && raid_ols_from_stats(&ws, 1, &wo[w]) == RAID_OK) {
            wok[w] = 1;
            memcpy(wbeta + w * (size_t)k, wo[w].beta, (size_t)k * sizeof *wbeta);
        }
        size_t nd;
#pragma omp atomic capture
        nd = ++ndone;
        if (tid == 0)
            raidProgress(J->ctx, J->win_done + nd, J->win_total, "windows");
    }
    J->win_done += nwin;
    raidProgress(J->ctx, J->win_done, J->win_total, "windows"); /* the windows thread 0 did not see end */
    for (size_t w = 0; w < nwin && st == RAID_OK; w++) {
        if (wsc[w] != RAID_OK)
            st = wsc[w];
        else if (!wok[w]) {
            if (!fails++) { /* the message again, in this thread */
                raid_ols tmp;
                raid_ols_from_stats(&wst[w], 1, &tmp);
                snprintf(firsterr, sizeof firsterr, "%.200s", raid_errmsg());
            }
        } else {
            const int L = har_meat_lag(se, sp->nw_lag, whi[w] - wlo[w]);
            lmax = L > lmax ? L : lmax;
        }
    }
    if (st != RAID_OK) {
        st = raidFail(J->ctx, st, "%s: window statistics: %s", RAID_SHOWZ(S->nm), raid_strerror(st));
        goto out;
    }
    /* Phase 2: the robust meat of all windows in one call (one device pass on opencl), then the robust
     * standard errors of each window with its own lag. */
    if (se != RAID_SE_OLS) {
        const size_t nc = (size_t)(lmax + 1) * (size_t)k * (size_t)k;
        wmeat = malloc(nwin * nc * sizeof *wmeat);
        wcen = malloc(nwin * (size_t)k * sizeof *wcen);
        size_t nv = 0;
        for (size_t w = 0; w < nwin; w++)
            if (wok[w]) { /* compact the estimated windows to the front */
                wlo[nv] = wlo[w];
                whi[nv] = whi[w];
                memmove(wbeta + nv * (size_t)k, wbeta + w * (size_t)k, (size_t)k * sizeof *wbeta);
                if (wcen)
                    raid_reg_stats_centre(&wst[w], wcen + nv * (size_t)k);
                nv++;
            }
        if (!wmeat || !wcen) {
            st = NOMEM(J->ctx);
            goto out;
        }
        const raid_status ms =
            raidRegMeatRangesHow(J->ctx, S->X, S->y, k, wlo, whi, nv, wbeta, wcen, lmax, wmeat, HAR_MEAT_BLOCKS);
        if (har_meat_fatal(ms)) {
            st = raidFail(J->ctx, ms, "%s: robust standard errors of the windows: %s", S->nm, raid_ctx_errmsg(J->ctx));
            goto out;
        }
        for (size_t w = 0, v = 0; w < nwin; w++) {
            if (!wok[w])
                continue;
            const int L = har_meat_lag(se, sp->nw_lag, wst[w].n);
            const raid_status rs =
                ms == RAID_OK ? raid_ols_robust_at(&wst[w], wmeat + v * nc, wcen + v * (size_t)k, L, se, &wo[w]) : ms;
            v++;
            if (rs != RAID_OK) {
                wok[w] = 0;
                if (!fails++) {
                    har_robust_fail(&wst[w], rs);
                    snprintf(firsterr, sizeof firsterr, "%s", raid_errmsg());
                }
            }
        }
    }
    /* Phase 3: rows and forecasts, in window order. */
    const double *rawrv = S->in->v[0];
    char *const *date = S->in->dates;
    for (size_t e = N - 1; e < S->m && st == RAID_OK; e++) {
        const size_t w = e - (N - 1);
        if (!wok[w])
            continue;
        const raid_ols *o = &wo[w];
        nfit++;
        /* The window uses rv up to day tix[e] + h: window_end. The forecast row is day t = tix[e] + h. */
        const size_t tend = S->tix[e] + (size_t)sp->h;
        if ((st = raidHarResultRow(res, q, date[tend], o)) != RAID_OK)
            break;
        size_t ef = e + 1;
        while (ef < S->m && S->tix[ef] < tend)
            ef++;
        if (ef >= S->m || S->tix[ef] != tend)
            continue;
        const double *x = S->X + ef * (size_t)k;
        double yhat = 0;
        for (int j = 0; j < k; j++)
            yhat += x[j] * o->beta[j];
        double fc = raidHarFinv(sp->transform, yhat), act = 0;
        for (size_t i = tend + 1; i <= tend + (size_t)sp->h; i++)
            act += rawrv[i];
        act /= (double)sp->h;
        double sq, ql;
        raidLossAdd(&res->loss[q], act, fc, &sq, &ql);
        st = raidHarResultFc(res, q, date[tend + 1], fc, act, sq, ql);
    }
    if (st == RAID_OK && fails)
        st = raidHarResultMsg(res, q, "%s: %zu of %zu windows not estimated (first: %s)", RAID_SHOWZ(S->nm), fails,
                            fails + nfit,
                            firsterr);
    if (st == RAID_OK) {
        if (nfit) {
            res->nok++;
        } else {
            res->status[q] = RAID_ESINGULAR;
            st = raidHarResultMsg(res, q, "%s: no window could be estimated", RAID_SHOWZ(S->nm));
        }
    }
    if (st != RAID_OK) /* the result's builders fail only for memory */
        st = NOMEM(J->ctx);
out:
    free(wst), free(wo), free(wlo), free(whi), free(wok), free(wbeta), free(wmeat), free(wcen), free(wsc);
    return st;
}

/* Every symbol's design, the statistics of all problems in one call, then the fits: full sample, or
 * each symbol's windows. RAID_OK also when no symbol could be estimated (the result says so); J's
 * arrays are freed by the caller. */
static raid_status har_run(har_job *J)
{
    const raid_har_spec *sp = J->sp;
    const raid_har_input *in = J->in;
    const int k = J->k;
    const size_t nsym = in->nsym;
    raid_status st;
    J->sy = calloc(nsym ? nsym : 1, sizeof *J->sy);
    if (!J->sy)
        return NOMEM(J->ctx);
    size_t total = 0, nprob = 0;
    for (size_t q = 0; q < nsym; q++) {
        J->sy[q].in = &in->sym[q];
        J->sy[q].nm = *in->sym[q].name ? in->sym[q].name : "(no symbol)";
        if ((st = har_prepare(J, q)) != RAID_OK)
            return st;
        if (J->sy[q].ok) {
            total += J->sy[q].m;
            nprob += sp->win_kind ? raidWindowNblocks(J->sy[q].m, RAID_WINDOW_BLOCK) : 1;
        }
    }
    if (!nprob)
        return RAID_OK; /* no symbol could be estimated: the result says so */
    J->res->ran = 1;
    /* The estimation problems: one per symbol, or one per block of RAID_WINDOW_BLOCK rows for windows. */
    J->Xall = malloc(total * (size_t)k * sizeof *J->Xall);
    J->yall = malloc(total * sizeof *J->yall);
    J->off = malloc((nprob + 1) * sizeof *J->off);
    J->stats = malloc(nprob * sizeof *J->stats);
    if (!J->Xall || !J->yall || !J->off || !J->stats)
        return NOMEM(J->ctx);
    size_t pos = 0, g = 0;
    J->off[0] = 0;
    for (size_t q = 0; q < nsym; q++) {
        const har_sym *S = &J->sy[q];
        if (!S->ok)
            continue;
        memcpy(J->Xall + pos * (size_t)k, S->X, S->m * (size_t)k * sizeof *J->Xall);
        memcpy(J->yall + pos, S->y, S->m * sizeof *J->yall);
        if (sp->win_kind)
            g += raidWindowBlockOffsets(pos, S->m, RAID_WINDOW_BLOCK, J->off + g);
        else
            J->off[++g] = (int64_t)(pos + S->m);
        pos += S->m;
    }
    assert(g == nprob && pos == total);
    if ((st = raid_reg_stats_compute(J->ctx, J->Xall, J->yall, k, J->off, nprob, J->stats)) != RAID_OK)
        return raidFail(J->ctx, st, "%s: %s", raid_strerror(st), raid_ctx_errmsg(J->ctx)); /* formatted aside */
    if (!sp->win_kind)
        return har_fit_full(J, nprob);
    if ((st = raidWindowCpus(J->ctx, &J->cpus, &J->ncpu)) != RAID_OK)
        return st;
    for (size_t q = 0; q < nsym; q++)
        J->win_total += J->sy[q].ok ? raidWindowCount((RaidWindowKind)sp->win_kind, J->sy[q].m, (size_t)sp->win) : 0;
    g = 0;
    for (size_t q = 0; q < nsym; q++) {
        if (!J->sy[q].ok)
            continue;
        if ((st = har_fit_windows(J, q, &J->stats[g])) != RAID_OK)
            return st;
        g += raidWindowNblocks(J->sy[q].m, RAID_WINDOW_BLOCK);
    }
    return RAID_OK;
}

raid_status raid_har_fit(raid_ctx *ctx, const raid_har_spec *spec, const raid_har_input *in, raid_har_result **out)
{
    if (!out)
        return raidFail(ctx, RAID_EINVAL, "raid_har_fit: NULL result pointer");
    *out = NULL;
    if (!ctx || !spec || !in)
        return raidFail(ctx, RAID_EINVAL, "raid_har_fit: NULL argument");
    raid_status st = raid_har_spec_check(spec);
    if (st != RAID_OK) /* the thread's message onto the context */
        return raidFail(ctx, st, "%s", raid_errmsg());
    raid_har_result *res = calloc(1, sizeof *res);
    if (!res || raidHarResultInit(res, spec, in) != RAID_OK) {
        raid_har_result_destroy(res);
        return NOMEM(ctx);
    }
    har_job J;
    memset(&J, 0, sizeof J);
    J.ctx = ctx;
    J.sp = spec;
    J.in = in;
    J.res = res;
    J.k = raidHarK(spec);
    st = har_run(&J);
    if (J.sy)
        for (size_t q = 0; q < in->nsym; q++) {
            free(J.sy[q].X);
            free(J.sy[q].y);
            free(J.sy[q].tix);
        }
    free(J.sy);
    free(J.Xall);
    free(J.yall);
    free(J.off);
    free(J.stats);
    raidWindowCpusFree(ctx, J.cpus, J.ncpu);
    if (st != RAID_OK) {
        raid_har_result_destroy(res);
        return st;
    }
    *out = res;
    return RAID_OK;
}
