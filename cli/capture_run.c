/* capture_run.c - the reader, filter and writer threads of one capture pass. */
#define _POSIX_C_SOURCE 200809L
#include "capture_run.h"

#include "pass_threads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers in each ring: the reader and the writer stay a few chunks ahead of
 * and behind the filter, without holding much memory. */
#define RING_BUFFERS 4

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN 1
#else
#define HOST_BIG_ENDIAN 0
#endif

typedef struct chunk {
  void *raw;   /* input: stored bytes */
  float *data; /* input: converted floats (NULL when direct); output: floats */
  int64_t frames;
  int64_t offset; /* output: first kept frame */
  int end;        /* end of the stream (no data) */
} chunk;

typedef struct pipeline {
  const capture_run_config *cfg;
  int direct_format; /* convoy_sample_format of the input, or -1: floats */
  int raw_out;       /* output is native float32 as is: written without conversion */
  int int_out;       /* the stream writes the output's integer codes itself */
  int64_t out_frame_bytes;
  double peak;    /* raw_out: largest |value| written */
  int64_t values; /* floats per frame */
  chunk in[RING_BUFFERS], out[RING_BUFFERS];
  int64_t out_capacity;
  pass_threads t;
  int64_t out_frames;
  capture_run_result *res; /* the filter loop's counts */
} pipeline;

int capture_run_direct_format(capture_datatype t, capture_scaling s) {
  if (t.width > 1 && t.big_endian != HOST_BIG_ENDIAN) return -1;
  capture_scaling d = capture_scaling_default(t);
  if (s.scale != d.scale || s.offset != d.offset) return -1;
  switch (t.kind * 16 + t.width) {
  case CAPTURE_KIND_FLOAT * 16 + 4:
    return CONVOY_FORMAT_F32;
  case CAPTURE_KIND_INT * 16 + 1:
    return CONVOY_FORMAT_S8;
  case CAPTURE_KIND_UINT * 16 + 1:
    return CONVOY_FORMAT_U8;
  case CAPTURE_KIND_INT * 16 + 2:
    return CONVOY_FORMAT_S16;
  case CAPTURE_KIND_INT * 16 + 4:
    return CONVOY_FORMAT_S32;
  default:
    return -1;
  }
}

convoy_sample_format capture_run_output_format(capture_datatype t, capture_scaling s) {
  const int f = capture_run_direct_format(t, s);
  return f > 0 ? (convoy_sample_format)f : CONVOY_FORMAT_F32;
}

static void fail(pipeline *pl, convoy_status st, const char *msg) {
  pass_threads_fail(&pl->t, st, msg);
}

static void *reader_main(void *arg) {
  pipeline *pl = arg;
  const capture_run_config *cfg = pl->cfg;
  const capture_reader_options *ro = capture_reader_get_options(cfg->reader);
  char err[512];
  for (;;) {
    chunk *c = work_queue_pop(&pl->t.free_in);
    if (!c) return NULL;
    int64_t got = 0;
    err[0] = '\0';
    convoy_status st =
        capture_reader_read_raw(cfg->reader, c->raw, cfg->chunk_frames, &got, err, sizeof err);
    if (st != CONVOY_OK) {
      fail(pl, st, err);
      return NULL;
    }
    if (got > 0 && c->data)
      capture_to_float(ro->type, ro->scaling, c->raw, (size_t)(got * pl->values), c->data);
    int end = got == 0; /* c belongs to the filter thread once pushed */
    c->frames = got;
    c->offset = 0;
    c->end = end;
    work_queue_push(&pl->t.full_in, c);
    if (end) return NULL;
  }
}

static double peak_of(const float *x, int64_t n, double peak) {
  float p = (float)peak;
  for (int64_t i = 0; i < n; i++) {
    float a = fabsf(x[i]);
    if (a > p) p = a; /* NaN compares false: ignored, as capture_from_float does */
  }
  return p;
}

static void *writer_main(void *arg) {
  pipeline *pl = arg;
  const capture_run_config *cfg = pl->cfg;
  char err[512];
  for (;;) {
    chunk *c = work_queue_pop(&pl->t.full_out);
    if (!c || c->end) return NULL;
    if (c->frames > 0) {
      err[0] = '\0';
      const float *x = c->data + c->offset * pl->values;
      convoy_status st;
      if (pl->int_out) {
        const unsigned char *codes =
            (const unsigned char *)c->data + c->offset * pl->out_frame_bytes;
        st = capture_writer_write_raw(cfg->writer, codes, c->frames, err, sizeof err);
      } else if (pl->raw_out) {
        pl->peak = peak_of(x, c->frames * pl->values, pl->peak);
        st = capture_writer_write_raw(cfg->writer, x, c->frames, err, sizeof err);
      } else {
        st = capture_writer_write(cfg->writer, x, c->frames, err, sizeof err);
      }
      if (st != CONVOY_OK) {
        fail(pl, st, err);
        return NULL;
      }
      pl->out_frames += c->frames;
    }
    work_queue_push(&pl->t.free_out, c);
  }
}

/* Full-rate output frames before index i that the stream keeps: ceil(i / D). */
static int64_t kept_before(const capture_run_config *cfg, int64_t i) {
  const int64_t d = cfg->decimation > 1 ? cfg->decimation : 1;
  return i / d + (i % d != 0);
}

/* Keeps the part of the n frames at (stream) output index `produced` that
 * lies in the window's [skip, limit) of the full-rate output. */
static void trim(const pipeline *pl, chunk *c, int64_t produced, int64_t n, int64_t limit) {
  const capture_run_config *cfg = pl->cfg;
  const int64_t start = kept_before(cfg, cfg->skip);
  if (limit != INT64_MAX) limit = kept_before(cfg, limit);
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

static void stream_fail(pipeline *pl, convoy_status st) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s: filtering failed: %s", pl->cfg->in_name,
           convoy_stream_last_error(pl->cfg->stream));
  fail(pl, st, msg);
}

static void filter_main(void *arg) {
  pipeline *pl = arg;
  capture_run_result *res = pl->res;
  const capture_run_config *cfg = pl->cfg;
  convoy_stream *s = cfg->stream;
  int64_t produced = 0;
  for (;;) {
    chunk *ic = work_queue_pop(&pl->t.full_in);
    if (!ic) return;
    chunk *oc = work_queue_pop(&pl->t.free_out);
    if (!oc) return;
    int64_t n = 0;
    convoy_status st;
    if (!ic->end) {
      const convoy_sample_format in_fmt =
          pl->direct_format >= 0 ? (convoy_sample_format)pl->direct_format : CONVOY_FORMAT_F32;
      const void *in = pl->direct_format >= 0 ? ic->raw : (const void *)ic->data;
      st = convoy_stream_process_to(s, in_fmt, in, ic->frames, oc->data, pl->out_capacity, &n);
      if (st != CONVOY_OK) {
        stream_fail(pl, st);
        return;
      }
      res->in_frames += ic->frames;
      work_queue_push(&pl->t.free_in, ic);
      trim(pl, oc, produced, n, INT64_MAX);
      produced += n;
      work_queue_push(&pl->t.full_out, oc);
      if (cfg->progress) progress_update(cfg->progress, res->in_frames);
      continue;
    }
    if (convoy_stream_flush_frames(s) > pl->out_capacity) {
      fail(pl, CONVOY_ERR_INTERNAL, "internal error: flush larger than its buffer");
      return;
    }
    st = convoy_stream_flush_to(s, oc->data, pl->out_capacity, &n);
    if (st != CONVOY_OK) {
      stream_fail(pl, st);
      return;
    }
    int64_t taps = convoy_stream_taps(s);
    int64_t limit =
        (cfg->tail ? res->in_frames + taps - 1 : cfg->skip + res->in_frames) - cfg->drop_end;
    trim(pl, oc, produced, n, limit);
    work_queue_push(&pl->t.full_out, oc);
    ic->end = 1; /* the input's end marker stops the writer */
    ic->frames = 0;
    work_queue_push(&pl->t.full_out, ic);
    return;
  }
}

static int pipeline_alloc(pipeline *pl, char *err, size_t err_size) {
  const capture_run_config *cfg = pl->cfg;
  convoy_stream *s = cfg->stream;
  const capture_reader_options *ro = capture_reader_get_options(cfg->reader);
  pl->values = (int64_t)ro->channels * capture_datatype_components(ro->type);
  pl->direct_format = capture_run_direct_format(ro->type, ro->scaling);
  pl->raw_out = capture_run_direct_format(cfg->out_type, cfg->out_scaling) == CONVOY_FORMAT_F32;
  pl->int_out = capture_run_output_format(cfg->out_type, cfg->out_scaling) != CONVOY_FORMAT_F32;
  pl->out_frame_bytes = (int64_t)capture_datatype_sample_bytes(cfg->out_type) * ro->channels;
  /* max_output() depends on what is held back at the time of the call;
   * never more than latency() frames are, so these bound every call. */
  int64_t latency = convoy_stream_latency(s);
  int64_t cap = convoy_stream_max_output(s, cfg->chunk_frames);
  if (cfg->chunk_frames + latency > cap) cap = cfg->chunk_frames + latency;
  if (latency + convoy_stream_taps(s) - 1 > cap) cap = latency + convoy_stream_taps(s) - 1;
  pl->out_capacity = cap;
  size_t frame_bytes = (size_t)ro->channels * (size_t)capture_datatype_sample_bytes(ro->type);
  size_t vals = (size_t)pl->values;
  for (int i = 0; i < RING_BUFFERS; i++) {
    /* Pinned where a GPU is usable: a GPU stream then copies straight from
     * and into these buffers. */
    pl->in[i].raw = convoy_host_alloc((size_t)cfg->chunk_frames * frame_bytes);
    if (pl->direct_format < 0)
      pl->in[i].data = convoy_host_alloc((size_t)cfg->chunk_frames * vals * sizeof(float));
    pl->out[i].data = convoy_host_alloc((size_t)cap * vals * sizeof(float));
    if (!pl->in[i].raw || (pl->direct_format < 0 && !pl->in[i].data) || !pl->out[i].data) {
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
    convoy_host_free(pl->in[i].raw);
    convoy_host_free(pl->in[i].data);
    convoy_host_free(pl->out[i].data);
  }
  pass_threads_destroy(&pl->t);
}

convoy_status capture_run(const capture_run_config *cfg, capture_run_result *res, char *err,
                          size_t err_size) {
  memset(res, 0, sizeof *res);
  pipeline *pl = calloc(1, sizeof *pl);
  if (!pl) {
    snprintf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  pl->cfg = cfg;
  pl->res = res;
  convoy_status st = CONVOY_ERR_OUT_OF_MEMORY;
  if (pipeline_alloc(pl, err, err_size) == 0) {
    res->direct = pl->direct_format >= 0;
    st = pass_threads_run(&pl->t, reader_main, writer_main, filter_main, pl, err, err_size);
    res->out_frames = pl->out_frames;
    if (pl->int_out) {
      convoy_output_stats os;
      convoy_stream_output_stats(cfg->stream, &os);
      res->tally.peak = os.peak;
      res->tally.clipped = os.clipped;
    } else if (pl->raw_out) {
      res->tally.peak = pl->peak;
      res->tally.clipped = 0;
    } else {
      res->tally = capture_writer_tally(cfg->writer);
    }
  }
  pipeline_free(pl);
  free(pl);
  return st;
}
