/*
 * gpu_stream_ops.cu - the GPU engines' whole-stream ops (engine.h): a
 * convoy_stream on gpu-direct or gpu-fft runs through the host-to-host
 * pipeline of gpu_pipeline.h, which overlaps transfers with compute.
 */
#include "gpu_pipeline.h"
extern "C" {
#include "engine.h"
}

namespace {

gpu_pipeline *pipe_of(void *impl) {
  return static_cast<gpu_pipeline *>(impl);
}
const gpu_pipeline *pipe_of(const void *impl) {
  return static_cast<const gpu_pipeline *>(impl);
}

convoy_status whole_create(const engine_request *r, const engine_stream_setup *setup, void **impl,
                           convoy_engine *chosen, char *err, size_t err_size) {
  gpu_pipeline_config pc = {};
  pc.channels = r->channels;
  pc.taps_len = r->taps_len;
  pc.taps = r->taps;
  pc.complex_taps = r->complex_taps;
  /* A choice lets gpu_conv pick direct or FFT by its own model (or by timing). */
  pc.kind = !convoy_engine_is_exact(setup->wanted)      ? GPU_CONV_AUTO
            : setup->wanted == CONVOY_ENGINE_GPU_DIRECT ? GPU_CONV_DIRECT
                                                        : GPU_CONV_FFT;
  pc.device = r->device;
  pc.streams = setup->streams;
  pc.chunk_frames = setup->chunk_frames;
  pc.fft_size = r->fft_size;
  pc.plan_effort = r->plan_effort;
  pc.threads = r->threads;
  pc.out = setup->out;
  pc.decimation = r->decimation > 1 ? r->decimation : 1;
  pc.decimation_phase = setup->decimation_phase;
  pc.shift = setup->shift;
  pc.first_sample = setup->first_sample;
  gpu_pipeline *p = nullptr;
  convoy_status st = gpu_pipeline_create(&pc, &p, err, err_size);
  *impl = p;
  if (st == CONVOY_OK)
    *chosen =
        gpu_pipeline_kind(p) == GPU_CONV_DIRECT ? CONVOY_ENGINE_GPU_DIRECT : CONVOY_ENGINE_GPU_FFT;
  return st;
}

convoy_status whole_process(void *impl, convoy_sample_format fmt, const void *in, int64_t in_frames,
                            void *out, int64_t *out_frames, char *err, size_t err_size) {
  return gpu_pipeline_process(pipe_of(impl), fmt, in, in_frames, out, out_frames, err, err_size);
}

convoy_status whole_flush(void *impl, void *out, int64_t *out_frames, char *err, size_t err_size) {
  return gpu_pipeline_flush(pipe_of(impl), out, out_frames, err, err_size);
}

convoy_status whole_reset(void *impl, char *err, size_t err_size) {
  return gpu_pipeline_reset(pipe_of(impl), err, err_size);
}

int64_t whole_max_output(const void *impl, int64_t in_frames) {
  return gpu_pipeline_max_output(pipe_of(impl), in_frames);
}

int64_t whole_flush_frames(const void *impl) {
  return gpu_pipeline_flush_frames(pipe_of(impl));
}

int64_t whole_latency(const void *impl) {
  return gpu_pipeline_latency(pipe_of(impl));
}

output_tally whole_tally(const void *impl) {
  return gpu_pipeline_output_tally(pipe_of(impl));
}

void whole_stats_range(void *impl, int64_t first, int64_t end) {
  gpu_pipeline_set_stats_range(pipe_of(impl), first, end);
}

void whole_describe(const void *impl, char *buf, size_t buf_size) {
  gpu_pipeline_describe(pipe_of(impl), buf, buf_size);
}

void whole_destroy(void *impl) {
  gpu_pipeline_destroy(pipe_of(impl));
}

int64_t whole_grid(const void *impl) {
  return gpu_pipeline_grid(pipe_of(impl));
}

convoy_status whole_set_history(void *impl, convoy_sample_format fmt, const void *frames, int64_t n,
                                char *err, size_t err_size) {
  return gpu_pipeline_set_history(pipe_of(impl), fmt, frames, n, err, err_size);
}

} // namespace

extern "C" const engine_stream_ops gpu_whole_stream_ops = {
    whole_create,       whole_process, whole_flush,      whole_reset,       whole_max_output,
    whole_flush_frames, whole_latency, whole_tally,      whole_stats_range, whole_describe,
    whole_destroy,      whole_grid,    whole_set_history};
