"""The correctly rounded binary64 value of a function, from MPFR (gmpy2): the oracle of RAID's binary64
elementary functions (kernels/raid_f64_*.h).

round_binary64(v) rounds an exact or very precise mpfr value to binary64 in one step (nearest even,
subnormals, overflow to infinity) from its integer significand and exponent. Two routes round twice below
2^-1022 and were seen to give the wrong neighbour (0x8006aae6c75635b8 for ...5b7): adding 0 in gmpy2's
ieee(64) context, and abs(v) or -v in the default 53-bit context before rounding to the subnormal grid.

correctly_rounded(f, *args) evaluates f (a gmpy2 function) at increasing precisions (Ziv's strategy) until
two agree on the rounded result, and returns the bits. An exact result (e.g. log(1) = 0) is met at the first
precision and stays.
"""
import struct

import gmpy2
from gmpy2 import mpfr


def bits_of(x):
    """The binary64 bits of a Python float."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    """The Python float of binary64 bits."""
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def round_binary64(v):
    """v (an mpfr, finite or not) rounded to the nearest binary64, ties to even; its bits."""
    if gmpy2.is_nan(v):
        return 0x7FF8000000000000
    sign = (1 << 63) if gmpy2.is_signed(v) else 0
    if gmpy2.is_infinite(v):
        return sign | 0x7FF0000000000000
    if gmpy2.is_zero(v):
        return sign
    m, e = v.as_mantissa_exp()  # v = m 2^e exactly, m an integer (never abs(v) or -v: they round to the
    m, e = abs(int(m)), int(e)  # context's precision, 53 bits by default, and this would round twice)
    # the binary64 exponent of |v|: 2^k <= |v| < 2^(k+1); the unit of the last place 2^(max(k, -1022) - 52)
    k = m.bit_length() - 1 + e
    q = max(k, -1022) - 52
    if e >= q:
        n = m << (e - q)
    else:
        s = q - e
        n, rem = m >> s, m & ((1 << s) - 1)
        half = 1 << (s - 1)
        if rem > half or (rem == half and n & 1):
            n += 1
    # n 2^q: renormalise a carry into the next binade
    if n >> 53:
        n >>= 1
        q += 1
    if n >> 52:  # normal
        be = q + 52 + 1023
        if be >= 2047:
            return sign | 0x7FF0000000000000
        return sign | (be << 52) | (n & ((1 << 52) - 1))
    return sign | n  # subnormal (q == -1074), or zero when everything rounded away


def correctly_rounded(f, *args, start=256, limit=1 << 14):
    """The bits of f(*args) rounded to binary64, with args given as Python floats (exact)."""
    prec = start
    prev = None
    while prec <= limit:
        with gmpy2.context(gmpy2.get_context(), precision=prec, emin=-(1 << 30), emax=1 << 30):
            r = round_binary64(f(*[mpfr(a, 53) if isinstance(a, float) else a for a in args]))
        if r == prev:
            return r
        prev = r
        prec *= 2
    raise ArithmeticError(f"no agreement on {f.__name__}{args} up to {limit} bits")


def ulp_distance(a_bits, b_bits):
    """How many binary64 values apart two finite results are (0 for equal values, +0 and -0 included)."""
    def key(b):
        return -(b & ~(1 << 63)) if b >> 63 else b
    return abs(key(a_bits) - key(b_bits))
