/* Fuzz target `table`: the table reader (src/io/table.h) with every column type and option.
 *
 * Input: 10 option bytes, then the CSV.
 *   0     fz_io (fuzz_common.h): block size, threads, libcsv only, pipe; bits 6-7 unused
 *   1     bits 0-1: wanted columns - 1 (1 to 4); bit 2 keep_rows; bit 3 relative_lines; bit 4 a block
 *         function; bit 5 a task posted after every batch; bits 6-7 max_rows (1, 3, 1000, whole blocks)
 *   2-9   two bytes per wanted column: the name (bits 0-2 of the first, from NAMES), the type (bits 3-5,
 *         mod 5), the noun (bit 6: NULL or "price"); the flags (bits 0-5 of the second; KEYS only on a
 *         STRING column, as table.h allows)
 * Checks: every batch's invariants (table.h: texts NUL-free and of their length, STRING fields UTF-8,
 * KEEP_TEXT fields that parse to the value stored, missing flags, lines in order, keys), the block
 * function's data on whole blocks, every task item run once; and the whole result (rows, values, lines,
 * raw rows, status, message, notices) the same as a reading with the reference knobs (one thread, one
 * block of 1 MiB, a mapped file): "results never depend on them". */
#include "fuzz_common.h"

#include "io/table.h"
#include "io/tz.h"
#include "io/utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* "a" and "A" are one name (matched case-insensitively) */
static const char *const NAMES[8] = {"a", "symbol", "timestamp", "price", "date", "key", "value", "A"};

typedef struct opts {
    size_t ncols;
    int keep_rows, rel_lines, block_fn, task;
    size_t max_rows;
    RaidTspec spec[4];
} opts;

/* The block function's data: the rows and a sum over the i64 and f64 bits of every column. */
typedef struct blk_sum {
    size_t nrows;
    uint64_t sum;
} blk_sum;

static uint64_t batch_sum(const RaidTable *t, const RaidTbatch *b, size_t nrows)
{
    uint64_t s = 0;
    for (size_t k = 0; k < b->ncols; k++) {
        const RaidTcol *c = &b->col[k];
        if (!raidTableCol(t, k))
            continue;
        for (size_t i = 0; i < nrows; i++) {
            if (c->i64)
                s = s * 31 + (uint64_t)c->i64[i];
            if (c->f64) {
                uint64_t u;
                memcpy(&u, &c->f64[i], sizeof u);
                s = s * 31 + u;
            }
            if (c->text_off) {
                size_t len;
                const char *t = raidTcolText(c, i, &len);
                for (size_t j = 0; j < len; j++)
                    s = s * 131 + (unsigned char)t[j];
            }
        }
    }
    return s;
}

/* arg: the table (read only: the columns' places) */
static int block_fn(const void *arg, RaidTbatch *b)
{
    blk_sum *q = b->user;
    if (!q) {
        if (!(q = malloc(sizeof *q)))
            return -1;
        b->user = q;
        b->user_free = free;
    }
    q->nrows = b->nrows;
    q->sum = batch_sum(arg, b, b->nrows);
    return 0;
}

typedef struct task_arg {
    unsigned char hits[64];
} task_arg;

static void task_run(void *arg, size_t i) { ((task_arg *)arg)->hits[i]++; }

static void check_batch(const RaidTable *t, const opts *o, const RaidTbatch *b, uint64_t *last_line)
{
    FZ_CHECK(b->nrows <= o->max_rows, "batch of %zu rows, max_rows %zu", b->nrows, o->max_rows);
    if (o->block_fn && b->user_ok && b->nrows) {
        const blk_sum *q = b->user;
        FZ_CHECK(q && q->nrows == b->nrows && q->sum == batch_sum(t, b, b->nrows),
                 "the block function's data are not those of the batch's rows");
    }
    for (size_t k = 0; k < o->ncols; k++) {
        const RaidTspec *sp = &o->spec[k];
        const RaidTcol *c = &b->col[k];
        if (raidTableCol(t, k) == 0) {
            FZ_CHECK(sp->flags & RAID_T_OPTIONAL, "column %zu absent but not optional", k);
            continue;
        }
        const int text = sp->type == RAID_T_STRING || (sp->flags & RAID_T_KEEP_TEXT);
        for (size_t i = 0; i < b->nrows; i++) {
            const uint64_t line = b->line_base + c->line[i];
            FZ_CHECK(line > raidTableHeaderLine(t), "column %zu row %zu: line %llu not after the header", k, i,
                     (unsigned long long)line);
            if (k == 0)
                FZ_CHECK(line >= *last_line, "lines go backwards: %llu after %llu", (unsigned long long)line,
                         (unsigned long long)*last_line);
            if (k == 0)
                *last_line = line;
            size_t len = 0;
            const char *s = NULL;
            if (text) {
                s = raidTcolText(c, i, &len);
                FZ_CHECK(strlen(s) == len, "column %zu row %zu: text with a NUL byte or wrong length", k, i);
            }
            const int missing = (sp->flags & RAID_T_EMPTY_NA) && c->missing[i];
            if (sp->flags & RAID_T_EMPTY_NA)
                FZ_CHECK(!text || c->missing[i] == (len == 0), "column %zu row %zu: missing flag %d, length %zu", k,
                         i, c->missing[i], len);
            if (missing)
                continue;
            switch (sp->type) {
            case RAID_T_STRING:
                FZ_CHECK(raidUtf8InvalidAt(s, len) == len, "column %zu row %zu: not UTF-8", k, i);
                break;
            case RAID_T_F64:
                FZ_CHECK(!isnan(c->f64[i]) && !isinf(c->f64[i]), "column %zu row %zu: %g", k, i, c->f64[i]);
                if (text) {
                    double v;
                    FZ_CHECK(raidTableParseF64(s, len, &v) == 0 && memcmp(&v, &c->f64[i], sizeof v) == 0,
                             "column %zu row %zu: '%s' is not %a", k, i, s, c->f64[i]);
                }
                break;
            case RAID_T_I64:
                if (text) {
                    int64_t v;
                    FZ_CHECK(raidTableNumberInt(s, len, &v) == 1 && v == c->i64[i],
                             "column %zu row %zu: '%s' is not %lld", k, i, s, (long long)c->i64[i]);
                }
                break;
            case RAID_T_DATE:
                if (text) {
                    int64_t d;
                    FZ_CHECK(raidIoParseDate(s, len, &d) == 0 && d == c->i64[i], "column %zu row %zu: date '%s'",
                             k, i, s);
                }
                break;
            case RAID_T_TIMESTAMP:
                if (text) {
                    RaidIoTs ts;
                    FZ_CHECK(raidIoParseTimestamp(s, len, &ts) == 0 && ts.wall_us == c->i64[i] &&
                                 (ts.has_offset ? ts.offset_s : RAID_T_NO_OFFSET) == c->tz_s[i],
                             "column %zu row %zu: timestamp '%s'", k, i, s);
                }
                break;
            }
        }
        if (c->keyed && b->nrows) {
            FZ_CHECK(sp->flags & RAID_T_KEYS, "column %zu keyed without KEYS", k);
            for (size_t i = 0; i < b->nrows; i++) {
                FZ_CHECK(c->key[i] < c->nkeys, "column %zu row %zu: key %u of %zu", k, i, c->key[i], c->nkeys);
                const size_t r = c->key_row[c->key[i]];
                FZ_CHECK(r <= i, "column %zu row %zu: key first seen at row %zu", k, i, r);
                size_t l1, l2;
                const char *s1 = raidTcolText(c, i, &l1), *s2 = raidTcolText(c, r, &l2);
                FZ_CHECK(l1 == l2 && memcmp(s1, s2, l1) == 0, "column %zu row %zu: key's text differs", k, i);
            }
            for (size_t j = 0; j < c->nkeys; j++) {
                FZ_CHECK(c->key[c->key_row[j]] == j, "column %zu key %zu: its first row has another key", k, j);
                FZ_CHECK(j == 0 || c->key_row[j] > c->key_row[j - 1], "column %zu keys not in order", k);
            }
        }
    }
    if (o->keep_rows)
        for (size_t i = 0; i < b->nrows; i++) {
            size_t len;
            const char *s = raidTcolText(&b->row, i, &len);
            FZ_CHECK(strlen(s) == len, "raw row %zu: a NUL byte or wrong length", i);
        }
}

/* The rows of b into the run's record. */
static void record_batch(fz_buf *r, const RaidTable *t, const opts *o, const RaidTbatch *b)
{
    for (size_t i = 0; i < b->nrows; i++) {
        fz_addf(r, "row");
        for (size_t k = 0; k < o->ncols; k++) {
            if (!raidTableCol(t, k))
                continue;
            const RaidTcol *c = &b->col[k];
            fz_addf(r, " [%llu", (unsigned long long)(b->line_base + c->line[i]));
            if (c->missing)
                fz_addf(r, " m%d", c->missing[i]);
            if (c->i64)
                fz_addf(r, " %lld", (long long)c->i64[i]);
            if (c->f64)
                fz_addf(r, " %a", c->f64[i]);
            if (c->tz_s)
                fz_addf(r, " z%ld", (long)c->tz_s[i]);
            if (c->text_off) {
                size_t len;
                const char *s = raidTcolText(c, i, &len);
                fz_addf(r, " '");
                fz_add(r, s, len);
                fz_addf(r, "'");
            }
            fz_addf(r, "]");
        }
        if (o->keep_rows) {
            size_t len;
            const char *s = raidTcolText(&b->row, i, &len);
            fz_addf(r, " raw<");
            fz_add(r, s, len);
            fz_addf(r, ">");
        }
        fz_addf(r, "\n");
    }
}

static void run(const uint8_t *data, size_t n, const fz_io *io, const opts *o, fz_buf *r)
{
    fz_io_apply(io);
    fz_file f;
    fz_file_open(&f, data, n, io->stream);
    RaidTable *t = NULL;
    raid_status st = raidTableOpen(&t, f.path, o->spec, o->ncols);
    fz_addf(r, "open %d %s\n", (int)st, st == RAID_OK ? "" : raid_errmsg());
    FZ_CHECK((st == RAID_OK) == (t != NULL), "raidTableOpen: status %d, table %p", (int)st, (void *)t);
    if (t) {
        size_t hl;
        const char *h = raidTableHeaderText(t, &hl);
        FZ_CHECK(strlen(h) == hl, "header text with a NUL byte");
        fz_addf(r, "header line %llu <", (unsigned long long)raidTableHeaderLine(t));
        fz_add(r, h, hl);
        fz_addf(r, ">");
        for (size_t k = 0; k < o->ncols; k++)
            fz_addf(r, " %zu", raidTableCol(t, k));
        fz_addf(r, "\n");
        if (o->keep_rows)
            raidTableKeepRows(t);
        if (o->rel_lines)
            raidTableRelativeLines(t);
        if (o->block_fn)
            raidTableSetBlockFn(t, block_fn, t);
        RaidTbatch b;
        FZ_CHECK(raidTbatchInit(&b, t) == RAID_OK, "raidTbatchInit");
        int done = 0;
        uint64_t last_line = 0;
        size_t calls = 0;
        while (!done) {
            st = raidTableRead(t, &b, o->max_rows, &done);
            check_batch(t, o, &b, &last_line);
            record_batch(r, t, o, &b);
            if (o->task) {
                task_arg ta;
                memset(&ta, 0, sizeof ta);
                RaidTableTask task = {task_run, &ta, 1 + calls % 63, 0, 0, NULL};
                raidTableTaskPost(t, &task);
                raidTableTaskWait(t, &task);
                for (size_t i = 0; i < task.n; i++)
                    FZ_CHECK(ta.hits[i] == 1, "task item %zu ran %u times", i, ta.hits[i]);
            }
            calls++;
            if (st != RAID_OK) {
                FZ_CHECK(!done, "a failure with done = 1");
                FZ_CHECK(strcmp(raid_errmsg(), raidTableErrmsg(t)) == 0, "raid_errmsg '%s' is not the table's '%s'",
                         raid_errmsg(), raidTableErrmsg(t));
                fz_addf(r, "read %d %s\n", (int)st, raidTableErrmsg(t));
                /* sticky */
                int d2 = 0;
                FZ_CHECK(raidTableRead(t, &b, o->max_rows, &d2) == st && b.nrows == 0, "failure not sticky");
                break;
            }
            FZ_CHECK(done || b.nrows > 0, "a batch of no rows before the end");
        }
        if (done) {
            int d2 = 0;
            FZ_CHECK(raidTableRead(t, &b, o->max_rows, &d2) == RAID_OK && d2 && b.nrows == 0,
                     "a read after the end");
        }
        for (size_t i = 0; i < raidTableNoticeCount(t); i++)
            fz_addf(r, "notice %s\n", raidTableNotice(t, i));
        raidTbatchFree(&b);
        raidTableClose(t);
    }
    fz_file_close(&f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    const fz_io io = fz_io_of(fz_u8(&in));
    const unsigned a = fz_u8(&in);
    static const size_t max_rows[4] = {1, 3, 1000, RAID_TABLE_BLOCK_ROWS};
    opts o;
    memset(&o, 0, sizeof o);
    o.ncols = 1 + (a & 3);
    o.keep_rows = (a >> 2) & 1;
    o.rel_lines = (a >> 3) & 1;
    o.block_fn = (a >> 4) & 1;
    o.task = (a >> 5) & 1;
    o.max_rows = max_rows[(a >> 6) & 3];
    for (size_t k = 0; k < 4; k++) {
        const unsigned x = fz_u8(&in), y = fz_u8(&in);
        RaidTspec *sp = &o.spec[k];
        sp->name = NAMES[x & 7];
        sp->type = (RaidTtype)(((x >> 3) & 7) % 5);
        sp->what = (x & 0x40) ? "price" : NULL;
        sp->flags = y & 0x3F;
        if (sp->type != RAID_T_STRING)
            sp->flags &= ~(unsigned)RAID_T_KEYS;
    }
    fz_buf ref = {0}, got = {0};
    const fz_io io0 = fz_io_ref();
    run(in.p, in.n, &io0, &o, &ref);
    run(in.p, in.n, &io, &o, &got);
    fz_same("table", &ref, &got);
    fz_free(&ref);
    fz_free(&got);
    return 0;
}
