/* Simulation of intraday log prices: log-OU stochastic volatility with leverage, compound Poisson jumps
 * and i.i.d. Gaussian microstructure noise (docs/simulate.md).
 *
 * Random numbers: xoshiro256** seeded through splitmix64 (D. Blackman and S. Vigna, "Scrambled linear
 * pseudorandom number generators", 2018; https://prng.di.unimi.it/), normals by the Marsaglia polar
 * method. Every (symbol, component) pair has its own stream derived from (seed, symbol, component), so
 * the output depends only on the options, never on the thread count or on the order of the work. */
#define _POSIX_C_SOURCE 200809L
#include "sim/sim_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- */
/* PRNG                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

static inline uint64_t sim_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t sim_next(RaidSimRng *g)
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

static void sim_rng_seed(RaidSimRng *g, uint64_t seed, uint64_t symbol, uint64_t component)
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
static inline double sim_uniform_pos(RaidSimRng *g)
{
    return ((double)(sim_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

/* Uniform on (-1, 1). */
static inline double sim_uniform_sym(RaidSimRng *g)
{
    return ((double)(sim_next(g) >> 11) + 0.5) * 0x1.0p-52 - 1.0;
}

/* Standard normal, Marsaglia polar method. */
static double sim_normal(RaidSimRng *g)
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

/* The options checked, each against its documented range (contract: sim/sim_internal.h). */
raid_status raidSimValidate(const raid_sim_opts *o)
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


void raidSimSymInit(RaidSimSym *S, const raid_sim_opts *o, int symbol)
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
        RaidSimRng init;
        sim_rng_seed(&init, o->seed, (uint64_t)symbol, SIM_STREAM_INIT);
        S->h = S->mu + s / sqrt(2.0 * k) * sim_normal(&init);
    }
    S->x = 0.0;
}

static inline double sim_next_arrival(RaidSimSym *S, double t)
{
    if (S->jump_rate <= 0)
        return 2.0;
    return t - log(sim_uniform_pos(&S->jump)) / S->jump_rate;
}

/* Start a new day: first jump time; returns the observed log price of the day's first observation. */
double raidSimDayBegin(RaidSimSym *S)
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
double raidSimStep(RaidSimSym *S)
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


raid_status raid_simulate_returns(const raid_sim_opts *o, double *r, double *iv)
{
    raid_status st = raidSimValidate(o);
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
        RaidSimSym S;
        raidSimSymInit(&S, &oc, s);
        for (int d = 0; d < oc.ndays; d++) {
            size_t seg = (size_t)s * (size_t)oc.ndays + (size_t)d;
            double *rr = r + seg * (size_t)n;
            double prev = raidSimDayBegin(&S);
            for (int64_t i = 0; i < n; i++) {
                double y = raidSimStep(&S);
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
            return raidFail(NULL, RAID_EINVAL, "%s", RAID_SIM_OUT_OF_RANGE);
    for (size_t i = 0; iv && i < total; i++)
        if (!isfinite(iv[i]))
            return raidFail(NULL, RAID_EINVAL, "%s", RAID_SIM_OUT_OF_RANGE);
    return RAID_OK;
}
