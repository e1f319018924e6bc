/* pass_loop.c - the read -> filter -> write loop of one pass. */
#define _POSIX_C_SOURCE 200809L
#include "pass_loop.h"

#include "buffers.h"
#include "diag.h"
#include "pass_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers in each ring: enough for the reader and the writer to stay a few
 * chunks ahead of and behind the filter without holding much memory. */
#define RING_BUFFERS 4

typedef struct chunk {
  void *data;  /* input: frames of in_format; output: of the output format */
  void *codes; /* output of a pass that encodes: the encoded frames */
  int64_t frames;
  int64_t offset; /* output: first kept frame */
  int end;        /* marks the end of the stream (no data) */
} chunk;

typedef struct pipeline {
  const pass_config *cfg;
  chunk in[RING_BUFFERS], out[RING_BUFFERS];
  int64_t out_capacity; /* frames per out buffer */
  int pinned;           /* the buffers are pinned (a GPU stream) */
  pass_threads t;
  int64_t out_frames;               /* written by the writer thread, read after join */
  double read_s, encode_s, write_s; /* each thread's busy seconds, read after join */
  pass_result *res;                 /* the filter loop's counts */
} pipeline;

static void fail(pipeline *pl, convoy_status st, const char *msg) {
  pass_threads_fail(&pl->t, st, msg);
}

static void *reader_main(void *arg) {
  pipeline *pl = arg;
  const pass_config *cfg = pl->cfg;
  char err[512];
  int64_t left = cfg->warm.read_limit > 0 ? cfg->warm.read_limit : -1; /* -1: no limit */
  for (;;) {
    chunk *c = work_queue_pop(&pl->t.free_in);
    if (!c) return NULL;
    int64_t got = 0;
    err[0] = '\0';
    const int64_t want = left >= 0 && left < cfg->chunk_frames ? left : cfg->chunk_frames;
    const double t0 = progress_clock();
    convoy_status st =
        want > 0 ? cfg->read(cfg->read_ctx, c->data, want, &got, err, sizeof err) : CONVOY_OK;
    pl->read_s += progress_clock() - t0;
    if (st != CONVOY_OK) {
      fail(pl, st, err[0] ? err : convoy_strerror(st));
      return NULL;
    }
    if (left >= 0) left -= got;
    int end = got == 0; /* c belongs to the filter thread once pushed */
    c->frames = got;
    c->offset = 0;
    c->end = end;
    work_queue_push(&pl->t.full_in, c);
    if (end) return NULL;
  }
}

/* Encodes each output chunk's kept frames into its codes, in order. */
static void *encoder_main(void *arg) {
  pipeline *pl = arg;
  const pass_config *cfg = pl->cfg;
  char err[512];
  for (;;) {
    chunk *c = work_queue_pop(&pl->t.full_out);
    if (!c) return NULL;
    if (!c->end && c->frames > 0) {
      err[0] = '\0';
      unsigned char *frames = (unsigned char *)c->data + c->offset * cfg->out_frame_bytes;
      const double t0 = progress_clock();
      convoy_status st = cfg->encode(cfg->encode_ctx, frames, c->frames, c->codes, err, sizeof err);
      pl->encode_s += progress_clock() - t0;
      if (st != CONVOY_OK) {
        fail(pl, st, err[0] ? err : convoy_strerror(st));
        return NULL;
      }
    }
    work_queue_push(&pl->t.encoded, c);
    if (c->end) return NULL;
  }
}

static void *writer_main(void *arg) {
  pipeline *pl = arg;
  const pass_config *cfg = pl->cfg;
  work_queue *from = cfg->encode ? &pl->t.encoded : &pl->t.full_out;
  char err[512];
  for (;;) {
    chunk *c = work_queue_pop(from);
    if (!c || c->end) return NULL;
    if (c->frames > 0) {
      err[0] = '\0';
      unsigned char *frames = c->codes
                                  ? (unsigned char *)c->codes
                                  : (unsigned char *)c->data + c->offset * cfg->out_frame_bytes;
      const double t0 = progress_clock();
      convoy_status st = cfg->write(cfg->write_ctx, frames, c->frames, err, sizeof err);
      pl->write_s += progress_clock() - t0;
      if (st != CONVOY_OK) {
        fail(pl, st, err[0] ? err : convoy_strerror(st));
        return NULL;
      }
      pl->out_frames += c->frames;
    }
    work_queue_push(&pl->t.free_out, c);
  }
}

/* Full-rate output frames before index i that the stream keeps, those at
 * P mod D: ceil((i - P) / D). */
static int64_t kept_before(const pass_window *w, int64_t i) {
  const int64_t d = w->decimation > 1 ? w->decimation : 1;
  const int64_t a = i - w->phase;
  return a <= 0 ? 0 : a / d + (a % d != 0);
}

/* Keeps the part of the n frames at (stream) output index `produced` that
 * lies in the window's [skip, limit) of the full-rate output. */
static void trim(const pass_window *w, chunk *c, int64_t produced, int64_t n, int64_t limit) {
  const int64_t start = kept_before(w, w->skip);
  if (limit != INT64_MAX) limit = kept_before(w, limit);
  int64_t lo = produced > start ? produced : start;
  int64_t hi = produced + n < limit ? produced + n : limit;
  c->end = 0;
  if (hi <= lo) {
    c->offset = 0;
    c->frames = 0;
    return;
  }
  c->offset = lo - produced;
  c->frames = hi - lo;
}

/* The stream's counts of integer output (clips, peak: the summary's and the
 * metadata's) cover the frames the window keeps, [skip, end) at full rate
 * (end INT64_MAX: open), and no frame the pass drops. */
static void count_window(convoy_stream *s, const pass_window *w, int64_t end) {
  (void)convoy_stream_set_stats_range(s, kept_before(w, w->skip),
                                      end == INT64_MAX ? -1 : kept_before(w, end));
}

/* The window's end in full-rate output frames, for n_in input frames (the
 * ring-out of an empty input is nothing, as sox and ffmpeg give). */
static int64_t window_end(const pass_window *w, int64_t n_in, int64_t taps) {
  return (w->tail && n_in > 0 ? n_in + taps - 1 : w->skip + n_in) - w->drop_end;
}

static void stream_fail(pipeline *pl, convoy_status st) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s: filtering failed: %s", pl->cfg->in_name,
           convoy_stream_last_error(pl->cfg->stream));
  fail(pl, st, msg);
}

/* The filter loop, on the calling thread. */
static void filter_main(void *arg) {
  pipeline *pl = arg;
  pass_result *res = pl->res;
  const pass_config *cfg = pl->cfg;
  convoy_stream *s = cfg->stream;
  const pass_window *w = &cfg->window;
  const int64_t taps = convoy_stream_taps(s);
  /* A warm pass reads past its window: its end is known from the start. */
  const int64_t known_end = w->has_count ? window_end(w, w->count, taps) : INT64_MAX;
  int64_t produced = 0;
  count_window(s, w, known_end);
  for (;;) {
    chunk *ic = work_queue_pop(&pl->t.full_in);
    if (!ic) return;
    chunk *oc = work_queue_pop(&pl->t.free_out);
    if (!oc) return;
    int64_t n = 0;
    convoy_status st;
    const double t0 = progress_clock();
    if (!ic->end) {
      st = convoy_stream_process_to(s, cfg->in_format, ic->data, ic->frames, oc->data,
                                    pl->out_capacity, &n);
      res->filter_s += progress_clock() - t0;
      if (st != CONVOY_OK) {
        stream_fail(pl, st);
        return;
      }
      res->in_frames += ic->frames;
      work_queue_push(&pl->t.free_in, ic);
      trim(w, oc, produced, n, known_end);
      produced += n;
      work_queue_push(&pl->t.full_out, oc);
      if (cfg->progress) progress_update(cfg->progress, res->in_frames);
      continue;
    }
    if (convoy_stream_flush_frames(s) > pl->out_capacity) {
      fail(pl, CONVOY_ERR_INTERNAL, "internal error: flush larger than its buffer");
      return;
    }
    const int64_t end = w->has_count ? known_end : window_end(w, res->in_frames, taps);
    count_window(s, w, end); /* the ring-out past the window: written nowhere, counted nowhere */
    st = convoy_stream_flush_to(s, oc->data, pl->out_capacity, &n);
    res->filter_s += progress_clock() - t0;
    if (st != CONVOY_OK) {
      stream_fail(pl, st);
      return;
    }
    trim(w, oc, produced, n, end);
    work_queue_push(&pl->t.full_out, oc);
    ic->end = 1; /* the input's end marker goes on to stop the writer */
    ic->frames = 0;
    work_queue_push(&pl->t.full_out, ic);
    return;
  }
}

static int pipeline_alloc(pipeline *pl, char *err, size_t err_size) {
  const pass_config *cfg = pl->cfg;
  convoy_stream *s = cfg->stream;
  /* max_output() depends on the frames held back at the time of the call;
   * never more than latency() are, so these bound every call and the flush.
   * A decimating stream keeps at most ceil(m / D) of any m full-rate frames. */
  const int64_t latency = convoy_stream_latency(s);
  const int64_t call = kept_before(&cfg->window, cfg->chunk_frames + latency);
  const int64_t flush = kept_before(&cfg->window, latency + convoy_stream_taps(s) - 1);
  int64_t cap = convoy_stream_max_output(s, cfg->chunk_frames);
  if (call > cap) cap = call;
  if (flush > cap) cap = flush;
  pl->out_capacity = cap;
  const size_t frames = (size_t)cfg->chunk_frames;
  /* Pinned for a GPU stream, which then copies straight from and into these
   * buffers instead of through its staging ring; plain for a CPU stream. */
  pl->pinned = buffer_pinned_for(convoy_stream_engine(s));
  for (int i = 0; i < RING_BUFFERS; i++) {
    pl->in[i].data = buffer_alloc(frames * cfg->in_frame_bytes, pl->pinned);
    pl->out[i].data = buffer_alloc((size_t)cap * cfg->out_frame_bytes, pl->pinned);
    const int codes = cfg->encode && cfg->encoded_frame_bytes > 0;
    if (codes) pl->out[i].codes = malloc((size_t)cap * cfg->encoded_frame_bytes);
    if (!pl->in[i].data || !pl->out[i].data || (codes && !pl->out[i].codes)) {
      snprintf(err, err_size, "out of memory for %d buffers of %lld frames", 2 * RING_BUFFERS,
               (long long)cap);
      return -1;
    }
  }
  if (pass_threads_init(&pl->t, pl->in, sizeof pl->in[0], pl->out, sizeof pl->out[0], RING_BUFFERS,
                        err, err_size) != 0)
    return -1;
  return 0;
}

static void pipeline_free(pipeline *pl) {
  for (int i = 0; i < RING_BUFFERS; i++) {
    buffer_free(pl->in[i].data, pl->pinned);
    buffer_free(pl->out[i].data, pl->pinned);
    free(pl->out[i].codes);
  }
  pass_threads_destroy(&pl->t);
}

int64_t pass_chunk_frames(const convoy_stream *stream, int64_t values, int64_t values_per_frame,
                          int64_t input_frames) {
  int64_t n = values / values_per_frame > 1024 ? values / values_per_frame : 1024;
  if (convoy_engine_family(convoy_stream_engine(stream)) == CONVOY_FAMILY_GPU) {
    const int64_t gpu_chunk = (convoy_stream_latency(stream) + 1) / 4;
    if (gpu_chunk > n) n = gpu_chunk;
  }
  /* A short input needs no more than itself: its buffers (pinned for a GPU
   * stream, which costs time to allocate) stay small. */
  if (input_frames >= 0 && input_frames < n) n = input_frames > 1024 ? input_frames : 1024;
  return n;
}

/* A warm start's history: the first frames read, before the threads start. */
static convoy_status read_history(const pass_config *cfg, char *err, size_t err_size) {
  const int64_t n = cfg->warm.history;
  if (n <= 0) return CONVOY_OK;
  unsigned char *buf = malloc((size_t)n * cfg->in_frame_bytes);
  if (!buf) {
    snprintf(err, err_size, "%s: out of memory for %lld frames of history", cfg->in_name,
             (long long)n);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  int64_t have = 0;
  convoy_status st = CONVOY_OK;
  while (have < n && st == CONVOY_OK) {
    int64_t got = 0;
    err[0] = '\0';
    st = cfg->read(cfg->read_ctx, buf + (size_t)have * cfg->in_frame_bytes, n - have, &got, err,
                   err_size);
    if (st == CONVOY_OK && got == 0) {
      snprintf(err, err_size, "%s: the input ends %lld frames before the skipped ones do",
               cfg->in_name, (long long)(n - have));
      st = CONVOY_ERR_FORMAT;
    }
    have += got;
  }
  if (st == CONVOY_OK &&
      convoy_stream_set_history(cfg->stream, cfg->in_format, buf, n) != CONVOY_OK) {
    snprintf(err, err_size, "%s: %s", cfg->in_name, convoy_stream_last_error(cfg->stream));
    st = CONVOY_ERR_INTERNAL;
  }
  free(buf);
  return st;
}

convoy_status pass_run(const pass_config *cfg, pass_result *res, char *err, size_t err_size) {
  memset(res, 0, sizeof *res);
  pipeline *pl = calloc(1, sizeof *pl);
  if (!pl) {
    snprintf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  pl->cfg = cfg;
  pl->res = res;
  convoy_status st = CONVOY_ERR_OUT_OF_MEMORY;
  const double t0 = progress_clock();
  if (pipeline_alloc(pl, err, err_size) == 0 &&
      (st = read_history(cfg, err, err_size)) == CONVOY_OK) {
    const double t1 = progress_clock();
    st = pass_threads_run(&pl->t, reader_main, writer_main, cfg->encode ? encoder_main : NULL,
                          filter_main, pl, err, err_size);
    res->out_frames = pl->out_frames;
    (void)convoy_stream_output_stats(cfg->stream, &res->out_stats);
    res->read_s = pl->read_s;
    res->encode_s = pl->encode_s;
    res->encode_name = cfg->encode_name;
    res->write_s = pl->write_s;
    res->run_s = progress_clock() - t1;
  }
  res->alloc_s = progress_clock() - t0 - res->run_s;
  pipeline_free(pl);
  free(pl);
  return st;
}

void pass_print_times(const pass_result *r) {
  const double busy[4] = {r->read_s, r->filter_s, r->encode_s, r->write_s};
  static const char *const names[4] = {"reader", "filter", "encoder", "writer"};
  int most = 0;
  for (int i = 1; i < 4; i++)
    if (busy[i] > busy[most]) most = i;
  char encode[48] = "";
  if (r->encode_s > 0)
    snprintf(encode, sizeof encode, ", %s %.3f s", r->encode_name ? r->encode_name : "encode",
             r->encode_s);
  diag_notice("threads busy: read %.3f s, filter %.3f s%s, write %.3f s, in %.3f s (the %s "
              "thread bounds it); buffers %.3f s",
              r->read_s, r->filter_s, encode, r->write_s, r->run_s, names[most], r->alloc_s);
}
