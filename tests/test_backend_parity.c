/* Backend parity: every device capability run through the public API on the same inputs on two device
 * contexts, the CUDA backend's and the OpenCL backend's, whose results must be equal bit for bit (memcmp
 * of every float64 and every integer output, statuses and messages too). The kernels are the same sources
 * (kernels/raid_compat.h's dialect), compiled without contraction on both backends, and every device
 * path combines its partials in a fixed order (docs/device.md), so nothing but a defect of a backend or of
 * the dialect can make them differ. No capability documents a device result that changes from run to run
 * (the group-by's atomics add exact integers in any order; the sort's and the selections' count or place
 * whole elements), so nothing is compared within a bound. The one known dependence on the device, the
 * robust meat's chunk of rows (shortened where the device's local memory is small), is kept equal by the
 * size of the problems (test_regress).
 *
 * Which devices: RAID_PARITY_DEVICES="A B" (two device strings, e.g. "cuda opencl:0.0"; "opencl:0.0
 * opencl:0.0" runs the whole test on PoCL, the ctest entry test_backend_parity_self); by default `cuda`
 * and the first OpenCL GPU that raid_devices lists, else its first OpenCL device. Where a backend of the
 * pair cannot run, the program exits 77 (ctest's skip) saying which. A difference fails with the
 * capability, the case, the output, its first differing element and both values in hex.
 *
 * Inputs: sizes of several chunks and work-groups with partial tiles (lengths that are not multiples of
 * 256, segments of one element, empty ones where accepted, a non-zero first offset), and -0.0,
 * subnormals, NaN of several payloads and infinities wherever the capability accepts them. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include "raid.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static raid_ctx *g_ctx[2];
static char g_spec[2][64];

/* ---- comparison ---- */

/* raid_ctx_last_timing holds the last device call's figures, and a call that a device context computes on
 * the host leaves the previous call's there: so before each call the figures are zeroed by an empty
 * group-by on the device context (its timing starts when it admits the rows, and no rows launch nothing),
 * and checked to be zero. */
static void reset_timing(void)
{
    static const raid_agg count = RAID_AGG_COUNT;
    for (int d = 0; d < 2; d++) {
        raid_groupby *g = NULL;
        assert_int_equal(raid_groupby_compute(g_ctx[d], NULL, NULL, NULL, 0, &count, 1, 0, &g), RAID_OK);
        raid_groupby_destroy(g);
        raid_timing t;
        raid_ctx_last_timing(g_ctx[d], &t);
        if (t.launches != 0)
            fail_msg("an empty group-by on %s left %" PRIu64 " launches in raid_ctx_last_timing: the test cannot "
                     "tell a call computed on the device from one computed on the host", g_spec[d], t.launches);
    }
}

/* Fails unless both calls succeeded and both launched kernels (a call handed whole to the host would
 * compare the cpu path with itself); then zeroes the timing for the next call. */
static void same_status(const char *cap, const char *cas, const raid_status st[2])
{
    if (st[0] != RAID_OK || st[1] != RAID_OK)
        fail_msg("%s: %s: A %s gave %s (%s), B %s gave %s (%s)", cap, cas, g_spec[0], raid_strerror(st[0]),
                 raid_ctx_errmsg(g_ctx[0]), g_spec[1], raid_strerror(st[1]), raid_ctx_errmsg(g_ctx[1]));
    for (int d = 0; d < 2; d++) {
        raid_timing t;
        raid_ctx_last_timing(g_ctx[d], &t);
        if (t.launches == 0)
            fail_msg("%s: %s: no kernel ran on %s (the call was computed on the host)", cap, cas, g_spec[d]);
    }
    reset_timing();
}

static void show_elem(char *buf, size_t len, const unsigned char *p, size_t w, int is_double)
{
    if (w == 8) {
        uint64_t u;
        memcpy(&u, p, 8);
        if (is_double)
            snprintf(buf, len, "0x%016" PRIx64 " (%.17g)", u, t_from_bits(u));
        else
            snprintf(buf, len, "0x%016" PRIx64 " (%" PRId64 ")", u, (int64_t)u);
    } else if (w == 4) {
        uint32_t u;
        memcpy(&u, p, 4);
        snprintf(buf, len, "0x%08" PRIx32 " (%" PRId32 ")", u, (int32_t)u);
    } else {
        snprintf(buf, len, "0x%02x", p[0]);
    }
}

static uint64_t g_compared; /* elements compared, for the summary */

/* n elements of w bytes at a and b must be equal byte for byte; else fail naming the first that is not. */
static void same_mem(const char *cap, const char *cas, const char *what, const void *a, const void *b, size_t n,
                     size_t w, int is_double)
{
    g_compared += n;
    if (n == 0 || !memcmp(a, b, n * w))
        return;
    const unsigned char *pa = a, *pb = b;
    size_t i;
    for (i = 0; i < n && !memcmp(pa + i * w, pb + i * w, w); i++)
        ;
    size_t ndiff = 0;
    for (size_t j = i; j < n; j++)
        ndiff += memcmp(pa + j * w, pb + j * w, w) != 0;
    char sa[80], sb[80];
    show_elem(sa, sizeof sa, pa + i * w, w, is_double);
    show_elem(sb, sizeof sb, pb + i * w, w, is_double);
    fail_msg("%s: %s: %s[%zu] differs (%zu of %zu elements): A %s %s, B %s %s", cap, cas, what, i, ndiff, n,
             g_spec[0], sa, g_spec[1], sb);
}
#define SAME_F64(cap, cas, what, a, b, n) same_mem(cap, cas, what, a, b, n, sizeof(double), 1)
#define SAME_INT(cap, cas, what, a, b, n) same_mem(cap, cas, what, a, b, n, sizeof *(a), 0)

static void same_str(const char *cap, const char *cas, const char *what, const char *a, const char *b)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
        fail_msg("%s: %s: %s differs: A %s \"%s\", B %s \"%s\"", cap, cas, what, g_spec[0], a ? a : "(null)",
                 g_spec[1], b ? b : "(null)");
}

static void both_precision(raid_precision p)
{
    for (int d = 0; d < 2; d++)
        assert_int_equal(raid_ctx_set_precision(g_ctx[d], p), RAID_OK);
}

static const char *prec_name(raid_precision p) { return p == RAID_PREC_F32 ? "f32" : "df"; }

/* ---- inputs ---- */

enum { V_NAN = 1, V_INF = 2, V_BITS = 4 };

/* A value of about scale: mostly uniform in [-scale/2, scale/2), sometimes -0.0, +0.0, a subnormal of
 * either sign, a value rounded to a tie (repeats), and where allowed a NaN (two payloads, both signs), an
 * infinity, or random bits over the whole exponent range (V_BITS, finite unless V_NAN and V_INF). */
static double awkward(uint64_t *s, unsigned allow, double scale)
{
    const uint64_t u = t_splitmix64(s);
    const double x = (t_unif(s) - 0.5) * scale;
    switch (u & 31) {
    case 0:
        return -0.0;
    case 1:
        return 0.0;
    case 2:
        return 0x1p-1074 * (double)(1 + (u >> 40 & 0xfff));
    case 3:
        return -0x1.8p-1030;
    case 4:
        return (allow & V_NAN) ? t_from_bits(0x7ff8000000000000ULL | (u >> 20 & 0xffff)) : x;
    case 5:
        return (allow & V_NAN) ? t_from_bits(0xfff0000000000001ULL) : x; /* a signalling NaN's bits, negative */
    case 6:
        return (allow & V_INF) ? INFINITY : x;
    case 7:
        return (allow & V_INF) ? -INFINITY : x;
    case 8:
    case 9:
    case 10:
        return round(x * 8 / scale) * scale / 8; /* ties */
    case 11:
        if (allow & V_BITS) {
            double b = t_from_bits(t_splitmix64(s));
            if (!isfinite(b) && !((allow & V_NAN) && (allow & V_INF)))
                b = x;
            return b;
        }
        return x;
    default:
        return x;
    }
}

/* offsets[0] = base, offsets[s + 1] = offsets[s] + len[s]; returns offsets[nseg]. */
static int64_t make_offsets(const int64_t *len, size_t nseg, int64_t base, int64_t *off)
{
    off[0] = base;
    for (size_t s = 0; s < nseg; s++)
        off[s + 1] = off[s] + len[s];
    return off[nseg];
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void done(const char *cap, double t0, uint64_t c0)
{
    print_message("%s: %" PRIu64 " values equal bit for bit (%.2f s)\n", cap, g_compared - c0, now() - t0);
}

/* ---- realized measures ---- */

static void realized_case(const char *cas, const double *r, const int64_t *off, size_t nseg)
{
    raid_realized *o[2];
    raid_status st[2];
    for (int d = 0; d < 2; d++) {
        o[d] = calloc(nseg, sizeof *o[d]);
        st[d] = raid_realized_compute(g_ctx[d], r, off, nseg, o[d]);
    }
    same_status("realized", cas, st);
    int64_t *n[2];
    double *m[2];
    for (int d = 0; d < 2; d++) {
        n[d] = malloc(nseg * sizeof *n[d]);
        m[d] = malloc(nseg * sizeof *m[d]);
        for (size_t s = 0; s < nseg; s++)
            n[d][s] = o[d][s].n;
    }
    SAME_INT("realized", cas, "n", n[0], n[1], nseg);
    for (int k = 0; k < RAID_REALIZED_NMEASURES; k++) {
        for (int d = 0; d < 2; d++)
            for (size_t s = 0; s < nseg; s++)
                m[d][s] = raid_realized_get(&o[d][s], k);
        SAME_F64("realized", cas, raid_realized_names[k], m[0], m[1], nseg);
    }
    for (int d = 0; d < 2; d++)
        free(o[d]), free(n[d]), free(m[d]);
}

/* Segments of 0 to 30,001 returns (chunks of 4,096 and their tails), log returns of 1e-3, returns with
 * -0.0, zeros and subnormals, large returns (1e70, near RAID_MAX_RETURN), tiny ones whose squares underflow
 * (the host guard's segments), a constant segment. Both precisions, and a chunk plan of 1,024 by 64. */
static void test_realized(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    static const int64_t len[] = {0,    1,    2,    3, 5,     255, 256, 257,  511, 4095,
                                  4096, 4097, 8193, 1, 30001, 2,   700, 1000, 300, 3};
    const size_t nseg = sizeof len / sizeof *len;
    int64_t off[sizeof len / sizeof *len + 1];
    const int64_t total = make_offsets(len, nseg, 3, off);
    double *r = malloc((size_t)total * sizeof *r);
    uint64_t rng = 11;
    for (int64_t i = 0; i < off[0]; i++)
        r[i] = 1.0;
    for (size_t s = 0; s < nseg; s++)
        for (int64_t i = off[s]; i < off[s + 1]; i++) {
            double x;
            switch (s % 6) {
            case 0:
                x = awkward(&rng, 0, 2e-3);
                break;
            case 1:
                x = 1e-3 * (t_unif(&rng) - 0.5);
                break;
            case 2:
                x = awkward(&rng, 0, 2e70);
                break;
            case 3:
                x = 1e-160 * (t_unif(&rng) - 0.5); /* r^2 underflows */
                break;
            case 4:
                x = 0.25;
                break;
            default:
                x = (t_unif(&rng) - 0.5) * 1e-2 * (1 + (double)(i % 7));
            }
            r[i] = x;
        }
    for (int p = 0; p < 2; p++) {
        const raid_precision prec = p ? RAID_PREC_F32 : RAID_PREC_DF;
        both_precision(prec);
        char cas[64];
        snprintf(cas, sizeof cas, "%s, %zu segments", prec_name(prec), nseg);
        realized_case(cas, r, off, nseg);
    }
    both_precision(RAID_PREC_DF);
    for (int d = 0; d < 2; d++)
        assert_int_equal(raid_ctx_set_chunk(g_ctx[d], 1024, 64), RAID_OK);
    realized_case("df, chunks of 1024 by 64", r, off, nseg);
    for (int d = 0; d < 2; d++)
        assert_int_equal(raid_ctx_set_chunk(g_ctx[d], 4096, 256), RAID_OK);
    free(r);
    done("realized", t0, c0);
}

/* ---- regression statistics and meats ---- */

#define REG_K 3

static void same_stats(const char *cas, const raid_reg_stats *a, const raid_reg_stats *b, size_t nreg)
{
    for (size_t g = 0; g < nreg; g++) {
        char c[160];
        snprintf(c, sizeof c, "%.96s, problem %zu", cas, g);
        SAME_INT("regress stats", c, "k", &a[g].k, &b[g].k, 1);
        SAME_INT("regress stats", c, "n", &a[g].n, &b[g].n, 1);
        SAME_F64("regress stats", c, "mean", a[g].mean, b[g].mean, RAID_REG_MAX_K + 1);
        SAME_F64("regress stats", c, "cxx", a[g].cxx, b[g].cxx, RAID_REG_MAX_K * RAID_REG_MAX_K);
        SAME_F64("regress stats", c, "cxy", a[g].cxy, b[g].cxy, RAID_REG_MAX_K);
        SAME_F64("regress stats", c, "cyy", &a[g].cyy, &b[g].cyy, 1);
        SAME_F64("regress stats", c, "xtx", a[g].xtx, b[g].xtx, RAID_REG_MAX_K * RAID_REG_MAX_K);
        SAME_F64("regress stats", c, "xty", a[g].xty, b[g].xty, RAID_REG_MAX_K);
        SAME_F64("regress stats", c, "yty", &a[g].yty, &b[g].yty, 1);
        SAME_F64("regress stats", c, "ysum", &a[g].ysum, &b[g].ysum, 1);
    }
}

/* X = (1, a level of 1e4 plus noise, a small column with -0.0, zeros and subnormals), y linear in them plus
 * noise; problems of 1 to 9,000 rows from a non-zero first offset. The statistics (raid_reg_stats_compute),
 * the meats of the problems (raid_reg_meat_compute, 2 lags) and of overlapping rolling windows
 * (raid_reg_meat_ranges, and _at with a centre), in both precisions. The meat kernel's chunk of rows is
 * 1,024 unless the device's local memory is smaller than the chunk's scores (1,024 k 8 bytes in df: 24 KiB
 * for k = 3, which every device of either backend has): with k = 3 both devices sum the same chunks. */
static void test_regress(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    static const int64_t len[] = {1, 2, 3, 257, 1000, 4097, 9000, 5, 256, 700};
    const size_t nreg = sizeof len / sizeof *len;
    int64_t off[sizeof len / sizeof *len + 1];
    const int64_t total = make_offsets(len, nreg, 4, off);
    double *X = malloc((size_t)total * REG_K * sizeof *X), *y = malloc((size_t)total * sizeof *y);
    uint64_t rng = 22;
    for (int64_t i = 0; i < total; i++) {
        X[i * REG_K + 0] = 1.0;
        X[i * REG_K + 1] = 1e4 + (t_unif(&rng) - 0.5) * 2;
        X[i * REG_K + 2] = awkward(&rng, 0, 4.0);
        y[i] = 2.0 + 0.5 * X[i * REG_K + 1] - 3.0 * X[i * REG_K + 2] + (t_unif(&rng) - 0.5);
    }
    double beta[sizeof len / sizeof *len * REG_K];
    for (size_t g = 0; g < nreg; g++)
        beta[g * REG_K] = 2.0 + 0.01 * (double)g, beta[g * REG_K + 1] = 0.5, beta[g * REG_K + 2] = -3.0;
    /* rolling windows of 600 rows, step 250, over rows [4, total) */
    enum { W = 600, STEP = 250 };
    const size_t nwin = (size_t)((total - 4 - W) / STEP + 1);
    int64_t *ws = malloc(nwin * sizeof *ws), *we = malloc(nwin * sizeof *we);
    double *wbeta = malloc(nwin * REG_K * sizeof *wbeta), *wcentre = malloc(nwin * REG_K * sizeof *wcentre);
    for (size_t w = 0; w < nwin; w++) {
        ws[w] = 4 + (int64_t)w * STEP, we[w] = ws[w] + W;
        wbeta[w * REG_K] = 2.0, wbeta[w * REG_K + 1] = 0.5 + 1e-3 * (double)w, wbeta[w * REG_K + 2] = -3.0;
        wcentre[w * REG_K] = 0.0, wcentre[w * REG_K + 1] = 1e4, wcentre[w * REG_K + 2] = 0.0;
    }
    enum { LAGS = 2 };
    const size_t mper = (LAGS + 1) * REG_K * REG_K;
    for (int p = 0; p < 2; p++) {
        const raid_precision prec = p ? RAID_PREC_F32 : RAID_PREC_DF;
        both_precision(prec);
        char cas[96];
        raid_reg_stats s[2][sizeof len / sizeof *len];
        raid_status st[2];
        for (int d = 0; d < 2; d++) {
            memset(s[d], 0, sizeof s[d]);
            st[d] = raid_reg_stats_compute(g_ctx[d], X, y, REG_K, off, nreg, s[d]);
        }
        snprintf(cas, sizeof cas, "%s, %zu problems", prec_name(prec), nreg);
        same_status("regress stats", cas, st);
        same_stats(cas, s[0], s[1], nreg);

        double *m[2];
        for (int d = 0; d < 2; d++) {
            m[d] = calloc(nreg * mper, sizeof *m[d]);
            st[d] = raid_reg_meat_compute(g_ctx[d], X, y, REG_K, off, nreg, beta, LAGS, m[d]);
        }
        snprintf(cas, sizeof cas, "%s, meat of %zu problems, %d lags", prec_name(prec), nreg, LAGS);
        same_status("regress meat", cas, st);
        SAME_F64("regress meat", cas, "meat", m[0], m[1], nreg * mper);
        for (int d = 0; d < 2; d++) {
            free(m[d]);
            m[d] = calloc(nwin * mper, sizeof *m[d]);
            st[d] = raid_reg_meat_ranges(g_ctx[d], X, y, REG_K, ws, we, nwin, wbeta, LAGS, m[d]);
        }
        snprintf(cas, sizeof cas, "%s, meat of %zu rolling windows of %d", prec_name(prec), nwin, W);
        same_status("regress meat ranges", cas, st);
        SAME_F64("regress meat ranges", cas, "meat", m[0], m[1], nwin * mper);
        for (int d = 0; d < 2; d++) {
            memset(m[d], 0, nwin * mper * sizeof *m[d]);
            st[d] = raid_reg_meat_ranges_at(g_ctx[d], X, y, REG_K, ws, we, nwin, wbeta, wcentre, LAGS, m[d]);
        }
        snprintf(cas, sizeof cas, "%s, meat about a centre of %zu rolling windows", prec_name(prec), nwin);
        same_status("regress meat ranges_at", cas, st);
        SAME_F64("regress meat ranges_at", cas, "meat", m[0], m[1], nwin * mper);
        free(m[0]), free(m[1]);
    }
    both_precision(RAID_PREC_DF);
    free(X), free(y), free(ws), free(we), free(wbeta), free(wcentre);
    done("regress", t0, c0);
}

/* ---- sort ---- */

/* Values with every kind of awkward value, ties, random bits; a validity mask with about 1 in 16 null. */
static void sort_inputs(size_t n, uint64_t seed, double *x, uint8_t *valid, int64_t *keys)
{
    uint64_t rng = seed;
    memset(valid, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++) {
        x[i] = awkward(&rng, V_NAN | V_INF | V_BITS, 200.0);
        if (t_splitmix64(&rng) % 16)
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
        const uint64_t u = t_splitmix64(&rng);
        keys[i] = (u & 3) == 0 ? (int64_t)u : (int64_t)(u % 1000) - 500; /* ties, both signs, wide keys */
    }
}

static void test_sort(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    const size_t n = 50001;
    double *x = malloc(n * sizeof *x), *o[2];
    uint8_t *valid = malloc((n + 7) / 8);
    int64_t *keys = malloc(n * sizeof *keys), *i64[2], *k64[2];
    uint32_t *u32[2];
    sort_inputs(n, 33, x, valid, keys);
    for (int d = 0; d < 2; d++) {
        o[d] = malloc(n * sizeof *o[d]);
        i64[d] = malloc(n * sizeof *i64[d]);
        k64[d] = malloc(n * sizeof *k64[d]);
        u32[d] = malloc(n * sizeof *u32[d]);
    }
    static const int64_t len[] = {0, 1, 2, 257, 4096, 1, 9999, 3, 20000, 255, 1};
    const size_t nseg = sizeof len / sizeof *len;
    int64_t off[sizeof len / sizeof *len + 1];
    const int64_t end = make_offsets(len, nseg, 7, off);
    assert_true(end <= (int64_t)n);
    raid_status st[2];
    char cas[96];
    for (int v = 0; v < 4; v++) {
        const unsigned flags = (v & 1) ? RAID_SORT_DESC : 0;
        const uint8_t *mask = (v & 2) ? valid : NULL;
        const char *desc = (v & 1) ? "desc" : "asc";
        const char *msk = (v & 2) ? "with nulls" : "no mask";

        snprintf(cas, sizeof cas, "%zu values, %s, %s", n, desc, msk);
        for (int d = 0; d < 2; d++)
            st[d] = raid_sort_f64(g_ctx[d], x, n, mask, flags, o[d]);
        same_status("sort_f64", cas, st);
        SAME_F64("sort_f64", cas, "out", o[0], o[1], n);
        for (int d = 0; d < 2; d++)
            st[d] = raid_argsort_f64_u32(g_ctx[d], x, n, mask, flags, u32[d]);
        same_status("argsort_f64_u32", cas, st);
        SAME_INT("argsort_f64_u32", cas, "idx", u32[0], u32[1], n);
        for (int d = 0; d < 2; d++)
            st[d] = raid_argsort_f64_i64(g_ctx[d], x, n, mask, flags, i64[d]);
        same_status("argsort_f64_i64", cas, st);
        SAME_INT("argsort_f64_i64", cas, "idx", i64[0], i64[1], n);

        snprintf(cas, sizeof cas, "%zu segments from offset 7, %s, %s", nseg, desc, msk);
        for (int d = 0; d < 2; d++) {
            memset(o[d], 0, n * sizeof *o[d]);
            st[d] = raid_sort_f64_seg(g_ctx[d], x, off, nseg, mask, flags, o[d]);
        }
        same_status("sort_f64_seg", cas, st);
        SAME_F64("sort_f64_seg", cas, "out", o[0], o[1], n);
        for (int d = 0; d < 2; d++) {
            memset(u32[d], 0, n * sizeof *u32[d]);
            st[d] = raid_argsort_f64_seg_u32(g_ctx[d], x, off, nseg, mask, flags, u32[d]);
        }
        same_status("argsort_f64_seg_u32", cas, st);
        SAME_INT("argsort_f64_seg_u32", cas, "idx", u32[0], u32[1], n);
        for (int d = 0; d < 2; d++) {
            memset(i64[d], 0, n * sizeof *i64[d]);
            st[d] = raid_argsort_f64_seg_i64(g_ctx[d], x, off, nseg, mask, flags, i64[d]);
        }
        same_status("argsort_f64_seg_i64", cas, st);
        SAME_INT("argsort_f64_seg_i64", cas, "idx", i64[0], i64[1], n);
        if (v < 2) { /* (int64, float64) pairs have no mask */
            snprintf(cas, sizeof cas, "%zu pairs, %s", n, desc);
            for (int d = 0; d < 2; d++)
                st[d] = raid_sort_i64_f64(g_ctx[d], keys, x, n, flags, k64[d], o[d]);
            same_status("sort_i64_f64", cas, st);
            SAME_INT("sort_i64_f64", cas, "keys", k64[0], k64[1], n);
            SAME_F64("sort_i64_f64", cas, "vals", o[0], o[1], n);
        }
    }
    for (int d = 0; d < 2; d++)
        free(o[d]), free(i64[d]), free(k64[d]), free(u32[d]);
    free(x), free(valid), free(keys);
    done("sort", t0, c0);
}

/* ---- select ---- */

static void select_case(const char *cas, const double *x, const int64_t *off, size_t nseg, int64_t topk_k,
                        const int64_t *kths, size_t nk)
{
    static const double q[] = {0.0, 0.25, 1.0 / 3.0, 0.5, 0.9, 0.999, 1.0};
    const size_t nq = sizeof q / sizeof *q;
    double *a[2], *b[2], *c[2], *e[2];
    int64_t *ix[2];
    raid_status st[2];
    const size_t kk = (size_t)topk_k;
    for (int d = 0; d < 2; d++) {
        a[d] = calloc(nseg * nq, sizeof(double));
        b[d] = calloc(nseg * (kk ? kk : 1), sizeof(double));
        c[d] = calloc(nseg, sizeof(double));
        e[d] = calloc(nseg, sizeof(double));
        ix[d] = calloc(nseg * (kk ? kk : 1), sizeof(int64_t));
    }
    for (int d = 0; d < 2; d++)
        st[d] = raid_select_median(g_ctx[d], x, off, nseg, c[d]);
    same_status("select median", cas, st);
    SAME_F64("select median", cas, "median", c[0], c[1], nseg);
    for (int d = 0; d < 2; d++)
        st[d] = raid_select_quantile(g_ctx[d], x, off, nseg, q, nq, a[d]);
    same_status("select quantile", cas, st);
    SAME_F64("select quantile", cas, "quantiles", a[0], a[1], nseg * nq);
    for (size_t j = 0; j < nk; j++) {
        char w[32];
        snprintf(w, sizeof w, "kth(%" PRId64 ")", kths[j]);
        for (int d = 0; d < 2; d++)
            st[d] = raid_select_kth(g_ctx[d], x, off, nseg, kths[j], c[d]);
        same_status("select kth", cas, st);
        SAME_F64("select kth", cas, w, c[0], c[1], nseg);
    }
    double *mn[2], *mx[2];
    for (int d = 0; d < 2; d++) {
        mn[d] = calloc(nseg, sizeof(double)), mx[d] = calloc(nseg, sizeof(double));
        st[d] = raid_select_minmax(g_ctx[d], x, off, nseg, mn[d], mx[d], c[d], e[d]);
    }
    same_status("select minmax", cas, st);
    SAME_F64("select minmax", cas, "min", mn[0], mn[1], nseg);
    SAME_F64("select minmax", cas, "max", mx[0], mx[1], nseg);
    SAME_F64("select minmax", cas, "nanmin", c[0], c[1], nseg);
    SAME_F64("select minmax", cas, "nanmax", e[0], e[1], nseg);
    for (int largest = 0; largest < 2; largest++) {
        for (int d = 0; d < 2; d++)
            st[d] = raid_select_topk(g_ctx[d], x, off, nseg, topk_k, largest, b[d], ix[d]);
        const char *cap = largest ? "select topk largest" : "select topk smallest";
        same_status(cap, cas, st);
        SAME_F64(cap, cas, "values", b[0], b[1], nseg * kk);
        SAME_INT(cap, cas, "index", ix[0], ix[1], nseg * kk);
    }
    for (int d = 0; d < 2; d++)
        free(a[d]), free(b[d]), free(c[d]), free(e[d]), free(ix[d]), free(mn[d]), free(mx[d]);
}

/* Segments of 1 to 20,001 values from offset 5 (every third without NaN, so that their order statistics
 * are numbers), every kind of value; top-k of 1 over all of them and of 60 over the long ones; then one
 * array of 300,001 values without NaN (the sampled-window path of the quantiles). */
static void test_select(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    static const int64_t len[] = {1, 2, 3, 256, 257, 1000, 4097, 20001, 7, 1, 300};
    const size_t nseg = sizeof len / sizeof *len;
    int64_t off[sizeof len / sizeof *len + 1];
    const int64_t total = make_offsets(len, nseg, 5, off);
    double *x = malloc((size_t)total * sizeof *x);
    uint64_t rng = 44;
    for (int64_t i = 0; i < off[0]; i++)
        x[i] = NAN;
    for (size_t s = 0; s < nseg; s++)
        for (int64_t i = off[s]; i < off[s + 1]; i++)
            x[i] = awkward(&rng, (s % 3 ? V_NAN : 0) | V_INF | V_BITS, 50.0);
    static const int64_t kths[] = {0, -1};
    select_case("11 segments from offset 5", x, off, nseg, 1, kths, 2);
    int64_t off_long[5] = {off[4], off[5], off[6], off[7], off[8]}; /* 257, 1000, 4097 and 20001 values */
    static const int64_t kths_long[] = {0, 100, 256, -2};
    select_case("4 long segments", x, off_long, 4, 60, kths_long, 4);
    free(x);

    const size_t n = 300001;
    x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = awkward(&rng, V_INF | V_BITS, 1e6);
    const int64_t off1[2] = {0, (int64_t)n};
    static const int64_t kths_big[] = {0, 150000, 299999, 7};
    select_case("one array of 300001 values", x, off1, 1, 100, kths_big, 4);
    free(x);
    done("select", t0, c0);
}

/* ---- group-by ---- */

static void same_groupby(const char *cas, raid_groupby *const g[2])
{
    const size_t ng = raid_groupby_ngroups(g[0]), ng1 = raid_groupby_ngroups(g[1]);
    SAME_INT("groupby", cas, "ngroups", &ng, &ng1, 1);
    SAME_INT("groupby", cas, "keys", raid_groupby_keys(g[0]), raid_groupby_keys(g[1]), ng);
    const int64_t *c0 = raid_groupby_counts(g[0]), *c1 = raid_groupby_counts(g[1]);
    if ((c0 == NULL) != (c1 == NULL))
        fail_msg("groupby: %s: counts given by one device only", cas);
    if (c0)
        SAME_INT("groupby", cas, "counts", c0, c1, ng);
    const double *f0 = raid_groupby_keys_f64(g[0]), *f1 = raid_groupby_keys_f64(g[1]);
    if ((f0 == NULL) != (f1 == NULL))
        fail_msg("groupby: %s: float64 keys given by one device only", cas);
    if (f0)
        SAME_F64("groupby", cas, "keys_f64", f0, f1, ng);
    const int n0 = raid_groupby_null_group(g[0]), n1 = raid_groupby_null_group(g[1]);
    SAME_INT("groupby", cas, "null_group", &n0, &n1, 1);
    const size_t na = raid_groupby_naggs(g[0]);
    for (size_t j = 0; j < na; j++) {
        char w[32];
        snprintf(w, sizeof w, "%s (column %zu)", raid_agg_name((raid_agg)raid_groupby_agg(g[0], j)), j);
        SAME_F64("groupby", cas, w, raid_groupby_column(g[0], j), raid_groupby_column(g[1], j), ng);
    }
}

static const raid_agg g_all_aggs[] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN,
                                      RAID_AGG_MAX,   RAID_AGG_FIRST, RAID_AGG_LAST};

static void groupby_i64_case(const char *name, const int64_t *keys, const double *v, const uint8_t *valid, size_t n,
                             const raid_agg *aggs, size_t naggs)
{
    for (unsigned flags = 0; flags < 2; flags++) {
        char cas[128];
        snprintf(cas, sizeof cas, "%s, %zu rows, %s", name, n, flags ? "skipna" : "NaN propagates");
        raid_groupby *g[2] = {NULL, NULL};
        raid_status st[2];
        for (int d = 0; d < 2; d++)
            st[d] = raid_groupby_compute(g_ctx[d], keys, v, valid, n, aggs, naggs, flags, &g[d]);
        same_status("groupby", cas, st);
        same_groupby(cas, g);
        raid_groupby_destroy(g[0]), raid_groupby_destroy(g[1]);
    }
}

/* int64 keys in a narrow range (the direct table), 5,000 keys spread over int64 (the hash table), 30,000
 * distinct keys for sums, counts and means (many groups: local tables, partitions or global tables as the
 * device's local memory allows, the same bits by construction); float64 keys of every kind (-0.0 with 0.0,
 * NaN payloads, infinities, subnormals, null keys). Values of every kind, 1e308 included (sums beyond the
 * largest double), with a validity mask. Every aggregation, NaN propagating and skipped. */
static void test_groupby(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    const size_t n = 60001;
    int64_t *keys = malloc(n * sizeof *keys);
    double *v = malloc(n * sizeof *v), *fk = malloc(n * sizeof *fk);
    uint8_t *valid = malloc(n), *kvalid = malloc(n);
    uint64_t rng = 55;
    for (size_t i = 0; i < n; i++) {
        v[i] = (i % 997 == 0) ? 1e308 : awkward(&rng, V_NAN | V_INF, 1e3);
        valid[i] = t_splitmix64(&rng) % 20 != 0;
        kvalid[i] = t_splitmix64(&rng) % 50 != 0;
    }
    const size_t naggs = sizeof g_all_aggs / sizeof *g_all_aggs;
    for (size_t i = 0; i < n; i++)
        keys[i] = (int64_t)(t_splitmix64(&rng) % 250) - 50;
    groupby_i64_case("int64 keys in [-50, 200)", keys, v, valid, n, g_all_aggs, naggs);
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = t_splitmix64(&rng) % 5000;
        keys[i] = (int64_t)(u * 0x9e3779b97f4a7c15ULL);
    }
    groupby_i64_case("5000 int64 keys over the whole range", keys, v, valid, n, g_all_aggs, naggs);
    for (size_t i = 0; i < n; i++)
        keys[i] = (int64_t)(t_splitmix64(&rng) % 30000) * 3 + 1000000;
    static const raid_agg sums[] = {RAID_AGG_SUM, RAID_AGG_COUNT, RAID_AGG_MEAN};
    groupby_i64_case("30000 int64 keys, sums", keys, v, valid, n, sums, 3);

    static const double special[] = {-0.0, 0.0, INFINITY, -INFINITY, 0x1p-1074, -0x1p-1070, 1e308, -1.5, 2.5};
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = t_splitmix64(&rng);
        if (u % 8 == 0)
            fk[i] = special[(u >> 8) % (sizeof special / sizeof *special)];
        else if (u % 8 == 1)
            fk[i] = t_from_bits(0x7ff8000000000000ULL | (u >> 40)) * ((u >> 20 & 1) ? -1 : 1); /* NaN keys */
        else
            fk[i] = (double)((u >> 16) % 700) / 8.0 - 40.0;
    }
    for (unsigned flags = 0; flags < 2; flags++)
        for (int nk = 0; nk < 2; nk++) {
            char cas[128];
            snprintf(cas, sizeof cas, "float64 keys%s, %zu rows, %s", nk ? " with null keys" : "", n,
                     flags ? "skipna" : "NaN propagates");
            raid_groupby *g[2] = {NULL, NULL};
            raid_status st[2];
            for (int d = 0; d < 2; d++)
                st[d] = raid_groupby_compute_f64(g_ctx[d], fk, nk ? kvalid : NULL, v, valid, n, g_all_aggs, naggs,
                                                 flags, &g[d]);
            same_status("groupby f64 keys", cas, st);
            same_groupby(cas, g);
            raid_groupby_destroy(g[0]), raid_groupby_destroy(g[1]);
        }
    free(keys), free(v), free(fk), free(valid), free(kvalid);
    done("groupby", t0, c0);
}

/* ---- moving averages ---- */

/* Series of 0 to 4,097 values from offset 2: prices near 100, a series with leading NaN, one with inner
 * NaN, one of small values with -0.0 and zeros, one of 1e90 (scaled by a power of two on the device),
 * every statistic at windows 1 (not hma or var), 2, 20 and 257. */
static void test_ma(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    static const int64_t len[] = {0, 1, 2, 5, 257, 1000, 4097, 3001, 600, 300};
    const size_t nseg = sizeof len / sizeof *len;
    int64_t off[sizeof len / sizeof *len + 1];
    const int64_t total = make_offsets(len, nseg, 2, off);
    double *x = malloc((size_t)total * sizeof *x), *o[2];
    uint64_t rng = 66;
    for (int64_t i = 0; i < off[0]; i++)
        x[i] = 7.0;
    for (size_t s = 0; s < nseg; s++) {
        double p = 100.0;
        for (int64_t i = off[s]; i < off[s + 1]; i++) {
            p *= 1.0 + 0.01 * (t_unif(&rng) - 0.5);
            double v = p;
            if (s == 5 && i - off[s] < 30)
                v = NAN; /* leading NaN */
            if (s == 6 && (i - off[s]) % 1500 >= 1400 && (i - off[s]) % 1500 < 1403)
                v = NAN; /* inner NaN */
            if (s == 7) /* -0.0 and zeros; no subnormal: a series spanning more than 2^95 sends the whole
                           call to the host (raidMaDeviceCompute) */
                v = (t_splitmix64(&rng) % 8 == 0) ? ((i & 1) ? -0.0 : 0.0) : 1e-3 * (t_unif(&rng) - 0.5);
            if (s == 8)
                v = p * 1e90;
            x[i] = v;
        }
    }
    for (int d = 0; d < 2; d++)
        o[d] = malloc((size_t)total * sizeof *o[d]);
    static const int64_t wins[] = {1, 2, 20, 257};
    for (int stat = 0; stat < RAID_MA_NSTATS; stat++)
        for (size_t w = 0; w < sizeof wins / sizeof *wins; w++) {
            if ((stat == RAID_MA_HMA || stat == RAID_MA_VAR) && wins[w] < 2)
                continue; /* hma refuses a window of 1; var's of 1 is NaN throughout, written by the host */
            char cas[96];
            snprintf(cas, sizeof cas, "%s, window %" PRId64 ", %zu series", raid_ma_stat_name((raid_ma_stat)stat),
                     wins[w], nseg);
            raid_status st[2];
            for (int d = 0; d < 2; d++) {
                memset(o[d], 0, (size_t)total * sizeof *o[d]);
                st[d] = raid_ma_compute(g_ctx[d], (raid_ma_stat)stat, wins[w], x, off, nseg, o[d]);
            }
            same_status("ma", cas, st);
            SAME_F64("ma", cas, "out", o[0], o[1], (size_t)total);
        }
    free(x), free(o[0]), free(o[1]);
    done("ma", t0, c0);
}

/* ---- the sweep ---- */

static void same_sweep(const char *cas, raid_sweep_result *const r[2])
{
    const size_t nc = raid_sweep_result_count(r[0]), nc1 = raid_sweep_result_count(r[1]);
    SAME_INT("sweep", cas, "count", &nc, &nc1, 1);
    const size_t nv = raid_sweep_result_nvalued(r[0]), nv1 = raid_sweep_result_nvalued(r[1]);
    SAME_INT("sweep", cas, "nvalued", &nv, &nv1, 1);
    const size_t nm = raid_sweep_result_nmessages(r[0]), nm1 = raid_sweep_result_nmessages(r[1]);
    SAME_INT("sweep", cas, "nmessages", &nm, &nm1, 1);
    for (size_t i = 0; i < nm; i++)
        same_str("sweep", cas, "message", raid_sweep_result_message(r[0], i), raid_sweep_result_message(r[1], i));
    for (size_t k = 0; k < nc; k++) {
        size_t se[2];
        int fa[2], sl[2];
        raid_sweep_stats s[2];
        const raid_sweep_trade *t[2];
        size_t nt[2];
        for (int d = 0; d < 2; d++) {
            assert_int_equal(raid_sweep_result_get(r[d], k, &se[d], &fa[d], &sl[d], &s[d]), RAID_OK);
            assert_int_equal(raid_sweep_result_trades(r[d], k, &t[d], &nt[d]), RAID_OK);
        }
        char c[256];
        snprintf(c, sizeof c, "%.128s, combination %zu (series %zu, fast %d, slow %d)", cas, k, se[0], fa[0], sl[0]);
        SAME_INT("sweep", c, "series", &se[0], &se[1], 1);
        SAME_INT("sweep", c, "fast", &fa[0], &fa[1], 1);
        SAME_INT("sweep", c, "slow", &sl[0], &sl[1], 1);
        SAME_INT("sweep", c, "trades", &s[0].trades, &s[1].trades, 1);
        SAME_F64("sweep", c, "total_log_return", &s[0].total_log_return, &s[1].total_log_return, 1);
        SAME_F64("sweep", c, "sharpe", &s[0].sharpe, &s[1].sharpe, 1);
        SAME_F64("sweep", c, "max_drawdown", &s[0].max_drawdown, &s[1].max_drawdown, 1);
        SAME_F64("sweep", c, "exposure", &s[0].exposure, &s[1].exposure, 1);
        SAME_INT("sweep", c, "number of trades kept", &nt[0], &nt[1], 1);
        for (size_t j = 0; j < nt[0]; j++) {
            char w[64];
            const raid_sweep_trade *a = &t[0][j], *b = &t[1][j];
            snprintf(w, sizeof w, "trade %zu entry_bar", j);
            SAME_INT("sweep", c, w, &a->entry_bar, &b->entry_bar, 1);
            snprintf(w, sizeof w, "trade %zu exit_bar", j);
            SAME_INT("sweep", c, w, &a->exit_bar, &b->exit_bar, 1);
            snprintf(w, sizeof w, "trade %zu entry_price", j);
            SAME_F64("sweep", c, w, &a->entry_price, &b->entry_price, 1);
            snprintf(w, sizeof w, "trade %zu exit_price", j);
            SAME_F64("sweep", c, w, &a->exit_price, &b->exit_price, 1);
            snprintf(w, sizeof w, "trade %zu side", j);
            SAME_INT("sweep", c, w, &a->side, &b->side, 1);
        }
    }
}

/* Five series from offset 1: 900 and 1,300 bars of a random walk, a series of 2 bars (skipped), one of 40
 * (whose slow averages have no value), one of 257 with a trend; a grid of 5 x 5 periods; trades kept. The
 * direct sums in df (hma, wma, mean, ema; long/flat at the close; short, costs and next-open fills), in
 * f32 (hma, wma, mean), and the prefix formulation (wma). */
static void test_sweep(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    static const int64_t len[] = {900, 1300, 2, 40, 257};
    const size_t ns = sizeof len / sizeof *len;
    int64_t off[sizeof len / sizeof *len + 1];
    const int64_t total = make_offsets(len, ns, 1, off);
    double *close = malloc((size_t)total * sizeof *close), *open = malloc((size_t)total * sizeof *open);
    uint64_t rng = 77;
    close[0] = open[0] = 1.0;
    for (size_t s = 0; s < ns; s++) {
        double p = 50.0 + 10.0 * (double)s;
        for (int64_t i = off[s]; i < off[s + 1]; i++) {
            open[i] = p * (1.0 + 0.002 * (t_unif(&rng) - 0.5));
            p *= 1.0 + 0.02 * (t_unif(&rng) - 0.5) + (s == 4 ? 1e-3 : 0.0);
            close[i] = p;
        }
    }
    const char *syms[] = {"A", "B", "short", "forty", "trend"};
    struct {
        raid_precision prec;
        raid_ma_stat ma;
        int short_side;
        raid_sweep_fill fill;
        double cost;
        raid_sweep_formulation form;
    } cases[] = {
        {RAID_PREC_DF, RAID_MA_HMA, 0, RAID_SWEEP_FILL_CLOSE, 0, RAID_SWEEP_DIRECT},
        {RAID_PREC_DF, RAID_MA_WMA, 1, RAID_SWEEP_FILL_NEXT_OPEN, 5, RAID_SWEEP_DIRECT},
        {RAID_PREC_DF, RAID_MA_MEAN, 0, RAID_SWEEP_FILL_CLOSE, 2.5, RAID_SWEEP_DIRECT},
        {RAID_PREC_DF, RAID_MA_EMA, 1, RAID_SWEEP_FILL_CLOSE, 0, RAID_SWEEP_DIRECT},
        {RAID_PREC_F32, RAID_MA_HMA, 1, RAID_SWEEP_FILL_NEXT_OPEN, 1, RAID_SWEEP_DIRECT},
        {RAID_PREC_F32, RAID_MA_WMA, 0, RAID_SWEEP_FILL_CLOSE, 0, RAID_SWEEP_DIRECT},
        {RAID_PREC_F32, RAID_MA_MEAN, 1, RAID_SWEEP_FILL_CLOSE, 10, RAID_SWEEP_DIRECT},
        {RAID_PREC_DF, RAID_MA_WMA, 0, RAID_SWEEP_FILL_CLOSE, 0, RAID_SWEEP_PREFIX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        raid_sweep_spec sp;
        raid_sweep_spec_default(&sp);
        sp.ma = cases[c].ma;
        sp.fast_lo = 3, sp.fast_hi = 23, sp.fast_step = 5;
        sp.slow_lo = 10, sp.slow_hi = 70, sp.slow_step = 15;
        sp.short_side = cases[c].short_side;
        sp.fill = cases[c].fill;
        sp.cost_bps = cases[c].cost;
        sp.keep_trades = 1;
        sp.formulation = cases[c].form;
        both_precision(cases[c].prec);
        char cas[128];
        snprintf(cas, sizeof cas, "%s %s%s, %s, %s, %g bps", prec_name(cases[c].prec),
                 raid_ma_stat_name(cases[c].ma), cases[c].form == RAID_SWEEP_PREFIX ? " (prefix)" : "",
                 cases[c].short_side ? "long/short" : "long/flat",
                 cases[c].fill == RAID_SWEEP_FILL_CLOSE ? "close" : "next open", cases[c].cost);
        raid_sweep_result *r[2] = {NULL, NULL};
        raid_status st[2];
        for (int d = 0; d < 2; d++)
            st[d] = raid_sweep_run_arrays(g_ctx[d], &sp, close, open, off, ns, syms, &r[d]);
        same_status("sweep", cas, st);
        same_sweep(cas, r);
        raid_sweep_result_destroy(r[0]), raid_sweep_result_destroy(r[1]);
    }
    both_precision(RAID_PREC_DF);
    free(close), free(open);
    done("sweep", t0, c0);
}

/* ---- GARCH ---- */

static void same_garch(const char *cas, raid_garch_result *const r[2])
{
    const size_t n = raid_garch_result_nrows(r[0]), n1 = raid_garch_result_nrows(r[1]);
    SAME_INT("garch", cas, "nrows", &n, &n1, 1);
    for (size_t i = 0; i < n; i++) {
        same_str("garch", cas, "symbol", raid_garch_result_symbol(r[0], i), raid_garch_result_symbol(r[1], i));
        same_str("garch", cas, "window_end", raid_garch_result_window_end(r[0], i),
                 raid_garch_result_window_end(r[1], i));
    }
    SAME_INT("garch", cas, "status", raid_garch_result_status(r[0]), raid_garch_result_status(r[1]), n);
    SAME_INT("garch", cas, "n", raid_garch_result_n(r[0]), raid_garch_result_n(r[1]), n);
    SAME_INT("garch", cas, "iterations", raid_garch_result_iterations(r[0]), raid_garch_result_iterations(r[1]), n);
    SAME_F64("garch", cas, "params", raid_garch_result_params(r[0]), raid_garch_result_params(r[1]),
             n * RAID_GARCH_MAXPAR);
    SAME_F64("garch", cas, "se", raid_garch_result_se(r[0]), raid_garch_result_se(r[1]), n * RAID_GARCH_MAXPAR);
    SAME_F64("garch", cas, "loglik", raid_garch_result_loglik(r[0]), raid_garch_result_loglik(r[1]), n);
    SAME_F64("garch", cas, "sigma2_last", raid_garch_result_sigma2_last(r[0]), raid_garch_result_sigma2_last(r[1]),
             n);
    SAME_F64("garch", cas, "sigma2_next", raid_garch_result_sigma2_next(r[0]), raid_garch_result_sigma2_next(r[1]),
             n);
    const size_t nm = raid_garch_result_nmessages(r[0]), nm1 = raid_garch_result_nmessages(r[1]);
    SAME_INT("garch", cas, "nmessages", &nm, &nm1, 1);
    for (size_t i = 0; i < nm; i++)
        same_str("garch", cas, "message", raid_garch_result_message(r[0], i), raid_garch_result_message(r[1], i));
}

/* data/dem2gbp.csv cut into three series of 400 and 500 returns (one times 100), one too short, one
 * constant, one with a NaN; GARCH-Normal with a constant mean, GJR-t, EGARCH-Normal with a zero mean (full
 * samples), and GARCH-Normal on rolling windows of 300 returns every 150 of a series of 600. Parameters,
 * standard errors, log-likelihoods, iterations, statuses, h_T and h_{T+1}, and the messages. (The device
 * evaluates the likelihood's bulk; the host's float64 refinement and refits then run the same operations
 * on the same numbers, so a difference of the device's evaluations shows in these outputs.) */
static void garch_case(const char *cas, const raid_garch_spec *sp, const raid_garch_input *in)
{
    raid_garch_result *res[2] = {NULL, NULL};
    raid_status st[2];
    for (int d = 0; d < 2; d++)
        st[d] = raid_garch_fit(g_ctx[d], sp, in, &res[d]);
    same_status("garch", cas, st);
    same_garch(cas, res);
    raid_garch_result_destroy(res[0]), raid_garch_result_destroy(res[1]);
}

static void test_garch(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    size_t T = 0;
    double *r = t_read_dem2gbp(&T);
    double scaled[400], flat[60], nan_in[80];
    for (size_t i = 0; i < 400; i++)
        scaled[i] = 100.0 * r[1400 + i];
    for (size_t i = 0; i < 60; i++)
        flat[i] = 0.125;
    memcpy(nan_in, r, sizeof nan_in);
    nan_in[40] = NAN;
    raid_garch_input *in, *in_win;
    assert_int_equal(raid_garch_input_create(&in), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "A", 500, r, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "B", 500, r + 700, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "C", 400, scaled, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "short", 30, r + 100, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "flat", 60, flat, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(in, "nan", 80, nan_in, NULL, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_create(&in_win), RAID_OK);
    assert_int_equal(raid_garch_input_add(in_win, "W", 600, r + 1300, NULL, NULL), RAID_OK);
    struct {
        raid_garch_model m;
        raid_garch_dist dist;
        raid_garch_mean mean;
        raid_garch_window win;
    } cases[] = {
        {RAID_GARCH_GARCH, RAID_GARCH_NORMAL, RAID_GARCH_MEAN_CONSTANT, RAID_GARCH_FULL},
        {RAID_GARCH_GJR, RAID_GARCH_T, RAID_GARCH_MEAN_CONSTANT, RAID_GARCH_FULL},
        {RAID_GARCH_EGARCH, RAID_GARCH_NORMAL, RAID_GARCH_MEAN_ZERO, RAID_GARCH_FULL},
        {RAID_GARCH_GARCH, RAID_GARCH_NORMAL, RAID_GARCH_MEAN_CONSTANT, RAID_GARCH_ROLLING},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        raid_garch_spec *sp;
        assert_int_equal(raid_garch_spec_create(&sp), RAID_OK);
        assert_int_equal(raid_garch_spec_set_model(sp, cases[c].m), RAID_OK);
        assert_int_equal(raid_garch_spec_set_dist(sp, cases[c].dist), RAID_OK);
        assert_int_equal(raid_garch_spec_set_mean(sp, cases[c].mean), RAID_OK);
        const int win = cases[c].win == RAID_GARCH_ROLLING;
        if (win)
            assert_int_equal(raid_garch_spec_set_window(sp, RAID_GARCH_ROLLING, 300, 150), RAID_OK);
        char cas[96];
        snprintf(cas, sizeof cas, "%s-%s, %s mean, %s", raid_garch_model_name(cases[c].m),
                 raid_garch_dist_name(cases[c].dist), raid_garch_mean_name(cases[c].mean),
                 win ? "rolling:300 every 150" : "full samples");
        garch_case(cas, sp, win ? in_win : in);
        raid_garch_spec_destroy(sp);
    }
    raid_garch_input_destroy(in);
    raid_garch_input_destroy(in_win);
    free(r);
    done("garch", t0, c0);
}

/* ---- HAR (over the regression statistics and meats) ---- */

static void same_har(const char *cas, raid_har_result *const r[2])
{
    const size_t n = raid_har_result_nrows(r[0]), n1 = raid_har_result_nrows(r[1]);
    SAME_INT("har", cas, "nrows", &n, &n1, 1);
    const int k = raid_har_result_k(r[0]), k1 = raid_har_result_k(r[1]);
    SAME_INT("har", cas, "k", &k, &k1, 1);
    const size_t ns = raid_har_result_nsymbols(r[0]);
    for (size_t s = 0; s < ns; s++) {
        const raid_status a = raid_har_result_status(r[0], s), b = raid_har_result_status(r[1], s);
        SAME_INT("har", cas, "symbol status", &a, &b, 1);
    }
    SAME_INT("har", cas, "row_symbol", raid_har_result_row_symbol(r[0]), raid_har_result_row_symbol(r[1]), n);
    SAME_INT("har", cas, "row_n", raid_har_result_row_n(r[0]), raid_har_result_row_n(r[1]), n);
    SAME_F64("har", cas, "r2", raid_har_result_r2(r[0]), raid_har_result_r2(r[1]), n);
    SAME_F64("har", cas, "r2_adj", raid_har_result_r2_adj(r[0]), raid_har_result_r2_adj(r[1]), n);
    SAME_F64("har", cas, "beta", raid_har_result_beta(r[0]), raid_har_result_beta(r[1]), n * (size_t)k);
    SAME_F64("har", cas, "se", raid_har_result_se(r[0]), raid_har_result_se(r[1]), n * (size_t)k);
    SAME_F64("har", cas, "tstat", raid_har_result_tstat(r[0]), raid_har_result_tstat(r[1]), n * (size_t)k);
    const size_t nf = raid_har_result_nforecasts(r[0]), nf1 = raid_har_result_nforecasts(r[1]);
    SAME_INT("har", cas, "nforecasts", &nf, &nf1, 1);
    SAME_F64("har", cas, "forecast", raid_har_result_fc_forecast(r[0]), raid_har_result_fc_forecast(r[1]), nf);
    SAME_F64("har", cas, "actual", raid_har_result_fc_actual(r[0]), raid_har_result_fc_actual(r[1]), nf);
    const size_t nm = raid_har_result_nmessages(r[0]), nm1 = raid_har_result_nmessages(r[1]);
    SAME_INT("har", cas, "nmessages", &nm, &nm1, 1);
    for (size_t i = 0; i < nm; i++)
        same_str("har", cas, "message", raid_har_result_message(r[0], i), raid_har_result_message(r[1], i));
}

/* raid_har_fit of data/spy_realized_measures.csv: the full sample with White errors, and rolling windows of
 * 500 days with Newey-West errors (the statistics and the meats of every window on the device), in df; the
 * full sample in f32 too. */
static void test_har(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    const char *names[6] = {NULL, "DT", "RV5", NULL, NULL, NULL};
    raid_har_input *in = NULL;
    if (raid_har_read_csv(t_data("spy_realized_measures.csv"), names, 0, RAID_HAR_RV, &in) != RAID_OK)
        fail_msg("raid_har_read_csv: %s", raid_errmsg());
    for (int c = 0; c < 3; c++) { /* the full sample in df and f32, the windows in df */
        const raid_precision prec = c == 2 ? RAID_PREC_F32 : RAID_PREC_DF;
        const int win = c & 1;
        raid_har_spec *sp;
        assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
        assert_int_equal(raid_har_spec_set_se(sp, win ? RAID_SE_NW : RAID_SE_WHITE, -1), RAID_OK);
        if (win)
            assert_int_equal(raid_har_spec_set_window(sp, RAID_HAR_ROLLING, 500), RAID_OK);
        both_precision(prec);
        char cas[96];
        snprintf(cas, sizeof cas, "%s, %s", prec_name(prec), win ? "rolling:500, Newey-West" : "full sample, White");
        raid_har_result *r[2] = {NULL, NULL};
        raid_status st[2];
        for (int d = 0; d < 2; d++)
            st[d] = raid_har_fit(g_ctx[d], sp, in, &r[d]);
        same_status("har", cas, st);
        same_har(cas, r);
        raid_har_result_destroy(r[0]), raid_har_result_destroy(r[1]);
        raid_har_spec_destroy(sp);
    }
    both_precision(RAID_PREC_DF);
    raid_har_input_destroy(in);
    done("har", t0, c0);
}

/* ---- bars (over the group-by) ---- */

/* 3 symbols, interleaved, 21,000 trades about 40 s apart over the New York switch to summer time
 * (2024-03-08 to 2024-03-14, UTC instants), prices with ties, sizes of 0, subnormal sizes and sizes of 1e300
 * (volumes beyond the largest double); 5-minute bars, and daily bars of a session across midnight. */
static void test_bars(void **state)
{
    (void)state;
    const double t0 = now();
    const uint64_t c0 = g_compared;
    const size_t n = 21000;
    int64_t *sym = malloc(n * sizeof *sym), *ts = malloc(n * sizeof *ts);
    double *price = malloc(n * sizeof *price), *size = malloc(n * sizeof *size);
    const char *const names[3] = {"X", "Y", "Z"};
    uint64_t rng = 88;
    int64_t last[3] = {1709856000000000LL, 1709856000000000LL, 1709856000000000LL}; /* 2024-03-08T00:00Z */
    double p[3] = {100.0, 20.0, 3000.0};
    for (size_t i = 0; i < n; i++) {
        const int s = (int)(t_splitmix64(&rng) % 3);
        sym[i] = s;
        last[s] += (int64_t)(t_splitmix64(&rng) % 240000000ULL); /* up to 4 minutes */
        ts[i] = last[s];
        p[s] *= 1.0 + 0.001 * (t_unif(&rng) - 0.5);
        price[i] = (t_splitmix64(&rng) % 4) ? p[s] : round(p[s] * 4) / 4; /* ties */
        const uint64_t u = t_splitmix64(&rng) % 64;
        size[i] = u == 0 ? 0.0 : u == 1 ? 0x1p-1060 : u == 2 ? 1e300 : (double)(1 + u % 7) * 100.0;
    }
    static const char *const iv[2] = {"5min", "1d"}, *const sess[2] = {NULL, "17:00-16:00"};
    for (int c = 0; c < 2; c++) {
        char cas[96];
        snprintf(cas, sizeof cas, "%zu trades, %s bars%s%s", n, iv[c], sess[c] ? ", session " : "",
                 sess[c] ? sess[c] : "");
        raid_bars *b[2] = {NULL, NULL};
        raid_status st[2];
        for (int d = 0; d < 2; d++)
            st[d] = raid_bars_compute(g_ctx[d], sym, names, 3, ts, price, size, n, iv[c], "America/New_York",
                                      sess[c], RAID_BARS_UTC, &b[d]);
        same_status("bars", cas, st);
        const size_t nb = raid_bars_count(b[0]), nb1 = raid_bars_count(b[1]);
        SAME_INT("bars", cas, "count", &nb, &nb1, 1);
        SAME_INT("bars", cas, "start", raid_bars_start(b[0]), raid_bars_start(b[1]), nb);
        SAME_INT("bars", cas, "trades", raid_bars_trades(b[0]), raid_bars_trades(b[1]), nb);
        SAME_INT("bars", cas, "symbols", raid_bars_symbols(b[0]), raid_bars_symbols(b[1]), nb);
        static const char *const field[6] = {"open", "high", "low", "close", "volume", "vwap"};
        for (int f = 0; f < 6; f++)
            SAME_F64("bars", cas, field[f], raid_bars_field(b[0], (raid_bars_col)f),
                     raid_bars_field(b[1], (raid_bars_col)f), nb);
        raid_bars_destroy(b[0]), raid_bars_destroy(b[1]);
    }
    free(sym), free(ts), free(price), free(size);
    done("bars", t0, c0);
}

/* ---- the pair of devices ---- */

/* The pair: RAID_PARITY_DEVICES, else cuda and the first OpenCL GPU (or device) of raid_devices.
 * Returns 0, 77 (a backend absent: skip, saying which) or 1 (a bad RAID_PARITY_DEVICES). */
static int pick_devices(void)
{
    const char *env = getenv("RAID_PARITY_DEVICES");
    if (env && *env) {
        char extra[2];
        if (sscanf(env, "%63s %63s %1s", g_spec[0], g_spec[1], extra) != 2) {
            fprintf(stderr, "RAID_PARITY_DEVICES='%s': give two device strings, e.g. \"cuda opencl:0.0\"\n", env);
            return 1;
        }
    } else {
        snprintf(g_spec[0], sizeof g_spec[0], "cuda");
        snprintf(g_spec[1], sizeof g_spec[1], "opencl");
        raid_device_info info[64];
        size_t count = 0, first = SIZE_MAX;
        if (raid_devices(info, 64, &count) == RAID_OK)
            for (size_t i = 0; i < count && i < 64; i++)
                if (info[i].backend == RAID_BACKEND_OPENCL &&
                    (first == SIZE_MAX || (!strcmp(info[i].type, "gpu") && strcmp(info[first].type, "gpu"))))
                    first = i;
        if (first != SIZE_MAX)
            snprintf(g_spec[1], sizeof g_spec[1], "%s", info[first].spec);
    }
    char why_all[512] = "";
    raid_backend b0 = RAID_BACKEND_CPU;
    for (int d = 0; d < 2; d++) {
        raid_backend b;
        if (strncmp(g_spec[d], "cuda", 4) && strncmp(g_spec[d], "opencl", 6)) {
            fprintf(stderr, "RAID_PARITY_DEVICES: '%s' is not a device string of a device backend (cuda, cuda:N, "
                            "opencl, opencl:P.D)\n", g_spec[d]);
            return 1;
        }
        b = strncmp(g_spec[d], "cuda", 4) ? RAID_BACKEND_OPENCL : RAID_BACKEND_CUDA;
        const char *why = raid_backend_absent(b);
        if (!why && b == RAID_BACKEND_OPENCL && !strcmp(g_spec[d], "opencl") && !(env && *env))
            why = "raid_devices lists no OpenCL device";
        if (d == 0)
            b0 = b;
        if (why && (d == 0 || b != b0))
            snprintf(why_all + strlen(why_all), sizeof why_all - strlen(why_all), "%s%s is absent here (%s)",
                     why_all[0] ? "; " : "", b == RAID_BACKEND_CUDA ? "CUDA" : "OpenCL", why);
    }
    if (why_all[0]) {
        printf("skipped: backend parity of %s and %s: %s (RAID_PARITY_DEVICES=\"A B\" names the pair)\n",
               g_spec[0], g_spec[1], why_all);
        return 77;
    }
    return 0;
}

/* Each test starts with zeroed timings and the default precision and chunk plan (a failed test may leave
 * others). */
static int fresh(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++)
        if (raid_ctx_set_precision(g_ctx[d], RAID_PREC_DF) != RAID_OK ||
            raid_ctx_set_chunk(g_ctx[d], 4096, 256) != RAID_OK)
            return -1;
    reset_timing();
    return 0;
}

int main(void)
{
    const int pick = pick_devices();
    if (pick)
        return pick;
    for (int d = 0; d < 2; d++)
        if (raid_ctx_create(&g_ctx[d], g_spec[d]) != RAID_OK) {
            fprintf(stderr, "backend parity: raid_ctx_create(%s): %s\n", g_spec[d], raid_errmsg());
            raid_ctx_destroy(g_ctx[0]);
            return 1;
        }
    printf("backend parity: A %s (%s) against B %s (%s)\n", g_spec[0], raid_ctx_device_name(g_ctx[0]), g_spec[1],
           raid_ctx_device_name(g_ctx[1]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_realized, fresh), cmocka_unit_test_setup(test_regress, fresh),
        cmocka_unit_test_setup(test_sort, fresh),     cmocka_unit_test_setup(test_select, fresh),
        cmocka_unit_test_setup(test_groupby, fresh),  cmocka_unit_test_setup(test_ma, fresh),
        cmocka_unit_test_setup(test_sweep, fresh),    cmocka_unit_test_setup(test_garch, fresh),
        cmocka_unit_test_setup(test_har, fresh),      cmocka_unit_test_setup(test_bars, fresh),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    raid_ctx_destroy(g_ctx[0]);
    raid_ctx_destroy(g_ctx[1]);
    return rc;
}
