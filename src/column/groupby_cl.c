/* Group-by, the device path (kernels/col_groupby.cl; docs/groupby.md "The device path").
 *
 * The host uploads the dense group ids (uint32) and the values' bits (two uint32 words, as stored: no
 * conversion), launches gb_rows_local (per-work-group tables in local memory, merged once) when the
 * groups' tables fit in local memory, else gb_rows_global, then gb_minmax_lo for min and max, reads the
 * tables back and rounds each group's exact sum (positive minus negative limbs) on the host with the cpu
 * path's gb_round_limbs. Everything the kernels compute is an exact integer held in 32-bit words: the
 * result is the cpu path's bit for bit, whatever the work-group count or the atomics' order. */
#include "column/groupby_internal.h"

#include "device/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GB_WG 256                  /* work-items per work-group */
#define GB_ROWS_DEFAULT 16384      /* rows per work-group with global tables */
#define GB_LOCAL_BUDGET 49152      /* bytes of local tables at most (the usual GPU's 48 KiB) */

enum { B_GID, B_X, B_SUM, B_CNT, B_FLAG, B_MNHI, B_MXHI, B_FIRST, B_LAST, B_MNLO, B_MXLO, NB };

static raid_status wait_time(raid_ctx *ctx, raid_event *ev, double *acc)
{
    raid_status st = raid_event_wait(ctx, ev);
    *acc += raid_event_seconds(ev);
    raid_event_release(ev);
    return st;
}

raid_status gb_cl_run(raid_ctx *ctx, const gb_plan *p, gb_partial *out, size_t rows_per_wg, int local_tables)
{
    const size_t n = p->n, G = p->ngroups;
    const int L = gb_cl_limbs(p);
    const int values = p->need != 0;
    const size_t lbytes = G * (2 * (size_t)L + 2) * sizeof(uint32_t);
    const uint64_t lmax = raid_dev_local_mem(ctx) < GB_LOCAL_BUDGET ? raid_dev_local_mem(ctx) : GB_LOCAL_BUDGET;
    const int fits = lbytes + 1024 <= lmax;
    if (local_tables == 1 && !fits)
        return raid_fail(ctx, RAID_EUNSUPPORTED, "group-by: local tables of %zu bytes do not fit (%llu)", lbytes,
                         (unsigned long long)lmax);
    const int use_local = local_tables < 0 ? fits : local_tables;
    size_t wg = raid_dev_max_wg(ctx) < GB_WG ? raid_dev_max_wg(ctx) : GB_WG;
    size_t rows = rows_per_wg ? rows_per_wg : GB_ROWS_DEFAULT;
    if (!rows_per_wg && use_local && rows < 4 * G * (2 * (size_t)L + 2))
        rows = 4 * G * (2 * (size_t)L + 2); /* the merge of a work-group's tables: a quarter of its work at most */
    if (rows > 0x7FFFFFFF)
        rows = 0x7FFFFFFF;
    const size_t nwg = (n + rows - 1) / rows;

    raid_buf b[NB] = {{0}};
    raid_kernel *k = NULL, *k2 = NULL;
    raid_event ev = {0};
    raid_status st = RAID_OK;
    uint32_t *h = NULL;
    char opts[512];
    snprintf(opts, sizeof opts, "-DGB_L=%d -DGB_SUM=%d -DGB_MINMAX=%d -DGB_FIRSTLAST=%d %s", L,
             (p->need & GB_NEED_SUM) != 0, (p->need & GB_NEED_MINMAX) != 0, (p->need & GB_NEED_FIRSTLAST) != 0,
             raid_tune_build_options(ctx));
    const size_t Gs = G ? G : 1;
    const size_t sizes[NB] = {n, values ? 2 * n : 1, Gs * 2 * (size_t)L, Gs, Gs, Gs, Gs, Gs, Gs, Gs, Gs};
    for (int j = 0; j < NB; j++)
        if ((st = raid_buf_acquire(ctx, RAID_DT_UINT, sizes[j], &b[j])) != RAID_OK)
            goto done;
    const uint32_t zero = 0, ones = 0xFFFFFFFFu;
    for (int j = B_SUM; j < NB; j++) {
        const int hi = j == B_MNHI || j == B_MNLO || j == B_FIRST;
        if ((st = raid_buf_fill(ctx, &b[j], hi ? &ones : &zero, NULL)) != RAID_OK)
            goto done;
    }
    if ((st = raid_buf_upload(ctx, &b[B_GID], 0, n, p->gid, 0, NULL)) != RAID_OK)
        goto done;
    if (values && (st = raid_buf_upload(ctx, &b[B_X], 0, 2 * n, p->x, 1, &ev)) != RAID_OK)
        goto done;
    if (values && (st = wait_time(ctx, &ev, &ctx->timing.upload_s)) != RAID_OK)
        goto done;
    ctx->timing.bytes_in = n * (values ? 12u : 4u);

    if ((st = raid_kernel_get(ctx, "col_groupby.cl", use_local ? "gb_rows_local" : "gb_rows_global", opts, &k)) !=
        RAID_OK)
        goto done;
    unsigned a = 0;
    if ((st = raid_arg_buf(ctx, k, a++, &b[B_GID])) != RAID_OK || (st = raid_arg_buf(ctx, k, a++, &b[B_X])) != RAID_OK ||
        (st = raid_arg_uint(ctx, k, a++, (uint32_t)n)) != RAID_OK || (st = raid_arg_int(ctx, k, a++, p->base)) != RAID_OK ||
        (st = raid_arg_uint(ctx, k, a++, (uint32_t)rows)) != RAID_OK)
        goto done;
    for (int j = B_SUM; j <= B_LAST; j++)
        if ((st = raid_arg_buf(ctx, k, a++, &b[j])) != RAID_OK)
            goto done;
    if (use_local && ((st = raid_arg_uint(ctx, k, a++, (uint32_t)G)) != RAID_OK ||
                      (st = raid_arg_local(ctx, k, a++, lbytes)) != RAID_OK))
        goto done;
    const size_t global = nwg * wg;
    ctx->timing.launches++;
    if ((st = raid_launch(ctx, k, 1, &global, &wg, &ev)) != RAID_OK || (st = wait_time(ctx, &ev, &ctx->timing.kernel_s)) != RAID_OK)
        goto done;
    if (p->need & GB_NEED_MINMAX) {
        if ((st = raid_kernel_get(ctx, "col_groupby.cl", "gb_minmax_lo", opts, &k2)) != RAID_OK)
            goto done;
        a = 0;
        if ((st = raid_arg_buf(ctx, k2, a++, &b[B_GID])) != RAID_OK || (st = raid_arg_buf(ctx, k2, a++, &b[B_X])) != RAID_OK ||
            (st = raid_arg_uint(ctx, k2, a++, (uint32_t)n)) != RAID_OK ||
            (st = raid_arg_buf(ctx, k2, a++, &b[B_MNHI])) != RAID_OK || (st = raid_arg_buf(ctx, k2, a++, &b[B_MXHI])) != RAID_OK ||
            (st = raid_arg_buf(ctx, k2, a++, &b[B_MNLO])) != RAID_OK || (st = raid_arg_buf(ctx, k2, a++, &b[B_MXLO])) != RAID_OK)
            goto done;
        const size_t g2r = (n + wg - 1) / wg * wg;
        ctx->timing.launches++;
        if ((st = raid_launch(ctx, k2, 1, &g2r, &wg, &ev)) != RAID_OK ||
            (st = wait_time(ctx, &ev, &ctx->timing.kernel_s)) != RAID_OK)
            goto done;
    }

    /* read back and round */
    h = malloc(Gs * (2 * (size_t)L + 8) * sizeof *h);
    if (!h) {
        st = raid_fail(ctx, RAID_ENOMEM, "out of memory (group-by read-back)");
        goto done;
    }
    uint32_t *hs = h, *hc = hs + Gs * 2 * (size_t)L, *hf = hc + Gs, *hmnh = hf + Gs, *hmxh = hmnh + Gs,
             *hfi = hmxh + Gs, *hla = hfi + Gs, *hmnl = hla + Gs, *hmxl = hmnl + Gs;
    uint32_t *dst[NB] = {NULL, NULL, hs, hc, hf, hmnh, hmxh, hfi, hla, hmnl, hmxl};
    for (int j = B_SUM; j < NB; j++) {
        if ((j == B_SUM && !(p->need & GB_NEED_SUM)) || ((j == B_MNHI || j == B_MXHI || j == B_MNLO || j == B_MXLO) && !(p->need & GB_NEED_MINMAX)) ||
            ((j == B_FIRST || j == B_LAST) && !(p->need & GB_NEED_FIRSTLAST)))
            continue;
        if ((st = raid_buf_download(ctx, &b[j], 0, sizes[j], dst[j], 1, NULL)) != RAID_OK)
            goto done;
    }
    const double t0 = raid_now();
    for (size_t g = 0; g < G; g++) {
        out->count[g] = hc[g];
        out->flags[g] = hf[g];
        if (p->need & GB_NEED_SUM) {
            uint32_t *P = hs + g * 2 * (size_t)L, *N = P + L; /* |P - N| into P */
            int c = L - 1;
            while (c >= 0 && P[c] == N[c])
                c--;
            const int neg = c >= 0 && N[c] > P[c];
            uint32_t *A = neg ? N : P, *B = neg ? P : N, borrow = 0;
            for (int i = 0; i < L; i++) {
                const uint64_t d = (uint64_t)A[i] - B[i] - borrow;
                borrow = (uint32_t)(d >> 63);
                P[i] = (uint32_t)d;
            }
            out->sum[g] = gb_sum_finish(gb_round_limbs(P, L, neg, p->base), hf[g], out->count[g]);
        }
        if (p->need & GB_NEED_MINMAX) {
            out->min[g] = (uint64_t)hmnh[g] << 32 | hmnl[g];
            out->max[g] = (uint64_t)hmxh[g] << 32 | hmxl[g];
        }
        if (p->need & GB_NEED_FIRSTLAST) {
            out->first[g] = hfi[g] == 0xFFFFFFFFu ? -1 : (int64_t)hfi[g];
            out->last[g] = (int64_t)hla[g] - 1;
        }
    }
    ctx->timing.convert_s += raid_now() - t0;
done:
    free(h);
    raid_kernel_put(ctx, k);
    raid_kernel_put(ctx, k2);
    for (int j = 0; j < NB; j++)
        raid_buf_release(ctx, &b[j]);
    return st;
}
