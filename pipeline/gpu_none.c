/* gpu_none.c - the GPU query functions of a build without CUDA. With CUDA
 * they live in cuda/common/gpu_query.cu instead. */
#include "error_internal.h"

#ifndef CONVOY_HAVE_CUDA

#include <string.h>

int convoy_built_with_cuda(void) {
  return 0;
}

int convoy_gpu_count(void) {
  convoy_error_set(CONVOY_ERR_NO_DEVICE, "built without CUDA");
  return 0;
}

convoy_status convoy_gpu_get_info(int index, convoy_gpu_info *info) {
  (void)index;
  if (!info)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_gpu_get_info: info is NULL");
  memset(info, 0, sizeof *info);
  return convoy_error_set(CONVOY_ERR_NO_DEVICE, "built without CUDA");
}

#else
typedef int convoy_gpu_none_unused; /* ISO C wants a non-empty translation unit */
#endif
