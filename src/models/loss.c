/* Forecast losses: see loss.h. */
#include "models/loss.h"

#include <assert.h>
#include <math.h>

double raidLossSq(double actual, double forecast)
{
    return (actual - forecast) * (actual - forecast);
}

double raidLossQlike(double actual, double forecast)
{
    if (!(forecast > 0 && actual > 0))
        return NAN;
    return actual / forecast - log(actual / forecast) - 1.0;
}

void raidLossAdd(RaidLoss *acc, double actual, double forecast, double *sq, double *ql)
{
    assert(acc);
    const double s = raidLossSq(actual, forecast), q = raidLossQlike(actual, forecast);
    acc->n++;
    acc->sse += s;
    if (isfinite(q)) {
        acc->nq++;
        acc->sq += q;
    }
    if (sq)
        *sq = s;
    if (ql)
        *ql = q;
}

double raidLossMse(const RaidLoss *acc)
{
    return acc->n ? acc->sse / (double)acc->n : NAN;
}

double raidLossMeanQlike(const RaidLoss *acc)
{
    return acc->nq ? acc->sq / (double)acc->nq : NAN;
}
