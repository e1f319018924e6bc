/* gpu_query.c - the public GPU query of convoy.h: what the CUDA part of the
 * library finds (cuda/common/gpu_query.cu), or, in a build without CUDA,
 * that there is none. */
#include "error_internal.h"
#ifdef CONVOY_HAVE_CUDA
#include "gpu_query.h"
#endif

#include <string.h>

int convoy_built_with_cuda(void) {
#ifdef CONVOY_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

int convoy_gpu_count(void) {
#ifdef CONVOY_HAVE_CUDA
  return gpu_query_count();
#else
  convoy_error_set(CONVOY_ERR_NO_DEVICE, "built without CUDA");
  return 0;
#endif
}

convoy_status convoy_gpu_get_info(int index, convoy_gpu_info *info) {
  if (!info)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_gpu_get_info: info is NULL");
  memset(info, 0, sizeof *info);
#ifdef CONVOY_HAVE_CUDA
  return gpu_query_info(index, info);
#else
  (void)index;
  return convoy_error_set(CONVOY_ERR_NO_DEVICE, "built without CUDA");
#endif
}
