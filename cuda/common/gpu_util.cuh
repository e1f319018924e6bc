/*
 * gpu_util.cuh - what the pipeline-side CUDA files share (CUDA C++ only):
 * error translation (gpu_error.cuh), the cached device queries
 * (gpu_device.cuh) and a scoped current-device switch.
 */
#ifndef CONVOY_GPU_UTIL_CUH
#define CONVOY_GPU_UTIL_CUH

#include "gpu_device.cuh"
#include "gpu_error.cuh"

#include <stddef.h>

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
