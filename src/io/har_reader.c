/* The CSV reader of raid har's daily realized measures (raid_har_read_csv, include/raid/har.h): one row
 * per symbol and day, columns found by name, into a raid_har_input (one symbol per run of rows).
 * (To be rebuilt on the shared table module of issue 8; its rules and messages are the CLI's since
 * before the library owned HAR, and tests/golden records them.) */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "io/csv_lines.h"
#include "raid.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The rows of the file, as read. */

typedef struct har_rows {
    char *buf;       /* the file, fields split in place */
    size_t nrows;
    char **sym;      /* per row ("" when there is no symbol column) */
    char **date;
    double *v[4];    /* rv, bpv, rq, jump_p (NULL when the column is absent) */
    int have[4];
    size_t *line;    /* per row, its line in the file (the last one, for a row with quoted line breaks) */
    int date_col;    /* 1-based column of the dates, for messages */
} har_rows;

static void har_rows_free(har_rows *in)
{
    free(in->buf);
    free(in->sym);
    free(in->date);
    free(in->line);
    for (int i = 0; i < 4; i++)
        free(in->v[i]);
    memset(in, 0, sizeof *in);
}

/* Reading goes through libcsv (as src/io/reader.c does), streamed in blocks; LINE counts the line
 * breaks inside quoted fields too, COL is the field number. Symbols and dates are kept in one growing
 * text arena (in->buf) and pointed to once the file is read. */
typedef struct har_parse {
    const char *path;
    const char *const *names;
    int symbol_required;
    har_rows *in;
    int col[6], ncol, header_done, fidx, failed, last_term;
    unsigned used; /* bit j: the model reads column j (symbol, date and rv always) */
    size_t line, row_cap;
    size_t *sym_off, *date_off; /* per row, offsets into the arena */
    size_t arlen, arcap;
    double cur[4];
    size_t cur_sym, cur_date;
    char *err;
    size_t errlen;
} har_parse;

static size_t har_arena_put(har_parse *hp, const char *s, size_t len)
{
    if (hp->arlen + len + 1 > hp->arcap) {
        size_t cap = hp->arcap ? hp->arcap : 1 << 16;
        while (cap < hp->arlen + len + 1)
            cap *= 2;
        char *b = realloc(hp->in->buf, cap);
        if (!b) {
            hp->failed = 1;
            snprintf(hp->err, hp->errlen, "out of memory");
            return 0;
        }
        hp->in->buf = b;
        hp->arcap = cap;
    }
    const size_t off = hp->arlen;
    memcpy(hp->in->buf + off, s, len);
    hp->in->buf[off + len] = 0;
    hp->arlen += len + 1;
    return off;
}

static const char *const har_role_names[6] = {"symbol", "date", "rv", "bpv", "rq", "jump_p"};

static void har_field(void *data, size_t len, void *user)
{
    har_parse *hp = user;
    const char *s = data ? data : "";
    const size_t line = hp->line, colno = (size_t)hp->fidx + 1;
    for (size_t i = 0; i < len; i++)
        hp->line += s[i] == '\n';
    if (hp->failed)
        return;
    if (memchr(s, 0, len)) {
        hp->failed = 1;
        snprintf(hp->err, hp->errlen, "%s:%zu:%zu: NUL byte in field", hp->path, line, colno);
        return;
    }
    char tmp[256];
    const size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (!hp->header_done) {
        const char *name = tmp; /* (a byte order mark was skipped before parsing) */
        int role = -1;
        for (int j = 0; j < 6; j++)
            if (!strcasecmp(name, hp->names[j])) {
                if (hp->col[j] >= 0 && !(hp->used >> j & 1u)) /* a column the model does not read, twice */
                    continue;
                if (hp->col[j] >= 0) { /* as src/io/reader.c: a used column named twice */
                    hp->failed = 1;
                    snprintf(hp->err, hp->errlen, "%s:%zu:%zu: duplicate column '%s' (also column %d)", hp->path,
                             line, colno, name, hp->col[j] + 1);
                    return;
                }
                if (role >= 0 && j >= 3) /* an optional column (bpv, rq, jump_p) named like a used one: */
                    continue;            /* not taken (e.g. --rv-col bpv fits HAR to the bpv series) */
                if (role >= 0) { /* symbol, date and rv need three columns, e.g. --rv-col date */
                    hp->failed = 1;
                    snprintf(hp->err, hp->errlen, "%s:%zu:%zu: column '%s' is given two roles (%s and %s columns)",
                             hp->path, line, colno, name, har_role_names[role], har_role_names[j]);
                    return;
                }
                role = j;
                hp->col[j] = hp->fidx;
            }
    } else if (hp->fidx == hp->col[0]) {
        hp->cur_sym = har_arena_put(hp, s, len);
    } else if (hp->fidx == hp->col[1]) {
        hp->cur_date = har_arena_put(hp, s, len);
    } else {
        for (int j = 0; j < 4; j++)
            if (hp->fidx == hp->col[2 + j] && len) {
                char *end;
                errno = 0;
                const double v = strtod(tmp, &end);
                if (*end || len >= sizeof tmp) {
                    hp->failed = 1;
                    snprintf(hp->err, hp->errlen, "%s:%zu:%zu: bad number '%s' in column %s", hp->path, line, colno,
                             tmp, hp->names[2 + j]);
                    return;
                }
                hp->cur[j] = v;
            }
    }
    hp->fidx++;
}

static void har_row(int c, void *user)
{
    har_parse *hp = user;
    const size_t line = hp->line;
    const int nf = hp->fidx;
    hp->fidx = 0;
    hp->line += (size_t)raid_csv_lines_ended(c, (size_t)nf, &hp->last_term); /* blank lines count too */
    if (hp->failed || nf == 0) /* nothing more to do for a blank line */
        return;
    if (!hp->header_done) {
        hp->header_done = 1;
        hp->ncol = nf;
        if (hp->col[1] < 0 || hp->col[2] < 0 || (hp->symbol_required && hp->col[0] < 0)) {
            const int j = hp->col[1] < 0 ? 1 : hp->col[2] < 0 ? 2 : 0;
            hp->failed = 1;
            snprintf(hp->err, hp->errlen, "%s:%zu: no column '%s' in the header", hp->path, line, hp->names[j]);
            return;
        }
        for (int j = 0; j < 4; j++)
            hp->in->have[j] = hp->col[2 + j] >= 0;
        hp->in->date_col = hp->col[1] + 1;
    } else {
        if (nf != hp->ncol) {
            hp->failed = 1;
            snprintf(hp->err, hp->errlen, "%s:%zu:%d: %d fields, the header has %d", hp->path, line,
                     nf > hp->ncol ? hp->ncol + 1 : nf, nf, hp->ncol);
            return;
        }
        har_rows *in = hp->in;
        if (in->nrows == hp->row_cap) {
            const size_t cap = hp->row_cap ? 2 * hp->row_cap : 1024;
            size_t *so = realloc(hp->sym_off, cap * sizeof *so);
            if (so)
                hp->sym_off = so;
            size_t *dof = so ? realloc(hp->date_off, cap * sizeof *dof) : NULL;
            if (dof)
                hp->date_off = dof;
            size_t *ln = dof ? realloc(in->line, cap * sizeof *ln) : NULL;
            if (ln)
                in->line = ln;
            int ok = so && dof && ln;
            for (int j = 0; j < 4 && ok; j++) {
                double *v = realloc(in->v[j], cap * sizeof *v);
                if (v)
                    in->v[j] = v;
                ok = v != NULL;
            }
            if (!ok) {
                hp->failed = 1;
                snprintf(hp->err, hp->errlen, "out of memory");
                return;
            }
            hp->row_cap = cap;
        }
        const size_t r = in->nrows++;
        hp->sym_off[r] = hp->col[0] >= 0 ? hp->cur_sym : (size_t)-1;
        hp->date_off[r] = hp->cur_date;
        in->line[r] = line;
        for (int j = 0; j < 4; j++)
            in->v[j][r] = hp->cur[j];
    }
    for (int j = 0; j < 4; j++)
        hp->cur[j] = NAN;
}

/* names: symbol, date, rv, bpv, rq, jump_p; used: bit j when the model reads column j. Returns 0, or
 * -1 with a message in err (*status: RAID_EIO, RAID_EPARSE or RAID_ENOMEM). */
static int har_read_rows(const char *path, const char *const names[6], int symbol_required, unsigned used, har_rows *in,
                         char *err, size_t errlen, int *io)
{
    memset(in, 0, sizeof *in);
    har_parse hp;
    memset(&hp, 0, sizeof hp);
    hp.path = path;
    hp.names = names;
    hp.symbol_required = symbol_required;
    hp.used = used | 7u;
    hp.in = in;
    hp.line = 1;
    hp.err = err;
    hp.errlen = errlen;
    for (int j = 0; j < 6; j++)
        hp.col[j] = -1;
    for (int j = 0; j < 4; j++)
        hp.cur[j] = NAN;
    FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        *io = 1;
        return -1;
    }
    struct csv_parser p;
    if (csv_init(&p, CSV_APPEND_NULL | CSV_REPALL_NL) != 0) {
        snprintf(err, errlen, "out of memory");
        if (fp != stdin)
            fclose(fp);
        return -1;
    }
    char *block = malloc(1 << 20); /* (not static: the library keeps no global state) */
    if (!block) {
        snprintf(err, errlen, "out of memory");
        csv_free(&p);
        if (fp != stdin)
            fclose(fp);
        return -1;
    }
    size_t got;
    int bad = 0;
    int first = 1;
    while (!hp.failed && (got = fread(block, 1, (size_t)1 << 20, fp)) > 0) {
        size_t skip = 0; /* a UTF-8 byte order mark, before libcsv sees it (a quoted header follows it) */
        if (first && got >= 3 && !memcmp(block, "\xEF\xBB\xBF", 3))
            skip = 3;
        first = 0;
        if (csv_parse(&p, block + skip, got - skip, har_field, har_row, &hp) != got - skip) {
            bad = 1;
            break;
        }
    }
    if (!hp.failed && !bad && csv_fini(&p, har_field, har_row, &hp) != 0)
        bad = 1;
    free(block);
    const int rerr = ferror(fp);
    if (fp != stdin)
        fclose(fp);
    if (!hp.failed && (bad || rerr)) {
        hp.failed = 1;
        *io = rerr != 0;
        snprintf(err, errlen, "%s:%zu: %s", path, hp.line, rerr ? "read error" : csv_strerror(csv_error(&p)));
    }
    csv_free(&p);
    if (!hp.failed && !hp.header_done) {
        hp.failed = 1;
        snprintf(err, errlen, "%s: empty file (no header)", path);
    }
    if (!hp.failed && in->nrows) {
        in->sym = malloc(in->nrows * sizeof *in->sym);
        in->date = malloc(in->nrows * sizeof *in->date);
        if (!in->sym || !in->date) {
            hp.failed = 1;
            snprintf(err, errlen, "out of memory");
        } else {
            for (size_t r = 0; r < in->nrows; r++) {
                in->sym[r] = hp.sym_off[r] == (size_t)-1 ? (char *)"" : in->buf + hp.sym_off[r];
                in->date[r] = in->buf + hp.date_off[r];
            }
        }
    }
    free(hp.sym_off);
    free(hp.date_off);
    return hp.failed ? -1 : 0;
}


/* Group the rows into symbols (runs of the same symbol, in file order: a symbol seen again later is an
 * error) and add them to a new input. Returns the status, the message through raid_fail. */
static raid_status har_rows_to_input(const char *path, const char *const names[6], har_rows *in, raid_har_input **out)
{
    raid_har_input *hi = NULL;
    raid_status st = raid_har_input_create(&hi);
    if (st != RAID_OK)
        return st;
    if ((st = raid_har_input_set_source(hi, path, in->date_col)) != RAID_OK ||
        (st = raid_har_input_set_names(hi, names[2], names[3], names[4], names[5])) != RAID_OK) {
        raid_har_input_destroy(hi);
        return st;
    }
    /* runs: first row and length of each symbol */
    size_t *first = malloc((in->nrows ? in->nrows : 1) * sizeof *first), *len = NULL, nsym = 0;
    int64_t *lines = malloc((in->nrows ? in->nrows : 1) * sizeof *lines);
    len = first && lines ? malloc((in->nrows ? in->nrows : 1) * sizeof *len) : NULL;
    if (!len) {
        free(first), free(lines);
        raid_har_input_destroy(hi);
        return raid_fail(NULL, RAID_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < in->nrows && st == RAID_OK; r++) {
        lines[r] = (int64_t)in->line[r];
        if (nsym && !strcmp(in->sym[first[nsym - 1]], in->sym[r])) {
            len[nsym - 1]++;
            continue;
        }
        for (size_t q = 0; q < nsym; q++)
            if (!strcmp(in->sym[first[q]], in->sym[r])) {
                st = raid_fail(NULL, RAID_EPARSE,
                               "%s:%zu: symbol '%s' again, after other symbols (its rows end on line %zu); the rows "
                               "of a symbol must be contiguous (sort FILE by symbol, date)",
                               path, in->line[r], in->sym[r], in->line[first[q] + len[q] - 1]);
                break;
            }
        first[nsym] = r;
        len[nsym++] = 1;
    }
    if (st == RAID_OK && !nsym)
        st = raid_fail(NULL, RAID_EPARSE, "%s: no data rows", path);
    for (size_t q = 0; q < nsym && st == RAID_OK; q++) {
        const size_t f = first[q];
        st = raid_har_input_add(hi, in->sym[f], len[q], (const char *const *)in->date + f, in->v[0] + f,
                                in->have[1] ? in->v[1] + f : NULL, in->have[2] ? in->v[2] + f : NULL,
                                in->have[3] ? in->v[3] + f : NULL, lines + f);
    }
    free(first), free(len), free(lines);
    if (st != RAID_OK) {
        raid_har_input_destroy(hi);
        return st;
    }
    *out = hi;
    return RAID_OK;
}

raid_status raid_har_read_csv(const char *path, const char *const *names, int symbol_required, raid_har_model model,
                              raid_har_input **out)
{
    static const char *const defaults[6] = {"symbol", "date", "rv", "bpv", "rq", "jump_p"};
    if (!out || !path)
        return raid_fail(NULL, RAID_EINVAL, "raid_har_read_csv: NULL argument");
    *out = NULL;
    const char *nm[6];
    for (int j = 0; j < 6; j++)
        nm[j] = names && names[j] ? names[j] : defaults[j];
    const unsigned used = model == RAID_HAR_J ? 1u << 3 : model == RAID_HAR_CJ ? (1u << 3 | 1u << 5)
                          : model == RAID_HAR_Q ? 1u << 4 : 0u;
    har_rows rows;
    char err[4096];
    int io = 0;
    if (har_read_rows(path, nm, symbol_required, used, &rows, err, sizeof err, &io) != 0) {
        har_rows_free(&rows);
        return raid_fail(NULL, !strcmp(err, "out of memory") ? RAID_ENOMEM : io ? RAID_EIO : RAID_EPARSE, "%s", err);
    }
    const raid_status st = har_rows_to_input(path, nm, &rows, out);
    har_rows_free(&rows);
    return st;
}
