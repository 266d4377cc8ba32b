#!/usr/bin/env python3
"""Reference kernels of the realized measures (not a test, see bench/README.md).

Two CUDA kernels of the same six sums as RAID's fused kernel (rs_neg, rs_pos, bpv, rq, tpq, medrv over
segments of L returns, one block of 256 threads per chunk of 4,096 returns, windows inside a segment
only, per-chunk partials), built with CuPy here in bench/ only and never part of RAID:
  REFERENCE_naive_f32: the naive float32 port: float input (4 bytes per return), plain float
      accumulators, powf-free formulas (tpq as p cbrtf(p)); fast and inaccurate (the "plausible garbage").
  REFERENCE_native_f64: the same in native float64 (8 bytes per return), double accumulators; what a
      GPU with full-rate float64 would run (the H200's float64 is half its float32 rate).
Each kernel's time is the best of --reps launches on device-resident data (CUDA events), printed as
returns per second and GB/s of its input, beside the accumulation error of the f32 port against the f64
one (the largest relative difference of the per-chunk rv partials). RAID's kernel time comes from
bench_realized in the same run (bench/device_session.sh realized-e2e).
"""
import argparse
import math

SRC = r"""
template <typename T> __device__ T cbrt_t(T x);
template <> __device__ float cbrt_t<float>(float x) { return cbrtf(x); }
template <> __device__ double cbrt_t<double>(double x) { return cbrt(x); }

template <typename T>
__device__ void body(const T *x, const long long *cstart, const int *clen, const long long *sstart, T *part)
{
    const int g = blockIdx.x, tid = threadIdx.x;
    const long long b = cstart[g], s0 = sstart[g];
    const int len = clen[g];
    T acc[6] = {0, 0, 0, 0, 0, 0};
    for (int k = tid; k < len; k += 256) {
        const long long i = b + k;
        const T r = x[i], a = fabs(r), sq = r * r;
        if (r < 0) acc[0] += sq; else acc[1] += sq;
        acc[3] += sq * sq;
        if (i - 1 >= s0) {
            const T a1 = fabs(x[i - 1]);
            acc[2] += a * a1;
            if (i - 2 >= s0) {
                const T a2 = fabs(x[i - 2]);
                const T p = a * a1 * a2;
                acc[4] += p * cbrt_t<T>(p);
                const T m = fmax(fmin(a, a1), fmin(fmax(a, a1), a2));
                acc[5] += m * m;
            }
        }
    }
    __shared__ T sh[6][256];
    for (int j = 0; j < 6; j++) sh[j][tid] = acc[j];
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (tid < s)
            for (int j = 0; j < 6; j++) sh[j][tid] += sh[j][tid + s];
        __syncthreads();
    }
    if (tid < 6) part[(long long)g * 6 + tid] = sh[tid][0];
}

extern "C" __global__ void REFERENCE_naive_f32(const float *x, const long long *cs, const int *cl, const long long *ss,
                                                float *part) { body<float>(x, cs, cl, ss, part); }
extern "C" __global__ void REFERENCE_native_f64(const double *x, const long long *cs, const int *cl,
                                                 const long long *ss, double *part) { body<double>(x, cs, cl, ss, part); }
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=float, nargs="+", default=[1e8, 1e9])
    ap.add_argument("--seg-len", type=int, default=23400)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    import cupy as cp
    import numpy as np
    mod = cp.RawModule(code=SRC, options=("--std=c++14", "--fmad=false"))
    kf = mod.get_function("REFERENCE_naive_f32")
    kd = mod.get_function("REFERENCE_native_f64")
    for nf in args.n:
        n = int(nf)
        seg = args.seg_len
        starts, lens, sst = [], [], []
        for s0 in range(0, n, seg):
            m = min(seg, n - s0)
            for c in range(0, m, args.chunk):
                starts.append(s0 + c)
                lens.append(min(args.chunk, m - c))
                sst.append(s0)
        cs = cp.asarray(np.array(starts, dtype=np.int64))
        cl = cp.asarray(np.array(lens, dtype=np.int32))
        ss = cp.asarray(np.array(sst, dtype=np.int64))
        nch = len(starts)
        xd = cp.random.standard_normal(n, dtype=cp.float64) * 1e-4
        out = {}
        for label, k, x, T in (("naive_f32", kf, xd.astype(cp.float32), cp.float32),
                               ("native_f64", kd, xd, cp.float64)):
            part = cp.zeros(nch * 6, dtype=T)
            k((nch,), (256,), (x, cs, cl, ss, part))
            cp.cuda.runtime.deviceSynchronize()
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            best = math.inf
            for _ in range(args.reps):
                e0.record()
                k((nch,), (256,), (x, cs, cl, ss, part))
                e1.record()
                e1.synchronize()
                best = min(best, cp.cuda.get_elapsed_time(e0, e1) / 1e3)
            out[label] = part.astype(cp.float64).reshape(nch, 6)
            print(f"kernel=REFERENCE_{label} n={n} kernel_s={best:.6f} returns_per_s={n / best:.4g} "
                  f"GBps={n * x.itemsize / best / 1e9:.1f}", flush=True)
            del x, part
        rv32 = out["naive_f32"][:, 0] + out["naive_f32"][:, 1]
        rv64 = out["native_f64"][:, 0] + out["native_f64"][:, 1]
        err = float(cp.max(cp.abs(rv32 - rv64) / rv64))
        print(f"n={n} naive_f32_rv_partial_max_rel_err={err:.3e} (input rounding and float accumulation)", flush=True)
        del xd, cs, cl, ss
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
