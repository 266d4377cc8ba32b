/* GARCH specification: names <-> enums, the opaque spec, its mapping to the internal likelihood's
 * specification (include/raid/garch.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/garch_internal.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const model_names[] = {"garch", "gjr", "egarch"};
static const char *const dist_names[] = {"normal", "t"};
static const char *const mean_names[] = {"constant", "zero"};
static const char *const init_names[] = {"backcast", "sample"};
static const char *const ez_names[] = {"sqrt2pi", "dist"};
static const char *const se_names[] = {"robust", "classic"};
static const char *const column_names[] = {"returns", "prices"};
static const char *const status_names[] = {"converged", "iteration limit", "boundary", "no progress", "at start",
                                           "too short", "constant", "non-finite", "no valid start",
                                           "out of range"};
#define NWORDS(a) ((int)(sizeof a / sizeof a[0]))

/* raid_garch_WHAT_parse and raid_garch_WHAT_name over the word list WHAT_names. */
#define GARCH_WORDS(WHAT, TYPE, NOUN, EXPECTED)                                                                  \
    raid_status raid_garch_##WHAT##_parse(const char *name, TYPE *out)                                           \
    {                                                                                                            \
        int i = 0;                                                                                               \
        if (!out)                                                                                                \
            return raidFail(NULL, RAID_EINVAL, "raid_garch_" #WHAT "_parse: NULL");                             \
        const raid_status st = raidParseWord(WHAT##_names, NWORDS(WHAT##_names), name, &i, NOUN, EXPECTED);   \
        if (st == RAID_OK)                                                                                       \
            *out = (TYPE)i;                                                                                      \
        return st;                                                                                               \
    }

GARCH_WORDS(model, raid_garch_model, "model", "garch, gjr or egarch")
GARCH_WORDS(dist, raid_garch_dist, "distribution", "normal or t")
GARCH_WORDS(mean, raid_garch_mean, "mean", "constant or zero")
GARCH_WORDS(init, raid_garch_init, "starting variance", "backcast or sample")
GARCH_WORDS(ez, raid_garch_ez, "E|z| convention", "sqrt2pi or dist")
GARCH_WORDS(se, raid_garch_se, "standard errors", "robust or classic")
GARCH_WORDS(column, raid_garch_column, "input kind", "returns or prices")

#define WORD_NAME(arr, v) ((unsigned)(v) < (unsigned)NWORDS(arr) ? arr[v] : "?")
const char *raid_garch_model_name(raid_garch_model m) { return WORD_NAME(model_names, m); }
const char *raid_garch_dist_name(raid_garch_dist d) { return WORD_NAME(dist_names, d); }
const char *raid_garch_mean_name(raid_garch_mean m) { return WORD_NAME(mean_names, m); }
const char *raid_garch_init_name(raid_garch_init i) { return WORD_NAME(init_names, i); }
const char *raid_garch_ez_name(raid_garch_ez e) { return WORD_NAME(ez_names, e); }
const char *raid_garch_se_name(raid_garch_se s) { return WORD_NAME(se_names, s); }
const char *raid_garch_status_name(raid_garch_status s) { return WORD_NAME(status_names, s); }

raid_status raid_garch_window_parse(const char *s, raid_garch_window *kind, int64_t *n)
{
    /* the words and digits of raid_har_window_parse (the same enum values), then GARCH's shortest window */
    raid_har_window k;
    if (!kind || !n || raid_har_window_parse(s, &k, n) != RAID_OK ||
        (k != RAID_HAR_FULL && *n < RAID_GARCH_MIN_T))
        return raidFail(NULL, RAID_EINVAL, "bad window '%s' (expected full, rolling:N or expanding:N, N from %d to "
                         "2147483647)", RAID_SHOWZ(s ? s : ""), RAID_GARCH_MIN_T);
    *kind = (raid_garch_window)k;
    return RAID_OK;
}

/* ---- the specification ---- */

raid_status raid_garch_spec_create(raid_garch_spec **out)
{
    if (!out)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_spec_create: NULL");
    raid_garch_spec *sp = calloc(1, sizeof *sp);
    *out = sp;
    if (!sp)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    sp->model = RAID_GARCH_GARCH;
    sp->dist = RAID_GARCH_NORMAL;
    sp->mean = RAID_GARCH_MEAN_CONSTANT;
    sp->init = RAID_GARCH_INIT_BACKCAST;
    sp->ez = RAID_GARCH_EZ_SQRT2PI;
    sp->se = RAID_GARCH_SE_ROBUST;
    sp->win_kind = RAID_GARCH_FULL;
    sp->step = 1;
    sp->max_iter = 500;
    return RAID_OK;
}

void raid_garch_spec_destroy(raid_garch_spec *spec) { free(spec); }

/* A setter of an enum member: NULL spec or a value outside [0, hi] is RAID_EINVAL. */
#define GARCH_SETTER(WHAT, TYPE, HI)                                                                             \
    raid_status raid_garch_spec_set_##WHAT(raid_garch_spec *sp, TYPE v)                                          \
    {                                                                                                            \
        if (!sp || (unsigned)v > (unsigned)(HI))                                                                 \
            return raidFail(NULL, RAID_EINVAL, "raid_garch_spec_set_" #WHAT ": %s", sp ? "value out of range"   \
                             : "NULL spec");                                                                     \
        sp->WHAT = (int)v;                                                                                       \
        return RAID_OK;                                                                                          \
    }

GARCH_SETTER(model, raid_garch_model, RAID_GARCH_EGARCH)
GARCH_SETTER(dist, raid_garch_dist, RAID_GARCH_T)
GARCH_SETTER(mean, raid_garch_mean, RAID_GARCH_MEAN_ZERO)
GARCH_SETTER(init, raid_garch_init, RAID_GARCH_INIT_SAMPLE)
GARCH_SETTER(ez, raid_garch_ez, RAID_GARCH_EZ_DIST)
GARCH_SETTER(se, raid_garch_se, RAID_GARCH_SE_CLASSIC)

raid_status raid_garch_spec_set_window(raid_garch_spec *sp, raid_garch_window kind, int64_t n, int64_t step)
{
    if (!sp)
        return raidFail(NULL, RAID_EINVAL, "raid_garch_spec_set_window: NULL spec");
    if ((unsigned)kind > RAID_GARCH_EXPANDING || (kind != RAID_GARCH_FULL && (n < RAID_GARCH_MIN_T || n > INT32_MAX)) ||
        step < 1 || step > INT32_MAX)
        return raidFail(NULL, RAID_EINVAL, "bad window (kind %d, %lld returns, step %lld: expected %d to 2147483647 "
                         "returns and a step from 1 to 2147483647)", (int)kind, (long long)n, (long long)step,
                         RAID_GARCH_MIN_T);
    sp->win_kind = (int)kind;
    sp->win = kind == RAID_GARCH_FULL ? 0 : n;
    sp->step = step;
    return RAID_OK;
}

raid_status raid_garch_spec_set_max_iter(raid_garch_spec *sp, int max_iter)
{
    if (!sp || max_iter < 1 || max_iter > 100000)
        return raidFail(NULL, RAID_EINVAL, "bad iteration limit %d (expected 1 to 100000)", max_iter);
    sp->max_iter = max_iter;
    return RAID_OK;
}

/* Getters: a NULL spec gives -1 as an enum, 0 as a number. */
raid_garch_model raid_garch_spec_model(const raid_garch_spec *sp) { return sp ? (raid_garch_model)sp->model : (raid_garch_model)-1; }
raid_garch_dist raid_garch_spec_dist(const raid_garch_spec *sp) { return sp ? (raid_garch_dist)sp->dist : (raid_garch_dist)-1; }
raid_garch_mean raid_garch_spec_mean(const raid_garch_spec *sp) { return sp ? (raid_garch_mean)sp->mean : (raid_garch_mean)-1; }
raid_garch_init raid_garch_spec_init(const raid_garch_spec *sp) { return sp ? (raid_garch_init)sp->init : (raid_garch_init)-1; }
raid_garch_ez raid_garch_spec_ez(const raid_garch_spec *sp) { return sp ? (raid_garch_ez)sp->ez : (raid_garch_ez)-1; }
raid_garch_se raid_garch_spec_se(const raid_garch_spec *sp) { return sp ? (raid_garch_se)sp->se : (raid_garch_se)-1; }
raid_garch_window raid_garch_spec_window(const raid_garch_spec *sp)
{
    return sp ? (raid_garch_window)sp->win_kind : (raid_garch_window)-1;
}
int64_t raid_garch_spec_window_n(const raid_garch_spec *sp) { return sp ? sp->win : 0; }
int64_t raid_garch_spec_window_step(const raid_garch_spec *sp) { return sp ? sp->step : 0; }
int raid_garch_spec_max_iter(const raid_garch_spec *sp) { return sp ? sp->max_iter : 0; }

RaidGarchLikSpec raidGarchLikSpec(const raid_garch_spec *sp)
{
    RaidGarchLikSpec ls;
    ls.model = sp->model == RAID_GARCH_GJR ? RAID_GARCH_LIK_GJR
               : sp->model == RAID_GARCH_EGARCH ? RAID_GARCH_LIK_EGARCH : RAID_GARCH_LIK_GARCH;
    ls.dist = sp->dist == RAID_GARCH_T ? RAID_GARCH_LIK_T : RAID_GARCH_LIK_NORMAL;
    ls.mean = sp->mean == RAID_GARCH_MEAN_ZERO ? RAID_GARCH_LIK_MEAN_ZERO : RAID_GARCH_LIK_MEAN_CONSTANT;
    ls.init = sp->init == RAID_GARCH_INIT_SAMPLE ? RAID_GARCH_LIK_INIT_SAMPLE : RAID_GARCH_LIK_INIT_BACKCAST;
    ls.ez = sp->ez == RAID_GARCH_EZ_DIST ? RAID_GARCH_LIK_EZ_DIST : RAID_GARCH_LIK_EZ_SQRT2PI;
    return ls;
}

int raidGarchSlots(const raid_garch_spec *sp, int slot[RAID_GARCH_MAXPAR])
{
    int k = 0;
    if (sp->mean == RAID_GARCH_MEAN_CONSTANT)
        slot[k++] = 0;
    slot[k++] = 1;
    slot[k++] = 2;
    if (sp->model != RAID_GARCH_GARCH)
        slot[k++] = 3;
    slot[k++] = 4;
    if (sp->dist == RAID_GARCH_T)
        slot[k++] = 5;
    return k;
}

int raid_garch_spec_k(const raid_garch_spec *sp)
{
    int slot[RAID_GARCH_MAXPAR];
    return sp ? raidGarchSlots(sp, slot) : 0;
}

const char *raid_garch_spec_param_name(const raid_garch_spec *sp, int j)
{
    static const char *const names[RAID_GARCH_MAXPAR] = {"mu", "omega", "alpha", "gamma", "beta", "nu"};
    int slot[RAID_GARCH_MAXPAR];
    return sp && j >= 0 && j < raidGarchSlots(sp, slot) ? names[slot[j]] : NULL;
}
