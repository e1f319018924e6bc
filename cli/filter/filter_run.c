/* filter_run.c - the audio pass: pass_loop with an audio source and a gain. */
#define _POSIX_C_SOURCE 200809L
#include "filter_run.h"

#include "pass_loop.h"
#include "worker_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  const filter_run_config *cfg;
  worker_pool *pool;     /* unpacks 24-bit samples; NULL: on the reader thread */
  unsigned char *stored; /* 24-bit samples as read, before unpacking */
  int64_t stored_frames; /* frames it holds */
} reader;

/* The source's 24-bit samples read as stored and unpacked into codes on the
 * reader's pool: libsndfile's conversion on the one reader thread bounded a
 * 24-bit file on a GPU engine. */
static convoy_status read_unpacked(reader *r, void *codes, int64_t max_frames, int64_t *got,
                                   char *err, size_t err_size) {
  const audio_source *src = r->cfg->src;
  if (max_frames > r->stored_frames) {
    const size_t frame_bytes = audio_source_stored_bytes(src) * (size_t)r->cfg->channels;
    unsigned char *b = realloc(r->stored, (size_t)max_frames * frame_bytes);
    if (!b) {
      snprintf(err, err_size, "%s: out of memory", r->cfg->in_name);
      return CONVOY_ERR_OUT_OF_MEMORY;
    }
    r->stored = b;
    r->stored_frames = max_frames;
  }
  convoy_status st =
      audio_source_read_stored(r->cfg->src, r->stored, max_frames, got, err, err_size);
  if (st == CONVOY_OK) audio_source_unpack_parallel(src, r->stored, *got, codes, r->pool);
  return st;
}

static convoy_status read_audio(void *ctx, void *in, int64_t max_frames, int64_t *got, char *err,
                                size_t err_size) {
  reader *r = ctx;
  const filter_run_config *cfg = r->cfg;
  convoy_status st = audio_source_stored_bytes(cfg->src)
                         ? read_unpacked(r, in, max_frames, got, err, err_size)
                         : audio_source_read_native(cfg->src, in, max_frames, got, err, err_size);
  if (st != CONVOY_OK || !cfg->true_stereo) return st;
  /* L, R -> L, R, L, R in place, from the last frame back. */
  const size_t w = convoy_sample_format_bytes(audio_source_native_format(cfg->src));
  unsigned char *b = in;
  for (int64_t i = *got - 1; i >= 0; i--) {
    memmove(b + (size_t)i * 4 * w, b + (size_t)i * 2 * w, 2 * w);
    memcpy(b + ((size_t)i * 4 + 2) * w, b + (size_t)i * 4 * w, 2 * w);
  }
  return CONVOY_OK;
}

/* A true-stereo chunk's 4 stream channels into its 2 output channels, in
 * place: L = y0 + y1, R = y2 + y3. */
static void fold_true_stereo(const filter_run_config *cfg, float *x, int64_t n) {
  if (!cfg->true_stereo) return;
  for (int64_t i = 0; i < n; i++) {
    const float l = x[4 * i] + x[4 * i + 1], r = x[4 * i + 2] + x[4 * i + 3];
    x[2 * i] = l;
    x[2 * i + 1] = r;
  }
}

static void scale(const filter_run_config *cfg, float *x, int64_t n) {
  if (cfg->gain == 1.0f) return;
  const int64_t samples = n * cfg->channels;
  for (int64_t i = 0; i < samples; i++) x[i] *= cfg->gain;
}

/* Most threads that unpack one chunk of 24-bit input. */
#define READ_MAX_THREADS 4

/* Most threads that quantize one chunk of audio output. */
#define ENCODE_MAX_THREADS 8

typedef struct encoder {
  const filter_run_config *cfg;
  worker_pool *pool; /* NULL: quantize on the encoder thread alone */
} encoder;

/* The sink's integer codes of the scaled frames, on the pass's encoder thread
 * and, on a machine with cores to spare, its pool. */
static convoy_status encode_scaled(void *ctx, void *frames, int64_t n, void *codes, char *err,
                                   size_t err_size) {
  const encoder *e = ctx;
  (void)err, (void)err_size;
  fold_true_stereo(e->cfg, frames, n);
  scale(e->cfg, frames, n);
  audio_sink_encode_parallel(e->cfg->sink, frames, n, codes, e->pool);
  return CONVOY_OK;
}

/* The stream's codes in the file's stored form (24-bit PCM: 3 bytes a
 * sample), on the pass's encoder thread and its pool: off the writer's. */
static convoy_status store_codes(void *ctx, void *codes, int64_t n, void *stored, char *err,
                                 size_t err_size) {
  const encoder *e = ctx;
  (void)err, (void)err_size;
  audio_sink_store_parallel(e->cfg->sink, codes, n, stored, e->pool);
  return CONVOY_OK;
}

static convoy_status write_stored(void *ctx, void *stored, int64_t n, char *err, size_t err_size) {
  const filter_run_config *cfg = ctx;
  return audio_sink_write_stored(cfg->sink, stored, n, err, err_size);
}

/* A helper pool of the machine's threads / share, at most `most`; NULL
 * (the stage's own thread alone, still right) below two. */
static worker_pool *helper_pool(int share, int most) {
  int threads = convoy_cpu_threads() / share;
  if (threads > most) threads = most;
  return threads >= 2 ? pool_create(threads) : NULL;
}

static convoy_status write_codes(void *ctx, void *codes, int64_t n, char *err, size_t err_size) {
  const filter_run_config *cfg = ctx;
  return audio_sink_write_encoded(cfg->sink, codes, n, err, err_size);
}

static convoy_status write_float(void *ctx, void *frames, int64_t n, char *err, size_t err_size) {
  const filter_run_config *cfg = ctx;
  return audio_sink_write(cfg->sink, frames, n, err, err_size);
}

static convoy_status write_scaled(void *ctx, void *frames, int64_t n, char *err, size_t err_size) {
  const filter_run_config *cfg = ctx;
  fold_true_stereo(cfg, frames, n);
  scale(cfg, frames, n);
  if (cfg->sink) return write_float(ctx, frames, n, err, err_size);
  return cfg->consume(cfg->consume_ctx, frames, n, err, err_size);
}

convoy_status filter_run(const filter_run_config *cfg, pass_result *res, char *err,
                         size_t err_size) {
  pass_config pc;
  memset(&pc, 0, sizeof pc);
  pc.in_name = cfg->in_name;
  pc.stream = cfg->stream;
  pc.chunk_frames = cfg->chunk_frames;
  /* 16-bit PCM goes to the stream as it is stored, 24-bit as 32-bit codes:
   * the stream converts them (a GPU one on the GPU, the bus carrying half
   * the bytes of 16-bit PCM). */
  pc.in_format = audio_source_native_format(cfg->src);
  const size_t stream_channels = cfg->true_stereo ? 4 : (size_t)cfg->channels;
  pc.in_frame_bytes = stream_channels * convoy_sample_format_bytes(pc.in_format);
  pc.out_frame_bytes = stream_channels * sizeof(float);
  reader rd = {.cfg = cfg};
  if (audio_source_stored_bytes(cfg->src)) rd.pool = helper_pool(4, READ_MAX_THREADS);
  pc.read = read_audio;
  pc.read_ctx = &rd;
  pc.write = write_scaled;
  pc.write_ctx = (void *)cfg;
  encoder enc = {.cfg = cfg, .pool = NULL};
  const size_t encoded = cfg->sink ? audio_sink_encoded_bytes(cfg->sink) : 0;
  if (cfg->stream_codes) { /* the stream quantized: the codes go to the file as they are */
    pc.out_frame_bytes = stream_channels * encoded;
    pc.write = write_codes;
    const size_t stored = audio_sink_stored_bytes(cfg->sink);
    if (stored > 0) { /* or packed as the file stores them, before the writer */
      enc.pool = helper_pool(2, ENCODE_MAX_THREADS);
      pc.encode = store_codes;
      pc.encode_ctx = &enc;
      pc.encoded_frame_bytes = stored * (size_t)cfg->channels;
      pc.encode_name = "pack";
      pc.write = write_stored;
    }
  } else if (encoded > 0) { /* quantizing overlaps the filter and the writer's system calls */
    enc.pool = helper_pool(2, ENCODE_MAX_THREADS);
    pc.encode = encode_scaled;
    pc.encode_ctx = &enc;
    pc.encoded_frame_bytes = encoded * (size_t)cfg->channels;
    pc.write = write_codes;
  }
  pc.window = cfg->window;
  pc.warm = cfg->warm;
  pc.progress = cfg->progress;
  convoy_status st = pass_run(&pc, res, err, err_size);
  pool_destroy(enc.pool);
  pool_destroy(rd.pool);
  free(rd.stored);
  if (cfg->stream_codes)
    audio_sink_add_tally(cfg->sink, res->out_stats.clipped, res->out_stats.peak);
  return st;
}
