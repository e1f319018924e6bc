/*
 * gpu_util.cuh - what the pipeline-side CUDA files share (CUDA C++ only):
 * error translation (gpu_error.cuh), a scoped current-device switch, and the
 * cached device count.
 */
#ifndef CONVOY_GPU_UTIL_CUH
#define CONVOY_GPU_UTIL_CUH

#include "gpu_error.cuh"

#include <stddef.h>

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
