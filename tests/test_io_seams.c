/* The seams of the parallel CSV path of raid_reader (src/io/table.c, src/io/reader.c): the parsing
 * threads derive each block's instants, trading dates, session flags and tick returns (reader.c's derive),
 * and the calling thread segments the rows in file order. Whatever the block size (down to one byte, so
 * that every row, every day change, every symbol's first row and every session edge falls at a block's
 * first row) and the number of threads, the segments, their returns (bit for bit), the notices and the
 * first error in file order (with its FILE:LINE:COL message) are those of one block read by one thread:
 * tick and grid sampling, a session window, offsets converted through a time zone, a file with quotes
 * that appear only after many blocks without any (the cut without looking for quotes, then checked), and
 * errors in a late block while an earlier block has one too. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"
#include "io/table.h"
#include "raid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static char path[256];

/* Everything raid_reader gives for the file with these options, block size and threads, as text. */
static char *read_all(const raid_read_opts *o, size_t block, int threads)
{
    raidTableTestTuning(block, threads, 0);
    t_sbuf out = {0};
    t_sb_add(&out, "%s", "");
    raid_reader *rd = NULL;
    raid_status st = raid_reader_open(&rd, path, o);
    if (st != RAID_OK) {
        t_sb_add(&out, "open %d: %s\n", (int)st, raid_errmsg());
        raidTableTestTuning(0, -1, 0);
        return out.s;
    }
    raid_batch b;
    raid_batch_init(&b);
    int done = 0;
    while (!done) {
        raid_batch_clear(&b);
        st = raid_reader_next(rd, &b, 1000, &done);
        for (size_t s = 0; s < b.nseg; s++) {
            t_sb_add(&out, "%s %d %lld:", raid_reader_symbol(rd, b.symbol[s]), (int)b.date[s],
                   (long long)(b.offsets[s + 1] - b.offsets[s]));
            for (int64_t i = b.offsets[s]; i < b.offsets[s + 1]; i++)
                t_sb_add(&out, " %a", b.ret[i]);
            t_sb_add(&out, "\n");
        }
        if (st != RAID_OK) {
            t_sb_add(&out, "status %d: %s\n", (int)st, raid_errmsg());
            break;
        }
    }
    for (size_t i = 0; i < raid_reader_notice_count(rd); i++)
        t_sb_add(&out, "notice %s\n", raid_reader_notice(rd, i));
    raid_batch_free(&b);
    raid_reader_close(rd);
    raidTableTestTuning(0, -1, 0);
    return out.s;
}

/* The lines of s that start with "status" or "notice" (in place): with an error, how many of the complete
 * segments are delivered before it depends on the batches (as it did before the blocks). */
static void status_only(char *s)
{
    char *o = s;
    for (char *p = s; *p;) {
        char *e = strchr(p, '\n');
        const size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
        if (strncmp(p, "status", 6) == 0 || strncmp(p, "notice", 6) == 0) {
            memmove(o, p, n);
            o += n;
        }
        p += n;
    }
    *o = 0;
}

static void check_all_ways(const raid_read_opts *o, const char *must_have)
{
    char *ref = read_all(o, (size_t)1 << 30, 1);
    if (must_have && !strstr(ref, must_have)) {
        fprintf(stderr, "expected '%s' in:\n%.3000s\n", must_have, ref);
        fail();
    }
    const int failed = strncmp(ref, "status", 6) == 0 || strstr(ref, "\nstatus") != NULL;
    if (failed)
        status_only(ref);
    static const size_t blocks[] = {1, 2, 13, 97, 1000, 4096};
    static const int threads[] = {1, 3};
    for (size_t ib = 0; ib < sizeof blocks / sizeof *blocks; ib++)
        for (size_t it = 0; it < 2; it++) {
            char *got = read_all(o, blocks[ib], threads[it]);
            if (failed)
                status_only(got);
            if (strcmp(ref, got) != 0) {
                fprintf(stderr, "block %zu threads %d differs:\n--- ref\n%.2000s\n--- got\n%.2000s\n", blocks[ib],
                        threads[it], ref, got);
                fail();
            }
            free(got);
        }
    free(ref);
}

/* A tick file: nsym symbols interleaved over ndays days, nper rows per symbol and day, timestamps with an
 * offset (+01:00) on every fifth row, prices near 100; `bad` rows changed by the caller's edits. nsym 0:
 * no symbol column (one series). */
static int zone_local; /* 1: the rows without an offset are Europe/Zurich (UTC+1) times, not UTC */
static struct {
    int nsym, ndays, nper, quote_from;
    const char *(*edit)(int row, char *buf);
} last_ticks; /* the arguments of the last write_ticks, to write the file again for zone_local */

static void write_ticks(int nsym, int ndays, int nper, int quote_from, const char *(*edit)(int row, char *buf))
{
    last_ticks.nsym = nsym, last_ticks.ndays = ndays, last_ticks.nper = nper, last_ticks.quote_from = quote_from;
    last_ticks.edit = edit;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    const int nosym = nsym == 0;
    fprintf(f, nosym ? "timestamp,price\n" : "symbol,timestamp,price\n");
    nsym += nosym;
    uint64_t z = 12345;
    int row = 0;
    for (int d = 0; d < ndays; d++)
        for (int j = 0; j < nper; j++)
            for (int s = 0; s < nsym; s++, row++) {
                z = z * 6364136223846793005ULL + 1442695040888963407ULL;
                /* 08:00 to about 17:00 local: the session 09:30-16:00 drops some rows at both ends */
                const int sec = 8 * 3600 + (int)((int64_t)j * 9 * 3600 / nper) + s;
                const double p = 100.0 + (double)((z >> 33) % 2000) / 100.0;
                char ts[64];
                if (row % 5 == 0) /* the same instant written in UTC+1 (a row without offset is a local time) */
                    snprintf(ts, sizeof ts, "2024-03-%02dT%02d:%02d:%02d+01:00", 4 + d, (sec + 3600 * !zone_local) / 3600,
                             (sec / 60) % 60, sec % 60);
                else
                    snprintf(ts, sizeof ts, "2024-03-%02dT%02d:%02d:%02d", 4 + d, sec / 3600, (sec / 60) % 60,
                             sec % 60);
                char line[160], buf[160];
                if (quote_from >= 0 && row >= quote_from && row % 14 == 0) /* a quoted symbol with a line break */
                    snprintf(line, sizeof line, "\"S%d\nx\",%s,%.2f\n", s, ts, p);
                else if (quote_from >= 0 && row >= quote_from && row % 7 == 0) /* quoted */
                    snprintf(line, sizeof line, "\"S%d\",%s,%.2f\n", s, ts, p);
                else
                    snprintf(line, sizeof line, "S%d,%s,%.2f\n", s, ts, p);
                const char *e = edit ? edit(row, buf) : NULL;
                fputs(e ? e : nosym ? strchr(line, ',') + 1 : line, f);
            }
    assert_int_equal(fclose(f), 0);
}

static void opts_variants(const char *must_have)
{
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.sample_us = 0; /* tick */
    check_all_ways(&o, must_have);
    o.sample_us = 60 * INT64_C(1000000); /* a grid */
    check_all_ways(&o, must_have);
    raid_parse_session("09:30-16:00", &o.session_start_s, &o.session_end_s);
    o.sample_us = 0;
    check_all_ways(&o, must_have);
    /* a session across midnight: from 16:30 the rows belong to the next trading date */
    raid_parse_session("16:30-16:00", &o.session_start_s, &o.session_end_s);
    check_all_ways(&o, must_have);
    o.sample_us = 300 * INT64_C(1000000);
    check_all_ways(&o, must_have);
    raid_parse_session("09:30-16:00", &o.session_start_s, &o.session_end_s);
    o.tz = "Europe/Zurich"; /* the +01:00 rows through the zone; the rows without offset are Zurich times */
    zone_local = 1;
    write_ticks(last_ticks.nsym, last_ticks.ndays, last_ticks.nper, last_ticks.quote_from, last_ticks.edit);
    check_all_ways(&o, must_have);
    zone_local = 0;
    write_ticks(last_ticks.nsym, last_ticks.ndays, last_ticks.nper, last_ticks.quote_from, last_ticks.edit);
}

static void test_seams_clean(void **state)
{
    (void)state;
    write_ticks(3, 3, 40, -1, NULL);
    opts_variants(NULL);
    write_ticks(1, 4, 30, -1, NULL); /* one symbol: every block continues the previous one's segment */
    opts_variants(NULL);
    write_ticks(2, 2, 700, -1, NULL); /* 46 s apart: the grids leave observations out */
    opts_variants(NULL);
    write_ticks(0, 2, 500, -1, NULL); /* no symbol column */
    opts_variants("no symbol column");
}

/* Quotes only after many blocks without any: the cuts made without looking for quotes are checked. */
static void test_seams_late_quotes(void **state)
{
    (void)state;
    write_ticks(3, 2, 60, 200, NULL);
    opts_variants(NULL);
}

/* A date across the switch to summer time (Europe/Zurich, 2024-03-31 02:00 CET -> 03:00 CEST), its
 * instants written with their offsets: the local midnight through which a 7-minute grid runs moves by an
 * hour (not a multiple of 7 minutes) between observations of one date, so that a block whose first date
 * continues from the previous block cannot take its grid from its own first observation (grid_ok). */
static void test_seams_dst(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "symbol,timestamp,price\n");
    for (int i = 0; i < 600; i++) {
        const int utc = 23 * 3600 + 40 * i; /* from 2024-03-30T23:00Z, 40 s apart */
        const int day = 30 + utc / 86400, t = utc % 86400;
        const int off = (day == 31 && t >= 3600) ? 2 : 1; /* the switch at 01:00 UTC */
        const int lt = t + off * 3600;
        fprintf(f, "X,2024-03-%02dT%02d:%02d:%02d+0%d:00,%.2f\n", day + lt / 86400, lt % 86400 / 3600, lt % 3600 / 60,
                lt % 60, off, 100.0 + (double)((i * 37) % 101) / 10.0);
    }
    assert_int_equal(fclose(f), 0);
    raid_read_opts o;
    raid_read_opts_init(&o);
    o.tz = "Europe/Zurich";
    o.sample_us = 420 * INT64_C(1000000);
    check_all_ways(&o, NULL);
    o.sample_us = 0;
    check_all_ways(&o, NULL);
}

static int bad_early, bad_late;

/* A bad price at row bad_early (if >= 0), a time going backwards at row bad_late. */
static const char *edit_errors(int row, char *buf)
{
    if (row == bad_early) {
        snprintf(buf, 160, "S%d,2024-03-04T09:40:00,-1.5\n", row % 3);
        return buf;
    }
    if (row == bad_late) {
        snprintf(buf, 160, "S%d,2024-03-04T08:00:00,101.25\n", row % 3);
        return buf;
    }
    return NULL;
}

static void test_seams_errors(void **state)
{
    (void)state;
    bad_early = 41;
    bad_late = 250;
    write_ticks(3, 3, 40, -1, edit_errors);
    opts_variants("price must be positive and finite");
    bad_early = -1; /* only the late one: rows before it are delivered, then the error */
    write_ticks(3, 3, 40, -1, edit_errors);
    opts_variants("time goes backwards for symbol");
    bad_late = 3 * 40 + 1; /* the first row of a symbol on the second day goes back to the first day */
    write_ticks(3, 3, 40, -1, edit_errors);
    opts_variants("goes backwards for symbol");
}

int main(void)
{
    snprintf(path, sizeof path, "%s/raid_seams_%d.csv", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seams_clean),
        cmocka_unit_test(test_seams_late_quotes),
        cmocka_unit_test(test_seams_dst),
        cmocka_unit_test(test_seams_errors),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    remove(path);
    return rc;
}
