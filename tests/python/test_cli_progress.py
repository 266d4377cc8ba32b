"""The CLI's progress bar and notices (docs/input.md "Progress and notices"): the bar on a terminal
(standard error on a pseudo-terminal, Python's pty) for raid garch --window rolling:500 on the bundled
DEM/GBP returns, erased without a trace before the notices or an error; nothing on a pipe, nothing with
--quiet, nothing for a job shorter than a second; the per-series notices summarised by kind, with and
without --quiet; --quiet in every job command's help."""
import os
import pty
import re
import select
import subprocess

import numpy as np
import pandas as pd

BAR = re.compile(r"raid garch: +\d+% \[[# ]+\] +[\d,]+/1,476 fits \[\d+:\d\d<(\d+:\d\d|\?), +[\d.,]+ fits/s\]")


def run_tty(args, env=None):
    """Run the CLI with standard error on a pseudo-terminal (stdout and stdin not): (exit status, what the
    terminal received)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                         env={**os.environ, **(env or {})})
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            p.kill()
            raise AssertionError("no output from the CLI for 60 s")
        try:
            b = os.read(master, 65536)
        except OSError:  # EIO: the slave side is closed
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    return p.wait(), b"".join(chunks).decode()


def screen(text):
    """The lines a terminal shows for text: a carriage return moves to the column 0, characters overwrite,
    a line feed ends the line (trailing blanks dropped)."""
    lines, cur, col = [], [], 0
    for ch in text:
        if ch == "\r":
            col = 0
        elif ch == "\n":
            lines.append("".join(cur).rstrip())
            cur, col = [], 0
        else:
            if col < len(cur):
                cur[col] = ch
            else:
                cur.append(ch)
            col += 1
    if "".join(cur).strip():
        lines.append("".join(cur).rstrip())
    return lines


def run_pipe(args, env=None):
    r = subprocess.run(args, capture_output=True, env={**os.environ, **(env or {})})
    return r.returncode, r.stderr.decode()


def garch_rolling(cli, data_dir, tmp_path, *extra):
    return [cli, "garch", "--window", "rolling:500", str(data_dir / "dem2gbp.csv"), "--device", "cpu",
            "-o", str(tmp_path / "out.csv"), *extra]


# RAID_PROGRESS_DELAY=0: the bar from the first report, on a machine where the job ends within a second too
NOW = {"RAID_PROGRESS_DELAY": "0"}


def test_garch_rolling_bar_on_a_terminal(cli, data_dir, tmp_path):
    rc, err = run_tty(garch_rolling(cli, data_dir, tmp_path), NOW)
    assert rc == 0, err
    bars = [s for s in err.split("\r") if BAR.search(s)]
    assert bars, err
    # the bar is erased: the terminal shows what a pipe gets, the notice on a line of its own
    rc2, piped = run_pipe(garch_rolling(cli, data_dir, tmp_path))
    assert rc2 == 0
    assert screen(err) == piped.splitlines()
    assert piped.startswith("raid garch: (no symbol): ")


def test_no_bar_on_a_pipe_or_with_quiet(cli, data_dir, tmp_path):
    rc, err = run_pipe(garch_rolling(cli, data_dir, tmp_path), NOW)
    assert rc == 0 and "\r" not in err and "fits" not in err
    rc, err = run_tty(garch_rolling(cli, data_dir, tmp_path, "--quiet"), NOW)
    assert rc == 0 and "\r" not in err.replace("\r\n", "\n") and "fits [" not in err
    # --quiet keeps the notice (a kind of one series: as it is)
    rc, piped = run_pipe(garch_rolling(cli, data_dir, tmp_path))
    assert screen(err) == piped.splitlines() and len(piped.splitlines()) == 1


def test_short_job_draws_nothing(cli, data_dir, tmp_path):
    """Without RAID_PROGRESS_DELAY the bar waits a second: a full-sample fit of one series ends before."""
    rc, err = run_tty([cli, "garch", str(data_dir / "dem2gbp.csv"), "--device", "cpu", "-o",
                       str(tmp_path / "o.csv")])
    assert rc == 0 and "\r" not in err.replace("\r\n", "\n")


def test_error_after_a_bar_starts_a_line(cli, tmp_path):
    """A CSV job that fails after reading for a while: the bar is erased before the error."""
    path = tmp_path / "big.csv"
    rows = ["key,x"] + [f"{i % 7},{i}.5" for i in range(200000)] + ["3,oops"]
    path.write_text("\n".join(rows) + "\n")
    env = {**NOW, "RAID_CSV_BLOCK": "4096"}
    rc, err = run_tty([cli, "groupby", str(path), "--by", "key", "--agg", "sum:x", "--device", "cpu"], env)
    assert rc == 2
    assert re.search(r"raid groupby: +\d+% \[[# ]+\] +[\d.]+ kB/2.1 MB \[", err), err  # a bar of the bytes read
    rc2, piped = run_pipe([cli, "groupby", str(path), "--by", "key", "--agg", "sum:x", "--device", "cpu"], env)
    assert rc2 == 2 and piped.startswith(f"raid groupby: {path}:200002:2: ")
    assert screen(err) == piped.splitlines()


def notes_csv(tmp_path):
    """Nine series too short (five of 10 returns, four of 20 to 23), four constant, one of 1 return, one
    fitted."""
    rng = np.random.default_rng(3)
    rows = ["symbol,ret"]
    for i in range(1, 6):
        rows += [f"A{i},{v:.6f}" for v in rng.normal(size=10)]
    for i, n in enumerate([20, 21, 22, 23], 1):
        rows += [f"C{i},{v:.6f}" for v in rng.normal(size=n)]
    for i in range(1, 5):
        rows += [f"D{i},0.5"] * 60
    rows += ["E1,0.25"]
    rows += [f"G,{v:.6f}" for v in rng.normal(size=300)]
    path = tmp_path / "notes.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_notices_summarised_by_kind(cli, tmp_path):
    path = notes_csv(tmp_path)
    where = "each row's status is in the output's status column"
    rc, err = run_pipe([cli, "garch", str(path), "--device", "cpu", "-o", str(tmp_path / "o.csv")])
    assert rc == 0, err
    lines = [s for s in err.splitlines() if not s.startswith("raid garch: G: ")]
    assert lines == [
        f"raid garch: 9 of 15 series, such as A1: too short: 10 returns, fewer than 50; no estimates (first: A1, "
        f"A2, A3; {where})",
        f"raid garch: 4 of 15 series: constant: every return is equal; no estimates (first: D1, D2, D3; {where})",
        "raid garch: E1: too short: 1 return, fewer than 50; no estimates"]
    out = pd.read_csv(tmp_path / "o.csv")
    assert (out["status"] == "too short").sum() == 10 and (out["status"] == "constant").sum() == 4
    rc, err = run_pipe([cli, "garch", str(path), "--device", "cpu", "-o", str(tmp_path / "o.csv"), "-q"])
    assert rc == 0, err
    lines = [s for s in err.splitlines() if " G: " not in s and "boundary" not in s]
    assert lines == ["raid garch: 9 of 15 series, such as A1: too short: 10 returns, fewer than 50; no estimates",
                     "raid garch: 4 of 15 series: constant: every return is equal; no estimates",
                     "raid garch: E1: too short: 1 return, fewer than 50; no estimates"]


def test_quiet_is_an_option_of_every_job_command(cli, data_dir, tmp_path):
    for cmd in ("realized", "har", "garch", "ma", "sweep", "bars", "quantile", "groupby", "sort", "simulate"):
        h = subprocess.run([cli, "help", cmd], capture_output=True, text=True).stdout
        assert "-q, --quiet" in h, cmd
    rc, err = run_pipe([cli, "sort", str(data_dir / "dem2gbp.csv"), "--by", "ret", "--quiet", "--quiet"])
    assert rc == 1 and err == "raid sort: --quiet given twice\n"
