/* rt_gpu_none.c - the real-time GPU backend of a build without the CUDA
 * engines: none. With them, cuda/gpu_rt*.cu defines rt_backend_gpu(). */
#include "rt_backend.h"

#ifndef CONVOY_HAVE_GPU_ENGINES
const rt_backend_ops *rt_backend_gpu(void) {
  return NULL;
}
#else
typedef int convoy_rt_gpu_none_unused; /* ISO C wants a non-empty translation unit */
#endif
