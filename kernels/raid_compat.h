/*
 * raid_compat.h -- RAID's kernel dialect: every kernel file (the .cl files of kernels/ and the shared headers raid_df.h,
 * raid_keys.h, raid_wg.h) spells its qualifiers, address spaces, work-item indices, barriers, atomics,
 * vector constructors and loads, bit casts and built-in functions with the names defined here, never with
 * OpenCL's or CUDA's own (tests/test_kernel_sources.c rejects those outside this file; the list is
 * tests/kernel_forbidden.txt). One source then serves three compilers:
 *   - OpenCL C 1.2 (__OPENCL_VERSION__): the device layer prepends this file, then the rest of the prelude
 *     (kernels/prelude.txt: raid_df.h, raid_f64.h, raid_keys.h, raid_wg.h), to every program;
 *   - CUDA C++ through NVRTC (RAID_CUDA defined by the CUDA backend, the same prelude prepended). The backend
 *     compiles with --fmad=false (CUDA has no FP_CONTRACT pragma: without it NVRTC contracts a * b + c into
 *     an fma, which the error-free transforms must never see) and -diag-suppress=161 (the files' own
 *     "#pragma OPENCL FP_CONTRACT OFF" is unknown to CUDA), never --use_fast_math; division and square root
 *     keep NVRTC's IEEE defaults (--prec-div=true, --prec-sqrt=true, --ftz=false). docs/device.md lists the
 *     options and tests/test_kernels_nvrtc.c compiles every kernel with them;
 *   - host C (neither): the part the shared headers need (raid_df.h, raid_f64.h, raid_keys.h include this file), so that
 *     host code and tests run the same double-float and key functions.
 * Semantics are OpenCL's in every branch (the CUDA column of docs/device.md says how each is met): atomics
 * return the old value, clz(0) is the width, RAID_MIN/RAID_MAX compare integers of one type, division is
 * IEEE-rounded on the host and under CUDA's defaults (OpenCL allows 2.5 ulp; kernels that need more say so).
 * Never a 64-bit floating type here or in a kernel.
 *
 * Local (shared) memory: a kernel declares it at its outermost scope with RAID_SHARED and a size fixed at
 * build time (a constant, or a -D option of the host's build options); helper functions take pointers to it
 * as RAID_LOCAL T *. No kernel takes local memory as an argument.
 *
 * CUDA launches: the backend launches ceil(global / local) blocks of `local` threads; every RAID kernel is
 * launched with an explicit local size and a global size that is a multiple of it (docs/device.md), and
 * every kernel that maps work-items to elements guards with its own count.
 */
#ifndef RAID_COMPAT_H
#define RAID_COMPAT_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
/* ------------------------------------------------------------------ OpenCL C 1.2 */
#pragma OPENCL FP_CONTRACT OFF
#define RAID_DEVICE 1

/* qualifiers, address spaces */
#define RAID_KERNEL __kernel
#define RAID_REQD_WG(n) __attribute__((reqd_work_group_size(n, 1, 1)))
#define RAID_FN inline
#define RAID_GLOBAL __global
#define RAID_LOCAL __local
#define RAID_SHARED __local
#define RAID_ALIGN(n) __attribute__((aligned(n)))
#define RAID_CONSTANT __constant /* a read-only table at program scope */

/* work-items and work-groups (size_t, as OpenCL's) */
#define RAID_GLOBAL_ID(d) get_global_id(d)
#define RAID_LOCAL_ID(d) get_local_id(d)
#define RAID_GROUP_ID(d) get_group_id(d)
#define RAID_LOCAL_SIZE(d) get_local_size(d)
#define RAID_GLOBAL_SIZE(d) get_global_size(d)
#define RAID_NUM_GROUPS(d) get_num_groups(d)

/* barriers: local memory; local and global memory */
#define RAID_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define RAID_BARRIER_GLOBAL() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

/* 32-bit atomics on global or local int/uint (the old value is returned) */
#define RAID_ATOMIC_ADD(p, v) atomic_add((p), (v))
#define RAID_ATOMIC_INC(p) atomic_inc(p)
#define RAID_ATOMIC_OR(p, v) atomic_or((p), (v))
#define RAID_ATOMIC_MIN(p, v) atomic_min((p), (v))
#define RAID_ATOMIC_MAX(p, v) atomic_max((p), (v))
#define RAID_ATOMIC_XCHG(p, v) atomic_xchg((p), (v))
#define RAID_ATOMIC_CMPXCHG(p, cmp, v) atomic_cmpxchg((p), (cmp), (v))

/* vectors: constructors, two uints at p + 2i */
#define RAID_UINT2(a, b) ((uint2)((a), (b)))
#define RAID_UINT4(a, b, c, d) ((uint4)((a), (b), (c), (d)))
#define RAID_FLOAT2(a, b) ((float2)((a), (b)))
#define RAID_FLOAT4(a, b, c, d) ((float4)((a), (b), (c), (d)))
#define RAID_VLOAD2(i, p) vload2((i), (p))
#define RAID_VSTORE2(v, i, p) vstore2((v), (i), (p))

/* bit casts */
#define RAID_AS_FLOAT(u) as_float(u)
#define RAID_AS_UINT(f) as_uint(f)

/* integer built-ins */
#define RAID_CLZ32(x) ((int)clz((uint)(x)))
#define RAID_CLZ64(x) ((int)clz((ulong)(x)))
#define RAID_POPCOUNT(x) popcount((uint)(x))
#define RAID_MUL_HI(a, b) mul_hi((uint)(a), (uint)(b))
#define RAID_MUL_HI64(a, b) mul_hi((ulong)(a), (ulong)(b)) /* the high word of the 128-bit product */
#define RAID_MIN(a, b) min((a), (b))
#define RAID_MAX(a, b) max((a), (b))

/* float built-ins (binary32) */
#define RAID_FMAF(a, b, c) fma((a), (b), (c))
#define RAID_FABSF(x) fabs(x)
#define RAID_FMAXF(a, b) fmax((a), (b))
#define RAID_FMINF(a, b) fmin((a), (b))
#define RAID_RINTF(x) rint(x)
#define RAID_LDEXPF(x, n) ldexp((x), (n))
#define RAID_ILOGBF(x) ilogb(x)
#define RAID_NEXTAFTERF(a, b) nextafter((a), (b))
#define RAID_ISNAN(x) isnan(x)
#define RAID_NAN NAN
#define RAID_INFINITY INFINITY

/* 64-bit integers and their conversions to and from float, round to nearest even */
typedef uint RaidU32;
typedef long RaidI64;
typedef ulong RaidU64;
#define RAID_I64_TO_F32(v) convert_float_rte(v)
#define RAID_F32_TO_I64(f) convert_long_rte(f)

#elif defined(RAID_CUDA)
/* ------------------------------------------------------------------ CUDA C++ (NVRTC, --fmad=false) */
#if defined(__USE_FAST_MATH__) && __USE_FAST_MATH__ /* (NVRTC defines it, 0 without the option) */
#error "RAID kernels need IEEE binary32 arithmetic: never --use_fast_math"
#endif
#define RAID_DEVICE 1
#if defined(__CUDACC_RTC__) /* NVRTC: no system header */
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long long ulong; /* OpenCL's ulong: 64 bits on every host */
#else /* nvcc offline (bench/realized_sass.sh): glibc's uint, ushort and ulong (64 bits on LP64) */
#include <sys/types.h>
#endif
typedef unsigned char uchar;

#define RAID_KERNEL extern "C" __global__
#define RAID_REQD_WG(n) __launch_bounds__(n)
#define RAID_FN __device__ inline
#define RAID_GLOBAL
#define RAID_LOCAL
#define RAID_SHARED __shared__
#define RAID_ALIGN(n) __align__(n)
#define RAID_CONSTANT __device__ const

__device__ inline size_t raidDim(uint3 v, int d) { return d == 0 ? v.x : d == 1 ? v.y : v.z; }
__device__ inline size_t raidDim(dim3 v, int d) { return d == 0 ? v.x : d == 1 ? v.y : v.z; }
#define RAID_LOCAL_ID(d) raidDim(threadIdx, (d))
#define RAID_GROUP_ID(d) raidDim(blockIdx, (d))
#define RAID_LOCAL_SIZE(d) raidDim(blockDim, (d))
#define RAID_NUM_GROUPS(d) raidDim(gridDim, (d))
#define RAID_GLOBAL_ID(d) (RAID_GROUP_ID(d) * RAID_LOCAL_SIZE(d) + RAID_LOCAL_ID(d))
#define RAID_GLOBAL_SIZE(d) (RAID_NUM_GROUPS(d) * RAID_LOCAL_SIZE(d))

/* __syncthreads orders shared and global memory among the block's threads */
#define RAID_BARRIER() __syncthreads()
#define RAID_BARRIER_GLOBAL() __syncthreads()

/* OpenCL's atomics take volatile pointers; CUDA's do not: the qualifier is cast away (an atomic is a single
 * access either way). atomic_inc is an add of 1 (CUDA's atomicInc wraps at a bound instead). */
#define RAID_CUDA_ATOMICS(T)                                                                                        \
    __device__ inline T raidAtomicAdd(volatile T *p, T v) { return atomicAdd((T *)p, v); }                          \
    __device__ inline T raidAtomicInc(volatile T *p) { return atomicAdd((T *)p, (T)1); }                            \
    __device__ inline T raidAtomicOr(volatile T *p, T v) { return atomicOr((T *)p, v); }                            \
    __device__ inline T raidAtomicMin(volatile T *p, T v) { return atomicMin((T *)p, v); }                          \
    __device__ inline T raidAtomicMax(volatile T *p, T v) { return atomicMax((T *)p, v); }                          \
    __device__ inline T raidAtomicXchg(volatile T *p, T v) { return atomicExch((T *)p, v); }                        \
    __device__ inline T raidAtomicCmpxchg(volatile T *p, T c, T v) { return atomicCAS((T *)p, c, v); }
RAID_CUDA_ATOMICS(uint)
RAID_CUDA_ATOMICS(int)
#undef RAID_CUDA_ATOMICS
#define RAID_ATOMIC_ADD(p, v) raidAtomicAdd((p), (v))
#define RAID_ATOMIC_INC(p) raidAtomicInc(p)
#define RAID_ATOMIC_OR(p, v) raidAtomicOr((p), (v))
#define RAID_ATOMIC_MIN(p, v) raidAtomicMin((p), (v))
#define RAID_ATOMIC_MAX(p, v) raidAtomicMax((p), (v))
#define RAID_ATOMIC_XCHG(p, v) raidAtomicXchg((p), (v))
#define RAID_ATOMIC_CMPXCHG(p, cmp, v) raidAtomicCmpxchg((p), (cmp), (v))

#define RAID_UINT2(a, b) make_uint2((a), (b))
#define RAID_UINT4(a, b, c, d) make_uint4((a), (b), (c), (d))
#define RAID_FLOAT2(a, b) make_float2((a), (b))
#define RAID_FLOAT4(a, b, c, d) make_float4((a), (b), (c), (d))
/* one 8-byte access: p + 2i must be 8-byte aligned here (OpenCL's vload2 needs 4); RAID's buffers and the
 * RAID_ALIGN(8) local arrays it is used on are */
#define RAID_VLOAD2(i, p) (*(const uint2 *)((p) + 2 * (size_t)(i)))
#define RAID_VSTORE2(v, i, p) (*(uint2 *)((p) + 2 * (size_t)(i)) = (v))

__device__ inline float raidAsFloat(uint u) { return __uint_as_float(u); }
__device__ inline float raidAsFloat(int i) { return __int_as_float(i); }
#define RAID_AS_FLOAT(u) raidAsFloat(u)
#define RAID_AS_UINT(f) __float_as_uint(f)

#define RAID_CLZ32(x) __clz((int)(uint)(x))              /* 32 for 0, as OpenCL's clz */
#define RAID_CLZ64(x) __clzll((long long)(RaidU64)(x))  /* 64 for 0 */
#define RAID_POPCOUNT(x) ((uint)__popc((uint)(x)))
#define RAID_MUL_HI(a, b) __umulhi((uint)(a), (uint)(b))
#define RAID_MUL_HI64(a, b) __umul64hi((RaidU64)(a), (RaidU64)(b))
__device__ inline uint raidMin(uint a, uint b) { return a < b ? a : b; }
__device__ inline int raidMin(int a, int b) { return a < b ? a : b; }
__device__ inline uint raidMax(uint a, uint b) { return a > b ? a : b; }
__device__ inline int raidMax(int a, int b) { return a > b ? a : b; }
#define RAID_MIN(a, b) raidMin((a), (b))
#define RAID_MAX(a, b) raidMax((a), (b))

#define RAID_FMAF(a, b, c) __fmaf_rn((a), (b), (c))
#define RAID_FABSF(x) fabsf(x)
#define RAID_FMAXF(a, b) fmaxf((a), (b))
#define RAID_FMINF(a, b) fminf((a), (b))
#define RAID_RINTF(x) rintf(x)
#define RAID_LDEXPF(x, n) ldexpf((x), (n))
/* ilogb(NaN): CUDA gives INT_MIN, clang's OpenCL (PoCL, and the FP_ILOGBNAN of its headers) INT_MAX */
__device__ inline int raidIlogbf(float x) { return isnan(x) ? 0x7FFFFFFF : ilogbf(x); }
#define RAID_ILOGBF(x) raidIlogbf(x)
#define RAID_NEXTAFTERF(a, b) nextafterf((a), (b))
#define RAID_ISNAN(x) ((int)isnan(x))
#define RAID_NAN __int_as_float(0x7FC00000)
#define RAID_INFINITY __int_as_float(0x7F800000)

typedef uint RaidU32;
typedef long long RaidI64;
typedef unsigned long long RaidU64;
#define RAID_I64_TO_F32(v) __ll2float_rn(v)
#define RAID_F32_TO_I64(f) __float2ll_rn(f)

#else
/* ------------------------------------------------------------------ host C (the shared headers only) */
#include <math.h>
#include <stdint.h>
#include <string.h>
#define RAID_FN static inline
#define RAID_CONSTANT static const
typedef uint32_t RaidU32;
typedef int64_t RaidI64;
typedef uint64_t RaidU64;
RAID_FN int raidClz32(RaidU32 x) { return x ? __builtin_clz(x) : 32; }
RAID_FN int raidClz64(RaidU64 x) { return x ? __builtin_clzll(x) : 64; }
RAID_FN float raidAsFloat(RaidU32 u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
RAID_FN RaidU32 raidAsUint(float f)
{
    RaidU32 u;
    memcpy(&u, &f, sizeof u);
    return u;
}
#define RAID_CLZ32(x) raidClz32(x)
#define RAID_CLZ64(x) raidClz64(x)
#define RAID_MUL_HI(a, b) ((RaidU32)(((RaidU64)(RaidU32)(a) * (RaidU32)(b)) >> 32))
#define RAID_MUL_HI64(a, b) ((RaidU64)(((unsigned __int128)(RaidU64)(a) * (RaidU64)(b)) >> 64))
#define RAID_AS_FLOAT(u) raidAsFloat(u)
#define RAID_AS_UINT(f) raidAsUint(f)
#define RAID_FMAF(a, b, c) fmaf((a), (b), (c))
#define RAID_RINTF(x) rintf(x)
#define RAID_LDEXPF(x, n) ldexpf((x), (n))
#define RAID_I64_TO_F32(v) ((float)(v))
#define RAID_F32_TO_I64(f) ((RaidI64)rintf(f))
#endif

#endif /* RAID_COMPAT_H */
