/* Fuzz target `sort`: raid sort's job on the cpu context: the rows of a CSV ordered by a numeric column
 * (raid_sort_run_csv, src/jobs/sort.c: the table reader with the rows' raw bytes kept) and the output
 * (raid_sort_table_write_csv).
 *
 * Input: 2 option bytes, then the CSV.
 *   0     fz_io
 *   1     bits 0-2 --by (BY); bit 3 --desc
 * Checks: the records (status and message, notices, the output) the same as with the reference knobs; the
 * output has the header and one line per row. */
#include "fuzz_common.h"

#include "raid.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const BY[8] = {"price", "key", "a", "ts", "value", "size", "x y", "b"};

typedef struct opts {
    const char *by;
    unsigned flags;
} opts;

static void job(const char *path, const void *arg, fz_buf *r)
{
    const opts *o = arg;
    raid_ctx *ctx = fz_cpu();
    raid_sort_table *t = NULL;
    raid_status st = raid_sort_run_csv(ctx, path, o->by, o->flags, &t);
    fz_addf(r, "sort %d %s\n", (int)st, st ? raid_ctx_errmsg(ctx) : "");
    FZ_CHECK((st == RAID_OK) == (t != NULL), "raid_sort_run_csv: status %d, table %p", (int)st, (void *)t);
    if (!t)
        return;
    for (size_t i = 0; i < raid_sort_table_notice_count(t); i++)
        fz_addf(r, "notice %s\n", raid_sort_table_notice(t, i));
    char *buf;
    size_t len;
    FILE *f = fz_out_open(&buf, &len);
    st = raid_sort_table_write_csv(t, f);
    fclose(f);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    FZ_CHECK(st != RAID_OK || len == 0 || lines >= 1 + raid_sort_table_nrows(t),
             "%zu line breaks for the header and %zu rows", lines, raid_sort_table_nrows(t));
    fz_add(r, buf, len);
    free(buf);
    fz_addf(r, "write %d\n", (int)st);
    raid_sort_table_destroy(t);
}

FZ_JOB_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned b1 = fz_u8(&in);
    opts o = {BY[b1 & 7], (b1 & 8) ? RAID_SORT_DESC : 0u};
    fz_two_runs("sort", in.p, in.n, job, &o, &io, &o);
    return 0;
}
