/* The HAR result: building it (har_fit.c) and its accessors (include/raid/har.h); its CSV writers: src/jobs/har.c. */
#define _POSIX_C_SOURCE 200809L
#include "models/har_internal.h"
#include "core/internal.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

raid_status raidHarResultInit(raid_har_result *res, const raid_har_spec *sp, const raid_har_input *in)
{
    res->spec = *sp;
    res->k = raidHarK(sp);
    res->nsym = in->nsym;
    res->sym = calloc(in->nsym ? in->nsym : 1, sizeof *res->sym);
    res->status = calloc(in->nsym ? in->nsym : 1, sizeof *res->status);
    res->loss = calloc(in->nsym ? in->nsym : 1, sizeof *res->loss);
    if (!res->sym || !res->status || !res->loss)
        return RAID_ENOMEM;
    for (size_t q = 0; q < in->nsym; q++)
        if (!(res->sym[q] = strdup(in->sym[q].name)))
            return RAID_ENOMEM;
    return RAID_OK;
}

/* Grow an array of *cap elements of size sz to hold n + 1. */
static int grow(void **p, size_t sz, size_t n, size_t cap)
{
    if (n < cap)
        return 0;
    void *q = realloc(*p, (cap ? 2 * cap : 64) * sz);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

raid_status raidHarResultMsg(raid_har_result *res, size_t sym, const char *fmt, ...)
{
    if (grow((void **)&res->msg, sizeof *res->msg, res->nmsg, res->msgcap) ||
        grow((void **)&res->msg_sym, sizeof *res->msg_sym, res->nmsg, res->msgcap))
        return RAID_ENOMEM;
    if (res->nmsg == res->msgcap)
        res->msgcap = res->msgcap ? 2 * res->msgcap : 64;
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(s = malloc((size_t)n + 1)))
        return RAID_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    res->msg[res->nmsg] = s;
    res->msg_sym[res->nmsg++] = sym;
    return RAID_OK;
}

raid_status raidHarResultRow(raid_har_result *res, size_t sym, const char *end, const raid_ols *o)
{
    const size_t n = res->nrows, cap = res->rowcap, k = (size_t)res->k;
    assert(o->k == res->k);
    if (n == cap) {
        const size_t nc = cap ? 2 * cap : 64;
        void *p[9] = {res->row_sym, res->row_n, res->row_end, res->r2, res->r2_adj, res->beta, res->se, res->tstat};
        const size_t sz[8] = {sizeof(int64_t), sizeof(int64_t), sizeof(char *), sizeof(double), sizeof(double),
                              k * sizeof(double), k * sizeof(double), k * sizeof(double)};
        for (int i = 0; i < 8; i++) {
            void *q = realloc(p[i], nc * sz[i]);
            if (!q)
                return RAID_ENOMEM;
            p[i] = q;
            switch (i) { /* keep each grown array even when a later one fails */
            case 0: res->row_sym = q; break;
            case 1: res->row_n = q; break;
            case 2: res->row_end = q; break;
            case 3: res->r2 = q; break;
            case 4: res->r2_adj = q; break;
            case 5: res->beta = q; break;
            case 6: res->se = q; break;
            default: res->tstat = q; break;
            }
        }
        res->rowcap = nc;
    }
    char *e = NULL;
    if (end && !(e = strdup(end)))
        return RAID_ENOMEM;
    res->row_sym[n] = (int64_t)sym;
    res->row_n[n] = o->n;
    res->row_end[n] = e;
    res->r2[n] = o->r2;
    res->r2_adj[n] = o->r2_adj;
    memcpy(res->beta + n * k, o->beta, k * sizeof(double));
    memcpy(res->se + n * k, o->se, k * sizeof(double));
    memcpy(res->tstat + n * k, o->tstat, k * sizeof(double));
    res->nrows++;
    return RAID_OK;
}

raid_status raidHarResultFc(raid_har_result *res, size_t sym, const char *date, double fc, double act, double sq,
                          double ql)
{
    const size_t n = res->nfc;
    if (n == res->fccap) {
        const size_t nc = res->fccap ? 2 * res->fccap : 64;
        int64_t *s = realloc(res->fc_sym, nc * sizeof *s);
        if (s)
            res->fc_sym = s;
        char **d = s ? realloc(res->fc_date, nc * sizeof *d) : NULL;
        if (d)
            res->fc_date = d;
        double **arr[4] = {&res->fc, &res->act, &res->sqe, &res->ql};
        int ok = d != NULL;
        for (int i = 0; i < 4 && ok; i++) {
            double *v = realloc(*arr[i], nc * sizeof *v);
            if (v)
                *arr[i] = v;
            ok = v != NULL;
        }
        if (!ok)
            return RAID_ENOMEM;
        res->fccap = nc;
    }
    if (!(res->fc_date[n] = strdup(date)))
        return RAID_ENOMEM;
    res->fc_sym[n] = (int64_t)sym;
    res->fc[n] = fc;
    res->act[n] = act;
    res->sqe[n] = sq;
    res->ql[n] = ql;
    res->nfc++;
    return RAID_OK;
}

/* ---- public functions: contracts in include/raid/har.h ---- */

void raid_har_result_destroy(raid_har_result *res)
{
    if (!res)
        return;
    for (size_t q = 0; res->sym && q < res->nsym; q++)
        free(res->sym[q]);
    free(res->sym);
    free(res->status);
    free(res->loss);
    for (size_t i = 0; i < res->nmsg; i++)
        free(res->msg[i]);
    free(res->msg);
    free(res->msg_sym);
    for (size_t r = 0; r < res->nrows; r++)
        free(res->row_end[r]);
    free(res->row_sym), free(res->row_n), free(res->row_end), free(res->r2), free(res->r2_adj);
    free(res->beta), free(res->se), free(res->tstat);
    for (size_t i = 0; i < res->nfc; i++)
        free(res->fc_date[i]);
    free(res->fc_sym), free(res->fc_date), free(res->fc), free(res->act), free(res->sqe), free(res->ql);
    free(res);
}

/* ---- accessors (res must not be NULL) ---- */

size_t raid_har_result_nsymbols(const raid_har_result *res) { return res->nsym; }
const char *raid_har_result_symbol(const raid_har_result *res, size_t s) { return s < res->nsym ? res->sym[s] : NULL; }
raid_status raid_har_result_status(const raid_har_result *res, size_t s)
{
    return s < res->nsym ? res->status[s] : RAID_EINVAL;
}
size_t raid_har_result_nestimated(const raid_har_result *res) { return res->nok; }
size_t raid_har_result_nmessages(const raid_har_result *res) { return res->nmsg; }
const char *raid_har_result_message(const raid_har_result *res, size_t i) { return i < res->nmsg ? res->msg[i] : NULL; }
size_t raid_har_result_message_symbol(const raid_har_result *res, size_t i)
{
    return i < res->nmsg ? res->msg_sym[i] : (size_t)-1;
}
int raid_har_result_k(const raid_har_result *res) { return res->k; }
const char *raid_har_result_coef_name(const raid_har_result *res, int j) { return raid_har_spec_coef_name(&res->spec, j); }
size_t raid_har_result_nrows(const raid_har_result *res) { return res->nrows; }
const int64_t *raid_har_result_row_symbol(const raid_har_result *res) { return res->row_sym; }
const char *raid_har_result_row_end(const raid_har_result *res, size_t r) { return r < res->nrows ? res->row_end[r] : NULL; }
const int64_t *raid_har_result_row_n(const raid_har_result *res) { return res->row_n; }
const double *raid_har_result_r2(const raid_har_result *res) { return res->r2; }
const double *raid_har_result_r2_adj(const raid_har_result *res) { return res->r2_adj; }
const double *raid_har_result_beta(const raid_har_result *res) { return res->beta; }
const double *raid_har_result_se(const raid_har_result *res) { return res->se; }
const double *raid_har_result_tstat(const raid_har_result *res) { return res->tstat; }
size_t raid_har_result_nforecasts(const raid_har_result *res) { return res->nfc; }
const int64_t *raid_har_result_fc_symbol(const raid_har_result *res) { return res->fc_sym; }
const char *raid_har_result_fc_date(const raid_har_result *res, size_t i) { return i < res->nfc ? res->fc_date[i] : NULL; }
const double *raid_har_result_fc_forecast(const raid_har_result *res) { return res->fc; }
const double *raid_har_result_fc_actual(const raid_har_result *res) { return res->act; }
const double *raid_har_result_fc_sq_err(const raid_har_result *res) { return res->sqe; }
const double *raid_har_result_fc_qlike(const raid_har_result *res) { return res->ql; }

int raid_har_result_loss(const raid_har_result *res, size_t s, size_t *n, double *mse, double *qlike, size_t *nq)
{
    if (s >= res->nsym || !res->spec.win_kind || !res->loss[s].n)
        return 0;
    const RaidLoss *l = &res->loss[s];
    if (n)
        *n = l->n;
    if (mse)
        *mse = raidLossMse(l);
    if (qlike)
        *qlike = raidLossMeanQlike(l);
    if (nq)
        *nq = l->nq;
    return 1;
}
