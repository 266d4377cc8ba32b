/* The simulator's CSV job (raid simulate; raid_simulate_csv, raid_simulate_run_csv and
 * raid_simulate_cov_csv of include/raid/simulate.h, docs/simulate.md): each symbol's path from the
 * simulator (src/sim/simulate.c) written as prices on a grid of business days and session times (or, for
 * correlated symbols and trading times, the symbols stepped together and written day by day in time
 * order), the days' integrated variances and covariances, every file written whole or not at all
 * (raid_outfile); and the reader of a correlation matrix (raid_simulate_read_corr). */
#define _POSIX_C_SOURCE 200809L
#include "core/outfile.h"
#include "io/table.h"
#include "io/tz.h"
#include "sim/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- */
/* CSV output                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

#define SIM_SESSION_US INT64_C(23400000000) /* 09:30:00 to 16:00:00 */
#define SIM_OPEN_US INT64_C(34200000000)    /* 09:30:00 after midnight */

/* One price row: the time t_us after midnight, with microseconds unless whole_seconds. fprintf's status. */
static int put_price(FILE *f, const char *sym, const char *date, int64_t t_us, int whole_seconds, double price)
{
    int64_t secs = t_us / 1000000, us = t_us % 1000000;
    int hh = (int)(secs / 3600), mi = (int)(secs / 60 % 60), ss = (int)(secs % 60);
    char pt[RAID_F64_TEXT];
    raidF64Text(pt, price); /* the shortest text that reads back as the price */
    if (whole_seconds)
        return fprintf(f, "%s,%sT%02d:%02d:%02d,%s\n", sym, date, hh, mi, ss, pt);
    return fprintf(f, "%s,%sT%02d:%02d:%02d.%06d,%s\n", sym, date, hh, mi, ss, (int)us, pt);
}

static void sym_name(char *buf, size_t n, int s)
{
    snprintf(buf, n, "S%04d", s + 1);
}

/* One observation of the joint model's day: time after the open, the order it was drawn in, symbol, log
 * price. */
typedef struct sim_obs {
    int64_t t_us;
    uint64_t seq;
    int sym;
    double y;
} sim_obs;

static int obs_cmp(const void *pa, const void *pb)
{
    const sim_obs *a = pa, *b = pb;
    if (a->t_us != b->t_us)
        return a->t_us < b->t_us ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct sim_obsbuf {
    sim_obs *v;
    size_t n, cap;
} sim_obsbuf;

static int obs_push(sim_obsbuf *b, int64_t t_us, int sym, double y)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        sim_obs *v = realloc(b->v, cap * sizeof *v);
        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n] = (sim_obs){t_us, (uint64_t)b->n, sym, y};
    b->n++;
    return 0;
}

/* buf's observations in time order (ties in the order drawn) as price rows of day `date`; -1 when a write
 * fails, 1 when a price leaves float64 (absurd parameters: nothing more is written), else 0. */
static int flush_obs(FILE *pf, sim_obsbuf *buf, char (*names)[16], const char *date, int whole_seconds, double p0)
{
    if (buf->n > 1)
        qsort(buf->v, buf->n, sizeof *buf->v, obs_cmp);
    for (size_t m = 0; m < buf->n; m++) {
        const double price = p0 * exp(buf->v[m].y);
        if (!(price > 0) || !isfinite(price))
            return 1;
        if (put_price(pf, names[buf->v[m].sym], date, SIM_OPEN_US + buf->v[m].t_us, whole_seconds, price) < 0)
            return -1;
    }
    buf->n = 0;
    return 0;
}

/* The joint model's days (docs/simulate.md "Correlated symbols"): each day its rows in time order, the
 * symbols interleaved; every grid point of every symbol, or with trade rates each symbol's open, Poisson
 * trades and close; the truth file's rows after each day; the days' integrated variances into ivs
 * (symbol-major). *bad_price set when a price leaves float64. */
static raid_status write_joint(raid_ctx *ctx, RaidSimJoint *J, const raid_sim_opts *o, int (*ymd)[3], FILE *pf,
                               FILE *cf, double *ivs, int *bad_price)
{
    const int64_t n = o->obs_per_day - 1;
    const int nsym = o->nsymbols;
    const int async = o->trade_rate > 0 || o->trade_rates;
    const int whole_seconds = !async && (23400 % n) == 0;
    const int64_t q = SIM_SESSION_US / n, rem = SIM_SESSION_US % n;
    const double p0 = o->start_price;
    const size_t np = raid_sim_cov_size(nsym);
    /* Trades are drawn and written a window of time at a time, each window about 2^16 trades of all symbols
     * at the expected rate: the memory stays bounded at any rate and grid (with --obs 2 and 2,000 trades a
     * second a day's trades took 3 GB). A window's rows are sorted by time, ties in the order drawn (symbol,
     * then draw): the same rows in the same order as one sort of the whole interval, since windows split
     * only between times. */
    double rate = 0.0;
    for (int s = 0; async && s < nsym; s++)
        rate += o->trade_rates ? o->trade_rates[s] : o->trade_rate;
    const double wd = rate > 0 ? 65536.0e6 / rate : 0.0;
    const int64_t win = !async ? 0 : wd >= (double)SIM_SESSION_US ? SIM_SESSION_US + 1 : wd < 1.0 ? 1 : (int64_t)wd;
    double *cov = cf ? malloc(np * sizeof *cov) : NULL;
    double *tnext = async ? malloc((size_t)nsym * sizeof *tnext) : NULL;
    char(*names)[16] = malloc((size_t)nsym * sizeof *names);
    sim_obsbuf buf = {0};
    raid_status st = RAID_OK;
    if ((cf && !cov) || (async && !tnext) || !names)
        st = raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
    for (int s = 0; st == RAID_OK && s < nsym; s++)
        sym_name(names[s], sizeof names[s], s);
    for (int d = 0; st == RAID_OK && d < o->ndays && !*bad_price; d++) {
        char date[16];
        snprintf(date, sizeof date, "%04d-%02d-%02d", ymd[d][0], ymd[d][1], ymd[d][2]);
        raidSimJointDayBegin(J);
        for (int s = 0; async && s < nsym; s++)
            tnext[s] = raidSimNextTrade(&J->sym[s], 0.0);
        int64_t g = 0, acc = n / 2; /* grid point i after the open: round(i * session / n) */
        for (int64_t i = 0; i <= n && st == RAID_OK && !*bad_price; i++) {
            if (i > 0) {
                raidSimJointStep(J);
                g += q;
                acc += rem;
                if (acc >= n) {
                    g++;
                    acc -= n;
                }
            }
            int f = 0;
            if (!async) {
                for (int s = 0; s < nsym && st == RAID_OK; s++)
                    if (obs_push(&buf, g, s, raidSimObserve(&J->sym[s])))
                        st = raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
                if (st == RAID_OK)
                    f = flush_obs(pf, &buf, names, date, whole_seconds, p0);
            } else {
                /* The trades before the next grid point (the close included at the last) see this point's
                 * efficient price, [g, gn) a window at a time. */
                const int64_t gn = i < n ? g + q + (acc + rem >= n) : SIM_SESSION_US + 1;
                for (int64_t w0 = g; w0 < gn && st == RAID_OK && !f; w0 += win) {
                    const int64_t w1 = gn - w0 > win ? w0 + win : gn;
                    for (int s = 0; s < nsym && st == RAID_OK; s++) {
                        RaidSimSym *S = &J->sym[s];
                        if (i == 0 && w0 == g && obs_push(&buf, 0, s, raidSimObserve(S))) /* the open */
                            st = raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
                        while (st == RAID_OK && tnext[s] < SIM_SESSION_US / 1e6) {
                            const int64_t t = (int64_t)floor(tnext[s] * 1e6); /* <= the close */
                            if (t >= w1)
                                break;
                            if (obs_push(&buf, t, s, raidSimObserve(S)))
                                st = raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
                            tnext[s] = raidSimNextTrade(S, tnext[s]);
                        }
                        if (st == RAID_OK && i == n && w1 == gn && obs_push(&buf, SIM_SESSION_US, s, raidSimObserve(S)))
                            st = raidFail(NULL, RAID_ENOMEM, "simulate: out of memory"); /* the close */
                    }
                    if (st == RAID_OK)
                        f = flush_obs(pf, &buf, names, date, whole_seconds, p0);
                }
            }
            if (f > 0)
                *bad_price = 1; /* absurd parameters: say so, write nothing more */
            else if (f < 0)
                st = raidFail(NULL, RAID_EIO, "simulate: cannot write the prices");
        }
        if (st != RAID_OK || *bad_price)
            break;
        for (int s = 0; ivs && s < nsym; s++)
            ivs[(size_t)s * (size_t)o->ndays + (size_t)d] = J->sym[s].iv;
        if (cf) {
            raidSimJointCov(J, cov);
            size_t m = 0;
            for (int a = 0; a < nsym && !*bad_price; a++)
                for (int b = a; b < nsym; b++, m++) {
                    char vt[RAID_F64_TEXT];
                    if (!isfinite(cov[m])) {
                        *bad_price = 1;
                        break;
                    }
                    fprintf(cf, "%s,%s,%s,%s\n", date, names[a], names[b], raidF64Text(vt, cov[m]));
                }
        }
        raidProgress(ctx, (uint64_t)d + 1, (uint64_t)o->ndays, "days");
    }
    free(buf.v);
    free(names);
    free(tnext);
    free(cov);
    return st;
}

/* raid_simulate_cov_csv, the rows (or days) written reported to ctx's progress (NULL: none); messages in
 * raid_errmsg(). */
static raid_status simulate_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path, const char *iv_path,
                                const char *cov_path)
{
    raid_status st = raidSimValidate(o);
    if (st != RAID_OK)
        return st;
    if (!prices_path || !*prices_path)
        return raidFail(NULL, RAID_EINVAL, "simulate: no output path");
    const int64_t n = o->obs_per_day - 1;
    if (n > SIM_SESSION_US)
        return raidFail(NULL, RAID_EINVAL, "simulate: %lld observations per day are closer than 1 microsecond",
                         (long long)o->obs_per_day);
    const int whole_seconds = (23400 % n) == 0;
    const int64_t q = SIM_SESSION_US / n, rem = SIM_SESSION_US % n;

    /* Dates of the days. */
    int (*ymd)[3] = malloc((size_t)o->ndays * sizeof *ymd);
    if (!ymd)
        return raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
    {
        /* 1970-01-01 was a Thursday: the weekday (0 = Monday) of a day z is (z + 3) mod 7. */
        int64_t day = raidIoDaysFromCivil(2020, 1, 2);
        for (int d = 0; d < o->ndays; d++) {
            if (d > 0) {
                day++;
                while ((day + 3) % 7 >= 5)
                    day++;
            }
            int64_t y;
            raidIoCivilFromDays(day, &y, &ymd[d][1], &ymd[d][2]);
            ymd[d][0] = (int)y;
        }
    }

    if (iv_path && !strcmp(iv_path, prices_path)) {
        free(ymd);
        return raidFail(NULL, RAID_EINVAL, "simulate: the prices and iv files are the same file '%s'",
                         RAID_SHOWZ(iv_path));
    }
    if (cov_path && (!strcmp(cov_path, prices_path) || (iv_path && !strcmp(cov_path, iv_path)))) {
        free(ymd);
        return raidFail(NULL, RAID_EINVAL, "simulate: the covariance file is the same file as the %s file '%s'",
                         strcmp(cov_path, prices_path) ? "iv" : "prices", RAID_SHOWZ(cov_path));
    }
    /* The joint model's factor before any file is opened: a correlation that is not positive semidefinite
     * leaves no file. The variances are kept for the iv file (symbol-major, as without the joint model) and,
     * without it, for the covariance file. */
    const int joint = raidSimIsJoint(o);
    RaidSimJoint J;
    memset(&J, 0, sizeof J);
    if (joint && (st = raidSimJointInit(&J, o)) != RAID_OK) {
        free(ymd);
        return st;
    }
    double *ivs = NULL;
    if ((joint && iv_path) || (!joint && cov_path)) {
        if ((size_t)o->nsymbols > SIZE_MAX / sizeof *ivs / (size_t)o->ndays ||
            !(ivs = malloc((size_t)o->nsymbols * (size_t)o->ndays * sizeof *ivs))) {
            raidSimJointFree(&J);
            free(ymd);
            return raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
        }
    }
    raid_outfile pf, vf, cf;
    memset(&vf, 0, sizeof vf);
    memset(&cf, 0, sizeof cf);
    st = raidOutfileOpen(&pf, prices_path);
    if (st == RAID_OK) {
        setvbuf(pf.fp, NULL, _IOFBF, 1 << 20);
        if (iv_path && (st = raidOutfileOpen(&vf, iv_path)) == RAID_OK)
            fputs("symbol,date,iv\n", vf.fp);
        if (st == RAID_OK && cov_path && (st = raidOutfileOpen(&cf, cov_path)) == RAID_OK) {
            setvbuf(cf.fp, NULL, _IOFBF, 1 << 20);
            fputs("date,symbol_i,symbol_j,value\n", cf.fp);
        }
        if (st != RAID_OK) {
            raidOutfileAbort(&pf);
            raidOutfileAbort(&vf);
        }
    }
    if (st != RAID_OK) {
        raidSimJointFree(&J);
        free(ivs);
        free(ymd);
        return st;
    }
    fputs("symbol,timestamp,price\n", pf.fp);

    const double p0 = o->start_price;
    int bad_price = 0;
    if (joint)
        st = write_joint(ctx, &J, o, ymd, pf.fp, cf.fp, ivs, &bad_price);
    for (int s = 0; !joint && s < o->nsymbols && !ferror(pf.fp) && !bad_price; s++) {
        char sym[16];
        snprintf(sym, sizeof sym, "S%04d", s + 1);
        RaidSimSym S;
        raidSimSymInit(&S, o, s);
        for (int d = 0; d < o->ndays && !ferror(pf.fp) && !bad_price; d++) {
            char date[16];
            snprintf(date, sizeof date, "%04d-%02d-%02d", ymd[d][0], ymd[d][1], ymd[d][2]);
            double y = raidSimDayBegin(&S);
            int64_t t_us = SIM_OPEN_US, acc = n / 2; /* t_i = open + round(i * session / n) */
            for (int64_t i = 0; i <= n; i++) {
                if (i > 0) {
                    y = raidSimStep(&S);
                    t_us += q;
                    acc += rem;
                    if (acc >= n) {
                        t_us++;
                        acc -= n;
                    }
                }
                const double price = p0 * exp(y);
                if (!(price > 0) || !isfinite(price)) { /* absurd parameters: say so, write nothing */
                    bad_price = 1;
                    break;
                }
                if (put_price(pf.fp, sym, date, t_us, whole_seconds, price) < 0)
                    break;
            }
            if (vf.fp) {
                char it[RAID_F64_TEXT];
                fprintf(vf.fp, "%s,%s,%s\n", sym, date, raidF64Text(it, S.iv));
            }
            if (ivs)
                ivs[(size_t)s * (size_t)o->ndays + (size_t)d] = S.iv;
            raidProgress(ctx, ((uint64_t)s * (uint64_t)o->ndays + (uint64_t)d + 1) * (uint64_t)(n + 1),
                          (uint64_t)o->nsymbols * (uint64_t)o->ndays * (uint64_t)(n + 1), "rows");
        }
    }
    raidSimJointFree(&J);
    /* The joint model's variances, symbol-major as above; the independent symbols' covariances: their
     * variances on the diagonal, 0 off it. */
    const size_t nd = (size_t)o->ndays;
    for (int s = 0; joint && st == RAID_OK && !bad_price && vf.fp && s < o->nsymbols; s++) {
        char sym[16];
        sym_name(sym, sizeof sym, s);
        for (size_t d = 0; d < nd; d++) {
            char it[RAID_F64_TEXT];
            fprintf(vf.fp, "%s,%04d-%02d-%02d,%s\n", sym, ymd[d][0], ymd[d][1], ymd[d][2],
                    raidF64Text(it, ivs[(size_t)s * nd + d]));
        }
    }
    for (size_t d = 0; !joint && st == RAID_OK && !bad_price && cf.fp && d < nd && !ferror(cf.fp); d++)
        for (int a = 0; a < o->nsymbols; a++)
            for (int b = a; b < o->nsymbols; b++) {
                char sa[16], sb[16], it[RAID_F64_TEXT];
                sym_name(sa, sizeof sa, a);
                sym_name(sb, sizeof sb, b);
                fprintf(cf.fp, "%04d-%02d-%02d,%s,%s,%s\n", ymd[d][0], ymd[d][1], ymd[d][2], sa, sb,
                        a == b ? raidF64Text(it, ivs[(size_t)a * nd + d]) : "0");
            }
    free(ymd);
    free(ivs);
    if (bad_price || st != RAID_OK) {
        raidOutfileAbort(&pf);
        raidOutfileAbort(&vf);
        raidOutfileAbort(&cf);
        return bad_price ? raidFail(NULL, RAID_EINVAL, "%s", RAID_SIM_OUT_OF_RANGE) : st;
    }
    /* Every file closed (every write checked) before any is renamed: a full disk while the prices were
     * written left the iv file behind when each was committed in turn. */
    if ((iv_path && (st = raidOutfileCloseChecked(&vf)) != RAID_OK) ||
        (cov_path && (st = raidOutfileCloseChecked(&cf)) != RAID_OK) ||
        (st = raidOutfileCloseChecked(&pf)) != RAID_OK || (iv_path && (st = raidOutfileCommit(&vf)) != RAID_OK) ||
        (cov_path && (st = raidOutfileCommit(&cf)) != RAID_OK)) {
        raidOutfileAbort(&pf);
        raidOutfileAbort(&vf);
        raidOutfileAbort(&cf);
        return st;
    }
    return raidOutfileCommit(&pf);
}

raid_status raid_simulate_csv(const raid_sim_opts *o, const char *prices_path, const char *iv_path)
{
    return simulate_csv(NULL, o, prices_path, iv_path, NULL);
}

raid_status raid_simulate_run_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path, const char *iv_path)
{
    const raid_status st = simulate_csv(ctx, o, prices_path, iv_path, NULL);
    return st == RAID_OK || !ctx ? st : raidFail(ctx, st, "%s", raid_errmsg());
}

raid_status raid_simulate_cov_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path, const char *iv_path,
                                  const char *cov_path)
{
    const raid_status st = simulate_csv(ctx, o, prices_path, iv_path, cov_path);
    return st == RAID_OK || !ctx ? st : raidFail(ctx, st, "%s", raid_errmsg());
}

/* ---------------------------------------------------------------------------------------------- */
/* The correlation matrix                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* The index (0-based) of a symbol named as the simulator names them (S0001 .. SNNNN: "S%04d"), or -1. */
static int sim_symbol_index(const char *s, size_t len, int nsymbols)
{
    if (len < 5 || len > 11 || s[0] != 'S')
        return -1;
    long long v = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > nsymbols)
        return -1;
    char want[16];
    sym_name(want, sizeof want, (int)v - 1);
    return strlen(want) == len && !memcmp(want, s, len) ? (int)v - 1 : -1;
}

raid_status raid_simulate_read_corr(const char *path, int nsymbols, double *corr)
{
    if (!path || !corr)
        return raidFail(NULL, RAID_EINVAL, "raid_simulate_read_corr: NULL argument");
    if (nsymbols < 1)
        return raidFail(NULL, RAID_EINVAL, "raid_simulate_read_corr: symbols must be >= 1 (got %d)", nsymbols);
    const size_t N = (size_t)nsymbols;
    if (N > SIZE_MAX / sizeof *corr / N)
        return raidFail(NULL, RAID_EINVAL, "raid_simulate_read_corr: %d symbols is too many", nsymbols);
    enum { C_I, C_J, C_V, NCOL };
    const RaidTspec spec[NCOL] = {{"symbol_i", "symbol", RAID_T_STRING, 0},
                                  {"symbol_j", "symbol", RAID_T_STRING, 0},
                                  {"value", "correlation", RAID_T_F64, RAID_T_KEEP_TEXT}};
    uint64_t *line = calloc(N * N, sizeof *line); /* where each pair was given (0: not yet) */
    if (!line)
        return raidFail(NULL, RAID_ENOMEM, "raid_simulate_read_corr: out of memory");
    RaidTable *tb = NULL;
    raid_status st = raidTableOpen(&tb, path, spec, NCOL);
    if (st != RAID_OK) {
        free(line);
        return st;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            corr[i * N + j] = i == j ? 1.0 : 0.0;
    RaidTbatch b;
    int done = 0;
    if ((st = raidTbatchInit(&b, tb)) != RAID_OK) {
        raidTableClose(tb);
        free(line);
        return st;
    }
    char last[16];
    sym_name(last, sizeof last, nsymbols - 1);
    while (st == RAID_OK && !done) {
        const raid_status rs = raidTableRead(tb, &b, RAID_TABLE_BLOCK_ROWS, &done);
        for (size_t r = 0; r < b.nrows && st == RAID_OK; r++) {
            int ix[2];
            for (int c = 0; c < 2 && st == RAID_OK; c++) {
                size_t len;
                const char *sy = raidTcolText(&b.col[c], r, &len);
                if ((ix[c] = sim_symbol_index(sy, len, nsymbols)) < 0)
                    st = raidTableFail(tb, b.col[c].line[r], raidTableCol(tb, (size_t)c),
                                         "symbol '%s' is not simulated (the symbols are S0001 to %s)",
                                         RAID_SHOW(sy, len), last);
            }
            if (st != RAID_OK)
                break;
            const double v = b.col[C_V].f64[r];
            const uint64_t ln = b.col[C_V].line[r];
            size_t vlen;
            const char *vt = raidTcolText(&b.col[C_V], r, &vlen);
            const size_t i = (size_t)ix[0], j = (size_t)ix[1];
            if (i == j && v != 1)
                st = raidTableFail(tb, ln, raidTableCol(tb, C_V),
                                     "the correlation of S%04zu with itself must be 1 (got '%s')", i + 1,
                                     RAID_SHOW(vt, vlen));
            else if (!(fabs(v) <= 1))
                st = raidTableFail(tb, ln, raidTableCol(tb, C_V), "correlation '%s' is not in [-1, 1]",
                                     RAID_SHOW(vt, vlen));
            else if (line[i * N + j])
                st = raidTableFail(tb, ln, raidTableCol(tb, C_I),
                                     "the pair (S%04zu, S%04zu) again (first given on line %llu)", i + 1, j + 1,
                                     (unsigned long long)line[i * N + j]);
            else {
                line[i * N + j] = line[j * N + i] = ln;
                corr[i * N + j] = corr[j * N + i] = v;
            }
        }
        if (st == RAID_EPARSE) /* a row of ours: raidTableFail set the message */
            st = raidFail(NULL, st, "%s", raidTableErrmsg(tb));
        else if (st == RAID_OK && rs != RAID_OK)
            st = raidFail(NULL, rs, "%s", raidTableErrmsg(tb));
    }
    for (size_t i = 0; st == RAID_OK && i < N; i++)
        for (size_t j = i + 1; st == RAID_OK && j < N; j++)
            if (!line[i * N + j])
                st = raidFail(NULL, RAID_EPARSE,
                               "%s: the pair (S%04zu, S%04zu) is missing (every pair of the %d symbols needs a row)",
                               RAID_SHOWZ(path), i + 1, j + 1, nsymbols);
    raidTbatchFree(&b);
    raidTableClose(tb);
    free(line);
    return st;
}
