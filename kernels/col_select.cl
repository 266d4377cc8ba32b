/*
 * col_select.cl -- radix select on float64 order keys with 32-bit operations only (
 * docs/column.md "Selection"). Host side: src/column/select_device.c.
 *
 * The input is doubles as pairs of 32-bit words (src[2i] the low word, src[2i + 1] the high word: the
 * little-endian layout of the host's array, uploaded as is), element i of a segment at src[2 (off + i)];
 * keys are formed on the fly by raidKeyFromBits (kernels/raid_keys.h). No 64-bit type of any kind, no
 * float arithmetic.
 *
 * col_sel_hist: one pass of the select. The host knows the top c bits of the wanted keys (up to
 * SEL_MAXP distinct prefixes, one per group of wanted ranks; as masks (mhi, mlo) and aligned prefixes
 * (p[2j], p[2j + 1])); each work-group counts the next digit (bits wide, at bit `shift`) of the keys that
 * match a prefix in local memory (32-bit atomics), then adds its counts to aux[SEL_AUX_HIST + (j << bits)
 * + d] (global 32-bit atomics). Distinct prefixes of one length are disjoint: a key matches one at most.
 * With `first`, the pass also counts NaNs and finds the first index of a zero and of a NaN (aux[0..3)).
 * With `compact`, the matching elements (whose count the previous pass gave) are copied to dst (both
 * words, any order) at slots reserved per tile of the work-group by one global atomic (aux[3]).
 *
 * col_sel_minmax: pass 0 takes the smallest key's high word over all keys and the largest high word over
 * keys that are not NaN's (plus the NaN count and the first zero and NaN); pass 1 the low words of the
 * keys holding those high words. col_sel_gather: the indices of the keys below / at most / above / at
 * least a key K, compacted like col_sel_hist's.
 */
#pragma OPENCL FP_CONTRACT OFF /* no float arithmetic here; the rule of every kernel file */

#define SEL_MAXP 4
#define SEL_MAXW 4 /* RAID_SEL_MAXW (src/column/select_internal.h) */
#define SEL_DIGIT 11
#define SEL_AUX_HIST 4
#define SEL_NONE 0xFFFFFFFFu
#ifndef SEL_NP /* prefixes of col_sel_hist at most (its local histogram: SEL_NP << SEL_DIGIT counters) */
#define SEL_NP SEL_MAXP
#endif

/* The index of the prefix that key k matches, or -1. */
RAID_FN int sel_match(RaidKey k, uint mhi, uint mlo, int np, RAID_GLOBAL const uint *p)
{
    const uint h = k.hi & mhi, l = k.lo & mlo;
    for (int j = 0; j < np; j++)
        if (h == p[2 * j] && l == p[2 * j + 1])
            return j;
    return -1;
}

/* A work-group's info (ls: NaN count, first zero, first NaN) into aux[0..3). */
RAID_FN void sel_info_flush(RAID_LOCAL const uint *ls, RAID_GLOBAL uint *aux)
{
    if (ls[0])
        RAID_ATOMIC_ADD(&aux[0], ls[0]);
    if (ls[1] != SEL_NONE)
        RAID_ATOMIC_MIN(&aux[1], ls[1]);
    if (ls[2] != SEL_NONE)
        RAID_ATOMIC_MIN(&aux[2], ls[2]);
}

RAID_KERNEL void col_sel_hist(RAID_GLOBAL const uint *src, uint off, uint n, int np, RAID_GLOBAL const uint *pref, uint mhi,
                              uint mlo, int shift, int bits, int first, int compact, RAID_GLOBAL uint *aux,
                              RAID_GLOBAL uint *dst)
{
    /* lh: np << bits counters, np <= SEL_NP (a build option of the host: one prefix needs 8 KB, leaving room
     * for more work-groups per compute unit than SEL_MAXP would) */
    RAID_SHARED uint lh[SEL_NP << SEL_DIGIT];
    RAID_SHARED uint ls[4]; /* nnan, first zero, first NaN, tile count */
    RAID_SHARED uint lbase;
    const uint lid = (uint)RAID_LOCAL_ID(0), lsz = (uint)RAID_LOCAL_SIZE(0);
    const uint gid = (uint)RAID_GROUP_ID(0), ng = (uint)RAID_NUM_GROUPS(0);
    const uint nbins = (uint)np << bits;
    raidWgHistZero(lh, nbins, lid, lsz);
    if (lid == 0) {
        ls[0] = 0u;
        ls[1] = SEL_NONE;
        ls[2] = SEL_NONE;
    }
    RAID_BARRIER();
    for (uint t = gid * lsz; t < n; t += ng * lsz) { /* t is the same for the whole work-group */
        const uint i = t + lid;
        int j = -1;
        uint wlo = 0u, whi = 0u;
        if (i < n) {
            const uint2 w = RAID_VLOAD2(off + i, src); /* one 8-byte load: (low word, high word) */
            wlo = w.x;
            whi = w.y;
            const RaidKey k = raidKeyFromBits(whi, wlo);
            if (first) {
                if (k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO) {
                    RAID_ATOMIC_INC(&ls[0]);
                    RAID_ATOMIC_MIN(&ls[2], i);
                } else if (k.hi == RAID_KEY_ZERO_HI && k.lo == 0u) {
                    RAID_ATOMIC_MIN(&ls[1], i);
                }
            }
            j = sel_match(k, mhi, mlo, np, pref);
            if (j >= 0)
                raidWgHistAdd(lh, ((uint)j << bits) + raidKeyDigit(k, shift, bits));
        }
        if (compact) {
            const uint slot = raidWgTileSlot(j >= 0, &ls[3], &lbase, &aux[3], lid);
            if (j >= 0) {
                dst[2 * slot] = wlo;
                dst[2 * slot + 1] = whi;
            }
            RAID_BARRIER(); /* lbase and ls[3] are reused by the next tile */
        }
    }
    RAID_BARRIER();
    raidWgHistFlush(lh, nbins, aux + SEL_AUX_HIST, lid, lsz);
    if (first && lid == 0)
        sel_info_flush(ls, aux);
}

/* aux: [0] min high word, [1] max high word of non-NaN keys, [2] NaN count, [3] first zero, [4] first
 * NaN (pass 0); [5] min low word among keys of high word aux[0], [6] max low word among non-NaN keys of
 * high word aux[1] (pass 1). The host sets aux to (~0, 0, 0, ~0, ~0, ~0, 0) first. */
RAID_KERNEL void col_sel_minmax(RAID_GLOBAL const uint *src, uint off, uint n, int pass, RAID_GLOBAL uint *aux)
{
    RAID_SHARED uint l[7];
    const uint lid = (uint)RAID_LOCAL_ID(0);
    if (lid == 0) {
        l[0] = SEL_NONE;
        l[1] = 0u;
        l[2] = 0u;
        l[3] = SEL_NONE;
        l[4] = SEL_NONE;
        l[5] = SEL_NONE;
        l[6] = 0u;
    }
    RAID_BARRIER();
    uint a = SEL_NONE, b = 0u, nn = 0u, fz = SEL_NONE, fn = SEL_NONE;
    const uint mh = pass ? aux[0] : 0u, xh = pass ? aux[1] : 0u;
    int anyb = 0;
    for (uint i = (uint)RAID_GLOBAL_ID(0); i < n; i += (uint)RAID_GLOBAL_SIZE(0)) {
        const uint2 w = RAID_VLOAD2(off + i, src);
        const RaidKey k = raidKeyFromBits(w.y, w.x);
        const int isnan_ = k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO;
        if (pass == 0) {
            a = RAID_MIN(a, k.hi);
            if (isnan_) {
                nn++;
                fn = RAID_MIN(fn, i);
            } else {
                b = RAID_MAX(b, k.hi);
                if (k.hi == RAID_KEY_ZERO_HI && k.lo == 0u)
                    fz = RAID_MIN(fz, i);
            }
        } else {
            if (k.hi == mh)
                a = RAID_MIN(a, k.lo);
            if (!isnan_ && k.hi == xh) {
                b = RAID_MAX(b, k.lo);
                anyb = 1;
            }
        }
    }
    if (pass == 0) {
        RAID_ATOMIC_MIN(&l[0], a);
        RAID_ATOMIC_MAX(&l[1], b);
        if (nn)
            RAID_ATOMIC_ADD(&l[2], nn);
        RAID_ATOMIC_MIN(&l[3], fz);
        RAID_ATOMIC_MIN(&l[4], fn);
    } else {
        RAID_ATOMIC_MIN(&l[5], a);
        if (anyb)
            RAID_ATOMIC_MAX(&l[6], b);
    }
    RAID_BARRIER();
    if (lid == 0) {
        if (pass == 0) {
            RAID_ATOMIC_MIN(&aux[0], l[0]);
            RAID_ATOMIC_MAX(&aux[1], l[1]);
            if (l[2])
                RAID_ATOMIC_ADD(&aux[2], l[2]);
            RAID_ATOMIC_MIN(&aux[3], l[3]);
            RAID_ATOMIC_MIN(&aux[4], l[4]);
        } else {
            RAID_ATOMIC_MIN(&aux[5], l[5]);
            RAID_ATOMIC_MAX(&aux[6], l[6]);
        }
    }
}

/* The indices i < n whose key compares with (khi, klo) as mode says (0 <, 1 <=, 2 >, 3 >=), compacted
 * into out at slots reserved per tile (aux[0] counts them; the host zeroes it). */
RAID_KERNEL void col_sel_gather(RAID_GLOBAL const uint *src, uint off, uint n, uint khi, uint klo, int mode,
                                RAID_GLOBAL uint *aux, RAID_GLOBAL uint *out)
{
    RAID_SHARED uint cnt, lbase;
    const uint lid = (uint)RAID_LOCAL_ID(0), lsz = (uint)RAID_LOCAL_SIZE(0);
    const uint gid = (uint)RAID_GROUP_ID(0), ng = (uint)RAID_NUM_GROUPS(0);
    RaidKey K;
    K.hi = khi;
    K.lo = klo;
    for (uint t = gid * lsz; t < n; t += ng * lsz) {
        const uint i = t + lid;
        int take = 0;
        if (i < n) {
            const uint2 w = RAID_VLOAD2(off + i, src);
            const RaidKey k = raidKeyFromBits(w.y, w.x);
            const int lt = raidKeyLess(k, K), gt = raidKeyLess(K, k);
            take = mode == 0 ? lt : mode == 1 ? !gt : mode == 2 ? gt : !lt;
        }
        const uint slot = raidWgTileSlot(take, &cnt, &lbase, &aux[0], lid);
        if (take)
            out[slot] = i;
        RAID_BARRIER(); /* cnt and lbase are reused by the next tile */
    }
}

/* col_sel_sample: the keys of x[off + j step], j < ns, as (high word, low word) pairs into out (the
 * window pass's sample; the host picks the windows, raidSelWindowsFromSample). */
RAID_KERNEL void col_sel_sample(RAID_GLOBAL const uint *src, uint off, uint step, uint ns, RAID_GLOBAL uint *out)
{
    const uint j = (uint)RAID_GLOBAL_ID(0);
    if (j >= ns)
        return;
    const uint2 w = RAID_VLOAD2(off + j * step, src);
    const RaidKey k = raidKeyFromBits(w.y, w.x);
    out[2 * j] = k.hi;
    out[2 * j + 1] = k.lo;
}

/* col_sel_window: ONE pass for up to SEL_MAXW disjoint key windows (docs/column.md "Selection"; the cpu
 * path's sampled select): win[4 w ..] = klo (high, low word), kspan (high, low word). Each key counts into
 * below[w] when below klo[w] (per work-item counts, summed once per work-group into aux[SEL_AUX_HIST + w])
 * and, when key - klo[w] <= kspan[w] (64-bit wrap: a key below the window is not in it), is copied (both
 * words of the input) to dst[2 (w cap + slot)]: per tile of SEL_WE elements per work-item, slots from a
 * local counter per window, then one global atomic per window and tile (aux[SEL_AUX_HIST + SEL_MAXW + w]
 * counts them; slots from cap on are not written: the host sees the count beyond cap and falls back). With
 * `first`, the NaN count and the first zero and NaN (aux[0..3), as col_sel_hist). Double-buffered tile
 * counters: two barriers per tile of SEL_WE x local size elements. Pivots (ties): piv[w SEL_PSTRIDE] keys
 * P (at most SEL_NPIV, the window's distinct sample keys when few), as (high, low) pairs from
 * piv[w SEL_PSTRIDE + 1]; a key in window w equal to its q-th pivot counts into
 * aux[SEL_AUX_HIST + 2 SEL_MAXW + w SEL_NPIV + q] (rare work: only keys in a window look). */
#define SEL_WE 8
#define SEL_NPIV 8
#define SEL_PSTRIDE (1 + 2 * SEL_NPIV)
RAID_KERNEL void col_sel_window(RAID_GLOBAL const uint *src, uint off, uint n, int nw, RAID_GLOBAL const uint *win,
                                int first, RAID_GLOBAL uint *aux, RAID_GLOBAL uint *dst, uint cap,
                                RAID_GLOBAL const uint *piv)
{
    RAID_SHARED uint lc[2 * SEL_MAXW], lb[2 * SEL_MAXW], lsum[SEL_MAXW], ls[3], leq[SEL_MAXW * SEL_NPIV];
    const uint lid = (uint)RAID_LOCAL_ID(0), lsz = (uint)RAID_LOCAL_SIZE(0);
    const uint gid = (uint)RAID_GROUP_ID(0), ng = (uint)RAID_NUM_GROUPS(0);
    uint klh[SEL_MAXW], kll[SEL_MAXW], ksh[SEL_MAXW], ksl[SEL_MAXW], below[SEL_MAXW];
    for (int w = 0; w < SEL_MAXW; w++) {
        const int u = w < nw ? w : 0;
        klh[w] = win[4 * u];
        kll[w] = win[4 * u + 1];
        ksh[w] = win[4 * u + 2];
        ksl[w] = win[4 * u + 3];
        below[w] = 0u;
    }
    if (lid < 2 * SEL_MAXW)
        lc[lid] = 0u;
    if (lid < SEL_MAXW)
        lsum[lid] = 0u;
    if (lid < SEL_MAXW * SEL_NPIV)
        leq[lid] = 0u;
    if (lid == 0) {
        ls[0] = 0u;
        ls[1] = SEL_NONE;
        ls[2] = SEL_NONE;
    }
    uint nn = 0u, fz = SEL_NONE, fn = SEL_NONE;
    RAID_BARRIER();
    const uint tile = SEL_WE * lsz;
    uint par = 0u;
    for (uint t = gid * tile; t < n; t += ng * tile, par ^= SEL_MAXW) { /* t is the same for the work-group */
        uint2 v[SEL_WE];
        uint cw[SEL_WE], cs[SEL_WE];
        for (int e = 0; e < SEL_WE; e++) { /* the tile's loads first, all in flight at once */
            const uint i = t + (uint)e * lsz + lid;
            v[e] = i < n ? RAID_VLOAD2(off + i, src) : RAID_UINT2(0u, 0u);
        }
        for (int e = 0; e < SEL_WE; e++) {
            const uint i = t + (uint)e * lsz + lid;
            cw[e] = SEL_NONE;
            cs[e] = 0u;
            if (i < n) {
                const RaidKey k = raidKeyFromBits(v[e].y, v[e].x);
                if (first) {
                    if (k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO) {
                        nn++;
                        fn = RAID_MIN(fn, i);
                    } else if (k.hi == RAID_KEY_ZERO_HI && k.lo == 0u) {
                        fz = RAID_MIN(fz, i);
                    }
                }
                for (int w = 0; w < SEL_MAXW; w++) {
                    if (w >= nw)
                        break;
                    below[w] += (k.hi < klh[w] || (k.hi == klh[w] && k.lo < kll[w])) ? 1u : 0u;
                    const uint dl = k.lo - kll[w], dh = k.hi - klh[w] - (k.lo < kll[w] ? 1u : 0u);
                    if (dh < ksh[w] || (dh == ksh[w] && dl <= ksl[w])) {
                        cw[e] = (uint)w;
                        cs[e] = RAID_ATOMIC_INC(&lc[par + (uint)w]);
                        RAID_GLOBAL const uint *pw = piv + w * SEL_PSTRIDE;
                        const uint npv = pw[0];
                        for (uint q = 0; q < npv; q++)
                            if (k.hi == pw[1 + 2 * q] && k.lo == pw[2 + 2 * q]) {
                                RAID_ATOMIC_INC(&leq[(uint)w * SEL_NPIV + q]);
                                break;
                            }
                    }
                }
            }
        }
        RAID_BARRIER();
        if (lid < (uint)nw) {
            const uint c = lc[par + lid];
            lb[par + lid] = c ? RAID_ATOMIC_ADD(&aux[SEL_AUX_HIST + SEL_MAXW + lid], c) : 0u;
            lc[(par ^ SEL_MAXW) + lid] = 0u; /* the next tile's counters (last read before the previous barrier) */
        }
        RAID_BARRIER();
        for (int e = 0; e < SEL_WE; e++)
            if (cw[e] != SEL_NONE) {
                const uint pos = lb[par + cw[e]] + cs[e];
                if (pos < cap)
                    RAID_VSTORE2(v[e], cw[e] * cap + pos, dst);
            }
    }
    for (int w = 0; w < SEL_MAXW; w++)
        if (w < nw && below[w])
            RAID_ATOMIC_ADD(&lsum[w], below[w]);
    if (first) {
        if (nn)
            RAID_ATOMIC_ADD(&ls[0], nn);
        if (fz != SEL_NONE)
            RAID_ATOMIC_MIN(&ls[1], fz);
        if (fn != SEL_NONE)
            RAID_ATOMIC_MIN(&ls[2], fn);
    }
    RAID_BARRIER();
    if (lid < (uint)nw && lsum[lid])
        RAID_ATOMIC_ADD(&aux[SEL_AUX_HIST + lid], lsum[lid]);
    if (lid < (uint)nw * SEL_NPIV && leq[lid])
        RAID_ATOMIC_ADD(&aux[SEL_AUX_HIST + 2 * SEL_MAXW + lid], leq[lid]);
    if (first && lid == 0)
        sel_info_flush(ls, aux);
}
