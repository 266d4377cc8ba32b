"""raid.to_csv: a result of the package written as the CLI writes the same job's CSV, byte for byte.

The fields follow the library's writers (include/raid/outfile.h raid_csv_put_field and
raid_csv_put_value, and the jobs' *_write_csv): text as RFC 4180 wants it (quoted, quotes doubled, when it
holds a comma, quote or line break or starts or ends with a space or tab: so that it reads back as
written); numbers as the shortest text that reads back as the same double, in the layout of C's "%.17g"
(f64_text, digit for digit the library's raidF64Text);
integers as integers; a missing value (NaN, None, NA, NaT) as an empty field (where the CLI's groupby and
quantile write a NaN result of a group with values as "nan", docs/python.md "CSV output"); an infinity as "inf" or
"-inf" (a result of the column jobs: bars' volume, group-by sums, quantiles, sorted rows), except in the
tables of the model jobs (realized, har, garch, ma, sweep), whose writers print every non-finite value as
an empty field (raid_csv_put_value): those tables carry attrs[NONFINITE] = "empty"; timestamps as the
bars writer prints them (YYYY-MM-DDTHH:MM:SS, then .ffffff when there is a fraction); LF line ends. A
named index (raid.groupby's "key") is written as the first column(s); an unnamed one is not. A path is
written through the library's output files (raid_outfile_*: a temporary file renamed when complete, as
the CLI writes -o)."""
import datetime
import math
import os

import numpy as np
import pandas as pd

from ._core import check, ffi, lib

NONFINITE = "raid.nonfinite"  # attrs key: "empty" when the CLI's writer prints +-inf as an empty field


def mark_model(*frames):
    """Mark result tables of a model job (their CLI writer prints a non-finite value as an empty field)."""
    for f in frames:
        f.attrs[NONFINITE] = "empty"
    return frames[0] if len(frames) == 1 else frames


def field(s):
    """A text field as raid_csv_put_field writes it."""
    if s and (s[0] in " \t" or s[-1] in " \t") or any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def f64_text(v):
    """The text of a finite float v in the CLI's CSV (the library's raidF64Text): the shortest decimal that
    reads back as v (the digits of Python's repr, which are the shortest, the nearest of them) in the layout
    of C's %.17g (fixed from 1e-4 to below 1e17, else d.ddde+XX; -0.0 as -0); empty when v is not finite."""
    v = float(v)
    if not math.isfinite(v):
        return ""
    if v == 0:
        return "-0" if math.copysign(1.0, v) < 0 else "0"
    mant, _, exp = repr(abs(v)).partition("e")  # '0.1', '123.0', '1.2345678901234568e+17', '5e-324'
    ip, _, fp = mant.partition(".")
    lead = len(ip) - len(ip.lstrip("0"))
    digits = (ip + fp)[lead:]
    e = (int(exp) if exp else 0) + len(ip) - lead - 1  # the exponent of the first digit
    if ip.strip("0") == "":  # 0.000ddd
        zeros = len(fp) - len(fp.lstrip("0"))
        digits, e = fp[zeros:], (int(exp) if exp else 0) - zeros - 1
    digits = digits.rstrip("0") or "0"
    sign = "-" if v < 0 else ""
    if e < -4 or e >= 17:
        frac = "." + digits[1:] if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{frac}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if e < 0:
        return f"{sign}0.{'0' * (-e - 1)}{digits}"
    if len(digits) <= e + 1:
        return sign + digits + "0" * (e + 1 - len(digits))
    return f"{sign}{digits[:e + 1]}.{digits[e + 1:]}"


def _number(v, inf):
    if math.isfinite(v):
        return f64_text(v)
    if math.isnan(v):
        return ""
    return inf[v < 0]


def _datetime64(a):
    """datetime64 values as the bars writer prints them: YYYY-MM-DDTHH:MM:SS, .ffffff when the microseconds
    are not 0 (.fffffffff for a fraction below a microsecond), NaT empty."""
    unit = np.datetime_data(a.dtype)[0]
    fine = unit in ("ns", "ps", "fs", "as")
    s = np.datetime_as_string(a, unit="ns" if fine else "us")
    out = []
    for t, nat in zip(s.tolist(), np.isnat(a).tolist()):
        if nat:
            out.append("")
            continue
        if fine and t.endswith("000"):
            t = t[:-3]
        out.append(t[:-7] if t.endswith(".000000") else t)
    return out


def _value(v, inf):
    """One value of an object column."""
    if v is None or v is pd.NA or v is pd.NaT:
        return ""
    if isinstance(v, str):
        return field(v)
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return _number(float(v), inf)
    if isinstance(v, pd.Timestamp) and v.tzinfo is None:
        return _datetime64(np.array([v.to_datetime64()]))[0]
    if isinstance(v, np.datetime64):
        return _datetime64(np.array([v]))[0]
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return field(v.isoformat())
    return field(str(v))


def _column(col, inf):
    """A column's fields."""
    dt = col.dtype
    if isinstance(dt, np.dtype):
        a = col.to_numpy()
        if dt.kind == "f":
            return [_number(v, inf) for v in a.astype(np.float64).tolist()]
        if dt.kind in "iu":
            return [str(v) for v in a.tolist()]
        if dt.kind == "b":
            return [str(v) for v in a.tolist()]
        if dt.kind == "M":
            return _datetime64(a)
    if isinstance(dt, pd.DatetimeTZDtype):
        return ["" if pd.isna(t) else t.isoformat() for t in col]
    return [_value(v, inf) for v in col.to_numpy(dtype=object)]


def csv_text(df):
    """The CSV text of a table (a pandas DataFrame, or a pyarrow Table: its pandas conversion)."""
    if not isinstance(df, pd.DataFrame):
        if type(df).__name__ in ("Table", "RecordBatch"):
            df = df.to_pandas()
        else:
            hint = ": give series.to_frame()" if isinstance(df, pd.Series) else ""
            raise TypeError(f"raid.to_csv writes a pandas DataFrame (or a pyarrow Table), not "
                            f"{type(df).__name__}{hint}")
    inf = ("", "") if df.attrs.get(NONFINITE) == "empty" else ("inf", "-inf")
    if any(n is not None for n in df.index.names):
        df = df.reset_index()
    cols = [_column(df.iloc[:, j], inf) for j in range(df.shape[1])]
    lines = [",".join(field(str(c)) for c in df.columns)]
    lines += [",".join(row) for row in zip(*cols)]
    return "\n".join(lines) + "\n"


def to_csv(df, path_or_buf=None):
    """Write a table of the package as the CLI writes the same job's CSV, byte for byte: raid.to_csv of
    raid.realized_from_prices, raid.har's coefs, forecasts and losses, raid.garch, raid.ma, raid.sweep
    (and its trades), raid.bars is the file `raid realized`, `raid har`, `raid garch`, `raid ma`,
    `raid sweep`, `raid bars` write for the same data and options; group-by, quantile and sorted tables
    are written as `raid groupby`, `raid quantile` and `raid sort` write theirs (docs/python.md "CSV
    output": numbers in the fewest digits that read back as the same double, a missing value as an empty field, RFC 4180 quoting, ISO 8601 timestamps
    with a T, LF line ends, a named index as a column). path_or_buf: None (the text is returned), a path
    (written through the library's output files: a temporary file renamed when complete, as the CLI's
    -o; no compression) or an object with a write method (given the text)."""
    text = csv_text(df)
    if path_or_buf is None:
        return text
    if hasattr(path_or_buf, "write"):
        path_or_buf.write(text)
        return None
    path = os.fsencode(path_or_buf)
    pp = ffi.new("raid_outfile **")
    check(lib.raid_outfile_create(pp, path))
    o = pp[0]
    try:
        lib.raid_outfile_close_stream(o)
        with open(ffi.string(lib.raid_outfile_name(o)), "wb") as f:
            f.write(text.encode("utf-8"))
    except BaseException:
        lib.raid_outfile_discard(o)
        raise
    check(lib.raid_outfile_finish(o))
    return None
