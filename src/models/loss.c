/* Forecast losses: see loss.h. */
#include "models/loss.h"

#include <assert.h>
#include <math.h>

double raid_loss_sq(double actual, double forecast)
{
    return (actual - forecast) * (actual - forecast);
}

double raid_loss_qlike(double actual, double forecast)
{
    if (!(forecast > 0 && actual > 0))
        return NAN;
    return actual / forecast - log(actual / forecast) - 1.0;
}

void raid_loss_add(raid_loss *acc, double actual, double forecast, double *sq, double *ql)
{
    assert(acc);
    const double s = raid_loss_sq(actual, forecast), q = raid_loss_qlike(actual, forecast);
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

double raid_loss_mse(const raid_loss *acc)
{
    return acc->n ? acc->sse / (double)acc->n : NAN;
}

double raid_loss_mean_qlike(const raid_loss *acc)
{
    return acc->nq ? acc->sq / (double)acc->nq : NAN;
}
