#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets (tests/fuzz/corpus/TARGET/seed-*; docs/testing.md "Fuzzing").

Seeds: the first lines (about 3 KB) of the files of data/ a target reads; the CSV texts of the C tests
(string literals with a line break, tests/test_*.c); small valid and almost valid inputs written here (each
error of docs/input.md once); for `time`, timestamps, dates, sessions, samples, intervals, zone names and
POSIX TZ strings; for `f64`, float64 triples and expressions; for `tzif`, the TZif files of a few zones copied from /usr/share/zoneinfo (the tz
database is in the public domain). Each seed is its target's option bytes (fuzz_TARGET.c's head comment)
followed by the data: zeros (the defaults), and for CSV seeds a few fixed other option bytes, so that the
corpus starts from every reading path (blocks, threads, libcsv, pipe).

Usage: tests/fuzz/make_corpus.py [REPO]   (run from anywhere; rewrites the seed-* files, keeps the others:
the entries merged by fuzzing and the regress-* inputs of defects found)
"""
import codecs
import glob
import hashlib
import math
import os
import re
import struct
import sys

REPO = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(REPO, "tests", "fuzz", "corpus")

# option bytes of each CSV target (see the head comment of tests/fuzz/fuzz_TARGET.c)
NOPT = {"table": 10, "realized": 4, "har": 3, "garch": 3, "ma": 3, "sweep": 3, "bars": 3, "sort": 2,
        "quantile": 2, "groupby": 2}
# the option bytes of the plain seeds: zeros (the defaults), but for `table` the columns symbol (STRING,
# KEYS), timestamp (TIMESTAMP, KEEP_TEXT), price (F64, EMPTY_NA, KEEP_TEXT) and date (DATE), all OPTIONAL,
# so that the rows of any seed are read
BASE = {"table": bytes([0x00, 0x03, 0x01, 0x21, 0x12, 0x05, 0x1B, 0x07, 0x0C, 0x01])}
# io bytes besides 0 (fz_io_of): blocks of 7 bytes, 2 threads; 97 bytes, 2 threads, pipe; 1 byte,
# libcsv only; 16 bytes, 2 threads, libcsv only, pipe
IO_VARIANTS = [0x0B, 0x2E, 0x11, 0x3C]


def head(name, limit=3000):
    """The first lines of data/NAME, at most limit bytes, cut at a line end."""
    with open(os.path.join(REPO, "data", name), "rb") as f:
        b = f.read(limit)
    return b[: b.rfind(b"\n") + 1]


def c_literals(path):
    """The texts of the C string literals of path that hold a line break (adjacent literals joined)."""
    src = open(path, "rb").read().decode("latin-1")
    out = []
    for m in re.finditer(r'((?:"(?:[^"\\\n]|\\.)*"\s*)+)', src):
        parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(1))
        try:
            b = b"".join(codecs.escape_decode(p.encode("latin-1"))[0] for p in parts)
        except ValueError:
            continue
        if b"\n" in b and 4 <= len(b) <= 4096 and b"%" not in b:
            out.append(b)
    return out


def tests(*names):
    out = []
    for n in names:
        out += c_literals(os.path.join(REPO, "tests", n))
    return out


# Almost valid inputs: one defect each (docs/input.md "Errors"), on the prices shape.
P = b"symbol,timestamp,price\n"
BAD_PRICES = [
    P + b"A,2020-01-02T09:30:00,100\nA,2020-01-02T09:31:00,0x64\n",
    P + b"A,2020-01-02T09:30:00,inf\n",
    P + b"A,2020-01-02T09:30:00,nan\n",
    P + b"A,2020-01-02T09:30:00,1e999\n",
    P + b"A,2020-01-02T09:30:00,1e-400\n",
    P + b"A,2020-01-02T09:30:00,\"1,0\"\n",
    P + b"A,2020-01-02T09:30:00,\" 101\"\n",
    P + b"A,2020-01-02T09:30:00,-5\n",
    P + b"A\x00B,2020-01-02T09:30:00,100\n",
    P + b"A\xff,2020-01-02T09:30:00,100\n",
    P + b"\xc0\xaf,2020-01-02T09:30:00,100\n",
    P + b"A,2020-01-02T24:00:00,100\n",
    P + b"A,2020-01-02T23:59:60,100\n",
    P + b"A,2020-02-30T09:30:00,100\n",
    P + b"A,2020-01-02T09:30:00+24:00,100\n",
    P + b"A,2020-01-02T09:30:00.1234567891,100\n",
    P + b"A,2020-01-02T09:31:00,100\nA,2020-01-02T09:30:00,101\n",
    P + b"A,2020-01-02T09:40:00,100\nA,2020-01-02T04:45:00-05:00,101\n",
    P + b"A,2020-01-02T09:45:00Z,100\nA,2020-01-02T05:00:00,101\n",
    P + b"A,2020-01-02T09:30:00,100\nA,2020-01-02T09:31:00\n",
    P + b"A,2020-01-02T09:30:00,100,7\n",
    P + b"A,2020-01-02T09:30:00,100\nA,2020-01-02T09:31:00,10",
    P + b"A,2020-01-02T09:30:00,\"100\n",
    b"\xef\xbb\xbf\xef\xbb\xbf" + P + b"A,2020-01-02T09:30:00,100\n",
    b"symbol,timestamp,price,Price\nA,2020-01-02T09:30:00,100,1\n",
    b"symbol,time,price\nA,2020-01-02T09:30:00,100\n",
    b"\n\n\n",
    b"",
    b"symbol,timestamp,price\r\nA,2020-01-02T09:30:00,100\r\n\r\nB,2020-01-02 09:30:00,\"100\"\r\n",
    b"symbol,timestamp,price\rA,2020-01-02T09:30:00,100\rA,2020-01-02T09:35:00,101\r",
    b" symbol , timestamp ,\tprice \nA , 2020-01-02T09:30:00 , 100 \n",
    b"\"sym\"\"bol\",timestamp,price\n\"A\"\"\",2020-01-02T09:30:00,100\n",
    P + b"\"A\nB\",2020-01-02T09:30:00,100\n\"A\nB\",2020-01-02T09:35:00,101\n",
    P + b"0001-01-01T00:00:00,100\n",
    P + b"A,0001-01-01T00:00:00+01:00,100\nA,9999-12-31T23:59:59.999999-01:00,101\n",
    P + b"A,2020-03-29T02:30:00,100\nA,2020-03-29T03:30:00,101\nA,2020-10-25T02:30:00,102\n",
    P + b"A,2020-01-02T16:59:59,100\nA,2020-01-02T17:00:00,101\nA,2020-01-03T15:59:59,102\n",
]
VALID_PRICES = [
    P + b"A,2020-01-02T09:30:00,100\nA,2020-01-02T09:31:00,101\nA,2020-01-02T09:36:00,102\n"
        b"A,2020-01-02T09:40:00,103\nA,2020-01-02T09:40:00,104\nA,2020-01-02T09:46:00,105\n",
    P + b"A,2020-01-02T09:30:00Z,100\nB,2020-01-02T09:30:00+01:00,50\nA,2020-01-03T09:30:00,101\n"
        b"B,2020-01-02T10:30:00+0100,51\nA,2020-01-03T10:30:00.5,102\nB,2020-01-03T10:30:00-05,52\n",
]
RETURNS = [
    b"symbol,date,ret\nA,2020-01-02,0.01\nA,2020-01-02,-0.02\nA,2020-01-03,0.5\nB,2020-01-02,1e-300\n",
    b"symbol,date,ret\nA,2020-01-02,1e75\n",
    b"symbol,date,ret\nA,2020-01-03,0.01\nA,2020-01-02,0.02\n",
    b"date,ret\n2020-01-02,0.01\n2020-13-02,0.02\n",
]
HAR = [
    b"symbol,date,rv,bpv,rq,jump_p\nA,2020-01-02,1e-4,9e-5,1e-8,0.5\nA,2020-01-03,2e-4,,2e-8,\n"
    b"A,2020-01-06,1.5e-4,1e-4,1e-8,1.5\nB,2020-01-02,1e-4,1e-4,1e-8,0.01\nA,2020-01-07,1e-4,1e-4,1e-8,0\n",
    b"date,rv\n2020-01-02,-1\n",
    b"date,rv\n2020-01-02,1\n2020-01-02,1\n,1\n2020-02-30,1\n",
]
GARCH = [
    b"symbol,date,ret\nA,1,0.1\nA,2,-0.2\nA,10,0.3\nB,1,\nB,2,0.1\nA,11,0.2\n",
    b"symbol,date,price\nA,2020-01-02,100\nA,2020-01-03,101\nA,2020-01-04,0\n",
    b"t,ret\n1,0.1\n2,0.2\n",
]
MA = [
    b"symbol,date,close,open\nA,2020-01-02,10,9\nA,2020-01-03,11,\nA,2020-01-06,12,12\nB,2020-01-02,5,5\n"
    b"B,2020-01-03,,6\nB,2020-01-06,7,7\nB,2020-01-07,1e101,7\nA,2020-01-07,1,1\n",
    b"date,close\n2020-01-02,1\n2020-01-03,2\n2020-01-06,3\n2020-01-07,4\n2020-01-08,5\n,6\n",
]
BARS = [
    b"symbol,timestamp,price,size\nA,2020-01-02T09:30:00,10,2\nA,2020-01-02T09:30:30,11,0\nB,2020-01-02T09:31:00Z,5,1\n"
    b"A,2020-01-02T09:31:00.25,9,3\nA,2020-01-03T16:00:00,12,1e308\nA,2020-01-03T16:00:00,12,1e308\n",
    b"timestamp,price\n2020-01-02T09:30:00,10\n2020-01-02T09:29:00,10\n",
    b"symbol,timestamp,price,size\nA,2020-01-02T09:30:00,10,-1\n",
]
NUMS = [
    b"key,value,a,b\n1,2.5,1,\n2,1,-0,1e308\n1,3,,1e308\n-9223372036854775808,-0.0,3,x\n",
    b"key,value\n9223372036854775808,1\n",
    b"key,value\n1.5,1\n1,2\n1e400,3\n-1e-400,4\n",
    b"k,x\n1,2.5\n2,1\n1,3",
    b"key,value,id\n3,1,1\n3,2,1\n1,,2\n1,5,2\n2,inf,3\n",
    b"price,size\n\"1\",2\n\"1\"\"\",3\n",
    b"key\n1\n2\n",
    b"value,key\n0.1,1\n0.2,1\n0.30000000000000004,1\n-0.1,2\n",
]


def data_seeds(target):
    d = {
        "table": ["trades_xxx_2days.csv", "usdchf_30min.csv", "spy_realized_measures.csv", "ttrc_daily.csv"],
        "realized": ["trades_xxx_2days.csv", "usdchf_30min.csv", "onemin_stock_market.csv"],
        "har": ["spy_realized_measures.csv"],
        "garch": ["dem2gbp.csv", "usdchf_30min.csv"],
        "ma": ["ttrc_daily.csv", "usdchf_30min.csv"],
        "sweep": ["ttrc_daily.csv"],
        "bars": ["trades_xxx_2days.csv", "usdchf_30min.csv"],
        "sort": ["trades_xxx_2days.csv", "ttrc_daily.csv", "dem2gbp.csv"],
        "quantile": ["trades_xxx_2days.csv", "dem2gbp.csv"],
        "groupby": ["ttrc_daily.csv", "dem2gbp.csv"],
    }[target]
    return [head(n) for n in d]


def csv_seeds(target):
    s = data_seeds(target)
    if target == "table":
        s += BAD_PRICES + VALID_PRICES + RETURNS + HAR + NUMS + tests("test_io_table.c", "test_io_blocks.c")
    elif target == "realized":
        s += BAD_PRICES + VALID_PRICES + RETURNS + tests("test_io_reader.c", "test_realized_table.c", "test_io_seams.c")
    elif target == "har":
        s += HAR + tests("test_har.c")
    elif target == "garch":
        s += GARCH + tests("test_garch_api.c")
    elif target in ("ma", "sweep"):
        s += MA + tests("test_ma.c", "test_sweep_api.c")
    elif target == "bars":
        s += BARS + VALID_PRICES + BAD_PRICES[:8]
    else:
        s += NUMS
    return s


# option bytes besides zeros, per target: a few useful settings
def options(target):
    o = {
        "table": [bytes([0x3F, 0x28, 0x30, 0x01, 0x03, 0x04, 0x32, 0x00]), bytes([0xE7, 0x20, 0x23, 0x06, 0x00, 0x12, 0x00, 0x00]),
                  bytes([0x93, 0x28, 0x1E, 0x11, 0x00, 0x38, 0x02, 0x00])],
        "realized": [bytes([0x12, 0x05, 0x03]), bytes([0x24, 0x82, 0x05]), bytes([0x03, 0x00, 0x01])],
        "har": [bytes([0x42, 0x16]), bytes([0x81, 0x05]), bytes([0x03, 0x32])],
        "garch": [bytes([0x10, 0x00]), bytes([0x31, 0x15]), bytes([0xD0, 0x42])],
        "ma": [bytes([0x30, 0x04]), bytes([0x20, 0x13]), bytes([0x08, 0x00])],
        "sweep": [bytes([0x04, 0x01]), bytes([0x5C, 0x06]), bytes([0x90, 0x02])],
        "bars": [bytes([0x21, 0x02]), bytes([0x14, 0x03]), bytes([0x00, 0x0E])],
        "sort": [bytes([0x08]), bytes([0x01])],
        "quantile": [bytes([0x48]), bytes([0x89]), bytes([0x11])],
        "groupby": [bytes([0x08]), bytes([0x40]), bytes([0x0D])],
    }[target]
    return o


TIME = [
    (0, b"2020-01-02T09:30:00"), (0, b"2020-01-02 09:30:00.123456789+05:30"), (0, b"2020-01-02t09:30:00,5Z"),
    (0, b"0001-01-01T00:00:00-23:59"), (0, b"9999-12-31T23:59:59.999999+2359"), (0, b"2020-02-29T12:00:00-05"),
    (0, b"2019-02-29T12:00:00"), (0, b"2020-01-02T24:00:00"), (0, b"2020-01-02T23:59:60"), (0, b"2020-01-02T09:30:00."),
    (0, b"2020-01-02T09:30:00+01:0"), (0, b"2020-01-02T09:30:00z"),
    (1, b"2020-01-02"), (1, b"0000-01-01"), (1, b"2020-1-02"), (1, b"2020-02-30"),
    (2, b"09:30-16:00"), (2, b"17:00-16:00"), (2, b"00:00-24:00"), (2, b"24:00-24:00"), (2, b"9:30-16:00"),
    (2, b"23:59-24:00"), (2, b"12:60-13:00"),
    (3, b"tick"), (3, b"5min"), (3, b"30s"), (3, b"500ms"), (3, b"1h"), (3, b"24h"), (3, b"25h"), (3, b"0s"),
    (3, b"99999999999999999999s"),
    (4, b"1d"), (4, b"3650d"), (4, b"3651d"), (4, b"90000s"), (4, b"250MS"), (4, b"1500min"),
    (5, b"Europe/Zurich"), (5, b"UTC"), (5, b"Etc/UTC"), (5, b"America/New_York"), (5, b"../etc/passwd"),
    (5, b"Europe"), (5, b""), (5, b"posixrules"), (5, b"Asia/Gaza"), (5, b"America/Nuuk"),
    (6, b"CET-1CEST,M3.5.0,M10.5.0/3"), (6, b"AEST-10AEDT,M10.1.0,M4.1.0/3"), (6, b"EST5EDT"),
    (6, b"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"), (6, b"JST-9"), (6, b"IST-2IDT,M3.4.4/26,M10.5.0"),
    (6, b"<-03>3<-02>,M3.5.0/-2,M10.5.0/-1"), (6, b"XXX3YYY,J60/2,300/3"), (6, b"EET-2EEST,M3.4.4/50,M10.4.4/50"),
    (6, b"<-04>4<-03>,M9.1.6/24,M4.1.6/24"), (6, b"<+00>0<+02>-2,M3.5.0/1,M10.5.0/3"), (6, b"CET"),
]
# f64: (mode, payload) as fuzz_f64.c reads them: three float64 (boundary values, NaNs with payloads, ties)
# or an expression's text (valid ones and each refusal once)
F64 = [(0, struct.pack("<3d", 1.5, -2.25, 0.1)), (0, struct.pack("<3d", 0.0, -0.0, math.inf)),
       (0, struct.pack("<3Q", 0x7FF0000000000123, 0xFFF8000000000456, 0x3FF0000000000000)),
       (0, struct.pack("<3Q", 1, 0x3FE0000000000000, 0x000FFFFFFFFFFFFF)),
       (0, struct.pack("<3d", 1.7976931348623157e308, 2.0, -1.7976931348623157e308)),
       (0, struct.pack("<3d", 2.5, -3.5, 0.49999999999999994))] + \
      [(1, t.encode()) for t in ["a + b * c", "(a - b) / sqrt(abs(c))", "fma(a, b, -c) - 1e-3",
                                 "minimum(a, maximum(b, c))", "copysign(floor(a), rint(b)) + ceil(c) - trunc(a)",
                                 "-(-a) * 2.5e10 / .5", "a +", "sqrt(a", "log(a)", "a b", "1e", "fma(a, b)"]]
ZONES = ["UTC", "Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham",
         "Africa/Casablanca", "Europe/Dublin", "America/Sao_Paulo", "Antarctica/Troll", "Asia/Gaza",
         "America/Nuuk", "Pacific/Kiritimati"]


def write(target, data, tag="seed"):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "%s-%s" % (tag, hashlib.sha1(data).hexdigest()[:16])), "wb") as f:
        f.write(data)


def main():
    for target in list(NOPT) + ["time", "tzif", "f64"]:
        d = os.path.join(CORPUS, target)
        for old in glob.glob(os.path.join(d, "seed-*")):
            os.remove(old)
    for target, n in NOPT.items():
        seeds = list(dict.fromkeys(csv_seeds(target)))  # unique, in order
        base = BASE.get(target, bytes(n))
        for i, s in enumerate(seeds):
            write(target, base + s)
            # every fourth seed also with other reading knobs, and other options
            if i % 4 == 0:
                io = IO_VARIANTS[(i // 4) % len(IO_VARIANTS)]
                write(target, bytes([io]) + base[1:] + s)
                opt = options(target)[(i // 4) % len(options(target))]
                write(target, (bytes([io]) + opt + bytes(n))[:n] + s)
    for mode, text in TIME:
        write("time", bytes([mode]) + text)
    for mode, payload in F64:
        write("f64", bytes([mode]) + payload)
    for z in ZONES:
        p = os.path.join("/usr/share/zoneinfo", z)
        if os.path.exists(p):
            write("tzif", open(p, "rb").read())


if __name__ == "__main__":
    main()
