/* Time order and empty inputs across the jobs (docs/input.md "Time order" and "A header and no rows"):
 * the one rule of raid_date_compare; the array checks (raid_dates_check_order, raid_times_check_order,
 * raid_garch_input_add, raid_har_input_add); the four CSV jobs that read dates as text (ma, sweep, garch,
 * har) refusing a date out of order, repeated or empty with FILE:LINE:COL, exit 2 and no output; every CSV
 * command on a file with a header and no rows; the sweep's series too short and combinations without a
 * value; raid ma's notice of series without a value; raid garch's reason when no window fits. Public API
 * and the CLI only. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "raid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sign of raid_date_compare(a, b). */
static int cmp(const char *a, const char *b)
{
    const int c = raid_date_compare(a, b);
    return (c > 0) - (c < 0);
}

static void test_date_compare(void **state)
{
    (void)state;
    /* ISO 8601: dates, timestamps (T, space), a date as its midnight, fractions */
    assert_int_equal(cmp("2020-01-02", "2020-01-03"), -1);
    assert_int_equal(cmp("2020-12-31", "2020-02-01"), 1);
    assert_int_equal(cmp("2020-01-02", "2020-01-02"), 0);
    assert_int_equal(cmp("2020-01-02T10:00:00", "2020-01-02 09:59:59.999"), 1);
    assert_int_equal(cmp("2020-01-02T00:00:00", "2020-01-02"), 0);
    assert_int_equal(cmp("2020-01-02T10:00:00.5", "2020-01-02T10:00:00.25"), 1);
    /* offsets on both: instants. The hour repeated when summer time ends (New York, 2020-11-01): 01:30
     * EDT comes before 01:10 EST, although its clock time is later */
    assert_int_equal(cmp("2020-11-01T01:30:00-04:00", "2020-11-01T01:10:00-05:00"), -1);
    assert_int_equal(cmp("2020-01-02T10:00:00+01:00", "2020-01-02T09:00:00Z"), 0);
    /* integers exactly, beyond float64's 53 bits (nanosecond time stamps); other numbers as numbers */
    assert_int_equal(cmp("1600000000000000001", "1600000000000000002"), -1);
    assert_int_equal(cmp("9", "10"), -1);
    assert_int_equal(cmp("-10", "-9"), -1);
    assert_int_equal(cmp("1e3", "1000"), 0);
    assert_int_equal(cmp("2.5", "10"), -1);
    /* text: byte order (a sort of the column as text); of different kinds: text too */
    assert_int_equal(cmp("d10", "d9"), -1);
    assert_int_equal(cmp("b", "ab"), 1);
    assert_int_equal(cmp("ab", "abc"), -1);
    assert_int_equal(cmp("12/31/2019", "01/02/2020"), 1);
    assert_int_equal(cmp("", "x"), -1);
    assert_int_equal(cmp(NULL, ""), 0);
}

static void test_array_checks(void **state)
{
    (void)state;
    const char *d[6] = {"2020-01-01", "2020-01-02", "2020-01-03", "1", "2", "2"};
    const int64_t off[3] = {0, 3, 6}, rows[6] = {10, 11, 12, 13, 14, 15};
    const char *sym[2] = {"A", ""};
    assert_int_equal(raid_dates_check_order(d, off, 1, sym, NULL), RAID_OK);
    assert_int_equal(raid_dates_check_order(d, off, 0, NULL, NULL), RAID_OK);
    assert_int_equal(raid_dates_check_order(d, off, 2, sym, rows), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_dates_check_order: (no symbol): row 15: date '2' repeats '2' on row 14 "
                                       "(the rows of a series must be in time order)");
    assert_int_equal(raid_dates_check_order(d, off, 2, NULL, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "series 1: row 3: date '2' repeats '2' on row 2"));
    d[1] = "2019-12-31";
    assert_int_equal(raid_dates_check_order(d, off, 1, sym, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "A: row 2: date '2019-12-31' comes before '2020-01-01' on row 1"));
    const char *mixed[3] = {"2020-01-01T10:00:00+00:00", "2020-01-01T11:00:00", "2020-01-01T12:00:00+05:00"};
    const int64_t off3[2] = {0, 3};
    assert_int_equal(raid_dates_check_order(mixed, off3, 1, sym, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "A: row 2: date '2020-01-01T11:00:00' and '2020-01-01T10:00:00+00:00' on "
                                          "row 1 mix a UTC offset and a time without one"));
    const char *kinds[3] = {"10", "1a", "2"}; /* each pair in order as text; 2 before 10 */
    assert_int_equal(raid_dates_check_order(kinds, off3, 1, sym, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "A: row 2: date '1a' and '10' on row 1 are of different kinds"));
    const char *kinds2[3] = {"2020-01-02", "20200103", "2020-01-04"}; /* a time, a number, a time */
    assert_int_equal(raid_dates_check_order(kinds2, off3, 1, sym, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "A: row 2: date '20200103' and '2020-01-02' on row 1 are of different kinds"));
    const char *nums[3] = {"9", "9.5", "1e1"}; /* integers and other numbers: one kind */
    assert_int_equal(raid_dates_check_order(nums, off3, 1, sym, NULL), RAID_OK);
    d[1] = "";
    assert_int_equal(raid_dates_check_order(d, off, 1, sym, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "A: row 2: date is empty"));
    /* the year last: 01/01/2002 then 02/01/2001 increase as text but go back a year, read either way */
    const char *dmy[2] = {"01/01/2002", "02/01/2001"};
    const int64_t off1[2] = {0, 2};
    assert_int_equal(raid_dates_check_order(dmy, off1, 1, sym, NULL), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_dates_check_order: A: row 1: date '01/01/2002' has the year last (day and "
                                       "month cannot be told apart, and such dates are misordered as text): write "
                                       "dates as ISO 8601, YYYY-MM-DD");
    const int64_t bad[3] = {0, 3, 2};
    assert_int_equal(raid_dates_check_order(d, bad, 2, NULL, NULL), RAID_EINVAL);
    assert_int_equal(raid_dates_check_order(NULL, off, 1, NULL, NULL), RAID_EINVAL);

    /* times as integers: nanoseconds kept (two times 1 ns apart are in order), messages in ISO 8601 */
    const int64_t t[4] = {1577923200000000000, 1577923200000000001, 1577923200000000001, 1577836800000000000};
    const int64_t toff[2] = {0, 2}, toff2[2] = {0, 3}, toff3[3] = {0, 3, 4};
    assert_int_equal(raid_times_check_order(t, 1000000000, toff, 1, NULL, NULL), RAID_OK);
    assert_int_equal(raid_times_check_order(t, 1000000000, toff2, 1, sym, NULL), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_times_check_order: A: row 3: time 2020-01-02T00:00:00.000000001 repeats "
                                       "2020-01-02T00:00:00.000000001 on row 2 (the rows of a series must be in time order)");
    assert_int_equal(raid_times_check_order(t + 2, 1000000000, toff, 1, NULL, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "series 0: row 2: time 2020-01-01T00:00:00 comes before "
                                          "2020-01-02T00:00:00.000000001 on row 1"));
    assert_int_equal(raid_times_check_order(t, 1000000000, toff3, 2, NULL, NULL), RAID_EINVAL); /* 3 of series 0 */
    assert_int_equal(raid_times_check_order(t, 0, toff, 1, NULL, NULL), RAID_EINVAL);

    /* raid_garch_input_add with dates: the same rule (returns out of order were fitted as given) */
    raid_garch_input *gi;
    assert_int_equal(raid_garch_input_create(&gi), RAID_OK);
    const double r[3] = {0.1, -0.2, 0.3};
    const char *gd[3] = {"2020-01-03", "2020-01-02", "2020-01-04"};
    assert_int_equal(raid_garch_input_add(gi, "X", 3, r, gd, NULL), RAID_EINVAL);
    assert_string_equal(raid_errmsg(), "raid_garch_input_add: X: row 2: date '2020-01-02' comes before '2020-01-03' on "
                                       "row 1 (the rows of a series must be in time order)");
    gd[1] = "";
    assert_int_equal(raid_garch_input_add(gi, "X", 3, r, gd, NULL), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "X: row 2: date is empty"));
    gd[1] = "2020-01-03T12:00:00";
    assert_int_equal(raid_garch_input_add(gi, "X", 3, r, gd, NULL), RAID_OK);
    assert_int_equal(raid_garch_input_add(gi, "Y", 3, r, NULL, NULL), RAID_OK); /* no dates: the caller's order */
    raid_garch_input_destroy(gi);

    /* raid_har_input_add: a date going back (the fit used to skip the symbol; now it never gets in) */
    raid_har_input *hi;
    assert_int_equal(raid_har_input_create(&hi), RAID_OK);
    const char *hd[3] = {"2020-01-02", "2020-01-06", "2020-01-03"};
    const double rv[3] = {1e-4, 2e-4, 3e-4};
    const int64_t hl[3] = {0, 1, 2};
    assert_int_equal(raid_har_input_add(hi, "S", 3, hd, rv, NULL, NULL, NULL, hl), RAID_EINVAL);
    assert_non_null(strstr(raid_errmsg(), "raid_har_input_add: S: row 2: date '2020-01-03' comes before '2020-01-06' on "
                                          "row 1"));
    assert_int_equal(raid_har_input_nsymbols(hi), 0);
    raid_har_input_destroy(hi);
}

/* `raid ARGS FILE -o OUT` on text: the exit status; *err the standard error (malloc'd); OUT must not exist
 * afterwards when the status is not 0. */
static int run_on(const char *text, const char *args, char **err)
{
    const char *in = t_tmppath("order_in.csv"), *o = t_tmppath("order_out.csv");
    remove(o);
    assert_int_equal(t_write_file(in, text), 0);
    char *out = NULL;
    const int rc = t_cli(&out, err, "%s '%s' -o '%s'", args, in, o);
    free(out);
    if (rc != 0 && t_file_exists(o))
        fail_msg("raid %s: exit %d left an output file", args, rc);
    return rc;
}

/* The message FILE:LOC: WHAT of the last run_on. */
static void expect_err(const char *err, const char *loc, const char *what)
{
    char want[1024];
    snprintf(want, sizeof want, "%s:%s: %s", t_tmppath("order_in.csv"), loc, what);
    if (!strstr(err, want))
        fail_msg("expected '%s' in: %s", want, err);
}

static void test_cli_order(void **state)
{
    (void)state;
    /* each job that reads dates as text: a date going back, one repeated, refused where read (ma and sweep
     * computed in file order, har skipped the symbol and wrote the others) */
    static const struct {
        const char *args, *col; /* the command, the value column */
    } jobs[] = {{"ma --stat mean --window 2", "close"},
                {"sweep --ma mean --fast 1 --slow 2", "close"},
                {"garch", "ret"},
                {"har --device cpu", "rv"}};
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++) {
        char text[512], *err = NULL;
        snprintf(text, sizeof text, "symbol,date,%s\nB,2020-01-01,1\nA,2020-01-02,1\nA,2020-01-06,2\nA,2020-01-03,3\n",
                 jobs[j].col);
        assert_int_equal(run_on(text, jobs[j].args, &err), 2);
        expect_err(err, "5:2", "A: date '2020-01-03' comes before '2020-01-06' on line 4 (the rows of a symbol must be "
                               "in time order: sort FILE by symbol, date)");
        free(err);
        snprintf(text, sizeof text, "date,%s\n2020-01-01,1\n2020-01-02,2\n2020-01-02,3\n", jobs[j].col);
        assert_int_equal(run_on(text, jobs[j].args, &err), 2);
        expect_err(err, "4:1", "(no symbol): date '2020-01-02' repeats '2020-01-02' on line 3");
        free(err);
        snprintf(text, sizeof text, "date,%s\n2020-01-01,1\n,2\n", jobs[j].col);
        assert_int_equal(run_on(text, jobs[j].args, &err), 2);
        expect_err(err, "3:1", "empty date (every row needs one)");
        free(err);
        /* a time without an offset between two with: each pair was in order as clock times, and 12:00+05:00
         * (07:00Z) went through after 10:00+00:00; the mix is refused at the first pair of the two forms
         * (raid har reads calendar dates only) */
        if (!strncmp(jobs[j].args, "har", 3))
            continue;
        snprintf(text, sizeof text, "date,%s\n2020-01-01T10:00:00+00:00,1\n2020-01-01T11:00:00,2\n"
                 "2020-01-01T12:00:00+05:00,3\n", jobs[j].col);
        assert_int_equal(run_on(text, jobs[j].args, &err), 2);
        expect_err(err, "3:1", "(no symbol): date '2020-01-01T11:00:00' and '2020-01-01T10:00:00+00:00' on line 2 mix "
                               "a UTC offset and a time without one");
        free(err);        /* kinds mixed: 10, 1a, 2 went through (each pair in order as text), 2 before 10 */
        snprintf(text, sizeof text, "date,%s\n10,1\n1a,2\n2,3\n", jobs[j].col);
        assert_int_equal(run_on(text, jobs[j].args, &err), 2);
        expect_err(err, "3:1", "(no symbol): date '1a' and '10' on line 2 are of different kinds (a time, a number, "
                               "text), which have no common order: write every date of a symbol in one form");
        free(err);
    }
    /* in order by the rule: numbers as numbers (9 before 10), times with offsets as instants (the hour
     * repeated when summer time ends) */
    char *err = NULL;
    assert_int_equal(run_on("date,close\n9,1\n10,2\n11,3\n", "ma --stat mean --window 2", &err), 0);
    free(err);
    assert_int_equal(run_on("timestamp,close\n2020-11-01T01:30:00-04:00,1\n2020-11-01T01:10:00-05:00,2\n"
                            "2020-11-01T01:40:00-05:00,3\n", "ma --stat mean --window 2", &err), 0);
    free(err);
    assert_int_equal(run_on("date,close\nd9,1\nd10,2\n", "ma --stat mean --window 2", &err), 2);
    expect_err(err, "3:1", "(no symbol): date 'd10' comes before 'd9' on line 2");
    free(err);
    /* text that orders as text: kept */
    assert_int_equal(run_on("date,close\n2019-Q4,1\n2020-Q1,2\n", "ma --stat mean --window 2", &err), 0);
    free(err);
}

/* Dates with the year last, refused by every job that checks dates. 01/01/2002 then 02/01/2001 increase
 * as text and were accepted, a year out of order read either way; 12/31/2000 then 01/01/2001 were refused
 * as "comes before" although in order read month first. */
static void test_year_last(void **state)
{
    (void)state;
    static const char *const yl = "has the year last (day and month cannot be told apart, and such dates are "
                                  "misordered as text): write dates as ISO 8601, YYYY-MM-DD";
    /* the command, the value column, the words before and after the date (har reads calendar dates only) */
    const char *const jobs[][4] = {{"ma --stat mean --window 2", "close", "A: ", yl},
                                   {"sweep --ma mean --fast 1 --slow 2", "close", "A: ", yl},
                                   {"garch", "ret", "A: ", yl},
                                   {"har --device cpu", "rv", "", "is not a calendar date YYYY-MM-DD"}};
    static const char *const dates[][2] = {{"01/01/2002", "02/01/2001"}, {"12/31/2000", "01/01/2001"},
                                           {"31.12.2000", "01.01.2001"}, {"2000-12-31", "1-1-01 10:00:00"}};
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++)
        for (size_t k = 0; k < sizeof dates / sizeof *dates; k++) {
            char text[256], want[256], *err = NULL;
            snprintf(text, sizeof text, "symbol,date,%s\nA,%s,1\nA,%s,2\n", jobs[j][1], dates[k][0], dates[k][1]);
            assert_int_equal(run_on(text, jobs[j][0], &err), 2);
            const int first = strchr(dates[k][0], '/') || strchr(dates[k][0], '.');
            snprintf(want, sizeof want, "%sdate '%s' %s", jobs[j][2], dates[k][first ? 0 : 1], jobs[j][3]);
            expect_err(err, first ? "2:2" : "3:2", want);
            free(err);
        }
    /* the form exactly: not a year last */
    static const char *const other[] = {"2001-01-02", "123/1/2001", "1/2/3", "1/2-2001", "1.5", "20010102", "d1/2/2001"};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        assert_int_equal(raid_dates_check_order(other + i, (const int64_t[]){0, 1}, 1, NULL, NULL), RAID_OK);
}

/* Every CSV command on a file with a header and no rows: the relational ones write their header (exit
 * 0), the estimators refuse it (exit 2, FILE:2:1). */
static void test_header_only(void **state)
{
    (void)state;
    static const struct {
        const char *args, *header; /* the command, its input's header */
        int rc;
        const char *out; /* exit 0: the output; else the message after FILE: */
    } cmds[] = {
        {"realized --device cpu", "symbol,timestamp,price\n", 0,
         "symbol,date,n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p\n"},
        {"bars --interval 1min --device cpu", "symbol,timestamp,price\n", 0,
         "symbol,start,open,high,low,close,volume,vwap,trades\n"},
        {"sort --by a --device cpu", "a,b\n", 0, "a,b\n"},
        {"groupby --by a --agg sum:b --device cpu", "a,b\n", 0, "a,sum_b\n"},
        {"quantile --col b --q 0.5 --by a --device cpu", "a,b\n", 0, "a,q0.5\n"},
        {"ma --stat mean --window 3", "symbol,date,close\n", 0, "symbol,date,mean\n"},
        {"ma --stat mean --window 3", "date,close\n", 0, "date,mean\n"},
        {"quantile --col b --q 0.5 --device cpu", "a,b\n", 2, " column 'b' has no values (no quantile of no values)"},
        {"har --device cpu", "symbol,date,rv\n", 2, "2:1: no data rows (only a header)"},
        {"garch --device cpu", "symbol,date,ret\n", 2, "2:1: no data rows (only a header)"},
        {"sweep --device cpu", "symbol,date,close\n", 2, "2:1: no data rows (only a header)"},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
        char *err = NULL;
        const int rc = run_on(cmds[c].header, cmds[c].args, &err);
        if (rc != cmds[c].rc)
            fail_msg("raid %s on a header alone: exit %d, expected %d: %s", cmds[c].args, rc, cmds[c].rc, err);
        if (rc == 0) {
            char *txt = t_read_file(t_tmppath("order_out.csv"));
            assert_non_null(txt);
            assert_string_equal(txt, cmds[c].out);
            free(txt);
        } else {
            char want[1024];
            snprintf(want, sizeof want, "%s:%s", t_tmppath("order_in.csv"), cmds[c].out);
            if (!strstr(err, want))
                fail_msg("raid %s: expected '%s' in: %s", cmds[c].args, want, err);
        }
        free(err);
    }
}

static void test_sweep_no_value(void **state)
{
    (void)state;
    /* a symbol of 2 bars is skipped and reported (FILE:LINE:COL: its first row, the symbol column), the
     * others swept (the whole run stopped on it) */
    char *err = NULL;
    const char *two = "symbol,date,close\nA,1,10\nA,2,11\nB,1,10\nB,2,11\nB,3,12\nB,4,11\nB,5,13\n";
    assert_int_equal(run_on(two, "sweep --ma mean --fast 1 --slow 2 --device cpu", &err), 0);
    expect_err(err, "2:1", "series 'A' has 2 bars (at least 3 are needed): skipped, its combinations have no value");
    free(err);
    char *txt = t_read_file(t_tmppath("order_out.csv"));
    assert_non_null(strstr(txt, "\nA,1,2,,,,,\nB,1,2,"));
    assert_null(strstr(txt, "\nB,1,2,,"));
    free(txt);
    /* windows longer than the series: no value (empty fields, not zeros), and said */
    assert_int_equal(run_on(two, "sweep --ma mean --fast 1:2 --slow 2:4 --device cpu", &err), 0);
    if (!strstr(err, "raid sweep: series 'B': 2 of 5 combinations have no value: a slow mean of period 4 or more has "
                     "its first value at bar 3 or later (0-based), too late for a position in 5 bars"))
        fail_msg("%s", err);
    free(err);
    txt = t_read_file(t_tmppath("order_out.csv"));
    assert_non_null(strstr(txt, "\nB,1,2,1,"));
    assert_non_null(strstr(txt, "\nB,1,4,,,,,\nB,2,3,")); /* slow 3: its first value at bar 2, filled at bar 3 */
    assert_null(strstr(txt, "\nB,1,3,,"));
    assert_non_null(strstr(txt, "\nB,2,4,,,,,\n"));
    free(txt);
    /* nothing with a value: nothing written, exit 2 (as raid garch when no series could be estimated) */
    assert_int_equal(run_on("date,close\n1,10\n2,11\n3,12\n", "sweep --ma hma --fast 5 --slow 10 --device cpu", &err), 2);
    assert_non_null(strstr(err, "the series: 1 of 1 combinations have no value: a slow hma of period 10 or more"));
    assert_non_null(strstr(err, "raid sweep: no combination has a value"));
    free(err);
    /* the device path gives the same empty rows */
    if (t_have_opencl()) {
        char args[128];
        snprintf(args, sizeof args, "sweep --ma mean --fast 1:2 --slow 2:4 --device %s", t_device());
        assert_int_equal(run_on(two, args, &err), 0);
        free(err);
        txt = t_read_file(t_tmppath("order_out.csv"));
        assert_non_null(strstr(txt, "\nA,1,2,,,,,\n"));
        assert_non_null(strstr(txt, "\nB,1,4,,,,,\nB,2,3,"));
        assert_non_null(strstr(txt, "\nB,2,4,,,,,\n"));
        free(txt);
    }
    /* from arrays: the series named by index, its statistics NaN and trades -1 */
    raid_sweep_spec sp;
    raid_sweep_spec_default(&sp);
    sp.ma = RAID_MA_MEAN, sp.fast_lo = sp.fast_hi = 1, sp.slow_lo = sp.slow_hi = 2;
    const double c[5] = {10, 11, 10, 11, 12};
    const int64_t off[3] = {0, 1, 5};
    raid_sweep_result *r;
    assert_int_equal(raid_sweep_run_arrays(NULL, &sp, c, NULL, off, 2, NULL, &r), RAID_OK);
    assert_int_equal(raid_sweep_result_nvalued(r), 1);
    assert_int_equal(raid_sweep_result_nmessages(r), 1);
    assert_string_equal(raid_sweep_result_message(r, 0),
                        "series 0 has 1 bar (at least 3 are needed): skipped, its combinations have no value");
    raid_sweep_stats st;
    assert_int_equal(raid_sweep_result_get(r, 0, NULL, NULL, NULL, &st), RAID_OK);
    assert_true(st.trades == -1 && isnan(st.total_log_return) && isnan(st.sharpe) && isnan(st.max_drawdown) &&
                isnan(st.exposure));
    assert_int_equal(raid_sweep_result_get(r, 1, NULL, NULL, NULL, &st), RAID_OK);
    assert_true(st.trades >= 0 && !isnan(st.sharpe));
    raid_sweep_result_destroy(r);
}

static void test_ma_notice(void **state)
{
    (void)state;
    char *err = NULL;
    assert_int_equal(run_on("symbol,date,close\nA,1,1\nA,2,2\nA,3,3\nB,1,1\nB,2,2\nB,3,3\nB,4,4\nB,5,5\nB,6,6\n",
                            "ma --stat hma --window 4", &err), 0);
    assert_non_null(strstr(err, "raid ma: notice: 1 of 2 series has no value: --stat hma --window 4 needs 5 values in a "
                                "row without NaN (the first such series: 'A', 3 rows)"));
    free(err);
    char *txt = t_read_file(t_tmppath("order_out.csv"));
    assert_non_null(strstr(txt, "A,1,\nA,2,\nA,3,\n")); /* empty, never zeros */
    free(txt);
    assert_int_equal(run_on("date,close\n1,1\n2,2\n3,3\n", "ma --stat mean --window 3", &err), 0);
    assert_null(strstr(err, "notice")); /* a value at the last row: nothing to say */
    free(err);
}

static void test_garch_window_reason(void **state)
{
    (void)state;
    char *out = NULL, *err = NULL;
    assert_int_equal(t_cli(&out, &err, "garch '%s' --window rolling:5000 --device cpu", t_data("dem2gbp.csv")), 2);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "raid garch: no series could be estimated: the window (rolling:5000) is longer than "
                                "every series (the longest has 1974 returns)\n"));
    free(out), free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_date_compare),   cmocka_unit_test(test_array_checks),
        cmocka_unit_test(test_cli_order),      cmocka_unit_test(test_header_only),
        cmocka_unit_test(test_sweep_no_value), cmocka_unit_test(test_ma_notice),
        cmocka_unit_test(test_garch_window_reason), cmocka_unit_test(test_year_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
