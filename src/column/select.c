/* The public side of the selections (include/raid/select.h; docs/column.md "Selection"): arguments,
 * segments, the dispatch through sel_backends between the cpu path (select_cpu.c) and the device path (select_device.c),
 * keys back to the input's bits, and numpy's float64 arithmetic (the median's mean, the quantile's
 * _lerp), the same for both paths. */
#include "column/select_internal.h"

#include "column/keys.h"
#include "device/device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine of one call: its backend (chosen once, engine_open), the device session, x. */
struct sel_backend;
typedef struct engine {
    raid_ctx *ctx;
    const struct sel_backend *be;
    RaidSelDevice *cl;
    const double *x;
    int64_t base0; /* offsets[0]: where the device copy starts */
    int xdev;      /* x is device memory of ctx (sel_memory): read in place, its few elements the host needs fetched */
    raid_status st; /* the first failed fetch (elem) */
} engine;

/* The backends of the selections, chosen by RAID_BACKEND(sel_backends, ctx): open (the device: x uploaded
 * once per call), the ranks of a segment, its smallest and largest keys, the survivors of its top-k (indices
 * into idx), close. A device call without elements opens no session, and its segments (empty) take the cpu
 * entries: part of the device entries. */
typedef struct sel_backend {
    raid_status (*open)(engine *e, const int64_t *offsets, size_t nseg);
    raid_status (*ranks)(engine *e, int64_t a, size_t n, const int64_t *ranks, size_t m, RaidSelRank *res,
                         RaidSelInfo *info);
    raid_status (*minmax)(engine *e, int64_t a, size_t n, uint64_t *kmin, uint64_t *kmax, RaidSelInfo *info);
    raid_status (*topk)(engine *e, int64_t a, size_t n, const double *xs, size_t k, int largest, int64_t *idx);
    void (*close)(engine *e);
} sel_backend;

static raid_status cpu_open(engine *e, const int64_t *offsets, size_t nseg)
{
    (void)e, (void)offsets, (void)nseg;
    return RAID_OK;
}

static raid_status cpu_ranks(engine *e, int64_t a, size_t n, const int64_t *ranks, size_t m, RaidSelRank *res,
                             RaidSelInfo *info)
{
    return raidSelCpuRanks(e->ctx, e->x + a, n, ranks, m, res, info);
}

static raid_status cpu_minmax(engine *e, int64_t a, size_t n, uint64_t *kmin, uint64_t *kmax, RaidSelInfo *info)
{
    raidSelCpuMinmax(e->x + a, n, kmin, kmax, info);
    return RAID_OK;
}

static raid_status cpu_topk(engine *e, int64_t a, size_t n, const double *xs, size_t k, int largest, int64_t *idx)
{
    (void)a;
    return raidSelCpuTopk(e->ctx, xs, n, k, largest, idx);
}

static void cpu_close(engine *e) { (void)e; }

static raid_status device_open(engine *e, const int64_t *offsets, size_t nseg)
{
    memset(&e->ctx->timing, 0, sizeof e->ctx->timing);
    const size_t N = (size_t)(offsets[nseg] - offsets[0]);
    return N ? raidSelDeviceOpen(e->ctx, e->x + offsets[0], N, &e->cl) : RAID_OK;
}

static raid_status device_ranks(engine *e, int64_t a, size_t n, const int64_t *ranks, size_t m, RaidSelRank *res,
                                RaidSelInfo *info)
{
    if (!e->cl)
        return cpu_ranks(e, a, n, ranks, m, res, info);
    return raidSelDeviceRanks(e->cl, (size_t)(a - e->base0), n, ranks, m, res, info);
}

static raid_status device_minmax(engine *e, int64_t a, size_t n, uint64_t *kmin, uint64_t *kmax, RaidSelInfo *info)
{
    if (!e->cl)
        return cpu_minmax(e, a, n, kmin, kmax, info);
    return raidSelDeviceMinmax(e->cl, (size_t)(a - e->base0), n, kmin, kmax, info);
}

static raid_status topk_survivors(engine *e, int64_t a, size_t n, const double *xs, size_t k, int largest,
                                  const RaidSelRank *res, int64_t *idx);

static raid_status device_topk(engine *e, int64_t a, size_t n, const double *xs, size_t k, int largest, int64_t *idx)
{
    if (!e->cl)
        return cpu_topk(e, a, n, xs, k, largest, idx);
    const int64_t r = largest ? (int64_t)(n - k) : (int64_t)k - 1;
    RaidSelRank res;
    RaidSelInfo in;
    const raid_status st = device_ranks(e, a, n, &r, 1, &res, &in);
    return st != RAID_OK ? st : topk_survivors(e, a, n, xs, k, largest, &res, idx);
}

static void device_close(engine *e)
{
    raidSelDeviceClose(e->cl);
    e->cl = NULL;
}

static const sel_backend sel_backends[2] = {
    [RAID_ON_CPU] = {cpu_open, cpu_ranks, cpu_minmax, cpu_topk, cpu_close},
    [RAID_ON_DEVICE] = {device_open, device_ranks, device_minmax, device_topk, device_close},
};

static raid_status engine_open(engine *e, raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                               int xdev)
{
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    e->x = x;
    e->xdev = xdev;
    e->base0 = offsets[0];
    e->be = RAID_BACKEND(sel_backends, ctx); /* the one choice of path: select_device.c on a device */
    return e->be->open(e, offsets, nseg);
}

static raid_status engine_ranks(engine *e, int64_t a, size_t n, const int64_t *ranks, size_t m, RaidSelRank *res,
                                RaidSelInfo *info)
{
    return e->be->ranks(e, a, n, ranks, m, res, info);
}

static raid_status engine_minmax(engine *e, int64_t a, size_t n, uint64_t *kmin, uint64_t *kmax, RaidSelInfo *info)
{
    return e->be->minmax(e, a, n, kmin, kmax, info);
}

/* Element i of x (an index into x): read on the host, or fetched from device memory (8 bytes; a failure
 * kept in e->st, NaN returned). */
static double elem(engine *e, int64_t i)
{
    if (!e->xdev)
        return e->x[i];
    double v = NAN;
    const raid_status st = raidCopyFromCaller(e->ctx, &v, e->x + i, sizeof v, "x");
    if (st != RAID_OK && e->st == RAID_OK)
        e->st = st;
    return v;
}

/* The input's bits of key K in the segment starting at a (the first element holding it: docs in select.h). */
static double key_value(engine *e, int64_t a, uint64_t K, const RaidSelInfo *in)
{
    if (K == RAID_SEL_KEY_NAN)
        return elem(e, a + in->first_nan);
    if (K == RAID_SEL_KEY_ZERO)
        return elem(e, a + in->first_zero);
    return raidKey64Value(K);
}

/* Where x and out live (docs/device.md "The caller's device memory"): device memory of a CUDA context's
 * device is read in place (*xdev) and the results written there (*odev); device memory elsewhere is refused
 * (raidMemKindOf), never read. out may be NULL (no output). */
static raid_status sel_memory(raid_ctx *ctx, const char *fn, const double *x, const int64_t *offsets, size_t nseg,
                              const void *out, size_t outbytes, int *xdev, int *odev)
{
    char what[80];
    RaidMemKind kx = RAID_MEM_HOST, ko = RAID_MEM_HOST;
    snprintf(what, sizeof what, "%s: x", fn);
    raid_status st = nseg ? raidMemKindOf(ctx, x + offsets[0], (size_t)(offsets[nseg] - offsets[0]) * 8, 8, what, &kx)
                          : RAID_OK;
    snprintf(what, sizeof what, "%s: out", fn);
    if (st == RAID_OK && out)
        st = raidMemKindOf(ctx, out, outbytes, 8, what, &ko);
    *xdev = kx == RAID_MEM_DEVICE;
    *odev = ko == RAID_MEM_DEVICE;
    return st;
}

static raid_status check_args(raid_ctx *ctx, const char *fn, const double *x, const int64_t *offsets, size_t nseg)
{
    if (!offsets)
        return raidFail(ctx, RAID_EINVAL, "%s: offsets is NULL", fn);
    const raid_status st = raidCheckOffsets(ctx, fn, "segment", offsets, nseg);
    if (st != RAID_OK)
        return st;
    if (!x && offsets[nseg] > offsets[0])
        return raidFail(ctx, RAID_EINVAL, "%s: x is NULL", fn);
    return RAID_OK;
}

static raid_status nomem(raid_ctx *ctx, const char *fn)
{
    return raidFail(ctx, RAID_ENOMEM, "%s: out of memory", fn);
}

/* One segment's results: row[0 .. width) of the call's output. */
typedef raid_status (*segment_fn)(engine *e, int64_t a, size_t n, const double *xs, const void *arg, double *row);

/* The driver of the calls with float64 outputs: every segment's row of `width` doubles into a temporary
 * table, copied to out (width nseg doubles) only when every segment succeeded (nothing written on
 * failure). Arguments already checked. */
static raid_status run_segments(raid_ctx *ctx, const char *fn, const double *x, const int64_t *offsets, size_t nseg,
                                size_t width, segment_fn f, const void *arg, double *out)
{
    if (nseg == 0 || width == 0)
        return RAID_OK;
    int xdev, odev;
    raid_status st = sel_memory(ctx, fn, x, offsets, nseg, out, nseg * width * sizeof *out, &xdev, &odev);
    if (st != RAID_OK)
        return st;
    double *tmp = malloc(nseg * width * sizeof *tmp);
    if (!tmp)
        return nomem(ctx, fn);
    engine e;
    st = engine_open(&e, ctx, x, offsets, nseg, xdev);
    for (size_t s = 0; s < nseg && st == RAID_OK; s++)
        if ((st = f(&e, offsets[s], (size_t)(offsets[s + 1] - offsets[s]), x + offsets[s], arg, tmp + s * width)) ==
            RAID_OK)
            st = e.st;
    e.be->close(&e);
    if (st == RAID_OK) /* out: memcpy, or one upload into device memory */
        st = raidCopyToCaller(ctx, out, tmp, nseg * width * sizeof *out, "out");
    free(tmp);
    return st;
}

static raid_status kth_segment(engine *e, int64_t a, size_t n, const double *xs, const void *arg, double *row)
{
    (void)xs; /* its elements through elem(): xs may be device memory */
    const int64_t k = *(const int64_t *)arg, r = k < 0 ? k + (int64_t)n : k;
    RaidSelRank res;
    RaidSelInfo in;
    const raid_status st = engine_ranks(e, a, n, &r, 1, &res, &in);
    if (st == RAID_OK)
        row[0] = key_value(e, a, res.key, &in);
    return st;
}

raid_status raid_select_kth(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, int64_t k,
                            double *out)
{
    const char *fn = "raid_select_kth";
    raid_status st = check_args(ctx, fn, x, offsets, nseg);
    if (st != RAID_OK)
        return st;
    if (nseg && !out)
        return raidFail(ctx, RAID_EINVAL, "%s: out is NULL", fn);
    for (size_t s = 0; s < nseg; s++) {
        const int64_t n = offsets[s + 1] - offsets[s], r = k < 0 ? k + n : k;
        if (r < 0 || r >= n)
            return raidFail(ctx, RAID_EINVAL, "%s: k = %lld is out of bounds for segment %zu of length %lld", fn,
                             (long long)k, s, (long long)n);
    }
    return run_segments(ctx, fn, x, offsets, nseg, 1, kth_segment, &k, out);
}

static raid_status median_segment(engine *e, int64_t a, size_t n, const double *xs, const void *arg, double *row)
{
    (void)arg, (void)xs; /* its elements through elem(): xs may be device memory */
    if (n == 0) {
        row[0] = NAN;
        return RAID_OK;
    }
    const int64_t r[2] = {((int64_t)n - 1) / 2, (int64_t)n / 2};
    const size_t m = n % 2 ? 1 : 2;
    RaidSelRank res[2];
    RaidSelInfo in;
    const raid_status st = engine_ranks(e, a, n, r, m, res, &in);
    if (st != RAID_OK)
        return st;
    if (in.nnan) {
        row[0] = elem(e, a + in.first_nan);
    } else {
        /* numpy's mean of the middle one or two: its sum starts at the additive identity 0.0 */
        const double v = key_value(e, a, res[0].key, &in);
        row[0] = m == 1 ? (0.0 + v) / 1.0 : ((0.0 + v) + key_value(e, a, res[1].key, &in)) / 2.0;
    }
    return RAID_OK;
}

raid_status raid_select_median(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, double *out)
{
    const char *fn = "raid_select_median";
    raid_status st = check_args(ctx, fn, x, offsets, nseg);
    if (st != RAID_OK)
        return st;
    if (nseg && !out)
        return raidFail(ctx, RAID_EINVAL, "%s: out is NULL", fn);
    return run_segments(ctx, fn, x, offsets, nseg, 1, median_segment, NULL, out);
}

/* numpy's _lerp (numpy/lib/_function_base_impl.py): diff = b - a; a + diff t, replaced by
 * b - diff (1 - t) where t >= 0.5. No contraction (the build forbids it). */
static double np_lerp(double a, double b, double t)
{
    const double d = b - a;
    double r = a + d * t;
    if (t >= 0.5)
        r = b - d * (1.0 - t);
    return r;
}

/* The values val[0..u) of the distinct ascending ranks r[0..u) (order statistics res) for the quantile's
 * _lerp, of the segment xs[0..n) that starts at index a of x. The zeros of a segment are one key; numpy's
 * partition holds them (mostly) in index order, so rank r of a zero is the (r - nless)-th zero of xs in
 * index order: one host scan for all of them, only when a zero is an operand (those ordinals ascend with r).
 * Device memory (e->xdev): that scan reads a host copy of xs[first zero .. n), made only then (select.h). */
static raid_status rank_values(engine *e, int64_t a, const double *xs, size_t n, const int64_t *r, size_t u,
                               const RaidSelRank *res, const RaidSelInfo *in, double *val)
{
    size_t zi = (size_t)in->first_zero;
    uint64_t seen = 0; /* zeros of xs[0..zi) */
    double *copy = NULL;
    const double *h = xs; /* h[i - off] is xs[i] on the host */
    size_t off = 0;
    for (size_t j = 0; j < u; j++) {
        val[j] = key_value(e, a, res[j].key, in);
        if (res[j].key != RAID_SEL_KEY_ZERO)
            continue;
        if (e->xdev && !copy) {
            if (!(copy = malloc((n - zi) * sizeof *copy)))
                return nomem(e->ctx, "raid_select_quantile");
            const raid_status st = raidCopyFromCaller(e->ctx, copy, xs + zi, (n - zi) * sizeof *copy, "x");
            if (st != RAID_OK) {
                free(copy);
                return st;
            }
            h = copy, off = zi;
        }
        for (const uint64_t k = (uint64_t)r[j] - res[j].nless; zi < n; zi++)
            if (h[zi - off] == 0.0 && seen++ == k) {
                val[j] = h[zi++ - off];
                break;
            }
    }
    free(copy);
    return e->st;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static size_t find_rank(const int64_t *r, size_t m, int64_t v)
{
    size_t lo = 0, hi = m;
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (r[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

typedef struct quantile_arg {
    const double *q;
    size_t nq;
} quantile_arg;

static raid_status quantile_segment(engine *e, int64_t a, size_t n, const double *xs, const void *arg, double *row)
{
    const quantile_arg *qa = arg;
    const size_t nq = qa->nq;
    double *gam = malloc(nq * sizeof *gam), *val = malloc(2 * nq * sizeof *val);
    int64_t *lo = malloc(nq * sizeof *lo), *r = malloc(2 * nq * sizeof *r);
    RaidSelRank *res = malloc(2 * nq * sizeof *res);
    raid_status st = RAID_OK;
    if (!gam || !val || !lo || !r || !res) {
        st = nomem(e->ctx, "raid_select_quantile");
        goto done;
    }
    /* numpy's indices: h = (n - 1) q; previous = floor(h), next = previous + 1, both -1 (the last) when
     * h >= n - 1; gamma = h - previous, computed AFTER previous became -1 there */
    const int64_t last = (int64_t)n - 1;
    size_t m = 0;
    for (size_t j = 0; j < nq; j++) {
        const double h = (double)last * qa->q[j];
        if (h >= (double)last) {
            lo[j] = last;
            gam[j] = h - (-1.0);
            r[m++] = last;
        } else {
            const double f = floor(h);
            lo[j] = (int64_t)f;
            gam[j] = h - f;
            r[m++] = lo[j];
            r[m++] = lo[j] + 1;
        }
    }
    qsort(r, m, sizeof *r, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || r[i] != r[u - 1])
            r[u++] = r[i];
    RaidSelInfo in;
    if ((st = engine_ranks(e, a, n, r, u, res, &in)) != RAID_OK)
        goto done;
    if (!in.nnan && (st = rank_values(e, a, xs, n, r, u, res, &in, val)) != RAID_OK)
        goto done;
    for (size_t j = 0; j < nq; j++) {
        if (in.nnan) {
            row[j] = elem(e, a + in.first_nan);
            continue;
        }
        const int64_t hi = lo[j] == last ? last : lo[j] + 1;
        row[j] = np_lerp(val[find_rank(r, u, lo[j])], val[find_rank(r, u, hi)], gam[j]);
    }
done:
    free(gam);
    free(val);
    free(lo);
    free(r);
    free(res);
    return st;
}

raid_status raid_select_quantile(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, const double *q,
                                 size_t nq, double *out)
{
    const char *fn = "raid_select_quantile";
    raid_status st = check_args(ctx, fn, x, offsets, nseg);
    if (st != RAID_OK)
        return st;
    if (nq && !q)
        return raidFail(ctx, RAID_EINVAL, "%s: q is NULL", fn);
    if (nseg && nq && !out)
        return raidFail(ctx, RAID_EINVAL, "%s: out is NULL", fn);
    for (size_t j = 0; j < nq; j++)
        if (!(q[j] >= 0.0 && q[j] <= 1.0))
            return raidFail(ctx, RAID_EINVAL, "%s: q[%zu] = %g is outside [0, 1] (quantiles must be in the range [0, 1])",
                             fn, j, q[j]);
    for (size_t s = 0; s < nseg; s++)
        if (nq && offsets[s + 1] == offsets[s])
            return raidFail(ctx, RAID_EINVAL, "%s: segment %zu is empty (no quantile of no values)", fn, s);
    const quantile_arg qa = {q, nq};
    return run_segments(ctx, fn, x, offsets, nseg, nq, quantile_segment, &qa, out);
}

/* row: min, max, nanmin, nanmax */
static raid_status minmax_segment(engine *e, int64_t a, size_t n, const double *xs, const void *arg, double *row)
{
    (void)arg;
    uint64_t kmin, kmax;
    RaidSelInfo in;
    const raid_status st = engine_minmax(e, a, n, &kmin, &kmax, &in);
    if (st != RAID_OK)
        return st;
    (void)xs; /* its elements through elem(): xs may be device memory */
    const double nanv = in.nnan ? elem(e, a + in.first_nan) : NAN;
    const double mn = key_value(e, a, kmin, &in); /* the NaN key only when every value is NaN */
    const double mx = in.nnan == (uint64_t)n ? nanv : key_value(e, a, kmax, &in);
    row[0] = in.nnan ? nanv : mn;
    row[1] = in.nnan ? nanv : mx;
    row[2] = mn;
    row[3] = mx;
    return RAID_OK;
}

raid_status raid_select_minmax(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, double *min,
                               double *max, double *nanmin, double *nanmax)
{
    const char *fn = "raid_select_minmax";
    raid_status st = check_args(ctx, fn, x, offsets, nseg);
    if (st != RAID_OK)
        return st;
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] == offsets[s])
            return raidFail(ctx, RAID_EINVAL, "%s: segment %zu is empty (no minimum or maximum of no values)", fn, s);
    if (nseg == 0)
        return RAID_OK;
    double *rows = malloc(5 * nseg * sizeof *rows);
    if (!rows)
        return nomem(ctx, fn);
    double *const outs[4] = {min, max, nanmin, nanmax};
    static const char *const names[4] = {"min", "max", "nanmin", "nanmax"};
    if ((st = run_segments(ctx, fn, x, offsets, nseg, 4, minmax_segment, NULL, rows)) == RAID_OK)
        for (int j = 0; j < 4 && st == RAID_OK; j++) /* each output as a column: memcpy or one upload */
            if (outs[j]) {
                double *col = rows + 4 * nseg; /* nseg more doubles after the rows */
                for (size_t s = 0; s < nseg; s++)
                    col[s] = rows[4 * s + j];
                st = raidCopyToCaller(ctx, outs[j], col, nseg * sizeof *col, names[j]);
            }
    free(rows);
    return st;
}

typedef struct key_idx {
    uint64_t key;
    int64_t idx;
} key_idx;

static int cmp_key_idx(const void *a, const void *b)
{
    const key_idx *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

/* The k survivors of segment xs[0..n) (k >= 1) on the device by threshold rank res: indices into idx
 * (any order). */
static raid_status topk_survivors(engine *e, int64_t a, size_t n, const double *xs, size_t k, int largest,
                                  const RaidSelRank *res, int64_t *idx)
{
    const uint64_t K = res->key;
    const size_t strict = largest ? (size_t)(n - res->nless - res->neq) : (size_t)res->nless;
    const size_t t = k - strict; /* ties at K taken: the first t (smallest) or last t (largest) in index order */
    raid_status st;
    if (t == res->neq) /* every tie is taken: one gather */
        return raidSelDeviceGather(e->cl, (size_t)(a - e->base0), n, K, largest ? 3 : 1, idx, k);
    if (strict && (st = raidSelDeviceGather(e->cl, (size_t)(a - e->base0), n, K, largest ? 2 : 0, idx, strict)) != RAID_OK)
        return st;
    size_t got = strict;
    for (size_t i = 0, tie = 0; tie < t && i < n; i++) { /* the ties: a host scan (select.h says so) */
        const size_t j = largest ? n - 1 - i : i;
        if (raidKey64(xs[j]) == K) {
            idx[got++] = (int64_t)j;
            tie++;
        }
    }
    return RAID_OK;
}

raid_status raid_select_topk(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, int64_t k,
                                      int largest, double *values, int64_t *index)
{
    const char *fn = "raid_select_topk";
    raid_status st = check_args(ctx, fn, x, offsets, nseg);
    if (st != RAID_OK)
        return st;
    if (k < 0)
        return raidFail(ctx, RAID_EINVAL, "%s: k = %lld is negative", fn, (long long)k);
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] - offsets[s] < k)
            return raidFail(ctx, RAID_EINVAL, "%s: k = %lld is larger than segment %zu (%lld values)", fn,
                             (long long)k, s, (long long)(offsets[s + 1] - offsets[s]));
    if (nseg == 0 || k == 0)
        return RAID_OK;
    const size_t K = (size_t)k;
    int xdev, vdev = 0, idev = 0, unused;
    if ((st = sel_memory(ctx, fn, x, offsets, nseg, values, nseg * K * 8, &xdev, &vdev)) != RAID_OK ||
        (st = sel_memory(ctx, fn, x, offsets, 0, index, nseg * K * 8, &unused, &idev)) != RAID_OK)
        return st;
    if (xdev || vdev || idev) /* its survivors are gathered and its ties scanned on the host */
        return raidFail(ctx, RAID_EINVAL, "%s: %s is device memory, and it takes host memory (docs/device.md \"The "
                                          "caller's device memory\")", fn, xdev ? "x" : vdev ? "values" : "index");
    key_idx *ki = malloc(nseg * K * sizeof *ki);
    int64_t *idx = malloc(K * sizeof *idx);
    if (!ki || !idx) {
        free(ki);
        free(idx);
        return nomem(ctx, fn);
    }
    engine e;
    st = engine_open(&e, ctx, x, offsets, nseg, 0);
    for (size_t s = 0; s < nseg && st == RAID_OK; s++) {
        const int64_t n = offsets[s + 1] - offsets[s];
        const double *xs = x + offsets[s];
        if ((st = e.be->topk(&e, offsets[s], (size_t)n, xs, K, largest, idx)) != RAID_OK)
            break;
        key_idx *o = ki + s * K;
        for (size_t j = 0; j < K; j++) {
            o[j].key = raidKey64(xs[idx[j]]);
            o[j].idx = idx[j];
        }
        qsort(o, K, sizeof *o, cmp_key_idx); /* the stable sort's order of the survivors */
        if (largest)
            for (size_t j = 0; j < K / 2; j++) {
                const key_idx tswap = o[j];
                o[j] = o[K - 1 - j];
                o[K - 1 - j] = tswap;
            }
    }
    e.be->close(&e);
    if (st == RAID_OK)
        for (size_t s = 0; s < nseg; s++)
            for (size_t j = 0; j < K; j++) {
                if (values)
                    values[s * K + j] = x[offsets[s] + ki[s * K + j].idx];
                if (index)
                    index[s * K + j] = ki[s * K + j].idx;
            }
    free(ki);
    free(idx);
    return st;
}
