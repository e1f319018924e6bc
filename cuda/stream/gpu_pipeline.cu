/*
 * gpu_pipeline.cu - the host-to-host GPU streaming pipeline (see
 * gpu_pipeline.h for the design): chunking, pinned staging, transfers on K
 * CUDA streams, history carried on the device, ordered harvesting.
 */
#include "gpu_pipeline.h"

#include "gpu_layout.cuh"
#include "gpu_util.cuh"

extern "C" {
#include "sample_convert.h"
#include "stream_decimate.h"
#include "worker_pool.h"
}

#include <new>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* Default chunk: samples over all channels (8 MiB of float32). Large enough
 * that the per-chunk costs (a dozen API calls, two events) hide behind the
 * transfers, small enough that K chunks of staging stay modest. */
constexpr int64_t kDefaultChunkSamples = (int64_t)1 << 21;
constexpr int64_t kMinChunkFrames = 1024;
/* Largest chunk a caller may ask for, over all channels (16 GiB of float). */
constexpr int kMaxChunkLog2 = 32;
constexpr int64_t kMaxChunkSamples = (int64_t)1 << kMaxChunkLog2;
/* Three streams keep both copy directions busy; more only lengthen the tail
 * of D2H copies left for flush (measured on an H200: 3 streams ahead of 4 and
 * 6 by 1 to 3 %). */
constexpr int32_t kDefaultStreams = 3;
constexpr int32_t kMaxStreams = 16;
/* Planar rows start on 256-byte boundaries. */
constexpr int64_t kRowAlign = 64;
/* Host copies at least this large are split over the copy threads. */
constexpr size_t kParallelCopyBytes = (size_t)4 << 20;
constexpr int32_t kMaxCopyThreads = 8;
constexpr int kMaxFftLog2 = 26;

int64_t round_up(int64_t n, int64_t to) {
  return (n + to - 1) / to * to;
}

struct slot {
  cudaStream_t stream = nullptr;
  /* after the chunk's H2D; after its planar input (history included) is
   * complete; after its output is ready on the device; after its D2H. */
  cudaEvent_t ev_h2d = nullptr, ev_ready = nullptr, ev_computed = nullptr, ev_d2h = nullptr;
  unsigned char *h_in = nullptr; /* pinned: C frames of the widest format */
  float *h_out = nullptr;        /* pinned: C frames of float */
  void *d_raw = nullptr;         /* C frames of the widest format, as they crossed */
  float *d_in = nullptr;         /* channels rows of in_stride: history then C frames */
  float *d_out = nullptr;        /* channels rows of out_stride */
  void *d_outi = nullptr;        /* C interleaved frames (several channels or integer
                                    output) in the output format */

  int64_t keep = 0;    /* output frames of the chunk it holds */
  int64_t src_off = 0; /* output from d_out (not d_outi): the first frame's offset */
  convoy_sample_format staged_fmt = CONVOY_FORMAT_F32;
  bool caller_h2d = false; /* an H2D from caller memory not yet waited for */
  bool caller_d2h = false; /* a D2H into caller memory not yet waited for */
};

/* Where one process() or flush() call puts its output. */
struct out_ctx {
  unsigned char *out;
  int64_t delivered; /* frames written so far */
  bool pinned;       /* out may be the target of a D2H */
};

struct copy_job {
  unsigned char *dst;
  const unsigned char *src;
  size_t bytes, piece;
};

void copy_task(void *ctx, int64_t task) {
  const copy_job *j = (const copy_job *)ctx;
  size_t at = (size_t)task * j->piece;
  size_t n = j->bytes - at < j->piece ? j->bytes - at : j->piece;
  memcpy(j->dst + at, j->src + at, n);
}

/* 1 when [p, p + bytes) is page-locked host memory CUDA can copy directly. */
bool host_pinned(const void *p, size_t bytes) {
  if (!p || bytes == 0) return false;
  const unsigned char *b = (const unsigned char *)p;
  const void *ends[2] = {b, b + bytes - 1};
  for (const void *q : ends) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, q) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    if (a.type != cudaMemoryTypeHost) return false;
  }
  return true;
}

/* The first `samples` samples of fmt at buf become float32 in place (buf
 * has room for them as float). Backwards, since floats are at least as wide. */
void widen_in_place(unsigned char *buf, convoy_sample_format fmt, int64_t samples) {
  const size_t w = convoy_sample_format_bytes(fmt);
  for (int64_t i = samples - 1; i >= 0; i--) {
    float y;
    if (fmt == CONVOY_FORMAT_S16) {
      int16_t v;
      memcpy(&v, buf + (size_t)i * w, sizeof v);
      y = (float)v * SAMPLE_SCALE_S16;
    } else if (fmt == CONVOY_FORMAT_S32) {
      int32_t v;
      memcpy(&v, buf + (size_t)i * w, sizeof v);
      y = (float)v * SAMPLE_SCALE_S32;
    } else if (fmt == CONVOY_FORMAT_S8) {
      y = (float)(int8_t)buf[i] * SAMPLE_SCALE_S8;
    } else if (fmt == CONVOY_FORMAT_U8) {
      y = (float)((int)buf[i] - SAMPLE_OFFSET_U8) * SAMPLE_SCALE_S8;
    } else {
      return;
    }
    memcpy(buf + (size_t)i * sizeof(float), &y, sizeof y);
  }
}

} // namespace

struct gpu_pipeline {
  int32_t channels = 1, device = 0, streams = 0, threads = 1;
  int64_t taps_len = 1, hist = 0;
  int64_t chunk = 0, granule = 1; /* C and the gpu_conv granule */
  int64_t in_stride = 0, out_stride = 0;
  gpu_conv *conv = nullptr;
  slot *slots = nullptr;
  worker_pool *pool = nullptr;
  int64_t launched = 0;  /* chunks launched since reset */
  int64_t harvested = 0; /* chunks whose output was handed out */
  int64_t pending = 0;   /* frames staged for chunk `launched` */
  int64_t first = 0;     /* absolute index of the first input frame (warm start) */
  int64_t lead = 0;      /* first mod granule: frames of chunk 0 before first */
  int64_t origin = 0;    /* first - lead: absolute index of chunk 0's first frame */
  bool warm = false;     /* slot 0's history region holds set_history's frames */
  int64_t decim = 1;     /* D: keep full-rate outputs at phase mod D */
  int64_t phase = 0;     /* P, 0 .. D - 1 */
  double shift = 0.0;    /* output rotation, cycles per input frame */
  output_spec out = {CONVOY_FORMAT_F32, 0, 0, 0, 0, UINT64_MAX};
  /* Output frames [stats_first, stats_end) (end -1: no end) from the first
   * one after create or reset are tallied; out_first is that first one's
   * position (samples from absolute 0, as the dither's index). */
  int64_t stats_first = 0, stats_end = -1;
  uint64_t out_first = 0;
  /* Integer output, device memory: clipped samples and peak |x| (float
   * bits) of every chunk computed since create or reset, added to by the
   * quantize kernels of all streams. */
  unsigned long long *d_tally = nullptr;
  char device_name[sizeof(((cudaDeviceProp *)0)->name) + 1] = "";
};

/* ------------------------------------------------------------- host copies */

static void host_copy(gpu_pipeline *p, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return;
  if (!p->pool || bytes < kParallelCopyBytes) {
    memcpy(dst, src, bytes);
    return;
  }
  int64_t tasks = pool_threads(p->pool);
  size_t piece = (bytes / (size_t)tasks + 4095) & ~(size_t)4095;
  copy_job j = {(unsigned char *)dst, (const unsigned char *)src, bytes, piece};
  pool_run(p->pool, (int64_t)((bytes + piece - 1) / piece), copy_task, &j);
}

/* ------------------------------------------------------------- the chunk path */

static int64_t frame_bytes(const gpu_pipeline *p, convoy_sample_format fmt) {
  return (int64_t)convoy_sample_format_bytes(fmt) * p->channels;
}

static bool integer_output(const gpu_pipeline *p) {
  return p->out.fmt != CONVOY_FORMAT_F32;
}

static int64_t out_frame_bytes(const gpu_pipeline *p) {
  return frame_bytes(p, p->out.fmt);
}

/* Decimation or shift. */
static bool picking(const gpu_pipeline *p) {
  return p->decim > 1 || p->shift != 0.0;
}

/* Whether a chunk's output leaves from d_outi (interleaved, quantized or
 * picked) rather than straight from d_out. One float row that a strided run
 * already compacted, with no shift, needs no pass of its own. */
static bool through_outi(const gpu_pipeline *p) {
  if (p->channels > 1 || integer_output(p) || p->shift != 0.0) return true;
  return p->decim > 1 && !gpu_conv_strided(p->conv);
}

/* Kept frames among n full-rate outputs from absolute index pos. */
static int64_t kept(const gpu_pipeline *p, int64_t pos, int64_t n) {
  return decim_count(p->decim, pos - p->phase, n);
}

/* Output frames among n full-rate outputs from absolute index pos: the kept
 * ones at or after the first sample (a warm start's chunk 0 computes some
 * before it, on the FFT grid, and drops them). */
static int64_t visible(const gpu_pipeline *p, int64_t pos, int64_t n) {
  const int64_t lo = pos > p->first ? pos : p->first;
  const int64_t hi = n > INT64_MAX - pos ? INT64_MAX : pos + n;
  return hi > lo ? kept(p, lo, hi - lo) : 0;
}

/* Waits for the outstanding transfers that touch caller memory. */
static convoy_status finish_call(gpu_pipeline *p, char *err, size_t err_size) {
  for (int32_t i = 0; i < p->streams; i++) {
    slot &s = p->slots[i];
    if (s.caller_h2d) {
      s.caller_h2d = false;
      GP_CUDA(cudaEventSynchronize(s.ev_h2d), "waiting for a host-to-device copy");
    }
    if (s.caller_d2h) {
      s.caller_d2h = false;
      GP_CUDA(cudaEventSynchronize(s.ev_d2h), "waiting for a device-to-host copy");
    }
  }
  return CONVOY_OK;
}

/* After a failure: lets everything in flight finish (so no copy touches
 * caller memory after return) and leaves no CUDA error behind. */
static void drain(gpu_pipeline *p) {
  for (int32_t i = 0; i < p->streams; i++) {
    if (p->slots[i].stream) (void)cudaStreamSynchronize(p->slots[i].stream);
    p->slots[i].caller_h2d = p->slots[i].caller_d2h = false;
  }
  (void)cudaGetLastError();
}

/* Hands the oldest launched chunk's output to ctx (in order). */
static convoy_status harvest(gpu_pipeline *p, out_ctx *ctx, char *err, size_t err_size) {
  slot &s = p->slots[p->harvested % p->streams];
  const void *src = through_outi(p) ? s.d_outi : (const void *)(s.d_out + s.src_off);
  const size_t bytes = (size_t)(s.keep * out_frame_bytes(p));
  unsigned char *dst = ctx->out + ctx->delivered * out_frame_bytes(p);
  if (bytes > 0) {
    if (ctx->pinned) {
      GP_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s.stream),
              "device-to-host copy");
      GP_CUDA(cudaEventRecord(s.ev_d2h, s.stream), "cudaEventRecord");
      s.caller_d2h = true;
    } else {
      GP_CUDA(cudaMemcpyAsync(s.h_out, src, bytes, cudaMemcpyDeviceToHost, s.stream),
              "device-to-host copy");
      GP_CUDA(cudaEventRecord(s.ev_d2h, s.stream), "cudaEventRecord");
      GP_CUDA(cudaEventSynchronize(s.ev_d2h), "waiting for a device-to-host copy");
      host_copy(p, dst, s.h_out, bytes);
    }
  }
  ctx->delivered += s.keep;
  p->harvested++;
  return CONVOY_OK;
}

/* Harvests, in order, the chunks whose output is ready, without waiting. */
static convoy_status harvest_ready(gpu_pipeline *p, out_ctx *ctx, char *err, size_t err_size) {
  while (p->harvested < p->launched) {
    cudaError_t e = cudaEventQuery(p->slots[p->harvested % p->streams].ev_computed);
    if (e == cudaErrorNotReady) break;
    if (e != cudaSuccess) return gp_cuda_fail(e, "GPU work of an earlier chunk", err, err_size);
    convoy_status st = harvest(p, ctx, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  return CONVOY_OK;
}

/* Launches the next chunk: n_valid frames of fmt at src (host memory,
 * pinned), zeros after them up to n_out frames of filter output, of which
 * `keep` are handed out. Harvests chunk k - K first when all slots are busy. */
static convoy_status launch(gpu_pipeline *p, const void *src, convoy_sample_format fmt,
                            int64_t n_valid, int64_t n_out, int64_t keep, out_ctx *ctx, char *err,
                            size_t err_size) {
  convoy_status st;
  if (p->launched - p->harvested == p->streams &&
      (st = harvest(p, ctx, err, err_size)) != CONVOY_OK)
    return st;
  const int32_t k = p->streams;
  const int32_t i = (int32_t)(p->launched % k);
  slot &s = p->slots[i];
  const slot &prev = p->slots[(i + k - 1) % k];
  /* Chunk k - K + 1 read this slot's input as its history: it must be done
   * before the slot's input is overwritten. */
  const slot &next = p->slots[(i + 1) % k];
  const size_t in_bytes = (size_t)(n_valid * frame_bytes(p, fmt));
  float *fresh = s.d_in + p->hist; /* row 0's first frame after the history */

  if (p->channels == 1 && fmt == CONVOY_FORMAT_F32) {
    GP_CUDA(cudaStreamWaitEvent(s.stream, next.ev_ready, 0), "cudaStreamWaitEvent");
    if (in_bytes > 0)
      GP_CUDA(cudaMemcpyAsync(fresh, src, in_bytes, cudaMemcpyHostToDevice, s.stream),
              "host-to-device copy");
    GP_CUDA(cudaEventRecord(s.ev_h2d, s.stream), "cudaEventRecord");
    if (n_out > n_valid)
      GP_CUDA(
          cudaMemsetAsync(fresh + n_valid, 0, sizeof(float) * (size_t)(n_out - n_valid), s.stream),
          "cudaMemsetAsync");
  } else {
    if (in_bytes > 0)
      GP_CUDA(cudaMemcpyAsync(s.d_raw, src, in_bytes, cudaMemcpyHostToDevice, s.stream),
              "host-to-device copy");
    GP_CUDA(cudaEventRecord(s.ev_h2d, s.stream), "cudaEventRecord");
    GP_CUDA(cudaStreamWaitEvent(s.stream, next.ev_ready, 0), "cudaStreamWaitEvent");
    st = gp_deinterleave(fmt, s.d_raw, p->channels, n_valid, n_out, fresh, p->in_stride, s.stream,
                         err, err_size);
    if (st != CONVOY_OK) return st;
  }

  if (p->hist > 0) {
    const size_t pitch = sizeof(float) * (size_t)p->in_stride;
    const size_t width = sizeof(float) * (size_t)p->hist;
    if (p->launched > 0) {
      /* The previous chunk's last hist frames of input, its own history
       * included (so this works for hist > C too). */
      GP_CUDA(cudaStreamWaitEvent(s.stream, prev.ev_ready, 0), "cudaStreamWaitEvent");
      const gp_rows_copy history{s.d_in, p->in_stride, prev.d_in + p->chunk, p->in_stride, p->hist};
      convoy_status st = gp_copy_rows(&history, 1, p->channels, s.stream, err, err_size);
      if (st != CONVOY_OK) return st;
    } else if (!p->warm) {
      GP_CUDA(cudaMemset2DAsync(s.d_in, pitch, 0, width, (size_t)p->channels, s.stream),
              "history reset");
    }
  }
  GP_CUDA(cudaEventRecord(s.ev_ready, s.stream), "cudaEventRecord");

  /* The kept frames of this chunk's keep full-rate outputs: a fixed grid of
   * indices P mod D from absolute frame 0, whatever C is. Chunk 0 of a warm
   * start drops the ones before the first sample. */
  const int64_t start = p->origin + p->launched * p->chunk;
  const int64_t skip = p->launched == 0 ? kept(p, start, p->lead < keep ? p->lead : keep) : 0;
  gp_pick pick = {((p->phase - start) % p->decim + p->decim) % p->decim,
                  p->decim,
                  p->shift,
                  0,
                  p->decim,
                  p->phase};
  pick.n0 = (start + pick.first - p->phase) / p->decim;
  keep = kept(p, start, keep);
  if (p->decim > 1 && gpu_conv_strided(p->conv)) {
    /* Only the kept outputs, compacted (gpu_conv_run_strided). */
    st = gpu_conv_run_strided(p->conv, i, s.d_in, p->in_stride, pick.first, p->decim, s.d_out,
                              p->out_stride, keep, s.stream, err, err_size);
    pick.first = 0;
    pick.step = 1;
  } else {
    st = gpu_conv_run(p->conv, i, s.d_in, p->in_stride, s.d_out, p->out_stride, n_out, s.stream,
                      err, err_size);
  }
  if (st != CONVOY_OK) return st;
  pick.first += skip * pick.step;
  pick.n0 += skip;
  keep -= skip;
  if (integer_output(p)) {
    const uint64_t first = (uint64_t)pick.n0 * (uint64_t)p->channels;
    if (p->launched == 0) p->out_first = first;
    output_spec o = p->out;
    output_spec_count_frames(&o, p->out_first, p->stats_first, p->stats_end, p->channels);
    st = gp_interleave_quantize_pick(s.d_out, p->out_stride, p->channels, keep, pick, o, first,
                                     s.d_outi, p->d_tally, s.stream, err, err_size);
    if (st != CONVOY_OK) return st;
  } else if (through_outi(p)) {
    st = gp_interleave_pick(s.d_out, p->out_stride, p->channels, keep, pick, (float *)s.d_outi,
                            s.stream, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  GP_CUDA(cudaEventRecord(s.ev_computed, s.stream), "cudaEventRecord");
  s.keep = keep;
  s.src_off = pick.first;
  p->launched++;
  return CONVOY_OK;
}

/* Copies frames of fmt into the staging slot of the chunk being filled. A
 * chunk staged in one format and continued in another is widened to float32
 * on the host (exactly the GPU's conversion). */
static convoy_status stage(gpu_pipeline *p, convoy_sample_format fmt, const void *src,
                           int64_t frames, char *err, size_t err_size) {
  slot &s = p->slots[p->launched % p->streams];
  if (p->pending == 0) {
    /* The slot's last H2D (chunk k - K) must have left the staging memory. */
    GP_CUDA(cudaEventSynchronize(s.ev_h2d), "waiting for a host-to-device copy");
    s.staged_fmt = fmt;
  } else if (fmt != s.staged_fmt) {
    widen_in_place(s.h_in, s.staged_fmt, p->pending * p->channels);
    s.staged_fmt = CONVOY_FORMAT_F32;
  }
  if (fmt == s.staged_fmt) {
    const int64_t fb = frame_bytes(p, fmt);
    host_copy(p, s.h_in + p->pending * fb, src, (size_t)(frames * fb));
  } else {
    convert_samples(fmt, src, frames * p->channels, (float *)s.h_in + p->pending * p->channels);
  }
  p->pending += frames;
  return CONVOY_OK;
}

/* Stages `frames` zero frames (float32) for the chunk being filled. */
static convoy_status stage_zeros(gpu_pipeline *p, int64_t frames, char *err, size_t err_size) {
  if (frames <= 0) return CONVOY_OK;
  slot &s = p->slots[p->launched % p->streams];
  if (p->pending == 0) {
    GP_CUDA(cudaEventSynchronize(s.ev_h2d), "waiting for a host-to-device copy");
    s.staged_fmt = CONVOY_FORMAT_F32;
  } else if (s.staged_fmt != CONVOY_FORMAT_F32) {
    widen_in_place(s.h_in, s.staged_fmt, p->pending * p->channels);
    s.staged_fmt = CONVOY_FORMAT_F32;
  }
  memset(s.h_in + p->pending * frame_bytes(p, CONVOY_FORMAT_F32), 0,
         (size_t)(frames * frame_bytes(p, CONVOY_FORMAT_F32)));
  p->pending += frames;
  return CONVOY_OK;
}

/* The state of create and reset: nothing launched, zero history, and a warm
 * start's lead frames (zeros) staged as chunk 0's first input. */
static convoy_status start_state(gpu_pipeline *p, char *err, size_t err_size) {
  p->launched = p->harvested = p->pending = 0;
  p->warm = false;
  return stage_zeros(p, p->lead, err, err_size);
}

/* ------------------------------------------------------------- public */

extern "C" convoy_status gpu_pipeline_set_history(gpu_pipeline *p, convoy_sample_format fmt,
                                                  const void *frames, int64_t n, char *err,
                                                  size_t err_size) {
  gp_device_guard guard;
  convoy_status st = guard.enter(p->device, err, err_size);
  if (st != CONVOY_OK) return st;
  if (p->launched != 0 || n < 0 || n > p->hist + p->lead)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                               "GPU pipeline: history of %lld frames after start or too long",
                               (long long)n);
  /* The n frames end at x[first - 1]: the last n_lead of them are chunk 0's
   * lead frames (staged after zeros), the ones before go at the end of slot
   * 0's history region (zeros before them), which chunk 0 then keeps. */
  const int64_t n_lead = n < p->lead ? n : p->lead, n_hist = n - n_lead;
  const int64_t fb = frame_bytes(p, fmt);
  const unsigned char *bytes = (const unsigned char *)frames;
  slot &s = p->slots[0];
  if (p->hist > 0) {
    const size_t pitch = sizeof(float) * (size_t)p->in_stride;
    GP_CUDA(cudaMemset2DAsync(s.d_in, pitch, 0, sizeof(float) * (size_t)p->hist,
                              (size_t)p->channels, s.stream),
            "history reset");
    for (int64_t done = 0; done < n_hist;) {
      const int64_t piece = n_hist - done < p->chunk ? n_hist - done : p->chunk;
      GP_CUDA(cudaMemcpyAsync(s.d_raw, bytes + done * fb, (size_t)(piece * fb),
                              cudaMemcpyHostToDevice, s.stream),
              "host-to-device copy of the history");
      st = gp_deinterleave(fmt, s.d_raw, p->channels, piece, piece,
                           s.d_in + (p->hist - n_hist + done), p->in_stride, s.stream, err,
                           err_size);
      if (st != CONVOY_OK) break;
      /* d_raw is reused by the next piece, and the caller's frames are
       * theirs again on return. */
      GP_CUDA(cudaStreamSynchronize(s.stream), "waiting for the history copy");
      done += piece;
    }
    if (st == CONVOY_OK) {
      cudaError_t e = cudaStreamSynchronize(s.stream);
      if (e != cudaSuccess) st = gp_cuda_fail(e, "waiting for the history copy", err, err_size);
    }
    if (st != CONVOY_OK) {
      drain(p);
      return st;
    }
    p->warm = true;
  }
  p->pending = 0;
  if ((st = stage_zeros(p, p->lead - n_lead, err, err_size)) != CONVOY_OK) return st;
  if (n_lead > 0) st = stage(p, fmt, bytes + n_hist * fb, n_lead, err, err_size);
  return st;
}

extern "C" int64_t gpu_pipeline_grid(const gpu_pipeline *p) {
  return p ? p->granule : 1;
}

static convoy_status process_chunks(gpu_pipeline *p, convoy_sample_format fmt, const void *in,
                                    int64_t in_frames, out_ctx *ctx, char *err, size_t err_size) {
  const int64_t fb = frame_bytes(p, fmt);
  const unsigned char *bytes = (const unsigned char *)in;
  const bool in_pinned = in_frames >= p->chunk && host_pinned(in, (size_t)in_frames * (size_t)fb);
  convoy_status st = CONVOY_OK;
  int64_t pos = 0;
  while (pos < in_frames) {
    if (p->pending == 0 && in_pinned && in_frames - pos >= p->chunk) {
      slot &s = p->slots[p->launched % p->streams];
      st = launch(p, bytes + pos * fb, fmt, p->chunk, p->chunk, p->chunk, ctx, err, err_size);
      if (st != CONVOY_OK) return st;
      s.caller_h2d = true;
      pos += p->chunk;
      continue;
    }
    int64_t take = p->chunk - p->pending;
    if (take > in_frames - pos) take = in_frames - pos;
    if ((st = stage(p, fmt, bytes + pos * fb, take, err, err_size)) != CONVOY_OK) return st;
    pos += take;
    if (p->pending == p->chunk) {
      const slot &s = p->slots[p->launched % p->streams];
      st = launch(p, s.h_in, s.staged_fmt, p->chunk, p->chunk, p->chunk, ctx, err, err_size);
      if (st != CONVOY_OK) return st;
      p->pending = 0;
    }
  }
  if ((st = harvest_ready(p, ctx, err, err_size)) != CONVOY_OK) return st;
  return finish_call(p, err, err_size);
}

extern "C" convoy_status gpu_pipeline_process(gpu_pipeline *p, convoy_sample_format fmt,
                                              const void *in, int64_t in_frames, void *out,
                                              int64_t *out_frames, char *err, size_t err_size) {
  *out_frames = 0;
  gp_device_guard guard;
  convoy_status st = guard.enter(p->device, err, err_size);
  if (st != CONVOY_OK) return st;
  const int64_t most = gpu_pipeline_max_output(p, in_frames);
  out_ctx ctx = {(unsigned char *)out, 0,
                 most > 0 && host_pinned(out, (size_t)(most * out_frame_bytes(p)))};
  st = process_chunks(p, fmt, in, in_frames, &ctx, err, err_size);
  if (st != CONVOY_OK) drain(p);
  *out_frames = ctx.delivered;
  return st;
}

static convoy_status flush_chunks(gpu_pipeline *p, out_ctx *ctx, char *err, size_t err_size) {
  convoy_status st;
  while (p->harvested < p->launched)
    if ((st = harvest(p, ctx, err, err_size)) != CONVOY_OK) return st;
  /* The input goes on with zeros: the staged frames and enough zero frames
   * for the ring-out, in chunks at the usual positions, each computed only
   * as far (in whole granules) as the frames still due. */
  int64_t remaining = p->pending + p->hist;
  while (remaining > 0) {
    const int64_t need = remaining < p->chunk ? remaining : p->chunk;
    const int64_t n_out = round_up(need, p->granule);
    const slot &s = p->slots[p->launched % p->streams];
    const int64_t n_valid = p->pending;
    st = launch(p, s.h_in, n_valid > 0 ? s.staged_fmt : CONVOY_FORMAT_F32, n_valid, n_out, need,
                ctx, err, err_size);
    if (st != CONVOY_OK) return st;
    p->pending = 0;
    remaining -= need;
  }
  while (p->harvested < p->launched)
    if ((st = harvest(p, ctx, err, err_size)) != CONVOY_OK) return st;
  return finish_call(p, err, err_size);
}

extern "C" convoy_status gpu_pipeline_flush(gpu_pipeline *p, void *out, int64_t *out_frames,
                                            char *err, size_t err_size) {
  *out_frames = 0;
  gp_device_guard guard;
  convoy_status st = guard.enter(p->device, err, err_size);
  if (st != CONVOY_OK) return st;
  const int64_t total = gpu_pipeline_flush_frames(p);
  out_ctx ctx = {(unsigned char *)out, 0,
                 total > 0 && host_pinned(out, (size_t)(total * out_frame_bytes(p)))};
  st = flush_chunks(p, &ctx, err, err_size);
  if (st != CONVOY_OK) drain(p);
  *out_frames = ctx.delivered;
  return st;
}

extern "C" convoy_status gpu_pipeline_reset(gpu_pipeline *p, char *err, size_t err_size) {
  gp_device_guard guard;
  convoy_status st = guard.enter(p->device, err, err_size);
  if (st != CONVOY_OK) return st;
  for (int32_t i = 0; i < p->streams && st == CONVOY_OK; i++) {
    cudaError_t e = cudaStreamSynchronize(p->slots[i].stream);
    if (e != cudaSuccess) st = gp_cuda_fail(e, "GPU work dropped by reset", err, err_size);
  }
  drain(p);
  if (st == CONVOY_OK) st = start_state(p, err, err_size);
  if (p->d_tally && st == CONVOY_OK)
    GP_CUDA(cudaMemset(p->d_tally, 0, 2 * sizeof *p->d_tally), "cudaMemset");
  p->stats_first = 0;
  p->stats_end = -1;
  return st;
}

extern "C" void gpu_pipeline_set_stats_range(gpu_pipeline *p, int64_t first, int64_t end) {
  if (!p) return;
  p->stats_first = first;
  p->stats_end = end;
}

extern "C" int64_t gpu_pipeline_max_output(const gpu_pipeline *p, int64_t in_frames) {
  if (!p || in_frames < 0) return 0;
  const int64_t held = (p->launched - p->harvested) * p->chunk + p->pending;
  const int64_t total = in_frames > INT64_MAX - held ? INT64_MAX : held + in_frames;
  return visible(p, p->origin + p->harvested * p->chunk, total / p->chunk * p->chunk);
}

extern "C" output_tally gpu_pipeline_output_tally(const gpu_pipeline *p) {
  output_tally t = {0, 0.0};
  unsigned long long v[2];
  gp_device_guard guard;
  if (!p || !p->d_tally || guard.enter(p->device, nullptr, 0) != CONVOY_OK) return t;
  if (cudaMemcpy(v, p->d_tally, sizeof v, cudaMemcpyDeviceToHost) != cudaSuccess) {
    (void)cudaGetLastError();
    return t;
  }
  const uint32_t bits = (uint32_t)v[1];
  float peak;
  memcpy(&peak, &bits, sizeof peak);
  t.clipped = (int64_t)v[0];
  t.peak = peak;
  return t;
}

extern "C" int64_t gpu_pipeline_flush_frames(const gpu_pipeline *p) {
  if (!p) return 0;
  return visible(p, p->origin + p->harvested * p->chunk,
                 (p->launched - p->harvested) * p->chunk + p->pending + p->hist);
}

extern "C" int64_t gpu_pipeline_latency(const gpu_pipeline *p) {
  return p ? (p->streams + 1) * p->chunk - 1 + (p->decim - 1) : 0;
}

extern "C" gpu_conv_kind gpu_pipeline_kind(const gpu_pipeline *p) {
  return p ? gpu_conv_kind_of(p->conv) : GPU_CONV_AUTO;
}

extern "C" int64_t gpu_pipeline_chunk_frames(const gpu_pipeline *p) {
  return p ? p->chunk : 0;
}

extern "C" int32_t gpu_pipeline_streams(const gpu_pipeline *p) {
  return p ? p->streams : 0;
}

extern "C" void gpu_pipeline_describe(const gpu_pipeline *p, char *buf, size_t buf_size) {
  if (!buf || buf_size == 0) return;
  if (!p) {
    snprintf(buf, buf_size, "(none)");
    return;
  }
  char conv[192], pick[160] = "";
  gpu_conv_describe(p->conv, conv, sizeof conv);
  const double staging = 2.0 * (double)p->streams * (double)p->chunk * p->channels * 4.0;
  if (picking(p))
    snprintf(pick, sizeof pick, "; decimation %lld (%s), shift %.9g cycles/sample, on the GPU",
             (long long)p->decim,
             p->decim == 1               ? "none"
             : gpu_conv_strided(p->conv) ? "kept outputs only"
                                         : "all outputs, then picked",
             p->shift);
  snprintf(buf, buf_size,
           "%s; pipeline: %lld-frame chunks on %d CUDA streams, %.0f MiB pinned staging, "
           "device %d (%s)%s",
           conv, (long long)p->chunk, (int)p->streams, staging / 1048576.0, (int)p->device,
           p->device_name, pick);
}

/* ------------------------------------------------------------- create, destroy */

static void free_slots(gpu_pipeline *p) {
  if (!p->slots) return;
  for (int32_t i = 0; i < p->streams; i++) {
    slot &s = p->slots[i];
    if (s.stream) (void)cudaStreamSynchronize(s.stream);
    if (s.ev_h2d) cudaEventDestroy(s.ev_h2d);
    if (s.ev_ready) cudaEventDestroy(s.ev_ready);
    if (s.ev_computed) cudaEventDestroy(s.ev_computed);
    if (s.ev_d2h) cudaEventDestroy(s.ev_d2h);
    if (s.stream) cudaStreamDestroy(s.stream);
    cudaFreeHost(s.h_in);
    cudaFreeHost(s.h_out);
    cudaFree(s.d_raw);
    cudaFree(s.d_in);
    cudaFree(s.d_out);
    cudaFree(s.d_outi);
  }
  delete[] p->slots;
  p->slots = nullptr;
  (void)cudaGetLastError();
}

/* Everything that depends on the chunk size: gpu_conv, slots. */
static void free_plan(gpu_pipeline *p) {
  free_slots(p);
  gpu_conv_destroy(p->conv);
  p->conv = nullptr;
}

static convoy_status make_slot(gpu_pipeline *p, slot &s, char *err, size_t err_size) {
  const size_t ch = (size_t)p->channels, c = (size_t)p->chunk;
  const unsigned flags = cudaEventDisableTiming;
  GP_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  GP_CUDA(cudaEventCreateWithFlags(&s.ev_h2d, flags), "cudaEventCreate");
  GP_CUDA(cudaEventCreateWithFlags(&s.ev_ready, flags), "cudaEventCreate");
  GP_CUDA(cudaEventCreateWithFlags(&s.ev_computed, flags), "cudaEventCreate");
  GP_CUDA(cudaEventCreateWithFlags(&s.ev_d2h, flags), "cudaEventCreate");
  GP_CUDA(cudaHostAlloc((void **)&s.h_in, c * ch * 4, cudaHostAllocPortable),
          "pinned staging (cudaHostAlloc)");
  GP_CUDA(cudaHostAlloc((void **)&s.h_out, c * ch * 4, cudaHostAllocPortable),
          "pinned staging (cudaHostAlloc)");
  GP_CUDA(cudaMalloc(&s.d_raw, c * ch * 4), "device chunk buffer (cudaMalloc)");
  GP_CUDA(cudaMalloc((void **)&s.d_in, sizeof(float) * ch * (size_t)p->in_stride),
          "device chunk buffer (cudaMalloc)");
  GP_CUDA(cudaMalloc((void **)&s.d_out, sizeof(float) * ch * (size_t)p->out_stride),
          "device chunk buffer (cudaMalloc)");
  if (through_outi(p))
    GP_CUDA(cudaMalloc(&s.d_outi, sizeof(float) * ch * c), "device chunk buffer (cudaMalloc)");

  return CONVOY_OK;
}

/* gpu_conv and the slots for a chunk of about `target` frames. */
static convoy_status make_plan(gpu_pipeline *p, const gpu_pipeline_config *cfg, int64_t target,
                               int64_t fft_size, char *err, size_t err_size) {
  gpu_conv_config gc;
  gpu_conv_config_init(&gc);
  gc.channels = cfg->channels;
  gc.taps_len = cfg->taps_len;
  gc.taps = cfg->taps;
  gc.max_out = round_up(target, kRowAlign);
  gc.kind = cfg->kind;
  gc.device = p->device;
  gc.lanes = p->streams;
  gc.plan_effort = cfg->plan_effort;
  gc.fft_size = fft_size;
  gc.complex_taps = cfg->complex_taps;
  /* A folded FFT plan keeps multiples of D only: none for another phase. */
  gc.decimation = cfg->decimation > 1 && cfg->decimation_phase == 0 ? cfg->decimation : 0;
  gc.whole_granules = 1; /* the chunk below is whole granules */
  convoy_status st = gpu_conv_create(&gc, &p->conv, err, err_size);
  if (st != CONVOY_OK) return st;
  p->granule = gpu_conv_granule(p->conv);
  if (p->granule < 1)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL, "gpu_conv granule < 1");
  /* C: whole granules; the FFT plan is remade for a larger max_out when one
   * granule is longer than the target. */
  int64_t c = gc.max_out / p->granule * p->granule;
  if (c < p->granule) {
    c = p->granule;
    gc.fft_size = gpu_conv_fft_size(p->conv);
    gc.kind = gpu_conv_kind_of(p->conv);
    gc.max_out = c;
    gpu_conv_destroy(p->conv);
    p->conv = nullptr;
    if ((st = gpu_conv_create(&gc, &p->conv, err, err_size)) != CONVOY_OK) return st;
    if (gpu_conv_granule(p->conv) != p->granule)
      return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                                 "gpu_conv granule changed on re-plan");
  }
  p->chunk = c;
  p->in_stride = round_up(p->hist + c, kRowAlign);
  p->out_stride = round_up(c, kRowAlign);
  p->slots = new (std::nothrow) slot[p->streams];
  if (!p->slots)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "out of host memory");
  for (int32_t i = 0; i < p->streams; i++)
    if ((st = make_slot(p, p->slots[i], err, err_size)) != CONVOY_OK) return st;
  return CONVOY_OK;
}

static convoy_status check_config(const gpu_pipeline_config *c, int64_t *fft_size, char *err,
                                  size_t err_size) {
  if (c->channels < 1 || c->channels > GPU_CONV_MAX_ROWS || c->taps_len < 1 || !c->taps ||
      c->streams < 0 || c->chunk_frames < 0 || c->threads < 1 || c->fft_size < 0 ||
      c->decimation < 0 || c->decimation > CONVOY_MAX_DECIMATION || c->decimation_phase < 0 ||
      c->decimation_phase >= (c->decimation > 1 ? c->decimation : 1) || c->first_sample < 0 ||
      !(c->shift >= -0.5) || !(c->shift <= 0.5) || (c->shift != 0.0 && c->channels % 2 != 0))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "GPU pipeline: invalid configuration");
  if (c->chunk_frames > kMaxChunkSamples / c->channels)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "chunk_frames %lld x %d channels is above 2^%d samples",
                               (long long)c->chunk_frames, (int)c->channels, kMaxChunkLog2);
  if (c->taps_len > kMaxChunkSamples)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "%lld taps is above 2^%d", (long long)c->taps_len, kMaxChunkLog2);
  *fft_size = 0;
  if (c->fft_size > 0) {
    *fft_size = gpu_conv_fft_size_at_least(c->taps_len, c->fft_size);
    if (*fft_size == 0)
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "fft_size %lld with %lld taps needs an FFT above 2^%d points",
                                 (long long)c->fft_size, (long long)c->taps_len, kMaxFftLog2);
  }
  return CONVOY_OK;
}

extern "C" convoy_status gpu_pipeline_create(const gpu_pipeline_config *cfg, gpu_pipeline **out,
                                             char *err, size_t err_size) {
  *out = nullptr;
  int64_t fft_size = 0;
  convoy_status st = check_config(cfg, &fft_size, err, err_size);
  if (st != CONVOY_OK) return st;
  const int count = gp_device_count();
  const int32_t device = cfg->device < 0 ? 0 : cfg->device;
  if (count == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE, "no usable CUDA device");
  if (device >= count)
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE, "no GPU %d (%d present)",
                               (int)device, count);
  gp_device_guard guard;
  if ((st = guard.enter(device, err, err_size)) != CONVOY_OK) return st;

  gpu_pipeline *p = new (std::nothrow) gpu_pipeline();
  if (!p) return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "out of host memory");
  p->channels = cfg->channels;
  p->device = device;
  p->streams = cfg->streams == 0            ? kDefaultStreams
               : cfg->streams < 2           ? 2
               : cfg->streams > kMaxStreams ? kMaxStreams
                                            : cfg->streams;
  p->threads = cfg->threads < kMaxCopyThreads ? cfg->threads : kMaxCopyThreads;
  p->taps_len = cfg->taps_len;
  p->hist = cfg->taps_len - 1;
  p->out = cfg->out;
  p->decim = cfg->decimation > 1 ? cfg->decimation : 1;
  p->phase = cfg->decimation_phase;
  p->first = cfg->first_sample;
  p->shift = cfg->shift;
  if (integer_output(p)) {
    if (cudaMalloc((void **)&p->d_tally, 2 * sizeof *p->d_tally) != cudaSuccess ||
        cudaMemset(p->d_tally, 0, 2 * sizeof *p->d_tally) != cudaSuccess) {
      cudaError_t e = cudaGetLastError();
      cudaFree(p->d_tally);
      delete p;
      return gp_cuda_fail(e, "output statistics (cudaMalloc)", err, err_size);
    }
  }
  cudaDeviceProp prop;
  if (gp_device_props(device, &prop) == cudaSuccess)
    snprintf(p->device_name, sizeof p->device_name, "%s", prop.name);
  else
    (void)cudaGetLastError();
  if (p->threads > 1 && !(p->pool = pool_create(p->threads))) p->threads = 1;

  int64_t target = cfg->chunk_frames;
  if (target == 0) {
    /* Integer output moves fewer bytes a chunk: keep the bytes per chunk
     * (and so the per-chunk costs' share) the same as for float32. */
    const int64_t width = (int64_t)convoy_sample_format_bytes(p->out.fmt);
    target = kDefaultChunkSamples * (int64_t)sizeof(float) / width / cfg->channels;
    if (target < kMinChunkFrames) target = kMinChunkFrames;
  }
  /* Out of memory (device or pinned host): halve the chunk and try again. */
  for (;;) {
    st = make_plan(p, cfg, target, fft_size, err, err_size);
    if (st == CONVOY_OK) break;
    free_plan(p);
    if (st != CONVOY_ERR_OUT_OF_MEMORY || target <= kMinChunkFrames) {
      if (st == CONVOY_ERR_OUT_OF_MEMORY) {
        char why[192];
        snprintf(why, sizeof why, "%s", err ? err : "");
        convoy_error_format(err, err_size, st,
                            "GPU %d: out of memory even with %lld-frame chunks on %d streams (%s)",
                            (int)device, (long long)target, (int)p->streams, why);
      }
      pool_destroy(p->pool);
      cudaFree(p->d_tally);
      delete p;
      return st;
    }
    target /= 2;
  }
  /* A warm start's chunks sit on the FFT grid: chunk 0 begins at the grid
   * point at or before the first sample. */
  p->lead = p->first % p->granule;
  p->origin = p->first - p->lead;
  if ((st = start_state(p, err, err_size)) != CONVOY_OK) {
    gpu_pipeline_destroy(p);
    return st;
  }
  *out = p;
  return CONVOY_OK;
}

extern "C" void gpu_pipeline_destroy(gpu_pipeline *p) {
  if (!p) return;
  gp_device_guard guard;
  if (guard.enter(p->device, nullptr, 0) == CONVOY_OK) free_plan(p);
  pool_destroy(p->pool);
  cudaFree(p->d_tally);
  delete p;
}

/* ------------------------------------------------------------- pinned host memory */

extern "C" void *gpu_host_alloc_pinned(size_t bytes) {
  if (bytes == 0 || gp_device_count() == 0) return nullptr;
  void *ptr = nullptr;
  if (cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return ptr;
}

extern "C" void gpu_host_free_pinned(void *ptr) {
  if (ptr && cudaFreeHost(ptr) != cudaSuccess) (void)cudaGetLastError();
}
