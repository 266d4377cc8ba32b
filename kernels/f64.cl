/*
 * f64.cl -- element-wise binary64 expressions (include/raid/f64.h) on integer words (raid_f64.h, in the
 * prelude): one work-item an element reads each input once, runs the expression's operations in registers
 * and writes the result once, so a chain of operations is one pass over memory.
 *
 * f64_eval's build options (src/f64/f64_device.c): F64_NIN, the inputs (1 to 8: in0 .. in7, read as x0 .. x7), and
 * F64_BODY, the expression as nested raidF64 calls over x0 .. x7 and constants (0x...ul, the binary64 bits),
 * in the order the expression was written: the cpu path (src/f64/f64.c) evaluates the same operations on the
 * same operands, hence the same bits. The unused input arguments are bound to in0 and never read.
 */
#pragma OPENCL FP_CONTRACT OFF

#ifdef F64_BODY
#if !defined(F64_NIN) || F64_NIN < 1 || F64_NIN > 8
#error "f64.cl's f64_eval needs F64_NIN (1 to 8) with F64_BODY (set by src/f64/f64_device.c)"
#endif

RAID_KERNEL void f64_eval(RAID_GLOBAL const RaidU64 *in0, RAID_GLOBAL const RaidU64 *in1,
                          RAID_GLOBAL const RaidU64 *in2, RAID_GLOBAL const RaidU64 *in3,
                          RAID_GLOBAL const RaidU64 *in4, RAID_GLOBAL const RaidU64 *in5,
                          RAID_GLOBAL const RaidU64 *in6, RAID_GLOBAL const RaidU64 *in7, RAID_GLOBAL RaidU64 *out,
                          const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const RaidU64 x0 = in0[i];
#if F64_NIN > 1
    const RaidU64 x1 = in1[i];
#endif
#if F64_NIN > 2
    const RaidU64 x2 = in2[i];
#endif
#if F64_NIN > 3
    const RaidU64 x3 = in3[i];
#endif
#if F64_NIN > 4
    const RaidU64 x4 = in4[i];
#endif
#if F64_NIN > 5
    const RaidU64 x5 = in5[i];
#endif
#if F64_NIN > 6
    const RaidU64 x6 = in6[i];
#endif
#if F64_NIN > 7
    const RaidU64 x7 = in7[i];
#endif
    out[i] = F64_BODY;
}
#endif

/* mask[i] = raidF64Compare(a[i], b[i], cmp): one byte an element (b is bound to a for the one-operand
 * predicates and not read then). Built without options. */
RAID_KERNEL void f64_compare(RAID_GLOBAL const RaidU64 *a, RAID_GLOBAL const RaidU64 *b, RAID_GLOBAL uchar *mask,
                             const uint cmp, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n)
        mask[i] = (uchar)raidF64Compare(a[i], cmp <= 6u ? b[i] : 0u, (int)cmp);
}

/* out[i] = raidF64LogReturn(p[i], p[i + 1]) for i < n - 1 (kernels/raid_f64_returns.h: the bits of the cpu
 * path and of the segmenter's returns), and *bad = the least index i < n of a price that is not positive and
 * finite (the host sets it to 0xFFFFFFFF first; such a price's returns are computed anyway and discarded by
 * the host). Built without options. */
RAID_KERNEL void f64_log_returns(RAID_GLOBAL const RaidU64 *p, RAID_GLOBAL RaidU64 *out, RAID_GLOBAL uint *bad,
                                 const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const RaidU64 a = p[i];
    if (a == 0u || a >= RAID_F64_INF) /* +0, +inf, a NaN, any value with the sign bit */
        RAID_ATOMIC_MIN(bad, i);
    if (i + 1u < n)
        out[i] = raidF64LogReturn(a, p[i + 1u]);
}
