/* The simulator's CSV job (raid simulate; raid_simulate_csv and raid_simulate_run_csv of
 * include/raid/simulate.h, docs/simulate.md): each symbol's path from the simulator (src/sim/simulate.c)
 * written as prices on a grid of business days and session times, and the days' integrated variances,
 * both files written whole or not at all (raid_outfile). */
#define _POSIX_C_SOURCE 200809L
#include "core/outfile.h"
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

/* raid_simulate_csv, the rows written reported to ctx's progress (NULL: none); messages in raid_errmsg(). */
static raid_status simulate_csv(raid_ctx *ctx, const raid_sim_opts *o, const char *prices_path, const char *iv_path)
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
        return raidFail(NULL, RAID_EINVAL, "%s", RAID_SIM_OUT_OF_RANGE);
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
