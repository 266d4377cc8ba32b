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
    RaidSimRng diff, jump, noise;
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

/* Both outputs' failure when the model leaves float64 (extreme variance, jump or noise options). */
#define RAID_SIM_OUT_OF_RANGE                                                                                       \
    "simulate: a price left the range of float64 (positive and finite); the variance, jump or noise parameters " \
    "are too large"

#endif
