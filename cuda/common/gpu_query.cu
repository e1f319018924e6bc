/*
 * gpu_query.cu - the device count and facts behind convoy_gpu_count /
 * convoy_gpu_get_info (pipeline/gpu_query.c), on the CUDA runtime.
 *
 * The C boundary: only the public convoy.h types cross it. Every CUDA error
 * is translated into a convoy_status with a one-line message in
 * convoy_last_error(), and the runtime's sticky last error is cleared so a
 * failed query does not leak into later, unrelated CUDA calls.
 */
#include "gpu_device.cuh"
#include "gpu_query.h"

#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "convoy.h"
extern "C" {
#include "error_internal.h"
}

/* Clears the runtime's last error after a failed call and returns it. */
static cudaError_t forget_error(cudaError_t e) {
  (void)cudaGetLastError();
  return e;
}

/* A version query's result; 0 when it failed (0 is also what the driver
 * query reports, successfully, when no driver is installed). */
static int32_t version_of(cudaError_t (*query)(int *)) {
  int version = 0;
  cudaError_t e = query(&version);
  if (e != cudaSuccess) {
    forget_error(e);
    return 0;
  }
  return version;
}

extern "C" int gpu_query_count(void) {
  int count = 0;
  cudaError_t e = gp_device_count_query(&count);
  if (e != cudaSuccess) {
    forget_error(e);
    /* cudaErrorNoDevice, cudaErrorInsufficientDriver, ... : a machine
     * without a usable GPU is a normal case, not a failure. */
    convoy_error_set(CONVOY_ERR_NO_DEVICE, "no usable CUDA device: %s (%s)", cudaGetErrorString(e),
                     cudaGetErrorName(e));
    return 0;
  }
  if (count <= 0) {
    convoy_error_set(CONVOY_ERR_NO_DEVICE, "no CUDA device found");
    return 0;
  }
  return count;
}

extern "C" convoy_status gpu_query_info(int index, convoy_gpu_info *info) {
  int count = gpu_query_count();
  if (count == 0) return CONVOY_ERR_NO_DEVICE; /* the reason is already set */
  if (index < 0 || index >= count)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "GPU index %d out of range (%d device%s: 0..%d)", index, count,
                            count == 1 ? "" : "s", count - 1);

  cudaDeviceProp prop;
  cudaError_t e = gp_device_props(index, &prop);
  if (e != cudaSuccess)
    return convoy_error_set(CONVOY_ERR_BACKEND, "GPU %d: cudaGetDeviceProperties: %s", index,
                            cudaGetErrorString(forget_error(e)));

  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->memory_bytes = (int64_t)prop.totalGlobalMem;
  info->compute_major = prop.major;
  info->compute_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->copy_engines = prop.asyncEngineCount;

  info->driver_version = version_of(cudaDriverGetVersion);
  info->runtime_version = version_of(cudaRuntimeGetVersion);
  return CONVOY_OK;
}
