/*
 * gpu_util.cuh - what the pipeline-side CUDA files share (CUDA C++ only):
 * error translation (gpu_error.cuh), the cached device queries
 * (gpu_device.cuh), a scoped current-device switch and the byte-range
 * overlap test.
 */
#ifndef CONVOY_GPU_UTIL_CUH
#define CONVOY_GPU_UTIL_CUH

#include "gpu_device.cuh"
#include "gpu_error.cuh"

#include <stddef.h>
#include <stdint.h>

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

/* Whether the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a
 * byte (an empty range shares none): the device API's in-place checks. */
inline bool gp_bytes_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a_bytes > 0 && b_bytes > 0 && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

#endif /* CONVOY_GPU_UTIL_CUH */
