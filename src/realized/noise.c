/*
 * Noise-robust realized measures of segments of returns (raid_realized_noise_compute), in float64 on the
 * host, whatever the context's device (a device path is future work: docs/measures.md). Every sum is a
 * compensated float64 sum (core/dd.h), so that each estimator is within a few roundings of its exact value
 * on the given returns even where its terms cancel (the kernel's autocovariances, the two scales of TSRV,
 * the bias correction of the pre-averaged RV). Formulas and constants: docs/measures.md "Noise-robust
 * measures".
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

/* Scratch of one segment of M returns: the jittered returns and the per-subgrid sums of window_sums. */
typedef struct scratch {
    double *x;   /* M - 2 jittered returns */
    RaidDd *sq;  /* q <= M sums of squares */
    int64_t *nz; /* q <= M counts of non-zero window sums */
} scratch;

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

/* xi^2 = omega^2 / IV of BNHLS 2009 (section 3.4) on returns: omega^2 = the mean over the dense subgrids
 * with a non-zero return of RV_dense^(j) / (2 n^(j)), n^(j) the number of non-zero returns of subgrid j;
 * IV = RV_sparse, the mean of the q sparse subgrids' RVs (each of the windows inside the segment). 0 when
 * omega^2 = 0; INFINITY when IV = 0 < omega^2 (no bandwidth: rk and tsrv are NAN). */
static double noise_ratio(const double *r, int64_t M, scratch *w)
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

/* The realized kernel of M >= 3 returns with bandwidth H (1 <= H <= M - 2): the end points jittered by
 * averaging m = 2 prices (BNHLS 2009, section 2.2): from the M + 1 log prices X_0..X_M, the prices
 * (X_0 + X_1)/2, X_2, ..., X_{M-2}, (X_{M-1} + X_M)/2, whose n = M - 2 returns are formed here from the
 * returns (exactly but for one rounding at each end) rather than as differences of summed prices; then
 * K = gamma_0 + 2 sum_{h=1}^{H} k(h/(H+1)) gamma_h, gamma_h = sum_{j=h+1}^{n} x_j x_{j-h}. */
static double realized_kernel(const double *r, int64_t M, int64_t H, double *x)
{
    const int64_t n = M - 2;
    if (n == 1) {
        x[0] = 0.5 * r[0] + r[1] + 0.5 * r[2];
    } else {
        x[0] = 0.5 * r[0] + r[1];
        for (int64_t j = 1; j < n - 1; j++)
            x[j] = r[j + 1];
        x[n - 1] = r[M - 2] + 0.5 * r[M - 1];
    }
    RaidDd k = {0, 0};
    for (int64_t h = 0; h <= H && h < n; h++) {
        RaidDd g = {0, 0};
        for (int64_t j = h; j < n; j++)
            raidDdAdd(&g, x[j] * x[j - h]);
        const double gh = raidDdValue(g);
        raidDdAdd(&k, h == 0 ? gh : 2.0 * (raidRealizedParzen((double)h / (double)(H + 1)) * gh));
    }
    return raidDdValue(k);
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

void raidPreavgWeights(int64_t kn, double *g, double *psi1, double *psi2)
{
    for (int64_t j = 0; j <= kn; j++) {
        const double t = (double)j / (double)kn;
        g[j] = j == 0 || j == kn ? 0.0 : (t < 1.0 - t ? t : 1.0 - t);
    }
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

/* The pre-averaged RV of M >= 5 returns (JLMPV 2009; CKP 2010): kn = ceil(theta sqrt(M)), theta = 1,
 * g(x) = min(x, 1-x), Ybar_i = sum_{j=1}^{kn-1} g(j/kn) r_{i+j}, i = 0 .. M-kn+1 (returns numbered from 1),
 *   prv = M/(M-kn+2) / (kn psi2) sum_i Ybar_i^2 - psi1 / (kn^2 psi2) RV/2
 * with the finite-kn constants psi1 = kn sum_{j=1}^{kn} (g(j/kn) - g((j-1)/kn))^2 and
 * psi2 = (1/kn) sum_{j=1}^{kn-1} g(j/kn)^2: the correction psi1/(theta^2 psi2) omega^2 with
 * omega^2 = RV/(2M) and theta = kn/sqrt(M), the theta the rounded kn realises, removes exactly the
 * expected noise term of the first sum for i.i.d. noise. g holds kn + 1 values. */
static double preaveraged(const double *r, int64_t M, double rv, double *g)
{
    const int64_t kn = raidPreavgKn(M);
    double psi1, psi2;
    raidPreavgWeights(kn, g, &psi1, &psi2);
    const double k = (double)kn;
    RaidDd s = {0, 0};
    for (int64_t i = 0; i <= M - kn + 1; i++) {
        RaidDd y = {0, 0};
        for (int64_t j = 1; j < kn; j++)
            raidDdAdd(&y, g[j] * r[i + j - 1]);
        const double yb = raidDdValue(y);
        raidDdAdd(&s, yb * yb);
    }
    const double m = (double)M;
    RaidDd out = {0, 0};
    raidDdAdd(&out, m / (m - k + 2.0) / (k * psi2) * raidDdValue(s));
    raidDdAdd(&out, -(psi1 / (k * k * psi2) * (rv / 2.0)));
    return raidDdValue(out);
}

double raidRealizedNoiseRatio(const double *r, int64_t M)
{
    if (M < 1)
        return NAN;
    scratch w = {NULL, malloc((size_t)M * sizeof(RaidDd)), malloc((size_t)M * sizeof(int64_t))};
    const double xi2 = w.sq && w.nz ? noise_ratio(r, M, &w) : NAN;
    free(w.sq);
    free(w.nz);
    return xi2;
}

/* The measures of one segment of M returns; scratch w has room for M. */
static void segment(const double *r, int64_t M, scratch *w, raid_realized_noise *o)
{
    o->n = M;
    o->rk = o->rk_h = o->tsrv = o->tsrv_k = o->prv = o->minrv = NAN;
    if (M < 2)
        return;
    RaidDd rv = {0, 0}, mn = {0, 0};
    for (int64_t i = 0; i < M; i++) {
        raidDdAdd(&rv, r[i] * r[i]);
        if (i >= 1) {
            const double a = fabs(r[i]), b = fabs(r[i - 1]), c = a < b ? a : b;
            raidDdAdd(&mn, c * c);
        }
    }
    const double m = (double)M, RV = raidDdValue(rv);
    o->minrv = PI / (PI - 2.0) * (m / (m - 1.0)) * raidDdValue(mn);
    /* prv from kn = 3 (M >= 5): with kn = 2 the pre-averaged returns are r_i/2 and the correction takes
     * all of the first term: prv = 0 whatever the returns */
    if (M >= 5)
        o->prv = preaveraged(r, M, RV, w->x);
    if (M < 3)
        return;
    const double xi2 = noise_ratio(r, M, w);
    /* rk: H = max(1, ceil(c* xi^(4/5) n^(3/5))), n = M - 2 jittered returns; NAN where H > n (the rule
     * asks for more lags than the segment has, or xi is infinite) */
    const int64_t n = M - 2;
    const double hs = ceil(RK_CSTAR * pow(xi2, 0.4) * pow((double)n, 0.6));
    if (hs <= (double)n) {
        const int64_t H = hs > 1.0 ? (int64_t)hs : 1;
        o->rk_h = (double)H;
        o->rk = realized_kernel(r, M, H, w->x);
    }
    /* tsrv: K = max(2, ceil(c* M^(2/3))), c* = (12 xi^4)^(1/3) (ZMA 2005, eq. (55) with (E eps^2)^2 /
     * (T int sigma^4) = xi^4); NAN where K > M/2 */
    const double ks = ceil(cbrt(12.0 * xi2 * xi2) * pow(m, 2.0 / 3.0));
    if (M >= 4 && ks <= (double)(M / 2)) {
        const int64_t K = ks > 2.0 ? (int64_t)ks : 2;
        window_sums(r, M, K, w->sq, w->nz);
        const double avg = total(w->sq, K) / (double)K, nbar = (double)(M - K + 1) / (double)K;
        RaidDd t = {0, 0};
        raidDdAdd(&t, avg);
        raidDdAdd(&t, -(nbar / m * RV));
        o->tsrv_k = (double)K;
        o->tsrv = raidDdValue(t) / (1.0 - nbar / m);
    }
}

raid_status raid_realized_noise_compute(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                        raid_realized_noise *out)
{
    if (!ctx)
        return raidFail(NULL, RAID_EINVAL, "raid_realized_noise_compute: ctx is NULL");
    raid_status s = raidRealizedArgs(ctx, r, offsets, nseg, out);
    if (s != RAID_OK || nseg == 0 || offsets[nseg] == offsets[0]) {
        for (size_t i = 0; s == RAID_OK && i < nseg; i++)
            segment(NULL, 0, NULL, &out[i]);
        return s;
    }
    const int64_t i0 = offsets[0], i1 = offsets[nseg];
    RaidMemKind kind;
    if ((s = raidMemKindOf(ctx, r + i0, (size_t)(i1 - i0) * sizeof *r, sizeof *r, "raid_realized_noise_compute: returns",
                           &kind)) != RAID_OK)
        return s;
    if (kind != RAID_MEM_HOST)
        return raidFail(ctx, RAID_EINVAL, "raid_realized_noise_compute: returns: CUDA device memory; the noise-robust "
                        "measures are computed on the host: give host memory");
    if ((s = raidRealizedCheckRange(ctx, r, i0, i1)) != RAID_OK)
        return s;
    int64_t longest = 0;
    for (size_t i = 0; i < nseg; i++)
        if (offsets[i + 1] - offsets[i] > longest)
            longest = offsets[i + 1] - offsets[i];
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        /* per thread: room for the longest segment (x needs M + 1 for prv's weights) */
        scratch w = {malloc((size_t)(longest + 1) * sizeof(double)), malloc((size_t)longest * sizeof(RaidDd)),
                     malloc((size_t)longest * sizeof(int64_t))};
        const int ok = w.x && w.sq && w.nz;
        failed |= !ok;
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < (long long)nseg; i++)
            if (ok)
                segment(r + offsets[i], offsets[i + 1] - offsets[i], &w, &out[i]);
        free(w.x);
        free(w.sq);
        free(w.nz);
    }
    if (failed)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    return RAID_OK;
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
