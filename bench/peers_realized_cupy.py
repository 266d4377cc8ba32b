#!/usr/bin/env python3
"""Realized measures of returns already on the GPU (not a test; see bench/README.md): N float64 returns made
by CuPy on the device, in segments of L (the days), through raid.realized without a host copy (the
returns read in place: docs/python.md "CUDA arrays"), against the kernel alone.

    python3 bench/peers_realized_cupy.py [--n 1e9] [--seg-len 23400] [--reps 5] [--precision df|f32]
                                         [--device cuda:0] [--check 1e8] [--host]

Per precision, one line of key=value: the best wall time of --reps calls of raid.realized on the CuPy
array (after a warm-up call, which builds the kernel), and of that call RAID's kernel time (the fused
kernel and the seam gather, CUDA events, raid_timing.kernel_s), host time after the device's (seams,
guards: host_s), the combine's, the bytes uploaded (bytes_in: 0 when nothing was copied) and the bytes
read in place (bytes_wrapped); wall over kernel is the overhead of everything else (Python, the small
read-backs, the per-segment measures). --check K compares the measures of the segments within the first
K returns with raid.realized of a host copy of them on the same device, bit for bit. --host also times
raid.realized on a numpy copy of all N returns (the upload inside), the path without zero-copy.
"""
import argparse
import math
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e9)
    ap.add_argument("--seg-len", type=int, default=23400)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--precision", default="df,f32")
    ap.add_argument("--device", default=None)
    ap.add_argument("--check", type=float, default=1e8)
    ap.add_argument("--host", action="store_true")
    a = ap.parse_args()
    import cupy as cp

    import raid
    from raid import _core

    n = int(a.n)
    rs = cp.random.RandomState(seed=42)
    r = rs.standard_normal(n, dtype=cp.float64)
    r *= 1e-3
    cp.cuda.get_current_stream().synchronize()
    off = np.arange(0, n + 1, a.seg_len, dtype=np.int64)
    if off[-1] != n:
        off = np.append(off, n)
    spec = a.device or f"cuda:{r.device.id}"
    for prec in a.precision.split(","):
        raid.realized(r, off, device=spec, precision=prec)  # warm-up: NVRTC or the disk cache
        ctx = _core.context(spec, prec)
        best, tk = math.inf, None
        for _ in range(a.reps):
            t0 = time.perf_counter()
            res = raid.realized(r, off, device=spec, precision=prec)
            wall = time.perf_counter() - t0
            t = raid.ffi.new("raid_timing *")
            raid.lib.raid_ctx_last_timing(ctx, t)
            if wall < best:
                best, tk = wall, (t.kernel_s, t.prep_s, t.host_s, t.combine_s, t.bytes_in, t.bytes_wrapped, t.launches)
        k, prep, host, comb, bin_, bwr, launches = tk
        print(f"tool=raid.realized(cupy) device={raid.device_name(spec)!r} precision={prec} n={n} "
              f"seg_len={a.seg_len} segments={off.size - 1} wall_s={best:.4f} kernel_s={k:.4f} gather_s={prep:.4f} "
              f"host_s={host:.4f} combine_s={comb:.4f} wall_over_kernel={best / k if k else math.nan:.3f} "
              f"returns_per_s={n / best:.4g} bytes_in={int(bin_)} bytes_wrapped={int(bwr)} launches={int(launches)}",
              flush=True)
        if a.check:
            m = int(min(a.check, n))
            offc = off[off <= m]
            hc = cp.asnumpy(r[:offc[-1]])
            want = raid.realized(hc, offc, device=spec, precision=prec)
            got = raid.realized(r, offc, device=spec, precision=prec)
            same = all(np.array_equal(cp.asnumpy(got[c]).view(np.int64), want[c].to_numpy().view(np.int64))
                       for c in want.columns)
            print(f"check precision={prec} segments={offc.size - 1} returns={int(offc[-1])} bitwise_equal={same}",
                  flush=True)
        if a.host:
            h = cp.asnumpy(r)
            best_h = math.inf
            for _ in range(max(1, a.reps // 2)):
                t0 = time.perf_counter()
                raid.realized(h, off, device=spec, precision=prec)
                best_h = min(best_h, time.perf_counter() - t0)
            t = raid.ffi.new("raid_timing *")
            raid.lib.raid_ctx_last_timing(ctx, t)
            print(f"tool=raid.realized(numpy) precision={prec} n={n} wall_s={best_h:.4f} kernel_s={t.kernel_s:.4f} "
                  f"upload_s={t.upload_s:.4f} bytes_in={int(t.bytes_in)} zero_copy_speedup={best_h / best:.2f}",
                  flush=True)
            del h


if __name__ == "__main__":
    main()
