/* gpu_error.cu - CUDA and cuFFT failures as convoy_status and a message. */
#include "gpu_error.cuh"

static convoy_status status_of_cuda(cudaError_t e) {
  switch (e) {
  case cudaErrorMemoryAllocation:
    return CONVOY_ERR_OUT_OF_MEMORY;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorInvalidDevice:
  case cudaErrorDevicesUnavailable:
  case cudaErrorSystemNotReady:
  case cudaErrorSystemDriverMismatch:
  case cudaErrorCompatNotSupportedOnDevice:
    return CONVOY_ERR_NO_DEVICE;
  default:
    return CONVOY_ERR_BACKEND;
  }
}

convoy_status gp_cuda_fail(cudaError_t e, const char *what, char *err, size_t err_size) {
  (void)cudaGetLastError(); /* leave no error behind for unrelated later calls */
  return convoy_error_format(err, err_size, status_of_cuda(e), "%s: %s (%s)", what,
                             cudaGetErrorString(e), cudaGetErrorName(e));
}

static const char *cufft_name(cufftResult r) {
  switch (r) {
  case CUFFT_SUCCESS:
    return "CUFFT_SUCCESS";
  case CUFFT_INVALID_PLAN:
    return "CUFFT_INVALID_PLAN";
  case CUFFT_ALLOC_FAILED:
    return "CUFFT_ALLOC_FAILED";
  case CUFFT_INVALID_TYPE:
    return "CUFFT_INVALID_TYPE";
  case CUFFT_INVALID_VALUE:
    return "CUFFT_INVALID_VALUE";
  case CUFFT_INTERNAL_ERROR:
    return "CUFFT_INTERNAL_ERROR";
  case CUFFT_EXEC_FAILED:
    return "CUFFT_EXEC_FAILED";
  case CUFFT_SETUP_FAILED:
    return "CUFFT_SETUP_FAILED";
  case CUFFT_INVALID_SIZE:
    return "CUFFT_INVALID_SIZE";
  case CUFFT_UNALIGNED_DATA:
    return "CUFFT_UNALIGNED_DATA";
  case CUFFT_INVALID_DEVICE:
    return "CUFFT_INVALID_DEVICE";
  case CUFFT_NO_WORKSPACE:
    return "CUFFT_NO_WORKSPACE";
  case CUFFT_NOT_IMPLEMENTED:
    return "CUFFT_NOT_IMPLEMENTED";
  case CUFFT_NOT_SUPPORTED:
    return "CUFFT_NOT_SUPPORTED";
  case CUFFT_MISSING_DEPENDENCY:
    return "CUFFT_MISSING_DEPENDENCY";
  default:
    return "unknown cuFFT error";
  }
}

convoy_status gp_cufft_fail(cufftResult r, const char *what, char *err, size_t err_size) {
  /* cuFFT reports CUDA failures in its own codes; the runtime may hold one too. */
  cudaError_t e = cudaGetLastError();
  convoy_status st = r == CUFFT_ALLOC_FAILED ? CONVOY_ERR_OUT_OF_MEMORY : CONVOY_ERR_BACKEND;
  if (e != cudaSuccess)
    return convoy_error_format(err, err_size, st, "%s: cuFFT %s (%d); CUDA: %s", what,
                               cufft_name(r), (int)r, cudaGetErrorString(e));
  return convoy_error_format(err, err_size, st, "%s: cuFFT %s (%d)", what, cufft_name(r), (int)r);
}
