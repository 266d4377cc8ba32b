"""Element-wise IEEE binary64 arithmetic and elementary functions through the library (include/raid/f64.h;
docs/f64.md): raid.add, raid.subtract, raid.multiply, raid.divide, raid.sqrt, raid.negative, raid.absolute,
raid.minimum, raid.maximum, raid.copysign, raid.trunc, raid.floor, raid.ceil, raid.rint, raid.log, raid.log2,
raid.log10, raid.log1p, raid.exp, raid.exp2, raid.exp10, raid.expm1, raid.sinh, raid.cosh, raid.tanh,
raid.sin, raid.cos, raid.tan, raid.arcsin, raid.arccos, raid.arctan, raid.arctan2, raid.power, the
comparisons and raid.eval, on numpy arrays (and the other host kinds of the values rule) or on CUDA arrays
(CuPy, PyTorch, JAX...: read and written in place on their device, the result a CuPy array; docs/python.md
"CUDA arrays"). The arithmetic, the logarithms and the exponentials are correctly rounded (the arithmetic
bit for bit numpy's on x86-64), the hyperbolic and trigonometric functions and the power within 1 ulp
(correctly rounded on every input tested but a few worst cases: docs/f64.md), with the same bits on the cpu
path and on every device, GPUs without float64 included: the device computes binary64 on integer words."""
import numpy as np

from . import _cuda
from ._convert import _pa, floats, is_arrow, nullable_kind, with_nulls
from ._core import check, context, ffi, lib


class _Nulls:
    """The nulls of the operands (pyarrow nulls, pandas NA, masked entries), combined: a result is null where
    any operand is; and the container the result takes: pyarrow for a pyarrow operand, else the first
    nullable operand's kind (masked array, pandas nullable), else a numpy array."""

    def __init__(self):
        self.mask, self.kind = None, None

    def add(self, v, nulls):
        if nulls is not None:
            self.mask = nulls.copy() if self.mask is None else self.mask | nulls
        kind = "pyarrow" if is_arrow(v) else nullable_kind(v)
        if kind == "pyarrow" or (kind is not None and self.kind is None):
            self.kind = kind

    def result(self, r):
        """r (float64 values, or a comparison's bools) in the container of the operands, with their nulls."""
        if self.kind == "pyarrow":
            return _pa().array(r, mask=self.mask)
        if self.kind is None:
            return r
        mask = self.mask if self.mask is not None else np.zeros(r.size, bool)
        if r.dtype == np.bool_ and self.kind != "masked":  # pandas nullable: a BooleanArray
            import pandas as pd
            return pd.arrays.BooleanArray(r, mask)
        return with_nulls(r, mask, self.kind)


def _operand(v, name, nulls, n=None):
    """v as float64 by the values rule (docs/python.md "Inputs"), its nulls recorded in nulls; a scalar is
    repeated n times."""
    if n is not None and np.ndim(v) == 0:
        return np.full(n, floats(np.atleast_1d(v), name)[0])
    a, m = floats(v, name, nulls="mask")
    nulls.add(v, m)
    return a


def _operands(x, y, nulls, names=("x", "y")):
    """x and y (None for a one-operand function) as float64 arrays of one length, either of them possibly a
    scalar repeated; their nulls recorded in nulls."""
    if y is None:
        return _operand(x, names[0], nulls), None
    if np.ndim(x) == 0 and np.ndim(y) != 0:
        b = _operand(y, names[1], nulls)
        a = _operand(x, names[0], nulls, b.size)
    else:
        a = _operand(x, names[0], nulls)
        b = _operand(y, names[1], nulls, a.size)
    if b.size != a.size:
        raise ValueError(f"x has {a.size} elements and y {b.size}")
    return a, b


def _out(out, n):
    """The result array: a new one, or out= (a writeable one-dimensional C-contiguous float64 numpy array of n
    elements, which may be an input)."""
    if out is None:
        return np.empty(n, np.float64)
    if not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.ndim != 1:
        raise TypeError("out must be a one-dimensional float64 numpy array")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be C-contiguous and writeable")
    if out.size != n:
        raise ValueError(f"out has {out.size} elements, the result {n}")
    return out


def _ptr(a):
    return ffi.from_buffer("double[]", a)


class _Device:
    """The CUDA arrays among the operands (read in place on their device: raid_f64_map, raid_f64_compare and
    raid_f64_eval take device memory of a CUDA context). A scalar beside them becomes a device array of the
    same length; a host array beside them is refused (_cuda.spec). The result is a CuPy array on that device
    (out= a CuPy float64 array of the result's length, which may be an operand)."""

    def __init__(self, named, device):
        """named: (name, value) pairs; the CUDA arrays among them as CudaArray, the rest None."""
        self.arrays = {k: _cuda.cuda_array(v, k) for k, v in named if _cuda.is_device(v)}
        self.any = bool(self.arrays)
        if self.any:
            others = [None for k, v in named if k not in self.arrays and np.ndim(v) != 0]
            self.spec, self.ordinal = _cuda.spec(list(self.arrays.values()) + others, device)
            sizes = {a.size for a in self.arrays.values()}
            if len(sizes) > 1:
                first = next(iter(self.arrays))
                k = next(k for k, a in self.arrays.items() if a.size != self.arrays[first].size)
                raise ValueError(f"{k} has {self.arrays[k].size} elements and {first} {self.arrays[first].size}")
            self.n = sizes.pop()
            self.keep = []

    def ptr(self, name, value):
        """The device pointer of operand name: its own memory, or a scalar repeated on the device."""
        if name in self.arrays:
            return self.arrays[name].cdata("double *")
        a = _cuda.empty(self.n, np.float64, self.ordinal, fill=floats(np.atleast_1d(value), name)[0])
        self.keep.append(a)
        return _cuda.pointer(a, "double *")

    def out(self, out, dtype=np.float64):
        if out is None:
            return _cuda.empty(self.n, dtype, self.ordinal)
        o = _cuda.cuda_array(out, "out")
        if o is None or o.size != self.n or o.device != self.ordinal or o.readonly:
            raise ValueError(f"out must be a writeable float64 CUDA array of {self.n} elements on cuda:{self.ordinal} "
                             f"for CUDA operands")
        return out


def _map(op, x, y, device, out, names=("x", "y")):
    """raid_f64_map of op over x (and y), the operands named names in messages."""
    nx, ny = names
    dev = _Device([(nx, x)] + ([(ny, y)] if y is not None else []), device)
    if dev.any:
        ctx = context(dev.spec)
        r = dev.out(out)
        check(lib.raid_f64_map(ctx, op, dev.ptr(nx, x), dev.ptr(ny, y) if y is not None else ffi.NULL,
                               _cuda.pointer(r, "double *"), dev.n), ctx)
        return r
    nulls = _Nulls()
    a, b = _operands(x, y, nulls, names)
    r = _out(out, a.size)
    ctx = context(device)
    check(lib.raid_f64_map(ctx, op, _ptr(a), _ptr(b) if b is not None else ffi.NULL, _ptr(r), a.size), ctx)
    return nulls.result(r)


def add(x, y, device=None, *, out=None):
    """x + y element by element (np.add), correctly rounded: numpy's bits. x, y: one-dimensional arrays of
    equal length, or one a scalar, by the values rule (float64; float32, float16 and integers exact in float64
    converted). Nulls (pyarrow nulls, pandas NA, masked entries) propagate: the result is null where an
    operand is, and it is a pyarrow array for a pyarrow operand, else of the first nullable operand's kind
    (masked array, pandas nullable), else a numpy array. out: None or a float64 array for the result (may be
    x or y). device: as raid.context (None: $RAID_DEVICE or auto). Errors: ValueError, TypeError
    (arguments), RaidError (the library's)."""
    return _map(lib.RAID_F64_ADD, x, y, device, out)


def subtract(x, y, device=None, *, out=None):
    """x - y element by element (np.subtract), correctly rounded; arguments as raid.add."""
    return _map(lib.RAID_F64_SUB, x, y, device, out)


def multiply(x, y, device=None, *, out=None):
    """x * y element by element (np.multiply), correctly rounded; arguments as raid.add."""
    return _map(lib.RAID_F64_MUL, x, y, device, out)


def divide(x, y, device=None, *, out=None):
    """x / y element by element (np.divide: x / 0 is +-inf, 0 / 0 NaN, without numpy's warnings), correctly
    rounded; arguments as raid.add."""
    return _map(lib.RAID_F64_DIV, x, y, device, out)


def sqrt(x, device=None, *, out=None):
    """The square root element by element (np.sqrt: NaN below zero, -0.0 for -0.0), correctly rounded;
    arguments as raid.add."""
    return _map(lib.RAID_F64_SQRT, x, None, device, out)


def negative(x, device=None, *, out=None):
    """-x element by element (np.negative: the sign bit flipped, NaNs included)."""
    return _map(lib.RAID_F64_NEG, x, None, device, out)


def absolute(x, device=None, *, out=None):
    """|x| element by element (np.absolute: the sign bit cleared, NaNs included)."""
    return _map(lib.RAID_F64_ABS, x, None, device, out)


def minimum(x, y, device=None, *, out=None):
    """The smaller of x and y element by element (np.minimum: a NaN in either is returned, x's first; of -0.0
    and +0.0, y); arguments as raid.add."""
    return _map(lib.RAID_F64_MINIMUM, x, y, device, out)


def maximum(x, y, device=None, *, out=None):
    """The larger of x and y element by element (np.maximum: NaNs as raid.minimum); arguments as raid.add."""
    return _map(lib.RAID_F64_MAXIMUM, x, y, device, out)


def copysign(x, y, device=None, *, out=None):
    """|x| with y's sign element by element (np.copysign); arguments as raid.add."""
    return _map(lib.RAID_F64_COPYSIGN, x, y, device, out)


def trunc(x, device=None, *, out=None):
    """x rounded toward zero element by element (np.trunc; -0.0 kept); arguments as raid.add."""
    return _map(lib.RAID_F64_TRUNC, x, None, device, out)


def floor(x, device=None, *, out=None):
    """x rounded toward -inf element by element (np.floor); arguments as raid.add."""
    return _map(lib.RAID_F64_FLOOR, x, None, device, out)


def ceil(x, device=None, *, out=None):
    """x rounded toward +inf element by element (np.ceil: ceil(-0.5) is -0.0); arguments as raid.add."""
    return _map(lib.RAID_F64_CEIL, x, None, device, out)


def rint(x, device=None, *, out=None):
    """x rounded to the nearest integer, ties to even, element by element (np.rint); arguments as raid.add."""
    return _map(lib.RAID_F64_RINT, x, None, device, out)


def sin(x, device=None, *, out=None):
    """sin(x), x in radians, element by element (np.sin), within 1 ulp for every input, argument reduced
    exactly however large x is (docs/f64.md); arguments as raid.add."""
    return _map(lib.RAID_F64_SIN, x, None, device, out)


def cos(x, device=None, *, out=None):
    """cos(x) element by element (np.cos), within 1 ulp (docs/f64.md); arguments as raid.add."""
    return _map(lib.RAID_F64_COS, x, None, device, out)


def tan(x, device=None, *, out=None):
    """tan(x) element by element (np.tan), within 1 ulp (docs/f64.md); arguments as raid.add."""
    return _map(lib.RAID_F64_TAN, x, None, device, out)


def arcsin(x, device=None, *, out=None):
    """The arcsine element by element (np.arcsin), in [-pi/2, pi/2]: at most 1 ulp from the exact value and
    correctly rounded on every input tested (docs/f64.md); NaN for |x| > 1, -0.0 for -0.0; arguments as
    raid.add."""
    return _map(lib.RAID_F64_ASIN, x, None, device, out)


def arccos(x, device=None, *, out=None):
    """The arccosine element by element (np.arccos), in [0, pi]: accuracy as raid.arcsin; NaN for |x| > 1;
    arguments as raid.add."""
    return _map(lib.RAID_F64_ACOS, x, None, device, out)


def arctan(x, device=None, *, out=None):
    """The arctangent element by element (np.arctan), in [-pi/2, pi/2]: accuracy as raid.arcsin; arctan(+-inf)
    is +-pi/2 rounded; arguments as raid.add."""
    return _map(lib.RAID_F64_ATAN, x, None, device, out)


def arctan2(y, x, device=None, *, out=None):
    """atan2(y, x) element by element (np.arctan2): the angle of the point (x, y) in [-pi, pi], with C99's
    signed zeros and infinities (arctan2(+-0, -0) = +-pi, arctan2(+-inf, -inf) = +-3pi/4); accuracy as
    raid.arcsin (the quotient y / x is never rounded, so huge and tiny ratios and subnormal results are
    accurate too); arguments as raid.add (y first, as numpy)."""
    return _map(lib.RAID_F64_ATAN2, y, x, device, out, names=("y", "x"))


def exp(x, device=None, *, out=None):
    """e^x element by element (np.exp), correctly rounded for every input (docs/f64.md); arguments as raid.add."""
    return _map(lib.RAID_F64_EXP, x, None, device, out)


def exp2(x, device=None, *, out=None):
    """2^x element by element (np.exp2), correctly rounded; arguments as raid.add."""
    return _map(lib.RAID_F64_EXP2, x, None, device, out)


def exp10(x, device=None, *, out=None):
    """10^x element by element (numpy has none), correctly rounded, exact for x = 0..22; arguments as raid.add."""
    return _map(lib.RAID_F64_EXP10, x, None, device, out)


def expm1(x, device=None, *, out=None):
    """e^x - 1 element by element (np.expm1), correctly rounded; arguments as raid.add."""
    return _map(lib.RAID_F64_EXPM1, x, None, device, out)


def sinh(x, device=None, *, out=None):
    """The hyperbolic sine element by element (np.sinh), within 1 ulp; arguments as raid.add."""
    return _map(lib.RAID_F64_SINH, x, None, device, out)


def cosh(x, device=None, *, out=None):
    """The hyperbolic cosine element by element (np.cosh), within 1 ulp; arguments as raid.add."""
    return _map(lib.RAID_F64_COSH, x, None, device, out)


def tanh(x, device=None, *, out=None):
    """The hyperbolic tangent element by element (np.tanh), within 1 ulp; arguments as raid.add."""
    return _map(lib.RAID_F64_TANH, x, None, device, out)


def log(x, device=None, *, out=None):
    """The natural logarithm, element by element (np.log), correctly rounded (docs/f64.md "Logarithms"):
    log(+-0) = -inf, log(x < 0) = nan, log(1) = 0; arguments as raid.add."""
    return _map(lib.RAID_F64_LOG, x, None, device, out)


def log2(x, device=None, *, out=None):
    """The base-2 logarithm, element by element (np.log2), correctly rounded; log2(2^k) = k exactly."""
    return _map(lib.RAID_F64_LOG2, x, None, device, out)


def log10(x, device=None, *, out=None):
    """The base-10 logarithm, element by element (np.log10), correctly rounded; log10(10^k) = k exactly."""
    return _map(lib.RAID_F64_LOG10, x, None, device, out)


def log1p(x, device=None, *, out=None):
    """ln(1 + x), element by element (np.log1p), correctly rounded, accurate for x near 0 and for x near -1
    (1 + x is never rounded); log1p(-1) = -inf, log1p(x < -1) = nan, log1p(+-0) = +-0."""
    return _map(lib.RAID_F64_LOG1P, x, None, device, out)


def power(x, y, device=None, *, out=None):
    """x to the power y, element by element (np.power of float64, C's pow): within 1 ulp of the exact value
    and correctly rounded on every input tested (docs/f64.md "Power"), exact results and exact midpoints
    (such as 134217727.0 ** 2) rounded once; C99's special values: power(x, 0) = 1 and power(1, y) = 1 even
    for a NaN, a negative x with a non-integer y gives nan, with an integer y the sign of its parity,
    power(-0, -3) = -inf; arguments as raid.add (x first, as numpy)."""
    return _map(lib.RAID_F64_POW, x, y, device, out)


def _compare(cmp, x, y, device):
    """A comparison's bool array (numpy's), nulls propagated as _map does (a pyarrow operand: a pyarrow
    boolean array)."""
    dev = _Device([("x", x)] + ([("y", y)] if y is not None else []), device)
    if dev.any:
        ctx = context(dev.spec)
        m = _cuda.empty(dev.n, np.bool_, dev.ordinal)
        check(lib.raid_f64_compare(ctx, cmp, dev.ptr("x", x), dev.ptr("y", y) if y is not None else ffi.NULL,
                                   _cuda.pointer(m, "unsigned char *"), dev.n), ctx)
        return m
    nulls = _Nulls()
    a, b = _operands(x, y, nulls)
    m = np.empty(a.size, np.bool_)
    ctx = context(device)
    check(lib.raid_f64_compare(ctx, cmp, _ptr(a), _ptr(b) if b is not None else ffi.NULL,
                               ffi.from_buffer("unsigned char[]", m.view(np.uint8)), a.size), ctx)
    return nulls.result(m)


def equal(x, y, device=None):
    """x == y element by element (np.equal: False where either is NaN; -0.0 == 0.0), a bool array; operands
    as raid.add (a pyarrow operand gives a pyarrow boolean array, nulls where an operand is null)."""
    return _compare(lib.RAID_F64_EQ, x, y, device)


def not_equal(x, y, device=None):
    """x != y element by element (np.not_equal: True where either is NaN); as raid.equal."""
    return _compare(lib.RAID_F64_NE, x, y, device)


def less(x, y, device=None):
    """x < y element by element (np.less: False where either is NaN); as raid.equal."""
    return _compare(lib.RAID_F64_LT, x, y, device)


def less_equal(x, y, device=None):
    """x <= y element by element (np.less_equal); as raid.equal."""
    return _compare(lib.RAID_F64_LE, x, y, device)


def greater(x, y, device=None):
    """x > y element by element (np.greater); as raid.equal."""
    return _compare(lib.RAID_F64_GT, x, y, device)


def greater_equal(x, y, device=None):
    """x >= y element by element (np.greater_equal); as raid.equal."""
    return _compare(lib.RAID_F64_GE, x, y, device)


def isnan(x, device=None):
    """Whether each x is a NaN (np.isnan), a bool array; as raid.equal."""
    return _compare(lib.RAID_F64_ISNAN, x, None, device)


def isinf(x, device=None):
    """Whether each x is +-infinity (np.isinf); as raid.equal."""
    return _compare(lib.RAID_F64_ISINF, x, None, device)


def isfinite(x, device=None):
    """Whether each x is neither NaN nor infinite (np.isfinite); as raid.equal."""
    return _compare(lib.RAID_F64_ISFINITE, x, None, device)


def _compile(ctx, expr, names):
    """expr compiled over names (raid_f64_expr_compile), freed with its Python object; a fault in expr is a
    ValueError naming its column."""
    cnames = [ffi.new("char[]", k.encode()) for k in names]
    pnames = ffi.new("const char *[]", cnames)
    pe = ffi.new("raid_f64_expr **")
    status = lib.raid_f64_expr_compile(ctx, expr.encode(), pnames, len(names), pe)
    if status == lib.RAID_EINVAL:
        raise ValueError(ffi.string(lib.raid_ctx_errmsg(ctx)).decode())
    check(status, ctx)
    return ffi.gc(pe[0], lib.raid_f64_expr_free)


def eval(expr, device=None, *, out=None, **arrays):  # noqa: A001 (raid.eval, as numexpr.evaluate)
    """The expression expr over the named arrays, element by element, as one pass over memory on a device:
    raid.eval("(a - b) / sqrt(abs(c))", a=x, b=y, c=z). expr: + - * / with the usual precedence, left to
    right, unary minus, parentheses, sqrt(), abs(), trunc(), floor(), ceil(), rint(), minimum(x, y),
    maximum(x, y), copysign(x, y), asin(), acos(), atan(), atan2(y, x), pow(x, y), fma(x, y, z) (x * y + z rounded once) and decimal numbers; each
    operation evaluated as written (never reassociated or fused), so the result is numpy's for the same
    expression, bit for bit. arrays: 1 to 8 one-dimensional arrays of equal length (the values rule; a
    scalar is repeated, beside at least one array). out, device: as raid.add. Errors: ValueError (arguments; a fault in expr names its column), RaidError (the library's)."""
    if not isinstance(expr, str):
        raise TypeError(f"expr must be a string, not {type(expr).__name__}")
    if not 1 <= len(arrays) <= 8:
        raise ValueError(f"raid.eval takes 1 to 8 named arrays, not {len(arrays)}")
    names = list(arrays)
    dev = _Device(list(arrays.items()), device)
    if dev.any:
        ctx = context(dev.spec)
        e = _compile(ctx, expr, names)
        r = dev.out(out)
        ptrs = [dev.ptr(k, arrays[k]) for k in names]
        check(lib.raid_f64_eval(ctx, e, ffi.new("const double *[]", ptrs), dev.n, _cuda.pointer(r, "double *")), ctx)
        return r
    nulls = _Nulls()
    vals = {k: _operand(arrays[k], k, nulls) for k in names if np.ndim(arrays[k]) != 0}
    if not vals:  # scalars only: refused as one-dimensional input is (a scalar repeats beside an array)
        floats(arrays[names[0]], names[0])
    first = next(iter(vals))
    n = vals[first].size
    for k in names:
        if k not in vals:
            vals[k] = _operand(arrays[k], k, nulls, n)
        elif vals[k].size != n:
            raise ValueError(f"{k} has {vals[k].size} elements, {first} {n}")
    ctx = context(device)
    e = _compile(ctx, expr, names)
    r = _out(out, n)
    ptrs = [_ptr(vals[k]) for k in names]
    check(lib.raid_f64_eval(ctx, e, ffi.new("const double *[]", ptrs), n, _ptr(r)), ctx)
    return nulls.result(r)
