/*
 * raid_wg.h -- work-group building blocks of the column kernels (col_sort.cl, col_select.cl, col_groupby.cl),
 * in the dialect of raid_compat.h: part of the prelude prepended to every kernel program
 * (kernels/prelude.txt), so that a kernel calls these instead of writing its own. 32-bit unsigned integers
 * only: every result is exact and does not depend on the order in which work-items run (bitwise the same on
 * every device). docs/device.md "Work-group building blocks" lists them.
 *
 * Conventions: `n` is the number of work-items of the work-group that call (the local size, or the kernel's
 * compile-time width where it has one, which lets the compiler unroll); `lid` the caller's local id. A block
 * that says "every work-item calls" holds barriers: all n work-items must reach it (not under a condition
 * that differs between them). Local arrays are the caller's (RAID_SHARED, sized at build time).
 */
#ifndef RAID_WG_H
#define RAID_WG_H

/* ---- scan ----
 * The inclusive and exclusive scans of v over the work-group, the log-step scan (Hillis and Steele 1986):
 * tmp holds n words of local memory; every work-item calls, 2 log2(n) + 2 barriers (tmp may be reused
 * after the call). *total receives the sum of all n values (mod 2^32, as the scan). */
RAID_FN uint raidWgScanIncl(uint v, RAID_LOCAL uint *tmp, uint n, uint lid, uint *total)
{
    tmp[lid] = v;
    RAID_BARRIER();
    for (uint off = 1u; off < n; off <<= 1) {
        const uint add = lid >= off ? tmp[lid - off] : 0u;
        RAID_BARRIER();
        tmp[lid] += add;
        RAID_BARRIER();
    }
    const uint incl = tmp[lid];
    *total = tmp[n - 1u];
    RAID_BARRIER();
    return incl;
}

RAID_FN uint raidWgScanExcl(uint v, RAID_LOCAL uint *tmp, uint n, uint lid, uint *total)
{
    return raidWgScanIncl(v, tmp, n, lid, total) - v;
}

/* ---- histogram in local memory ----
 * h: nbins counters of local memory. raidWgHistZero clears them (the caller's next barrier publishes the
 * zeros), raidWgHistAdd counts one value into bin b (a local atomic; the old count returned), and
 * raidWgHistFlush adds the non-zero counters into the global dst[0 .. nbins) with one global atomic each
 * (after a barrier of the caller that ends the counting). Counts are below 2^32. */
RAID_FN void raidWgHistZero(volatile RAID_LOCAL uint *h, uint nbins, uint lid, uint n)
{
    for (uint j = lid; j < nbins; j += n)
        h[j] = 0u;
}

RAID_FN uint raidWgHistAdd(volatile RAID_LOCAL uint *h, uint b)
{
    return RAID_ATOMIC_INC(h + b);
}

RAID_FN void raidWgHistFlush(volatile RAID_LOCAL uint *h, uint nbins, volatile RAID_GLOBAL uint *dst, uint lid, uint n)
{
    for (uint j = lid; j < nbins; j += n) {
        const uint c = h[j];
        if (c)
            RAID_ATOMIC_ADD(dst + j, c);
    }
}

/* ---- slots of a tile in a global output (compaction) ----
 * Every work-item of the work-group calls with take (0 or 1) and gets the slot of its element in out:
 * *base + its rank among the takers of this call (the order of the local atomic: any order within the tile),
 * where *base comes from ONE global atomic add of the tile's count to *counter. cnt and base are local words
 * of the caller; three barriers, and a fourth at the end when the caller reuses them for its next tile
 * (the callers' loops: the same sequence as before this block existed). Returns the slot (meaningful only
 * when take). */
RAID_FN uint raidWgTileSlot(int take, volatile RAID_LOCAL uint *cnt, volatile RAID_LOCAL uint *base,
                            volatile RAID_GLOBAL uint *counter, uint lid)
{
    if (lid == 0u)
        *cnt = 0u;
    RAID_BARRIER();
    uint slot = 0u;
    if (take)
        slot = RAID_ATOMIC_INC(cnt);
    RAID_BARRIER();
    if (lid == 0u)
        *base = *cnt ? RAID_ATOMIC_ADD(counter, *cnt) : 0u;
    RAID_BARRIER();
    return *base + slot;
}

/* ---- decoupled look-back (Merrill and Garland 2016, "Single-pass parallel prefix scan with decoupled
 * look-back"; Onesweep's use of it) ----
 * Tiles t = 0, 1, ... (numbered in the order they start, e.g. from an atomic counter, so that a tile's
 * predecessors have all started and the waits end) each publish a count c < 2^31 in a word of a global
 * array, stride words apart from tile to tile (mine: this tile's word; all zeroed before the kernel):
 * 0 = not yet published, c + 1 = the tile's own count ("aggregate"), 0x80000000 | the count over tiles
 * 0..t ("inclusive"). raidLookbackPublish writes the aggregate (tile 0: its inclusive count at once);
 * raidLookbackPrefix then walks back over the earlier tiles' words, adding aggregates until an inclusive
 * count, publishes this tile's inclusive count and returns the count over tiles 0..t-1.
 * Why plain (volatile) loads suffice, by the OpenCL memory model as far as this relies on it:
 * - A word is written only by its own tile, with an atomic exchange, at most twice, and goes
 *   0 -> the tile's count + 1 -> 0x80000000 | the inclusive count (tile 0: 0 -> inclusive). It was zeroed
 *   before this kernel began (kernel boundaries order those stores before every load here), so a load sees
 *   this sequence only.
 * - The flag and the count are ONE aligned 32-bit word and a reader uses nothing else that the earlier
 *   tile wrote in this kernel: no ordering with other data is needed (no acquire; OpenCL 1.2's atomics
 *   give none either). An aligned 32-bit load returns one whole value the word held (single-copy
 *   atomicity: not stated by OpenCL 1.2 for non-atomic loads, given by every GPU and CPU).
 * - So every value read is 0 (poll again), a correct aggregate (walk on) or a correct inclusive count
 *   (stop): a stale read (0 where the count is already there, an aggregate where the inclusive count
 *   is) only delays the walk, never changes its sum.
 * - volatile makes every poll a load of its own (no value kept in a register or hoisted out of the loop).
 *   What it relies on beyond OpenCL 1.2, which promises another work-group's writes during a kernel to
 *   atomic operations only: that the atomic writes become visible to these loads in time (NVIDIA: volatile
 *   global loads read L2, where global atomics are performed, not the non-coherent L1; CPUs, PoCL:
 *   coherent caches). Polling with atomic reads (atomic_or of 0) was slower on the H200 (4.67 ms against
 *   4.39 ms for 5e7 doubles, docs/column.md "What was tried"). */
RAID_FN void raidLookbackPublish(RAID_GLOBAL uint *mine, uint t, uint c)
{
    RAID_ATOMIC_XCHG(mine, t == 0u ? 0x80000000u | c : c + 1u);
}

RAID_FN uint raidLookbackPrefix(RAID_GLOBAL uint *mine, uint stride, uint t, uint c)
{
    uint before = 0u;
    if (t > 0u) {
        RAID_GLOBAL uint *s = mine;
        for (;;) {
            s -= stride;
            uint v;
            while ((v = *(volatile RAID_GLOBAL uint *)s) == 0u)
                ;
            if (v & 0x80000000u) {
                before += v & 0x7FFFFFFFu;
                break;
            }
            before += v - 1u; /* tile 0 publishes only its inclusive count: s stays in the array */
        }
        RAID_ATOMIC_XCHG(mine, 0x80000000u | (before + c));
    }
    return before;
}

#endif /* RAID_WG_H */
