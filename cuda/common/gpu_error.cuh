/*
 * gpu_error.cuh - CUDA and cuFFT failures translated into convoy_status with
 * a one-line message (CUDA C++ only). Every cuda/ file reports through these.
 */
#ifndef CONVOY_GPU_ERROR_CUH
#define CONVOY_GPU_ERROR_CUH

#include "convoy.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include "error_internal.h"
#include <stddef.h>

/* A failed CUDA call: clears the runtime's last error, writes
 * "what: <CUDA message> (<error name>)" and returns the matching status
 * (out of memory, no device, or backend). */
convoy_status gp_cuda_fail(cudaError_t e, const char *what, char *err, size_t err_size);

/* The same for cuFFT results. */
convoy_status gp_cufft_fail(cufftResult r, const char *what, char *err, size_t err_size);

/* Return from the enclosing function (which has err and err_size) on a
 * failure. */
#define GP_CUDA(call, what)                                                                        \
  do {                                                                                             \
    cudaError_t gp_e_ = (call);                                                                    \
    if (gp_e_ != cudaSuccess) return gp_cuda_fail(gp_e_, (what), err, err_size);                   \
  } while (0)

#define GP_CUFFT(call, what)                                                                       \
  do {                                                                                             \
    cufftResult gp_r_ = (call);                                                                    \
    if (gp_r_ != CUFFT_SUCCESS) return gp_cufft_fail(gp_r_, (what), err, err_size);                \
  } while (0)

/* Checks that the kernel just launched was accepted. */
#define GP_LAUNCHED(what) GP_CUDA(cudaGetLastError(), (what))

#endif /* CONVOY_GPU_ERROR_CUH */
