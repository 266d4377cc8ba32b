/* HAR inside the library: the handles of include/raid/har.h and what its files share
 * (har_spec.c: names and specification; har_design.c: the design of one series; har_input.c: the input
 * series; har_fit.c: the estimation; har_result.c: the result's accessors;
 * src/jobs/har.c: the CSV reader and the result's CSV writers). */
#ifndef RAID_MODELS_HAR_INTERNAL_H
#define RAID_MODELS_HAR_INTERNAL_H

#include "raid.h"
#include "core/strlist.h"
#include "io/symtab.h"
#include "models/loss.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define HAR_NAME_LEN 24

struct raid_har_spec {
    int model, transform, h;
    int nlags, lags[RAID_HAR_MAX_LAGS];
    double alpha;        /* jump significance of har-cj: jump_p < alpha */
    raid_se_kind se;
    int64_t nw_lag;      /* -1: the rule */
    int win_kind;        /* raid_har_window */
    int64_t win;         /* window rows (0 for full) */
    char names[RAID_REG_MAX_K + RAID_HAR_MAX_LAGS][HAR_NAME_LEN]; /* coefficient names (raidHarSpecNames) */
};

/* One symbol's series as added (copies). */
typedef struct har_in_sym {
    char *name;
    size_t n;
    char **dates;     /* n strings, in one allocation with their text */
    double *v[4];     /* rv, bpv, rq, jump_p; NULL when absent */
    int64_t *lines;   /* NULL when not given */
} har_in_sym;

struct raid_har_input {
    har_in_sym *sym;
    size_t nsym, cap;
    RaidSymtab names; /* the symbols' names: index q is sym[q] */
    char *path;        /* NULL: messages name rows */
    int date_col;
    char *colname[4];  /* rv, bpv, rq, jump_p */
    RaidStrlist notices; /* of the reading (raid_har_input_notice) */
};

/* The value rules of one day, shared by the CSV reader (src/jobs/har.c, row_check) and
 * raid_har_input_add: the first rule that the day breaks, HAR_DAY_OK when none. date: len bytes (a
 * calendar date YYYY-MM-DD, raidIoParseDate); rv, bpv, rq: not negative (NAN, a missing day, passes;
 * NAN for an absent measure). raidHarDayWhy(r) is the text after the field's name in the message; the
 * field of HAR_DAY_RV + j is measure j (0 rv, 1 bpv, 2 rq). */
enum { HAR_DAY_OK = 0, HAR_DAY_EMPTY, HAR_DAY_DATE, HAR_DAY_RV, HAR_DAY_BPV, HAR_DAY_RQ };
int raidHarDayCheck(const char *date, size_t len, double rv, double bpv, double rq);
const char *raidHarDayWhy(int r);

struct raid_har_result {
    raid_har_spec spec;
    int k;
    size_t nsym, nok;
    char **sym;          /* names */
    raid_status *status;
    int ran;             /* some symbol's design was usable: the estimation ran (the losses table shows) */
    RaidLoss *loss;     /* per symbol (windows) */
    int *loss_ok;        /* per symbol: design usable */
    /* messages */
    char **msg;
    size_t *msg_sym;
    size_t nmsg, msgcap;
    /* coefficient rows */
    size_t nrows, rowcap;
    int64_t *row_sym, *row_n;
    char **row_end;      /* NULL for full-sample rows */
    double *r2, *r2_adj, *beta, *se, *tstat;
    /* forecasts */
    size_t nfc, fccap;
    int64_t *fc_sym;
    char **fc_date;
    double *fc, *act, *sqe, *ql;
};

/* Fill spec->names from the model and lags; returns k. */
int raidHarSpecNames(raid_har_spec *sp);
/* The number of design columns. */
int raidHarK(const raid_har_spec *sp);

/* The design of one series (see raid_har_design): returns the row count, or (size_t)-1 when out of
 * memory. bad: the first missing or invalid day (n if none). */
size_t raidHarDesign(const raid_har_spec *sp, size_t n, const double *rv, const double *bpv, const double *rq,
                  const double *jump_p, double *X, double *y, size_t *tix, size_t *bad);

/* The inverse of the transform (the naive back-transform of a forecast). */
double raidHarFinv(int transform, double v);

/* Result building (har_result.c): each returns RAID_OK or RAID_ENOMEM. */
raid_status raidHarResultInit(raid_har_result *res, const raid_har_spec *sp, const raid_har_input *in);
raid_status raidHarResultMsg(raid_har_result *res, size_t sym, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
raid_status raidHarResultRow(raid_har_result *res, size_t sym, const char *end, const raid_ols *o);
raid_status raidHarResultFc(raid_har_result *res, size_t sym, const char *date, double fc, double act, double sq,
                          double ql);

#endif
