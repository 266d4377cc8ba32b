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
#include <float.h>
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
enum { SIM_STREAM_DIFFUSION = 0, SIM_STREAM_JUMPS = 1, SIM_STREAM_NOISE = 2, SIM_STREAM_INIT = 3, SIM_STREAM_TRADES = 4 };

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
    o->mean_vars = NULL;
    o->corr = 0.0;
    o->corr_matrix = NULL;
    o->trade_rate = 0.0;
    o->trade_rates = NULL;
}

size_t raid_sim_cov_size(int n)
{
    return n > 0 ? (size_t)n * ((size_t)n + 1) / 2 : 0;
}

/* Index of (i, j), i <= j, in the packed upper triangle of n symbols (raid_sim_cov_size's order). */
static inline size_t sim_up(size_t n, size_t i, size_t j)
{
    return i * n - i * (i - 1) / 2 + (j - i); /* i = 0: 0 * (SIZE_MAX) / 2 is 0 */
}

/* Index of (i, j), j <= i, in a lower triangle packed by rows. */
static inline size_t sim_lo(size_t i, size_t j)
{
    return i * (i + 1) / 2 + j;
}

int raidSimIsJoint(const raid_sim_opts *o)
{
    return o->corr != 0 || o->corr_matrix || o->trade_rate > 0 || o->trade_rates;
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
    for (int k = 0; o->mean_vars && k < o->nsymbols; k++)
        if (!(isfinite(o->mean_vars[k]) && o->mean_vars[k] > 0))
            SIM_BAD("simulate: the mean variance of symbol %d must be finite and > 0 (got %g)", k + 1,
                    o->mean_vars[k]);
    if (!(isfinite(o->corr) && fabs(o->corr) <= 1))
        SIM_BAD("simulate: corr must be in [-1, 1] (got %g)", o->corr);
    if (o->corr != 0 && o->corr_matrix)
        SIM_BAD("simulate: corr %g and a correlation matrix: give one of them", o->corr);
    for (int i = 0; o->corr_matrix && i < o->nsymbols; i++)
        for (int j = 0; j < o->nsymbols; j++) {
            const double c = o->corr_matrix[(size_t)i * (size_t)o->nsymbols + (size_t)j];
            const double t = o->corr_matrix[(size_t)j * (size_t)o->nsymbols + (size_t)i];
            if (i == j && c != 1)
                SIM_BAD("simulate: the correlation of symbol %d with itself must be 1 (got %.17g)", i + 1, c);
            if (!(isfinite(c) && fabs(c) <= 1))
                SIM_BAD("simulate: the correlation of symbols %d and %d must be in [-1, 1] (got %g)", i + 1,
                        j + 1, c);
            if (c != t)
                SIM_BAD("simulate: the correlation matrix is not symmetric: (%d, %d) is %.17g, (%d, %d) %.17g",
                        i + 1, j + 1, c, j + 1, i + 1, t);
        }
    if (!(isfinite(o->trade_rate) && o->trade_rate >= 0 && o->trade_rate <= 1e6))
        SIM_BAD("simulate: trade rate must be in [0, 1e6] trades per second (got %g)", o->trade_rate);
    if (o->trade_rate > 0 && o->trade_rates)
        SIM_BAD("simulate: trade rate %g and one rate per symbol: give one of them", o->trade_rate);
    for (int k = 0; o->trade_rates && k < o->nsymbols; k++)
        if (!(isfinite(o->trade_rates[k]) && o->trade_rates[k] > 0 && o->trade_rates[k] <= 1e6))
            SIM_BAD("simulate: the trade rate of symbol %d must be in (0, 1e6] trades per second (got %g)", k + 1,
                    o->trade_rates[k]);
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
    sim_rng_seed(&S->trade, o->seed, (uint64_t)symbol, SIM_STREAM_TRADES);
    S->n = o->obs_per_day - 1;
    S->dt = 1.0 / (double)S->n;
    S->mu = log(o->mean_vars ? o->mean_vars[symbol] : o->mean_var);
    S->trade_rate = o->trade_rates ? o->trade_rates[symbol] : o->trade_rate;
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

/* A new day: the first jump time, the day's sums reset. */
static void sim_day_start(RaidSimSym *S)
{
    S->step = 0;
    S->iv = 0.0;
    S->next_jump_t = sim_next_arrival(S, 0.0);
}

double raidSimObserve(RaidSimSym *S)
{
    double y = S->x;
    if (S->noise_sd > 0)
        y += S->noise_sd * sim_normal(&S->noise);
    return y;
}

/* Start a new day: first jump time; returns the observed log price of the day's first observation. */
double raidSimDayBegin(RaidSimSym *S)
{
    sim_day_start(S);
    return raidSimObserve(S);
}

double raidSimNextTrade(RaidSimSym *S, double t)
{
    return t - log(sim_uniform_pos(&S->trade)) / S->trade_rate;
}

/* One step of the grid: returns the observed log price at the end of the step. */
double raidSimStep(RaidSimSym *S)
{
    double zb = sim_normal(&S->diff);
    double zp = sim_normal(&S->diff);
    double zw = S->rho * zb + S->rho_c * zp;
    raidSimAdvance(S, zw, zb);
    return raidSimObserve(S);
}

void raidSimAdvance(RaidSimSym *S, double zw, double zb)
{
    int64_t i = ++S->step; /* the step covers ((i-1) dt, i dt] */
    double v = exp(S->h); /* left point */
    S->iv += v * S->dt;
    S->sd = sqrt(v * S->dt);
    S->x += S->sd * zw;
    S->h = S->mu + S->a * (S->h - S->mu) + S->b * zb;
    /* Jumps whose time falls in this step's interval (the last step also takes [1 - dt, 1)). */
    double t_end = (double)i * S->dt;
    while (S->next_jump_t < 1.0 && (S->next_jump_t < t_end || i == S->n)) {
        S->x += S->jump_sd * sim_normal(&S->jump);
        S->next_jump_t = sim_next_arrival(S, S->next_jump_t);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Correlated symbols                                                                              */
/* ---------------------------------------------------------------------------------------------- */

/* The lower Cholesky factor of the correlation R (packed upper, n symbols) into L (packed lower by rows),
 * row by row (Cholesky-Banachiewicz: row i of L from rows 0 .. i of R, so that a leading block of R has
 * the leading block of L as its factor, whatever n). R is positive semidefinite, not only definite: a
 * pivot within tol of 0 (a symbol whose shocks are a combination of those before it, as with corr 1) is
 * taken as 0 and its column below must then be 0 within tol too. tol = 4 n eps bounds the rounding of the
 * pivot's sum (|L_ik| <= 1 since R's diagonal is 1). A pivot below -tol, or a zero pivot under a column
 * that is not, is a matrix with a negative eigenvalue: refused, naming the pivot. */
static raid_status sim_cholesky(const double *R, int n, double *L, const raid_sim_opts *o)
{
    const size_t N = (size_t)n;
    const double tol = 4.0 * (double)n * DBL_EPSILON;
    for (size_t i = 0; i < N; i++) {
        const double *Li = L + sim_lo(i, 0);
        for (size_t j = 0; j <= i; j++) {
            const double *Lj = L + sim_lo(j, 0);
            double s = R[sim_up(N, j, i)];
            for (size_t k = 0; k < j; k++)
                s -= Li[k] * Lj[k];
            if (j < i) {
                const double d = Lj[j];
                if (d > 0)
                    L[sim_lo(i, j)] = s / d;
                else if (fabs(s) <= tol)
                    L[sim_lo(i, j)] = 0;
                else
                    return raidFail(NULL, RAID_EINVAL,
                                     "simulate: the correlation matrix is not positive semidefinite: the Cholesky "
                                     "pivot of symbol %zu (S%04zu) is 0 (its shocks are a combination of those "
                                     "before it) but its residual correlation with symbol %zu (S%04zu) is %.6g",
                                     j + 1, j + 1, i + 1, i + 1, s);
            } else if (s > tol) {
                L[sim_lo(i, i)] = sqrt(s);
            } else if (s >= -tol) {
                L[sim_lo(i, i)] = 0;
            } else if (!o->corr_matrix) {
                return raidFail(NULL, RAID_EINVAL,
                                 "simulate: the correlation matrix is not positive semidefinite: the Cholesky pivot "
                                 "of symbol %zu (S%04zu) is %.6g (corr %g for every pair of %d symbols needs corr >= "
                                 "-1/(symbols - 1) = %.6g)",
                                 i + 1, i + 1, s, o->corr, n, -1.0 / (double)(n - 1));
            } else {
                return raidFail(NULL, RAID_EINVAL,
                                 "simulate: the correlation matrix is not positive semidefinite: the Cholesky pivot "
                                 "of symbol %zu (S%04zu) is %.6g",
                                 i + 1, i + 1, s);
            }
        }
    }
    return RAID_OK;
}

void raidSimJointFree(RaidSimJoint *J)
{
    if (!J)
        return;
    free(J->sym);
    free(J->L);
    free(J->R);
    free(J->u);
    free(J->a);
    free(J->acc);
    memset(J, 0, sizeof *J);
}

raid_status raidSimJointInit(RaidSimJoint *J, const raid_sim_opts *o)
{
    memset(J, 0, sizeof *J);
    const int n = o->nsymbols;
    const size_t N = (size_t)n, np = raid_sim_cov_size(n);
    J->n = n;
    J->sym = malloc(N * sizeof *J->sym);
    J->u = malloc(N * sizeof *J->u);
    J->a = malloc(N * sizeof *J->a);
    const int has_r = o->corr != 0 || o->corr_matrix;
    if (has_r) {
        J->R = malloc(np * sizeof *J->R);
        J->L = malloc(np * sizeof *J->L);
    }
    /* The sums of sd_j sd_k: not needed when R = I (the off-diagonal is 0) */
    if (has_r && n > 1)
        J->acc = calloc(np, sizeof *J->acc);
    if (!J->sym || !J->u || !J->a || (has_r && (!J->R || !J->L)) || (has_r && n > 1 && !J->acc)) {
        raidSimJointFree(J);
        return raidFail(NULL, RAID_ENOMEM, "simulate: out of memory for %d correlated symbols", n);
    }
    if (has_r) {
        for (size_t i = 0; i < N; i++)
            for (size_t j = i; j < N; j++)
                J->R[sim_up(N, i, j)] = i == j ? 1.0 : o->corr_matrix ? o->corr_matrix[i * N + j] : o->corr;
        raid_status st = sim_cholesky(J->R, n, J->L, o);
        if (st != RAID_OK) {
            raidSimJointFree(J);
            return st;
        }
    }
    for (int k = 0; k < n; k++)
        raidSimSymInit(&J->sym[k], o, k);
    return RAID_OK;
}

void raidSimJointDayBegin(RaidSimJoint *J)
{
    for (int k = 0; k < J->n; k++)
        sim_day_start(&J->sym[k]);
    if (J->acc)
        memset(J->acc, 0, raid_sim_cov_size(J->n) * sizeof *J->acc);
}

void raidSimJointStep(RaidSimJoint *J)
{
    const int n = J->n;
    const size_t N = (size_t)n;
    for (int k = 0; k < n; k++) {
        RaidSimSym *S = &J->sym[k];
        const double a = sim_normal(&S->diff);
        const double b = sim_normal(&S->diff);
        J->a[k] = a;
        J->u[k] = S->rho * a + S->rho_c * b; /* raidSimStep's zw */
    }
    /* The matrix-vector product and the sums cost n^2/2 each a step: threads from a few hundred symbols on
     * (each symbol's draws are its own, each sum in a fixed order: the same bytes at any thread count). */
#ifdef _OPENMP
    _Pragma("omp parallel for schedule(static) if (n >= 256)")
#endif
    for (int k = 0; k < n; k++) {
        RaidSimSym *S = &J->sym[k];
        const double u = J->u[k];
        double zw = u;
        if (J->L) {
            const double *Lk = J->L + sim_lo((size_t)k, 0);
            zw = 0;
            for (int j = 0; j <= k; j++)
                zw += Lk[j] * J->u[j];
        }
        raidSimAdvance(S, zw, J->a[k] + S->rho * (zw - u));
    }
    if (J->acc) {
#ifdef _OPENMP
        _Pragma("omp parallel for schedule(dynamic, 8) if (n >= 256)")
#endif
        for (int j = 0; j < n; j++) {
            const double sj = J->sym[j].sd;
            double *acc = J->acc + sim_up(N, (size_t)j, (size_t)j);
            for (int k = j + 1; k < n; k++)
                acc[k - j] += sj * J->sym[k].sd;
        }
    }
}

void raidSimJointCov(const RaidSimJoint *J, double *cov)
{
    const size_t N = (size_t)J->n;
    for (size_t j = 0; j < N; j++)
        for (size_t k = j; k < N; k++) {
            const size_t q = sim_up(N, j, k);
            cov[q] = j == k ? J->sym[j].iv : J->acc ? J->R[q] * J->acc[q] : 0.0;
        }
}


/* The returns of the joint model (raid_simulate_returns_cov's layout), day by day over every symbol. */
static raid_status sim_returns_joint(const raid_sim_opts *o, double *r, double *iv, double *cov)
{
    RaidSimJoint J;
    raid_status st = raidSimJointInit(&J, o);
    if (st != RAID_OK)
        return st;
    const int64_t n = o->obs_per_day - 1;
    const int nsym = o->nsymbols;
    double *prev = malloc((size_t)nsym * sizeof *prev);
    if (!prev) {
        raidSimJointFree(&J);
        return raidFail(NULL, RAID_ENOMEM, "simulate: out of memory");
    }
    const size_t np = raid_sim_cov_size(nsym);
    for (int d = 0; d < o->ndays; d++) {
        raidSimJointDayBegin(&J);
        for (int s = 0; s < nsym; s++)
            prev[s] = raidSimObserve(&J.sym[s]);
        for (int64_t i = 0; i < n; i++) {
            raidSimJointStep(&J);
            for (int s = 0; s < nsym; s++) {
                const double y = raidSimObserve(&J.sym[s]);
                r[((size_t)s * (size_t)o->ndays + (size_t)d) * (size_t)n + (size_t)i] = y - prev[s];
                prev[s] = y;
            }
        }
        for (int s = 0; iv && s < nsym; s++)
            iv[(size_t)s * (size_t)o->ndays + (size_t)d] = J.sym[s].iv;
        if (cov)
            raidSimJointCov(&J, cov + (size_t)d * np);
    }
    free(prev);
    raidSimJointFree(&J);
    return RAID_OK;
}

raid_status raid_simulate_returns(const raid_sim_opts *o, double *r, double *iv)
{
    return raid_simulate_returns_cov(o, r, iv, NULL);
}

raid_status raid_simulate_returns_cov(const raid_sim_opts *o, double *r, double *iv, double *cov)
{
    raid_status st = raidSimValidate(o);
    if (st != RAID_OK)
        return st;
    if (!r)
        return raidFail(NULL, RAID_EINVAL, "simulate: the returns array is NULL");
    if (o->trade_rate > 0 || o->trade_rates)
        return raidFail(NULL, RAID_EINVAL,
                         "simulate: trade rates give prices at trading times, not returns on the grid (write the "
                         "prices: raid_simulate_cov_csv)");
    const int64_t n = o->obs_per_day - 1;
    const int nsym = o->nsymbols;
    const size_t np = raid_sim_cov_size(nsym);
    if (cov && (size_t)o->ndays > SIZE_MAX / sizeof(double) / np)
        return raidFail(NULL, RAID_EINVAL, "simulate: %d days of %zu covariances is too many", o->ndays, np);
    const raid_sim_opts oc = *o;
    if (raidSimIsJoint(o)) {
        if ((st = sim_returns_joint(o, r, iv, cov)) != RAID_OK)
            return st;
    } else {
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
                if (cov) /* independent symbols: the variances on the diagonal, 0 off it */
                    for (int k = 0; k < nsym; k++) {
                        double *c = cov + (size_t)d * np + (size_t)k * (size_t)nsym - (size_t)k * ((size_t)k - 1) / 2;
                        if (k == s)
                            c[0] = S.iv;
                        else if (k < s)
                            c[s - k] = 0.0;
                    }
            }
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
    for (size_t i = 0; cov && i < (size_t)oc.ndays * np; i++)
        if (!isfinite(cov[i]))
            return raidFail(NULL, RAID_EINVAL, "%s", RAID_SIM_OUT_OF_RANGE);
    return RAID_OK;
}
