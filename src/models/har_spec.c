/* HAR specification: names <-> enums, the opaque spec, its coefficient names and checks
 * (include/raid/har.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/har_internal.h"
#include "core/internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const model_names[] = {"har", "har-j", "har-cj", "harq"};
static const char *const transform_names[] = {"none", "log", "sqrt"};
static const char *const se_names[] = {"ols", "white", "nw"};

raid_status raid_har_model_parse(const char *name, raid_har_model *out)
{
    int i = 0;
    const raid_status st = raidParseWord(model_names, 4, name, &i, "model", "har, har-j, har-cj or harq");
    if (st == RAID_OK && out)
        *out = (raid_har_model)i;
    return out ? st : raidFail(NULL, RAID_EINVAL, "raid_har_model_parse: NULL");
}

const char *raid_har_model_name(raid_har_model m) { return (unsigned)m < 4 ? model_names[m] : "?"; }

raid_status raid_har_transform_parse(const char *name, raid_har_transform *out)
{
    int i = 0;
    const raid_status st = raidParseWord(transform_names, 3, name, &i, "transform", "none, log or sqrt");
    if (st == RAID_OK && out)
        *out = (raid_har_transform)i;
    return out ? st : raidFail(NULL, RAID_EINVAL, "raid_har_transform_parse: NULL");
}

const char *raid_har_transform_name(raid_har_transform t) { return (unsigned)t < 3 ? transform_names[t] : "?"; }

raid_status raid_har_se_parse(const char *name, raid_se_kind *out)
{
    int i = 0;
    const raid_status st = raidParseWord(se_names, 3, name, &i, "standard errors", "ols, white or nw");
    if (st == RAID_OK && out)
        *out = (raid_se_kind)i;
    return out ? st : raidFail(NULL, RAID_EINVAL, "raid_har_se_parse: NULL");
}

const char *raid_har_se_name(raid_se_kind k) { return (unsigned)k < 3 ? se_names[k] : "?"; }

raid_status raid_har_window_parse(const char *s, raid_har_window *kind, int64_t *n)
{
    if (!s || !kind || !n)
        return raidFail(NULL, RAID_EINVAL, "bad window (NULL)");
    if (!strcmp(s, "full")) {
        *kind = RAID_HAR_FULL;
        *n = 0;
        return RAID_OK;
    }
    const char *c = strchr(s, ':');
    const size_t pl = c ? (size_t)(c - s) : 0;
    raid_har_window k = RAID_HAR_FULL;
    if (c && pl == 7 && !strncmp(s, "rolling", 7))
        k = RAID_HAR_ROLLING;
    else if (c && pl == 9 && !strncmp(s, "expanding", 9))
        k = RAID_HAR_EXPANDING;
    long long v = -1;
    if (k != RAID_HAR_FULL) {
        char *end;
        errno = 0;
        v = strtoll(c + 1, &end, 10); /* digits only: strtoll would also take spaces and a sign */
        if (errno || *end || end == c + 1 || !(c[1] >= '0' && c[1] <= '9') || v < 0 || v > INT32_MAX)
            v = -1;
    }
    if (k == RAID_HAR_FULL || v < 0)
        return raidFail(NULL, RAID_EINVAL, "bad window '%s' (expected full, rolling:N or expanding:N)",
                         RAID_SHOWZ(s));
    *kind = k;
    *n = (int64_t)v;
    return RAID_OK;
}

raid_status raid_har_lags_parse(const char *s, int *lags, int *nlags)
{
    int n = 0, tmp[RAID_HAR_MAX_LAGS];
    const char *p = s ? s : "";
    int ok = s && lags && nlags;
    while (ok && *p) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10); /* digits only: strtol would also take spaces and a sign */
        if (end == p || errno || !(*p >= '0' && *p <= '9') || v < 1 || v > 10000 || n == RAID_HAR_MAX_LAGS || (n && v <= tmp[n - 1])) {
            ok = 0;
            break;
        }
        tmp[n++] = (int)v;
        if (*end == ',' && end[1])
            end++;
        else if (*end) /* anything else, or a trailing comma */
            ok = 0;
        p = end;
    }
    if (!ok || n < 1 || tmp[0] != 1)
        return raidFail(NULL, RAID_EINVAL,
                         "bad lags '%s' (expected at most %d increasing integers from 1 to 10000, the first 1)",
                         RAID_SHOWZ(s ? s : ""), RAID_HAR_MAX_LAGS);
    memcpy(lags, tmp, (size_t)n * sizeof *lags);
    *nlags = n;
    return RAID_OK;
}

/* ---- the specification ---- */

int raidHarK(const raid_har_spec *sp)
{
    return (sp->model == RAID_HAR_RV ? 1 : 2) + sp->nlags;
}

static void lag_name(char *buf, const char *prefix, int lag)
{
    if (lag == 1)
        snprintf(buf, HAR_NAME_LEN, "%s_d", prefix);
    else if (lag == 5)
        snprintf(buf, HAR_NAME_LEN, "%s_w", prefix);
    else if (lag == 22)
        snprintf(buf, HAR_NAME_LEN, "%s_m", prefix);
    else
        snprintf(buf, HAR_NAME_LEN, "%s_l%d", prefix, lag);
}

int raidHarSpecNames(raid_har_spec *sp)
{
    int c = 0;
    snprintf(sp->names[c++], HAR_NAME_LEN, "const");
    const char *pre = sp->model == RAID_HAR_CJ ? "c" : "rv";
    for (int l = 0; l < sp->nlags; l++) {
        lag_name(sp->names[c++], pre, sp->lags[l]);
        if (sp->model == RAID_HAR_Q && l == 0)
            snprintf(sp->names[c++], HAR_NAME_LEN, "rq_rv");
    }
    if (sp->model == RAID_HAR_J || sp->model == RAID_HAR_CJ)
        snprintf(sp->names[c++], HAR_NAME_LEN, "j");
    assert(c == raidHarK(sp));
    return c;
}

raid_status raid_har_spec_create(raid_har_spec **out)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_har_spec_create: NULL");
    raid_har_spec *sp = calloc(1, sizeof *sp);
    *out = sp;
    if (!sp)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    sp->model = RAID_HAR_RV;
    sp->transform = RAID_HAR_NONE;
    sp->h = 1;
    sp->nlags = 3;
    sp->lags[0] = 1, sp->lags[1] = 5, sp->lags[2] = 22;
    sp->alpha = 0.05;
    sp->se = RAID_SE_NW;
    sp->nw_lag = -1;
    sp->win_kind = RAID_HAR_FULL;
    raidHarSpecNames(sp);
    return RAID_OK;
}

raid_status raid_har_spec_clone(const raid_har_spec *spec, raid_har_spec **out)
{
    if (!spec || !out)
        return raidFail(NULL, RAID_EINVAL, "raid_har_spec_clone: NULL");
    *out = malloc(sizeof **out);
    if (!*out)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    **out = *spec;
    return RAID_OK;
}

void raid_har_spec_destroy(raid_har_spec *spec) { free(spec); }

#define SPEC_NONNULL(sp)                                                                                         \
    if (!(sp))                                                                                                   \
    return raidFail(NULL, RAID_EINVAL, "%s: NULL spec", __func__)

raid_status raid_har_spec_set_model(raid_har_spec *sp, raid_har_model m)
{
    SPEC_NONNULL(sp);
    if ((unsigned)m > RAID_HAR_Q)
        return raidFail(NULL, RAID_EINVAL, "bad model %d", (int)m);
    sp->model = (int)m;
    raidHarSpecNames(sp);
    return RAID_OK;
}

raid_status raid_har_spec_set_lags(raid_har_spec *sp, const int *lags, int nlags)
{
    SPEC_NONNULL(sp);
    int ok = lags && nlags >= 1 && nlags <= RAID_HAR_MAX_LAGS && lags[0] == 1;
    for (int l = 1; ok && l < nlags; l++)
        ok = lags[l] > lags[l - 1] && lags[l] <= 10000;
    if (!ok)
        return raidFail(NULL, RAID_EINVAL,
                         "bad lags (expected 1 to %d increasing integers from 1 to 10000, the first 1)",
                         RAID_HAR_MAX_LAGS);
    memcpy(sp->lags, lags, (size_t)nlags * sizeof *lags);
    sp->nlags = nlags;
    raidHarSpecNames(sp);
    return RAID_OK;
}

raid_status raid_har_spec_set_horizon(raid_har_spec *sp, int h)
{
    SPEC_NONNULL(sp);
    if (h < 1 || h > 1000)
        return raidFail(NULL, RAID_EINVAL, "bad horizon %d (expected an integer in [1, 1000])", h);
    sp->h = h;
    return RAID_OK;
}

raid_status raid_har_spec_set_transform(raid_har_spec *sp, raid_har_transform t)
{
    SPEC_NONNULL(sp);
    if ((unsigned)t > RAID_HAR_SQRT)
        return raidFail(NULL, RAID_EINVAL, "bad transform %d", (int)t);
    sp->transform = (int)t;
    return RAID_OK;
}

raid_status raid_har_spec_set_se(raid_har_spec *sp, raid_se_kind kind, int64_t nw_lag)
{
    SPEC_NONNULL(sp);
    if ((unsigned)kind > RAID_SE_NW || nw_lag < -1 || nw_lag > 100000)
        return raidFail(NULL, RAID_EINVAL, "bad standard errors (kind %d, Newey-West lag %lld: expected -1 or 0 "
                         "to 100000)", (int)kind, (long long)nw_lag);
    sp->se = kind;
    sp->nw_lag = nw_lag;
    return RAID_OK;
}

raid_status raid_har_spec_set_window(raid_har_spec *sp, raid_har_window kind, int64_t n)
{
    SPEC_NONNULL(sp);
    if ((unsigned)kind > RAID_HAR_EXPANDING || (kind != RAID_HAR_FULL && (n < 1 || n > INT32_MAX)))
        return raidFail(NULL, RAID_EINVAL, "bad window (kind %d, %lld rows)", (int)kind, (long long)n);
    sp->win_kind = (int)kind;
    sp->win = kind == RAID_HAR_FULL ? 0 : n;
    return RAID_OK;
}

raid_status raid_har_spec_set_alpha(raid_har_spec *sp, double alpha)
{
    SPEC_NONNULL(sp);
    if (!(alpha > 0 && alpha < 1))
        return raidFail(NULL, RAID_EINVAL, "bad alpha %g (expected a number in (0, 1))", alpha);
    sp->alpha = alpha;
    return RAID_OK;
}

/* Getters: a NULL spec gives the documented "none" values (include/raid/har.h). */
raid_har_model raid_har_spec_model(const raid_har_spec *sp)
{
    return sp ? (raid_har_model)sp->model : (raid_har_model)-1;
}
int raid_har_spec_lags(const raid_har_spec *sp, int *lags)
{
    if (!sp)
        return 0;
    if (lags)
        memcpy(lags, sp->lags, (size_t)sp->nlags * sizeof *lags);
    return sp->nlags;
}
int raid_har_spec_horizon(const raid_har_spec *sp) { return sp ? sp->h : 0; }
raid_har_transform raid_har_spec_transform(const raid_har_spec *sp)
{
    return sp ? (raid_har_transform)sp->transform : (raid_har_transform)-1;
}
raid_se_kind raid_har_spec_se(const raid_har_spec *sp) { return sp ? sp->se : (raid_se_kind)-1; }
int64_t raid_har_spec_nw_lag(const raid_har_spec *sp) { return sp ? sp->nw_lag : 0; }
raid_har_window raid_har_spec_window(const raid_har_spec *sp)
{
    return sp ? (raid_har_window)sp->win_kind : (raid_har_window)-1;
}
int64_t raid_har_spec_window_n(const raid_har_spec *sp) { return sp ? sp->win : 0; }
double raid_har_spec_alpha(const raid_har_spec *sp) { return sp ? sp->alpha : NAN; }
int raid_har_spec_k(const raid_har_spec *sp) { return sp ? raidHarK(sp) : 0; }

const char *raid_har_spec_coef_name(const raid_har_spec *sp, int j)
{
    return sp && j >= 0 && j < raidHarK(sp) ? sp->names[j] : NULL;
}

raid_status raid_har_spec_check(const raid_har_spec *sp)
{
    SPEC_NONNULL(sp);
    if (sp->model == RAID_HAR_Q && sp->transform != RAID_HAR_NONE)
        return raidFail(NULL, RAID_EINVAL, "model harq takes transform none only");
    if (raidHarK(sp) > RAID_REG_MAX_K)
        return raidFail(NULL, RAID_EINVAL, "too many regressors (%d, at most %d): use fewer lags", raidHarK(sp),
                         RAID_REG_MAX_K);
    if (sp->win_kind != RAID_HAR_FULL && sp->win <= raidHarK(sp))
        return raidFail(NULL, RAID_EINVAL, "window N must exceed the number of regressors (%d)", raidHarK(sp));
    return RAID_OK;
}
