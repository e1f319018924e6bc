/*
 * gpu_util.cuh - what the pipeline-side CUDA files share (CUDA C++ only):
 * CUDA error translation into convoy_status, a scoped current-device switch,
 * and the cached device count.
 */
#ifndef CONVOY_GPU_UTIL_CUH
#define CONVOY_GPU_UTIL_CUH

#include "convoy.h"

#include <cuda_runtime.h>

#include "error_internal.h"
#include <stddef.h>
#include <stdint.h>

/* A failed CUDA call: clears the runtime's last error, writes
 * "what: <CUDA message> (<error name>)" and returns the matching status
 * (out of memory, no device, or backend). */
convoy_status gp_cuda_fail(cudaError_t e, const char *what, char *err, size_t err_size);

/* Returns from the enclosing function (which has err and err_size) on a
 * failed CUDA call. */
#define GP_CUDA(call, what)                                                                        \
  do {                                                                                             \
    cudaError_t gp_e_ = (call);                                                                    \
    if (gp_e_ != cudaSuccess) return gp_cuda_fail(gp_e_, (what), err, err_size);                   \
  } while (0)

/* Usable CUDA devices, asked once per process; 0 without a driver or GPU
 * (and CUDA's last error is then cleared). */
int gp_device_count(void);

/* Makes `device` current for the calling thread for the guard's life, and
 * restores the previous one after. */
class gp_device_guard {
public:
  gp_device_guard() = default;
  gp_device_guard(const gp_device_guard &) = delete;
  gp_device_guard &operator=(const gp_device_guard &) = delete;
  convoy_status enter(int device, char *err, size_t err_size);
  ~gp_device_guard();

private:
  int previous_ = -1;
};

#endif /* CONVOY_GPU_UTIL_CUH */
