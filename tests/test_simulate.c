/* Tests of the simulator (src/sim/simulate.c) and of `raid simulate`. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double *sim_alloc(const raid_sim_opts *o, double **iv)
{
    size_t nseg = (size_t)o->nsymbols * (size_t)o->ndays;
    double *r = malloc(nseg * (size_t)(o->obs_per_day - 1) * sizeof *r);
    assert_non_null(r);
    if (iv) {
        *iv = malloc(nseg * sizeof **iv);
        assert_non_null(*iv);
    }
    return r;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Number of left-over temporary files in the test directory (".raid-tmp-*", or an older "*.tmp.*"). */
static int count_tmp_files(void)
{
    DIR *d = opendir(t_tmpdir());
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL || !strncmp(e->d_name, ".raid-tmp-", 10);
    closedir(d);
    return n;
}

static void test_defaults(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    assert_int_equal(o.seed, 1);
    assert_int_equal(o.nsymbols, 1);
    assert_int_equal(o.ndays, 1);
    assert_int_equal(o.obs_per_day, 23401);
    assert_true(o.mean_var == 1e-4);
    assert_true(o.vol_of_logvar == 0.5);
    assert_true(o.mean_reversion == 0.2);
    assert_true(o.rho == -0.5);
    assert_true(o.jump_rate == 0.1);
    assert_true(o.jump_sd == 0.005);
    assert_true(o.noise_sd == 0.0);
    assert_true(o.start_price == 100.0);
}

static void test_determinism(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.nsymbols = 3;
    o.ndays = 4;
    o.obs_per_day = 391;
    o.jump_rate = 2.0;
    o.noise_sd = 1e-4;
    size_t n = (size_t)o.nsymbols * (size_t)o.ndays * (size_t)(o.obs_per_day - 1);
    double *iv1, *iv2, *iv3;
    double *a = sim_alloc(&o, &iv1), *b = sim_alloc(&o, &iv2);
    assert_int_equal(raid_simulate_returns(&o, a, iv1), RAID_OK);
    assert_int_equal(raid_simulate_returns(&o, b, iv2), RAID_OK);
    assert_memory_equal(a, b, n * sizeof *a);
    assert_memory_equal(iv1, iv2, 12 * sizeof *iv1);
    for (size_t i = 0; i < n; i++)
        assert_true(isfinite(a[i]));

    /* Another seed gives other returns. */
    o.seed = 2;
    assert_int_equal(raid_simulate_returns(&o, b, iv2), RAID_OK);
    size_t same = 0;
    for (size_t i = 0; i < n; i++)
        same += a[i] == b[i];
    assert_true(same < n / 100);

    /* Each symbol has its own stream: symbol 0 alone equals symbol 0 of the three (no dependence on
     * the number of symbols or on threads). */
    o.seed = 1;
    o.nsymbols = 1;
    double *c = sim_alloc(&o, &iv3);
    assert_int_equal(raid_simulate_returns(&o, c, iv3), RAID_OK);
    assert_memory_equal(c, a, (size_t)o.ndays * (size_t)(o.obs_per_day - 1) * sizeof *c);
    assert_memory_equal(iv3, iv1, (size_t)o.ndays * sizeof *iv3);
#ifdef _OPENMP
    /* One thread or four: the same bytes. */
    o.nsymbols = 3;
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    assert_int_equal(raid_simulate_returns(&o, b, iv2), RAID_OK);
    omp_set_num_threads(4);
    assert_int_equal(raid_simulate_returns(&o, a, iv1), RAID_OK);
    omp_set_num_threads(nt);
    assert_memory_equal(a, b, n * sizeof *a);
#endif
    free(a);
    free(b);
    free(c);
    free(iv1);
    free(iv2);
    free(iv3);
}

/* Constant variance, no jumps, no noise: iv == mean_var exactly and E[rv] = mean_var. */
static void test_constant_variance_mean(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.ndays = 2000;
    o.obs_per_day = 79;
    o.vol_of_logvar = 0;
    o.jump_rate = 0;
    o.noise_sd = 0;
    o.seed = 7;
    double *iv;
    double *r = sim_alloc(&o, &iv);
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_OK);
    const int m = 78;
    double s1 = 0, s2 = 0;
    for (int d = 0; d < o.ndays; d++) {
        assert_true(fabs(iv[d] - o.mean_var) <= 1e-13 * o.mean_var);
        double rv = 0;
        for (int i = 0; i < m; i++)
            rv += r[(size_t)d * m + i] * r[(size_t)d * m + i];
        s1 += rv;
        s2 += rv * rv;
    }
    double mean = s1 / o.ndays, var = (s2 - s1 * s1 / o.ndays) / (o.ndays - 1);
    double se = sqrt(var / o.ndays);
    /* The sampling sd of rv is mean_var sqrt(2/M) for Gaussian returns. */
    assert_true(fabs(sqrt(var) / o.mean_var - sqrt(2.0 / m)) < 0.15 * sqrt(2.0 / m));
    assert_true(fabs(mean - o.mean_var) < 4 * se);
    free(r);
    free(iv);
}

/* rv converges to the integrated variance as sampling gets finer, at the rate 1/sqrt(M). */
static void test_rv_converges_to_iv(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.ndays = 60;
    o.obs_per_day = 23401;
    o.jump_rate = 0;
    o.noise_sd = 0;
    o.seed = 11;
    double *iv;
    double *r = sim_alloc(&o, &iv);
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_OK);
    const int n = 23400;
    const int ks[3] = {300, 60, 1}; /* 78, 390, 23400 returns per day */
    double err[3];
    for (int j = 0; j < 3; j++) {
        int k = ks[j], m = n / k;
        double sum = 0;
        for (int d = 0; d < o.ndays; d++) {
            const double *rd = r + (size_t)d * n;
            double rv = 0;
            for (int i = 0; i < m; i++) {
                double agg = 0;
                for (int l = 0; l < k; l++)
                    agg += rd[i * k + l];
                rv += agg * agg;
            }
            sum += fabs(rv - iv[d]) / iv[d];
        }
        err[j] = sum / o.ndays;
        /* E|rv - iv|/iv ~ sqrt(2/M) sqrt(2/pi) for slowly varying variance. */
        double pred = sqrt(2.0 / m) * sqrt(2.0 / 3.14159265358979323846);
        print_message("M = %5d: mean |rv-iv|/iv = %.5f (prediction %.5f)\n", m, err[j], pred);
        assert_true(err[j] > 0.6 * pred && err[j] < 1.6 * pred);
    }
    assert_true(err[0] > err[1] && err[1] > err[2]);
    /* Roughly 1/sqrt(M): the ratios are sqrt(5) and sqrt(60). */
    assert_true(err[0] / err[1] > 0.5 * sqrt(5.0) && err[0] / err[1] < 2 * sqrt(5.0));
    assert_true(err[1] / err[2] > 0.5 * sqrt(60.0) && err[1] / err[2] < 2 * sqrt(60.0));
    free(r);
    free(iv);
}

/* Jumps add rate * jump_sd^2 to E[rv - iv]; noise adds e_i - e_{i-1} to the efficient returns. */
static void test_jumps_and_noise(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.ndays = 400;
    o.obs_per_day = 79;
    o.jump_rate = 3.0;
    o.jump_sd = 0.02;
    o.mean_var = 1e-6;
    o.vol_of_logvar = 0;
    double *iv;
    double *r = sim_alloc(&o, &iv);
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_OK);
    double s = 0, s2 = 0;
    for (int d = 0; d < o.ndays; d++) {
        double rv = 0;
        for (int i = 0; i < 78; i++)
            rv += r[d * 78 + i] * r[d * 78 + i];
        double x = rv - iv[d];
        s += x;
        s2 += x * x;
    }
    double mean = s / o.ndays, se = sqrt((s2 / o.ndays - mean * mean) / o.ndays);
    double expect = o.jump_rate * o.jump_sd * o.jump_sd;
    assert_true(fabs(mean - expect) < 4 * se);

    /* Same seed with noise: the efficient path is unchanged (separate streams). */
    o.jump_rate = 0;
    double *clean = sim_alloc(&o, NULL), *noisy = sim_alloc(&o, NULL);
    assert_int_equal(raid_simulate_returns(&o, clean, NULL), RAID_OK);
    o.noise_sd = 1e-3;
    assert_int_equal(raid_simulate_returns(&o, noisy, NULL), RAID_OK);
    size_t n = (size_t)o.ndays * 78;
    double v = 0, c1 = 0;
    for (size_t i = 0; i < n; i++) {
        double e = noisy[i] - clean[i];
        v += e * e;
        if (i + 1 < n && (i + 1) % 78 != 0)
            c1 += e * (noisy[i + 1] - clean[i + 1]);
    }
    v /= (double)n;
    c1 /= (double)(n - (size_t)o.ndays);
    double ns2 = o.noise_sd * o.noise_sd;
    assert_true(fabs(v - 2 * ns2) < 0.05 * 2 * ns2);   /* var(e_i - e_{i-1}) = 2 noise^2 */
    assert_true(fabs(c1 + ns2) < 0.1 * ns2);           /* first autocovariance -noise^2 */
    free(r);
    free(iv);
    free(clean);
    free(noisy);
}

static void test_bad_options(void **state)
{
    (void)state;
    double r[8], iv[2];
    const char *path = t_tmppath("bad.csv");
    for (int k = 0; k < 14; k++) {
        raid_sim_opts o;
        raid_sim_opts_init(&o);
        o.obs_per_day = 5;
        switch (k) {
        case 0: o.nsymbols = 0; break;
        case 1: o.ndays = -1; break;
        case 2: o.obs_per_day = 1; break;
        case 3: o.mean_var = 0; break;
        case 4: o.mean_var = NAN; break;
        case 5: o.vol_of_logvar = -1; break;
        case 6: o.mean_reversion = -0.1; break;
        case 7: o.rho = 1.5; break;
        case 8: o.rho = -1.0000001; break;
        case 9: o.jump_rate = -1; break;
        case 10: o.jump_sd = -0.1; break;
        case 11: o.noise_sd = INFINITY; break;
        case 12: o.start_price = 0; break;
        case 13: o.jump_rate = NAN; break;
        }
        assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_EINVAL);
        assert_int_equal(raid_simulate_csv(&o, path, NULL), RAID_EINVAL);
        assert_int_equal(strncmp(raid_errmsg(), "simulate: ", 10), 0);
        assert_false(t_file_exists(path));
    }
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    assert_int_equal(raid_simulate_returns(NULL, r, iv), RAID_EINVAL);
    assert_int_equal(raid_simulate_returns(&o, NULL, iv), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "simulate: the returns array is NULL");
    assert_int_equal(raid_simulate_csv(&o, NULL, NULL), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "simulate: no output path");
    /* Boundary values are accepted. */
    o.obs_per_day = 2;
    o.rho = -1;
    o.vol_of_logvar = 0;
    o.mean_reversion = 0;
    o.jump_rate = 0;
    o.jump_sd = 0;
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_OK);
    assert_true(fabs(iv[0] - o.mean_var) < 1e-18);
}

static void test_csv(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.nsymbols = 2;
    o.ndays = 3;
    o.obs_per_day = 79; /* 300 s spacing */
    o.noise_sd = 1e-4;
    o.jump_rate = 1;
    const char *p = t_tmppath("prices.csv"), *v = t_tmppath("iv.csv");
    assert_int_equal(raid_simulate_csv(&o, p, v), RAID_OK);
    assert_int_equal(count_tmp_files(), 0);
    char *txt = t_read_file(p), *ivt = t_read_file(v);
    assert_non_null(txt);
    assert_non_null(ivt);
    assert_int_equal(count_lines(txt), 1 + 2 * 3 * 79);
    assert_int_equal(count_lines(ivt), 1 + 2 * 3);
    assert_true(strncmp(txt, "symbol,timestamp,price\n", 23) == 0);
    assert_true(strncmp(ivt, "symbol,date,iv\n", 15) == 0);
    assert_non_null(strstr(txt, "\nS0001,2020-01-02T09:30:00,"));
    assert_non_null(strstr(txt, "\nS0001,2020-01-02T09:35:00,"));
    assert_non_null(strstr(txt, "\nS0001,2020-01-02T16:00:00,"));
    assert_non_null(strstr(txt, "\nS0001,2020-01-03T09:30:00,"));
    assert_non_null(strstr(txt, "\nS0002,2020-01-06T16:00:00,")); /* skips the weekend */
    assert_null(strstr(txt, "2020-01-04"));
    assert_non_null(strstr(ivt, "\nS0002,2020-01-06,"));

    /* The prices reproduce raid_simulate_returns and its iv. */
    double *iv;
    double *r = sim_alloc(&o, &iv);
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_OK);
    char *line = strchr(txt, '\n') + 1;
    size_t k = 0;
    double prev = 0;
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < 3; d++)
            for (int i = 0; i < 79; i++) {
                char sym[16], ts[64];
                double price;
                assert_int_equal(sscanf(line, "%15[^,],%63[^,],%lf", sym, ts, &price), 3);
                char want[16];
                snprintf(want, sizeof want, "S%04d", s + 1);
                assert_string_equal(sym, want);
                assert_int_equal(strlen(ts), 19);
                double x = log(price / o.start_price);
                if (s == 0 && d == 0 && i == 0)
                    assert_true(fabs(x) < 1e-3); /* noise only */
                if (i > 0) {
                    assert_true(fabs((x - prev) - r[k]) < 1e-12);
                    k++;
                }
                prev = x;
                line = strchr(line, '\n') + 1;
            }
    assert_int_equal(k, 2 * 3 * 78);
    line = strchr(ivt, '\n') + 1;
    for (int j = 0; j < 6; j++) {
        char sym[16], date[16];
        double x;
        assert_int_equal(sscanf(line, "%15[^,],%15[^,],%lf", sym, date, &x), 3);
        assert_true(x == iv[j]);
        line = strchr(line, '\n') + 1;
    }
    free(r);
    free(iv);

    /* Same seed: same bytes; another seed: other bytes. */
    const char *p2 = t_tmppath("prices2.csv");
    assert_int_equal(raid_simulate_csv(&o, p2, NULL), RAID_OK);
    char *txt2 = t_read_file(p2);
    assert_string_equal(txt, txt2);
    free(txt2);
    o.seed = 99;
    assert_int_equal(raid_simulate_csv(&o, p2, NULL), RAID_OK);
    txt2 = t_read_file(p2);
    assert_string_not_equal(txt, txt2);
    free(txt2);
    free(txt);
    free(ivt);

    /* Sub-second spacing: microseconds. 23400 s / 7 steps = 3342.857142... s. */
    o.nsymbols = 1;
    o.ndays = 1;
    o.obs_per_day = 8;
    assert_int_equal(raid_simulate_csv(&o, p2, NULL), RAID_OK);
    txt2 = t_read_file(p2);
    assert_non_null(strstr(txt2, "\nS0001,2020-01-02T09:30:00.000000,"));
    assert_non_null(strstr(txt2, "\nS0001,2020-01-02T10:25:42.857143,"));
    assert_non_null(strstr(txt2, "\nS0001,2020-01-02T16:00:00.000000,"));
    free(txt2);
}

static void test_csv_io_error(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.obs_per_day = 10;
    assert_int_equal(raid_simulate_csv(&o, t_tmppath("no/such/dir/p.csv"), NULL), RAID_EIO);
    assert_non_null(strstr(raid_errmsg(), "no/such/dir/p.csv"));
    /* The iv file fails: no prices file and no temporaries either. */
    const char *p = t_tmppath("p_ioerr.csv");
    assert_int_equal(raid_simulate_csv(&o, p, t_tmppath("no/such/iv.csv")), RAID_EIO);
    assert_false(t_file_exists(p));
    assert_int_equal(count_tmp_files(), 0);
}

/* Parameters that drive prices out of float64's range, and one path for both files: EINVAL, no files. */
static void test_csv_absurd(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.obs_per_day = 10;
    o.jump_rate = 1000;
    o.jump_sd = 1e308;
    const char *p = t_tmppath("p_absurd.csv"), *v = t_tmppath("v_absurd.csv");
    assert_int_equal(raid_simulate_csv(&o, p, v), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "range"));
    assert_false(t_file_exists(p));
    assert_false(t_file_exists(v));
    raid_sim_opts_init(&o);
    o.obs_per_day = 10;
    assert_int_equal(raid_simulate_csv(&o, p, p), RAID_EINVAL);
    char want[4200];
    snprintf(want, sizeof want, "simulate: the prices and iv files are the same file '%s'", p);
    assert_string_equal(raid_errmsg(), want);
    assert_false(t_file_exists(p));
    assert_int_equal(count_tmp_files(), 0);
}

/* ------------------------------------------------------------------------------------------------ */
/* The CLI                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static void test_cli_simulate(void **state)
{
    (void)state;
    char cmd[2048], *out = NULL, *err = NULL;
    const char *p = t_tmppath("cli_prices.csv"), *v = t_tmppath("cli_iv.csv");
    snprintf(cmd, sizeof cmd,
             RAID_CLI " simulate --seed 5 --symbols 2 --days 2 --obs 391 --mean-var 2e-4 --vol-of-var 0.3 "
                      "--kappa 0.5 --rho -0.3 --jump-rate 0.5 --jump-sd 0.004 --noise-sd 1e-5 -o '%s' --iv '%s'",
             p, v);
    int rc = t_run(cmd, &out, &err);
    if (rc != 0)
        print_message("stderr: %s\n", err ? err : "");
    assert_int_equal(rc, 0);
    free(out);
    free(err);
    char *txt = t_read_file(p), *ivt = t_read_file(v);
    assert_non_null(txt);
    assert_non_null(ivt);
    assert_int_equal(count_lines(txt), 1 + 2 * 2 * 391);
    assert_int_equal(count_lines(ivt), 1 + 2 * 2);
    assert_non_null(strstr(txt, "\nS0002,2020-01-03T15:59:00,"));

    /* The library with the same options gives the same bytes. */
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.seed = 5;
    o.nsymbols = 2;
    o.ndays = 2;
    o.obs_per_day = 391;
    o.mean_var = 2e-4;
    o.vol_of_logvar = 0.3;
    o.mean_reversion = 0.5;
    o.rho = -0.3;
    o.jump_rate = 0.5;
    o.jump_sd = 0.004;
    o.noise_sd = 1e-5;
    const char *p2 = t_tmppath("lib_prices.csv");
    assert_int_equal(raid_simulate_csv(&o, p2, NULL), RAID_OK);
    char *txt2 = t_read_file(p2);
    assert_string_equal(txt, txt2);
    free(txt);
    free(txt2);
    free(ivt);

    /* Help. */
    rc = t_run(RAID_CLI " simulate --help", &out, NULL);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "--jump-rate"));
    free(out);
}

static void test_cli_simulate_errors(void **state)
{
    (void)state;
    char cmd[2048];
    const char *p = t_tmppath("cli_bad.csv");
    static const char *const bad[] = {
        "--obs 1",        "--obs x",         "--days 0",      "--symbols -2",  "--rho 2",
        "--mean-var 0",   "--mean-var abc",  "--noise-sd -1", "--jump-sd -1",  "--jump-rate -3",
        "--kappa -1",     "--vol-of-var -1", "--seed -1",     "--seed 12x",    "--days 1e3",
        "--no-such-option",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        snprintf(cmd, sizeof cmd, RAID_CLI " simulate %s -o '%s'", bad[i], p);
        int rc = t_run(cmd, NULL, &err);
        if (rc != 1)
            print_message("%s: rc %d stderr %s\n", bad[i], rc, err ? err : "");
        assert_int_equal(rc, 1);
        assert_true(err && strlen(err) > 0);
        free(err);
        assert_false(t_file_exists(p));
    }
    /* -o is required; a stray argument is a usage error. */
    assert_int_equal(t_run(RAID_CLI " simulate --obs 10", NULL, NULL), 1);
    snprintf(cmd, sizeof cmd, RAID_CLI " simulate --obs 10 -o '%s' extra", p);
    assert_int_equal(t_run(cmd, NULL, NULL), 1);
    /* I/O failure: exit 2. */
    snprintf(cmd, sizeof cmd, RAID_CLI " simulate --obs 10 -o '%s'", t_tmppath("nodir/x.csv"));
    assert_int_equal(t_run(cmd, NULL, NULL), 2);
    assert_int_equal(count_tmp_files(), 0);
}

static void test_cli_help_texts(void **state)
{
    (void)state;
    static const char *const cmds[] = {"realized", "devices", "simulate", "precision-report"};
    for (size_t i = 0; i < 4; i++) {
        char cmd[512], *out = NULL;
        snprintf(cmd, sizeof cmd, RAID_CLI " help %s", cmds[i]);
        assert_int_equal(t_run(cmd, &out, NULL), 0);
        assert_non_null(out);
        assert_non_null(strstr(out, cmds[i]));
        assert_non_null(strstr(out, "xit")); /* exit statuses */
        free(out);
    }
    assert_int_equal(t_run(RAID_CLI " help no-such-command", NULL, NULL), 1);
}

static void test_cli_precision_report_usage(void **state)
{
    (void)state;
    assert_int_equal(t_run(RAID_CLI " precision-report --segments 0", NULL, NULL), 1);
    assert_int_equal(t_run(RAID_CLI " precision-report --max-m 5", NULL, NULL), 1);
    assert_int_equal(t_run(RAID_CLI " precision-report -o out.pdf", NULL, NULL), 1);
    char *out = NULL;
    assert_int_equal(t_run(RAID_CLI " precision-report --help", &out, NULL), 0);
    assert_non_null(strstr(out, "--segments"));
    free(out);
}

/* With an OpenCL device: a small report writes the data CSV (and the figure when gnuplot exists). */
static void test_cli_precision_report_run(void **state)
{
    (void)state;
    if (!t_have_opencl())
        skip();
    char cmd[2048], *out = NULL, *err = NULL;
    const char *data = t_tmppath("prec.csv"), *fig = t_tmppath("prec.svg");
    snprintf(cmd, sizeof cmd, RAID_CLI " precision-report --device opencl --max-m 1000 --segments 8 -o '%s' --data '%s'",
             fig, data);
    int rc = t_run(cmd, &out, &err);
    if (rc != 0)
        print_message("rc %d\nstdout %s\nstderr %s\n", rc, out ? out : "", err ? err : "");
    assert_true(rc == 0 || rc == 2); /* 2: gnuplot missing */
    char *csv = t_read_file(data);
    assert_non_null(csv);
    static const char hdr[] = "M,segments,max_rel_err,rms_rel_err,rms_pred,max_pred\n";
    assert_true(strncmp(csv, hdr, strlen(hdr)) == 0);
    assert_int_equal(count_lines(csv), 1 + 5); /* 10, 30, 100, 300, 1000 */
    /* Every measured RMS is below the prediction times a margin. */
    char *line = strchr(csv, '\n') + 1;
    for (int i = 0; i < 5; i++) {
        long m, k;
        double mx, rms, rp, mp;
        assert_int_equal(sscanf(line, "%ld,%ld,%lf,%lf,%lf,%lf", &m, &k, &mx, &rms, &rp, &mp), 6);
        assert_true(rms <= 3 * rp);
        assert_true(mx >= rms);
        line = strchr(line, '\n') + 1;
    }
    if (rc == 0)
        assert_true(t_file_exists(fig));
    free(csv);
    free(out);
    free(err);
}

/* raid_simulate_returns: options named as raid_simulate_csv names them, and outputs that leave float64
 * refused as raid_simulate_csv refuses such prices (it used to return inf/NaN with RAID_OK). */
static void test_returns_errors(void **st)
{
    (void)st;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    double r[8], iv[2];
    o.rho = 2;
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "simulate: rho must be in [-1, 1] (got 2)");
    raid_sim_opts_init(&o);
    o.vol_of_logvar = 1000;
    o.ndays = 2;
    o.obs_per_day = 5;
    o.seed = 4;
    assert_int_equal(raid_simulate_returns(&o, r, iv), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "simulate: a price left the range of float64 (positive and finite); the "
                                       "variance, jump or noise parameters are too large");
    const char *p = t_tmppath("sim_extreme.csv");
    assert_int_equal(raid_simulate_csv(&o, p, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "a price left the range of float64"));
}

/* ------------------------------------------------------------------------------------------------ */
/* Correlated symbols and the true covariance                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* Without a correlation the truth file holds the variances on the diagonal (the iv file's text) and 0 off
 * it, and the prices are those written without it, byte for byte. */
static void test_cov_independent_csv(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.nsymbols = 3;
    o.ndays = 2;
    o.obs_per_day = 79;
    const char *p1 = t_tmppath("ci_p1.csv"), *p2 = t_tmppath("ci_p2.csv"), *v = t_tmppath("ci_v.csv"),
               *c = t_tmppath("ci_c.csv");
    assert_int_equal(raid_simulate_csv(&o, p1, NULL), RAID_OK);
    assert_int_equal(raid_simulate_cov_csv(NULL, &o, p2, v, c), RAID_OK);
    char *a = t_read_file(p1), *b = t_read_file(p2), *ct = t_read_file(c), *vt = t_read_file(v);
    assert_string_equal(a, b);
    assert_int_equal(count_lines(ct), 1 + 2 * 6);
    static const char head[] = "date,symbol_i,symbol_j,value\n2020-01-02,S0001,S0001,";
    assert_true(strncmp(ct, head, sizeof head - 1) == 0);
    assert_non_null(strstr(ct, "\n2020-01-03,S0002,S0003,0\n"));
    /* S0002's variance of 2020-01-03, as the iv file writes it */
    const char *row = strstr(vt, "\nS0002,2020-01-03,");
    assert_non_null(row);
    char want[128];
    snprintf(want, sizeof want, "\n2020-01-03,S0002,S0002,%.*s\n", (int)strcspn(row + 18, "\n"), row + 18);
    assert_non_null(strstr(ct, want));
    assert_int_equal(raid_sim_cov_size(3), 6);
    assert_int_equal(raid_sim_cov_size(0), 0);
    free(a);
    free(b);
    free(ct);
    free(vt);
}

/* The joint model's files: all or none (a correlation not positive semidefinite, an unwritable truth file,
 * one path twice), and the correlation's checks of the library. */
static void test_cov_joint_refusals(void **state)
{
    (void)state;
    raid_sim_opts o;
    raid_sim_opts_init(&o);
    o.nsymbols = 3;
    o.obs_per_day = 10;
    const double bad[9] = {1, 0.9, 0.9, 0.9, 1, -0.9, 0.9, -0.9, 1};
    o.corr_matrix = bad;
    const char *p = t_tmppath("cj_p.csv"), *v = t_tmppath("cj_v.csv"), *c = t_tmppath("cj_c.csv");
    assert_int_equal(raid_simulate_cov_csv(NULL, &o, p, v, c), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "simulate: the correlation matrix is not positive semidefinite: the "
                                          "Cholesky pivot of symbol 3 (S0003) is -"));
    assert_false(t_file_exists(p) || t_file_exists(v) || t_file_exists(c));
    double r[27];
    assert_int_equal(raid_simulate_returns(&o, r, NULL), RAID_EINVAL);
    o.corr_matrix = NULL;
    o.corr = 0.4;
    o.trade_rate = 0.5;
    assert_int_equal(raid_simulate_cov_csv(NULL, &o, p, v, t_tmppath("no/such/dir/c.csv")), RAID_EIO);
    assert_false(t_file_exists(p) || t_file_exists(v));
    assert_int_equal(raid_simulate_cov_csv(NULL, &o, p, v, v), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "simulate: the covariance file is the same file as the iv file '"));
    assert_int_equal(count_tmp_files(), 0);
    /* the checks of the options */
    static const char *const msgs[] = {
        "simulate: corr must be in [-1, 1] (got 1.5)",
        "simulate: corr 0.4 and a correlation matrix: give one of them",
        "simulate: the correlation of symbol 2 with itself must be 1 (got 0.98999999999999999)",
        "simulate: the correlation matrix is not symmetric: (1, 2) is 0.5, (2, 1) 0.40000000000000002",
        "simulate: trade rate 0.5 and one rate per symbol: give one of them",
        "simulate: the trade rate of symbol 3 must be in (0, 1e6] trades per second (got 0)",
        "simulate: trade rate must be in [0, 1e6] trades per second (got 2e+06)",
        "simulate: the mean variance of symbol 2 must be finite and > 0 (got nan)",
    };
    for (int k = 0; k < 8; k++) {
        raid_sim_opts_init(&o);
        o.nsymbols = 3;
        o.obs_per_day = 10;
        double m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, rates[3] = {1, 2, 0}, mv[3] = {1e-4, NAN, 1e-4};
        switch (k) {
        case 0: o.corr = 1.5; break;
        case 1: o.corr = 0.4; o.corr_matrix = m; break;
        case 2: m[4] = 0.99; o.corr_matrix = m; break;
        case 3: m[1] = 0.5; m[3] = 0.4; o.corr_matrix = m; break;
        case 4: o.trade_rate = 0.5; o.trade_rates = rates; break;
        case 5: o.trade_rates = rates; break;
        case 6: o.trade_rate = 2e6; break;
        case 7: o.mean_vars = mv; break;
        }
        assert_int_equal(raid_simulate_returns(&o, r, NULL), RAID_EINVAL);
        assert_string_equal(raid_errmsg(), msgs[k]);
        assert_int_equal(raid_simulate_cov_csv(NULL, &o, p, NULL, c), RAID_EINVAL);
        assert_string_equal(raid_errmsg(), msgs[k]);
        assert_false(t_file_exists(p) || t_file_exists(c));
    }
}

/* raid_simulate_read_corr: the long layout, either order of a pair, diagonal rows optional. */
/* Peak resident memory in kB of a child process that writes the prices of `rate` trades a second of two
 * correlated symbols over one day with only the open and the close on the grid (the whole session one
 * interval), or of a tiny run (rate 0); the children's peak so far (getrusage). */
static long child_peak_kb(double rate)
{
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        raid_sim_opts o;
        raid_sim_opts_init(&o);
        o.nsymbols = 2;
        o.ndays = 1;
        o.obs_per_day = rate > 0 ? 2 : 10;
        o.corr = 0.3;
        o.trade_rate = rate > 0 ? rate : 0.01;
        const char *path = t_tmppath(rate > 0 ? "mem_big.csv" : "mem_small.csv");
        const int ok = raid_simulate_cov_csv(NULL, &o, path, NULL, NULL) == RAID_OK;
        remove(path);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return ru.ru_maxrss;
}

/* Trades are written a bounded window at a time: 1.9 million trades in one grid interval (40 a second, two
 * symbols, --obs 2) once needed a buffer of every one of them (64 MB here; 3 GB at 2,000 a second). */
static void test_cov_async_memory(void **state)
{
    (void)state;
    const long base = child_peak_kb(0), big = child_peak_kb(40.0);
    print_message("peak resident memory: %ld kB for a tiny run, %ld kB for 1.9e6 trades\n", base, big);
    assert_true(big - base < 24 * 1024);
}

static void test_read_corr(void **state)
{
    (void)state;
    const char *f = t_tmppath("corr.csv");
    assert_int_equal(t_write_file(f, "value,symbol_j,symbol_i,note\n0.25,S0001,S0002,x\n-0.5,S0003,S0001,y\n"
                                     "1,S0002,S0002,z\n0,S0002,S0003,w\n"), 0);
    double c[9];
    assert_int_equal(raid_simulate_read_corr(f, 3, c), RAID_OK);
    const double want[9] = {1, 0.25, -0.5, 0.25, 1, 0, -0.5, 0, 1};
    assert_memory_equal(c, want, sizeof want);
    assert_int_equal(raid_simulate_read_corr(f, 2, c), RAID_EPARSE);
    assert_non_null(strstr(raid_errmsg(), "corr.csv:3:2: symbol 'S0003' is not simulated (the symbols are S0001 to S0002)"));
    assert_int_equal(raid_simulate_read_corr(f, 0, c), RAID_EINVAL);
    assert_int_equal(raid_simulate_read_corr(NULL, 3, c), RAID_EINVAL);
    assert_int_equal(raid_simulate_read_corr(t_tmppath("no_such_corr.csv"), 3, c), RAID_EIO);
    /* one symbol: a header alone is a whole matrix */
    assert_int_equal(t_write_file(f, "symbol_i,symbol_j,value\n"), 0);
    assert_int_equal(raid_simulate_read_corr(f, 1, c), RAID_OK);
    assert_true(c[0] == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_constant_variance_mean),
        cmocka_unit_test(test_rv_converges_to_iv),
        cmocka_unit_test(test_jumps_and_noise),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_csv_io_error),
        cmocka_unit_test(test_csv_absurd),
        cmocka_unit_test(test_cli_simulate),
        cmocka_unit_test(test_returns_errors),
        cmocka_unit_test(test_cli_simulate_errors),
        cmocka_unit_test(test_cli_help_texts),
        cmocka_unit_test(test_cli_precision_report_usage),
        cmocka_unit_test(test_cli_precision_report_run),
        cmocka_unit_test(test_cov_independent_csv),
        cmocka_unit_test(test_cov_joint_refusals),
        cmocka_unit_test(test_cov_async_memory),
        cmocka_unit_test(test_read_corr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
