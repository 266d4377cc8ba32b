#!/usr/bin/env python3
"""Writes src/core/fastlog_tables.h: the tables of the host's fast log and log1p (src/core/fastlog.c).

The reduction (fastlog.c's contract comment): y = 2^e m with m in [RN(sqrt 2)/2, RN(sqrt 2)), the index
j = (bits of m) >> 43 (the exponent's last bit and 9 bits of the fraction: 2^-9 relative), and for each j
  r_j = R 2^-k, R an integer, k = 10 for m >= 1 and 9 for m < 1 (10 significant bits at most), chosen so that
        z = r_j m - 1 is a binary64 (computed exactly by one fma) for every binary64 m of the entry, with
        |z| as small as that allows;
  -ln r_j = l1_j + l2_j, l1_j a multiple of 2^-42 (so that e ln2_h + l1_j is exact), l2_j = RN(-ln r_j - l1_j);
  ln 2 = ln2_h + ln2_l the same way; the coefficients RN((-1)^(j+1) / j), j = 3 .. 9, of
        log1p(z) = z - z^2/2 + z^3 (1/3 - z/4 + ... + z^6/9) + O(z^10).
The generator checks what the error bound of fastlog.c rests on (exact z for every m of every entry, the
largest |z|, |l1 + l2 + ln r| <= 2^-97, |ln2_h + ln2_l - ln 2| <= 2^-97) and writes the largest |z|.
Every double is written as a C99 hexadecimal literal (exact). tests/python/test_f64_tables.py runs this
script again and compares its output with the committed header byte for byte.
"""
import argparse
import os
import struct
import sys

import gmpy2
from gmpy2 import mpfr

PREC = 1024
SQRT2_BITS = 0x3FF6A09E667F3BCD  # RN(sqrt 2) = 0x1.6a09e667f3bcdp+0 > sqrt 2: m >= it moves to m/2
NCOEF_FIRST, NCOEF_LAST = 3, 9


def bits_of(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def double_of(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def rn(v):
    """The binary64 nearest the mpfr v (ties to even), as a Python float."""
    with gmpy2.context(gmpy2.ieee(64)):
        return float(+v)


def best_r(blo, bhi):
    """R and k of the entry whose m have the bits blo .. bhi (one binade): the R minimising max|r m - 1| among
    those for which r m - 1 is a binary64 at both ends (z is linear in m, so everywhere between)."""
    ex = (blo >> 52) - 1023  # 0: m in [1, 2), -1: m in [1/2, 1)
    assert ex == (bhi >> 52) - 1023 and ex in (0, -1)
    k = 10 if ex == 0 else 9
    f = 52 - ex  # m = M 2^-f, M the 53-bit significand
    mlo = (blo & ((1 << 52) - 1)) | (1 << 52)
    mhi = (bhi & ((1 << 52) - 1)) | (1 << 52)
    one = 1 << (f + k)  # r m = R M 2^-(f + k)
    centre = (mlo + mhi) / 2
    r0 = round(one / centre)
    best = None
    for big_r in range(r0 - 4, r0 + 5):
        ns = [big_r * mlo - one, big_r * mhi - one]  # z = N 2^-(f + k)
        if max(abs(n) for n in ns) > 1 << 53:  # |N| <= 2^53: z is a binary64
            continue
        zmax = max(abs(n) for n in ns) / 2 ** (f + k)
        if best is None or zmax < best[2]:
            best = (big_r, k, zmax)
    assert best is not None, hex(blo)
    assert best[0] < 1 << 11
    return best


def split42(v):
    """v = h + l: h the multiple of 2^-42 nearest v (exact in binary64 where |v| < 2^11), l = RN(v - h)."""
    h = mpfr(int(gmpy2.rint(v * mpfr(2) ** 42))) * mpfr(2) ** -42
    hd = rn(h)
    assert mpfr(hd) == h
    ld = rn(v - h)
    err = abs(v - mpfr(hd) - mpfr(ld))
    assert err <= mpfr(2) ** -97, (v, err)
    return hd, ld


def build():
    lo_bits, hi_bits = SQRT2_BITS - (1 << 52), SQRT2_BITS - 1  # m in [RN(sqrt2)/2, RN(sqrt2))
    j0, j1 = lo_bits >> 43, hi_bits >> 43
    rs, l1s, l2s = [], [], []
    zmax_all = 0.0
    for j in range(j0, j1 + 1):
        blo = max(j << 43, lo_bits)
        bhi = min(((j + 1) << 43) - 1, hi_bits)
        big_r, k, zmax = best_r(blo, bhi)
        zmax_all = max(zmax_all, zmax)
        r = mpfr(big_r) * mpfr(2) ** -k
        rd = rn(r)
        assert mpfr(rd) == r
        l1, l2 = split42(-gmpy2.log(r))
        assert abs(l1) < 0.35 and abs(l2) <= 2.0 ** -43
        rs.append(rd)
        l1s.append(l1)
        l2s.append(l2)
    ln2_h, ln2_l = split42(gmpy2.log(mpfr(2)))
    coef = [rn(mpfr((-1) ** (j + 1)) / j) for j in range(NCOEF_FIRST, NCOEF_LAST + 1)]
    zmax_d = rn(mpfr(zmax_all))
    assert zmax_d >= zmax_all or mpfr(zmax_d) >= mpfr(zmax_all)
    assert zmax_all < 2.0 ** -9
    out = []
    out.append(f"#define RAID_FASTLOG_J0 {j0} /* the index (bits of m) >> 43 of entry 0 */\n")
    out.append(f"#define RAID_FASTLOG_NTAB {j1 - j0 + 1} /* entries */\n")
    out.append(f"#define RAID_FASTLOG_ZMAX {zmax_d.hex()} /* the largest |z| = |r m - 1| of any entry ({zmax_d:.6g}) */\n\n")
    out.append("/* r_j (at most 10 significant bits), l1_j, l2_j: -ln r_j = l1_j + l2_j to 2^-97, l1_j a multiple of 2^-42 */\n")
    out.append("static const double fastlog_tab[RAID_FASTLOG_NTAB][3] = {\n")
    for r, a, b in zip(rs, l1s, l2s):
        out.append(f"    {{{r.hex()}, {a.hex()}, {b.hex()}}},\n")
    out.append("};\n\n")
    out.append("/* ln 2 = ln2_h + ln2_l to 2^-97, ln2_h a multiple of 2^-42 */\n")
    out.append(f"static const double fastlog_ln2_h = {ln2_h.hex()}, fastlog_ln2_l = {ln2_l.hex()};\n\n")
    out.append(f"/* RN((-1)^(j+1) / j), j = {NCOEF_FIRST} .. {NCOEF_LAST}: log1p(z) = z - z^2/2 + z^3 (c_3 + c_4 z + ... + c_9 z^6) */\n")
    out.append("static const double fastlog_c[7] = {" + ", ".join(c.hex() for c in coef) + "};\n")
    return "".join(out)


def header_text(body):
    return ("/*\n * fastlog_tables.h -- the tables of the host's fast log and log1p (src/core/fastlog.c)\n *\n"
            f" * Generated by scripts/gen_fastlog.py (MPFR through gmpy2, {PREC}-bit working precision): do not edit;\n"
            " * run the script again (tests/python/test_f64_tables.py checks that it reproduces this file).\n */\n"
            "#ifndef RAID_CORE_FASTLOG_TABLES_H\n#define RAID_CORE_FASTLOG_TABLES_H\n\n"
            f"{body}\n#endif /* RAID_CORE_FASTLOG_TABLES_H */\n")


def main():
    ap = argparse.ArgumentParser(description="the tables of the host's fast log and log1p (src/core/fastlog.c)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--output", default=os.path.join(root, "src", "core", "fastlog_tables.h"))
    args = ap.parse_args()
    with gmpy2.context(gmpy2.get_context(), precision=PREC):
        text = header_text(build())
    with open(args.output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
