/* The simulator of include/raid/simulate.h (src/sim/simulate.c): the state of one symbol's path and its
 * steps, shared by the returns (raid_simulate_returns) and the CSV job (src/jobs/simulate.c). Never
 * installed. */
#ifndef RAID_SIM_INTERNAL_H
#define RAID_SIM_INTERNAL_H

#include "core/internal.h"

/* One xoshiro256** stream. */
typedef struct RaidSimRng {
    uint64_t s[4];
    double spare;   /* second normal of the last polar pair */
    int has_spare;
} RaidSimRng;

/* The state of one symbol. Time is in days; one day is [0, 1] on a grid of n = obs_per_day-1 steps. */
typedef struct RaidSimSym {
    RaidSimRng diff, jump, noise, trade;
    int64_t n;          /* steps per day */
    double dt;          /* 1/n */
    double mu;          /* log(mean_var) */
    double a;           /* exp(-kappa dt): OU autoregression per step */
    double b;           /* conditional sd of h over one step */
    double rho, rho_c;  /* rho, sqrt(1 - rho^2) */
    double jump_rate, jump_sd, noise_sd;
    double trade_rate;  /* Poisson trades per second, 0: none (every grid point observed) */
    double h;           /* current log variance */
    double sd;          /* sqrt(exp(h) dt) of the latest step (its left point): the sd of its increment */
    double x;           /* current efficient log price (relative to start) */
    /* per day */
    double next_jump_t; /* time of the next jump in the current day, >= 1 if none */
    int64_t step;       /* steps done in the current day */
    double iv;          /* integrated variance of the current day so far */
} RaidSimSym;

/* RAID_OK if the options describe a simulation (each within its documented range), else RAID_EINVAL
 * through raidFail(NULL, ...) naming the option. */
raid_status raidSimValidate(const raid_sim_opts *o);

/* The state of symbol `symbol` at the start of the first day, its streams derived from (o->seed, symbol,
 * component): the same path whatever the thread or the order of the symbols. o is valid
 * (raidSimValidate). */
void raidSimSymInit(RaidSimSym *S, const raid_sim_opts *o, int symbol);

/* Start a new day of S: its first jump time; returns the observed log price of the day's first
 * observation (relative to the start price). */
double raidSimDayBegin(RaidSimSym *S);

/* One step of S's grid: returns the observed log price at the end of the step; S->iv gains the step's
 * integrated variance. */
double raidSimStep(RaidSimSym *S);

/* One step of S's efficient path with the given standard normal shocks of the price (zw) and of the log
 * variance (zb): x gains sqrt(exp(h) dt) zw (S->sd is that sd) and the step's jumps, h its OU step, iv
 * exp(h) dt (h at the left point). raidSimStep is this step with S's own shocks, then raidSimObserve. */
void raidSimAdvance(RaidSimSym *S, double zw, double zb);

/* The observed log price now: x plus a fresh draw of S's noise stream (x itself without noise). */
double raidSimObserve(RaidSimSym *S);

/* The next time after t (seconds from the open) of S's Poisson trades (rate S->trade_rate > 0). */
double raidSimNextTrade(RaidSimSym *S, double t);

/* Several symbols stepped together, their price shocks correlated (docs/simulate.md "Correlated symbols"):
 * on each step symbol k draws (a, b) from its diffusion stream as raidSimStep does, u = rho a +
 * sqrt(1 - rho^2) b, and takes zw = (L u)_k (L the lower Cholesky factor of the correlation, packed by
 * rows) and zb = a + rho (zw - u): corr(zw) = R, corr(zw_k, zb_k) = rho, and with R = I exactly
 * raidSimStep's shocks (zw = u, zb = a, bit for bit). Row k of L depends on rows 0 .. k of R only, and
 * every draw of symbol k comes from its own streams: adding symbols leaves the others' paths unchanged. */
typedef struct RaidSimJoint {
    int n;              /* symbols */
    RaidSimSym *sym;    /* their states */
    double *L;          /* the Cholesky factor, n (n + 1) / 2 entries by rows; NULL: R = I */
    double *R;          /* the correlation, packed as the covariance (raid_sim_cov_size's order) */
    double *u, *a;      /* one step's draws */
    double *acc;        /* the day's sums of sd_j sd_k, j < k, packed as R (diagonal unused) */
} RaidSimJoint;

/* The n = o->nsymbols states, R from o->corr_matrix or o->corr, and its factor. o is valid
 * (raidSimValidate). Errors (raidFail(NULL, ...)): RAID_EINVAL for R not positive semidefinite, naming
 * the pivot; RAID_ENOMEM. On failure J needs no raidSimJointFree. */
raid_status raidSimJointInit(RaidSimJoint *J, const raid_sim_opts *o);
void raidSimJointFree(RaidSimJoint *J);
/* Start a day for every symbol (raidSimDayBegin; their observed prices are not drawn: raidSimObserve). */
void raidSimJointDayBegin(RaidSimJoint *J);
/* One step of every symbol. */
void raidSimJointStep(RaidSimJoint *J);
/* The day's integrated covariance so far into cov (raid_sim_cov_size(n) entries): R_jk times the sum of
 * sd_j sd_k off the diagonal, iv on it. */
void raidSimJointCov(const RaidSimJoint *J, double *cov);

/* Whether o asks for the joint model (a correlation or trade rates); else each symbol is simulated alone. */
int raidSimIsJoint(const raid_sim_opts *o);

/* Both outputs' failure when the model leaves float64 (extreme variance, jump or noise options). */
#define RAID_SIM_OUT_OF_RANGE                                                                                       \
    "simulate: a price left the range of float64 (positive and finite); the variance, jump or noise parameters " \
    "are too large"

#endif
