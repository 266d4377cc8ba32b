/*
 * raid_wide.h -- the working precision of RAID's binary64 elementary functions (raid_f64_*.h): a binary
 * floating-point value with a 128-bit significand on integer words, and its rounding to binary64 with a
 * rounding test.
 *
 * RaidWide {hi, lo, e, neg} is (-1)^neg (hi 2^64 + lo) 2^(e - 128), normalised: bit 63 of hi is set, so the
 * value lies in [2^(e-1), 2^e). Zero is hi = lo = 0 (e, neg then unused). The exponent is an int with no
 * range limit of its own: every value met in the functions of raid_f64_*.h is far inside int's range.
 * Values are finite; infinities and NaNs are dealt with by each function before it reaches this format.
 *
 * Error of each operation (the functions' error budgets are built from these; ulp128(x) = 2^(e - 128) for
 * the larger operand's e):
 *   raidWideMul   |result - a b| < 2^-127 (1 + 2^-60) |a b|   (the 256-bit product's words below the
 *                 result dropped: less than one unit of its last place, 2^-127 of a significand of at
 *                 least 2^127 units, plus the low word of lo*lo; truncation: the magnitude is never too large)
 *   raidWideAdd   same signs: |result - (a + b)| < 2^-126 |a + b|;
 *                 opposite signs: |result - (a + b)| < ulp128 of the larger operand (cancellation makes this
 *                 a larger relative error: callers avoid sums that cancel, or bound them)
 *   raidWideRecip |result - 1/b| < 2^-124 |1/b|;  raidWideDiv < 2^-123 relative
 *   raidWideSqrt  |result - sqrt(a)| < 2^-123 sqrt(a)
 *   raidWideFromF64, raidWideFromI64, raidWideLdexp, raidWideNeg: exact.
 * raidWideToF64 rounds to nearest even (subnormals and overflow to infinity included) and reports whether
 * the rounding is certain given the caller's error bound (CORE-MATH's rounding test): every function of
 * raid_f64_*.h that claims correct rounding states its bound and the worst cases it was tested on.
 *
 * One source for host C, OpenCL C and CUDA, in the dialect of raid_compat.h; no floating type is used.
 *
 * Sources:
 *   Muller, J.-M. et al. Handbook of Floating-Point Arithmetic, 2nd ed. (2018): 2.6 (Newton-Raphson
 *     division and square root), 12 (correct rounding of elementary functions: Ziv's rounding test).
 *   Sibidanov, A., Zimmermann, P., Glondu, S. The CORE-MATH Project (ARITH 2022).
 */
#ifndef RAID_WIDE_H
#define RAID_WIDE_H

#ifndef RAID_COMPAT_H /* host C */
#include "raid_compat.h"
#endif
#ifndef RAID_F64_H
#include "raid_f64.h"
#endif

typedef struct {
    RaidU64 hi, lo; /* the significand, bit 63 of hi set (or both zero: the value zero) */
    int e;          /* the value is in [2^(e-1), 2^e) */
    int neg;        /* 1 for a negative value */
} RaidWide;

/* The value (-1)^neg (hi 2^64 + lo) 2^(e - 128), normalised (any hi, lo; zero stays zero). */
RAID_FN RaidWide raidWideMake(RaidU64 hi, RaidU64 lo, int e, int neg)
{
    RaidWide r;
    r.neg = neg;
    if (!hi) { /* a whole word of shift first */
        hi = lo;
        lo = 0;
        e -= 64;
    }
    if (!hi) {
        r.hi = r.lo = 0;
        r.e = 0;
        return r;
    }
    const int s = RAID_CLZ64(hi);
    if (s) {
        hi = (hi << s) | (lo >> (64 - s));
        lo <<= s;
        e -= s;
    }
    r.hi = hi;
    r.lo = lo;
    r.e = e;
    return r;
}

RAID_FN RaidWide raidWideZero(void) { return raidWideMake(0, 0, 0, 0); }

RAID_FN int raidWideIsZero(RaidWide a) { return a.hi == 0; }

/* An entry of a generated table (scripts/f64_tables.py): hi, lo and meta = neg 2^63 + (e + 2^30). */
RAID_FN RaidWide raidWideWords(RaidU64 hi, RaidU64 lo, RaidU64 meta)
{
    RaidWide r;
    r.hi = hi;
    r.lo = lo;
    r.e = (int)(meta & 0xFFFFFFFFu) - (1 << 30);
    r.neg = (int)(meta >> 63);
    return r;
}

/* A finite binary64 x (its bits), exactly. */
RAID_FN RaidWide raidWideFromF64(RaidU64 x)
{
    if (!(x & ~RAID_F64_SIGN))
        return raidWideMake(0, 0, 0, (int)(x >> 63));
    int be;
    const RaidU64 s = raidF64Unpack(x, &be); /* x = s 2^(be - 1075), bit 52 of s set */
    RaidWide r;
    r.hi = s << 11;
    r.lo = 0;
    r.e = be - 1022;
    r.neg = (int)(x >> 63);
    return r;
}

/* The integer k, exactly. */
RAID_FN RaidWide raidWideFromI64(RaidI64 k)
{
    const int neg = k < 0;
    return raidWideMake(0, neg ? (RaidU64)0 - (RaidU64)k : (RaidU64)k, 128, neg);
}

RAID_FN RaidWide raidWideNeg(RaidWide a)
{
    a.neg ^= 1;
    return a;
}

/* a 2^k. */
RAID_FN RaidWide raidWideLdexp(RaidWide a, int k)
{
    if (a.hi)
        a.e += k;
    return a;
}

/* a b, truncated (error below 2^-127 (1 + 2^-60) relative). */
RAID_FN RaidWide raidWideMul(RaidWide a, RaidWide b)
{
    if (!a.hi || !b.hi)
        return raidWideMake(0, 0, 0, a.neg ^ b.neg);
    RaidU64 hh1, hh0, hl1, hl0, lh1, lh0, ll1, ll0;
    raidF64Mul128(a.hi, b.hi, &hh1, &hh0);
    raidF64Mul128(a.hi, b.lo, &hl1, &hl0);
    raidF64Mul128(a.lo, b.hi, &lh1, &lh0);
    raidF64Mul128(a.lo, b.lo, &ll1, &ll0);
    /* the words w3 w2 w1 of the 256-bit product (w0, below 2^64 units, dropped with ll0) */
    RaidU64 w1 = hl0 + lh0;
    RaidU64 c = w1 < hl0;
    w1 += ll1;
    c += w1 < ll1;
    RaidU64 w2 = hh0 + hl1;
    RaidU64 c2 = w2 < hh0;
    w2 += lh1;
    c2 += w2 < lh1;
    w2 += c;
    c2 += w2 < c;
    RaidU64 w3 = hh1 + c2;
    RaidWide r;
    r.neg = a.neg ^ b.neg;
    r.e = a.e + b.e;
    if (!(w3 >> 63)) { /* product in [2^254, 2^255): one place left */
        w3 = (w3 << 1) | (w2 >> 63);
        w2 = (w2 << 1) | (w1 >> 63);
        r.e--;
    }
    r.hi = w3;
    r.lo = w2;
    return r;
}

/* |a| < |b|. */
RAID_FN int raidWideLessAbs(RaidWide a, RaidWide b)
{
    if (!a.hi || !b.hi)
        return !a.hi && b.hi;
    if (a.e != b.e)
        return a.e < b.e;
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/* a + b, the smaller operand aligned by a truncating shift. */
RAID_FN RaidWide raidWideAdd(RaidWide a, RaidWide b)
{
    if (!b.hi)
        return a;
    if (!a.hi)
        return b;
    if (raidWideLessAbs(a, b)) {
        const RaidWide t = a;
        a = b;
        b = t;
    }
    const int d = a.e - b.e;
    RaidU64 bh = b.hi, bl = b.lo;
    if (d >= 128)
        bh = bl = 0;
    else if (d >= 64) {
        bl = bh >> (d - 64);
        bh = 0;
    } else if (d > 0) {
        bl = (bl >> d) | (bh << (64 - d));
        bh >>= d;
    }
    if (a.neg == b.neg) {
        RaidU64 lo = a.lo + bl;
        RaidU64 hi = a.hi + bh + (lo < bl);
        const int carry = hi < a.hi || (hi == a.hi && (bh | (lo < bl)) != 0);
        if (carry) { /* the sum reached 2^128: one place right, the carry as the new top bit */
            lo = (lo >> 1) | (hi << 63);
            hi = (hi >> 1) | ((RaidU64)1 << 63);
            a.e++;
        }
        a.hi = hi;
        a.lo = lo;
        return a;
    }
    const RaidU64 lo = a.lo - bl;
    const RaidU64 hi = a.hi - bh - (a.lo < bl);
    return raidWideMake(hi, lo, a.e, a.neg);
}

RAID_FN RaidWide raidWideSub(RaidWide a, RaidWide b) { return raidWideAdd(a, raidWideNeg(b)); }

/* 1/b for b != 0: a 32-bit seed by integer division, three Newton-Raphson steps r += r (1 - b r) (error
 * 2^-30 -> 2^-60 -> 2^-120 -> the arithmetic's), below 2^-124 relative. */
RAID_FN RaidWide raidWideRecip(RaidWide b)
{
    const RaidU64 d = b.hi >> 32;                 /* b = d 2^(e - 32) (1 + < 2^-31), d in [2^31, 2^32) */
    const RaidU64 q = ~(RaidU64)0 / d;            /* in (2^32, 2^33]: 2^64 / d (1 - < 2^-32) */
    RaidWide r = raidWideLdexp(raidWideFromI64((RaidI64)q), -32 - b.e); /* q 2^(-32 - e) */
    r.neg = b.neg;
    const RaidWide one = raidWideFromI64(1);
    for (int i = 0; i < 3; i++)
        r = raidWideAdd(r, raidWideMul(r, raidWideSub(one, raidWideMul(b, r))));
    return r;
}

/* a / b for b != 0. */
RAID_FN RaidWide raidWideDiv(RaidWide a, RaidWide b) { return raidWideMul(a, raidWideRecip(b)); }

/* sqrt(a) for a >= 0: a = a' 4^k with a' in [1, 4), y ~ 1/sqrt(a') from binary64 (53 bits, raid_f64.h's
 * correctly rounded sqrt and division), two steps y += y (1 - a' y^2) / 2 (2^-52 -> 2^-104 -> the
 * arithmetic's), then a' y 2^k. */
RAID_FN RaidWide raidWideSqrt(RaidWide a)
{
    if (!a.hi)
        return a;
    const int k = (a.e - 1) >> 1; /* floor((e - 1) / 2): a' = a 4^-k has e' = e - 2k in {1, 2} */
    a.e -= 2 * k;
    const RaidU64 top = ((RaidU64)(a.e - 1 + 1023) << 52) | ((a.hi >> 11) & RAID_F64_FRAC); /* a' in [1, 4) */
    const RaidU64 one64 = (RaidU64)1023 << 52;
    RaidWide y = raidWideFromF64(raidF64Div(one64, raidF64Sqrt(top)));
    const RaidWide one = raidWideFromI64(1);
    for (int i = 0; i < 2; i++) {
        const RaidWide t = raidWideSub(one, raidWideMul(a, raidWideMul(y, y)));
        y = raidWideAdd(y, raidWideLdexp(raidWideMul(y, t), -1));
    }
    return raidWideLdexp(raidWideMul(a, y), k);
}

/* a's binary64 value when its significand is M (hi 2^64 + lo, bit 127 set): nearest even, through
 * raid_f64.h's round-and-pack (m = M / 2^65 with the rest as a sticky bit; subnormals, overflow). */
RAID_FN RaidU64 raidWideRoundBits(RaidU64 hi, RaidU64 lo, int e, int neg)
{
    const RaidU64 m = (hi >> 1) | ((hi & 1) | (lo != 0));
    if (e + 1022 < -2000) /* far below the subnormals: zero (and no int overflow in the shift count) */
        return neg ? RAID_F64_SIGN : 0;
    return raidF64RoundPack(neg ? RAID_F64_SIGN : 0, e + 1022, m);
}

/* a rounded to binary64 (nearest even), the value the exact result x rounds to whenever |a - x| <
 * 2^-errbits |a| (65 <= errbits <= 127): *sure is 1 when a (1 - 2^-errbits) and a (1 + 2^-errbits) round to
 * the same binary64, else 0 (then x may lie on the other side of a rounding boundary, or on it). */
RAID_FN RaidU64 raidWideToF64(RaidWide a, int errbits, int *sure)
{
    if (!a.hi) {
        *sure = 1;
        return a.neg ? RAID_F64_SIGN : 0;
    }
    const RaidU64 r = raidWideRoundBits(a.hi, a.lo, a.e, a.neg);
    const RaidU64 delta = (RaidU64)1 << (128 - errbits); /* >= M 2^-errbits in units of M's last bit */
    /* M + delta: may carry into 2^128 (then the value is 2^(e) exactly, significand 2^127 at e + 1) */
    RaidU64 ulo = a.lo + delta, uhi = a.hi + (ulo < delta);
    int ue = a.e;
    if (uhi < a.hi) {
        uhi = (RaidU64)1 << 63;
        ulo = 0;
        ue++;
    }
    /* M - delta: may fall below 2^127 (then one place left) */
    RaidU64 llo = a.lo - delta, lhi = a.hi - (a.lo < delta);
    int le = a.e;
    if (!(lhi >> 63)) {
        lhi = (lhi << 1) | (llo >> 63);
        llo <<= 1;
        le--;
    }
    *sure = raidWideRoundBits(uhi, ulo, ue, a.neg) == r && raidWideRoundBits(lhi, llo, le, a.neg) == r;
    return r;
}

#endif /* RAID_WIDE_H */
