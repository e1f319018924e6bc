/* pulse_gpu_none.c - the GPU pulse compressor's entry points in a build
 * without the CUDA engines: the front never picks the GPU there (no device
 * is reported), so these only answer that it is not built. */
#include "gpu_pulse.h"

#ifndef CONVOY_HAVE_GPU_ENGINES

#include <stdio.h>

static convoy_status not_built(char *err, size_t err_size) {
  if (err && err_size) snprintf(err, err_size, "pulse: convoy was built without CUDA");
  return CONVOY_ERR_UNSUPPORTED;
}

convoy_status gpu_pulse_create(const pulse_geom *g, gpu_pulse_plan plan, gpu_pulse **out, char *err,
                               size_t err_size) {
  (void)g, (void)plan;
  if (out) *out = NULL;
  return not_built(err, err_size);
}

void gpu_pulse_destroy(gpu_pulse *p) {
  (void)p;
}

convoy_status gpu_pulse_run_host(gpu_pulse *p, const float *in, float *out, char *err,
                                 size_t err_size) {
  (void)p, (void)in, (void)out;
  return not_built(err, err_size);
}

convoy_status gpu_pulse_run_device(gpu_pulse *p, const void *d_in, void *d_out, void *stream,
                                   char *err, size_t err_size) {
  (void)p, (void)d_in, (void)d_out, (void)stream;
  return not_built(err, err_size);
}

void gpu_pulse_describe(const gpu_pulse *p, char *buf, size_t buf_size) {
  (void)p;
  if (buf && buf_size) snprintf(buf, buf_size, "(GPU engines not built)");
}

#else
typedef int convoy_pulse_gpu_none_unused; /* ISO C wants a non-empty translation unit */
#endif
