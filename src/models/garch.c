/* The GARCH fit job (raid_garch_fit, include/raid/garch.h): plans the full-sample series of every symbol
 * and, with a window, every window (a pointer and a length into its symbol's returns), and calls the
 * batched fitter (garch_batch.h) ONCE for all full-sample series and ONCE for all windows, these
 * warm-started from their symbol's full-sample estimates. It screens nothing itself: the batched fitter
 * gives every fit its status; this file turns them into rows and messages. */
#define _POSIX_C_SOURCE 200809L
#include "models/garch_internal.h"
#include "models/garch_batch.h"
#include "core/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GARCH_STR2(x) #x
#define GARCH_STR(x) GARCH_STR2(x)

/* Why a fit has the status it has (the words of include/raid/garch.h). */
static const char *status_detail(raid_garch_status s)
{
    switch (s) {
    case RAID_GARCH_CONVERGED: return "";
    case RAID_GARCH_MAXITER: return "the estimates are the last iterate, not converged";
    case RAID_GARCH_BOUNDARY: return "stopped towards an edge of the parameter space (persistence near 1, a "
                                     "component or omega near 0, EGARCH |beta| near 1 or nu very large); no "
                                     "standard errors";
    case RAID_GARCH_NO_PROGRESS: return "the line search failed with the gradient not small";
    case RAID_GARCH_AT_START: return "the estimates did not move from the starting values";
    case RAID_GARCH_TOO_SHORT: return "fewer than " GARCH_STR(RAID_GARCH_MIN_T) " returns; no estimates";
    case RAID_GARCH_CONSTANT: return "every return is equal; no estimates";
    case RAID_GARCH_NONFINITE: return "a NaN or infinite return; no estimates";
    case RAID_GARCH_NO_START: return "every starting value (or the end point) has an infinite likelihood; no estimates";
    case RAID_GARCH_RANGE: return "returns too large or too small to square in float64 (max |r| at least 2^511 or "
                                  "below 2^-511); no estimates: rescale them";
    }
    return "";
}

/* Where return t of symbol S is: "FILE:LINE" (a source and lines), "row L" (lines, no source: the
 * caller's numbering), "row T" (1-based within the symbol). */
static void garch_where(const raid_garch_input *in, const garch_in_sym *S, size_t t, char *buf, size_t n)
{
    if (S->lines && in->path)
        snprintf(buf, n, "%s:%lld", in->path, (long long)S->lines[t]);
    else
        snprintf(buf, n, "row %lld", S->lines ? (long long)S->lines[t] : (long long)t + 1);
}

/* The message of a full-sample fit that did not converge. */
static raid_status full_msg(raid_garch_result *res, const raid_garch_input *in, size_t q,
                            const RaidGarchBatchOut *o)
{
    const garch_in_sym *S = &in->sym[q];
    char nm_shown[RAID_SHOW_CAP]; /* the symbol in the messages: escaped as every quoted input */
    const char *nm = *S->name ? raid_show_text(nm_shown, S->name, RAID_SHOW_NUL) : "(no symbol)",
               *st = raid_garch_status_name(o->status);
    if (o->status == RAID_GARCH_NONFINITE) {
        size_t t = 0;
        while (t < S->n && isfinite(S->r[t]))
            t++;
        char where[4200] = "?";
        if (t < S->n)
            garch_where(in, S, t, where, sizeof where);
        return GARCH_MSG(res, q, "%s: %s: return %g at %s; no estimates", nm, st, t < S->n ? S->r[t] : NAN, where);
    }
    if (o->status == RAID_GARCH_TOO_SHORT)
        return GARCH_MSG(res, q, "%s: %s: %zu return%s, fewer than %d; no estimates", nm, st, S->n,
                         S->n == 1 ? "" : "s", RAID_GARCH_MIN_T);
    if (o->status == RAID_GARCH_MAXITER)
        return GARCH_MSG(res, q, "%s: %s (%d iterations): %s", nm, st, o->iterations, status_detail(o->status));
    return GARCH_MSG(res, q, "%s: %s: %s", nm, st, status_detail(o->status));
}

/* A converged fit without (some) standard errors: its Hessian at the estimates was not positive definite
 * (a flat or concave direction), so the classic and robust covariances do not exist. */
static int converged_no_se(const raid_garch_spec *sp, const RaidGarchBatchOut *o, int k)
{
    if (o->status != RAID_GARCH_CONVERGED)
        return 0;
    const double *se = sp->se == RAID_GARCH_SE_CLASSIC ? o->se_classic : o->se_robust;
    for (int j = 0; j < k; j++)
        if (!(se[j] > 0))
            return 1;
    return 0;
}

static const char NO_SE[] = "converged, but no standard errors: the Hessian at the estimates is not positive "
                            "definite (a flat direction)";

/* Row r of the result from fit o of symbol q (window end text: NULL for a full-sample fit). */
static raid_status put_row(raid_garch_result *res, size_t r, size_t q, const char *end, size_t n,
                           const RaidGarchBatchOut *o, const int *slot, int k)
{
    if (end && !(res->row_end[r] = strdup(end)))
        return RAID_ENOMEM;
    res->row_sym[r] = (int64_t)q;
    res->n[r] = (int64_t)n;
    const double *se = res->spec.se == RAID_GARCH_SE_CLASSIC ? o->se_classic : o->se_robust;
    for (int j = 0; j < k; j++) {
        res->params[r * RAID_GARCH_MAXPAR + (size_t)slot[j]] = o->theta[j];
        res->se[r * RAID_GARCH_MAXPAR + (size_t)slot[j]] = se[j];
    }
    res->loglik[r] = o->loglik;
    res->iterations[r] = o->iterations;
    res->status[r] = (int32_t)o->status;
    res->sigma2_last[r] = o->sigma2_last;
    res->sigma2_next[r] = o->sigma2_next;
    return RAID_OK;
}

/* The windows of a series of T returns: their number, and (ends not NULL) the 0-based index of each
 * window's last return. */
static size_t plan_windows(const raid_garch_spec *sp, size_t T, size_t *ends)
{
    const size_t N = (size_t)sp->win, step = (size_t)sp->step;
    if (T < N)
        return 0;
    const size_t nw = (T - N) / step + 1;
    for (size_t j = 0; ends && j < nw; j++)
        ends[j] = N - 1 + j * step;
    return nw;
}

#define NOMEM(ctx) raidFail((ctx), RAID_ENOMEM, "out of memory")

/* The window fits of every symbol, in one batch, and their rows and messages. */
static raid_status fit_windows(raid_ctx *ctx, const raid_garch_spec *sp, const RaidGarchLikSpec *ls,
                               const raid_garch_input *in, const RaidGarchBatchOut *full,
                               const RaidGarchBatchOpts *opts, raid_garch_result *res, const int *slot, int k)
{
    const size_t nsym = in->nsym, nrows = res->nrows;
    const double **r = malloc((nrows ? nrows : 1) * sizeof *r);
    size_t *T = malloc((nrows ? nrows : 1) * sizeof *T), *end = malloc((nrows ? nrows : 1) * sizeof *end);
    double *warm = malloc((nrows ? nrows : 1) * (size_t)k * sizeof *warm);
    RaidGarchBatchOut *o = calloc(nrows ? nrows : 1, sizeof *o);
    raid_status st = RAID_OK;
    if (!r || !T || !end || !warm || !o) {
        st = NOMEM(ctx);
        goto done;
    }
    size_t w = 0;
    for (size_t q = 0; q < nsym; q++) {
        const garch_in_sym *S = &in->sym[q];
        const size_t nw = plan_windows(sp, S->n, end + w);
        for (size_t j = w; j < w + nw; j++) {
            const size_t start = sp->win_kind == RAID_GARCH_ROLLING ? end[j] + 1 - (size_t)sp->win : 0;
            r[j] = S->r + start;
            T[j] = end[j] + 1 - start;
            memcpy(warm + j * (size_t)k, full[q].theta, (size_t)k * sizeof *warm); /* NAN: no estimates */
        }
        w += nw;
    }
    RaidGarchBatchOpts wo = *opts; /* the windows' fits come after the full-sample fits */
    wo.prog_base = nsym;
    if (nrows && (st = raidGarchBatchFit(ctx, ls, nrows, r, T, warm, &wo, o)) != RAID_OK)
        goto done;
    w = 0;
    for (size_t q = 0; q < nsym && st == RAID_OK; q++) {
        const garch_in_sym *S = &in->sym[q];
        char nm_shown[RAID_SHOW_CAP];
        const char *nm = *S->name ? raid_show_text(nm_shown, S->name, RAID_SHOW_NUL) : "(no symbol)";
        const size_t nw = plan_windows(sp, S->n, NULL);
        size_t bad = 0, first = 0, nose = 0, first_nose = 0;
        for (size_t j = w; j < w + nw && st == RAID_OK; j++) {
            char idx[32];
            snprintf(idx, sizeof idx, "%zu", end[j] + 1);
            st = put_row(res, j, q, S->dates ? S->dates[end[j]] : idx, T[j], &o[j], slot, k) ? NOMEM(ctx) : RAID_OK;
            if (o[j].status != RAID_GARCH_CONVERGED && !bad++)
                first = j;
            if (converged_no_se(sp, &o[j], k) && !nose++)
                first_nose = j;
        }
        if (st == RAID_OK && nose)
            st = GARCH_MSG(res, q, "%s: %zu of %zu windows %s (the first: window ending '%s')", nm, nose, nw, NO_SE,
                           RAID_SHOWZ(res->row_end[first_nose])) ? NOMEM(ctx) : RAID_OK;
        if (st == RAID_OK && !nw)
            st = GARCH_MSG(res, q, "%s: %zu return%s, fewer than the window's %lld: no window", nm, S->n,
                           S->n == 1 ? "" : "s", (long long)sp->win) ? NOMEM(ctx) : RAID_OK;
        else if (st == RAID_OK && bad)
            st = GARCH_MSG(res, q, "%s: %zu of %zu windows did not end converged (the first: window ending '%s', %s: %s)",
                           nm, bad, nw, RAID_SHOWZ(res->row_end[first]), raid_garch_status_name(o[first].status),
                           status_detail(o[first].status)) ? NOMEM(ctx) : RAID_OK;
        w += nw;
    }
done:
    free(r), free(T), free(end), free(warm), free(o);
    return st;
}

raid_status raid_garch_fit(raid_ctx *ctx, const raid_garch_spec *sp, const raid_garch_input *in,
                           raid_garch_result **out)
{
    if (!ctx || !sp || !in || !out)
        return raidFail(ctx, RAID_EINVAL, "raid_garch_fit: NULL argument");
    *out = NULL;
    const RaidGarchLikSpec ls = raidGarchLikSpec(sp);
    int slot[RAID_GARCH_MAXPAR];
    const int k = raidGarchSlots(sp, slot);
    RaidGarchBatchOpts opts;
    memset(&opts, 0, sizeof opts); /* the defaults of garch_batch.h */
    opts.max_iter = (size_t)sp->max_iter;
    const size_t nsym = in->nsym;
    size_t nrows = nsym;
    if (sp->win_kind != RAID_GARCH_FULL) {
        nrows = 0;
        for (size_t q = 0; q < nsym; q++)
            nrows += plan_windows(sp, in->sym[q].n, NULL);
    }
    /* progress: the full-sample fits, then the windows' (each a fit, as the rows of the result) */
    opts.prog_total = nsym + (sp->win_kind != RAID_GARCH_FULL ? nrows : 0);
    raid_garch_result *res = calloc(1, sizeof *res);
    const double **r = malloc((nsym ? nsym : 1) * sizeof *r);
    size_t *T = malloc((nsym ? nsym : 1) * sizeof *T);
    RaidGarchBatchOut *full = calloc(nsym ? nsym : 1, sizeof *full);
    raid_status st = RAID_OK;
    if (!res || !r || !T || !full || raidGarchResultInit(res, sp, in, nrows) != RAID_OK) {
        st = NOMEM(ctx);
        goto done;
    }
    for (size_t q = 0; q < nsym; q++) {
        r[q] = in->sym[q].r;
        T[q] = in->sym[q].n;
    }
    /* With windows, the full-sample fits are only the windows' warm starts, and a window fit that the device
     * does not keep is fitted again by the cpu path from its starts, the warm start among them: a device's
     * full-sample optimum (equal to the cpu path's within the convergence test, not bit for bit) gave those
     * refits another start, and so another status or log-likelihood where the likelihood is flat (EGARCH,
     * rolling:50, step 41 on 300 simulated returns: windows 0.39 apart, `iteration limit` against the cpu
     * path's `no progress`; tests/test_garch_api.c).
     * So on a device the full-sample fits of a windowed job are the cpu path's. */
    const int full_on_cpu = ctx->dev && sp->win_kind != RAID_GARCH_FULL;
    if (nsym && (st = raidGarchBatchFit(full_on_cpu ? NULL : ctx, &ls, nsym, r, T, NULL, &opts, full)) != RAID_OK) {
        if (full_on_cpu)
            st = raidFail(ctx, st, "%s", raid_errmsg());
        goto done;
    }
    for (size_t q = 0; q < nsym && st == RAID_OK && sp->win_kind == RAID_GARCH_FULL; q++)
        if (put_row(res, q, q, NULL, in->sym[q].n, &full[q], slot, k) != RAID_OK ||
            (full[q].status != RAID_GARCH_CONVERGED && full_msg(res, in, q, &full[q]) != RAID_OK) ||
            (converged_no_se(sp, &full[q], k) &&
             GARCH_MSG(res, q, "%s: %s", *in->sym[q].name ? RAID_SHOWZ(in->sym[q].name) : "(no symbol)", NO_SE)))
            st = NOMEM(ctx);
    if (st == RAID_OK && sp->win_kind != RAID_GARCH_FULL)
        st = fit_windows(ctx, sp, &ls, in, full, &opts, res, slot, k);
done:
    free(r), free(T), free(full);
    if (st != RAID_OK) {
        raid_garch_result_destroy(res);
        return st;
    }
    *out = res;
    return RAID_OK;
}
