/* gpu_util.cu - CUDA error translation, device switching, device count. */
#include "gpu_util.cuh"

#include <mutex>

#include <stdarg.h>
#include <stdio.h>

convoy_status gp_cuda_fail(cudaError_t e, const char *what, char *err, size_t err_size) {
  (void)cudaGetLastError(); /* leave no error behind for unrelated later calls */
  convoy_status st = CONVOY_ERR_BACKEND;
  switch (e) {
  case cudaErrorMemoryAllocation:
    st = CONVOY_ERR_OUT_OF_MEMORY;
    break;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorInvalidDevice:
  case cudaErrorDevicesUnavailable:
  case cudaErrorSystemNotReady:
  case cudaErrorSystemDriverMismatch:
  case cudaErrorCompatNotSupportedOnDevice:
    st = CONVOY_ERR_NO_DEVICE;
    break;
  default:
    break;
  }
  return convoy_error_format(err, err_size, st, "%s: %s (%s)", what, cudaGetErrorString(e),
                             cudaGetErrorName(e));
}

int gp_device_count(void) {
  static std::once_flag once;
  static int count = 0;
  std::call_once(once, [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 0) {
      (void)cudaGetLastError();
      n = 0;
    }
    count = n;
  });
  return count;
}

convoy_status gp_device_guard::enter(int device, char *err, size_t err_size) {
  int now = -1;
  GP_CUDA(cudaGetDevice(&now), "cudaGetDevice");
  if (now != device) {
    GP_CUDA(cudaSetDevice(device), "cudaSetDevice");
    previous_ = now;
  }
  return CONVOY_OK;
}

gp_device_guard::~gp_device_guard() {
  if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}
