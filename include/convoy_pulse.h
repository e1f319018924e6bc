/*
 * convoy_pulse.h - batched pulse compression (matched filtering of radar
 * pulses), public C API.
 *
 * Model
 *   convoy_pulse  a batch geometry (C channels x P pulses x L samples of
 *                 complex float32) and one complex template (the transmitted
 *                 waveform) of T <= L samples. Create windows and normalises
 *                 the template, picks the FFT length and computes the
 *                 template's spectrum once; run() then compresses every pulse
 *                 of a batch.
 *
 * Operation: for every pulse x (L samples) the output is the correlation
 * with the windowed, normalised template w (T samples), i.e. the
 * convolution with the matched filter h[k] = conj(w[T-1-k]):
 *
 *     full[n] = sum_{j=0}^{T-1} x[n - (T-1) + j] * conj(w[j]),  0 <= n < L+T-1
 *
 * (x is zero outside 0 .. L-1), the same as numpy.correlate(x, w, 'full').
 * The peak of a pulse holding an echo of the template at delay d is at
 * full[d + T - 1]. Output modes keep a part of it:
 *   FULL   L + T - 1 samples, full[0 ..]
 *   SAME   L samples, full[(T-1)/2 ..] (integer division): numpy's 'same',
 *          centred, so the echo at delay d peaks near d
 *   VALID  L - T + 1 samples, full[T-1 ..]: no zero-padded overlap; the echo
 *          at delay d peaks at d
 *
 * Layouts (samples are complex float32: two floats, re then im):
 *   CONTIGUOUS   [channel][pulse][sample]: pulse (c, p) starts at complex
 *                sample (c P + p) L of the input and (c P + p) out_len of
 *                the output.
 *   INTERLEAVED  [pulse][sample][channel]: sample s of pulse p of channel c
 *                is complex sample (p L + s) C + c of the input, and
 *                (p out_len + s) C + c of the output (the frames of a
 *                convoy_stream, pulse after pulse).
 *
 * Window (applied to the template before normalisation, symmetric, as
 * numpy's hamming/hanning/kaiser): HAMMING 0.54 - 0.46 cos(2 pi n/(T-1)),
 * HANN 0.5 - 0.5 cos(2 pi n/(T-1)), KAISER I0(beta sqrt(1 - (2n/(T-1) - 1)^2))
 * / I0(beta). A template of one sample gets the weight 1.
 * Normalisation scales the windowed template to unit energy (sum |w|^2 = 1),
 * so that white noise keeps its power through the filter.
 *
 * Engines: CPU (FFTW; one FFT of the chosen length per pulse, pulses spread
 * over threads), GPU (cuFFT and fused kernels; the template spectrum lives
 * on the device). AUTO takes the GPU when one is usable and the batch holds
 * at least 2^16 samples, the CPU otherwise. CONVOY_ENGINE_CPU_FFT and
 * CONVOY_ENGINE_GPU_FFT are accepted as CPU and GPU; the direct engines are
 * CONVOY_ERR_UNSUPPORTED.
 *
 * FFT length: the smallest 2^a 3^b 5^c 7^d >= L + T - 1 (not the power of
 * two above it), for one transform per pulse. The GPU engine may instead
 * run overlap-save in blocks of a power-of-two size when that is cheaper;
 * convoy_pulse_describe() says which.
 *
 * Errors: every call returns a convoy_status; the message of the last
 * failure is in convoy_pulse_last_error() (creation failures:
 * convoy_last_error()). The library never prints and never exits.
 *
 * Thread safety: one object is used by one thread at a time; different
 * objects are independent.
 */
#ifndef CONVOY_PULSE_H
#define CONVOY_PULSE_H

#include "convoy.h"
#include "convoy_export.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum convoy_pulse_mode {
  CONVOY_PULSE_FULL = 0, /* L + T - 1 outputs per pulse */
  CONVOY_PULSE_SAME = 1, /* L outputs, centred */
  CONVOY_PULSE_VALID = 2 /* L - T + 1 outputs */
} convoy_pulse_mode;

typedef enum convoy_pulse_window {
  CONVOY_WINDOW_NONE = 0,
  CONVOY_WINDOW_HAMMING = 1,
  CONVOY_WINDOW_HANN = 2,
  CONVOY_WINDOW_KAISER = 3 /* shape in convoy_pulse_config.kaiser_beta */
} convoy_pulse_window;

typedef enum convoy_pulse_layout {
  CONVOY_PULSE_CONTIGUOUS = 0, /* [channel][pulse][sample] */
  CONVOY_PULSE_INTERLEAVED = 1 /* [pulse][sample][channel] */
} convoy_pulse_layout;

typedef struct convoy_pulse_config {
  int32_t channels;           /* C, 1 .. CONVOY_MAX_CHANNELS; default 1 */
  int32_t pulses;             /* P, >= 1; default 1 */
  int64_t pulse_len;          /* L, samples per pulse, 1 .. 2^26 */
  const float *waveform;      /* template: template_len complex samples (re, im
                                 pairs), copied at create; not owned */
  int64_t template_len;       /* T, 1 .. pulse_len */
  convoy_pulse_mode mode;     /* default FULL */
  convoy_pulse_window window; /* default NONE */
  double kaiser_beta;         /* KAISER shape, 0 .. 50; default 8.6 */
  int32_t normalize;          /* 1: scale the windowed template to unit energy */
  convoy_pulse_layout layout; /* default CONTIGUOUS */
  convoy_engine engine;       /* AUTO, CPU or GPU (see above); default AUTO */
  int32_t device;             /* GPU index; -1 = default (GPU 0) */
  int32_t threads;            /* CPU threads; 0 = convoy_cpu_threads() */
  int32_t plan_effort;        /* 0 = estimate (default): the CPU's FFTW plans by
                                 estimate and the GPU's fused plan by the cost
                                 model, so every run on one device and geometry
                                 gives the same bits; 1 = measure: FFTW_MEASURE
                                 on the CPU, and on the GPU every fused plan that
                                 fits is timed at create (a few ms, once per
                                 geometry and process) and the fastest kept, so
                                 two processes may pick different plans and
                                 differ in the last bits */
} convoy_pulse_config;

/** Fills *config with the defaults above (no waveform, pulse_len 0). */
CONVOY_API void convoy_pulse_config_init(convoy_pulse_config *config);

/** Parses "none", "hamming", "hann" (or "hanning"), "kaiser" or
 *  "kaiser:beta=B" into *window and, for kaiser, *beta (8.6 when not
 *  given). beta may be NULL. Unknown names: CONVOY_ERR_INVALID_ARGUMENT with
 *  the name in convoy_last_error(). */
CONVOY_API convoy_status convoy_pulse_window_from_name(const char *name,
                                                       convoy_pulse_window *window, double *beta);

typedef struct convoy_pulse convoy_pulse;

/** Creates a pulse compressor: checks the geometry (a template longer than
 *  the pulse is CONVOY_ERR_INVALID_ARGUMENT, the message naming both
 *  lengths; a template of zero energy with normalize too), windows and
 *  normalises the template, plans the FFTs and computes the template
 *  spectrum. A GPU engine allocates its device buffers and pinned staging
 *  for one batch here; GPU without a usable device is CONVOY_ERR_NO_DEVICE. */
CONVOY_API convoy_status convoy_pulse_create(convoy_pulse **pulse,
                                             const convoy_pulse_config *config);

/** NULL is a no-op. */
CONVOY_API void convoy_pulse_destroy(convoy_pulse *pulse);

/** Output samples per pulse (by the mode). */
CONVOY_API int64_t convoy_pulse_output_len(const convoy_pulse *pulse);

/** Complex samples of one batch's input (C P L) and output (C P out_len). */
CONVOY_API int64_t convoy_pulse_input_samples(const convoy_pulse *pulse);
CONVOY_API int64_t convoy_pulse_output_samples(const convoy_pulse *pulse);

/** The whole-pulse FFT length (see "FFT length" above). */
CONVOY_API int64_t convoy_pulse_fft_size(const convoy_pulse *pulse);

/** CONVOY_ENGINE_CPU or CONVOY_ENGINE_GPU. */
CONVOY_API convoy_engine convoy_pulse_engine(const convoy_pulse *pulse);

/** Compresses one batch: in holds convoy_pulse_input_samples() complex
 *  samples (host memory, in the configured layout), out receives
 *  convoy_pulse_output_samples(). in and out must not overlap. Returns when
 *  out is written. A GPU engine moves the batch through its pinned staging
 *  buffers (buffers from convoy_host_alloc() are copied from directly). */
CONVOY_API convoy_status convoy_pulse_run(convoy_pulse *pulse, const float *in, float *out);

/** GPU engine only (else CONVOY_ERR_UNSUPPORTED): compresses a batch that is
 *  already in device memory. d_in and d_out are device pointers (of the
 *  engine's device) to the same layouts as convoy_pulse_run(), 8-byte
 *  aligned, not overlapping. cuda_stream is a cudaStream_t (NULL: the legacy
 *  default stream) on which all the work is enqueued; the call returns
 *  without waiting. The object's device buffers are in use until that work
 *  completes, so successive runs of one object must be ordered on the device
 *  (one stream, or events), and d_in/d_out must stay valid until then. */
CONVOY_API convoy_status convoy_pulse_run_device(convoy_pulse *pulse, const void *d_in, void *d_out,
                                                 void *cuda_stream);

/** One line into buf (always NUL-terminated): engine, geometry, FFT plan. */
CONVOY_API convoy_status convoy_pulse_describe(const convoy_pulse *pulse, char *buf,
                                               size_t buf_size);

/** Message of the last failed call on this object; "" if none. */
CONVOY_API const char *convoy_pulse_last_error(const convoy_pulse *pulse);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_PULSE_H */
