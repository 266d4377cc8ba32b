/*
 * The Lee-Mykland (2008, Review of Financial Studies 21) test for a jump in each return of a series
 * (raid_jumps_lm, include/raid/jumps.h): the return over the bipower estimate of the local standard
 * deviation from the K - 1 returns before it, against the Gumbel limit of the maximum over the day's n
 * returns. Float64 on the host. Formulas and the choices of window and n: docs/measures.md "Jumps:
 * Lee-Mykland".
 */
#include "core/dd.h"
#include "core/internal.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

/* A restart of the running window sum once the sum of the magnitudes it went through exceeds 2^40 times
 * its value: its error is below about that sum times 2^-104, so the sum stays within 2^-64 of its value
 * relative (a return of 1 among returns of 1e-16 leaves the window with products 1e16 times the others;
 * without the restart their sum would have kept the large one's rounding errors). */
#define RESTART_RATIO 0x1p40
#define MAX_WINDOW ((size_t)1 << 40)

size_t raid_jumps_lm_window(int64_t nret, int64_t ndays)
{
    if (ndays <= 0 || nret < 0)
        return 0;
    /* the smallest K with K^2 ndays >= 252 nret, from the float64 root and an exact integer correction */
    const unsigned __int128 want = (unsigned __int128)252 * (uint64_t)nret;
    uint64_t k = (uint64_t)ceil(sqrt(252.0 * (double)nret / (double)ndays));
    while (k > 0 && (unsigned __int128)(k - 1) * (k - 1) * (uint64_t)ndays >= want)
        k--;
    while ((unsigned __int128)k * k * (uint64_t)ndays < want)
        k++;
    return k < 3 ? 3 : (size_t)k;
}

static double product(const double *r, int64_t j) { return fabs(r[j]) * fabs(r[j - 1]); }

/* The compensated sum of the products of the series' returns j = lo .. hi (inclusive; base-relative). */
static RaidDd window_sum(const double *r, int64_t lo, int64_t hi)
{
    RaidDd w = {0, 0};
    for (int64_t j = lo; j <= hi; j++)
        raidDdAdd(&w, product(r, j));
    return w;
}

raid_status raid_jumps_lm(const double *r, const int64_t *offsets, size_t nseg, size_t window, double alpha,
                          double *stat, int8_t *jump)
{
    static const char fn[] = "raid_jumps_lm";
    if (!offsets)
        return raidFail(NULL, RAID_EINVAL, "%s: NULL offsets", fn);
    if (window < 3 || window > MAX_WINDOW)
        return raidFail(NULL, RAID_EINVAL, "%s: window %zu is not in [3, 2^40] (K - 2 >= 1 products)", fn, window);
    if (!(alpha > 0.0 && alpha < 1.0))
        return raidFail(NULL, RAID_EINVAL, "%s: alpha %g is not in (0, 1)", fn, alpha);
    if (offsets[0] < 0)
        return raidFail(NULL, RAID_EINVAL, "%s: offsets[0] = %lld is negative", fn, (long long)offsets[0]);
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] < offsets[s])
            return raidFail(NULL, RAID_EINVAL, "%s: offsets decrease at day %zu", fn, s);
    const int64_t first = offsets[0], N = offsets[nseg] - first;
    if (N > 0 && (!r || !stat || !jump))
        return raidFail(NULL, RAID_EINVAL, "%s: NULL argument", fn);
    for (int64_t t = 0; t < N; t++)
        if (!(fabs(r[first + t]) <= RAID_MAX_RETURN))
            return raidFail(NULL, RAID_EINVAL, "%s: return %lld is %s (returns must be finite and at most 1e74 in "
                            "magnitude)", fn, (long long)(first + t), isfinite(r[first + t]) ? "out of range" : "not finite");

    const double c = sqrt(2.0 / PI);
    const double beta = -log(-log1p(-alpha));
    const double *x = r + first;
    const int64_t K = (int64_t)window;
    RaidDd w = {0, 0}; /* the products of the window of the return t: j = max(1, t-K+2) .. t-1 */
    double through = 0; /* the magnitudes w went through since it was last summed afresh */
    int64_t nz = 0;     /* its non-zero products: none, and the sum is exactly 0 */
    size_t s = 0;
    for (int64_t t = 0; t < N; t++) {
        while (first + t >= offsets[s + 1])
            s++;
        const int64_t i = first + t;
        if (t < K - 1) {
            stat[i] = NAN;
            jump[i] = RAID_JUMP_UNTESTED;
        } else {
            const double sum = nz ? raidDdValue(w) : 0.0;
            const double L = sum > 0 ? x[t] / sqrt(sum / (double)(K - 2)) : NAN;
            const int64_t n = offsets[s + 1] - offsets[s];
            stat[i] = L;
            if (!(sum > 0) || n < 2) {
                jump[i] = RAID_JUMP_UNDEFINED;
            } else {
                const double ln = log((double)n), root = sqrt(2.0 * ln);
                const double Cn = root / c - (log(PI) + log(ln)) / (2.0 * c * root);
                const double Sn = 1.0 / (c * root);
                jump[i] = (fabs(L) - Cn) / Sn > beta ? RAID_JUMP_YES : RAID_JUMP_NO;
            }
        }
        /* slide to the window of t + 1: add product t, drop product t - K + 2 */
        if (t >= 1) {
            const double p = product(x, t);
            raidDdAdd(&w, p);
            nz += p != 0.0;
            through += fabs(w.s);
        }
        if (t - K + 2 >= 1) {
            const double p = product(x, t - K + 2);
            raidDdAdd(&w, -p);
            nz -= p != 0.0;
            through += fabs(w.s);
        }
        if (nz == 0) {
            w = (RaidDd){0, 0};
            through = 0;
        } else if (through > RESTART_RATIO * fabs(w.s)) {
            const int64_t lo = t - K + 3 > 1 ? t - K + 3 : 1;
            w = window_sum(x, lo, t);
            through = (double)(t - lo + 1) * fabs(w.s);
        }
    }
    return RAID_OK;
}
