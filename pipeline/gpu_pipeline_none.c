/* gpu_pipeline_none.c - the GPU pipeline's entry points in a build without
 * the CUDA engines: no GPU engine can be chosen there, so only creation and
 * the pinned allocator are ever reached, and they report that. */
#include "gpu_pipeline.h"

#ifndef CONVOY_HAVE_GPU_ENGINES

#include <stdio.h>

convoy_status gpu_pipeline_create(const gpu_pipeline_config *config, gpu_pipeline **out, char *err,
                                  size_t err_size) {
  (void)config;
  if (out) *out = NULL;
  if (err && err_size) snprintf(err, err_size, "convoy was built without CUDA");
  return CONVOY_ERR_UNSUPPORTED;
}

void gpu_pipeline_destroy(gpu_pipeline *p) {
  (void)p;
}

static convoy_status not_built(char *err, size_t err_size) {
  if (err && err_size) snprintf(err, err_size, "convoy was built without CUDA");
  return CONVOY_ERR_UNSUPPORTED;
}

convoy_status gpu_pipeline_process(gpu_pipeline *p, convoy_sample_format fmt, const void *in,
                                   int64_t in_frames, void *out, int64_t *out_frames, char *err,
                                   size_t err_size) {
  (void)p, (void)fmt, (void)in, (void)in_frames, (void)out;
  *out_frames = 0;
  return not_built(err, err_size);
}

convoy_status gpu_pipeline_flush(gpu_pipeline *p, void *out, int64_t *out_frames, char *err,
                                 size_t err_size) {
  (void)p, (void)out;
  *out_frames = 0;
  return not_built(err, err_size);
}

convoy_status gpu_pipeline_reset(gpu_pipeline *p, char *err, size_t err_size) {
  (void)p;
  return not_built(err, err_size);
}

output_tally gpu_pipeline_output_tally(const gpu_pipeline *p) {
  (void)p;
  output_tally t = {0, 0.0};
  return t;
}

int64_t gpu_pipeline_max_output(const gpu_pipeline *p, int64_t in_frames) {
  (void)p, (void)in_frames;
  return 0;
}

int64_t gpu_pipeline_flush_frames(const gpu_pipeline *p) {
  (void)p;
  return 0;
}

int64_t gpu_pipeline_latency(const gpu_pipeline *p) {
  (void)p;
  return 0;
}

gpu_conv_kind gpu_pipeline_kind(const gpu_pipeline *p) {
  (void)p;
  return GPU_CONV_AUTO;
}

int64_t gpu_pipeline_chunk_frames(const gpu_pipeline *p) {
  (void)p;
  return 0;
}

int32_t gpu_pipeline_streams(const gpu_pipeline *p) {
  (void)p;
  return 0;
}

void gpu_pipeline_describe(const gpu_pipeline *p, char *buf, size_t buf_size) {
  (void)p;
  if (buf && buf_size) snprintf(buf, buf_size, "(GPU engines not built)");
}

void *gpu_host_alloc_pinned(size_t bytes) {
  (void)bytes;
  return NULL;
}

void gpu_host_free_pinned(void *ptr) {
  (void)ptr;
}

#else
typedef int convoy_gpu_pipeline_none_unused; /* ISO C wants a non-empty translation unit */
#endif
