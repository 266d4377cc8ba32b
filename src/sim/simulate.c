/* Simulation of intraday log prices: log-OU stochastic volatility with leverage, compound Poisson jumps
 * and i.i.d. Gaussian microstructure noise (docs/simulate.md).
 *
 * Random numbers: xoshiro256** seeded through splitmix64 (D. Blackman and S. Vigna, "Scrambled linear
 * pseudorandom number generators", 2018; https://prng.di.unimi.it/), normals by the Marsaglia polar
 * method. Every (symbol, component) pair has its own stream derived from (seed, symbol, component), so
 * the output depends only on the options, never on the thread count or on the order of the work. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "core/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------- */
/* PRNG                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

typedef struct sim_rng {
    uint64_t s[4];
    double spare;   /* second normal of the last polar pair */
    int has_spare;
} sim_rng;


static inline uint64_t sim_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t sim_next(sim_rng *g)
{
    uint64_t *s = g->s;
    const uint64_t result = sim_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sim_rotl(s[3], 45);
    return result;
}

/* Stream for (seed, symbol, component): a splitmix64 sequence started at a hash of the three. */
enum { SIM_STREAM_DIFFUSION = 0, SIM_STREAM_JUMPS = 1, SIM_STREAM_NOISE = 2, SIM_STREAM_INIT = 3 };

static void sim_rng_seed(sim_rng *g, uint64_t seed, uint64_t symbol, uint64_t component)
{
    uint64_t x = seed;
    uint64_t a = raidSplitmix64(&x);
    x = a ^ (symbol * UINT64_C(0xD1B54A32D192ED03));
    uint64_t b = raidSplitmix64(&x);
    x = b ^ (component * UINT64_C(0x8CB92BA72F3D8DD7));
    for (int i = 0; i < 4; i++)
        g->s[i] = raidSplitmix64(&x);
    g->has_spare = 0;
    g->spare = 0.0;
}

/* Uniform on (0, 1): 53 random bits, never 0. */
static inline double sim_uniform_pos(sim_rng *g)
{
    return ((double)(sim_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

/* Uniform on (-1, 1). */
static inline double sim_uniform_sym(sim_rng *g)
{
    return ((double)(sim_next(g) >> 11) + 0.5) * 0x1.0p-52 - 1.0;
}

/* Standard normal, Marsaglia polar method. */
static double sim_normal(sim_rng *g)
{
    if (g->has_spare) {
        g->has_spare = 0;
        return g->spare;
    }
    double u, v, s;
    do {
        u = sim_uniform_sym(g);
        v = sim_uniform_sym(g);
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    g->spare = v * f;
    g->has_spare = 1;
    return u * f;
}

/* ---------------------------------------------------------------------------------------------- */
/* Model                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

void raid_sim_opts_init(raid_sim_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->nsymbols = 1;
    o->ndays = 1;
    o->obs_per_day = 23401;
    o->mean_var = 1e-4;
    o->vol_of_logvar = 0.5;
    o->mean_reversion = 0.2;
    o->rho = -0.5;
    o->jump_rate = 0.1;
    o->jump_sd = 0.005;
    o->noise_sd = 0.0;
    o->start_price = 100.0;
}

/* Validate; on failure write a message to buf (may be NULL). */
static raid_status sim_validate(const raid_sim_opts *o)
{
    if (!o)
        return raidFail(NULL, RAID_EINVAL, "simulate: NULL options");
#define SIM_BAD(...) return raidFail(NULL, RAID_EINVAL, __VA_ARGS__)
    if (o->nsymbols < 1)
        SIM_BAD("simulate: symbols must be >= 1 (got %d)", o->nsymbols);
    if (o->ndays < 1)
        SIM_BAD("simulate: days must be >= 1 (got %d)", o->ndays);
    if (o->obs_per_day < 2)
        SIM_BAD("simulate: observations per day must be >= 2 (got %lld)", (long long)o->obs_per_day);
    if (!(isfinite(o->mean_var) && o->mean_var > 0))
        SIM_BAD("simulate: mean variance must be finite and > 0 (got %g)", o->mean_var);
    if (!(isfinite(o->vol_of_logvar) && o->vol_of_logvar >= 0))
        SIM_BAD("simulate: vol of log variance must be finite and >= 0 (got %g)", o->vol_of_logvar);
    if (!(isfinite(o->mean_reversion) && o->mean_reversion >= 0))
        SIM_BAD("simulate: mean reversion must be finite and >= 0 (got %g)", o->mean_reversion);
    if (!(isfinite(o->rho) && fabs(o->rho) <= 1))
        SIM_BAD("simulate: rho must be in [-1, 1] (got %g)", o->rho);
    if (!(isfinite(o->jump_rate) && o->jump_rate >= 0))
        SIM_BAD("simulate: jump rate must be finite and >= 0 (got %g)", o->jump_rate);
    if (!(isfinite(o->jump_sd) && o->jump_sd >= 0))
        SIM_BAD("simulate: jump sd must be finite and >= 0 (got %g)", o->jump_sd);
    if (!(isfinite(o->noise_sd) && o->noise_sd >= 0))
        SIM_BAD("simulate: noise sd must be finite and >= 0 (got %g)", o->noise_sd);
    if (!(isfinite(o->start_price) && o->start_price > 0))
        SIM_BAD("simulate: start price must be finite and > 0 (got %g)", o->start_price);
    /* The total number of returns must fit in size_t and int64. */
    uint64_t per = (uint64_t)(o->obs_per_day - 1);
    uint64_t segs = (uint64_t)o->nsymbols * (uint64_t)o->ndays;
    uint64_t lim = (uint64_t)INT64_MAX / sizeof(double);
    if (per > lim / segs || per * segs > (uint64_t)SIZE_MAX / sizeof(double))
        SIM_BAD("simulate: %llu x %llu returns is too many", (unsigned long long)segs,
                (unsigned long long)per);
#undef SIM_BAD
    return RAID_OK;
}

/* The state of one symbol. Time is in days; one day is [0, 1] on a grid of n = obs_per_day-1 steps. */
typedef struct sim_sym {
    sim_rng diff, jump, noise;
    int64_t n;          /* steps per day */
    double dt;          /* 1/n */
    double mu;          /* log(mean_var) */
    double a;           /* exp(-kappa dt): OU autoregression per step */
    double b;           /* conditional sd of h over one step */
    double rho, rho_c;  /* rho, sqrt(1 - rho^2) */
    double jump_rate, jump_sd, noise_sd;
    double h;           /* current log variance */
    double x;           /* current efficient log price (relative to start) */
    /* per day */
    double next_jump_t; /* time of the next jump in the current day, >= 1 if none */
    int64_t step;       /* steps done in the current day */
    double iv;          /* integrated variance of the current day so far */
} sim_sym;

static void sim_sym_init(sim_sym *S, const raid_sim_opts *o, int symbol)
{
    memset(S, 0, sizeof *S);
    sim_rng_seed(&S->diff, o->seed, (uint64_t)symbol, SIM_STREAM_DIFFUSION);
    sim_rng_seed(&S->jump, o->seed, (uint64_t)symbol, SIM_STREAM_JUMPS);
    sim_rng_seed(&S->noise, o->seed, (uint64_t)symbol, SIM_STREAM_NOISE);
    S->n = o->obs_per_day - 1;
    S->dt = 1.0 / (double)S->n;
    S->mu = log(o->mean_var);
    double k = o->mean_reversion, s = o->vol_of_logvar;
    /* Exact OU transition over dt; the Brownian (kappa = 0) limit is s^2 dt. */
    S->a = exp(-k * S->dt);
    double kdt = k * S->dt;
    double var = (kdt > 1e-8) ? s * s * (-expm1(-2.0 * kdt)) / (2.0 * k) : s * s * S->dt * (1.0 - kdt);
    S->b = sqrt(var);
    S->rho = o->rho;
    S->rho_c = sqrt(fmax(0.0, 1.0 - o->rho * o->rho));
    S->jump_rate = o->jump_rate;
    S->jump_sd = o->jump_sd;
    S->noise_sd = o->noise_sd;
    /* h_0: a draw from the stationary law N(mu, s^2/(2 kappa)) when kappa > 0, else mu. */
    S->h = S->mu;
    if (k > 0 && s > 0) {
        sim_rng init;
        sim_rng_seed(&init, o->seed, (uint64_t)symbol, SIM_STREAM_INIT);
        S->h = S->mu + s / sqrt(2.0 * k) * sim_normal(&init);
    }
    S->x = 0.0;
}

static inline double sim_next_arrival(sim_sym *S, double t)
{
    if (S->jump_rate <= 0)
        return 2.0;
    return t - log(sim_uniform_pos(&S->jump)) / S->jump_rate;
}

/* Start a new day: first jump time; returns the observed log price of the day's first observation. */
static double sim_day_begin(sim_sym *S)
{
    S->step = 0;
    S->iv = 0.0;
    S->next_jump_t = sim_next_arrival(S, 0.0);
    double y = S->x;
    if (S->noise_sd > 0)
        y += S->noise_sd * sim_normal(&S->noise);
    return y;
}

/* One step of the grid: returns the observed log price at the end of the step. */
static inline double sim_step(sim_sym *S)
{
    int64_t i = ++S->step; /* the step covers ((i-1) dt, i dt] */
    double zb = sim_normal(&S->diff);
    double zp = sim_normal(&S->diff);
    double zw = S->rho * zb + S->rho_c * zp;
    double v = exp(S->h); /* left point */
    S->iv += v * S->dt;
    S->x += sqrt(v * S->dt) * zw;
    S->h = S->mu + S->a * (S->h - S->mu) + S->b * zb;
    /* Jumps whose time falls in this step's interval (the last step also takes [1 - dt, 1)). */
    double t_end = (double)i * S->dt;
    while (S->next_jump_t < 1.0 && (S->next_jump_t < t_end || i == S->n)) {
        S->x += S->jump_sd * sim_normal(&S->jump);
        S->next_jump_t = sim_next_arrival(S, S->next_jump_t);
    }
    double y = S->x;
    if (S->noise_sd > 0)
        y += S->noise_sd * sim_normal(&S->noise);
    return y;
}

/* Both outputs' failure when the model leaves float64 (extreme variance, jump or noise options). */
#define SIM_OUT_OF_RANGE                                                                                       \
    "simulate: a price left the range of float64 (positive and finite); the variance, jump or noise parameters " \
    "are too large"

raid_status raid_simulate_returns(const raid_sim_opts *o, double *r, double *iv)
{
    raid_status st = sim_validate(o);
    if (st != RAID_OK)
        return st;
    if (!r)
        return raidFail(NULL, RAID_EINVAL, "simulate: the returns array is NULL");
    const int64_t n = o->obs_per_day - 1;
    const int nsym = o->nsymbols;
    const raid_sim_opts oc = *o;
#ifdef _OPENMP
    _Pragma("omp parallel for schedule(dynamic, 1)")
#endif
    for (int s = 0; s < nsym; s++) {
        sim_sym S;
        sim_sym_init(&S, &oc, s);
        for (int d = 0; d < oc.ndays; d++) {
            size_t seg = (size_t)s * (size_t)oc.ndays + (size_t)d;
            double *rr = r + seg * (size_t)n;
            double prev = sim_day_begin(&S);
            for (int64_t i = 0; i < n; i++) {
                double y = sim_step(&S);
                rr[i] = y - prev;
                prev = y;
            }
            if (iv)
                iv[seg] = S.iv;
        }
    }
    /* A log price that overflowed gives an infinite or NaN return (or iv): the CSV's prices would have left
     * float64 too, and raid_simulate_csv refuses them with the same message. */
    const size_t total = (size_t)nsym * (size_t)oc.ndays;
    for (size_t i = 0; i < total * (size_t)n; i++)
        if (!isfinite(r[i]))
            return raidFail(NULL, RAID_EINVAL, "%s", SIM_OUT_OF_RANGE);
    for (size_t i = 0; iv && i < total; i++)
        if (!isfinite(iv[i]))
            return raidFail(NULL, RAID_EINVAL, "%s", SIM_OUT_OF_RANGE);
    return RAID_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* CSV output                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/* Days since 1970-01-01 of a civil date and back (H. Hinnant's algorithms). */
static int64_t sim_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void sim_civil_from_days(int64_t z, int *yy, int *mm, int *dd)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t y = (int64_t)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    *yy = (int)(y + (m <= 2));
    *mm = (int)m;
    *dd = (int)d;
}

#define SIM_SESSION_US INT64_C(23400000000) /* 09:30:00 to 16:00:00 */
#define SIM_OPEN_US INT64_C(34200000000)    /* 09:30:00 after midnight */

/* raid_simulate_csv, the rows written reported to ctx's progress (NULL: none); messages in raid_errmsg(). */
static raid_status simulate_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path, const char *iv_path)
{
    raid_status st = sim_validate(o);
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
        int64_t day = sim_days_from_civil(2020, 1, 2);
        for (int d = 0; d < o->ndays; d++) {
            if (d > 0) {
                day++;
                while ((day + 3) % 7 >= 5)
                    day++;
            }
            sim_civil_from_days(day, &ymd[d][0], &ymd[d][1], &ymd[d][2]);
        }
    }

    if (iv_path && !strcmp(iv_path, prices_path)) {
        free(ymd);
        return raidFail(NULL, RAID_EINVAL, "simulate: the prices and iv files are the same file '%s'",
                         RAID_SHOWZ(iv_path));
    }
    raid_outfile pf, vf;
    memset(&vf, 0, sizeof vf);
    st = raidOutfileOpen(&pf, prices_path);
    if (st != RAID_OK) {
        free(ymd);
        return st;
    }
    setvbuf(pf.fp, NULL, _IOFBF, 1 << 20);
    if (iv_path) {
        st = raidOutfileOpen(&vf, iv_path);
        if (st != RAID_OK) {
            raidOutfileAbort(&pf);
            free(ymd);
            return st;
        }
        fputs("symbol,date,iv\n", vf.fp);
    }
    fputs("symbol,timestamp,price\n", pf.fp);

    const double p0 = o->start_price;
    int bad_price = 0;
    for (int s = 0; s < o->nsymbols && !ferror(pf.fp) && !bad_price; s++) {
        char sym[16];
        snprintf(sym, sizeof sym, "S%04d", s + 1);
        sim_sym S;
        sim_sym_init(&S, o, s);
        for (int d = 0; d < o->ndays && !ferror(pf.fp) && !bad_price; d++) {
            char date[16];
            snprintf(date, sizeof date, "%04d-%02d-%02d", ymd[d][0], ymd[d][1], ymd[d][2]);
            double y = sim_day_begin(&S);
            int64_t t_us = SIM_OPEN_US, acc = n / 2; /* t_i = open + round(i * session / n) */
            for (int64_t i = 0; i <= n; i++) {
                if (i > 0) {
                    y = sim_step(&S);
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
                int64_t secs = t_us / 1000000, us = t_us % 1000000;
                int hh = (int)(secs / 3600), mi = (int)(secs / 60 % 60), ss = (int)(secs % 60);
                int rc;
                char pt[RAID_F64_TEXT];
                raidF64Text(pt, price); /* the shortest text that reads back as the price */
                if (whole_seconds)
                    rc = fprintf(pf.fp, "%s,%sT%02d:%02d:%02d,%s\n", sym, date, hh, mi, ss, pt);
                else
                    rc = fprintf(pf.fp, "%s,%sT%02d:%02d:%02d.%06d,%s\n", sym, date, hh, mi, ss, (int)us, pt);
                if (rc < 0)
                    break;
            }
            if (vf.fp) {
                char it[RAID_F64_TEXT];
                fprintf(vf.fp, "%s,%s,%s\n", sym, date, raidF64Text(it, S.iv));
            }
            raidProgress(ctx, ((uint64_t)s * (uint64_t)o->ndays + (uint64_t)d + 1) * (uint64_t)(n + 1),
                          (uint64_t)o->nsymbols * (uint64_t)o->ndays * (uint64_t)(n + 1), "rows");
        }
    }
    free(ymd);
    if (bad_price) {
        raidOutfileAbort(&pf);
        raidOutfileAbort(&vf);
        return raidFail(NULL, RAID_EINVAL, "%s", SIM_OUT_OF_RANGE);
    }
    /* Both closed (every write checked) before either is renamed: a full disk while the prices were written
     * left the iv file behind when each was committed in turn. */
    if ((iv_path && (st = raidOutfileCloseChecked(&vf)) != RAID_OK) ||
        (st = raidOutfileCloseChecked(&pf)) != RAID_OK || (iv_path && (st = raidOutfileCommit(&vf)) != RAID_OK)) {
        raidOutfileAbort(&pf);
        raidOutfileAbort(&vf);
        return st;
    }
    return raidOutfileCommit(&pf);
}

raid_status raid_simulate_csv(const raid_sim_opts *o, const char *prices_path, const char *iv_path)
{
    return simulate_csv(NULL, o, prices_path, iv_path);
}

raid_status raid_simulate_run_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path, const char *iv_path)
{
    const raid_status st = simulate_csv(ctx, o, prices_path, iv_path);
    return st == RAID_OK || !ctx ? st : raidFail(ctx, st, "%s", raid_errmsg());
}
