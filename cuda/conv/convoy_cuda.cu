/*
 * convoy_cuda.cu - the device convolver of include/convoy_cuda.h on gpu_conv.
 *
 * Two planar work buffers per convolver, each channels rows of
 * [history: taps - 1 | up to max_frames new frames]. An interleaved call
 * converts and deinterleaves its input behind the history of the current
 * buffer, filters, interleaves into the caller's output, and copies its last
 * taps - 1 input frames into the other buffer's history, which the next call
 * then uses. The two buffers never overlap, so the history copy is a plain
 * 2-D copy even when a call is shorter than the history. Planar float32
 * input (and mono float32, one row) is read where it lies: only the frames
 * whose outputs need the history are staged (filter_rows), and their copy
 * and run go on a side stream beside the main run. Interleaved float32
 * frames go the same way straight through an interleaved kernel where the
 * engine has one (gpu_conv_interleaved: real filters on 2, 4 or 8 rows on
 * the direct engine up to 32 taps, on 2, 4 or 8 rows on the fused FFT kernel,
 * a complex filter on one complex channel on the direct engine up to 32
 * taps, complex filters on 1, 2 or 4 complex channels on the fused FFT
 * kernel, and there real ones on 1 or 2 too, as complex filters;
 * filter_interleaved); other interleaved input is deinterleaved first.
 * Every copy between device buffers is a kernel (gp_copy_rows): a
 * cudaMemcpy2DAsync there would hand the stream to a copy engine and back,
 * several microseconds a call.
 */
#include "convoy_cuda.h"

#include "gpu_conv.h"
#include "gpu_layout.cuh"
#include "gpu_util.cuh"

extern "C" {
#include "error_internal.h"
}

#include <new>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {
constexpr int64_t kDefaultMaxFrames = (int64_t)1 << 20;
constexpr int64_t kRowAlign = 64;
constexpr int kMaxFftLog2 = 26;

int64_t round_up(int64_t n, int64_t to) {
  return (n + to - 1) / to * to;
}
} // namespace

struct convoy_cuda_conv {
  gpu_conv *conv = nullptr;
  int32_t device = 0;
  int32_t channels = 1; /* planar rows: 2 per channel for complex signals */
  bool complex_signal = false;
  int64_t taps_len = 1, hist = 0, max_frames = 0;
  int64_t stride = 0;     /* work rows: hist + max_frames, rounded */
  int64_t out_stride = 0; /* planar output rows */
  float *work[2] = {nullptr, nullptr};
  int cur = 0;             /* the buffer whose history the next call uses */
  float *planar = nullptr; /* planar output (several channels only) */
  /* Interleaved float32 calls an engine's interleaved kernel filters in
   * place (gpu_conv_run_interleaved): the head's frames, behind the history
   * interleaved, are staged here. */
  float *il_stage = nullptr;
  /* The head's copy and run and the history copy of a planar call go on
   * side, forked from and joined to the caller's stream by events, so that
   * they overlap the main run instead of adding their own start and drain
   * to every call. The head runs on gpu_conv lane 1, the main run on 0. */
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  char err[CONVOY_ERROR_SIZE] = "";
};

extern "C" void convoy_cuda_config_init(convoy_cuda_config *config) {
  if (!config) return;
  memset(config, 0, sizeof *config);
  config->channels = 1;
  config->engine = CONVOY_ENGINE_AUTO;
  config->device = -1;
  config->max_frames = kDefaultMaxFrames;
}

extern "C" void convoy_cuda_conv_destroy(convoy_cuda_conv *c) {
  if (!c) return;
  gp_device_guard guard;
  if (guard.enter(c->device, nullptr, 0) == CONVOY_OK) {
    cudaFree(c->work[0]);
    cudaFree(c->work[1]);
    cudaFree(c->planar);
    cudaFree(c->il_stage);
    if (c->fork) cudaEventDestroy(c->fork);
    if (c->join) cudaEventDestroy(c->join);
    if (c->side) cudaStreamDestroy(c->side);
    (void)cudaGetLastError();
  }
  gpu_conv_destroy(c->conv);
  delete c;
}

/* Builds everything on the current device; messages go to msg. */
static convoy_status build(convoy_cuda_conv *c, const convoy_cuda_config *cfg,
                           convoy_filter *const *filters, int32_t n_filters, gpu_conv_kind kind,
                           char *err, size_t err_size) {
  const size_t ch = (size_t)c->channels;
  const bool cx_signal = cfg->sample == CONVOY_SAMPLE_CF32;
  bool cx_taps = false;
  for (int32_t i = 0; i < n_filters; i++)
    if (convoy_filter_type(filters[i]) == CONVOY_SAMPLE_CF32) cx_taps = true;
  /* Per-row taps, shorter filters zero-padded (host copies, create only). */
  float *padded = (float *)calloc(ch * (size_t)c->taps_len, sizeof(float));
  const float **taps = (const float **)malloc(sizeof(float *) * ch);
  if (!padded || !taps) {
    free(padded);
    free(taps);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "out of host memory for the taps");
  }
  const int32_t units = cx_signal ? c->channels / 2 : c->channels;
  for (int32_t i = 0; i < units; i++) {
    const convoy_filter *f = filters[n_filters == 1 ? 0 : i];
    const int64_t len = convoy_filter_length(f);
    const float *ft = convoy_filter_taps(f);
    if (cx_taps) {
      /* Rows 2i, 2i + 1: real and imaginary parts (zero for a real filter). */
      float *re = padded + (size_t)(2 * i) * (size_t)c->taps_len;
      float *im = re + c->taps_len;
      const bool cf = convoy_filter_type(f) == CONVOY_SAMPLE_CF32;
      for (int64_t j = 0; j < len; j++) {
        re[j] = cf ? ft[2 * j] : ft[j];
        im[j] = cf ? ft[2 * j + 1] : 0.0f;
      }
      taps[2 * i] = re;
      taps[2 * i + 1] = im;
      continue;
    }
    const float *row = ft;
    if (len != c->taps_len) {
      float *t = padded + (size_t)i * (size_t)c->taps_len;
      memcpy(t, ft, sizeof(float) * (size_t)len);
      row = t;
    }
    if (cx_signal) /* a real filter on a complex signal: both parts alike */
      taps[2 * i] = taps[2 * i + 1] = row;
    else
      taps[i] = row;
  }
  gpu_conv_config gc;
  gpu_conv_config_init(&gc);
  gc.complex_taps = cx_taps;
  gc.channels = c->channels;
  gc.taps_len = c->taps_len;
  gc.taps = taps;
  gc.max_out = c->max_frames;
  gc.lanes = 2;
  gc.kind = kind;
  gc.device = c->device;
  gc.plan_effort = cfg->plan_effort;
  gc.interleaved_runs = !cx_taps && gc.channels > 1; /* process() on frames */
  gc.complex_signal = cx_signal;
  if (cfg->fft_size > 0) {
    gc.fft_size = gpu_conv_fft_size_at_least(c->taps_len, cfg->fft_size);
    if (gc.fft_size == 0) gc.fft_size = -1;
  }
  convoy_status st =
      gc.fft_size < 0
          ? convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                "fft_size %lld with %lld taps needs an FFT above 2^%d points",
                                (long long)cfg->fft_size, (long long)c->taps_len, kMaxFftLog2)
          : gpu_conv_create(&gc, &c->conv, err, err_size);
  free(padded);
  free(taps);
  if (st != CONVOY_OK) return st;

  c->stride = round_up(c->hist + c->max_frames, kRowAlign);
  c->out_stride = round_up(c->max_frames, kRowAlign);
  const size_t work_bytes = sizeof(float) * ch * (size_t)c->stride;
  GP_CUDA(cudaMalloc((void **)&c->work[0], work_bytes), "device work buffer (cudaMalloc)");
  GP_CUDA(cudaMalloc((void **)&c->work[1], work_bytes), "device work buffer (cudaMalloc)");
  if (ch > 1)
    GP_CUDA(cudaMalloc((void **)&c->planar, sizeof(float) * ch * (size_t)c->out_stride),
            "device work buffer (cudaMalloc)");
  GP_CUDA(cudaMemset(c->work[0], 0, work_bytes), "cudaMemset");
  GP_CUDA(cudaMemset(c->work[1], 0, work_bytes), "cudaMemset");
  if (gpu_conv_interleaved(c->conv)) /* the history, then the longest head (head_frames) */
    GP_CUDA(cudaMalloc((void **)&c->il_stage,
                       sizeof(float) * ch *
                           (size_t)(c->hist + round_up(c->hist, gpu_conv_granule(c->conv)) + 4)),
            "device work buffer (cudaMalloc)");
  GP_CUDA(cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking), "cudaStreamCreate");
  GP_CUDA(cudaEventCreateWithFlags(&c->fork, cudaEventDisableTiming), "cudaEventCreate");
  GP_CUDA(cudaEventCreateWithFlags(&c->join, cudaEventDisableTiming), "cudaEventCreate");
  GP_CUDA(cudaDeviceSynchronize(), "device convolver setup");
  return CONVOY_OK;
}

extern "C" convoy_status convoy_cuda_conv_create(convoy_cuda_conv **out,
                                                 const convoy_cuda_config *config,
                                                 convoy_filter *const *filters, int32_t n_filters) {
  const char *fn = "convoy_cuda_conv_create";
  if (!out) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: conv is NULL", fn);
  *out = nullptr;
  convoy_cuda_config cfg;
  if (config)
    cfg = *config;
  else
    convoy_cuda_config_init(&cfg);
  if (cfg.channels < 1 || cfg.channels > CONVOY_MAX_CHANNELS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: channels %d is outside 1 .. %d", fn,
                            (int)cfg.channels, CONVOY_MAX_CHANNELS);
  gpu_conv_kind kind;
  switch (cfg.engine) {
  case CONVOY_ENGINE_AUTO:
  case CONVOY_ENGINE_GPU:
    kind = GPU_CONV_AUTO;
    break;
  case CONVOY_ENGINE_GPU_DIRECT:
    kind = GPU_CONV_DIRECT;
    break;
  case CONVOY_ENGINE_GPU_FFT:
    kind = GPU_CONV_FFT;
    break;
  default:
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: engine '%s' is not a GPU engine (use auto, gpu, gpu-direct or "
                            "gpu-fft)",
                            fn, convoy_engine_name(cfg.engine));
  }
  if (cfg.max_frames < 1 || cfg.max_frames > ((int64_t)1 << 36) / cfg.channels)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: max_frames %lld is outside 1 .. 2^36 / channels", fn,
                            (long long)cfg.max_frames);
  if (cfg.sample != CONVOY_SAMPLE_F32 && cfg.sample != CONVOY_SAMPLE_CF32)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: sample type %d is neither CONVOY_SAMPLE_F32 nor CF32", fn,
                            (int)cfg.sample);
  if (cfg.fft_size < 0 || (cfg.plan_effort != 0 && cfg.plan_effort != 1))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: fft_size must be >= 0 and plan_effort 0 or 1", fn);
  if (!filters || (n_filters != 1 && n_filters != cfg.channels))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: give 1 filter or one per channel (%d), not %d", fn,
                            (int)cfg.channels, (int)n_filters);
  int64_t taps_len = 0;
  for (int32_t i = 0; i < n_filters; i++) {
    if (!filters[i])
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: filters[%d] is NULL", fn, (int)i);
    if (convoy_filter_length(filters[i]) > taps_len) taps_len = convoy_filter_length(filters[i]);
    if (convoy_filter_type(filters[i]) == CONVOY_SAMPLE_CF32 && cfg.sample != CONVOY_SAMPLE_CF32)
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                              "%s: filters[%d] has complex taps but the config's sample type is "
                              "real (set sample to CONVOY_SAMPLE_CF32)",
                              fn, (int)i);
  }

  char msg[CONVOY_ERROR_SIZE] = "";
  if (gp_device_count() == 0)
    return convoy_error_set(CONVOY_ERR_NO_DEVICE, "%s: no usable CUDA device", fn);
  int device = cfg.device;
  if (device < 0) {
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) {
      gp_cuda_fail(e, "cudaGetDevice", msg, sizeof msg);
      return convoy_error_set(CONVOY_ERR_NO_DEVICE, "%s: %s", fn, msg);
    }
  }
  if (device >= gp_device_count())
    return convoy_error_set(CONVOY_ERR_NO_DEVICE, "%s: no GPU %d (%d present)", fn, device,
                            gp_device_count());
  gp_device_guard guard;
  convoy_status st = guard.enter(device, msg, sizeof msg);
  if (st != CONVOY_OK) return convoy_error_set(st, "%s: %s", fn, msg);

  convoy_cuda_conv *c = new (std::nothrow) convoy_cuda_conv();
  if (!c) return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  c->device = device;
  c->complex_signal = cfg.sample == CONVOY_SAMPLE_CF32;
  c->channels = c->complex_signal ? 2 * cfg.channels : cfg.channels;
  c->taps_len = taps_len;
  c->hist = taps_len - 1;
  c->max_frames = cfg.max_frames;
  st = build(c, &cfg, filters, n_filters, kind, msg, sizeof msg);
  if (st != CONVOY_OK) {
    convoy_cuda_conv_destroy(c);
    return convoy_error_set(st, "%s: %s", fn, msg);
  }
  *out = c;
  return CONVOY_OK;
}

/* The side stream waits for what the caller's stream has enqueued so far. */
static convoy_status fork_side(convoy_cuda_conv *c, cudaStream_t stream, char *err,
                               size_t err_size) {
  GP_CUDA(cudaEventRecord(c->fork, stream), "cudaEventRecord");
  GP_CUDA(cudaStreamWaitEvent(c->side, c->fork, 0), "cudaStreamWaitEvent");
  return CONVOY_OK;
}

/* The caller's stream waits for the side stream; done even after a
 * failure (st), so that nothing of the call is left behind the caller.
 * Returns st, or the join's failure. */
static convoy_status join_side(convoy_cuda_conv *c, cudaStream_t stream, convoy_status st,
                               char *err, size_t err_size) {
  cudaError_t e = cudaEventRecord(c->join, c->side);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(stream, c->join, 0);
  if (e != cudaSuccess && st == CONVOY_OK) st = gp_cuda_fail(e, "stream join", err, err_size);
  return st;
}

/* The frames of a call of `frames` whose outputs need the history, staged
 * behind it: a whole number of granules, so that every FFT segment starts
 * where a staged run would start it; the direct engine may start anywhere
 * past the history, at a 16-byte step so that the outputs stay aligned for
 * the kernels' vector stores. At most frames. */
static int64_t head_frames(const convoy_cuda_conv *c, int64_t frames) {
  const int64_t granule = gpu_conv_granule(c->conv);
  const int64_t head = granule == 1 ? round_up(c->hist, 4) : round_up(c->hist, granule);
  return head < frames ? head : frames;
}

/* Planar rows: row r of `frames` float32 frames at in + r * in_pitch into
 * out + r * out_pitch. Where in and out are apart, the kernels read the
 * caller's input in place: only the first `head` frames, whose outputs need
 * the history, are staged behind it in the work buffer and filtered from
 * there; the rest is filtered straight from in. head is a whole number of
 * granules, so every FFT segment starts where a staged run would start it
 * and the bits are those of the staged path. In place (out overlapping in),
 * everything is staged first. */
static convoy_status filter_rows(convoy_cuda_conv *c, const float *in, int64_t in_pitch, float *out,
                                 int64_t out_pitch, int64_t frames, bool in_place,
                                 cudaStream_t stream, char *err, size_t err_size) {
  float *work = c->work[c->cur], *next = c->work[1 - c->cur];
  const int64_t head = in_place ? frames : head_frames(c, frames);
  /* The copies: the head behind the history, and the last hist frames of
   * history and input into the other buffer's history. The latter comes from
   * the caller's input when it holds them (read before any later call may
   * overwrite it), and then both copies go in one launch; else from the
   * staged copy, once that is made. */
  const bool from_input = frames >= c->hist && frames > head;
  gp_rows_copy copies[2];
  int n_copies = 0;
  if (head > 0) copies[n_copies++] = gp_rows_copy{work + c->hist, c->stride, in, in_pitch, head};
  const gp_rows_copy history =
      from_input ? gp_rows_copy{next, c->stride, in + frames - c->hist, in_pitch, c->hist}
                 : gp_rows_copy{next, c->stride, work + frames, c->stride, c->hist};
  if (c->hist > 0 && from_input) copies[n_copies++] = history;
  const bool main_run = frames > head;
  /* With no history there is no head either, and nothing for a side stream. */
  const bool forked = main_run && c->hist > 0;
  cudaStream_t side = forked ? c->side : stream;
  convoy_status st = forked ? fork_side(c, stream, err, err_size) : CONVOY_OK;
  if (st == CONVOY_OK && n_copies > 0)
    st = gp_copy_rows(copies, n_copies, c->channels, side, err, err_size);
  if (st == CONVOY_OK && head > 0)
    st = gpu_conv_run(c->conv, 1, work, c->stride, out, out_pitch, head, side, err, err_size);
  if (st == CONVOY_OK && c->hist > 0 && !from_input)
    st = gp_copy_rows(&history, 1, c->channels, side, err, err_size);
  if (st == CONVOY_OK && main_run)
    st = gpu_conv_run(c->conv, 0, in + head - c->hist, in_pitch, out + head, out_pitch,
                      frames - head, stream, err, err_size);
  if (forked) st = join_side(c, stream, st, err, err_size);
  if (st != CONVOY_OK) return st;
  c->cur = 1 - c->cur;
  return CONVOY_OK;
}

/* Interleaved float32 frames filtered where they lie (c->il_stage set):
 * as filter_rows, the head's frames behind the history, here interleaved in
 * il_stage, and the history kept as planar rows, so that the calls mix with
 * the other kinds. Not in place. */
static convoy_status filter_interleaved(convoy_cuda_conv *c, const float *in, float *out,
                                        int64_t frames, cudaStream_t stream, char *err,
                                        size_t err_size) {
  float *work = c->work[c->cur], *next = c->work[1 - c->cur];
  const int32_t ch = c->channels;
  const int64_t head = head_frames(c, frames);
  const bool main_run = frames > head;
  const bool forked = main_run && c->hist > 0;
  cudaStream_t side = forked ? c->side : stream;
  const gp_rows_copy staged{c->il_stage + c->hist * ch, 0, in, 0, head * ch};
  convoy_status st = forked ? fork_side(c, stream, err, err_size) : CONVOY_OK;
  if (st == CONVOY_OK && c->hist > 0)
    st = gp_interleave(work, c->stride, ch, c->hist, c->il_stage, side, err, err_size);
  if (st == CONVOY_OK && head > 0) st = gp_copy_rows(&staged, 1, 1, side, err, err_size);
  if (st == CONVOY_OK && head > 0)
    st = gpu_conv_run_interleaved(c->conv, 1, c->il_stage, out, head, side, err, err_size);
  if (st == CONVOY_OK && c->hist > 0) {
    /* The last hist frames of history and input, from the input when it
     * holds them, else from the stage (then head == frames). */
    const float *src = frames >= c->hist ? in + (frames - c->hist) * ch : c->il_stage + frames * ch;
    st = gp_deinterleave(CONVOY_FORMAT_F32, src, ch, c->hist, c->hist, next, c->stride, side, err,
                         err_size);
  }
  if (st == CONVOY_OK && main_run)
    st = gpu_conv_run_interleaved(c->conv, 0, in + (head - c->hist) * ch, out + head * ch,
                                  frames - head, stream, err, err_size);
  if (forked) st = join_side(c, stream, st, err, err_size);
  if (st != CONVOY_OK) return st;
  c->cur = 1 - c->cur;
  return CONVOY_OK;
}

static convoy_status enqueue(convoy_cuda_conv *c, convoy_sample_format fmt, const void *d_in,
                             float *d_out, int64_t frames, cudaStream_t stream, char *err,
                             size_t err_size) {
  const bool in_place = (const void *)d_out == d_in;
  if (c->channels == 1 && fmt == CONVOY_FORMAT_F32) /* one row: already planar */
    return filter_rows(c, (const float *)d_in, frames, d_out, frames, frames, in_place, stream, err,
                       err_size);
  if (c->il_stage && fmt == CONVOY_FORMAT_F32 && !in_place)
    return filter_interleaved(c, (const float *)d_in, d_out, frames, stream, err, err_size);
  float *work = c->work[c->cur], *next = c->work[1 - c->cur];
  float *fresh = work + c->hist;
  convoy_status st = gp_deinterleave(fmt, d_in, c->channels, frames, frames, fresh, c->stride,
                                     stream, err, err_size);
  if (st != CONVOY_OK) return st;
  float *dst = c->channels == 1 ? d_out : c->planar;
  st = gpu_conv_run(c->conv, 0, work, c->stride, dst, c->out_stride, frames, stream, err, err_size);
  if (st != CONVOY_OK) return st;
  if (c->channels > 1) {
    st = gp_interleave(c->planar, c->out_stride, c->channels, frames, d_out, stream, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  if (c->hist > 0) {
    const gp_rows_copy history{next, c->stride, work + frames, c->stride, c->hist};
    st = gp_copy_rows(&history, 1, c->channels, stream, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  c->cur = 1 - c->cur;
  return CONVOY_OK;
}

/* The checks both process calls share: frames within 0 .. max_frames and,
 * for any frame at all, both buffers given. */
static convoy_status check_call(convoy_cuda_conv *c, const char *fn, const void *d_in,
                                const void *d_out, int64_t frames) {
  if (frames < 0 || frames > c->max_frames)
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: frames %lld is outside 0 .. max_frames %lld", fn,
                               (long long)frames, (long long)c->max_frames);
  if (frames > 0 && (!d_in || !d_out))
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT, "%s: %s is NULL",
                               fn, d_in ? "d_out" : "d_in");
  return CONVOY_OK;
}

/* Runs work(msg, msg_size) with the convolver's device current; a failure
 * becomes the convolver's last error, prefixed by fn. */
template <class Work>
static convoy_status on_device(convoy_cuda_conv *c, const char *fn, Work work) {
  char msg[CONVOY_ERROR_SIZE] = "";
  gp_device_guard guard;
  convoy_status st = guard.enter(c->device, msg, sizeof msg);
  if (st == CONVOY_OK) st = work(msg, sizeof msg);
  if (st != CONVOY_OK) return convoy_error_format(c->err, sizeof c->err, st, "%s: %s", fn, msg);
  return CONVOY_OK;
}

extern "C" convoy_status convoy_cuda_conv_process(convoy_cuda_conv *c, convoy_sample_format fmt,
                                                  const void *d_in, float *d_out, int64_t frames,
                                                  cudaStream_t stream) {
  const char *fn = "convoy_cuda_conv_process";
  if (!c) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: conv is NULL", fn);
  const size_t width = convoy_sample_format_bytes(fmt);
  if (width == 0)
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: unknown sample format %d", fn, (int)fmt);
  convoy_status st = check_call(c, fn, d_in, d_out, frames);
  if (st != CONVOY_OK || frames == 0) return st;
  const size_t in_bytes = width * (size_t)c->channels * (size_t)frames;
  const size_t out_bytes = sizeof(float) * (size_t)c->channels * (size_t)frames;
  const bool in_place = fmt == CONVOY_FORMAT_F32 && (const void *)d_out == d_in;
  if (!in_place && gp_bytes_overlap(d_in, in_bytes, d_out, out_bytes))
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: d_in and d_out overlap without being the same float32 buffer",
                               fn);
  return on_device(c, fn, [&](char *msg, size_t msg_size) {
    return enqueue(c, fmt, d_in, d_out, frames, stream, msg, msg_size);
  });
}

extern "C" convoy_status convoy_cuda_conv_process_planar(convoy_cuda_conv *c, const float *d_in,
                                                         int64_t in_stride, float *d_out,
                                                         int64_t out_stride, int64_t frames,
                                                         cudaStream_t stream) {
  const char *fn = "convoy_cuda_conv_process_planar";
  if (!c) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: conv is NULL", fn);
  if (c->complex_signal)
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: planar buffers hold real signals; pass complex frames "
                               "interleaved to convoy_cuda_conv_process",
                               fn);
  convoy_status st = check_call(c, fn, d_in, d_out, frames);
  if (st != CONVOY_OK || frames == 0) return st;
  if (c->channels == 1) in_stride = out_stride = frames;
  if (in_stride < frames || out_stride < frames)
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: strides %lld and %lld must be at least frames (%lld)", fn,
                               (long long)in_stride, (long long)out_stride, (long long)frames);
  const size_t rows = (size_t)c->channels;
  const size_t in_span = sizeof(float) * ((rows - 1) * (size_t)in_stride + (size_t)frames);
  const size_t out_span = sizeof(float) * ((rows - 1) * (size_t)out_stride + (size_t)frames);
  const bool in_place = d_out == d_in && out_stride == in_stride;
  if (!in_place && gp_bytes_overlap(d_in, in_span, d_out, out_span))
    return convoy_error_format(c->err, sizeof c->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: d_in and d_out overlap without being the same buffer with "
                               "the same stride",
                               fn);
  return on_device(c, fn, [&](char *msg, size_t msg_size) {
    return filter_rows(c, d_in, in_stride, d_out, out_stride, frames, in_place, stream, msg,
                       msg_size);
  });
}

extern "C" convoy_status convoy_cuda_conv_reset(convoy_cuda_conv *c, cudaStream_t stream) {
  const char *fn = "convoy_cuda_conv_reset";
  if (!c) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: conv is NULL", fn);
  if (c->hist == 0) return CONVOY_OK;
  return on_device(c, fn, [&](char *msg, size_t msg_size) {
    const size_t pitch = sizeof(float) * (size_t)c->stride;
    cudaError_t e = cudaMemset2DAsync(c->work[c->cur], pitch, 0, sizeof(float) * (size_t)c->hist,
                                      (size_t)c->channels, stream);
    return e == cudaSuccess ? CONVOY_OK : gp_cuda_fail(e, "history reset", msg, msg_size);
  });
}

extern "C" int64_t convoy_cuda_conv_granule(const convoy_cuda_conv *c) {
  return c ? gpu_conv_granule(c->conv) : 0;
}

extern "C" convoy_engine convoy_cuda_conv_engine(const convoy_cuda_conv *c) {
  if (!c) return CONVOY_ENGINE_AUTO;
  return gpu_conv_kind_of(c->conv) == GPU_CONV_DIRECT ? CONVOY_ENGINE_GPU_DIRECT
                                                      : CONVOY_ENGINE_GPU_FFT;
}

extern "C" convoy_status convoy_cuda_conv_describe(const convoy_cuda_conv *c, char *buf,
                                                   size_t buf_size) {
  if (!c || !buf || buf_size == 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_cuda_conv_describe: conv or buf is NULL, or buf_size is 0");
  char line[192];
  gpu_conv_describe(c->conv, line, sizeof line);
  snprintf(buf, buf_size, "%s: %s; up to %lld frames per call",
           convoy_engine_name(convoy_cuda_conv_engine(c)), line, (long long)c->max_frames);
  return CONVOY_OK;
}

extern "C" const char *convoy_cuda_conv_last_error(const convoy_cuda_conv *c) {
  return c ? c->err : "";
}
