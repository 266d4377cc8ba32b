/* The table reader: one CSV module for every input of RAID (intraday prices and returns today; HAR
 * measures, GARCH returns, OHLC bars and float64 columns next). Never installed.
 *
 * What it does: tokenising (RFC 4180 quotes, a quoted field may hold commas, "" and line breaks; LF, CRLF
 * and CR line ends; a UTF-8 byte order mark at the start skipped; blank lines skipped but counted; spaces
 * and tabs around unquoted fields dropped), by a direct scanner for rows without quotes and by libcsv
 * (Debian libcsv-dev, a small well-kept C library) for the others, to libcsv's rules; a header row mapped
 * to the wanted columns by name, case-insensitively (the caller passes each name after its own overrides,
 * such as the CLI's --price-col); typed columns (string, date, timestamp, float64, int64) parsed with
 * FILE:LINE:COL errors; a regular file memory-mapped, standard input or a pipe streamed, cut at row
 * boundaries into blocks of about 1 MiB parsed by all cores (OpenMP's thread count) and handed over in
 * file order in batches of at most max_rows rows, so that memory is bounded by a few blocks per thread
 * however large the file is (table.c's head comment gives the design; docs/input.md the rules the user
 * sees).
 *
 * Rules: every row has as many fields as the header; a NUL byte in any field (header included) is an
 * error; a wanted column named twice in the header is an error unless its spec says DUP_FIRST (other
 * columns may repeat); one header column named by two wanted columns is an error unless the later one says
 * YIELD (e.g. raid har's --rv-col bpv: rv takes the column, the optional bpv is absent); string fields
 * of wanted columns must be UTF-8; numbers are decimal only ([+-]digits[.digits][(e|E)[+-]digits], also
 * ".5" and "5."; no hex, inf, nan, blanks or other junk; a SPECIALS column also reads inf and nan), read
 * by fast_float (fastfloat.h: strtod's value in the "C" locale, whatever LC_NUMERIC says); a decimal too
 * large for float64 is an error ("out of float64's range"). A last line without a line break is read (pandas and polars read it too) with a notice naming
 * FILE:LINE: a file cut short inside the last field of its last row cannot be told from a complete one.
 *
 * Error convention: every failing call sets raid_errmsg() (context-free, thread-local) and the table's
 * own message (raidTableErrmsg), "FILE:LINE:COL: what" for bad input (LINE 1-based over the file's
 * lines, COL the 1-based field number). Failures are sticky. */
#ifndef RAID_IO_TABLE_H
#define RAID_IO_TABLE_H

#include "raid.h"
#include "core/strlist.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* fread(buf, 1, n, f) that goes on after a signal interrupts it (EINTR: a pipe or FIFO read while a
 * handler runs): the bytes read, n unless the end of the file or a real error (ferror(f), errno) came
 * first. Every read of the library goes through it. */
size_t raidIoReadFull(FILE *f, void *buf, size_t n);

typedef struct RaidTable RaidTable;

typedef enum RaidTtype {
    RAID_T_STRING = 0,    /* UTF-8 text */
    RAID_T_DATE = 1,      /* "YYYY-MM-DD": days since 1970-01-01 in i64 */
    RAID_T_TIMESTAMP = 2, /* ISO 8601 (timeparse.c): wall-clock microseconds in i64, offset in tz_s */
    RAID_T_F64 = 3,       /* decimal number in f64 */
    RAID_T_I64 = 4        /* decimal integer [+-]digits in i64 */
} RaidTtype;

enum {
    RAID_T_OPTIONAL = 1u,  /* the column may be absent from the header (raidTableCol then 0) */
    RAID_T_EMPTY_NA = 2u,  /* an empty field is missing (missing[i] = 1, f64 NAN, i64 0) instead of an error */
    RAID_T_KEEP_TEXT = 4u, /* keep each field's text too (for messages), as for strings */
    RAID_T_YIELD = 8u,     /* when an earlier wanted column takes the header column of this name, this one
                              is absent (raidTableCol 0) instead of the error "given two roles" */
    RAID_T_DUP_FIRST = 16u, /* named twice in the header: the first occurrence is taken instead of the error
                              "duplicate column" (a column the caller reads but does not need) */
    RAID_T_KEYS = 32u,     /* STRING: the distinct values of each parsed block numbered where the block is
                              parsed (RaidTcol key, key_row, nkeys), so that a caller that maps values to
                              its own ids looks up each distinct value once per batch, not once per row
                              (with EMPTY_NA the empty value, missing, is numbered too) */
    RAID_T_SPECIALS = 64u  /* F64: a generic value column (raid sort, quantile, groupby), which also reads
                              IEEE 754's special values as numpy, pandas and polars write them
                              (raidTableParseSpecial); prices, returns and measures keep the decimal
                              grammar alone */
};

#define RAID_T_NO_OFFSET INT32_MIN /* tz_s of a timestamp written without an offset */

/* A wanted column: its header name (matched case-insensitively), the noun of its messages ("price":
 * "cannot parse price '12abc'", "column 'time' is given two roles (timestamp and price columns)"; NULL =
 * the type's noun: string, date, timestamp, number, integer), its type and flags. */
typedef struct RaidTspec {
    const char *name;
    const char *what;
    RaidTtype type;
    unsigned flags;
} RaidTspec;

/* One wanted column of a batch, rows 0 .. nrows-1. Arrays not used by the column's type are NULL. */
typedef struct RaidTcol {
    int64_t *i64;       /* DATE, TIMESTAMP, I64 */
    double *f64;        /* F64 */
    int32_t *tz_s;      /* TIMESTAMP: offset east of UTC in seconds, or RAID_T_NO_OFFSET */
    uint8_t *missing;   /* EMPTY_NA: 1 where the field was empty */
    size_t *text_off;   /* STRING or KEEP_TEXT: field i is text + text_off[i], NUL-terminated, length
                           text_off[i + 1] - text_off[i] - 1 */
    char *text;
    size_t text_cap;
    uint64_t *line;     /* line where row i's field starts */
    /* KEYS, when keyed is 1 (a batch handed over whole; 0 when rows were copied across blocks): row i's
     * value is distinct value key[i] (0 .. nkeys-1, numbered in order of first appearance in the batch),
     * first seen at row key_row[key[i]]. */
    int keyed;
    uint32_t *key;
    size_t *key_row;
    size_t nkeys;
} RaidTcol;

/* A batch: the wanted columns in the order of the specs given to raidTableOpen. */
typedef struct RaidTbatch {
    size_t nrows, cap, ncols;
    RaidTcol *col;
    RaidTcol row; /* raidTableKeepRows: row i's raw bytes (raidTcolText(&b->row, i, &len)); else unused */
    /* raidTableBlockFn: the caller's data derived from the rows (owned by the batch, freed with
     * user_free), and whether the block function ran on exactly the rows now in the batch (1), or not (0:
     * rows copied across blocks, or the function failed): then the caller derives them itself. */
    void *user;
    void (*user_free)(void *);
    int user_ok;
    /* raidTableRelativeLines: the line of row i's field in column k is line_base + col[k].line[i] (the
     * merge then adds nothing to each row); else 0 */
    uint64_t line_base;
} RaidTbatch;

/* Field i of a STRING or KEEP_TEXT column and its length. */
static inline const char *raidTcolText(const RaidTcol *c, size_t i, size_t *len)
{
    if (len)
        *len = c->text_off[i + 1] - c->text_off[i] - 1;
    return c->text + c->text_off[i];
}

/* Open path ("-": standard input) and read its header row, mapping the ncols wanted columns (names
 * not empty; ncols >= 1). Errors: RAID_EIO ("FILE: reason"), RAID_EPARSE ("FILE:1:1: empty input (no
 * header row)"; in the header's field order, "FILE:LINE:COL: duplicate column 'NAME' (also column C)"
 * at the second occurrence of a wanted column NAME (its spec's name) and "FILE:LINE:COL: column 'HDR'
 * is given two roles (WHAT1 and WHAT2 columns)" (HDR as the header spells it, WHAT the specs' nouns);
 * then "FILE:LINE:1: missing column 'NAME'" for the first absent column not OPTIONAL in spec order;
 * tokenising and NUL errors of the header), RAID_EINVAL (bad arguments), RAID_ENOMEM. On failure *out
 * is NULL. The specs' strings are copied. */
raid_status raidTableOpen(RaidTable **out, const char *path, const RaidTspec *cols, size_t ncols);
/* Free everything (closes the file unless it is standard input). NULL is a no-op. */
void raidTableClose(RaidTable *t);

/* The 1-based field number of wanted column k in the file, 0 for an absent OPTIONAL one. */
size_t raidTableCol(const RaidTable *t, size_t k);
/* The path as given (for messages). */
const char *raidTablePath(const RaidTable *t);

/* Keep the raw bytes of every data row (for jobs that write rows unchanged, such as raid sort): from then
 * on each batch's `row` holds, for row i, the row's bytes as they are in the file (quotes, spaces, line
 * breaks inside quoted fields included) without the line break that ends it (LF, CR or CRLF), i.e. from the
 * first byte after the previous line break to the byte before its own. Call after raidTableOpen, before
 * the first raidTableRead. Each row's bytes are then copied once more, and rows that go to libcsv (those
 * with a quote or a lone CR) are fed to it one line at a time (a little slower). */
void raidTableKeepRows(RaidTable *t);
/* The header row's raw bytes, the same way (without its line break and a UTF-8 byte order mark); always
 * kept. len may be NULL. Valid until raidTableClose. */
const char *raidTableHeaderText(const RaidTable *t, size_t *len);

/* Prepare b for this table's columns (empty). A batch belongs to one table. Errors: RAID_ENOMEM. */
raid_status raidTbatchInit(RaidTbatch *b, const RaidTable *t);
void raidTbatchFree(RaidTbatch *b);

/* A max_rows for raidTableRead that takes every block whole (a block of 1 MiB holds fewer rows than
 * this unless its rows average under 4 bytes), without a copy. */
#define RAID_TABLE_BLOCK_ROWS ((size_t)1 << 18)

/* From now on the batches' lines (RaidTcol.line) may be counted from the batch's line_base rather than
 * from the file's first line (a batch handed over whole keeps its block's lines; rows copied across
 * blocks get absolute lines and line_base 0): for callers that use lines for messages only. Call after
 * raidTableOpen, before the first raidTableRead. */
void raidTableRelativeLines(RaidTable *t);

/* The caller's work on each block's rows, done by the thread that parsed the block right after parsing it
 * (so in parallel over the blocks, while earlier blocks are merged): fn(arg, b) derives what it wants from
 * b's rows 0 .. nrows-1 into b->user (allocated by fn, freed by b->user_free) and returns 0 (b->user_ok
 * becomes 1) or -1 (out of memory: user_ok stays 0). It must not use the rows' line numbers (counted from
 * the block's first line at that time) and must be thread-safe (arg is shared by every parsing thread:
 * read it only). A batch handed over whole keeps user_ok; rows copied across blocks have user_ok 0, and
 * the caller then runs the same derivation itself. Call after raidTableOpen, before the first
 * raidTableRead. */
typedef int (*raidTableBlockFn)(const void *arg, RaidTbatch *b);
void raidTableSetBlockFn(RaidTable *t, raidTableBlockFn fn, const void *arg);

/* Work of the caller's for the parsing threads, besides the blocks (the measures of raid realized's batches
 * while the next blocks are parsed: no second pool of threads beside the reader's, whose idle threads would
 * take cores from the parsing threads): run(arg, i) for each item i in 0 .. n-1, once each, on any of the
 * parsing threads or on the calling thread, distinct items at the same time (run must be thread-safe for
 * distinct items, and must not call the table). */
typedef struct RaidTableTask {
    void (*run)(void *arg, size_t i);
    void *arg;
    size_t n;
    /* the table's (under its lock): items taken, items done, the next queued task */
    size_t next, ndone;
    struct RaidTableTask *link;
} RaidTableTask;

/* Queue task (run, arg and n set; n >= 1) after those queued before it: the parsing threads take its items
 * before their next block, so that they run while the calling thread goes on reading. Without parsing
 * threads (one thread, a file of one block, before the first raidTableRead) the items run here, now. The
 * task's memory and what run reads must stay valid until raidTableTaskWait has returned for it, which
 * the caller must call before raidTableClose. */
void raidTableTaskPost(RaidTable *t, RaidTableTask *task);
/* Return once every item of a posted task has run: the calling thread runs those not yet taken, then
 * waits for those running on the parsing threads. Its results are then visible to the calling thread. */
void raidTableTaskWait(RaidTable *t, RaidTableTask *task);

/* The table of a CSV reader (reader.c), for the tasks of its caller. */
RaidTable *raidReaderTable(raid_reader *rd);

/* Clear b and read rows into it, at most max_rows (>= 1): the rows of one whole block (about 1 MiB of the
 * file) when b is empty and they fit (handed over without a copy), else rows until b holds max_rows or the
 * input ends; at least one row unless the input ends (*done = 1 once every row has been returned). On
 * RAID_EPARSE the batch holds the rows before the bad one, all valid, so that a caller reports errors in
 * file order by taking them in first. Errors: RAID_EPARSE, RAID_EIO, RAID_ENOMEM, sticky. */
raid_status raidTableRead(RaidTable *t, RaidTbatch *b, size_t max_rows, int *done);

/* A failure of the caller's own check of a value at (line, col): sets the table's sticky status to
 * RAID_EPARSE with message "FILE:LINE:COL: " + the formatted text; returns RAID_EPARSE. It replaces a
 * failure the table met further on in the batch (the caller's row comes first in the file). */
raid_status raidTableFail(RaidTable *t, uint64_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The failure of a job that needs data rows and found none, a header alone (docs/input.md "A header and no
 * rows": the model fits and the sweep): raidTableFail at the line after the header, column 1, "no data
 * rows (only a header)". Returns RAID_EPARSE. */
raid_status raidTableFailNoRows(RaidTable *t);
/* s[0..n) as an IEEE 754 special value, ASCII case-insensitively: [+-](inf|infinity) (+-inf) and
 * [+-]nan (the quiet NaN 0x7FF8000000000000, with the sign bit for "-nan"): what numpy's str, pandas'
 * to_csv, polars' write_csv and C's printf write for them, and what they read (pandas reads "-nan"; numpy,
 * polars and strtod read every form). No payloads ("nan(123)"), no "1.#INF", no blanks. 0 and *v, or -1. */
int raidTableParseSpecial(const char *s, size_t n, double *v);
/* Whether the text s[0..n) of a field read as a decimal number (RAID_T_F64 with RAID_T_KEEP_TEXT) is an
 * integer, by the table's integer rule (RAID_T_I64): 1 for [+-]digits within int64 (*v its value), -1 for
 * [+-]digits beyond int64, 0 otherwise (a decimal point or an exponent). For jobs that keep a column of
 * integers exact (int64) and read any other number column as float64 (raid sort, raid groupby's key). */
int raidTableNumberInt(const char *s, size_t n, int64_t *v);

/* The end of a job that reads a table (the CSV jobs' `done:`): a failure st (RAID_OK: returned as is) is
 * reported on ctx (NULL: the thread's message) with the table's message when it has one (bad input:
 * FILE:LINE:COL; tab may be NULL), else the latest failure's message on this thread. Returns st. */
raid_status raidTableJobStatus(raid_ctx *ctx, const RaidTable *tab, raid_status st);
/* The message of the table's failure ("" if none). */
const char *raidTableErrmsg(const RaidTable *t);
/* The 1-based line of the header (0 before raidTableOpen read it). */
uint64_t raidTableHeaderLine(const RaidTable *t);

/* Text of a field in a message: raid_show_text (include/raid/core.h; RAID_SHOW(s, n)), the one escaping of
 * every message (control bytes and bytes that are not ASCII as \xHH, at most 80 bytes). */

/* Notices of the table: the last line without a line break. Count, and text i (NULL out of range). */
size_t raidTableNoticeCount(const RaidTable *t);
const char *raidTableNotice(const RaidTable *t, size_t i);
/* Append a copy of each notice of the table to l, in order: how a job's result keeps the notices for its
 * caller (raid_ma_input_notice, raid_groupby_table_notice, ...) after the table is closed. RAID_OK, or
 * RAID_ENOMEM (message set; the notices copied before stay). */
raid_status raidTableCopyNotices(const RaidTable *t, RaidStrlist *l);

/* Bytes consumed so far and the file's size (0 if unknown: standard input, a pipe). */
void raidTableProgress(const RaidTable *t, uint64_t *consumed, uint64_t *total);
/* From now on each raidTableRead that succeeds reports the bytes consumed to ctx's progress callback
 * (unit "bytes", total the file's size or 0; core/internal.h raidProgress), from the calling thread; NULL
 * stops it. For the jobs that read a table on a context (the CSV jobs, the realized table's adds): the
 * context must outlive the reports, so a job that does not own the table sets NULL before it returns. */
void raidTableSetProgress(RaidTable *t, raid_ctx *ctx);

/* The number rule of F64 columns (table.h's head comment): 0 and *v, or -1. For tests. */
int raidTableParseF64(const char *s, size_t n, double *v);

/* With RAID_CSV_PROFILE set in the environment, raidTableClose writes one line to standard error: the
 * time of the calling thread's phases (cutting the blocks, waiting for the block at the head, merging it:
 * handing its rows over with their lines, running and waiting for tasks) and of the parsing threads
 * (parsing, the block function, the tasks' items), in seconds, and the blocks. RAID_CSV_BLOCK=N (bytes, at least 1) sets the block size of the tables opened
 * from then on (tests and benchmarks: results never depend on it). */

/* Tests only: the block size in bytes (0: the default, 1 MiB), the number of parsing threads (-1: the
 * default, omp_get_max_threads(); 0 or 1: the calling thread parses every block) and libcsv_only (1:
 * every row through libcsv, none through the direct scanner) of the tables read from now on, so that
 * small files cross block boundaries and the two tokenisers can be compared. Not thread-safe; results
 * never depend on them. */
void raidTableTestTuning(size_t block_bytes, int threads, int libcsv_only);

#endif
