/* Forecast losses of variance forecasts, accumulated per series.
 *
 * Written once for every model that forecasts a variance out of sample: HAR's rolling and expanding
 * fits today; the backtest and GARCH refits are meant to reuse it. Both losses are on the variance
 * scale: the squared error (a - f)^2 and QLIKE a/f - log(a/f) - 1 (Patton 2011: both are robust to
 * noise in the volatility proxy a; QLIKE is defined only for a, f > 0 and counted only where finite). */
#ifndef RAID_MODELS_LOSS_H
#define RAID_MODELS_LOSS_H

#include <stddef.h>

typedef struct RaidLoss {
    size_t n;   /* forecasts */
    size_t nq;  /* forecasts with a finite QLIKE */
    double sse; /* sum of squared errors */
    double sq;  /* sum of the finite QLIKE values */
} RaidLoss;

/* (actual - forecast)^2. */
double raidLossSq(double actual, double forecast);
/* actual/forecast - log(actual/forecast) - 1, NAN unless both are positive. */
double raidLossQlike(double actual, double forecast);
/* Add one forecast to acc; *sq and *ql (if not NULL) receive its two losses. */
void raidLossAdd(RaidLoss *acc, double actual, double forecast, double *sq, double *ql);
/* Mean squared error (NAN with no forecast) and mean QLIKE over the finite ones (NAN with none). */
double raidLossMse(const RaidLoss *acc);
double raidLossMeanQlike(const RaidLoss *acc);

#endif
