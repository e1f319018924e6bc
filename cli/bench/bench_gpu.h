/*
 * bench_gpu.h - `convoy bench` for the GPU engines: per tap count and engine,
 * the device-resident rate (include/convoy_cuda.h on buffers already in GPU
 * memory) against the measured device-to-device copy rate, and host-to-host
 * streaming through the stream API from pinned buffers against the measured
 * pinned bus bandwidth in both directions at once. Prints text to stdout.
 */
#ifndef CONVOY_BENCH_GPU_H
#define CONVOY_BENCH_GPU_H

#include "bench_report.h"

/* 1 when engine is one of the GPU engines (GPU, GPU_DIRECT, GPU_FFT) and this
 * build and machine can run it, so that bench_gpu_run() measures it. */
int bench_gpu_handles(convoy_engine engine);

/* Measures every GPU engine of s->engines at every tap count of s: frames
 * gpu_frames, s->channels channels, input format fmt (F32 or S16), s->runs
 * runs; process() calls of s->chunk frames when chunk_set, else the whole
 * signal in one call. Returns the number of failed or wrong measurements;
 * fatal setup errors (allocation, CUDA) count as one and are reported on
 * stderr. */
int bench_gpu_run(const bench_settings *s, int64_t gpu_frames, convoy_sample_format fmt,
                  int chunk_set);

#endif /* CONVOY_BENCH_GPU_H */
