/*
 * Noise-robust realized measures of segments of returns (raid_realized_noise_compute): the entry, the
 * choices of each segment (the noise ratio, H, K, kn) and the final combinations shared by both backends,
 * and the float64 cpu backend. Every sum of the cpu backend is a compensated float64 sum (core/dd.h), so
 * that each estimator is within a few roundings of its exact value on the given returns even where its
 * terms cancel (the kernel's autocovariances, the two scales of TSRV, the bias correction of the
 * pre-averaged RV); the device backend (noise_device.c) computes the heavy sums on the device and shares
 * everything else. Formulas and constants: docs/measures.md "Noise-robust measures".
 *
 *   rk     realized kernel, Parzen weights, m = 2 jittered end points, BNHLS 2009's bandwidth
 *          Barndorff-Nielsen, Hansen, Lunde and Shephard (2008 Econometrica; 2009 Econometrics Journal)
 *   tsrv   two-scale RV with the small-sample adjustment   Zhang, Mykland and Ait-Sahalia (2005 JASA)
 *   prv    pre-averaged RV, g(x) = min(x, 1-x), theta = 1  Jacod, Li, Mykland, Podolskij and Vetter (2009);
 *                                                           Christensen, Kinnebrock and Podolskij (2010)
 *   minrv  (pi/(pi-2)) (M/(M-1)) sum min(|r_i|,|r_{i+1}|)^2  Andersen, Dobrev and Schaumburg (2012)
 */
#include "realized/realized_internal.h"

#include "core/dd.h"
#include "device/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* BNHLS 2009: c* = ((12)^2 / 0.269)^(1/5) for the Parzen kernel. */
#define RK_CSTAR 3.5134
/* The grids of BNHLS 2009's bandwidth estimate, in returns rather than minutes (the segment has no
 * times): the dense grid of about 2-minute returns and the sparse one of about 20-minute returns of a
 * 6.5-hour day are 195 and 20 intervals: every q-th price with q = max(1, floor(M/195)) and
 * q = max(1, floor(M/20)). */
#define DENSE_INTERVALS 195
#define SPARSE_INTERVALS 20

const char *const raid_realized_noise_names[RAID_REALIZED_NOISE_NMEASURES] = {"rk",  "rk_h", "tsrv",
                                                                            "tsrv_k", "prv", "minrv"};

double raid_realized_noise_get(const raid_realized_noise *x, int k)
{
    switch (k) {
    case 0: return x->rk;
    case 1: return x->rk_h;
    case 2: return x->tsrv;
    case 3: return x->tsrv_k;
    case 4: return x->prv;
    case 5: return x->minrv;
    default: return NAN;
    }
}

/* The window sums S_i = r[i] + ... + r[i+q-1], i = 0 .. M-q (the returns over q steps of every subgrid:
 * S_i is the return from price i to price i+q, so subgrid j = i mod q holds every q-th price from price
 * j), kept as a running compensated sum: sq[j] gets sum S_i^2 and nz[j] the number of S_i != 0 over the
 * i of subgrid j, j = 0 .. q-1. 1 <= q <= M. */
static void window_sums(const double *r, int64_t M, int64_t q, RaidDd *sq, int64_t *nz)
{
    memset(sq, 0, (size_t)q * sizeof *sq);
    memset(nz, 0, (size_t)q * sizeof *nz);
    RaidDd w = {0, 0};
    int64_t j = 0; /* (i - q + 1) mod q, the subgrid of the window ending at i */
    for (int64_t i = 0; i < M; i++) {
        raidDdAdd(&w, r[i]);
        if (i >= q)
            raidDdAdd(&w, -r[i - q]);
        if (i >= q - 1) {
            const double s = raidDdValue(w);
            raidDdAdd(&sq[j], s * s);
            nz[j] += s != 0.0;
            j = j + 1 == q ? 0 : j + 1;
        }
    }
}

/* sum_j sq[j], j < q */
static double total(const RaidDd *sq, int64_t q)
{
    RaidDd t = {0, 0};
    for (int64_t j = 0; j < q; j++)
        raidDdAdd(&t, raidDdValue(sq[j]));
    return raidDdValue(t);
}

int64_t raidNoiseLongest(const int64_t *offsets, size_t nseg)
{
    int64_t longest = 0;
    for (size_t i = 0; i < nseg; i++)
        if (offsets[i + 1] - offsets[i] > longest)
            longest = offsets[i + 1] - offsets[i];
    return longest;
}

raid_status raidNoiseScratchInit(RaidNoiseScratch *w, int64_t longest)
{
    /* x needs M + 1 for prv's weights, gamma H + 1 <= M - 1 */
    w->x = malloc((size_t)(longest + 1) * sizeof(double));
    w->gamma = malloc((size_t)(longest + 1) * sizeof(double));
    w->sq = malloc((size_t)(longest > 0 ? longest : 1) * sizeof(RaidDd));
    w->nz = malloc((size_t)(longest > 0 ? longest : 1) * sizeof(int64_t));
    return w->x && w->gamma && w->sq && w->nz ? RAID_OK : RAID_ENOMEM;
}

void raidNoiseScratchFree(RaidNoiseScratch *w)
{
    free(w->x);
    free(w->gamma);
    free(w->sq);
    free(w->nz);
    memset(w, 0, sizeof *w);
}

/* xi^2 = omega^2 / IV of BNHLS 2009 (section 3.4) on returns: omega^2 = the mean over the dense subgrids
 * with a non-zero return of RV_dense^(j) / (2 n^(j)), n^(j) the number of non-zero returns of subgrid j;
 * IV = RV_sparse, the mean of the q sparse subgrids' RVs (each of the windows inside the segment). 0 when
 * omega^2 = 0; INFINITY when IV = 0 < omega^2 (no bandwidth: rk and tsrv are NAN). */
static double noise_ratio(const double *r, int64_t M, RaidNoiseScratch *w)
{
    const int64_t qd = M / DENSE_INTERVALS > 1 ? M / DENSE_INTERVALS : 1;
    window_sums(r, M, qd, w->sq, w->nz);
    RaidDd om = {0, 0};
    int64_t used = 0;
    for (int64_t j = 0; j < qd; j++)
        if (w->nz[j] > 0) {
            raidDdAdd(&om, raidDdValue(w->sq[j]) / (2.0 * (double)w->nz[j]));
            used++;
        }
    const double omega2 = used ? raidDdValue(om) / (double)used : 0.0;
    const int64_t qs = M / SPARSE_INTERVALS > 1 ? M / SPARSE_INTERVALS : 1;
    window_sums(r, M, qs, w->sq, w->nz);
    const double iv = total(w->sq, qs) / (double)qs;
    if (omega2 == 0.0)
        return 0.0;
    return iv > 0.0 ? omega2 / iv : INFINITY;
}

double raidRealizedParzen(double x)
{
    if (x <= 0.5)
        return 1.0 - 6.0 * x * x + 6.0 * x * x * x;
    const double y = 1.0 - x;
    return 2.0 * y * y * y;
}

double raidNoiseKernelWeight(int64_t h, int64_t H)
{
    return h == 0 ? 1.0 : 2.0 * raidRealizedParzen((double)h / (double)(H + 1));
}

int64_t raidPreavgKn(int64_t M)
{
    int64_t kn = (int64_t)ceil(sqrt((double)M));
    while (kn > 1 && (kn - 1) * (kn - 1) >= M) /* the smallest kn with kn^2 >= M, exactly */
        kn--;
    while (kn * kn < M)
        kn++;
    return kn;
}

/* g(j/kn) = min(j/kn, 1 - j/kn), j = 0 .. kn, into g. */
static void prv_weights(int64_t kn, double *g)
{
    for (int64_t j = 0; j <= kn; j++) {
        const double t = (double)j / (double)kn;
        g[j] = j == 0 || j == kn ? 0.0 : (t < 1.0 - t ? t : 1.0 - t);
    }
}

void raidPreavgWeights(int64_t kn, double *g, double *psi1, double *psi2)
{
    prv_weights(kn, g);
    RaidDd p1 = {0, 0}, p2 = {0, 0};
    for (int64_t j = 1; j <= kn; j++) {
        const double d = g[j] - g[j - 1];
        raidDdAdd(&p1, d * d);
        if (j < kn)
            raidDdAdd(&p2, g[j] * g[j]);
    }
    const double k = (double)kn;
    *psi1 = k * raidDdValue(p1);
    *psi2 = raidDdValue(p2) / k;
}

double raidRealizedNoiseRatio(const double *r, int64_t M)
{
    if (M < 1)
        return NAN;
    RaidNoiseScratch w = {NULL, NULL, malloc((size_t)M * sizeof(RaidDd)), malloc((size_t)M * sizeof(int64_t))};
    const double xi2 = w.sq && w.nz ? noise_ratio(r, M, &w) : NAN;
    free(w.sq);
    free(w.nz);
    return xi2;
}

void raidNoisePlanOf(const double *r, int64_t M, RaidNoiseScratch *w, RaidNoisePlan *p)
{
    p->M = M;
    p->H = p->K = p->kn = 0;
    if (M >= 5) /* prv from kn = 3: with kn = 2 the correction takes all of the first term */
        p->kn = raidPreavgKn(M);
    if (M < 3)
        return;
    const double xi2 = noise_ratio(r, M, w);
    /* rk: H = max(1, ceil(c* xi^(4/5) n^(3/5))), n = M - 2 jittered returns; none where H > n (the rule
     * asks for more lags than the segment has, or xi is infinite) */
    const int64_t n = M - 2;
    const double hs = ceil(RK_CSTAR * pow(xi2, 0.4) * pow((double)n, 0.6));
    if (hs <= (double)n)
        p->H = hs > 1.0 ? (int64_t)hs : 1;
    /* tsrv: K = max(2, ceil(c* M^(2/3))), c* = (12 xi^4)^(1/3) (ZMA 2005, eq. (55) with (E eps^2)^2 /
     * (T int sigma^4) = xi^4); none where K > M/2 */
    const double ks = ceil(cbrt(12.0 * xi2 * xi2) * pow((double)M, 2.0 / 3.0));
    if (M >= 4 && ks <= (double)(M / 2))
        p->K = ks > 2.0 ? (int64_t)ks : 2;
}

/* The jittered returns of M >= 3 returns (BNHLS 2009, section 2.2, m = 2): from the M + 1 log prices
 * X_0..X_M, the prices (X_0 + X_1)/2, X_2, ..., X_{M-2}, (X_{M-1} + X_M)/2, whose n = M - 2 returns are
 * formed from the returns (exactly but for one rounding at each end) rather than as differences of summed
 * prices: x_0 = r_0/2 + r_1, x_j = r_{j+1}, x_{n-1} = r_{M-2} + r_{M-1}/2 (n = 1: r_0/2 + r_1 + r_2/2). */
static double jittered(const double *r, int64_t M, int64_t j)
{
    const int64_t n = M - 2;
    if (n == 1)
        return 0.5 * r[0] + r[1] + 0.5 * r[2];
    if (j == 0)
        return 0.5 * r[0] + r[1];
    if (j == n - 1)
        return r[M - 2] + 0.5 * r[M - 1];
    return r[j + 1];
}

double raidNoiseGammaEnds(const double *r, int64_t M, int64_t h)
{
    const int64_t n = M - 2;
    RaidDd s = {0, 0};
    if (h >= 1 && h <= n - 2) /* j = h, j - h = 0 (h = 0: x_0^2, within the j = n - 1 term when n = 1) */
        raidDdAdd(&s, jittered(r, M, h) * jittered(r, M, 0));
    if (h == 0 && n >= 2)
        raidDdAdd(&s, jittered(r, M, 0) * jittered(r, M, 0));
    if (h <= n - 1) /* j = n - 1 */
        raidDdAdd(&s, jittered(r, M, n - 1) * jittered(r, M, n - 1 - h));
    return raidDdValue(s);
}

/* The autocovariances gamma_h = sum_{j=h}^{n-1} x_j x_{j-h} of the n = M - 2 jittered returns, h = 0 ..
 * min(H, n - 1), into gamma (the float64 path). */
static void gammas(const double *r, int64_t M, int64_t H, double *x, double *gamma)
{
    const int64_t n = M - 2;
    for (int64_t j = 0; j < n; j++)
        x[j] = jittered(r, M, j);
    for (int64_t h = 0; h <= H && h < n; h++) {
        RaidDd g = {0, 0};
        for (int64_t j = h; j < n; j++)
            raidDdAdd(&g, x[j] * x[j - h]);
        gamma[h] = raidDdValue(g);
    }
}

/* The realized kernel from the autocovariances: K = gamma_0 + 2 sum_{h=1}^{H} k(h/(H+1)) gamma_h
 * (BNHLS 2009, eq. (2)); gamma_h = 0 for h >= n. */
static double kernel_of(const double *gamma, int64_t M, int64_t H)
{
    RaidDd k = {0, 0};
    for (int64_t h = 0; h <= H && h < M - 2; h++)
        raidDdAdd(&k, h == 0 ? gamma[h] : 2.0 * (raidRealizedParzen((double)h / (double)(H + 1)) * gamma[h]));
    return raidDdValue(k);
}

/* sum_i Ybar_i^2 of the pre-averaged returns Ybar_i = sum_{j=1}^{kn-1} g(j/kn) r_{i+j}, i = 0 .. M-kn+1
 * (returns numbered from 1), with the weights g[0 .. kn] (the float64 path). */
static double preaveraged_sum(const double *r, int64_t M, int64_t kn, const double *g)
{
    RaidDd s = {0, 0};
    for (int64_t i = 0; i <= M - kn + 1; i++) {
        RaidDd y = {0, 0};
        for (int64_t j = 1; j < kn; j++)
            raidDdAdd(&y, g[j] * r[i + j - 1]);
        const double yb = raidDdValue(y);
        raidDdAdd(&s, yb * yb);
    }
    return raidDdValue(s);
}

void raidNoiseFinish(const RaidNoisePlan *p, const RaidNoiseSums *s, double *g, raid_realized_noise *o)
{
    const int64_t M = p->M;
    o->n = M;
    o->rk = o->rk_h = o->tsrv = o->tsrv_k = o->prv = o->minrv = NAN;
    if (M < 2)
        return;
    const double m = (double)M, RV = s->rv;
    o->minrv = PI / (PI - 2.0) * (m / (m - 1.0)) * s->mn;
    /* prv (JLMPV 2009; CKP 2010): kn = ceil(theta sqrt(M)), theta = 1, g(x) = min(x, 1-x),
     *   prv = M/(M-kn+2) / (kn psi2) sum_i Ybar_i^2 - psi1 / (kn^2 psi2) RV/2
     * with the finite-kn constants psi1 = kn sum_{j=1}^{kn} (g(j/kn) - g((j-1)/kn))^2 and
     * psi2 = (1/kn) sum_{j=1}^{kn-1} g(j/kn)^2: the correction psi1/(theta^2 psi2) omega^2 with
     * omega^2 = RV/(2M) and theta = kn/sqrt(M), the theta the rounded kn realises, removes exactly the
     * expected noise term of the first sum for i.i.d. noise. */
    if (p->kn) {
        double psi1, psi2;
        raidPreavgWeights(p->kn, g, &psi1, &psi2);
        const double k = (double)p->kn;
        RaidDd out = {0, 0};
        raidDdAdd(&out, m / (m - k + 2.0) / (k * psi2) * s->qp);
        raidDdAdd(&out, -(psi1 / (k * k * psi2) * (RV / 2.0)));
        o->prv = raidDdValue(out);
    }
    if (p->H) {
        o->rk_h = (double)p->H;
        o->rk = kernel_of(s->gamma, M, p->H);
    }
    /* tsrv (ZMA 2005, eq. (64)): ([Y,Y]^(avg) - (nbar/M) RV) / (1 - nbar/M), nbar = (M - K + 1)/K */
    if (p->K) {
        const int64_t K = p->K;
        const double avg = s->qk / (double)K, nbar = (double)(M - K + 1) / (double)K;
        RaidDd t = {0, 0};
        raidDdAdd(&t, avg);
        raidDdAdd(&t, -(nbar / m * RV));
        o->tsrv_k = (double)K;
        o->tsrv = raidDdValue(t) / (1.0 - nbar / m);
    }
}

double raidNoiseMinSum(const double *r, int64_t M)
{
    RaidDd mn = {0, 0};
    for (int64_t i = 1; i < M; i++) {
        const double a = fabs(r[i]), b = fabs(r[i - 1]), c = a < b ? a : b;
        raidDdAdd(&mn, c * c);
    }
    return raidDdValue(mn);
}

void raidNoiseCpuSegment(const double *r, int64_t M, RaidNoiseScratch *w, raid_realized_noise *o)
{
    RaidNoisePlan p;
    raidNoisePlanOf(r, M, w, &p);
    RaidNoiseSums s = {0, 0, w ? w->gamma : NULL, 0, 0};
    RaidDd rv = {0, 0};
    for (int64_t i = 0; i < M; i++)
        raidDdAdd(&rv, r[i] * r[i]);
    s.rv = raidDdValue(rv);
    s.mn = raidNoiseMinSum(r, M);
    if (p.kn) {
        prv_weights(p.kn, w->x);
        s.qp = preaveraged_sum(r, M, p.kn, w->x);
    }
    if (p.H)
        gammas(r, M, p.H, w->x, w->gamma);
    if (p.K) {
        window_sums(r, M, p.K, w->sq, w->nz);
        s.qk = total(w->sq, p.K);
    }
    raidNoiseFinish(&p, &s, w ? w->x : NULL, o);
}

/* The cpu backend: each segment on one OpenMP thread. */
raid_status raidRealizedNoiseCpu(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                 raid_realized_noise *out)
{
    const int64_t longest = raidNoiseLongest(offsets, nseg);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        RaidNoiseScratch w; /* per thread: room for the longest segment */
        const int ok = raidNoiseScratchInit(&w, longest) == RAID_OK;
        failed |= !ok;
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < (long long)nseg; i++)
            if (ok)
                raidNoiseCpuSegment(r + offsets[i], offsets[i + 1] - offsets[i], &w, &out[i]);
        raidNoiseScratchFree(&w);
    }
    if (failed)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    return RAID_OK;
}

const RaidRealizedNoiseBackend raidRealizedNoiseBackends[2] = {
    [RAID_ON_CPU] = {raidRealizedNoiseCpu},
    [RAID_ON_DEVICE] = {raidRealizedNoiseDevice},
};

raid_status raid_realized_noise_compute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                        raid_realized_noise *out)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "raid_realized_noise_compute: ctx is NULL");
    raid_status s = raidRealizedArgs(ctx, r, offsets, nseg, out);
    if (s != RAID_OK || nseg == 0 || offsets[nseg] == offsets[0]) {
        for (size_t i = 0; s == RAID_OK && i < nseg; i++)
            raidNoiseCpuSegment(NULL, 0, NULL, &out[i]);
        return s;
    }
    const int64_t i0 = offsets[0], i1 = offsets[nseg];
    RaidMemKind kind;
    if ((s = raidMemKindOf(ctx, r + i0, (size_t)(i1 - i0) * sizeof *r, sizeof *r, "raid_realized_noise_compute: returns",
                           &kind)) != RAID_OK)
        return s;
    if (kind != RAID_MEM_HOST)
        return raidFail(ctx, RAID_EINVAL, "raid_realized_noise_compute: returns: CUDA device memory; the noise-robust "
                        "measures choose their bandwidths on the host: give host memory");
    if ((s = raidRealizedCheckRange(ctx, r, i0, i1)) != RAID_OK)
        return s;
    return RAID_BACKEND(raidRealizedNoiseBackends, ctx)->compute(ctx, r, offsets, nseg, out);
}

/* ---- the columns of the realized table ---- */

const char *raid_realized_column_name(int k)
{
    if (k >= 0 && k < RAID_REALIZED_NMEASURES)
        return raid_realized_names[k];
    if (k >= RAID_REALIZED_NMEASURES && k < RAID_REALIZED_NCOLUMNS)
        return raid_realized_noise_names[k - RAID_REALIZED_NMEASURES];
    return NULL;
}

raid_status raid_realized_measures_parse(const char *list, int *cols, size_t *ncols)
{
    if (!list || !cols || !ncols)
        return raidFail(NULL, RAID_EINVAL, "raid_realized_measures_parse: NULL argument");
    *ncols = 0;
    char valid[256] = "";
    for (int k = 0; k < RAID_REALIZED_NCOLUMNS; k++) {
        strcat(valid, k ? ", " : "");
        strcat(valid, raid_realized_column_name(k));
    }
    if (!*list)
        return raidFail(NULL, RAID_EINVAL, "empty list of measures (valid: %s)", valid);
    size_t n = 0;
    for (const char *p = list;;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0)
            return raidFail(NULL, RAID_EINVAL, "an empty name in the list of measures '%s' (valid: %s)", list, valid);
        int k = 0;
        while (k < RAID_REALIZED_NCOLUMNS &&
               !(strlen(raid_realized_column_name(k)) == len && !memcmp(raid_realized_column_name(k), p, len)))
            k++;
        if (k == RAID_REALIZED_NCOLUMNS)
            return raidFail(NULL, RAID_EINVAL, "unknown measure '%.*s' (valid: %s)", (int)(len < 64 ? len : 64), p, valid);
        for (size_t i = 0; i < n; i++)
            if (cols[i] == k)
                return raidFail(NULL, RAID_EINVAL, "measure '%s' given twice", raid_realized_column_name(k));
        cols[n++] = k;
        if (!e)
            break;
        p = e + 1;
    }
    *ncols = n;
    return RAID_OK;
}

/* ---- the device path's bound (docs/precision.md "The noise-robust measures") ---- */

/*
 * u = 2^-24, u64 = 2^-53. Input: df splits each scaled return within u^2 (1 + u) (f32: rounds it, u).
 * e_pair: the relative error of a sum of products of two returns (rv, minrv's sum, each autocovariance
 * relative to the sum of its terms' magnitudes): the input's (1 + e_in)^2 - 1, plus 2e-15 for the rest:
 * every product split exactly into floats, the triple-float accumulation (about 20 k u^3 after k floats:
 * at most 8 x 4,096 floats per work-item, 1.4e-16), its rounding to a pair (u^3), the host's compensated
 * sums over work-items and chunks (2 u64), the float64 path's own error (2 u64) and the final float64
 * steps (4 u64): 1.0e-15, budgeted at 2e-15.
 * c_q: the sums of squared window sums Q = sum_i S_i^2 (window of L <= 2^16 returns): each S_i within
 * eta A_i + u^2 |S_i| (A_i the window's sum of |w_k r_{i+k}|; eta = e_in + 80 L u^3 the input and the
 * accumulation of 4 L floats), the float64 path's within 4 u64 A_i + u64 |S_i|; summed with
 * sum |S_i| A_i <= sqrt(Q B), sum A_i^2 <= B = (sum_k w_k^2) L rv (Cauchy-Schwarz):
 *   |dQ| <= 2 (eta + 4 u64) sqrt(Q B) + (2 u^2 + 3 u64 + 2e-15) Q + 2 (eta^2 + 16 u64^2) B
 *        <= c_q (sqrt(Q B) + Q + 2^-24 B).
 */
static double noise_bound(raid_precision p, int k)
{
    const double u = ldexp(1.0, -24), u64 = ldexp(1.0, -53);
    const double e_in = p == RAID_PREC_F32 ? u : u * u * (1 + u);
    const double e_pair = (1 + e_in) * (1 + e_in) - 1 + 2e-15;
    const double eta = e_in + 80.0 * (double)RAID_NOISE_MAX_WINDOW * u * u * u, ec = 4 * u64;
    double c_q = 2 * (eta + ec);
    const double c2 = 2 * u * u + 3 * u64 + 2e-15, c3 = 2 * (eta * eta + ec * ec) * ldexp(1.0, 24);
    c_q = c_q > c2 ? c_q : c2;
    c_q = c_q > c3 ? c_q : c3;
    switch (k) {
    case 0: return e_pair + 4 * u64;                         /* rk, on 1.25 W rv */
    case 1: case 3: return 0.0;                              /* rk_h, tsrv_k: the host's choices */
    case 2: case 4: return (c_q > e_pair ? c_q : e_pair) + 4 * u64; /* tsrv, prv */
    case 5: return e_pair + 4 * u64;                         /* minrv, relative */
    default: return NAN;
    }
}

double raid_realized_noise_bound(raid_precision p, int k, int64_t M)
{
    (void)M;
    return noise_bound(p, k);
}

/* sqrt(Q B) + Q + 2^-24 B: the scale of a sum of squared window sums (noise_bound's c_q). */
static double window_scale(double Q, double B)
{
    Q = Q > 0 ? Q : 0;
    return sqrt(Q * B) + Q + ldexp(B, -24);
}

/* The scale S of raid_realized_noise_diff for column k of the float64 result b (M = b->n returns). */
static double noise_scale(const raid_realized_noise *b, int k, double rv)
{
    const int64_t M = b->n;
    const double m = (double)M;
    if (k == 0) { /* 1.25 W rv: the jittered returns' squares sum to at most 1.25 rv */
        const int64_t H = (int64_t)b->rk_h;
        RaidDd w = {0, 0};
        for (int64_t h = 0; h <= H && h < M - 2; h++)
            raidDdAdd(&w, raidNoiseKernelWeight(h, H));
        return 1.25 * raidDdValue(w) * rv;
    }
    if (k == 2) { /* tsrv = (Q/K - (nbar/M) rv) / (1 - nbar/M), B = K^2 rv */
        const double K = b->tsrv_k, f = (m - K + 1) / K / m;
        const double Q = K * (b->tsrv * (1 - f) + f * rv);
        return (window_scale(Q, K * K * rv) / K + f * rv) / (1 - f);
    }
    if (k == 4) { /* prv = c1 Q - c2 rv, B = kn psi2 (kn - 1) rv */
        const int64_t kn = raidPreavgKn(M);
        double *g = malloc((size_t)(kn + 1) * sizeof *g);
        if (!g)
            return NAN;
        double psi1, psi2;
        raidPreavgWeights(kn, g, &psi1, &psi2);
        free(g);
        const double K = (double)kn, c1 = m / (m - K + 2.0) / (K * psi2), c2 = psi1 / (K * K * psi2) / 2.0;
        const double Q = (b->prv + c2 * rv) / c1;
        return c1 * window_scale(Q, K * psi2 * (K - 1) * rv) + c2 * rv;
    }
    return fabs(raid_realized_noise_get(b, k)); /* minrv */
}

double raid_realized_noise_diff(const raid_realized_noise *a, const raid_realized_noise *b, int k, double rv)
{
    const double x = raid_realized_noise_get(a, k), y = raid_realized_noise_get(b, k);
    if (isnan(x) && isnan(y))
        return 0.0;
    if (isnan(x) || isnan(y))
        return INFINITY;
    if (x == y)
        return 0.0;
    if (k == 1 || k == 3)
        return INFINITY;
    const double s = noise_scale(b, k, rv);
    return s > 0 ? fabs(x - y) / s : INFINITY;
}
