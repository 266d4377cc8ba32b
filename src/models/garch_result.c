/* The GARCH result: building it (garch.c), its accessors and forecasts (include/raid/garch.h). Its CSV
 * writer is the job's (src/jobs/garch.c). */
#define _POSIX_C_SOURCE 200809L
#include "models/garch_internal.h"
#include "models/garch_batch.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

raid_status raidGarchResultInit(raid_garch_result *res, const raid_garch_spec *sp, const raid_garch_input *in,
                              size_t nrows)
{
    const size_t n = nrows ? nrows : 1, P = RAID_GARCH_MAXPAR;
    res->spec = *sp;
    res->nsym = in->nsym;
    res->nrows = nrows;
    if (!(res->sym = calloc(in->nsym ? in->nsym : 1, sizeof *res->sym)))
        return RAID_ENOMEM;
    for (size_t q = 0; q < in->nsym; q++)
        if (!(res->sym[q] = strdup(in->sym[q].name)))
            return RAID_ENOMEM;
    res->row_sym = calloc(n, sizeof *res->row_sym);
    res->row_end = calloc(n, sizeof *res->row_end);
    res->n = calloc(n, sizeof *res->n);
    res->params = malloc(n * P * sizeof *res->params);
    res->se = malloc(n * P * sizeof *res->se);
    res->loglik = malloc(n * sizeof *res->loglik);
    res->sigma2_last = malloc(n * sizeof *res->sigma2_last);
    res->sigma2_next = malloc(n * sizeof *res->sigma2_next);
    res->iterations = calloc(n, sizeof *res->iterations);
    res->status = calloc(n, sizeof *res->status);
    if (!res->row_sym || !res->row_end || !res->n || !res->params || !res->se || !res->loglik ||
        !res->sigma2_last || !res->sigma2_next || !res->iterations || !res->status)
        return RAID_ENOMEM;
    for (size_t i = 0; i < n * P; i++)
        res->params[i] = res->se[i] = NAN;
    for (size_t i = 0; i < n; i++)
        res->loglik[i] = res->sigma2_last[i] = res->sigma2_next[i] = NAN;
    return RAID_OK;
}

void raid_garch_result_destroy(raid_garch_result *res)
{
    if (!res)
        return;
    for (size_t q = 0; res->sym && q < res->nsym; q++)
        free(res->sym[q]);
    free(res->sym);
    raidStrlistFree(&res->msg);
    free(res->msg_sym);
    for (size_t r = 0; res->row_end && r < res->nrows; r++)
        free(res->row_end[r]);
    free(res->row_sym), free(res->row_end), free(res->n), free(res->params), free(res->se), free(res->loglik);
    free(res->sigma2_last), free(res->sigma2_next), free(res->iterations), free(res->status);
    free(res);
}

/* ---- accessors: NULL / NAN / -1 out of range (include/raid/garch.h) ---- */

size_t raid_garch_result_nrows(const raid_garch_result *res) { return res ? res->nrows : 0; }
const char *raid_garch_result_symbol(const raid_garch_result *res, size_t row)
{
    return res && row < res->nrows ? res->sym[res->row_sym[row]] : NULL;
}
const char *raid_garch_result_window_end(const raid_garch_result *res, size_t row)
{
    return res && row < res->nrows ? res->row_end[row] : NULL;
}
#define ARRAY_ACCESSOR(TYPE, NAME)                                                                               \
    const TYPE *raid_garch_result_##NAME(const raid_garch_result *res) { return res && res->nrows ? res->NAME : NULL; }
ARRAY_ACCESSOR(int64_t, n)
ARRAY_ACCESSOR(double, params)
ARRAY_ACCESSOR(double, se)
ARRAY_ACCESSOR(double, loglik)
ARRAY_ACCESSOR(int32_t, iterations)
ARRAY_ACCESSOR(int32_t, status)
ARRAY_ACCESSOR(double, sigma2_last)
ARRAY_ACCESSOR(double, sigma2_next)
size_t raid_garch_result_nmessages(const raid_garch_result *res) { return res ? res->msg.n : 0; }
const char *raid_garch_result_message(const raid_garch_result *res, size_t i)
{
    return res ? raidStrlistGet(&res->msg, i) : NULL;
}
size_t raid_garch_result_message_symbol(const raid_garch_result *res, size_t i)
{
    return res && i < res->msg.n ? res->msg_sym[i] : (size_t)-1;
}

raid_status raidGarchResultMsgSymbol(raid_garch_result *res, size_t q, raid_status st)
{
    if (st != RAID_OK)
        return st;
    const size_t i = res->msg.n - 1;
    if (i >= res->msg_sym_cap) {
        const size_t cap = res->msg_sym_cap ? 2 * res->msg_sym_cap : 16;
        size_t *p = realloc(res->msg_sym, cap * sizeof *p);
        if (!p) {
            free(res->msg.s[--res->msg.n]);
            return RAID_ENOMEM;
        }
        res->msg_sym = p;
        res->msg_sym_cap = cap;
    }
    res->msg_sym[i] = q;
    return RAID_OK;
}

raid_status raid_garch_result_forecast(const raid_garch_result *res, size_t row, size_t H, double *out)
{
    if (!res || !out || H < 1 || row >= res->nrows)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_result_forecast: %s",
                         !res || !out ? "NULL argument" : H < 1 ? "H < 1" : "row out of range");
    int slot[RAID_GARCH_MAXPAR];
    const int k = raidGarchSlots(&res->spec, slot);
    double theta[RAID_GARCH_MAXPAR];
    int ok = isfinite(res->sigma2_next[row]);
    for (int j = 0; j < k; j++)
        ok &= isfinite(theta[j] = res->params[row * RAID_GARCH_MAXPAR + (size_t)slot[j]]);
    if (!ok)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_result_forecast: row %zu has no estimates (%s)", row,
                         raid_garch_status_name((raid_garch_status)res->status[row]));
    const RaidGarchLikSpec ls = raidGarchLikSpec(&res->spec);
    raidGarchForecast(&ls, theta, res->sigma2_next[row], H, out);
    return RAID_OK;
}
