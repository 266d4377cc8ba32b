#!/usr/bin/env python3
"""Largest relative differences between two sets of tests/golden outputs, file by file and column by column.

For each named file present in both directories, the files are read line by line and cut into fields (at
commas in .csv files, at runs of blanks elsewhere: the loss tables of the .stderr files); fields that are
not numbers must be equal, numbers are compared as |a - b| / |b| (b from the second directory, the
reference; 0 where both are 0). A .csv file's columns are named by its header. Prints per file the largest
difference overall and per column (the columns that differ), so that a re-record of tests/golden/expected
can state how far the new outputs are from the recorded ones and from the cpu backend's (the reference
passed second). With --map A=B a file named with A in the first directory is compared with the same name
with B in the second (e.g. --map _dev=_cpu: the device outputs against the cpu outputs).
With --se, a coefficient column X of a file that has X_se is compared as |a - b| / |b's X_se| (a
coefficient near zero makes the relative difference meaningless; its standard error is the scale that
matters) and a t statistic X_t as |a - b| (t is in units of the standard error already).

Usage: golden_reldiff.py DIR_A DIR_B [--map A=B] [--se] FILE...
"""
import argparse
import math
import os
import sys


def fields(line, csv):
    return line.rstrip("\n").split(",") if csv else line.split()


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def compare(fa, fb, se=False):
    """{column: largest relative difference} of file fa against the reference fb (with se: coefficients in
    units of their standard error, t statistics absolute); raises on a mismatch of layout or of a
    non-numeric field."""
    csv = fa.endswith(".csv")
    with open(fa) as a, open(fb) as b:
        la, lb = a.readlines(), b.readlines()
    if len(la) != len(lb):
        raise ValueError(f"{fa}: {len(la)} lines against {len(lb)}")
    header = fields(la[0], True) if csv else None
    col = {h: j for j, h in enumerate(header)} if header else {}
    worst = {}
    for i, (x, y) in enumerate(zip(la, lb)):
        ta, tb = fields(x, csv), fields(y, csv)
        if len(ta) != len(tb):
            raise ValueError(f"{fa}:{i + 1}: {len(ta)} fields against {len(tb)}")
        for j, (s, t) in enumerate(zip(ta, tb)):
            u, v = num(s), num(t)
            if u is None or v is None:
                if s != t:
                    raise ValueError(f"{fa}:{i + 1}: field {j + 1} {s!r} against {t!r}")
                continue
            name = header[j] if csv and j < len(header) else f"field{j + 1}"
            ref = abs(v)
            if se and i > 0 and name + "_se" in col:
                ref = abs(float(tb[col[name + "_se"]]))
            elif se and i > 0 and name.endswith("_t") and name[:-2] + "_se" in col:
                ref = 1.0
            if u == v or (math.isnan(u) and math.isnan(v)):
                d = 0.0
            else:
                d = abs(u - v) / ref if ref != 0 else math.inf
            worst[name] = max(worst.get(name, 0.0), d)
    return worst


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("dir_a")
    ap.add_argument("dir_b")
    ap.add_argument("--map", default=None, help="A=B: file names with A in dir_a are read with B in dir_b")
    ap.add_argument("--se", action="store_true", help="coefficients in units of their standard error, t absolute")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    res = {}
    for f in a.files:
        g = f
        if a.map:
            src, dst = a.map.split("=", 1)
            g = f.replace(src, dst)
        w = compare(os.path.join(a.dir_a, f), os.path.join(a.dir_b, g), a.se)
        res[f] = w
        top = max(w.values(), default=0.0)
        cols = sorted(((v, k) for k, v in w.items() if v > 0), reverse=True)
        print(f"{f}: max {top:.2e}" + ("; " + ", ".join(f"{k} {v:.1e}" for v, k in cols) if cols else ""))
    return res


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
