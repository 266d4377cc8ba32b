/* The column operations on Arrow C data interface arrays (include/raid/arrow.h, docs/column.md "Arrow
 * arrays"): one check of the exported array (format, layout, offset, validity), then the existing array
 * functions of sort.h, select.h and groupby.h on the values in place. The only copies are those the
 * array API needs: a validity bitmap at an offset that is not a multiple of 8 (shifted), the valid values
 * of an array with nulls for a selection (select.h takes no mask), the bitmap as one byte a row for the
 * group-by. */
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

/* A checked array: its values from `data` (buffers[1] + offset), its validity bit i at bit off + i of bits
 * (bits NULL: no null). */
typedef struct col {
    const void *data;
    const uint8_t *bits;
    int64_t off;
    size_t n, nulls;
    char fmt;
} col;

static int bit(const col *c, size_t i)
{
    const uint64_t j = (uint64_t)c->off + i;
    return (c->bits[j >> 3] >> (j & 7)) & 1;
}

static const char *type_name(char f) { return f == 'g' ? "float64 'g'" : f == 'l' ? "int64 'l'" : "?"; }

static raid_status check(raid_ctx *ctx, const char *fn, const char *what, const struct ArrowSchema *s,
                         const struct ArrowArray *a, const char *formats, col *c)
{
    memset(c, 0, sizeof *c);
    if (!s || !a || !formats)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: NULL schema or array", fn, what);
    if (!s->release || !a->release)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: a released %s (release is NULL)", fn, what, !s->release ? "schema" : "array");
    if (s->dictionary || a->dictionary)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: a dictionary-encoded array (decode it first)", fn, what);
    if (!s->format || strlen(s->format) != 1 || !strchr(formats, s->format[0]))
        return raidFail(ctx, RAID_EINVAL, "%s: %s: format '%s' (expected %s%s%s)", fn, what, RAID_SHOWZ(s->format),
                         type_name(formats[0]), formats[0] && formats[1] ? " or " : "", formats[0] && formats[1] ? type_name(formats[1]) : "");
    if (s->n_children != 0 || a->n_children != 0)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: %lld children (expected 0)", fn, what,
                         (long long)(s->n_children ? s->n_children : a->n_children));
    if (a->n_buffers != 2 || !a->buffers)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: %lld buffers (expected 2: validity, values)", fn, what, (long long)a->n_buffers);
    if (a->offset < 0 || a->length < 0 || a->length > INT64_MAX - a->offset || (uint64_t)a->length > SIZE_MAX / 8)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: offset %lld, length %lld (expected >= 0)", fn, what, (long long)a->offset,
                         (long long)a->length);
    if (a->null_count < -1 || a->null_count > a->length)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: null_count %lld out of range [-1, %lld]", fn, what,
                         (long long)a->null_count, (long long)a->length);
    if (a->offset + a->length > 0 && !a->buffers[1])
        return raidFail(ctx, RAID_EINVAL, "%s: %s: no values buffer", fn, what);
    if (a->buffers[1] && (uintptr_t)a->buffers[1] % 8 != 0)
        return raidFail(ctx, RAID_EINVAL, "%s: %s: the values buffer is not aligned to 8 bytes", fn, what);
    if (a->null_count > 0 && !a->buffers[0])
        return raidFail(ctx, RAID_EINVAL, "%s: %s: null_count %lld without a validity buffer", fn, what,
                         (long long)a->null_count);
    c->fmt = s->format[0];
    c->off = a->offset;
    c->n = (size_t)a->length;
    static const int64_t none[1]; /* the values of an empty array without a buffer */
    c->data = a->buffers[1] ? (const void *)((const char *)a->buffers[1] + (size_t)a->offset * 8) : (const void *)none;
    if (a->null_count != 0 && a->buffers[0]) { /* count the nulls (null_count -1: unknown) */
        c->bits = a->buffers[0];
        for (size_t i = 0; i < c->n; i++)
            c->nulls += !bit(c, i);
        if (a->null_count >= 0 && (size_t)a->null_count != c->nulls)
            return raidFail(ctx, RAID_EINVAL, "%s: %s: null_count %lld but the validity bitmap holds %zu nulls", fn, what,
                             (long long)a->null_count, c->nulls);
        if (!c->nulls)
            c->bits = NULL;
    }
    return RAID_OK;
}

raid_status raid_arrow_check(const struct ArrowSchema *schema, const struct ArrowArray *array, const char *formats,
                             size_t *length, size_t *nulls)
{
    col c;
    const raid_status st = check(NULL, "raid_arrow_check", "arrow array", schema, array, formats, &c);
    if (length)
        *length = st == RAID_OK ? c.n : 0;
    if (nulls)
        *nulls = st == RAID_OK ? c.nulls : 0;
    return st;
}

/* The validity bitmap of c from its bit 0 (sort.h's mask): in place when the offset is a multiple of 8,
 * else a shifted copy in *own (free it). NULL without nulls. */
static raid_status mask_of(raid_ctx *ctx, const col *c, const uint8_t **mask, uint8_t **own)
{
    *mask = NULL, *own = NULL;
    if (!c->bits)
        return RAID_OK;
    if (c->off % 8 == 0) {
        *mask = c->bits + c->off / 8;
        return RAID_OK;
    }
    uint8_t *m = calloc(c->n / 8 + 1, 1);
    if (!m)
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++)
        m[i >> 3] |= (uint8_t)(bit(c, i) << (i & 7));
    *mask = *own = m;
    return RAID_OK;
}

/* raid_sort_f64 (out) or raid_argsort_f64_i64 (idx) on a float64 array, its nulls as sort.h's mask. */
static raid_status sort_array(raid_ctx *ctx, const char *fn, const struct ArrowSchema *schema,
                              const struct ArrowArray *array, unsigned flags, int arg, double *out, int64_t *idx)
{
    col c;
    const uint8_t *mask;
    uint8_t *own = NULL;
    raid_status st = check(ctx, fn, "array", schema, array, "g", &c);
    if (st == RAID_OK && (st = mask_of(ctx, &c, &mask, &own)) == RAID_OK)
        st = arg ? raid_argsort_f64_i64(ctx, c.data, c.n, mask, flags, idx) : raid_sort_f64(ctx, c.data, c.n, mask, flags, out);
    free(own);
    return st;
}

raid_status raid_arrow_sort(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                            unsigned flags, double *out)
{
    return sort_array(ctx, "raid_arrow_sort", schema, array, flags, 0, out, NULL);
}

raid_status raid_arrow_argsort(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                               unsigned flags, int64_t *idx)
{
    return sort_array(ctx, "raid_arrow_argsort", schema, array, flags, 1, NULL, idx);
}

raid_status raid_arrow_sort_pairs(raid_ctx *ctx, const struct ArrowSchema *kschema, const struct ArrowArray *keys,
                                  const struct ArrowSchema *vschema, const struct ArrowArray *vals, unsigned flags,
                                  int64_t *keys_out, double *vals_out)
{
    static const char fn[] = "raid_arrow_sort_pairs";
    col k, v;
    raid_status st = check(ctx, fn, "keys", kschema, keys, "l", &k);
    if (st == RAID_OK)
        st = check(ctx, fn, "values", vschema, vals, "g", &v);
    if (st != RAID_OK)
        return st;
    if (k.n != v.n)
        return raidFail(ctx, RAID_EINVAL, "%s: keys and values differ in length (%zu and %zu)", fn, k.n, v.n);
    if (k.nulls || v.nulls)
        return raidFail(ctx, RAID_EINVAL, "%s: %zu null %s (a pair sort takes no nulls)", fn, k.nulls ? k.nulls : v.nulls,
                         k.nulls ? "keys" : "values");
    return raid_sort_i64_f64(ctx, k.data, v.data, k.n, flags, keys_out, vals_out);
}

/* The valid values of a float64 array as one segment: in place without nulls, else gathered into *own
 * (free it); *pos (when pos is not NULL and there are nulls): each gathered value's index in the array. */
static raid_status valid_values(raid_ctx *ctx, const char *fn, const struct ArrowSchema *s, const struct ArrowArray *a,
                                const double **x, double **own, int64_t **pos, int64_t off[2])
{
    col c;
    *own = NULL;
    if (pos)
        *pos = NULL;
    raid_status st = check(ctx, fn, "array", s, a, "g", &c);
    if (st != RAID_OK)
        return st;
    off[0] = 0;
    off[1] = (int64_t)(c.n - c.nulls);
    *x = c.data;
    if (!c.nulls)
        return RAID_OK;
    const size_t m = c.n - c.nulls;
    if (!(*own = malloc((m ? m : 1) * sizeof **own)) || (pos && !(*pos = malloc((m ? m : 1) * sizeof **pos)))) {
        free(*own), *own = NULL;
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }
    const double *d = c.data;
    for (size_t i = 0, j = 0; i < c.n; i++)
        if (bit(&c, i)) {
            if (pos)
                (*pos)[j] = (int64_t)i;
            (*own)[j++] = d[i];
        }
    *x = *own;
    return RAID_OK;
}

/* One selection of select.h on the valid values of a float64 array (one segment). */
typedef enum sel_op { SEL_KTH, SEL_MEDIAN, SEL_QUANTILE, SEL_MINMAX, SEL_TOPK } sel_op;
typedef struct sel_args {
    int64_t k;     /* kth, topk */
    int largest;   /* topk */
    const double *q;
    size_t nq;     /* quantile */
    double *out[4];  /* out[0]: kth, median, quantile, topk's values; minmax: min, max, nanmin, nanmax */
    int64_t *index;  /* topk */
} sel_args;

static raid_status select_valid(raid_ctx *ctx, const char *fn, const struct ArrowSchema *s, const struct ArrowArray *a,
                                sel_op op, const sel_args *p)
{
    const double *x;
    double *own;
    int64_t off[2], *pos = NULL;
    raid_status st = valid_values(ctx, fn, s, a, &x, &own, op == SEL_TOPK && p->index ? &pos : NULL, off);
    if (st == RAID_OK) {
        switch (op) {
        case SEL_KTH: st = raid_select_kth(ctx, x, off, 1, p->k, p->out[0]); break;
        case SEL_MEDIAN: st = raid_select_median(ctx, x, off, 1, p->out[0]); break;
        case SEL_QUANTILE: st = raid_select_quantile(ctx, x, off, 1, p->q, p->nq, p->out[0]); break;
        case SEL_MINMAX: st = raid_select_minmax(ctx, x, off, 1, p->out[0], p->out[1], p->out[2], p->out[3]); break;
        case SEL_TOPK: st = raid_select_topk(ctx, x, off, 1, p->k, p->largest, p->out[0], p->index); break;
        }
    }
    if (st == RAID_OK && pos)
        for (int64_t j = 0; j < p->k; j++) /* indices among the valid values -> indices in the array */
            p->index[j] = pos[p->index[j]];
    free(own), free(pos);
    return st;
}

raid_status raid_arrow_kth(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array, int64_t k,
                           double *out)
{
    return select_valid(ctx, "raid_arrow_kth", schema, array, SEL_KTH, &(sel_args){.k = k, .out = {out}});
}

raid_status raid_arrow_median(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                              double *out)
{
    return select_valid(ctx, "raid_arrow_median", schema, array, SEL_MEDIAN, &(sel_args){.out = {out}});
}

raid_status raid_arrow_quantile(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                                const double *q, size_t nq, double *out)
{
    return select_valid(ctx, "raid_arrow_quantile", schema, array, SEL_QUANTILE, &(sel_args){.q = q, .nq = nq, .out = {out}});
}

raid_status raid_arrow_minmax(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                              double *min, double *max, double *nanmin, double *nanmax)
{
    return select_valid(ctx, "raid_arrow_minmax", schema, array, SEL_MINMAX,
                        &(sel_args){.out = {min, max, nanmin, nanmax}});
}

raid_status raid_arrow_topk(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array, int64_t k,
                            int largest, double *values, int64_t *index)
{
    return select_valid(ctx, "raid_arrow_topk", schema, array, SEL_TOPK,
                        &(sel_args){.k = k, .largest = largest, .out = {values}, .index = index});
}

raid_status raid_arrow_groupby(raid_ctx *ctx, const struct ArrowSchema *kschema, const struct ArrowArray *keys,
                               const struct ArrowSchema *vschema, const struct ArrowArray *vals, const raid_agg *aggs,
                               size_t naggs, unsigned flags, raid_groupby **out)
{
    static const char fn[] = "raid_arrow_groupby";
    if (out)
        *out = NULL;
    col k, v = {0};
    raid_status st = check(ctx, fn, "keys", kschema, keys, "l", &k);
    if (st == RAID_OK && (vschema || vals))
        st = check(ctx, fn, "values", vschema, vals, "g", &v);
    if (st != RAID_OK)
        return st;
    if (k.nulls)
        return raidFail(ctx, RAID_EINVAL, "%s: %zu null keys (drop or fill them first)", fn, k.nulls);
    if ((vschema || vals) && v.n != k.n)
        return raidFail(ctx, RAID_EINVAL, "%s: keys and values differ in length (%zu and %zu)", fn, k.n, v.n);
    uint8_t *valid = NULL;
    if (v.nulls) {
        if (!(valid = malloc(v.n)))
            return raidFail(ctx, RAID_ENOMEM, "out of memory");
        for (size_t i = 0; i < v.n; i++)
            valid[i] = (uint8_t)bit(&v, i);
    }
    st = raid_groupby_compute(ctx, k.data, v.data, valid, k.n, aggs, naggs, flags, out);
    free(valid);
    return st;
}
