"""Every generated table of the binary64 elementary functions (kernels/raid_f64_*_tables.h) is what its
generator (scripts/gen_f64_*.py, MPFR through gmpy2) writes today, byte for byte; so is the table of the
host's fast log and log1p (src/core/fastlog_tables.h, scripts/gen_fastlog.py)."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATORS = sorted(glob.glob(os.path.join(ROOT, "scripts", "gen_f64_*.py")))


@pytest.mark.parametrize("gen", GENERATORS, ids=[os.path.basename(g) for g in GENERATORS])
def test_table_is_reproduced(gen, tmp_path):
    name = os.path.basename(gen)[len("gen_f64_"):-len(".py")]
    committed = os.path.join(ROOT, "kernels", f"raid_f64_{name}_tables.h")
    out = tmp_path / "t.h"
    subprocess.run([sys.executable, gen, "--output", str(out)], check=True)
    with open(committed) as f:
        assert out.read_text() == f.read(), f"{committed} is not what scripts/{os.path.basename(gen)} writes"


def test_fastlog_table_is_reproduced(tmp_path):
    committed = os.path.join(ROOT, "src", "core", "fastlog_tables.h")
    out = tmp_path / "t.h"
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_fastlog.py"), "--output", str(out)], check=True)
    with open(committed) as f:
        assert out.read_text() == f.read(), f"{committed} is not what scripts/gen_fastlog.py writes"


def test_wide_words_round_trip():
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import gmpy2
    from f64_tables import context, wide_words
    with context():
        for v in (gmpy2.log(2), -gmpy2.const_pi(), gmpy2.mpfr(1), gmpy2.mpfr(2) ** -1074, gmpy2.mpfr(3) / 7):
            hi, lo, meta = wide_words(v)
            assert hi >> 63 == 1
            e = (meta & 0xFFFFFFFF) - (1 << 30)
            back = gmpy2.mpfr((hi << 64) | lo) * gmpy2.mpfr(2) ** (e - 128)
            if meta >> 63:
                back = -back
            assert abs(back - v) <= abs(v) * gmpy2.mpfr(2) ** -128
        assert wide_words(5) == (5 << 61, 0, 3 + (1 << 30))
