/*
 * Kernels of tests/test_device.c (read at run time, built through raidKernelGetSource, which prepends
 * the prelude of kernels/prelude.txt as for the library's own kernels), in the kernel dialect of
 * raid_compat.h (tests/test_kernels_nvrtc.c compiles them as CUDA too). Never a 64-bit float type.
 */
#pragma OPENCL FP_CONTRACT OFF

#ifndef RAID_WG
#define RAID_WG 64
#endif
#ifndef VARIANT
#define VARIANT 0
#endif

/* map: the exact square of each float as a double-float pair (TwoProd), y[2i] = hi, y[2i+1] = lo. */
RAID_KERNEL void map_square(RAID_GLOBAL const float *x, RAID_GLOBAL float *y, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const RaidDf p = raidTwoProd(x[i], x[i]);
    y[2 * i] = p.hi;
    y[2 * i + 1] = p.lo;
}

/* map, in place: x *= f (a power of two in the tests: exact). */
RAID_KERNEL void map_scale(RAID_GLOBAL float *x, const float f, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n)
        x[i] *= f;
}

/* A chunk reduction over resident input (the raidChunkReduce protocol): chunk g is (position, length,
 * segment, 0); each work-item sums a strided run in double-float, then a fixed-order tree; one float2. */
RAID_KERNEL RAID_REQD_WG(RAID_WG) void chunk_sum(RAID_GLOBAL const float *x, RAID_GLOBAL const uint4 *chunk,
                                                 RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0), lid = RAID_LOCAL_ID(0);
    const uint4 ch = chunk[g];
    RaidDf s = raidDfMake(0.0f, 0.0f);
    for (uint j = lid; j < ch.y; j += RAID_WG)
        s = raidDfAddF(s, x[ch.x + j]);
    RAID_SHARED float lh[RAID_WG];
    RAID_SHARED float ll[RAID_WG];
    lh[lid] = s.hi;
    ll[lid] = s.lo;
    RAID_BARRIER();
    for (uint w = RAID_WG / 2; w > 0; w /= 2) {
        if (lid < w) {
            const RaidDf a = raidDfAdd(raidDfMake(lh[lid], ll[lid]), raidDfMake(lh[lid + w], ll[lid + w]));
            lh[lid] = a.hi;
            ll[lid] = a.lo;
        }
        RAID_BARRIER();
    }
    if (lid == 0)
        part[g] = RAID_FLOAT2(lh[0], ll[0]);
}

/* One work-item per independent recursion: the exponential moving average of series s (T values from
 * x[s * T], as df pairs), e_0 = x_0, e_t = e_{t-1} + alpha (x_t - e_{t-1}), all in double-float. */
RAID_KERNEL void ema_df(RAID_GLOBAL const float2 *x, RAID_GLOBAL float2 *e, const uint nser, const uint T,
                        const float alpha_hi, const float alpha_lo)
{
    const uint s = RAID_GLOBAL_ID(0);
    if (s >= nser)
        return;
    const RaidDf alpha = raidDfMake(alpha_hi, alpha_lo);
    RAID_GLOBAL const float2 *xs = x + (size_t)s * T;
    RAID_GLOBAL float2 *es = e + (size_t)s * T;
    RaidDf m = raidDfMake(xs[0].x, xs[0].y);
    es[0] = RAID_FLOAT2(m.hi, m.lo);
    for (uint t = 1; t < T; t++) {
        const RaidDf d = raidDfAdd(raidDfMake(xs[t].x, xs[t].y), raidDfMake(-m.hi, -m.lo));
        m = raidDfAdd(m, raidDfMul(alpha, d));
        es[t] = RAID_FLOAT2(m.hi, m.lo);
    }
}

/* Typed buffers: 64-bit integers, signed and unsigned 32-bit. */
RAID_KERNEL void long_affine(RAID_GLOBAL const long *a, RAID_GLOBAL long *b, const long c, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n)
        b[i] = a[i] * 3 + c + (long)i;
}

/* IEEE binary64 on integer words (kernels/raid_f64.h, in the prelude): out[i] = a[i] op b[i], op 0 add,
 * 1 sub, 2 mul, 3 div, 4 sqrt of a[i]; the values as their bit patterns. */
RAID_KERNEL void f64_ops(RAID_GLOBAL const long *a, RAID_GLOBAL const long *b, RAID_GLOBAL long *out, const uint op,
                         const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const RaidU64 x = (RaidU64)a[i], y = (RaidU64)b[i];
    RaidU64 r;
    if (op == 0)
        r = raidF64Add(x, y);
    else if (op == 1)
        r = raidF64Sub(x, y);
    else if (op == 2)
        r = raidF64Mul(x, y);
    else if (op == 3)
        r = raidF64Div(x, y);
    else
        r = raidF64Sqrt(x);
    out[i] = (long)r;
}

RAID_KERNEL void int_negate(RAID_GLOBAL int *a, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n)
        a[i] = -a[i];
}

/* A histogram with 32-bit atomics (uint bins, filled with zeros by raidBufFill first). */
RAID_KERNEL void histogram(RAID_GLOBAL const uint *v, RAID_GLOBAL volatile uint *bins, const uint nbins, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n)
        RAID_ATOMIC_INC(&bins[v[i] % nbins]);
}

/* One of many distinct programs (built with -DVARIANT=k): y = x + k. */
RAID_KERNEL void variant(RAID_GLOBAL const float *x, RAID_GLOBAL float *y, const uint n)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n)
        y[i] = x[i] + (float)VARIANT;
}
