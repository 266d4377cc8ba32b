/*
 * raid_compat.h -- the kernels' compatibility macros (as CLBlast's kernel preamble does): every kernel
 * file spells its qualifiers, indices and barriers with these, so that one source serves each backend.
 * The device layer prepends this file (then raid_df.h, raid_keys.h) to every program it builds. This is the OpenCL C
 * 1.2 branch; a CUDA backend (src/device/device_cuda.c, not built) would compile the same files through
 * NVRTC with RAID_CUDA defined and add the branch below (docs/device.md):
 *   RAID_KERNEL extern "C" __global__, RAID_GLOBAL and RAID_REQD_WG(n) empty, RAID_LOCAL __shared__,
 *   RAID_BARRIER() __syncthreads(), RAID_GROUP_ID(d) blockIdx.x (y, z), RAID_LOCAL_ID(d) threadIdx.x,
 *   RAID_GLOBAL_ID(d) (blockIdx.x * blockDim.x + threadIdx.x), RAID_LOCAL_SIZE(d) blockDim.x,
 *   RAID_FLOAT2(a, b) make_float2(a, b); CUDA has the vector types the kernels use (float2, uint2,
 *   uint4), and raid_df.h's OpenCL-only branch (native_exp2, native_log2, native_recip, native_divide,
 *   fma) would map to __exp2f, __log2f, __frcp_rn, __fdividef and fmaf.
 * Never a 64-bit floating type here or in a kernel.
 */
#ifndef RAID_COMPAT_H
#define RAID_COMPAT_H
#pragma OPENCL FP_CONTRACT OFF

#define RAID_KERNEL __kernel
#define RAID_GLOBAL __global
#define RAID_LOCAL __local
#define RAID_REQD_WG(n) __attribute__((reqd_work_group_size(n, 1, 1)))
#define RAID_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define RAID_GLOBAL_ID(d) get_global_id(d)
#define RAID_LOCAL_ID(d) get_local_id(d)
#define RAID_GROUP_ID(d) get_group_id(d)
#define RAID_LOCAL_SIZE(d) get_local_size(d)
#define RAID_GLOBAL_SIZE(d) get_global_size(d)
#define RAID_FLOAT2(a, b) ((float2)((a), (b)))

#endif
