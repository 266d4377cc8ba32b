/*
 * Realized covariance of one day of N symbols (raid_cov_compute, include/raid/cov.h), in float64 on the
 * host: the symbols' observations reduced to one price per distinct time, synchronised (previous tick on
 * the union of the times, or refresh time) into returns, then one of the estimators; each entry a
 * compensated float64 sum, so that it is within a few roundings of the exact sum whatever its cancellation:
 * rcov, rsemicov, mrc and mrc_psd as Gram matrices of their series (raidCovGramCpu, cov_gram.c: Dot2, exact
 * products), the others sums of float64 products (core/dd.h). Every symmetric matrix is computed once, its
 * upper triangle, and mirrored. Formulas, sources and defaults: docs/measures.md "Covariance".
 *
 *   rcov      sum_k r_k r_k'                                    ABDL 2003; BNS 2004
 *   rbpcov    (pi/8) sum_{k>=2} |x+y|_k|x+y|_{k-1} - |x-y|_k|x-y|_{k-1}  Barndorff-Nielsen and Shephard 2004
 *   rsemicov  P, N, M = sum p p', sum n n', sum p n'            Bollerslev, Li, Patton and Quaedvlieg 2020
 *   hy        sum over overlapping observation intervals       Hayashi and Yoshida 2005
 *   mrc       pre-averaged, bias corrected; mrc_psd without     Christensen, Kinnebrock and Podolskij 2010
 *   rkcov     Parzen realized kernel, jittered end points       Barndorff-Nielsen, Hansen, Lunde, Shephard 2011
 */
#include "cov/cov_internal.h"

#include "core/dd.h"
#include "core/logret.h"
#include "realized/realized_internal.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;
/* BNHLS 2009: c* = ((12)^2 / 0.269)^(1/5) for the Parzen kernel (as the univariate rk, noise.c). */
#define RK_CSTAR 3.5134

static const char *const est_names[RAID_COV_NESTIMATORS] = {"rcov", "rbpcov", "rsemicov", "hy",
                                                            "mrc",  "mrc_psd", "rkcov"};

const char *raid_cov_estimator_name(raid_cov_estimator e)
{
    return (int)e >= 0 && (int)e < RAID_COV_NESTIMATORS ? est_names[e] : NULL;
}

raid_status raid_cov_estimator_parse(const char *name, raid_cov_estimator *out)
{
    if (!name || !out)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_estimator_parse: NULL argument");
    for (int k = 0; k < RAID_COV_NESTIMATORS; k++)
        if (!strcmp(name, est_names[k])) {
            *out = (raid_cov_estimator)k;
            return RAID_OK;
        }
    return raidFail(NULL, RAID_EINVAL, "unknown estimator '%.64s' (valid: rcov, rbpcov, rsemicov, hy, mrc, mrc_psd, rkcov)",
                    name);
}

int raid_cov_parts(raid_cov_estimator e)
{
    return e == RAID_COV_RSEMICOV ? 3 : (int)e >= 0 && (int)e < RAID_COV_NESTIMATORS ? 1 : 0;
}

/* ---- the day's series: one price per distinct time, per present symbol ---- */

typedef struct series {
    size_t P;        /* present symbols */
    size_t *idx;     /* their indices among the nsym */
    int64_t *off;    /* P + 1 offsets into t and p */
    int64_t *t;      /* distinct times, increasing */
    double *p;       /* the last price at each */
} series;

static void series_free(series *s)
{
    free(s->idx);
    free(s->off);
    free(s->t);
    free(s->p);
}

/* Check the day's observations and reduce each present symbol's to its distinct times. */
static raid_status series_make(raid_ctx *ctx, const RaidCovDay *d, series *s)
{
    memset(s, 0, sizeof *s);
    const int64_t total = d->offsets[d->nsym] - d->offsets[0];
    s->idx = malloc((d->nsym ? d->nsym : 1) * sizeof *s->idx);
    s->off = malloc((d->nsym + 1) * sizeof *s->off);
    s->t = malloc((size_t)(total ? total : 1) * sizeof *s->t);
    s->p = malloc((size_t)(total ? total : 1) * sizeof *s->p);
    if (!s->idx || !s->off || !s->t || !s->p)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    int64_t k = 0;
    s->off[0] = 0;
    for (size_t i = 0; i < d->nsym; i++) {
        const int64_t a = d->offsets[i], b = d->offsets[i + 1];
        for (int64_t j = a; j < b; j++) {
            const double p = d->price[j];
            if (!(p > 0.0 && p <= 1.79769313486231570815e308))
                return raidFail(ctx, RAID_EINVAL, "raid_cov_compute: symbol %zu: price %.17g at observation %lld is not "
                                "positive and finite", i, p, (long long)(j - a));
            if (j > a && d->time_us[j] < d->time_us[j - 1])
                return raidFail(ctx, RAID_EINVAL, "raid_cov_compute: symbol %zu: time %lld us before %lld us "
                                "(observation %lld): the observations of a symbol must be in time order", i,
                                (long long)d->time_us[j], (long long)d->time_us[j - 1], (long long)(j - a));
            if (j > a && d->time_us[j] == d->time_us[j - 1]) {
                s->p[k - 1] = p; /* the last price at a time counts */
            } else {
                s->t[k] = d->time_us[j];
                s->p[k++] = p;
            }
        }
        if (b > a) {
            s->idx[s->P++] = i;
            s->off[s->P] = k;
        }
    }
    return RAID_OK;
}

/* ---- synchronisation ---- */

/* The union of the P symbols' times (each list strictly increasing), increasing and distinct, into a fresh
 * array (*nt its length; NULL when out of memory): the lists merged in pairs, duplicates dropped at every
 * merge, until one is left. O(T log P) for T times at worst; O(T) when the symbols share a grid (every merge
 * halves the data), where a sort of all T times cost O(T log T) and a fifth of a day of 500 symbols. */
static int64_t *union_times(const series *s, int64_t *nt)
{
    const size_t P = s->P, T = (size_t)s->off[P];
    int64_t *a = malloc(T * sizeof *a), *b = malloc(T * sizeof *b);
    int64_t *ba = malloc((P + 1) * sizeof *ba), *bb = malloc((P + 1) * sizeof *bb);
    if (!a || !b || !ba || !bb) {
        free(a);
        free(b);
        free(ba);
        free(bb);
        return NULL;
    }
    memcpy(a, s->t, T * sizeof *a);
    memcpy(ba, s->off, (P + 1) * sizeof *ba);
    for (size_t nr = P; nr > 1; nr = (nr + 1) / 2) {
        int64_t w = 0;
        bb[0] = 0;
        for (size_t r = 0; r < nr; r += 2) {
            int64_t i = ba[r], ie = ba[r + 1], j = r + 1 < nr ? ba[r + 1] : ie, je = r + 1 < nr ? ba[r + 2] : ie;
            while (i < ie && j < je) {
                const int64_t x = a[i], y = a[j];
                b[w++] = x <= y ? x : y;
                i += x <= y;
                j += y <= x;
            }
            while (i < ie)
                b[w++] = a[i++];
            while (j < je)
                b[w++] = a[j++];
            bb[r / 2 + 1] = w;
        }
        int64_t *t = a;
        a = b;
        b = t;
        t = ba;
        ba = bb;
        bb = t;
    }
    *nt = ba[1];
    free(b);
    free(ba);
    free(bb);
    return a;
}

/* The synchronised returns: R[a M + k], k < M, symbol a's return from sampling time k to k + 1; *M their
 * number (0 when there are fewer than two sampling times). *R is malloc'ed (NULL when M = 0). */
static raid_status sync_returns(raid_ctx *ctx, raid_cov_sync how, const series *s, double **R, int64_t *M)
{
    *R = NULL;
    *M = 0;
    const size_t P = s->P;
    if (P == 0)
        return RAID_OK;
    int64_t *tau = NULL, nt = 0;
    if (how == RAID_COV_SYNC_PREVIOUS) { /* the union of the times */
        if (!(tau = union_times(s, &nt)))
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
    } else { /* refresh time: at most the fewest distinct times of a symbol */
        int64_t cap = INT64_MAX, first = INT64_MIN;
        for (size_t a = 0; a < P; a++) {
            const int64_t n = s->off[a + 1] - s->off[a];
            cap = n < cap ? n : cap;
            first = s->t[s->off[a]] > first ? s->t[s->off[a]] : first;
        }
        tau = malloc((size_t)cap * sizeof *tau);
        int64_t *j = malloc(P * sizeof *j);
        if (!tau || !j) {
            free(tau);
            free(j);
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        }
        for (size_t a = 0; a < P; a++)
            j[a] = s->off[a];
        int64_t now = first;
        for (;;) {
            tau[nt++] = now;
            int64_t next = INT64_MIN, end = 0;
            for (size_t a = 0; a < P; a++) {
                while (j[a] < s->off[a + 1] && s->t[j[a]] <= now)
                    j[a]++; /* the first time after now */
                if (j[a] == s->off[a + 1])
                    end = 1;
                else if (s->t[j[a]] > next)
                    next = s->t[j[a]];
            }
            if (end)
                break;
            now = next;
        }
        free(j);
    }
    if (nt < 2) {
        free(tau);
        return RAID_OK;
    }
    const int64_t m = nt - 1;
    double *r = malloc((size_t)m * P * sizeof *r);
    if (!r) {
        free(tau);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    for (size_t a = 0; a < P; a++) { /* previous tick at each tau: the first price before the first time */
        int64_t j = s->off[a];
        const int64_t end = s->off[a + 1];
        double prev = 0.0;
        for (int64_t k = 0; k < nt; k++) {
            while (j + 1 < end && s->t[j + 1] <= tau[k])
                j++;
            const double p = s->p[j];
            if (k > 0)
                r[(size_t)a * (size_t)m + (size_t)(k - 1)] = raidLogReturn(prev, p);
            prev = p;
        }
    }
    free(tau);
    *R = r;
    *M = m;
    return RAID_OK;
}

/* How cov_day computes: the float64 host path, the device path, or the scale of the device path's bound. */
typedef enum day_mode { DAY_CPU, DAY_DEVICE, DAY_SCALE } day_mode;

/* ---- the estimators on synchronised returns: O (P x P, row-major), upper triangle (all for M part) ---- */

static double dot(const double *x, const double *y, int64_t m)
{
    RaidDd s = {0, 0};
    for (int64_t k = 0; k < m; k++)
        raidDdAdd(&s, x[k] * y[k]);
    return raidDdValue(s);
}

static void est_rbpcov(const double *R, int64_t m, size_t P, double *O)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (long long a = 0; a < (long long)P; a++)
        for (size_t b = (size_t)a; b < P; b++) {
            const double *x = R + (size_t)a * (size_t)m, *y = R + b * (size_t)m;
            RaidDd s = {0, 0};
            for (int64_t k = 1; k < m; k++) {
                raidDdAdd(&s, fabs(x[k] + y[k]) * fabs(x[k - 1] + y[k - 1]));
                raidDdAdd(&s, -(fabs(x[k] - y[k]) * fabs(x[k - 1] - y[k - 1])));
            }
            O[(size_t)a * P + b] = PI / 8.0 * raidDdValue(s);
        }
}

/* kn = ceil(M^(3/5)), exactly: the smallest kn with kn^5 >= M^3. */
static int64_t kn_psd(int64_t M)
{
    int64_t kn = (int64_t)ceil(pow((double)M, 0.6));
    const unsigned __int128 m3 = (unsigned __int128)M * (unsigned __int128)M * (unsigned __int128)M;
#define P5(k) ((unsigned __int128)(k) * (unsigned __int128)(k) * (unsigned __int128)(k) * (unsigned __int128)(k) * \
               (unsigned __int128)(k))
    while (kn > 1 && P5(kn - 1) >= m3)
        kn--;
    while (P5(kn) < m3)
        kn++;
#undef P5
    return kn;
}

/* The pre-averaged returns of mrc (bias corrected, theta = 1, kn = ceil(sqrt(M))) or mrc_psd (no
 * correction, kn = ceil(M^0.6)): Y[a ny + i] = Ybar_i of symbol a = sum_{j=1}^{kn-1} g(j/kn) r_{i+j},
 * i < ny = n - kn + 2, and the coefficients of
 *   c sum_i Ybar_i Ybar_i'  [- c2 (1/2) sum r r'],  c = n/(n-kn+2) 1/(kn psi2), c2 = psi1/(kn^2 psi2),
 * as the univariate prv (noise.c) on the diagonal. *Y is malloc'ed. */
typedef struct mrc_prep {
    int64_t kn, ny;
    double *Y, c, c2;
} mrc_prep;

static raid_status mrc_prepare(raid_ctx *ctx, const double *R, int64_t m, size_t P, int psd, mrc_prep *o)
{
    const int64_t kn = psd ? kn_psd(m) : raidPreavgKn(m);
    const int64_t ny = m - kn + 2;
    double *g = malloc((size_t)(kn + 1) * sizeof *g), *Y = malloc((size_t)ny * P * sizeof *Y);
    if (!g || !Y) {
        free(g);
        free(Y);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    double psi1, psi2;
    raidPreavgWeights(kn, g, &psi1, &psi2);
#pragma omp parallel for schedule(static)
    for (long long a = 0; a < (long long)P; a++) {
        const double *r = R + (size_t)a * (size_t)m;
        for (int64_t i = 0; i < ny; i++) {
            RaidDd y = {0, 0};
            for (int64_t j = 1; j < kn; j++)
                raidDdAdd(&y, g[j] * r[i + j - 1]);
            Y[(size_t)a * (size_t)ny + (size_t)i] = raidDdValue(y);
        }
    }
    free(g);
    const double k = (double)kn, mm = (double)m;
    o->kn = kn;
    o->ny = ny;
    o->Y = Y;
    o->c = mm / (mm - k + 2.0) / (k * psi2);
    o->c2 = psi1 / (k * k * psi2);
    return RAID_OK;
}

/* The entry of mrc from its two sums (gy of the pre-averaged returns, gr of the returns; gr unused for psd). */
static double mrc_entry(const mrc_prep *q, int psd, double gy, double gr)
{
    RaidDd o = {0, 0};
    raidDdAdd(&o, q->c * gy);
    if (!psd)
        raidDdAdd(&o, -(q->c2 * (gr / 2.0)));
    return raidDdValue(o);
}

/* rkcov's series: the m = 2 jittered returns of each symbol (n = M - 2: x_1 = r_1/2 + r_2, x_j = r_{j+1},
 * x_n = r_{M-1} + r_M/2; n = 1: r_1/2 + r_2 + r_3/2, as the univariate rk), one bandwidth H for all (the
 * mean over the symbols of c* xi_a^(4/5) n^(3/5), xi_a^2 from the symbol's own returns own[a], rounded up,
 * at least 1) and the weights w[h] = k(h/(H+1)) (w[0] = 1). X (P x n) and w malloc'ed; *H = -1 (nothing
 * allocated) where no bandwidth exists (an infinite xi, H > n). */
typedef struct rk_prep {
    int64_t n, H;
    double *X, *w;
} rk_prep;

static raid_status rk_prepare(raid_ctx *ctx, const double *R, int64_t m, size_t P, const series *s, rk_prep *o)
{
    const int64_t n = m - 2;
    memset(o, 0, sizeof *o);
    o->n = n;
    o->H = -1;
    RaidDd hs = {0, 0};
    for (size_t a = 0; a < P; a++) {
        const int64_t no = s->off[a + 1] - s->off[a] - 1; /* the symbol's own returns */
        double *own = malloc((size_t)(no > 0 ? no : 1) * sizeof *own);
        if (!own)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        for (int64_t j = 0; j < no; j++)
            own[j] = raidLogReturn(s->p[s->off[a] + j], s->p[s->off[a] + j + 1]);
        const double xi2 = no >= 1 ? raidRealizedNoiseRatio(own, no) : 0.0;
        free(own);
        if (isnan(xi2) && no >= 1)
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        if (!(xi2 < INFINITY))
            return RAID_OK;
        raidDdAdd(&hs, RK_CSTAR * pow(xi2, 0.4) * pow((double)n, 0.6));
    }
    const double hstar = ceil(raidDdValue(hs) / (double)P);
    if (!(hstar <= (double)n))
        return RAID_OK;
    const int64_t H = hstar > 1.0 ? (int64_t)hstar : 1;
    double *X = malloc((size_t)n * P * sizeof *X), *w = malloc((size_t)(H + 1) * sizeof *w);
    if (!X || !w) {
        free(X);
        free(w);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    for (int64_t h = 0; h <= H; h++)
        w[h] = h == 0 ? 1.0 : raidRealizedParzen((double)h / (double)(H + 1));
    for (size_t a = 0; a < P; a++) {
        const double *r = R + a * (size_t)m;
        double *x = X + a * (size_t)n;
        if (n == 1) {
            x[0] = 0.5 * r[0] + r[1] + 0.5 * r[2];
        } else {
            x[0] = 0.5 * r[0] + r[1];
            for (int64_t j = 1; j < n - 1; j++)
                x[j] = r[j + 1];
            x[n - 1] = r[m - 2] + 0.5 * r[m - 1];
        }
    }
    o->X = X;
    o->w = w;
    o->H = H;
    return RAID_OK;
}

/* K = Gamma_0 + sum_{h=1}^{H} k(h/(H+1)) (Gamma_h + Gamma_h'), Gamma_h = sum_{j>h} x_j x_{j-h}'. */
static raid_status est_rkcov(raid_ctx *ctx, const double *R, int64_t m, size_t P, const series *s, double *O,
                             int64_t *H_out)
{
    rk_prep q;
    raid_status st = rk_prepare(ctx, R, m, P, s, &q);
    *H_out = q.H;
    if (st != RAID_OK || q.H < 0)
        return st;
    const int64_t n = q.n, H = q.H;
    const double *X = q.X, *w = q.w;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long a = 0; a < (long long)P; a++)
        for (size_t b = (size_t)a; b < P; b++) {
            const double *x = X + (size_t)a * (size_t)n, *y = X + b * (size_t)n;
            RaidDd kk = {0, 0};
            for (int64_t h = 0; h <= H && h < n; h++) {
                RaidDd g1 = {0, 0}, g2 = {0, 0};
                for (int64_t j = h; j < n; j++) {
                    raidDdAdd(&g1, x[j] * y[j - h]);
                    if (h > 0)
                        raidDdAdd(&g2, y[j] * x[j - h]);
                }
                raidDdAdd(&kk, w[h] * raidDdValue(g1));
                if (h > 0)
                    raidDdAdd(&kk, w[h] * raidDdValue(g2));
            }
            O[(size_t)a * P + b] = raidDdValue(kk);
        }
    free(q.X);
    free(q.w);
    return RAID_OK;
}

/* Z = X W (P x n): z_a[k] = sum_{|h| <= H, 0 <= k+h < n} w[|h|] x_a[k+h] (compensated), so that
 * K_ab = sum_k x_a[k] z_b[k] = rkcov's entry (sum_h w_|h| sum_k x_a[k] x_b[k+h]); abs: |x| instead of x
 * (W|x|, the scale's). Malloc'ed; NULL when out of memory. */
static double *rk_smooth(const rk_prep *q, size_t P, int abs)
{
    const int64_t n = q->n, H = q->H;
    double *Z = malloc((size_t)(n > 0 ? n : 1) * P * sizeof *Z);
    if (!Z)
        return NULL;
#pragma omp parallel for schedule(static)
    for (long long a = 0; a < (long long)P; a++) {
        const double *x = q->X + (size_t)a * (size_t)n;
        for (int64_t k = 0; k < n; k++) {
            RaidDd z = {0, 0};
            for (int64_t h = -H; h <= H; h++)
                if (k + h >= 0 && k + h < n)
                    raidDdAdd(&z, q->w[h < 0 ? -h : h] * (abs ? fabs(x[k + h]) : x[k + h]));
            Z[(size_t)a * (size_t)n + (size_t)k] = raidDdValue(z);
        }
    }
    return Z;
}

/* Hayashi-Yoshida of two symbols' returns over their intervals (t[k-1], t[k]] and (u[l-1], u[l]]:
 * sum of x_k y_l over the pairs whose intervals overlap, found by one merge of the two time lists (each
 * interval overlaps a run of the other's; the one that ends first moves on). absolute 1: the sum of
 * |x_k y_l| instead (the device path's scale, docs/precision.md "Covariance"); *nterms: the pairs summed. */
static inline double hy_pair(const int64_t *t, const double *x, int64_t nt, const int64_t *u, const double *y,
                             int64_t nu, int absolute, int64_t *nterms)
{
    RaidDd s = {0, 0};
    int64_t k = 1, l = 1, n = 0; /* interval k of the first: (t[k-1], t[k]], k = 1 .. nt-1 */
    /* the intervals before the first overlap */
    while (k < nt && l < nu && (t[k] <= u[l - 1] || u[l] <= t[k - 1])) {
        if (t[k] <= u[l - 1])
            k++;
        else
            l++;
    }
    /* From the first overlap on, every step overlaps (the times of each symbol strictly increase: of (t[k-1],
     * t[k]] and (u[l-1], u[l]], the one that ends first is followed by one that still overlaps the other, and
     * both are when they end together), so the merge advances without a test of overlap: the same products
     * in the same order, with branch-free steps (1.3x on a day of 100 symbols' ticks). kernels/cov.cl cov_hy
     * makes the same merge on the device. */
    while (k < nt && l < nu) {
        const double p = x[k - 1] * y[l - 1];
        raidDdAdd(&s, absolute ? fabs(p) : p);
        n++;
        const int64_t tk = t[k], ul = u[l];
        k += tk <= ul;
        l += ul <= tk;
    }
    *nterms = n;
    return raidDdValue(s);
}

/* hy into O (upper triangle) on each symbol's own distinct times: DAY_CPU the host's sums (OpenMP over rows),
 * DAY_DEVICE the device's (raidCovHy), DAY_SCALE the scale of the device's bound: the absolute sum of each
 * entry's terms plus n 2^(e_a + e_b - 100) for its n terms (binary32 underflow), e the device's exponents.
 * *nmax: the most returns of a symbol. */
static raid_status est_hy(raid_ctx *ctx, day_mode mode, const series *s, double *O, int64_t *nmax)
{
    const size_t P = s->P;
    const int64_t T = s->off[P];
    double *r = malloc((size_t)(T ? T : 1) * sizeof *r); /* r[j] the return ending at s->t[j] (j not a first) */
    int *e = mode == DAY_SCALE ? malloc(P * sizeof *e) : NULL;
    raid_status st = RAID_OK;
    if (!r || (mode == DAY_SCALE && !e)) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    *nmax = 0;
    for (size_t a = 0; a < P; a++) {
        for (int64_t j = s->off[a] + 1; j < s->off[a + 1]; j++)
            r[j] = raidLogReturn(s->p[j - 1], s->p[j]);
        r[s->off[a]] = 0.0;
        const int64_t na = s->off[a + 1] - s->off[a] - 1;
        *nmax = na > *nmax ? na : *nmax;
        if (e)
            raidCovScales(r + s->off[a] + 1, 1, na, 0, &e[a]);
    }
    if (mode == DAY_DEVICE) {
        st = raidCovHy(ctx, s->t, r, s->off, P, O);
        goto out;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (long long a = 0; a < (long long)P; a++)
        for (size_t b = (size_t)a; b < P; b++) {
            const int64_t ia = s->off[a], ib = s->off[b];
            const int64_t na = s->off[a + 1] - ia, nb = s->off[b + 1] - ib;
            int64_t n = na - 1;
            if (e) /* the scale (a constant flag in each call: the cpu's merge keeps its loop) */
                O[(size_t)a * P + b] = hy_pair(s->t + ia, r + ia + 1, na, s->t + ib, r + ib + 1, nb, 1, &n) +
                                       ldexp((double)n, e[a] + e[b] - 100);
            else if ((size_t)a == b)
                O[(size_t)a * P + b] = dot(r + ia + 1, r + ia + 1, n);
            else
                O[(size_t)a * P + b] = hy_pair(s->t + ia, r + ia + 1, na, s->t + ib, r + ib + 1, nb, 0, &n);
        }
out:
    free(r);
    free(e);
    return st;
}

/* ---- the smallest eigenvalue, the projection ---- */

/* The smallest eigenvalue of the symmetric n x n matrix a (upper triangle read; a is overwritten): LAPACK
 * dsyevr for the first eigenvalue only (IL = IU = 1: the tridiagonal reduction, then bisection for that one,
 * abstol 0: LAPACK's eps ||T||_1, the accuracy of dsyevd's all-eigenvalue QR). dsyevr rather than dsyevd (all
 * n): 10% to 20% less time at n = 500 with the reference LAPACK, where the reduction (4n^3/3) is the rest. */
static raid_status min_eig_inplace(double *a, size_t n, double *out)
{
    double wv[1] = {NAN}, z[1];
    lapack_int found = 0, isuppz[2];
    /* row-major upper = column-major lower of the same array: 'L' in column-major order */
    const lapack_int info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'N', 'I', 'L', (lapack_int)n, a, (lapack_int)n, 0.0, 0.0,
                                           1, 1, 0.0, &found, wv, z, 1, isuppz);
    *out = info == 0 && found == 1 ? wv[0] : NAN;
    if (info != 0 || found != 1)
        return raidFail(NULL, RAID_EINVAL, "LAPACK dsyevr failed (info %d, %d eigenvalues)", (int)info, (int)found);
    return RAID_OK;
}

/* The present rows of a (n x n, row-major): those whose diagonal is not NAN; *k their number. */
static size_t *present_rows(const double *a, size_t n, size_t *k)
{
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    *k = 0;
    if (ix)
        for (size_t i = 0; i < n; i++)
            if (!isnan(a[i * n + i]))
                ix[(*k)++] = i;
    return ix;
}

raid_status raid_cov_min_eig(const double *a, size_t n, double *out)
{
    if (!a || !out)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_min_eig: NULL argument");
    *out = NAN;
    size_t k = 0;
    size_t *ix = present_rows(a, n, &k);
    double *b = malloc((k ? k * k : 1) * sizeof *b);
    if (!ix || !b) {
        free(ix);
        free(b);
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    }
    int finite = 1;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++) {
            const double v = a[ix[i] * n + ix[j]];
            finite &= isfinite(v);
            b[i * k + j] = v;
        }
    raid_status st = RAID_OK;
    if (k > 0 && finite)
        st = min_eig_inplace(b, k, out);
    free(ix);
    free(b);
    return st;
}

/* Y (k x k, symmetric) replaced by its projection on the PSD cone: V max(L, 0) V'. w, z: scratch. */
static raid_status psd_cone(double *Y, size_t k, double *w, double *z)
{
    memcpy(z, Y, k * k * sizeof *z);
    const lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)k, z, (lapack_int)k, w);
    if (info != 0)
        return raidFail(NULL, RAID_EINVAL, "LAPACK dsyevd failed (info %d)", (int)info);
    /* z holds the eigenvectors as columns (column-major): Y_ij = sum_l max(w_l, 0) z_il z_jl */
    for (size_t i = 0; i < k; i++)
        for (size_t j = i; j < k; j++) {
            RaidDd s = {0, 0};
            for (size_t l = 0; l < k; l++)
                if (w[l] > 0.0)
                    raidDdAdd(&s, w[l] * z[l * k + i] * z[l * k + j]);
            Y[i * k + j] = Y[j * k + i] = raidDdValue(s);
        }
    return RAID_OK;
}

raid_status raid_cov_psd_project(double *a, size_t n, int *iterations)
{
    if (!a)
        return raidFail(NULL, RAID_EINVAL, "raid_cov_psd_project: NULL argument");
    if (iterations)
        *iterations = 0;
    size_t k = 0;
    size_t *ix = present_rows(a, n, &k);
    if (!ix)
        return raidFail(NULL, RAID_ENOMEM, "out of memory");
    /* the rows with a positive variance; the others become zero (but their diagonal) */
    size_t kp = 0;
    for (size_t i = 0; i < k; i++) {
        const size_t r = ix[i];
        if (a[r * n + r] > 0.0)
            ix[kp++] = r;
        else
            for (size_t j = 0; j < n; j++)
                if (j != r && !isnan(a[j * n + j]))
                    a[r * n + j] = a[j * n + r] = 0.0;
    }
    k = kp;
    const size_t kk = k > 0 ? k * k : 1;
    double *Y = malloc(kk * sizeof *Y), *X = malloc(kk * sizeof *X), *R = malloc(kk * sizeof *R),
           *dS = calloc(kk, sizeof *dS), *z = malloc(kk * sizeof *z), *w = malloc((k ? k : 1) * sizeof *w),
           *sd = malloc((k ? k : 1) * sizeof *sd);
    raid_status st = RAID_OK;
    if (!Y || !X || !R || !dS || !z || !w || !sd) {
        st = raidFail(NULL, RAID_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < k; i++)
        sd[i] = sqrt(a[ix[i] * n + ix[i]]);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++)
            Y[i * k + j] = i == j ? 1.0 : a[ix[i] * n + ix[j]] / sd[i] / sd[j];
    int it = 0;
    for (; it < 10000 && k > 0; it++) { /* Higham 2002, Algorithm 3.3 */
        for (size_t e = 0; e < k * k; e++)
            R[e] = Y[e] - dS[e];
        memcpy(X, R, k * k * sizeof *X);
        if ((st = psd_cone(X, k, w, z)) != RAID_OK)
            goto out;
        double num = 0.0, den = 0.0;
        for (size_t e = 0; e < k * k; e++) {
            dS[e] = X[e] - R[e];
            const double yn = (e % (k + 1) == 0) ? 1.0 : X[e];
            num += (yn - Y[e]) * (yn - Y[e]);
            den += yn * yn;
            Y[e] = yn;
        }
        if (sqrt(num) <= 1e-12 * sqrt(den))
            break;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++)
            a[ix[i] * n + ix[j]] = i == j ? a[ix[i] * n + ix[i]] : Y[i * k + j] * sd[i] * sd[j];
    if (iterations)
        *iterations = it;
out:
    free(ix);
    free(Y);
    free(X);
    free(R);
    free(dS);
    free(z);
    free(w);
    free(sd);
    return st;
}

/* ---- the Gram estimators: the same series on the host (raidCovGramCpu, cov_gram.c) and on the device
 * (raidCovGram, cov_device.c) ---- */

/* G = A A' (upper triangle) of the P series of L values in A: mode DAY_CPU on the host, DAY_DEVICE on ctx's
 * device. Errors: RAID_ENOMEM, the device's. */
static raid_status gram(raid_ctx *ctx, day_mode mode, const double *A, size_t P, int64_t L, double *G)
{
    if (mode == DAY_DEVICE)
        return raidCovGram(ctx, A, NULL, P, L, 0, G);
    return raidCovGramCpu(A, P, L, G) == RAID_OK ? RAID_OK : raidFail(ctx, RAID_ENOMEM, "out of memory");
}

/* rsemicov's series: the positive parts of the P symbols, then their negative parts (2P x m). */
static double *semi_series(const double *R, int64_t m, size_t P)
{
    double *S = malloc(2 * P * (size_t)m * sizeof *S);
    if (S)
        for (size_t a = 0; a < P; a++)
            for (int64_t k = 0; k < m; k++) {
                const double x = R[a * (size_t)m + (size_t)k];
                S[a * (size_t)m + (size_t)k] = x > 0.0 ? x : 0.0;
                S[(P + a) * (size_t)m + (size_t)k] = x < 0.0 ? x : 0.0;
            }
    return S;
}

/* P = S+ S+', N = S- S-' (upper triangles) and M = S+ S-' (full) from the Gram matrix G of the 2P series. */
static void semi_parts(const double *G, size_t P, double *O)
{
    const size_t Q = 2 * P;
    for (size_t a = 0; a < P; a++)
        for (size_t b = 0; b < P; b++) {
            const size_t e = a * P + b;
            if (b >= a) {
                O[e] = G[a * Q + b];
                O[P * P + e] = G[(P + a) * Q + P + b];
            }
            O[2 * P * P + e] = G[a * Q + P + b];
        }
}

/* rsemicov: the three parts P, N, M one after another in O (3 P^2), from the Gram matrix of the 2P series. */
static raid_status gram_semicov(raid_ctx *ctx, day_mode mode, const double *R, int64_t m, size_t P, double *O)
{
    double *S = semi_series(R, m, P), *G = malloc(4 * P * P * sizeof *G);
    raid_status st = !S || !G ? raidFail(ctx, RAID_ENOMEM, "out of memory") : gram(ctx, mode, S, 2 * P, m, G);
    if (st == RAID_OK)
        semi_parts(G, P, O);
    free(S);
    free(G);
    return st;
}

/* mrc (psd 0) or mrc_psd (1) from the Gram matrices of the pre-averaged returns and (mrc) the returns. */
static raid_status gram_mrc(raid_ctx *ctx, day_mode mode, const double *R, int64_t m, size_t P, int psd, double *O,
                           int64_t *kn_out)
{
    mrc_prep q;
    raid_status st = mrc_prepare(ctx, R, m, P, psd, &q);
    if (st != RAID_OK)
        return st;
    double *GR = psd ? NULL : malloc(P * P * sizeof *GR);
    if (!psd && !GR)
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK)
        st = gram(ctx, mode, q.Y, P, q.ny, O);
    if (st == RAID_OK && !psd)
        st = gram(ctx, mode, R, P, m, GR);
    if (st == RAID_OK)
        for (size_t a = 0; a < P; a++)
            for (size_t b = a; b < P; b++)
                O[a * P + b] = mrc_entry(&q, psd, O[a * P + b], psd ? 0.0 : GR[a * P + b]);
    free(GR);
    free(q.Y);
    *kn_out = q.kn;
    return st;
}

static raid_status dev_rkcov(raid_ctx *ctx, const double *R, int64_t m, size_t P, const series *s, double *O,
                             int64_t *H_out)
{
    rk_prep q;
    raid_status st = rk_prepare(ctx, R, m, P, s, &q);
    *H_out = q.H;
    if (st != RAID_OK || q.H < 0)
        return st;
    double *Z = rk_smooth(&q, P, 0);
    st = Z ? raidCovGram(ctx, q.X, Z, P, q.n, 0, O) : raidFail(ctx, RAID_ENOMEM, "out of memory");
    free(Z);
    free(q.X);
    free(q.w);
    return st;
}

static raid_status dev_estimate(raid_ctx *ctx, raid_cov_estimator est, const double *R, int64_t m, size_t P,
                                const series *s, double *O, int64_t *bw)
{
    raid_status st = RAID_OK;
    switch (est) {
    case RAID_COV_RCOV: st = gram(ctx, DAY_DEVICE, R, P, m, O); break;
    case RAID_COV_RBPCOV:
        st = raidCovGram(ctx, R, NULL, P, m, 1, O);
        for (size_t a = 0; st == RAID_OK && a < P; a++)
            for (size_t b = a; b < P; b++)
                O[a * P + b] = PI / 8.0 * O[a * P + b];
        break;
    case RAID_COV_RSEMICOV: st = gram_semicov(ctx, DAY_DEVICE, R, m, P, O); break;
    case RAID_COV_MRC: st = gram_mrc(ctx, DAY_DEVICE, R, m, P, 0, O, bw); break;
    case RAID_COV_MRC_PSD: st = gram_mrc(ctx, DAY_DEVICE, R, m, P, 1, O, bw); break;
    case RAID_COV_RKCOV: st = dev_rkcov(ctx, R, m, P, s, O, bw); break;
    default: break;
    }
    return st;
}

/* ---- the scale of the device path's bound (raid_cov_scale; docs/precision.md "Covariance") ---- */

/* q[a] = sqrt(sum_t V_a,t^2) (compensated; the Cauchy-Schwarz factor of every entry's absolute sum) and
 * e[a], the device's scale exponent of the series (raidCovScales). */
static void norms(const double *V, size_t P, int64_t L, int common, double *q, int *e)
{
    for (size_t a = 0; a < P; a++) {
        RaidDd s = {0, 0};
        for (int64_t t = 0; t < L; t++)
            raidDdAdd(&s, V[a * (size_t)L + (size_t)t] * V[a * (size_t)L + (size_t)t]);
        q[a] = sqrt(raidDdValue(s));
    }
    raidCovScales(V, P, L, common, e);
}

/* The scale of a Gram sum of L terms of series with norms qa, qb and device exponents ea, eb: the bound on
 * its absolute sum qa qb plus the allowance for binary32 underflow, L 2^-100 2^(ea + eb). */
static double gram_scale(double qa, double qb, int ea, int eb, int64_t L)
{
    return qa * qb + ldexp((double)L, ea + eb - 100);
}

typedef struct scale_ws {
    double *q1, *q2;
    int *e1, *e2;
} scale_ws;

static raid_status scale_rkcov(raid_ctx *ctx, const double *R, int64_t m, size_t P, const series *s, double *O,
                               int64_t *H_out, scale_ws *w)
{
    rk_prep q;
    raid_status st = rk_prepare(ctx, R, m, P, s, &q);
    *H_out = q.H;
    if (st != RAID_OK || q.H < 0)
        return st;
    double *Z = rk_smooth(&q, P, 0), *Za = rk_smooth(&q, P, 1);
    if (!Z || !Za) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    } else { /* qW_a = |x_a|' W |x_a|: the absolute sums of the device and the cpu are within sqrt(qW_a qW_b) */
        raidCovScales(q.X, P, q.n, 0, w->e1);
        raidCovScales(Z, P, q.n, 0, w->e2);
        for (size_t a = 0; a < P; a++) {
            RaidDd t = {0, 0};
            for (int64_t k = 0; k < q.n; k++)
                raidDdAdd(&t, fabs(q.X[a * (size_t)q.n + (size_t)k]) * Za[a * (size_t)q.n + (size_t)k]);
            w->q1[a] = sqrt(raidDdValue(t));
        }
        for (size_t a = 0; a < P; a++)
            for (size_t b = a; b < P; b++)
                O[a * P + b] = gram_scale(w->q1[a], w->q1[b], w->e1[a], w->e2[b], q.n);
    }
    free(Z);
    free(Za);
    free(q.X);
    free(q.w);
    return st;
}

static raid_status scale_mrc(raid_ctx *ctx, const double *R, int64_t m, size_t P, int psd, double *O, int64_t *bw,
                             scale_ws *w)
{
    mrc_prep q;
    raid_status st = mrc_prepare(ctx, R, m, P, psd, &q);
    if (st != RAID_OK)
        return st;
    *bw = q.kn;
    norms(q.Y, P, q.ny, 0, w->q1, w->e1);
    norms(R, P, m, 0, w->q2, w->e2);
    for (size_t a = 0; a < P; a++)
        for (size_t b = a; b < P; b++)
            O[a * P + b] = fabs(q.c) * gram_scale(w->q1[a], w->q1[b], w->e1[a], w->e1[b], q.ny) +
                           (psd ? 0.0 : fabs(q.c2) / 2.0 * gram_scale(w->q2[a], w->q2[b], w->e2[a], w->e2[b], m));
    free(q.Y);
    return RAID_OK;
}

static raid_status scale_semicov(raid_ctx *ctx, const double *R, int64_t m, size_t P, double *O, scale_ws *w)
{
    double *S = semi_series(R, m, P);
    if (!S)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    norms(S, 2 * P, m, 0, w->q1, w->e1);
    for (size_t a = 0; a < P; a++)
        for (size_t b = 0; b < P; b++) {
            const size_t e = a * P + b;
            if (b >= a) {
                O[e] = gram_scale(w->q1[a], w->q1[b], w->e1[a], w->e1[b], m);
                O[P * P + e] = gram_scale(w->q1[P + a], w->q1[P + b], w->e1[P + a], w->e1[P + b], m);
            }
            O[2 * P * P + e] = gram_scale(w->q1[a], w->q1[P + b], w->e1[a], w->e1[P + b], m);
        }
    free(S);
    return RAID_OK;
}

static raid_status scale_estimate(raid_ctx *ctx, raid_cov_estimator est, const double *R, int64_t m, size_t P,
                                  const series *s, double *O, int64_t *bw)
{
    scale_ws w = {malloc(2 * P * sizeof(double)), malloc(2 * P * sizeof(double)), malloc(2 * P * sizeof(int)),
                  malloc(2 * P * sizeof(int))};
    raid_status st = RAID_OK;
    if (!w.q1 || !w.q2 || !w.e1 || !w.e2) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    switch (est) {
    case RAID_COV_RCOV:
        norms(R, P, m, 0, w.q1, w.e1);
        for (size_t a = 0; a < P; a++)
            for (size_t b = a; b < P; b++)
                O[a * P + b] = gram_scale(w.q1[a], w.q1[b], w.e1[a], w.e1[b], m);
        break;
    case RAID_COV_RBPCOV: /* (pi/8) (Q_a + Q_b), Q the sum of squares; one scale for all in the kernel */
        norms(R, P, m, 1, w.q1, w.e1);
        for (size_t a = 0; a < P; a++)
            for (size_t b = a; b < P; b++)
                O[a * P + b] = PI / 8.0 * (w.q1[a] * w.q1[a] + w.q1[b] * w.q1[b] + ldexp((double)m, 2 * w.e1[a] - 100));
        break;
    case RAID_COV_RSEMICOV: st = scale_semicov(ctx, R, m, P, O, &w); break;
    case RAID_COV_MRC: st = scale_mrc(ctx, R, m, P, 0, O, bw, &w); break;
    case RAID_COV_MRC_PSD: st = scale_mrc(ctx, R, m, P, 1, O, bw, &w); break;
    case RAID_COV_RKCOV: st = scale_rkcov(ctx, R, m, P, s, O, bw, &w); break;
    default: break;
    }
out:
    free(w.q1);
    free(w.q2);
    free(w.e1);
    free(w.e2);
    return st;
}

/* ---- the day ---- */

/* The minimum number of synchronised returns of an estimator (HY: none). */
static int64_t min_returns(raid_cov_estimator e)
{
    switch (e) {
    case RAID_COV_RBPCOV: return 2;
    case RAID_COV_MRC: return 5;
    case RAID_COV_MRC_PSD: return 2;
    case RAID_COV_RKCOV: return 3;
    default: return 1;
    }
}

/* The estimates on the synchronised returns R (P x m) into O (upper triangles; rsemicov's M in full). */
static raid_status day_estimate(raid_ctx *ctx, day_mode mode, raid_cov_estimator est, const double *R, int64_t m,
                                size_t P, const series *s, double *O, int64_t *bw)
{
    if (mode == DAY_DEVICE)
        return dev_estimate(ctx, est, R, m, P, s, O, bw);
    if (mode == DAY_SCALE)
        return scale_estimate(ctx, est, R, m, P, s, O, bw);
    switch (est) {
    case RAID_COV_RCOV: return gram(ctx, DAY_CPU, R, P, m, O);
    case RAID_COV_RBPCOV: est_rbpcov(R, m, P, O); return RAID_OK;
    case RAID_COV_RSEMICOV: return gram_semicov(ctx, DAY_CPU, R, m, P, O);
    case RAID_COV_MRC: return gram_mrc(ctx, DAY_CPU, R, m, P, 0, O, bw);
    case RAID_COV_MRC_PSD: return gram_mrc(ctx, DAY_CPU, R, m, P, 1, O, bw);
    case RAID_COV_RKCOV: return est_rkcov(ctx, R, m, P, s, O, bw);
    default: return RAID_OK;
    }
}

/* One day in mode: the matrices (or, DAY_SCALE, the scales: no eigenvalues) into out and info. */
/* The lower triangle of the n x n matrix a (row-major) from its upper triangle, in blocks of 32 x 32 so that
 * the column-wise writes stay in cache (entry by entry they missed it at every write: a quarter of a day of
 * 3,000 symbols). */
static void mirror(double *a, size_t n)
{
    enum { B = 32 };
#pragma omp parallel for schedule(dynamic, 1)
    for (long long i0 = 0; i0 < (long long)n; i0 += B)
        for (size_t j0 = (size_t)i0; j0 < n; j0 += B)
            for (size_t i = (size_t)i0; i < (size_t)i0 + B && i < n; i++)
                for (size_t j = j0 > i + 1 ? j0 : i + 1; j < j0 + B && j < n; j++)
                    a[j * n + i] = a[i * n + j];
}

static raid_status cov_day(raid_ctx *ctx, const RaidCovDay *d, double *out, raid_cov_info *info, day_mode mode)
{
    const size_t N = d->nsym, parts = (size_t)raid_cov_parts(d->est);
    int complete = 0; /* every entry of out written: else NAN everywhere (an error, no matrix) */
    info->npresent = 0;
    info->n = 0;
    info->bandwidth = 0;
    for (int q = 0; q < 3; q++)
        info->min_eig[q] = NAN;
    series s;
    raid_status st = series_make(ctx, d, &s);
    double *R = NULL, *O = NULL;
    int64_t m = 0;
    if (st != RAID_OK)
        goto done;
    const size_t P = s.P;
    info->npresent = (int64_t)P;
    if (P == 0)
        goto done;
    /* every symbol present: the estimators write into out itself (no copy of N^2 entries, no fresh pages) */
    const int direct = P == N;
    O = direct ? out : malloc(parts * P * P * sizeof *O);
    if (!O) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto done;
    }
    int defined = 1;
    if (d->est == RAID_COV_HY) { /* each symbol's own times: no synchronisation */
        st = est_hy(ctx, mode, &s, O, &info->n);
    } else {
        if ((st = sync_returns(ctx, d->sync, &s, &R, &m)) != RAID_OK)
            goto done;
        info->n = m;
        defined = m >= min_returns(d->est);
        if (defined) {
            st = day_estimate(ctx, mode, d->est, R, m, P, &s, O, &info->bandwidth);
            if (d->est == RAID_COV_RKCOV)
                defined = info->bandwidth > 0;
        }
    }
    if (st != RAID_OK)
        goto done;
    if (!defined) {
        info->bandwidth = -1;
        goto done;
    }
    if (!direct)
        for (size_t e = 0; e < parts * N * N; e++)
            out[e] = NAN;
    for (size_t q = 0; q < parts; q++) {
        const double *o = O + q * P * P;
        const int full = d->est == RAID_COV_RSEMICOV && q == 2;
        if (direct && !full)
            mirror(out + q * N * N, N);
        for (size_t a = 0; !direct && a < P; a++)
            for (size_t b = full ? 0 : a; b < P; b++) {
                const size_t i = s.idx[a], j = s.idx[b];
                out[q * N * N + i * N + j] = o[a * P + b];
                if (!full)
                    out[q * N * N + j * N + i] = o[a * P + b];
            }
    }
    complete = 1;
    for (size_t q = 0; q < parts; q++) {
        const double *o = O + q * P * P;
        const int full = d->est == RAID_COV_RSEMICOV && q == 2;
        if (!full && mode != DAY_SCALE && d->eig) {
            double *c = malloc(P * P * sizeof *c);
            if (!c) {
                st = raidFail(ctx, RAID_ENOMEM, "out of memory");
                goto done;
            }
            int finite = 1;
            for (size_t a = 0; a < P; a++)
                for (size_t b = a; b < P; b++) {
                    c[a * P + b] = c[b * P + a] = o[a * P + b];
                    finite &= isfinite(o[a * P + b]);
                }
            if (finite && (st = min_eig_inplace(c, P, &info->min_eig[q])) != RAID_OK)
                st = raidFail(ctx, st, "%s", raid_errmsg());
            free(c);
            if (st != RAID_OK)
                goto done;
        }
    }
done:
    if (!complete)
        for (size_t e = 0; e < parts * N * N; e++)
            out[e] = NAN;
    series_free(&s);
    free(R);
    if (O != out)
        free(O);
    return st;
}

static raid_status cov_host(raid_ctx *ctx, const RaidCovDay *d, double *out, raid_cov_info *info)
{
    return cov_day(ctx, d, out, info, DAY_CPU);
}

/* The device path (df only: the f32 policy is refused, see raid_cov_bound). */
static raid_status cov_device(raid_ctx *ctx, const RaidCovDay *d, double *out, raid_cov_info *info)
{
    if (raid_ctx_precision(ctx) != RAID_PREC_DF)
        return raidFail(ctx, RAID_EINVAL, "raid_cov_compute: the covariance device path offers the df precision policy "
                        "only (f32 is not offered: docs/precision.md \"Covariance\")");
    memset(&ctx->timing, 0, sizeof ctx->timing);
    return cov_day(ctx, d, out, info, DAY_DEVICE);
}

const RaidCovBackend raidCovBackends[2] = {{cov_host}, {cov_device}};

/* The argument checks of raid_cov_compute and raid_cov_scale (fn names the call). */
static raid_status check_args(raid_ctx *ctx, const char *fn, raid_cov_estimator est, raid_cov_sync sync, size_t nsym,
                              const int64_t *offsets, const int64_t *time_us, const double *price, const double *out)
{
    if ((int)est < 0 || (int)est >= RAID_COV_NESTIMATORS)
        return raidFail(ctx, RAID_EINVAL, "%s: estimator %d out of range", fn, (int)est);
    if (sync != RAID_COV_SYNC_PREVIOUS && sync != RAID_COV_SYNC_REFRESH)
        return raidFail(ctx, RAID_EINVAL, "%s: synchronisation %d out of range", fn, (int)sync);
    if (!offsets || (nsym > 0 && !out))
        return raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    if (offsets[0] < 0)
        return raidFail(ctx, RAID_EINVAL, "%s: offsets[0] is negative", fn);
    for (size_t i = 0; i < nsym; i++)
        if (offsets[i + 1] < offsets[i])
            return raidFail(ctx, RAID_EINVAL, "%s: offsets decrease at %zu", fn, i + 1);
    if (offsets[nsym] > offsets[0] && (!time_us || !price))
        return raidFail(ctx, RAID_EINVAL, "%s: NULL argument", fn);
    return RAID_OK;
}

raid_status raid_cov_compute(raid_ctx *ctx, raid_cov_estimator est, raid_cov_sync sync, size_t nsym,
                             const int64_t *offsets, const int64_t *time_us, const double *price, double *out,
                             raid_cov_info *info)
{
    static const char fn[] = "raid_cov_compute";
    raid_cov_info tmp;
    const int eig = info != NULL;
    if (!info)
        info = &tmp;
    memset(info, 0, sizeof *info);
    if (ctx)
        ctx->errmsg[0] = 0;
    raid_status st = check_args(ctx, fn, est, sync, nsym, offsets, time_us, price, out);
    if (st != RAID_OK)
        return st;
    if (nsym == 0)
        return RAID_OK;
    const RaidCovDay d = {est, sync, nsym, offsets, time_us, price, eig};
    return RAID_BACKEND(raidCovBackends, ctx)->compute(ctx, &d, out, info);
}

raid_status raid_cov_scale(raid_cov_estimator est, raid_cov_sync sync, size_t nsym, const int64_t *offsets,
                           const int64_t *time_us, const double *price, double *out)
{
    raid_status st = check_args(NULL, "raid_cov_scale", est, sync, nsym, offsets, time_us, price, out);
    if (st != RAID_OK || nsym == 0)
        return st;
    const RaidCovDay d = {est, sync, nsym, offsets, time_us, price, 0};
    raid_cov_info info;
    return cov_day(NULL, &d, out, &info, DAY_SCALE);
}

double raid_cov_bound(raid_precision p, raid_cov_estimator est)
{
    if (p != RAID_PREC_DF || (int)est < 0 || (int)est >= RAID_COV_NESTIMATORS)
        return NAN;
    return est == RAID_COV_RBPCOV ? 2e-12 : 1e-12;
}

double raid_cov_diff(const double *a, const double *b, const double *scale, size_t n)
{
    double worst = 0.0;
    for (size_t e = 0; e < n; e++) {
        if (a[e] == b[e] || (isnan(a[e]) && isnan(b[e])))
            continue;
        const double d = isnan(a[e]) || isnan(b[e]) || !(scale[e] > 0.0) ? INFINITY : fabs(a[e] - b[e]) / scale[e];
        worst = d > worst ? d : worst;
    }
    return worst;
}
