/* gpu_util.cu - the scoped current-device switch. */
#include "gpu_util.cuh"

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
