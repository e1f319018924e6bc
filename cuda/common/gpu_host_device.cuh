/*
 * gpu_host_device.cuh - for kernel code that the host tests also run (the
 * FFT kernels' passes, the decimating kernels' staging): a function for
 * both sides, a read-only load that takes the non-coherent path on the
 * device, and an unroll hint the host compiler does not warn about.
 * GPU_HDC is for constexpr and static member functions, which are not
 * forced inline.
 */
#ifndef CONVOY_GPU_HOST_DEVICE_CUH
#define CONVOY_GPU_HOST_DEVICE_CUH

#if defined(__CUDA_ARCH__)
#define GPU_LDG(p) __ldg(p)
#define GPU_UNROLL _Pragma("unroll")
#else
#define GPU_LDG(p) (*(p))
#define GPU_UNROLL
#endif
#define GPU_HD __host__ __device__ __forceinline__
#define GPU_HDC __host__ __device__

#endif
