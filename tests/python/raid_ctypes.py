"""ctypes bindings of the regression part of libraid (include/raid.h, section "Regression").

Only what the statsmodels cross-checks need: the raid_reg_stats and raid_ols structs, raid_ols_from_stats,
raid_reg_meat_compute and raid_ols_robust, and a cpu context for the meat.
"""
import ctypes as C

import numpy as np

RAID_REG_MAX_K = 8
RAID_OK, RAID_EINVAL, RAID_ESINGULAR = 0, 1, 11
RAID_SE_OLS, RAID_SE_WHITE, RAID_SE_NW = 0, 1, 2


class RegStats(C.Structure):
    _fields_ = [("k", C.c_int), ("n", C.c_int64),
                ("mean", C.c_double * (RAID_REG_MAX_K + 1)),
                ("cxx", C.c_double * (RAID_REG_MAX_K * RAID_REG_MAX_K)),
                ("cxy", C.c_double * RAID_REG_MAX_K), ("cyy", C.c_double),
                ("xtx", C.c_double * (RAID_REG_MAX_K * RAID_REG_MAX_K)),
                ("xty", C.c_double * RAID_REG_MAX_K), ("yty", C.c_double), ("ysum", C.c_double)]


class Ols(C.Structure):
    _fields_ = [("k", C.c_int), ("n", C.c_int64),
                ("beta", C.c_double * RAID_REG_MAX_K), ("se", C.c_double * RAID_REG_MAX_K),
                ("tstat", C.c_double * RAID_REG_MAX_K), ("pvalue", C.c_double * RAID_REG_MAX_K),
                ("r2", C.c_double), ("r2_adj", C.c_double), ("ssr", C.c_double), ("sigma2", C.c_double),
                ("cond", C.c_double)]

    def vec(self, name):
        return np.array(getattr(self, name)[: self.k])


class RaidError(RuntimeError):
    def __init__(self, status, msg):
        super().__init__(f"raid status {status}: {msg}")
        self.status = status


_dp = C.POINTER(C.c_double)
_i64p = C.POINTER(C.c_int64)


class Raid:
    """The shared library at path, with the regression entry points typed."""

    def __init__(self, path):
        self.lib = lib = C.CDLL(path)
        lib.raid_ctx_create.argtypes = [C.POINTER(C.c_void_p), C.c_char_p, C.c_char_p, C.c_size_t]
        lib.raid_ctx_create.restype = C.c_int
        lib.raid_ctx_destroy.argtypes = [C.c_void_p]
        lib.raid_ctx_destroy.restype = None
        lib.raid_ctx_errmsg.argtypes = [C.c_void_p]
        lib.raid_ctx_errmsg.restype = C.c_char_p
        lib.raid_ols_from_stats.argtypes = [C.POINTER(RegStats), C.c_int, C.POINTER(Ols), C.c_char_p, C.c_size_t]
        lib.raid_ols_from_stats.restype = C.c_int
        lib.raid_reg_meat_compute.argtypes = [C.c_void_p, _dp, _dp, C.c_int, _i64p, C.c_size_t, _dp, C.c_int, _dp]
        lib.raid_reg_meat_compute.restype = C.c_int
        lib.raid_ols_robust.argtypes = [C.POINTER(RegStats), _dp, C.c_int, C.c_int, C.POINTER(Ols)]
        lib.raid_ols_robust.restype = C.c_int
        err = C.create_string_buffer(512)
        self.ctx = C.c_void_p()
        st = lib.raid_ctx_create(C.byref(self.ctx), b"cpu", err, len(err))
        if st != RAID_OK:
            raise RaidError(st, err.value.decode())

    def close(self):
        if self.ctx:
            self.lib.raid_ctx_destroy(self.ctx)
            self.ctx = C.c_void_p()

    @staticmethod
    def stats(X, y):
        """Sufficient statistics of one problem from numpy sums in float64: means, centred cross-products
        (of the columns centred at their float64 means) and raw moments."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        n, k = X.shape
        s = RegStats()
        s.k, s.n = k, n
        m = X.mean(axis=0)
        my = y.mean()
        Z, zy = X - m, y - my
        cxx, cxy, xtx, xty = Z.T @ Z, Z.T @ zy, X.T @ X, X.T @ y
        for i in range(k):
            s.mean[i] = m[i]
            s.cxy[i] = cxy[i]
            s.xty[i] = xty[i]
            for j in range(k):
                s.cxx[i * k + j] = cxx[i, j]
                s.xtx[i * k + j] = xtx[i, j]
        s.mean[k] = my
        s.cyy = float(zy @ zy)
        s.yty = float(y @ y)
        s.ysum = float(y.sum())
        return s

    def ols(self, s, has_intercept=True):
        o = Ols()
        err = C.create_string_buffer(512)
        st = self.lib.raid_ols_from_stats(C.byref(s), int(has_intercept), C.byref(o), err, len(err))
        if st != RAID_OK:
            raise RaidError(st, err.value.decode())
        return o

    def meat(self, X, y, offsets, beta, max_lag):
        """Meat blocks of len(offsets)-1 problems: array (nreg, max_lag+1, k, k)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        off = np.ascontiguousarray(offsets, dtype=np.int64)
        b = np.ascontiguousarray(beta, dtype=np.float64)
        k, nreg = X.shape[1], len(off) - 1
        out = np.zeros((nreg, max_lag + 1, k, k))
        st = self.lib.raid_reg_meat_compute(self.ctx, X.ctypes.data_as(_dp), y.ctypes.data_as(_dp), k,
                                            off.ctypes.data_as(_i64p), nreg, b.ctypes.data_as(_dp), max_lag,
                                            out.ctypes.data_as(_dp))
        if st != RAID_OK:
            raise RaidError(st, self.lib.raid_ctx_errmsg(self.ctx).decode())
        return out

    def robust(self, s, meat, max_lag, kind, o):
        """A copy of o with robust standard errors from meat (max_lag+1, k, k) of this problem."""
        r = Ols.from_buffer_copy(o)
        m = np.ascontiguousarray(meat, dtype=np.float64)
        st = self.lib.raid_ols_robust(C.byref(s), m.ctypes.data_as(_dp), max_lag, kind, C.byref(r))
        if st != RAID_OK:
            raise RaidError(st, "raid_ols_robust")
        return r
