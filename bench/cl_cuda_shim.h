/*
 * cl_cuda_shim.h -- just enough OpenCL C for nvcc to compile a RAID kernel file offline, so that its SASS
 * can be read (bench/realized_sass.sh; not part of the library, never linked). It is the CUDA branch that
 * kernels/raid_compat.h describes (RAID_* macros to CUDA), plus the OpenCL vector types and built-ins the
 * realized kernel and kernels/raid_df.h use: uint2/uint4/float2/float4 with the .xy/.zw halves the kernel
 * assigns, broadcast "literals" (uint4)(0u, ...) (only all-equal components are right: the comma operator
 * leaves the last one), fma/fmax/fmin/max, clz, as_float, atomic_max/atomic_or on local memory, and the
 * native_* functions as the PTX approximations NVIDIA's OpenCL uses (ex2/lg2/rcp/div .approx, no ftz).
 * Compile with -fmad=false (FP_CONTRACT OFF) and without fast math. NVIDIA's OpenCL compiler has another
 * front end than nvcc, so the SASS seen here is an estimate of what the H200 runs.
 */
#ifndef CL_CUDA_SHIM_H
#define CL_CUDA_SHIM_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <sys/types.h> /* uint, ulong */

/* Vector types under their OpenCL names (CUDA's own have no .xy/.zw). Trivial, so that they can share a
 * union; the converting constructor serves the broadcast literals. */
struct __align__(8) cl_uint2 {
    uint x, y;
    cl_uint2() = default;
    __device__ explicit cl_uint2(uint a) : x(a), y(a) {}
};
struct __align__(16) cl_uint4 {
    union {
        struct {
            uint x, y, z, w;
        };
        struct {
            cl_uint2 xy, zw;
        };
    };
    cl_uint4() = default;
    __device__ explicit cl_uint4(uint a) : x(a), y(a), z(a), w(a) {}
};
struct __align__(8) cl_float2 {
    float x, y;
};
struct __align__(16) cl_float4 {
    float x, y, z, w;
};
#define uint2 cl_uint2
#define uint4 cl_uint4
#define float2 cl_float2
#define float4 cl_float4

/* The CUDA branch of kernels/raid_compat.h. */
#define RAID_KERNEL extern "C" __global__
#define RAID_GLOBAL
#define RAID_LOCAL __shared__
#define RAID_REQD_WG(n) __launch_bounds__(n)
#define RAID_BARRIER() __syncthreads()
#define RAID_GROUP_ID(d) blockIdx.x
#define RAID_LOCAL_ID(d) threadIdx.x
#define RAID_GLOBAL_ID(d) (blockIdx.x * blockDim.x + threadIdx.x)
#define RAID_LOCAL_SIZE(d) blockDim.x
#define RAID_GLOBAL_SIZE(d) (gridDim.x * blockDim.x)
static __device__ __forceinline__ cl_float2 cl_make_float2(float a, float b)
{
    cl_float2 r;
    r.x = a;
    r.y = b;
    return r;
}
#define RAID_FLOAT2(a, b) cl_make_float2((a), (b))
#define barrier(flags) __syncthreads()
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

/* Built-ins. */
static __device__ __forceinline__ int clz(uint x) { return __clz((int)x); }
static __device__ __forceinline__ float as_float(uint u) { return __uint_as_float(u); }
static __device__ __forceinline__ uint as_uint(float f) { return __float_as_uint(f); }
/* float forms by macro (C++ overloads of these names exist already) */
#define rint(x) rintf(x)
#define ldexp(x, n) ldexpf((x), (n))
#define fma(a, b, c) __fmaf_rn((a), (b), (c))
#define fmax(a, b) fmaxf((a), (b))
#define fmin(a, b) fminf((a), (b))
#define cbrt(x) cbrtf(x)
static __device__ __forceinline__ float native_exp2(float x)
{
    float r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
static __device__ __forceinline__ float native_log2(float x)
{
    float r;
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
static __device__ __forceinline__ float native_recip(float x)
{
    float r;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
static __device__ __forceinline__ float native_divide(float a, float b)
{
    float r;
    asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
static __device__ __forceinline__ float convert_float_rte(long v) { return __ll2float_rn(v); }
static __device__ __forceinline__ long convert_long_rte(float f) { return __float2ll_rn(f); }
static __device__ __forceinline__ void atomic_max(uint *p, uint v) { atomicMax(p, v); }
static __device__ __forceinline__ void atomic_or(uint *p, uint v) { atomicOr(p, v); }

/* The kernels' plain "inline" functions are device functions; the OpenCL branch of raid_df.h is taken. */
#define inline __device__ __forceinline__
#define __OPENCL_C_VERSION__ 120

#endif
