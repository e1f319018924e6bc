/*
 * pulse_internal.h - what the pulse compressor's front (pipeline/pulse.c)
 * hands its CPU (cpu/pulse_cpu.c) and GPU (cuda/pulse/gpu_pulse.cu) backends
 * (internal).
 *
 * The front resolves the configuration into a pulse_geom: sizes, the output
 * window of the full correlation, and the matched filter h (the windowed,
 * normalised template, conjugated and time-reversed), so that a backend only
 * computes, per pulse, out[i] = full[out_start + i] with
 * full = x (*) h, the linear convolution of L + T - 1 samples.
 */
#ifndef CONVOY_PULSE_INTERNAL_H
#define CONVOY_PULSE_INTERNAL_H

#include "convoy_pulse.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pulse_geom {
  int32_t channels;           /* C >= 1 */
  int32_t pulses;             /* P >= 1 */
  int64_t pulse_len;          /* L >= 1 */
  int64_t template_len;       /* T, 1 .. L */
  int64_t out_len;            /* outputs per pulse, >= 1 */
  int64_t out_start;          /* index in the full correlation of output 0 */
  int64_t fft_size;           /* whole-pulse FFT length N >= L + T - 1, 7-smooth */
  convoy_pulse_layout layout; /* input and output layout */
  const float *h;             /* matched filter: T complex taps (2T floats), owned
                                 by the front, valid for the backend's life */
  int32_t threads;            /* CPU threads, >= 1 */
  int32_t device;             /* GPU index, >= 0 */
  int32_t plan_effort;        /* 0 estimate, 1 measure (convoy_pulse_config) */
} pulse_geom;

/* Pulses in a batch, C P. */
static inline int64_t pulse_count(const pulse_geom *g) {
  return (int64_t)g->channels * g->pulses;
}

/* Smallest 2^a 3^b 5^c 7^d >= n (n >= 1); 0 when n > 2^40. */
int64_t pulse_smooth_size(int64_t n);

/* The template after window and normalisation, as the matched filter:
 * h[k] = conj(w[T-1-k]) with w = s * win[j] * template[j]. Writes 2T floats.
 * Returns CONVOY_ERR_INVALID_ARGUMENT (message in err) when normalisation
 * is asked for and the windowed template has no energy, or a value is not
 * finite. */
convoy_status pulse_matched_filter(const float *template_iq, int64_t t, convoy_pulse_window window,
                                   double kaiser_beta, int normalize, float *h, char *err,
                                   size_t err_size);

/* convoy_pulse_create() with the GPU plan forced (gpu_plan as gpu_pulse_plan
 * in cuda/pulse/gpu_pulse.h: 0 model, 1 whole-pulse cuFFT, 2 fused overlap-save);
 * ignored by the CPU engine. For tests and benchmarks. */
convoy_status pulse_create_with_plan(convoy_pulse **out, const convoy_pulse_config *config,
                                     int gpu_plan);

/* ------------------------------------------------------------- backends
 * One per CONVOY_PULSE_BACKEND row of engine_list.def: cpu/pulse_cpu.c
 * (FFTW, one transform of fft_size per pulse, pulses spread over g->threads
 * threads) and cuda/pulse/ (cuFFT). create copies what it needs from g
 * except h, which it only reads while creating; plan is gpu_plan of
 * pulse_create_with_plan() (a backend with one plan ignores it). run_host is
 * not reentrant on one object. */
typedef struct pulse_backend_ops {
  convoy_status (*create)(const pulse_geom *g, int plan, void **impl, char *err, size_t err_size);
  convoy_status (*run_host)(void *impl, const float *in, float *out, char *err, size_t err_size);
  /* NULL for a backend without device memory; stream is a cudaStream_t. */
  convoy_status (*run_device)(void *impl, const void *d_in, void *d_out, void *stream, char *err,
                              size_t err_size);
  void (*describe)(const void *impl, char *buf, size_t buf_size);
  void (*destroy)(void *impl); /* NULL is a no-op */
} pulse_backend_ops;

/* The getters of the listed backends: the ops, or NULL when the backend
 * cannot run here (no usable GPU). One whose row needs CUDA is neither
 * defined nor referenced without it. */
#define CONVOY_PULSE_BACKEND(name, family, needs, getter) const pulse_backend_ops *getter(void);
#include "engine_list.def"

/* The window weight of sample j of t (t >= 1), in double. */
double pulse_window_weight(convoy_pulse_window window, double kaiser_beta, int64_t j, int64_t t);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_PULSE_INTERNAL_H */
