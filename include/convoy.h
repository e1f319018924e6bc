/*
 * convoy.h - streaming 1-D convolution (FIR filtering), public C API.
 *
 * Objects
 *   convoy_filter  immutable taps, copied at create. Reference counted
 *                  internally: any number of streams may use one filter, and
 *                  the caller may destroy its handle while streams still use it.
 *   convoy_stream  N interleaved channels, one filter for all channels or one
 *                  per channel. Owns its state, plans and buffers.
 *
 * Lifecycle (the same for every object): create / process / flush / reset /
 * destroy. destroy(NULL) is a no-op. Every call returns a convoy_status;
 * convoy_strerror() names it, and convoy_stream_last_error() gives the
 * message of the last failure on that stream. Creation failures (no object
 * yet) leave their message in convoy_last_error(), kept per thread.
 * The library never prints and never exits.
 *
 * Units: counts are frames (one sample of every channel) unless a name says
 * samples; lengths are 64-bit. Samples are float32, nominal full scale +-1.0.
 *
 * Output timing: process() may hold back up to convoy_stream_latency()
 * frames of input (the FFT engines work in whole blocks aligned to the start
 * of the signal). Output frame k is always y[k] of the full convolution
 * y[k] = sum_j h[j] x[k-j], in order, with nothing skipped: after all input
 * and one flush() the stream has produced exactly in_total + taps - 1 frames.
 * Any cutting of the input into process() calls yields bitwise the same
 * output as a single call, for every engine. A stream may also start inside
 * a signal (config.first_sample, "Exact ranges (warm start)"): ranges
 * filtered apart then give bitwise the output of one stream over the whole.
 *
 * Thread safety: functions on different objects may run concurrently. One
 * stream must not be used by two threads at once. Filters are read-only
 * after create and may be shared freely.
 */
#ifndef CONVOY_H
#define CONVOY_H

#include "convoy_export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONVOY_VERSION_MAJOR 0
#define CONVOY_VERSION_MINOR 1
#define CONVOY_VERSION_PATCH 0

/** Most channels one stream carries. */
#define CONVOY_MAX_CHANNELS 1024

typedef enum convoy_status {
  CONVOY_OK = 0,
  CONVOY_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, count out of range, overlap */
  CONVOY_ERR_OUT_OF_MEMORY = 2,    /* host or device allocation failed */
  CONVOY_ERR_UNSUPPORTED = 3,      /* engine or sample type not built in */
  CONVOY_ERR_NO_DEVICE = 4,        /* GPU engine asked for, no usable GPU */
  CONVOY_ERR_STATE = 5,            /* call not allowed now (process after flush) */
  CONVOY_ERR_BACKEND = 6,          /* FFTW, CUDA or cuFFT reported a failure */
  CONVOY_ERR_IO = 7,               /* reading or writing a file failed */
  CONVOY_ERR_FORMAT = 8,           /* a file's contents are invalid */
  CONVOY_ERR_INTERNAL = 9          /* a bug: please report it */
} convoy_status;

/** Short English text for a status; never NULL, static storage. */
CONVOY_API const char *convoy_strerror(convoy_status status);

/** Message of the last failed create (or other object-less) call on this
 *  thread; "" if none. Valid until the next failing call on this thread. */
CONVOY_API const char *convoy_last_error(void);

/** "MAJOR.MINOR.PATCH"; static storage. */
CONVOY_API const char *convoy_version(void);

/* ------------------------------------------------------------------ engines */

/* Engine ids. Each is named, given a family and (for exact engines) its
 * implementation in one list, pipeline/engine_list.def; callers that show or
 * parse engines enumerate them with convoy_engine_count()/convoy_engine_at()
 * rather than naming them. The numbers are stable; new engines take new
 * numbers at the end. */
typedef enum convoy_engine {
  CONVOY_ENGINE_AUTO = 0,       /* cheapest available, by cost model */
  CONVOY_ENGINE_CPU = 1,        /* cheapest CPU engine */
  CONVOY_ENGINE_CPU_DIRECT = 2, /* direct form, vectorised */
  CONVOY_ENGINE_CPU_FFT = 3,    /* FFTW overlap-save */
  CONVOY_ENGINE_GPU = 4,        /* cheapest GPU engine */
  CONVOY_ENGINE_GPU_DIRECT = 5, /* register-tap direct kernel */
  CONVOY_ENGINE_GPU_FFT = 6     /* cuFFT overlap-save */
} convoy_engine;

/* Where an engine runs. A choice (auto, cpu, gpu) has the family it chooses
 * within; auto's is CONVOY_FAMILY_ANY. */
typedef enum convoy_family {
  CONVOY_FAMILY_ANY = 0,
  CONVOY_FAMILY_CPU = 1,
  CONVOY_FAMILY_GPU = 2
} convoy_family;

/** How many engine ids there are: every exact engine and every choice, in
 *  this build or not (convoy_engine_available() says which can run). */
CONVOY_API int32_t convoy_engine_count(void);

/** The engine id at index (0 .. convoy_engine_count() - 1), in listing order:
 *  auto, then each family's choice followed by its exact engines. Out of
 *  range: CONVOY_ENGINE_AUTO. */
CONVOY_API convoy_engine convoy_engine_at(int32_t index);

/** The engine's family; CONVOY_FAMILY_ANY for auto and unknown ids. */
CONVOY_API convoy_family convoy_engine_family(convoy_engine engine);

/** 1 for one engine (cpu-fft, say), 0 for a choice among several (auto, cpu,
 *  gpu) and for unknown ids. */
CONVOY_API int convoy_engine_is_exact(convoy_engine engine);

/** The choice that picks the cheapest engine of a family: CONVOY_ENGINE_CPU
 *  for CONVOY_FAMILY_CPU, CONVOY_ENGINE_GPU for CONVOY_FAMILY_GPU,
 *  CONVOY_ENGINE_AUTO for CONVOY_FAMILY_ANY. */
CONVOY_API convoy_engine convoy_family_choice(convoy_family family);

/** The CPU engine that serves what the engine would when no GPU is usable:
 *  the CPU engine of the same method for an exact GPU engine (gpu-fft ->
 *  cpu-fft), the CPU choice for the GPU choice; other ids map to themselves. */
CONVOY_API convoy_engine convoy_engine_cpu_fallback(convoy_engine engine);

/** "auto", "cpu", "cpu-direct", "cpu-fft", "gpu", "gpu-direct", "gpu-fft";
 *  "unknown" for other values. Static storage. */
CONVOY_API const char *convoy_engine_name(convoy_engine engine);

/** Parses a name as printed by convoy_engine_name(). */
CONVOY_API convoy_status convoy_engine_from_name(const char *name, convoy_engine *engine);

/** 1 when the engine (or, for AUTO/CPU/GPU, any engine of the family) can run
 *  here: built in and, for GPU engines, a usable device present. */
CONVOY_API int convoy_engine_available(convoy_engine engine);

/** Number of online CPU threads the CPU engines use by default. */
CONVOY_API int convoy_cpu_threads(void);

/* ------------------------------------------------------------------ GPUs */

typedef struct convoy_gpu_info {
  char name[256];        /* e.g. "NVIDIA H200" */
  int64_t memory_bytes;  /* total device memory */
  int32_t compute_major; /* compute capability */
  int32_t compute_minor;
  int32_t multiprocessors;
  int32_t copy_engines;    /* asynchronous copy engines (asyncEngineCount) */
  int32_t driver_version;  /* CUDA driver API version, e.g. 13000; 0 if no driver */
  int32_t runtime_version; /* CUDA runtime the library was built with */
} convoy_gpu_info;

/** Number of usable CUDA devices: 0 when none, no driver, or convoy was built
 *  without CUDA. Never fails; the reason for 0 is in convoy_last_error(). */
CONVOY_API int convoy_gpu_count(void);

/** Fills *info for device index (0 .. convoy_gpu_count()-1). */
CONVOY_API convoy_status convoy_gpu_get_info(int index, convoy_gpu_info *info);

/** 1 when this library was built with the CUDA engines. */
CONVOY_API int convoy_built_with_cuda(void);

/* ------------------------------------------------------------------ filters */

typedef enum convoy_sample_type {
  CONVOY_SAMPLE_F32 = 0, /* real float32 */
  CONVOY_SAMPLE_CF32 = 1 /* complex float32: one value is two floats, re then im */
} convoy_sample_type;

typedef struct convoy_filter convoy_filter;

/** Creates a filter from n_taps real taps (1 <= n_taps <= 2^31), copied.
 *  Taps must be finite. y[k] = sum_j taps[j] * x[k-j]. */
CONVOY_API convoy_status convoy_filter_create(convoy_filter **filter, const float *taps,
                                              int64_t n_taps);

/** As convoy_filter_create, for a given tap type: CONVOY_SAMPLE_F32 reads
 *  n_taps floats, CONVOY_SAMPLE_CF32 n_taps complex taps (2 x n_taps floats,
 *  re then im). */
CONVOY_API convoy_status convoy_filter_create_typed(convoy_filter **filter, convoy_sample_type type,
                                                    const void *taps, int64_t n_taps);

/** Releases the caller's handle; streams using the filter keep it alive. */
CONVOY_API void convoy_filter_destroy(convoy_filter *filter);

CONVOY_API int64_t convoy_filter_length(const convoy_filter *filter);

/** The taps, owned by the filter, valid while the filter lives: length
 *  floats, or 2 x length (re, im interleaved) for a complex filter. */
CONVOY_API const float *convoy_filter_taps(const convoy_filter *filter);

/** CONVOY_SAMPLE_F32 or CONVOY_SAMPLE_CF32 (complex taps). */
CONVOY_API convoy_sample_type convoy_filter_type(const convoy_filter *filter);

/** Group delay in frames. For linear-phase taps (symmetric or antisymmetric)
 *  this is exactly (n_taps - 1) / 2 and *linear_phase is set to 1; otherwise
 *  it is the index of the tap of largest magnitude and *linear_phase is 0.
 *  Complex taps count as linear-phase when h[i] = u conj(h[n-1-i]) for one
 *  u of modulus 1 (conjugate symmetric, or a linear-phase real filter
 *  shifted in frequency); magnitude is |h|. linear_phase may be NULL. */
CONVOY_API double convoy_filter_group_delay(const convoy_filter *filter, int *linear_phase);

/* ------------------------------------------------------------------ streams */

/** Sample formats of stream input (process_samples(), process_to()) and
 *  output (process_to(), flush_to()). Integers are native-endian and
 *  scaled to float so that full scale is +-1.0. */
typedef enum convoy_sample_format {
  CONVOY_FORMAT_F32 = 0, /* float32, used as is */
  CONVOY_FORMAT_S16 = 1, /* int16, times 1/32768 */
  CONVOY_FORMAT_S32 = 2, /* int32, times 1/2^31; 24-bit PCM arrives left-justified
                            in 32 bits, as libsndfile reads it */
  CONVOY_FORMAT_S8 = 3,  /* int8, times 1/128 (ci8 captures) */
  CONVOY_FORMAT_U8 = 4   /* uint8 offset binary, (x - 128) / 128 (cu8 captures) */
} convoy_sample_format;

/* Complex streams (config.sample = CONVOY_SAMPLE_CF32): a frame holds one
 * complex value per channel, interleaved as re0, im0, re1, im1, ...: 2 x
 * channels values of the sample format, so a cu8 capture is U8 and a ci16
 * one S16. Frame counts and capacities are in frames, as for real streams.
 * Real filters filter the real and imaginary parts alike (their spectra
 * stay real: nothing complex is computed per call); complex filters (taps
 * from convoy_filter_create_typed(CONVOY_SAMPLE_CF32, ...)) give the complex
 * convolution y[k] = sum_j h[j] x[k-j], without conjugation. A complex filter
 * on a real stream is CONVOY_ERR_INVALID_ARGUMENT. Integer output formats
 * quantize the real and imaginary parts as two samples. */

typedef struct convoy_stream_config {
  int32_t channels;                   /* 1 .. CONVOY_MAX_CHANNELS; default 1 */
  convoy_engine engine;               /* default CONVOY_ENGINE_AUTO */
  convoy_sample_type sample;          /* default CONVOY_SAMPLE_F32; CONVOY_SAMPLE_CF32 for
                                         complex streams (see "Complex streams") */
  int32_t threads;                    /* CPU threads; 0 = convoy_cpu_threads(); the CPU
                                         engines run at most 1024. The GPU
                                         engines use up to 8 of them for host copies. */
  int64_t fft_size;                   /* FFT engines: 0 = cost model; else a size >= taps.
                                         gpu-fft rounds it up to a power of two, at least
                                         max(64, taps + 3) and at most 2^26. */
  int32_t plan_effort;                /* 0 = estimate (fast create), 1 = measure (slower
                                         create, faster run): FFTW planning, and for the
                                         GPU the choice of engine and FFT size by timing */
  int32_t device;                     /* GPU index; -1 = default (GPU 0) */
  int32_t gpu_streams;                /* GPU pipeline depth: CUDA streams, each carrying
                                         one chunk at a time, 2 .. 16; 0 = default (3);
                                         1 is taken as 2 */
  int64_t chunk_frames;               /* GPU transfer chunk in frames; 0 = default (about
                                         8 MiB of output: 2^21 float32 samples or 2^22
                                         S16 samples over all channels). Rounded up to
                                         the GPU engine's granule (the FFT block). */
  convoy_sample_format output_format; /* what process_to() and flush_to() write;
                                         default F32. S16, S32, S8 and U8 are quantized
                                         as described at convoy_stream_process_to(); a
                                         GPU engine does it on the GPU, so the bus
                                         carries the integer width. */
  int32_t output_bits;                /* integer output: significant bits, 0 = the
                                         format's width; 2..16 for S16, 2..32 for S32,
                                         2..8 for S8 and U8.
                                         Codes are left-justified (24-bit PCM is S32
                                         with output_bits 24, as libsndfile writes it). */
  int32_t dither;                     /* integer output of <= 16 bits: 1 = TPDF dither */
  uint64_t dither_seed;               /* dither noise seed (same seed, same codes) */
  int32_t decimation;                 /* keep every D-th output frame: 1 (default, none)
                                         .. CONVOY_MAX_DECIMATION; see "Decimation and
                                         frequency shift" */
  double shift;                       /* frequency translation in cycles per input
                                         sample, -0.5 .. 0.5; complex streams only;
                                         0 (default) = none */
  int32_t decimation_phase;           /* which outputs decimation keeps: y[n D + phase],
                                         0 (default) .. D - 1; see "Decimation and
                                         frequency shift" */
  int64_t first_sample;               /* absolute index in the signal of the first input
                                         frame process() takes: 0 (default) .. 2^62; see
                                         "Exact ranges (warm start)" */
} convoy_stream_config;

/* Decimation and frequency shift (config.decimation D, config.shift f): a
 * frequency-translating decimating FIR filter, as GNU Radio's
 * freq_xlating_fir_filter. With x the input of a channel, k and n 64-bit
 * absolute indices from the start of the signal (the stream's first input
 * frame is x[config.first_sample], 0 by default, also after a reset),
 *   y[k] = sum_j h[j] x[k-j] e^{-j 2 pi f (k-j)}   (x moved down by f cycles
 *                                                   per sample, then filtered)
 *   output frame n = y[n D + P],  P = config.decimation_phase (0 .. D - 1).
 * The decimation grid is fixed at absolute frame 0: output n is y[n D + P]
 * whatever the chunking, so any cutting of the input gives bitwise the same
 * output. The phase picks which outputs are kept, nothing else: the shift's
 * rotation still follows the absolute index k (a caller that drops the
 * first S outputs of y, as an alignment does, keeps y[S], y[S + D], ... with
 * P = S mod D).
 * It is computed as: taps rotated once at create, h'[j] = h[j] e^{j 2 pi f j}
 * (in double, rounded to float; real taps become complex when f != 0),
 * filtered, and output n multiplied by e^{-j 2 pi f (n D + P)}, a phase taken from
 * the absolute index in double precision (exact to about 1e-16 of a cycle for
 * indices below 2^53). With D > 1 every stream count is in output frames:
 * max_output() and flush_frames() count decimated frames; after all input and
 * a flush a stream from frame 0 has produced ceil((in_total + taps - 1 - P) /
 * D) frames.
 * convoy_stream_latency() stays in input frames and grows by D - 1.
 * Cost: cpu-direct computes only every D-th output (work proportional to the
 * output rate; AUTO and CPU count its cost divided by D); cpu-fft keeps its
 * FFT size a multiple of D, folds each block's spectrum and runs the inverse
 * transform at 1/D of the size (the forward transform stays at the input
 * rate). gpu-direct computes only the kept outputs (equal to the full-rate
 * ones to rounding); gpu-fft with complex taps on its cuFFT path (long
 * filters) and D a power of two folds its spectra like cpu-fft, and
 * otherwise computes every output and keeps every D-th. Both rotate and
 * quantize the kept frames on the GPU in the output pass, so the bus carries
 * 1/D of the output, in the output format. The engines differ by float
 * rounding, as without decimation. A phase P != 0 is served at the full-rate
 * cost on cpu-fft and on a gpu-fft plan that would fold (every output
 * computed, the kept ones picked). A shift on a real stream, |f| > 0.5, a
 * non-finite f, D outside 1 .. CONVOY_MAX_DECIMATION or P outside 0 .. D - 1
 * is CONVOY_ERR_INVALID_ARGUMENT. */

/* Exact ranges (warm start). A signal x[0 .. N) may be cut into ranges
 * [s, e) that are filtered apart, on other threads, processes or machines,
 * and whose outputs, put end to end, are bitwise the output of one stream
 * over the whole signal (same filters and configuration), on every engine,
 * real and complex, with any decimation, phase and shift. For each range:
 *
 *   1. Create the stream with config.first_sample = s. Every index is then
 *      absolute: process() takes x[s], x[s + 1], ..., and the stream's output
 *      frame i is the whole run's output frame n0 + i, n0 = ceil((s - P) / D)
 *      with decimation D and phase P (n0 = s without decimation): y[s + i],
 *      or y[(n0 + i) D + P]. The FFT
 *      engines' blocks, the GPU engines' chunks, the decimation grid, the
 *      shift's rotation and the dither noise all follow the absolute index.
 *   2. Call convoy_stream_set_history() with the H =
 *      convoy_stream_history_frames() frames before s, x[s - H .. s).
 *   3. process() the frames x[s .. min(N, e + A)), A =
 *      convoy_stream_lookahead_frames(stream, e), then flush().
 *   4. The first convoy_stream_range_frames(stream, e) output frames are the
 *      range's: y[k] for s <= k < e (the kept ones with decimation). The
 *      frames after them are computed from the lookahead and then from zeros:
 *      drop them, except in the last range (e = N), where they are the
 *      whole run's ring-out (its flush) and belong to the output.
 *
 * Why more than taps - 1 frames around a range: an FFT engine computes each
 * block of outputs from the whole block's input, so an output's rounding
 * depends on the other inputs of its block, and the blocks sit on a grid of
 * absolute indices. H is taps - 1 plus the distance from s back to the
 * grid (0 on the direct engines, less than one FFT block on the FFT
 * engines, where the outputs of those frames are computed and dropped), and
 * never more than s, since a whole run sees zeros before x[0]; A completes
 * the range's last block (0 on the direct engines). Past x[N - 1] the whole
 * run sees zeros too, so a lookahead cut short at N is still exact.
 *
 * Fewer history frames than H (none included) stand for zeros before them:
 * exact when the signal is zero there; otherwise the range starts with the
 * start-up transient of a signal that was silent before s (its first taps -
 * 1 outputs differ from the whole run's), and after that equals the whole
 * run bitwise on the direct engines and to float rounding on the FFT
 * engines. A range is an ordinary stream in every other way: same errors,
 * latency and counts (after all input and a flush it has written the kept
 * frames of y[s .. s + in_total + taps - 1)); reset() returns it to its
 * first sample with zero history. Ranges are independent streams, so they
 * may run concurrently (each stream on one thread at a time, as always). */

/** Largest config.decimation. */
#define CONVOY_MAX_DECIMATION 4096

/** Fills *config with the defaults above. */
CONVOY_API void convoy_stream_config_init(convoy_stream_config *config);

typedef struct convoy_stream convoy_stream;

/** Creates a stream. n_filters is 1 (one filter for every channel) or
 *  config->channels (filter c for channel c; lengths may differ). config may
 *  be NULL for the defaults (mono, auto engine). With CONVOY_ENGINE_AUTO a GPU
 *  engine is used only where it is cheaper by the cost model (which counts
 *  the host transfers); without a usable GPU, AUTO and CPU quietly use a CPU
 *  engine, while GPU, GPU_DIRECT and GPU_FFT fail with CONVOY_ERR_NO_DEVICE
 *  (message in convoy_last_error()). A device index >= convoy_gpu_count()
 *  with a GPU-capable engine is CONVOY_ERR_NO_DEVICE too.
 *
 *  GPU streams: input is cut into chunks of chunk_frames frames at fixed
 *  positions from the stream's first frame (config.first_sample, moved back
 *  to the FFT block grid); each chunk crosses the bus in the
 *  caller's sample format, is converted and deinterleaved on the GPU, filtered
 *  and interleaved there, and comes back, on one of gpu_streams CUDA streams,
 *  so that copies both ways overlap the filtering, across process() calls
 *  too. Create allocates the pinned staging ring (2 x gpu_streams chunks) and
 *  the device buffers once; if the device runs out of memory, create retries
 *  with smaller chunks before failing with CONVOY_ERR_OUT_OF_MEMORY. */
CONVOY_API convoy_status convoy_stream_create(convoy_stream **stream,
                                              const convoy_stream_config *config,
                                              convoy_filter *const *filters, int32_t n_filters);

CONVOY_API void convoy_stream_destroy(convoy_stream *stream);

/** Filters in_frames interleaved frames. Writes *out_frames frames to out,
 *  never more than convoy_stream_max_output(stream, in_frames) frames, which
 *  out_capacity (in frames) must cover. in and out must not overlap
 *  (in-place is not allowed). in may be NULL when in_frames is 0. in and out
 *  are host memory; the caller may reuse both as soon as the call returns.
 *  Allocates nothing. A stream whose config.output_format is not F32 writes
 *  only through process_to() and flush_to(); process(), process_samples()
 *  and flush() return CONVOY_ERR_INVALID_ARGUMENT on it.
 *  After flush() it returns CONVOY_ERR_STATE until reset().
 *  After any other failure the stream's state is unknown: it returns
 *  CONVOY_ERR_STATE until reset().
 *
 *  GPU engines: the call hands whole chunks to the GPU and returns the output
 *  of the chunks that have completed, in order; it waits for the GPU only
 *  when all gpu_streams chunks are in flight, and at the end for its own
 *  transfers from in and to out. Output therefore lags input by up to about
 *  gpu_streams + 1 chunks (convoy_stream_latency()); flush() returns the
 *  rest. Buffers from convoy_host_alloc() (or otherwise pinned) travel over
 *  the bus directly; others are copied through the pinned staging ring. */
CONVOY_API convoy_status convoy_stream_process(convoy_stream *stream, const float *in,
                                               int64_t in_frames, float *out, int64_t out_capacity,
                                               int64_t *out_frames);

/** Bytes of one sample of fmt (F32 4, S16 2, S32 4, S8 1, U8 1); 0 for an
 *  unknown value. */
CONVOY_API size_t convoy_sample_format_bytes(convoy_sample_format fmt);

/** convoy_stream_process() for input in any convoy_sample_format: in holds
 *  in_frames interleaved frames of fmt. The output is float32, the same bits
 *  that convoy_stream_process() gives for the input converted to float32
 *  (the conversions are exact, except that int32 rounds to float32's 24-bit
 *  mantissa, to nearest). Calls with different formats may be mixed on one
 *  stream. A CPU engine converts while deinterleaving; a GPU engine moves the
 *  samples over the bus in their own width (S16 carries half the bytes of
 *  F32) and converts on the GPU. Everything else is as convoy_stream_process(),
 *  in_frames and overlap counted in frames of fmt. Unknown fmt:
 *  CONVOY_ERR_INVALID_ARGUMENT. */
CONVOY_API convoy_status convoy_stream_process_samples(convoy_stream *stream,
                                                       convoy_sample_format fmt, const void *in,
                                                       int64_t in_frames, float *out,
                                                       int64_t out_capacity, int64_t *out_frames);

/** The general form of process(): input in any convoy_sample_format, output
 *  in the stream's config.output_format (F32, or S16/S32 integer codes).
 *  out holds out_capacity frames of that format. Everything else is as
 *  convoy_stream_process_samples().
 *
 *  Integer output, per sample x of the float output (b = output_bits,
 *  full = 2^(b-1), codes -full .. full-1, left-justified in the format):
 *  code = floor(x * full + 0.5), stored as is, except U8 which stores the S8
 *  code + 128 (offset binary); a sample whose code would fall outside the
 *  range (x >= 1 - 0.5/full, x < -1 - 0.5/full, or NaN) is saturated (NaN to
 *  0) and counted as clipped. With dither, TPDF noise of (-1, 1) LSB is added
 *  before rounding (and the result limited, not counted): the noise depends
 *  only on dither_seed and the sample's position in the output (counted from
 *  absolute frame 0 with a warm start), so the codes do not depend on how
 *  the input was cut into calls or ranges. The float outputs of
 *  different engines differ by float rounding, so their codes may differ by
 *  one LSB; on one engine they are the same bits as quantizing the output of
 *  an F32 stream. */
CONVOY_API convoy_status convoy_stream_process_to(convoy_stream *stream,
                                                  convoy_sample_format in_format, const void *in,
                                                  int64_t in_frames, void *out,
                                                  int64_t out_capacity, int64_t *out_frames);

/** flush() writing config.output_format (see convoy_stream_process_to()). */
CONVOY_API convoy_status convoy_stream_flush_to(convoy_stream *stream, void *out,
                                                int64_t out_capacity, int64_t *out_frames);

typedef struct convoy_output_stats {
  int64_t clipped; /* integer output: samples saturated since create/reset */
  double peak;     /* integer output: max |x| before quantizing (NaN ignored) */
} convoy_output_stats;

/** Counters of the integer output since create or reset (both 0 for F32
 *  output, which is never clipped), over the frames of
 *  convoy_stream_set_stats_range() (all of them unless it was called). */
CONVOY_API convoy_status convoy_stream_output_stats(const convoy_stream *stream,
                                                    convoy_output_stats *stats);

/** Restricts the counters of convoy_stream_output_stats() to the output
 *  frames [first, end) (end < 0: to the end), numbered from 0 at the first
 *  frame that process_to()/flush_to() return after create or reset. For a
 *  caller that keeps part of the output, say without the ring-out that
 *  flush_to() returns: its counters then describe what it keeps. The codes
 *  and the dither are not changed. A frame is counted as the range stands
 *  when the stream quantizes it, which can be before the call that returns
 *  it (a GPU stream works ahead by its latency, convoy_stream_latency()),
 *  so set the range before the process_to() calls whose output it
 *  concerns: the start at create, the end at the latest before flush_to()
 *  when only the ring-out is to be left out. A later call replaces the
 *  range; create and reset count every frame. CONVOY_ERR_INVALID_ARGUMENT
 *  for first < 0 or 0 <= end < first. */
CONVOY_API convoy_status convoy_stream_set_stats_range(convoy_stream *stream, int64_t first,
                                                       int64_t end);

/** Upper bound on the frames the next process() of in_frames may write. */
CONVOY_API int64_t convoy_stream_max_output(const convoy_stream *stream, int64_t in_frames);

/** Ends the input: writes every held-back frame and the taps-1 frames of
 *  ring-out, exactly convoy_stream_flush_frames() frames. */
CONVOY_API convoy_status convoy_stream_flush(convoy_stream *stream, float *out,
                                             int64_t out_capacity, int64_t *out_frames);

/** Frames the next flush() writes (held-back input + taps - 1). */
CONVOY_API int64_t convoy_stream_flush_frames(const convoy_stream *stream);

/** Returns the stream to its just-created state (zero history, at
 *  config.first_sample), keeping plans. */
CONVOY_API convoy_status convoy_stream_reset(convoy_stream *stream);

/** Frames of history a stream wants before config.first_sample, in
 *  convoy_stream_set_history(): min(s, taps - 1 + (s mod G)), G the
 *  engine's block grid (1 for the direct engines, the FFT block for the FFT
 *  engines, fixed at create); 0 when first_sample is 0 or stream is NULL. */
CONVOY_API int64_t convoy_stream_history_frames(const convoy_stream *stream);

/** Sets the frames before config.first_sample: frames holds n_frames
 *  interleaved frames of fmt (real or complex as the stream's input), the
 *  last of them x[first_sample - 1]. Only the last
 *  convoy_stream_history_frames() of them are used; fewer stand for zeros
 *  before them (see "Exact ranges (warm start)"). frames may be NULL when
 *  n_frames is 0 and is not kept after the call. Allowed after create or
 *  reset, before the first process, process_samples, process_to, flush or
 *  flush_to; a second call replaces the first. Errors: NULL stream, unknown
 *  fmt, n_frames < 0 or frames NULL with n_frames > 0:
 *  CONVOY_ERR_INVALID_ARGUMENT; called after the stream has started (or
 *  failed): CONVOY_ERR_STATE; a GPU engine's CUDA failure:
 *  CONVOY_ERR_BACKEND, after which the stream needs a reset. Allocates
 *  nothing on the CPU engines. */
CONVOY_API convoy_status convoy_stream_set_history(convoy_stream *stream, convoy_sample_format fmt,
                                                   const void *frames, int64_t n_frames);

/** Input frames past absolute index end that make the outputs y[k], k < end,
 *  exact: up to the next multiple of the engine's block grid (0 for the
 *  direct engines, and for end <= 0 or a NULL stream). */
CONVOY_API int64_t convoy_stream_lookahead_frames(const convoy_stream *stream, int64_t end);

/** Output frames whose full-rate index k lies in [config.first_sample,
 *  end): how many of the stream's first output frames belong to a range
 *  ending at end, ceil((end - P) / D) - ceil((first_sample - P) / D) with
 *  decimation D and phase P; 0 when end <= first_sample or stream is NULL. */
CONVOY_API int64_t convoy_stream_range_frames(const convoy_stream *stream, int64_t end);

/** Most input frames process() can hold back before producing their output
 *  (0 for the CPU direct engine; (gpu_streams + 1) x chunk - 1 for the GPU
 *  engines). Fixed for the stream's life. */
CONVOY_API int64_t convoy_stream_latency(const convoy_stream *stream);

/** Longest filter's tap count. */
CONVOY_API int64_t convoy_stream_taps(const convoy_stream *stream);

CONVOY_API int32_t convoy_stream_channels(const convoy_stream *stream);

/** The engine actually running (never AUTO, CPU or GPU). */
CONVOY_API convoy_engine convoy_stream_engine(const convoy_stream *stream);

/** One line describing the plan into buf, always NUL-terminated: engine,
 *  FFT size, block, threads; for GPU engines also the chunk size, CUDA
 *  streams and the device. */
CONVOY_API convoy_status convoy_stream_describe(const convoy_stream *stream, char *buf,
                                                size_t buf_size);

/** Message of the last failed call on this stream; "" if none. */
CONVOY_API const char *convoy_stream_last_error(const convoy_stream *stream);

/* ------------------------------------------------------------------ host memory */

/** Allocates bytes of host memory for sample buffers, aligned to 64 bytes.
 *  When a usable GPU is present the memory is page-locked (pinned, through
 *  cudaHostAlloc, usable with every device), so that a GPU stream moves it
 *  over the bus directly instead of through its staging ring: give the GPU
 *  engines input and output buffers from here for the best throughput.
 *  Otherwise, or if pinning fails, it is ordinary memory. Pinned memory is a
 *  scarce system resource: allocate once, reuse. Returns NULL when bytes is 0
 *  or on failure (message in convoy_last_error()). Thread-safe. */
CONVOY_API void *convoy_host_alloc(size_t bytes);

/** Frees memory from convoy_host_alloc(); NULL is a no-op. Any other pointer
 *  is undefined behaviour. Thread-safe. */
CONVOY_API void convoy_host_free(void *ptr);

/** 1 when ptr, which must come from convoy_host_alloc(), is pinned; 0 for
 *  NULL. */
CONVOY_API int convoy_host_is_pinned(const void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_H */
