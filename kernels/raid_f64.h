/*
 * raid_f64.h -- IEEE 754 binary64 arithmetic on integer words: add, sub, mul, div, sqrt of float64 values
 * given and returned as their bit patterns (RaidU64), correctly rounded to nearest even, with subnormals,
 * signed zeros, infinities and NaNs, for devices without a 64-bit floating type.
 *
 * One source for the kernels (OpenCL C and CUDA) and host C, in the dialect of raid_compat.h (prepended to
 * every kernel program through kernels/prelude.txt; host code includes this file). No floating type is used
 * at all: every result is the bit pattern the host's IEEE double arithmetic gives (tests/test_f64.c checks
 * it against the host's operators and Berkeley SoftFloat's), so the same source gives the same bits on the
 * cpu path and on every device.
 *
 * NaNs follow x86-64's SSE rules (numpy's results on x86-64 hosts): an operation with a NaN operand returns
 * the first NaN operand (a before b) made quiet (bit 51 set, payload kept); an invalid operation (inf - inf,
 * 0 * inf, 0 / 0, inf / inf, sqrt of a negative number) returns the default NaN, 0xFFF8000000000000.
 * (Other hosts differ only in which NaN: an ARM host's default NaN is positive.)
 *
 * The working format (SoftFloat's): a finite value is m 2^(e - 1085) with m < 2^63 and, when normalised, its
 * leading bit at bit 62, so that for a normal result e is the biased exponent field and bits 9..0 of m are
 * below the 53-bit significand (round bit 9, then sticky bits); operations keep every bit shifted out as a
 * sticky bit (a jamming shift), so one rounding at the end is the correct one.
 *
 * Sources:
 *   IEEE Std 754-2019, sections 4.3 (rounding), 5.4.1 (arithmetic), 6.2 (NaNs), 7.2 (invalid operation).
 *   Hauser, J. R. Berkeley SoftFloat Release 3e (2018): the working format and the round-and-pack step.
 *   Intel 64 and IA-32 Architectures Software Developer's Manual, vol. 1, sec. 4.8.3.5 (QNaN floating-point
 *     indefinite) and table 4-7 (NaN operands of SSE instructions).
 */
#ifndef RAID_F64_H
#define RAID_F64_H

#ifndef RAID_COMPAT_H /* host C: the dialect's host branch (kernels get it prepended) */
#include "raid_compat.h"
#endif
#define RAID_F64_FN RAID_FN

#define RAID_F64_SIGN ((RaidU64)1 << 63)
#define RAID_F64_INF ((RaidU64)0x7FF << 52)
#define RAID_F64_QUIET ((RaidU64)1 << 51)
#define RAID_F64_DEFAULT_NAN ((RaidU64)0xFFF8 << 48)
#define RAID_F64_FRAC (((RaidU64)1 << 52) - 1)

/* x is a NaN (exponent field all ones, fraction not zero). */
RAID_F64_FN int raidF64IsNan(RaidU64 x) { return (x & ~RAID_F64_SIGN) > RAID_F64_INF; }

/* The NaN result of an operation whose operand a or b is a NaN: the first NaN operand, made quiet. */
RAID_F64_FN RaidU64 raidF64PropagateNan(RaidU64 a, RaidU64 b)
{
    return (raidF64IsNan(a) ? a : b) | RAID_F64_QUIET;
}

/* m shifted right by n >= 0 places, with every bit shifted out ORed into bit 0 (a "jamming" shift: the
 * value's position relative to the rounding point is kept exactly enough for one correct rounding). */
RAID_F64_FN RaidU64 raidF64ShiftJam(RaidU64 m, int n)
{
    if (n <= 0)
        return m;
    if (n >= 63)
        return m != 0;
    return (m >> n) | ((m << (64 - n)) != 0);
}

/* Round m 2^(e - 1085) (m < 2^63, its leading bit at bit 62 unless the value is below the normal range) to
 * binary64, nearest even, with the sign: a value below the normal range becomes subnormal (one rounding of
 * the exact value), one at or above 2^1024 after rounding becomes infinity. The hidden bit of the rounded
 * significand adds one to the field (e - 1) << 52, and a rounding that carries into bit 53 adds one more:
 * the exponent field is right in every case (SoftFloat's roundPackToF64). */
RAID_F64_FN RaidU64 raidF64RoundPack(RaidU64 sign, int e, RaidU64 m)
{
    if (e >= 2047)
        return sign | RAID_F64_INF;
    if (e <= 0) {
        m = raidF64ShiftJam(m, 1 - e);
        e = 1;
    }
    const RaidU64 r = m & 0x3FF;
    RaidU64 q = (m + 0x200) >> 10;
    if (r == 0x200)
        q &= ~(RaidU64)1; /* a tie: to even */
    const RaidU64 bits = ((RaidU64)(e - 1) << 52) + q;
    return sign | (bits >= RAID_F64_INF ? RAID_F64_INF : bits);
}

/* The significand of a finite non-zero x with its leading bit at bit 52 and the exponent that goes with it
 * (x = s 2^(*e - 1075); a subnormal is normalised, *e <= 0 then). */
RAID_F64_FN RaidU64 raidF64Unpack(RaidU64 x, int *e)
{
    const int be = (int)((x >> 52) & 0x7FF);
    const RaidU64 f = x & RAID_F64_FRAC;
    if (be) {
        *e = be;
        return f | ((RaidU64)1 << 52);
    }
    const int sh = RAID_CLZ64(f) - 11;
    *e = 1 - sh;
    return f << sh;
}

/* a + b. */
RAID_F64_FN RaidU64 raidF64Add(RaidU64 a, RaidU64 b)
{
    const RaidU64 ma = a & ~RAID_F64_SIGN, mb = b & ~RAID_F64_SIGN;
    if (ma > RAID_F64_INF || mb > RAID_F64_INF)
        return raidF64PropagateNan(a, b);
    if (ma == RAID_F64_INF || mb == RAID_F64_INF) {
        if (ma == RAID_F64_INF && mb == RAID_F64_INF && (a ^ b) & RAID_F64_SIGN)
            return RAID_F64_DEFAULT_NAN; /* inf - inf */
        return ma == RAID_F64_INF ? a : b;
    }
    if (mb == 0) /* x + 0: x, and -0 + -0 = -0, -0 + +0 = +0 */
        return ma == 0 ? (a & b) : a;
    if (ma == 0)
        return b;
    /* finite, non-zero: the larger magnitude first (magnitudes order as their bits) */
    RaidU64 x = a, y = b;
    if (mb > ma)
        x = b, y = a;
    int ex, ey;
    RaidU64 sx = raidF64Unpack(x, &ex) << 10, sy = raidF64Unpack(y, &ey) << 10;
    sy = raidF64ShiftJam(sy, ex - ey);
    const RaidU64 sign = x & RAID_F64_SIGN;
    if (!((a ^ b) & RAID_F64_SIGN)) {
        RaidU64 s = sx + sy; /* < 2^64: both are below 2^63 */
        if (s >> 63) {
            s = raidF64ShiftJam(s, 1);
            ex++;
        }
        return raidF64RoundPack(sign, ex, s);
    }
    RaidU64 d = sx - sy; /* >= 0: x has the larger magnitude */
    if (d == 0)
        return 0; /* x - x = +0 (round to nearest) */
    const int sh = RAID_CLZ64(d) - 1; /* bring the leading bit to bit 62 */
    return raidF64RoundPack(sign, ex - sh, d << sh);
}

/* a - b: a + (-b), except that the NaN of a NaN b keeps b's sign (negation does not touch a NaN's bits on
 * the host: SSE's subtraction propagates the operand as it is). */
RAID_F64_FN RaidU64 raidF64Sub(RaidU64 a, RaidU64 b)
{
    if (raidF64IsNan(a) || raidF64IsNan(b))
        return raidF64PropagateNan(a, b);
    return raidF64Add(a, b ^ RAID_F64_SIGN);
}

/* The 128-bit product of x and y (each below 2^64) as hi, lo: the low word of the 64-bit product and the
 * dialect's high word (OpenCL's mul_hi, CUDA's __umul64hi, the host's 128-bit product). */
RAID_F64_FN void raidF64Mul128(RaidU64 x, RaidU64 y, RaidU64 *hi, RaidU64 *lo)
{
    *lo = x * y;
    *hi = RAID_MUL_HI64(x, y);
}

/* a * b. */
RAID_F64_FN RaidU64 raidF64Mul(RaidU64 a, RaidU64 b)
{
    const RaidU64 ma = a & ~RAID_F64_SIGN, mb = b & ~RAID_F64_SIGN, sign = (a ^ b) & RAID_F64_SIGN;
    if (ma > RAID_F64_INF || mb > RAID_F64_INF)
        return raidF64PropagateNan(a, b);
    if (ma == RAID_F64_INF || mb == RAID_F64_INF)
        return ma == 0 || mb == 0 ? RAID_F64_DEFAULT_NAN : sign | RAID_F64_INF; /* 0 * inf: invalid */
    if (ma == 0 || mb == 0)
        return sign;
    int ea, eb;
    const RaidU64 sa = raidF64Unpack(a, &ea), sb = raidF64Unpack(b, &eb);
    /* sa sb in [2^104, 2^106): the leading bit at 105 or 104, brought to bit 62 of m with the rest jammed */
    RaidU64 hi, lo;
    raidF64Mul128(sa << 10, sb << 1, &hi, &lo); /* sa sb 2^11: the leading bit at 116 or 115, i.e. hi's 52 or 51 */
    RaidU64 m = (hi << 10) | (lo >> 54) | ((lo << 10) != 0); /* bits 116..54 of the product, the rest jammed */
    int e = ea + eb - 1022;
    if (!(m >> 62)) { /* the leading bit at 61: one place left (the jammed bit stays a sticky bit) */
        m <<= 1;
        e--;
    }
    return raidF64RoundPack(sign, e, m);
}

/* ---- 128-bit helpers of the fused multiply-add (hi, lo words) ---- */

/* (hi, lo) shifted right by n >= 0 with every bit shifted out ORed into bit 0. */
RAID_F64_FN void raidF64ShiftJam128(RaidU64 *hi, RaidU64 *lo, int n)
{
    if (n <= 0)
        return;
    if (n >= 127) {
        *lo = (*hi | *lo) != 0;
        *hi = 0;
        return;
    }
    if (n >= 64) {
        const RaidU64 lost = (n == 64 ? 0 : *hi << (128 - n)) | *lo;
        *lo = (n == 64 ? *hi : *hi >> (n - 64)) | (lost != 0);
        *hi = 0;
        return;
    }
    const RaidU64 lost = *lo << (64 - n);
    *lo = (*lo >> n) | (*hi << (64 - n)) | (lost != 0);
    *hi >>= n;
}

/* fma(a, b, c) = a b + c rounded once. The exact product (106 bits) and the addend are placed in one 128-bit
 * frame, their leading bits at 125 or 126, the smaller aligned to the larger with a jamming shift, added or
 * subtracted exactly, and the top 63 bits with the rest as a sticky bit rounded by raidF64RoundPack. NaN
 * operands give the first NaN (a, b, c) made quiet; 0 x inf is invalid (the default NaN) unless c is a NaN,
 * as on x86-64; inf - inf is invalid. An exact zero sum is +0 unless both the product and c are -0 (or the
 * product's zero has c's negative sign): IEEE 754-2019 6.3. */
RAID_F64_FN RaidU64 raidF64Fma(RaidU64 a, RaidU64 b, RaidU64 c)
{
    const RaidU64 ma = a & ~RAID_F64_SIGN, mb = b & ~RAID_F64_SIGN, mc = c & ~RAID_F64_SIGN;
    const RaidU64 sp = (a ^ b) & RAID_F64_SIGN, sc = c & RAID_F64_SIGN;
    if (ma > RAID_F64_INF || mb > RAID_F64_INF || mc > RAID_F64_INF)
        return (ma > RAID_F64_INF ? a : mb > RAID_F64_INF ? b : c) | RAID_F64_QUIET;
    if (ma == RAID_F64_INF || mb == RAID_F64_INF) {
        if (ma == 0 || mb == 0)
            return RAID_F64_DEFAULT_NAN; /* 0 x inf */
        if (mc == RAID_F64_INF && sc != sp)
            return RAID_F64_DEFAULT_NAN; /* inf - inf */
        return sp | RAID_F64_INF;
    }
    if (mc == RAID_F64_INF)
        return c;
    if (ma == 0 || mb == 0) /* an exact zero product: c, or a zero whose sign follows the sum's rule */
        return mc == 0 ? (sp & sc) : c;
    int ea, eb;
    const RaidU64 xa = raidF64Unpack(a, &ea), xb = raidF64Unpack(b, &eb);
    RaidU64 ph, pl;
    raidF64Mul128(xa, xb, &ph, &pl); /* in [2^104, 2^106) */
    ph = (ph << 21) | (pl >> 43);     /* the product << 21: its leading bit at 125 or 126 */
    pl <<= 21;
    int ep = ea + eb - 2150 - 21;     /* the product is (ph, pl) 2^ep */
    if (mc == 0) { /* the product alone, rounded once */
        const int sh = RAID_CLZ64(ph) - 1;
        RaidU64 m = (ph << sh) | (sh ? pl >> (64 - sh) : 0);
        m |= (pl << sh) != 0;
        /* m 2^(ep + 64 - sh) = m 2^(e - 1085) */
        return raidF64RoundPack(sp, ep + 64 - sh + 1085, m);
    }
    int ec;
    RaidU64 ch = raidF64Unpack(c, &ec) << 9, cl = 0; /* its leading bit at 61 of ch, 125 of the pair */
    ec = ec - 1075 - 64 - 9;                       /* c is (ch, cl) 2^ec */
    RaidU64 sign = sp;
    /* the larger exponent keeps its place, the other is aligned (jammed) */
    if (ep >= ec)
        raidF64ShiftJam128(&ch, &cl, ep - ec);
    else {
        raidF64ShiftJam128(&ph, &pl, ec - ep);
        ep = ec;
    }
    RaidU64 hi, lo;
    if (sp == sc) {
        lo = pl + cl;
        hi = ph + ch + (lo < pl);
    } else if (ph > ch || (ph == ch && pl >= cl)) {
        hi = ph - ch - (pl < cl);
        lo = pl - cl;
    } else {
        hi = ch - ph - (cl < pl);
        lo = cl - pl;
        sign = sc;
    }
    if ((hi | lo) == 0)
        return 0; /* exact cancellation: +0 */
    /* normalise: the leading bit to bit 62 of the top word, the rest jammed */
    int sh;
    RaidU64 m;
    if (hi) {
        sh = RAID_CLZ64(hi) - 1; /* -1 when the sum carried into bit 127 */
        if (sh >= 0)
            m = (hi << sh) | (sh ? lo >> (64 - sh) : 0), lo = sh ? lo << sh : lo;
        else
            m = (hi >> 1), lo = (hi << 63) | (lo >> 1) | (lo & 1);
    } else {
        sh = 63 + RAID_CLZ64(lo); /* the leading bit in lo: at least 64 places */
        const int s2 = sh - 64;
        m = s2 >= 0 ? lo << s2 : lo >> -s2;
        lo = s2 >= 0 ? 0 : lo << (64 + s2);
    }
    m |= lo != 0;
    return raidF64RoundPack(sign, ep + 64 - sh + 1085, m);
}

/* ---- division and square root: a 32-bit Newton reciprocal, one Newton step in 64 bits, an exact remainder
 *
 * Both are integer arithmetic on 32- and 64-bit words (no floating type, no table), so host and devices give
 * the same bits. Every estimate below is one-sided: never above the value it approximates (each product
 * truncated, each subtracted term rounded up), so the exact remainder that follows is never negative. The
 * 32-bit stages depend on a 31-bit word alone and tests/test_f64_recip.c runs every one of its 2^30 (1.5 2^30)
 * values: the largest errors quoted are the ones that run finds. The 64-bit steps' bounds follow from them on
 * paper (below), and the same test checks them on random and boundary significands. */

/* x ~ 2^62 / (v + 1) for v in [2^30, 2^31), never above it: x (2v + 2) <= 2^63, so x 2^-31 is at most the
 * reciprocal of every d' in [v, v + 1) 2^-31. The run over every v finds 2^63 - 2v x <= 12,058,526,740, so
 * e = 1 - d'x 2^-31 < 2^-29.51 for every such d'. With d = 2v and the target d' = (d + 2) 2^-32, x in units of
 * 2^-31 (x 2^-31 below 2):
 *   seed: the minimax line 48/17 - 32/17 d' of 1/d' on [1/2, 1) (relative error 1/17): 3 2^35 / 17 mod 2^32 -
 *     mulhi(d, 2^36 / 17), a wrapped subtraction whose true value lies in [2^30, 2^32);
 *   step 1, x (2 - d'x), every term positive: P = mulhi(d, x) > (d + 2) x 2^-32 - 3, so Y = 2^32 - 3 - P is
 *     below (2 - d'x) 2^31, and 2 mulhi(x, Y) below x (2 - d'x) <= 1/d' (for every x): e = 1 - d'x is then
 *     about e0^2 < 2^-8, and e >= 0 from here on;
 *   steps 2 and 3, x + x e: E = 2^63 - (d + 2) x = e 2^63 exactly, below 2^(63-k) (k = 8, then 16), so
 *     E >> (31 - k) fits 32 bits and mulhi(x, E >> (31 - k)) >> k <= x e (truncated): e' = e^2 plus the
 *     truncation, about 2^-31. */
RAID_F64_FN RaidU32 raidF64Recip31(RaidU32 v)
{
    const RaidU32 d = v << 1;
    RaidU32 x = 0x69696969u - RAID_MUL_HI(d, 0xF0F0F0F1u);
    x = RAID_MUL_HI(x, 0xFFFFFFFDu - RAID_MUL_HI(d, x)) << 1;
    RaidU64 e = ((RaidU64)1 << 63) - ((RaidU64)d * x + 2 * (RaidU64)x);
    x += RAID_MUL_HI(x, (RaidU32)(e >> 23)) >> 8;
    e = ((RaidU64)1 << 63) - ((RaidU64)d * x + 2 * (RaidU64)x);
    x += RAID_MUL_HI(x, (RaidU32)(e >> 15)) >> 16;
    return x;
}

/* y ~ 2^31 / sqrt(w') for w' in [v, v + 1) 2^-31, v in [2^29, 2^31), never above it: (2v + 2) y^2 <= 2^94.
 * The run over every v finds 2^94 - 2v y^2 <= 50,752,271,360,970,936,828 (< 2^65.461), so e = 1 - w'y^2 2^-62
 * < 2^-28.54 and y is below 2^31 / sqrt(w') by a relative 1 - sqrt(1 - e) < e / (2 - e) < 2^-29.53. With
 * w = 2v and the target w' = (w + 2) 2^-32, y in units of 2^-31 (y 2^-31 below 2):
 *   seed: the minimax line a - b w' of 1/sqrt(w') on [1/2, 1) (relative error 0.0223; a 2^31 = 3839115466,
 *     b 2^31 = 1739433408), and on [1/4, 1/2) sqrt(2) (a - b 2w') with 2w (sqrt(2) a 2^31 mod 2^32 =
 *     1134361863, sqrt(2) b 2^31 = 2459930317), a wrapped subtraction whose true value lies in (2^30, 2^32);
 *   step 1, y (3 - w'y^2) / 2, every term positive: Y2 = mulhi(y, y) + 1 >= y^2 2^30, U = mulhi(w, Y2) + 3
 *     >= w'y^2 2^30, Z = 3 2^30 - U <= (3 - w'y^2) 2^30 and 2 mulhi(y, Z) below y (3 - w'y^2) / 2, which is at
 *     most 1/sqrt(w') for every y: e = 1 - w'y^2 is then about 3 e0^2 / 4 < 2^-9, and e >= 0 from here on;
 *   steps 2 and 3, y + y e / 2: E = 2^62 - (w + 2) Y2 <= e 2^62 (E < 0 only from Y2's rounding up, by less
 *     than 2^32, where e is below 2^-30 already: then no step), below 2^(62-k) (k = 8, then 16), and
 *     mulhi(y, E >> (31 - k)) >> k <= y e / 2 (truncated): y (1 + e/2) stays at most 1/sqrt(w') (w'y^2 (1 +
 *     e/2)^2 = (1 - e) (1 + e/2)^2 = 1 - 3e^2/4 - e^3/4), and e' is 3e^2/4 plus the truncations, about 2^-30. */
RAID_F64_FN RaidU32 raidF64Rsqrt31(RaidU32 v)
{
    const RaidU32 w = v << 1;
    const int high = (int)(w >> 31);
    RaidU32 y = (high ? 3839115466u : 1134361863u) - RAID_MUL_HI(high ? w : w << 1, high ? 1739433408u : 2459930317u);
    RaidU32 y2 = RAID_MUL_HI(y, y) + 1u;
    y = RAID_MUL_HI(y, 0xC0000000u - (RAID_MUL_HI(w, y2) + 3u)) << 1;
    y2 = RAID_MUL_HI(y, y) + 1u;
    RaidI64 e = (RaidI64)(((RaidU64)1 << 62) - ((RaidU64)w * y2 + 2 * (RaidU64)y2));
    y += RAID_MUL_HI(y, (RaidU32)((RaidU64)(e < 0 ? 0 : e) >> 23)) >> 8;
    y2 = RAID_MUL_HI(y, y) + 1u;
    e = (RaidI64)(((RaidU64)1 << 62) - ((RaidU64)w * y2 + 2 * (RaidU64)y2));
    y += RAID_MUL_HI(y, (RaidU32)((RaidU64)(e < 0 ? 0 : e) >> 15)) >> 16;
    return y;
}

/* floor(x u 2^-n) for x < 2^32, u < 2^64, 32 <= n < 64, where x u 2^-32 < 2^64 - 2^32: the 96-bit product
 * from two 32 x 64-bit halves (floor(floor(z 2^-32) 2^-(n-32)) = floor(z 2^-n)). Cheaper on a GPU than a full
 * RAID_MUL_HI64. */
RAID_F64_FN RaidU64 raidF64MulShift32x64(RaidU32 x, RaidU64 u, int n)
{
    const RaidU64 lo = (RaidU64)x * (RaidU32)u, hi = (RaidU64)x * (RaidU32)(u >> 32);
    return (hi + (lo >> 32)) >> (n - 32);
}

/* q_est, equal to q = floor(A 2^54 / B) or one less, for B in [2^52, 2^53) and A in [B, 2B) (q in [2^54,
 * 2^55)). Let R = 2^116 / B in (2^63, 2^64], the reciprocal 2^127 / D of D = B 2^11, so that the quotient is
 * q* = A 2^54 / B = 4A R 2^-64.
 *   x = raidF64Recip31(B >> 22): B 2^-53 lies in [v, v + 1) 2^-31, so e = 1 - x B 2^-84 is in (0, 2^-29.51).
 *   One Newton step in 64 bits: E = 2^84 - x B = e 2^84 is below 2^54.5, so it is the wrapped 0 - x B; X =
 *     x 2^32 + floor(x E 2^-52), the exact step x 2^32 (1 + e) = R (1 - e^2) less under one unit: e' = 1 - X / R
 *     lies in [e^2, e^2 + 1/R) with 1/R < 2^-63, so 0 < e' < 2^-58.93, and X < R <= 2^64 fits.
 *   q_est = mulhi(4A, X) (4A < 2^56) is at most q* and below it by less than q* e' + 1 < 2^55 2^-58.93 + 1
 *     < 1.07: q - q_est is 0 or 1. */
RAID_F64_FN RaidU64 raidF64DivEstimate(RaidU64 A, RaidU64 B)
{
    const RaidU32 x = raidF64Recip31((RaidU32)(B >> 22));
    const RaidU64 X = ((RaidU64)x << 32) + raidF64MulShift32x64(x, (RaidU64)0 - B * x, 52);
    return RAID_MUL_HI64(A << 2, X);
}

/* a / b. The significands A, B (A in [B, 2B) after one shift) and q = floor(A 2^54 / B), 55 bits: the
 * estimate of raidF64DivEstimate is q or q - 1, so the remainder A 2^54 - q_est B lies in [0, 2B) (below
 * 2^54): the wrapped (A << 54) - q_est B is exact, and one subtraction of B where it is B or more makes q and
 * the remainder exact; a non-zero remainder is the sticky bit. */
RAID_F64_FN RaidU64 raidF64Div(RaidU64 a, RaidU64 b)
{
    const RaidU64 ma = a & ~RAID_F64_SIGN, mb = b & ~RAID_F64_SIGN, sign = (a ^ b) & RAID_F64_SIGN;
    if (ma > RAID_F64_INF || mb > RAID_F64_INF)
        return raidF64PropagateNan(a, b);
    if (ma == RAID_F64_INF)
        return mb == RAID_F64_INF ? RAID_F64_DEFAULT_NAN : sign | RAID_F64_INF; /* inf / inf: invalid */
    if (mb == RAID_F64_INF)
        return sign;
    if (mb == 0)
        return ma == 0 ? RAID_F64_DEFAULT_NAN : sign | RAID_F64_INF; /* 0 / 0 invalid; x / 0 = inf */
    if (ma == 0)
        return sign;
    int ea, eb;
    RaidU64 sa = raidF64Unpack(a, &ea);
    const RaidU64 sb = raidF64Unpack(b, &eb);
    int e = ea - eb + 1023;
    if (sa < sb) { /* the quotient's leading bit first: sa in [sb, 2 sb) */
        sa <<= 1;
        e--;
    }
    RaidU64 q = raidF64DivEstimate(sa, sb);
    RaidU64 r = (sa << 54) - q * sb;
    if (r >= sb) {
        r -= sb;
        q++;
    }
    /* q has its leading bit at 54: bits 62..8 of m, the remainder's sticky bit at 0 */
    return raidF64RoundPack(sign, e, (q << 8) | (r != 0));
}

/* root_est, equal to root = floor(sqrt(s 2^56)) or one less, for s in [2^52, 2^54) (root in [2^54, 2^55)).
 * Let root* = sqrt(s 2^56) = sqrt(s) 2^28.
 *   y = raidF64Rsqrt31(s >> 23): s 2^-54 lies in [v, v + 1) 2^-31, so y = (1 - ey) 2^58 / sqrt(s) with ey in
 *     [0, 2^-29.53).
 *   r0 = mulhi(w, y), w = s >> 22 (w >= s 2^-22 (1 - 2^-30)), at most root* 2^-24 (>= 2^30) and above
 *     root* 2^-24 (1 - ey) (1 - 2^-30) - 1: delta = root* - r0 2^24 lies in [0, root* (ey + 2^-29)),
 *     below root* 2^-28.24.
 *   One Newton step on the root: rho = s 2^8 - r0^2 = (root*^2 - (r0 2^24)^2) 2^-48 exactly (both terms
 *     below 2^62, rho >= 0, rho < 2^35), c = floor(rho y 2^-39) = floor((1 - ey) rho 2^48 / (2 root*)), and
 *     root* - (r0 2^24 + c) = delta^2 / (2 root*) + ey (delta - delta^2 / (2 root*)) + (c's truncation)
 *     lies in [0, root* (2^-57.49 + 2^-29.53 2^-28.24) + 1) = [0, 1.33): root - root_est is 0 or 1. */
RAID_F64_FN RaidU64 raidF64SqrtEstimate(RaidU64 s)
{
    const RaidU32 w = (RaidU32)(s >> 22), y = raidF64Rsqrt31((RaidU32)(s >> 23)), r0 = RAID_MUL_HI(w, y);
    const RaidU64 rho = (s << 8) - (RaidU64)r0 * r0;
    return ((RaidU64)r0 << 24) + raidF64MulShift32x64(y, rho, 39);
}

/* sqrt(a): s made an even power's significand (s in [2^52, 2^54)) and root = floor(sqrt(s 2^56)), 55 bits:
 * the estimate of raidF64SqrtEstimate is root or root - 1, so the remainder s 2^56 - root_est^2 lies in
 * [0, 4 root) (below 2^57): the wrapped (s << 56) - root_est^2 is exact, and one step root_est + 1 where the
 * remainder is more than 2 root_est ((root_est + 1)^2 - root_est^2 - 1) makes the root and the remainder
 * exact; a non-zero remainder is the sticky bit. */
RAID_F64_FN RaidU64 raidF64Sqrt(RaidU64 a)
{
    const RaidU64 ma = a & ~RAID_F64_SIGN;
    if (ma > RAID_F64_INF)
        return a | RAID_F64_QUIET;
    if (ma == 0)
        return a; /* sqrt(-0) = -0 */
    if (a & RAID_F64_SIGN)
        return RAID_F64_DEFAULT_NAN; /* negative, -inf included: invalid */
    if (ma == RAID_F64_INF)
        return a;
    int ea;
    RaidU64 s = raidF64Unpack(a, &ea); /* a = s 2^(ea - 1075) */
    int x2 = ea - 1075;
    if (x2 & 1) { /* an even power of two: s 2^x2 = (2 s) 2^(x2 - 1) */
        s <<= 1;
        x2--;
    }
    RaidU64 root = raidF64SqrtEstimate(s);
    RaidU64 rem = (s << 56) - root * root;
    if (rem > 2 * root) {
        rem -= 2 * root + 1;
        root++;
    }
    /* a = root^2 2^(x2 - 56) + rem 2^(x2 - 56): the root is root 2^(x2/2 - 28) = (root 2^8) 2^(e - 1085) */
    return raidF64RoundPack(0, x2 / 2 + 1049, (root << 8) | (rem != 0));
}

/* ---- sign, order and rounding to integers: bit operations only, no rounding error ---- */

/* -a: the sign bit flipped, NaNs included (numpy.negative). */
RAID_F64_FN RaidU64 raidF64Neg(RaidU64 a) { return a ^ RAID_F64_SIGN; }

/* |a|: the sign bit cleared, NaNs included (numpy.absolute). */
RAID_F64_FN RaidU64 raidF64Abs(RaidU64 a) { return a & ~RAID_F64_SIGN; }

/* |a| with b's sign (copysign; NaNs included). */
RAID_F64_FN RaidU64 raidF64Copysign(RaidU64 a, RaidU64 b) { return (a & ~RAID_F64_SIGN) | (b & RAID_F64_SIGN); }

/* a < b for values that are not NaNs, -0 == +0 (IEEE's compareQuietLess on non-NaNs). */
RAID_F64_FN int raidF64LessNoNan(RaidU64 a, RaidU64 b)
{
    const int na = (int)(a >> 63), nb = (int)(b >> 63);
    if (na != nb) /* different signs: a below b when a is the negative one, unless both are zeros */
        return na && ((a | b) & ~RAID_F64_SIGN) != 0;
    return na ? a > b : a < b; /* one sign: the magnitudes order as the bits (reversed below zero) */
}

/* numpy's minimum and maximum: a NaN a is returned, else a when it is below (above) b, else b: so a NaN b is
 * returned, and of -0 and +0 the second (the x86-64 MINSD/MAXSD rule numpy's loops follow). The NaN is
 * returned as it is (a selection, not an arithmetic operation). */
RAID_F64_FN RaidU64 raidF64Minimum(RaidU64 a, RaidU64 b)
{
    if (raidF64IsNan(a))
        return a;
    if (raidF64IsNan(b))
        return b;
    return raidF64LessNoNan(a, b) ? a : b;
}
RAID_F64_FN RaidU64 raidF64Maximum(RaidU64 a, RaidU64 b)
{
    if (raidF64IsNan(a))
        return a;
    if (raidF64IsNan(b))
        return b;
    return raidF64LessNoNan(b, a) ? a : b;
}

/* a rounded to an integral value: mode 0 toward zero (trunc), 1 toward -inf (floor), 2 toward +inf (ceil),
 * 3 to nearest, ties to even (rint in the default rounding mode). The sign of a zero result is a's
 * (floor(-0.5) = -1, ceil(-0.5) = -0, rint(0.5) = +0); a NaN is made quiet (as the host's roundsd), an
 * infinity or a value of 2^52 or more is itself. The integral part is a with the fraction bits below the
 * binary point cleared; one unit at that point is added in integers where the mode rounds the magnitude up
 * (a carry into the exponent field is the right result). */
RAID_F64_FN RaidU64 raidF64RoundInt(RaidU64 a, int mode)
{
    const RaidU64 m = a & ~RAID_F64_SIGN, sign = a & RAID_F64_SIGN;
    if (m > RAID_F64_INF)
        return a | RAID_F64_QUIET;
    const int e = (int)(m >> 52) - 1023; /* the unbiased exponent */
    if (e >= 52)
        return a;
    if (e < 0) { /* |a| < 1: 0 or 1 with a's sign */
        int up = 0;
        if (m != 0)
            up = mode == 1 ? sign != 0 : mode == 2 ? sign == 0 : mode == 3 ? m > ((RaidU64)0x3FE << 52) : 0;
        return sign | (up ? (RaidU64)0x3FF << 52 : 0);
    }
    const RaidU64 unit = (RaidU64)1 << (52 - e), frac = m & (unit - 1);
    int up = 0;
    if (frac != 0) {
        if (mode == 1)
            up = sign != 0;
        else if (mode == 2)
            up = sign == 0;
        else if (mode == 3)
            up = frac > unit / 2 || (frac == unit / 2 && ((m >> (52 - e)) & 1)); /* half: to even */
    }
    return sign | ((m - frac) + (up ? unit : 0));
}

/* IEEE 754's quiet comparisons (5.11; C's == != < <= > >=, numpy's equal ... greater_equal): a NaN is
 * unordered, so every predicate but != is false for it; -0 == +0. cmp: 1 ==, 2 !=, 3 <, 4 <=, 5 >, 6 >=,
 * and of a alone 7 isnan, 8 isinf, 9 isfinite. 1 or 0. */
RAID_F64_FN int raidF64Compare(RaidU64 a, RaidU64 b, int cmp)
{
    const int nan = raidF64IsNan(a) || (cmp <= 6 && raidF64IsNan(b));
    const RaidU64 ma = a & ~RAID_F64_SIGN;
    const int eq = !nan && (a == b || (ma | (b & ~RAID_F64_SIGN)) == 0);
    switch (cmp) {
    case 1: return eq;
    case 2: return !eq;
    case 3: return !nan && raidF64LessNoNan(a, b);
    case 4: return !nan && (eq || raidF64LessNoNan(a, b));
    case 5: return !nan && raidF64LessNoNan(b, a);
    case 6: return !nan && (eq || raidF64LessNoNan(b, a));
    case 7: return raidF64IsNan(a);
    case 8: return ma == RAID_F64_INF;
    default: return ma < RAID_F64_INF;
    }
}

RAID_F64_FN RaidU64 raidF64Trunc(RaidU64 a) { return raidF64RoundInt(a, 0); }
RAID_F64_FN RaidU64 raidF64Floor(RaidU64 a) { return raidF64RoundInt(a, 1); }
RAID_F64_FN RaidU64 raidF64Ceil(RaidU64 a) { return raidF64RoundInt(a, 2); }
RAID_F64_FN RaidU64 raidF64Rint(RaidU64 a) { return raidF64RoundInt(a, 3); }

#endif
