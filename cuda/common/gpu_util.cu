/* gpu_util.cu - device switching, device count. */
#include "gpu_util.cuh"

#include <mutex>

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
