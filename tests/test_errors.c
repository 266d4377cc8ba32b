/* The error convention of include/raid/core.h, through the public header only: every failing call sets
 * its message one way -- a call that takes a context in raid_ctx_errmsg(ctx) (and the thread's
 * raid_errmsg()), a context-free call in raid_errmsg() -- and no call takes an error buffer. Each check
 * first sets another message (poison), so that a call that sets none is caught. */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <raid.h>

#include "support.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Leave a known, different message in raid_errmsg(). */
static void poison(void)
{
    int64_t us;
    assert_int_equal(raid_parse_sample("poison", &us), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "'poison'"));
}

/* A context-free call fails with status st and message want (exact). */
#define FAILS(call, st, want)                                                                                   \
    do {                                                                                                        \
        poison();                                                                                               \
        assert_int_equal((call), (st));                                                                         \
        assert_string_equal(raid_errmsg(), (want));                                                             \
    } while (0)

/* ... with a message containing part. */
#define FAILS_WITH(call, st, part)                                                                              \
    do {                                                                                                        \
        poison();                                                                                               \
        assert_int_equal((call), (st));                                                                         \
        if (!strstr(raid_errmsg(), (part)))                                                                     \
            fail_msg("message '%s' lacks '%s'", raid_errmsg(), (part));                                         \
    } while (0)

/* A call on ctx fails with status st and message want in the context and in the thread's message. */
#define CTX_FAILS(ctx, call, st, want)                                                                          \
    do {                                                                                                        \
        poison();                                                                                               \
        assert_int_equal((call), (st));                                                                         \
        assert_string_equal(raid_ctx_errmsg(ctx), (want));                                                      \
        assert_string_equal(raid_errmsg(), (want));                                                             \
    } while (0)

static void test_context(void **state)
{
    (void)state;
    raid_ctx *c = (raid_ctx *)1;
    FAILS(raid_ctx_create(&c, "gpu9"), RAID_EINVAL, "unknown device 'gpu9' (expected auto, cpu, opencl, opencl:P.D, cuda or cuda:N)");
    assert_null(c);
    /* from RAID_DEVICE (no device given): the message says where it came from */
    const char *env = getenv("RAID_DEVICE");
    char *saved = env ? strdup(env) : NULL;
    setenv("RAID_DEVICE", "gpu", 1);
    FAILS(raid_ctx_create(&c, NULL), RAID_EINVAL,
          "unknown device 'gpu' in RAID_DEVICE (expected auto, cpu, opencl, opencl:P.D, cuda or cuda:N)");
    FAILS(raid_ctx_create(&c, ""), RAID_EINVAL,
          "unknown device 'gpu' in RAID_DEVICE (expected auto, cpu, opencl, opencl:P.D, cuda or cuda:N)");
    if (saved)
        setenv("RAID_DEVICE", saved, 1);
    else
        unsetenv("RAID_DEVICE");
    free(saved);
    FAILS(raid_ctx_create(NULL, "cpu"), RAID_EINVAL, "raid_ctx_create: out is NULL");
    FAILS_WITH(raid_ctx_create(&c, "opencl:97.0"), RAID_ENODEV, "OpenCL");
    assert_null(c);

    raid_ctx *cpu = NULL;
    assert_int_equal(raid_ctx_create(&cpu, "cpu"), RAID_OK);
    CTX_FAILS(cpu, raid_ctx_set_precision(cpu, (raid_precision)7), RAID_EINVAL, "unknown precision policy 7");
    CTX_FAILS(cpu, raid_ctx_set_chunk(cpu, 1000, 3), RAID_EINVAL, "work-group width 3 is not a power of two in [1, 1024]");
    FAILS(raid_ctx_set_chunk(NULL, 4096, 256), RAID_EINVAL, "raid_ctx_set_chunk: ctx is NULL");
    CTX_FAILS(cpu, raid_tuning_set(cpu, (raid_tuning_knob)99, 0), RAID_EINVAL, "unknown tuning knob 99");
    FAILS(raid_tuning_set(NULL, RAID_TUNE_KERNEL_REPEAT, 1), RAID_EINVAL, "raid_tuning_set: ctx is NULL");

    const double r[4] = {0.01, -0.02, 0.01, 0.0};
    const int64_t bad_off[3] = {0, 3, 2};
    raid_realized out[2];
    CTX_FAILS(cpu, raid_realized_compute(cpu, r, bad_off, 2, out), RAID_EINVAL, "offsets decrease at segment 1");
    FAILS(raid_realized_compute(NULL, r, bad_off, 2, out), RAID_EINVAL, "raid_realized_compute: ctx is NULL");

    const double X[6] = {1, 1, 1, 2, 1, 3}, y[3] = {1, 2, 4};
    const int64_t off[2] = {0, 3};
    raid_reg_stats s;
    CTX_FAILS(cpu, raid_reg_stats_compute(cpu, X, y, 0, off, 1, &s), RAID_EINVAL,
              "k = 0 regressors; 1 to 8 are supported");
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, 2, off, 1, &s), RAID_OK);
    CTX_FAILS(cpu, raid_reg_stats_range(cpu, &s, 10, X, y, 2, 2, 1, &s), RAID_EINVAL,
              "raid_reg_stats_range: rows [2, 1) with blocks of 10 rows");
    double meat[4];
    CTX_FAILS(cpu, raid_reg_meat_compute(cpu, X, y, 2, off, 1, s.mean, -1, meat), RAID_EINVAL,
              "raid_reg_meat_compute: max_lag = -1 is negative");

    /* the precision curve reports on dev */
    int64_t m[RAID_PRECISION_MAX_POINTS], k[RAID_PRECISION_MAX_POINTS];
    double a[RAID_PRECISION_MAX_POINTS], b[RAID_PRECISION_MAX_POINTS], cc[RAID_PRECISION_MAX_POINTS],
        d[RAID_PRECISION_MAX_POINTS];
    size_t np;
    CTX_FAILS(cpu, raid_precision_curve(cpu, cpu, 5, 10, 1, m, k, a, b, cc, d, &np), RAID_EINVAL,
              "raid_precision_curve: max_m must be in [10, 10^7] and segments in [1, 10^6]");

    /* a failure on a context leaves an earlier context's message alone */
    raid_ctx *cpu2 = NULL;
    assert_int_equal(raid_ctx_create(&cpu2, "cpu"), RAID_OK);
    CTX_FAILS(cpu2, raid_ctx_set_precision(cpu2, (raid_precision)8), RAID_EINVAL, "unknown precision policy 8");
    assert_string_equal(raid_ctx_errmsg(cpu), "raid_precision_curve: max_m must be in [10, 10^7] and segments in "
                                              "[1, 10^6]");
    raid_ctx_destroy(cpu2);
    raid_ctx_destroy(cpu);

    size_t count;
    FAILS(raid_devices(NULL, 0, NULL), RAID_EINVAL, "raid_devices: count is NULL");
    poison();
    assert_int_equal(raid_devices(NULL, 0, &count), RAID_OK); /* out NULL: the count only */
}

/* raid_ols_from_stats and every failure of raid_ols_robust_at, which had no message before. */
static void test_ols(void **state)
{
    (void)state;
    raid_ctx *cpu = t_open_ctx("cpu");
    enum { N = 64 };
    double X[2 * N], y[N];
    for (int t = 0; t < N; t++) {
        X[2 * t] = 1.0;
        X[2 * t + 1] = (t % 7) - 3.0 + 0.25 * (t % 3);
        y[t] = 1.0 + 0.5 * X[2 * t + 1] + 0.01 * ((t * 37) % 11 - 5);
    }
    const int64_t off[2] = {0, N}, off2[2] = {0, 2};
    raid_reg_stats s, s2;
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, 2, off, 1, &s), RAID_OK);
    assert_int_equal(raid_reg_stats_compute(cpu, X, y, 2, off2, 1, &s2), RAID_OK);
    raid_ols o;
    FAILS(raid_ols_from_stats(&s2, 1, &o), RAID_EINVAL, "n = 2 observations must exceed k = 2 regressors");
    FAILS(raid_ols_from_stats(&s, 1, NULL), RAID_EINVAL, "output is NULL");
    FAILS(raid_ols_from_stats(NULL, 1, &o), RAID_EINVAL, "regression statistics are NULL");
    raid_reg_stats bad = s;
    bad.xty[0] = NAN;
    FAILS(raid_ols_from_stats(&bad, 1, &o), RAID_EINVAL, "X'y, the means, y'y or sum y is not finite");
    double X2[2 * N];
    for (int t = 0; t < N; t++)
        X2[2 * t] = 1.0, X2[2 * t + 1] = 2.0;
    assert_int_equal(raid_reg_stats_compute(cpu, X2, y, 2, off, 1, &bad), RAID_OK);
    FAILS(raid_ols_from_stats(&bad, 1, &o), RAID_ESINGULAR,
          "X'X is singular: columns 0 and 1 of X are both constant; condition number estimate inf");

    assert_int_equal(raid_ols_from_stats(&s, 1, &o), RAID_OK);
    double meat[2 * 4];
    assert_int_equal(raid_reg_meat_compute(cpu, X, y, 2, off, 1, o.beta, 1, meat), RAID_OK);
    raid_ols w = o;
    FAILS(raid_ols_robust_at(&s, meat, NULL, 1, RAID_SE_NW, NULL), RAID_EINVAL, "the estimates are NULL");
    FAILS(raid_ols_robust_at(NULL, meat, NULL, 1, RAID_SE_NW, &w), RAID_EINVAL, "regression statistics are NULL");
    w.k = 3;
    FAILS(raid_ols_robust_at(&s, meat, NULL, 1, RAID_SE_NW, &w), RAID_EINVAL,
          "the estimates (k 3, n 64) are not those of the statistics (k 2, n 64)");
    w = o;
    FAILS(raid_ols_robust_at(&s, meat, NULL, 1, (raid_se_kind)9, &w), RAID_EINVAL, "unknown standard error kind 9");
    FAILS(raid_ols_robust(&s, NULL, 0, RAID_SE_WHITE, &w), RAID_EINVAL, "robust standard errors need the meat (NULL)");
    FAILS(raid_ols_robust(&s, meat, -1, RAID_SE_NW, &w), RAID_EINVAL, "Newey-West lag -1 is negative");
    const double centre_on_const[2] = {1.0, 0.0};
    FAILS_WITH(raid_ols_robust_at(&s, meat, centre_on_const, 1, RAID_SE_NW, &w), RAID_EINVAL, "centre[0] = 1");
    double nan_meat[8];
    memcpy(nan_meat, meat, sizeof nan_meat);
    nan_meat[4] = NAN;
    FAILS(raid_ols_robust(&s, nan_meat, 1, RAID_SE_NW, &w), RAID_EINVAL, "the meat is not finite");
    const double zero_meat[8] = {0};
    FAILS(raid_ols_robust(&s, zero_meat, 0, RAID_SE_WHITE, &w), RAID_ESINGULAR,
          "the robust variance of coefficient 0 is 0, not positive");
    assert_int_equal(raid_ols_robust(&s, meat, 1, RAID_SE_NW, &w), RAID_OK);

    /* levels far above the spread: refused by the cancellation bound (meat about 0), and by the rounding of
     * the means themselves (meat about the means) */
    for (int t = 0; t < N; t++)
        X2[2 * t] = 1.0, X2[2 * t + 1] = 1e5 + X[2 * t + 1];
    assert_int_equal(raid_reg_stats_compute(cpu, X2, y, 2, off, 1, &bad), RAID_OK);
    assert_int_equal(raid_ols_from_stats(&bad, 1, &w), RAID_OK);
    FAILS_WITH(raid_ols_robust(&bad, meat, 1, RAID_SE_NW, &w), RAID_ESINGULAR, "standard deviations from the meat's centre");
    for (int t = 0; t < N; t++)
        X2[2 * t + 1] = 1e12 + X[2 * t + 1];
    assert_int_equal(raid_reg_stats_compute(cpu, X2, y, 2, off, 1, &bad), RAID_OK);
    assert_int_equal(raid_ols_from_stats(&bad, 1, &w), RAID_OK);
    double centre[2];
    raid_reg_stats_centre(&bad, centre);
    FAILS_WITH(raid_ols_robust_at(&bad, meat, centre, 1, RAID_SE_NW, &w), RAID_ESINGULAR, "the regressors' means stand");

    /* combine */
    raid_reg_stats k3 = s;
    k3.k = 3;
    FAILS(raid_reg_stats_combine(&s, &k3, &bad), RAID_EINVAL, "raid_reg_stats_combine: k = 2 and 3 (equal, in 1..8, needed)");
    FAILS(raid_reg_stats_combine(&s, NULL, &bad), RAID_EINVAL, "raid_reg_stats_combine: NULL argument");
    raid_ctx_destroy(cpu);
}

static void test_io_and_simulate(void **state)
{
    (void)state;
    int64_t us;
    int32_t a, b;
    FAILS(raid_parse_sample("5parsecs", &us), RAID_EINVAL,
          "bad sampling interval '5parsecs' (expected tick, Ns, Nmin, Nh or Nms, N a positive integer, at most one day)");
    FAILS_WITH(raid_parse_sample("25h", &us), RAID_EINVAL, "'25h'");
    FAILS(raid_parse_session("9:30", &a, &b), RAID_EINVAL, "bad session '9:30' (expected HH:MM-HH:MM, the start to 23:59, the end to 24:00)");
    FAILS(raid_parse_session("24:00-16:00", &a, &b), RAID_EINVAL,
          "bad session '24:00-16:00' (a window across midnight cannot start or end at 24:00)");

    raid_reader *rd = (raid_reader *)1;
    const char *missing = t_tmppath("missing.csv");
    char want[4200];
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    FAILS(raid_reader_open(&rd, missing, NULL), RAID_EIO, want);
    assert_null(rd);
    FAILS(raid_reader_open(NULL, missing, NULL), RAID_EINVAL, "raid_reader_open: out is NULL");
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.tz = "Nowhere/Land";
    FAILS(raid_reader_open(&rd, missing, &o), RAID_EINVAL, "unknown time zone 'Nowhere/Land'");
    int done;
    FAILS(raid_reader_next(NULL, NULL, 1, &done), RAID_EINVAL, "raid_reader_next: NULL argument");
    raid_ticks *tk;
    FAILS(raid_ticks_create(NULL, NULL), RAID_EINVAL, "raid_ticks_create: out is NULL");
    o.tz = NULL;
    o.kind = RAID_INPUT_RETURNS;
    FAILS(raid_ticks_create(&tk, &o), RAID_EINVAL, "raid_ticks_create: o->kind must be RAID_INPUT_PRICES");

    raid_sim_opts so;
    raid_sim_opts_init(&so);
    so.nsymbols = 0;
    const char *prices = t_tmppath("p.csv");
    FAILS(raid_simulate_csv(&so, prices, NULL), RAID_EINVAL, "simulate: symbols must be >= 1 (got 0)");
    FAILS(raid_simulate_returns(NULL, NULL, NULL), RAID_EINVAL, "simulate: NULL options");
    raid_sim_opts_init(&so);
    so.obs_per_day = 10;
    const char *nodir = t_tmppath("no/such/dir/p.csv");
    snprintf(want, sizeof want, "cannot create %s: No such file or directory", nodir);
    FAILS(raid_simulate_csv(&so, nodir, NULL), RAID_EIO, want);
    assert_false(t_file_exists(prices));

    raid_outfile *of = (raid_outfile *)1;
    FAILS(raid_outfile_create(&of, ""), RAID_EINVAL, "empty output path");
    assert_null(of);
    FAILS(raid_outfile_create(&of, nodir), RAID_EIO, want);
    FAILS(raid_outfile_finish(NULL), RAID_EINVAL, "raid_outfile_finish: NULL");
}

/* A directory as the destination: "DIR: is a directory". */
static void test_outfile_directory(void **state)
{
    (void)state;
    raid_outfile *of = NULL;
    char want[4200];
    snprintf(want, sizeof want, "%s: is a directory", t_tmpdir());
    poison();
    assert_int_equal(raid_outfile_create(&of, t_tmpdir()), RAID_EIO);
    assert_string_equal(raid_errmsg(), want);
}

static void test_har(void **state)
{
    (void)state;
    raid_har_model mo;
    raid_har_window wk;
    int64_t n;
    int lags[RAID_HAR_MAX_LAGS], nl;
    FAILS(raid_har_model_parse("garch", &mo), RAID_EINVAL, "bad model 'garch' (expected har, har-j, har-cj or harq)");
    FAILS(raid_har_window_parse("rolling:x", &wk, &n), RAID_EINVAL,
          "bad window 'rolling:x' (expected full, rolling:N or expanding:N)");
    FAILS_WITH(raid_har_lags_parse("5,1", lags, &nl), RAID_EINVAL, "bad lags '5,1'");
    raid_har_spec *sp = NULL;
    assert_int_equal(raid_har_spec_create(&sp), RAID_OK);
    FAILS(raid_har_spec_set_horizon(sp, 0), RAID_EINVAL, "bad horizon 0 (expected an integer in [1, 1000])");
    FAILS(raid_har_spec_set_alpha(sp, 1.5), RAID_EINVAL, "bad alpha 1.5 (expected a number in (0, 1))");
    assert_int_equal(raid_har_spec_set_model(sp, RAID_HAR_Q), RAID_OK);
    assert_int_equal(raid_har_spec_set_transform(sp, RAID_HAR_LOG), RAID_OK);
    FAILS(raid_har_spec_check(sp), RAID_EINVAL, "model harq takes transform none only");
    raid_har_input *in = NULL;
    assert_int_equal(raid_har_input_create(&in), RAID_OK);
    const int32_t ymd = 20200230;
    const double rv = 1e-4;
    FAILS(raid_har_input_add(in, "B\xff", 0, NULL, NULL, NULL, NULL, NULL, NULL), RAID_EINVAL,
          "raid_har_input_add: symbol is not valid UTF-8 (byte 2 is 0xFF)");
    FAILS(raid_har_input_add_ymd(in, "B", 1, &ymd, &rv, NULL, NULL, NULL, NULL), RAID_EINVAL,
          "raid_har_input_add_ymd: B: row 1: 20200230 is not a date yyyymmdd");
    raid_har_input *in2 = (raid_har_input *)1;
    FAILS(raid_har_read_csv("x.csv", NULL, 0, (raid_har_model)77, &in2), RAID_EINVAL, "raid_har_read_csv: bad model 77");
    assert_null(in2);
    raid_ctx *cpu = t_open_ctx("cpu");
    raid_har_result *res = NULL;
    /* raid_har_fit: the spec's message on the context */
    CTX_FAILS(cpu, raid_har_fit(cpu, sp, in, &res), RAID_EINVAL, "model harq takes transform none only");
    assert_null(res);
    CTX_FAILS(cpu, raid_har_fit(cpu, sp, in, NULL), RAID_EINVAL, "raid_har_fit: NULL result pointer");
    FAILS(raid_har_write_coefs(NULL, stdout), RAID_EINVAL, "raid_har_write_coefs: NULL");
    raid_ctx_destroy(cpu);
    raid_har_input_destroy(in);
    raid_har_spec_destroy(sp);
}

/* The context-free message is the calling thread's: a failure in another thread leaves it alone. */
static void test_thread_local(void **state)
{
    (void)state;
    int64_t us;
    assert_int_equal(raid_parse_sample("mine", &us), RAID_EINVAL);
    int other_ok = 0, nthr = 1;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            int32_t a, b;
            other_ok = raid_parse_session("x", &a, &b) == RAID_EINVAL &&
                       strcmp(raid_errmsg(), "bad session 'x' (expected HH:MM-HH:MM, the start to 23:59, the end to 24:00)") == 0;
        } else {
            nthr = omp_get_num_threads();
        }
    }
    if (nthr > 1)
        assert_true(other_ok);
    assert_non_null(strstr(raid_errmsg(), "'mine'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_context), cmocka_unit_test(test_ols),
        cmocka_unit_test(test_io_and_simulate), cmocka_unit_test(test_outfile_directory),
        cmocka_unit_test(test_har), cmocka_unit_test(test_thread_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
