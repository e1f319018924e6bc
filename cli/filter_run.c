/* filter_run.c - the read -> filter -> consume pipeline of one pass. */
#define _POSIX_C_SOURCE 200809L
#include "filter_run.h"

#include "pass_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers in each ring: enough for the reader and the consumer to stay a few
 * chunks ahead of and behind the filter without holding much memory. */
#define RING_BUFFERS 4

typedef struct chunk {
  float *data;
  int64_t frames; /* valid frames, starting at frame `offset` */
  int64_t offset;
  int end; /* marks the end of the stream (no data) */
} chunk;

typedef struct pipeline {
  const filter_run_config *cfg;
  chunk in[RING_BUFFERS], out[RING_BUFFERS];
  int64_t out_capacity; /* frames per out buffer */
  pass_threads t;

  int64_t out_frames;     /* written by the consumer thread, read after join */
  filter_run_result *res; /* the filter loop's counts */
} pipeline;

static void fail(pipeline *pl, convoy_status st, const char *msg) {
  pass_threads_fail(&pl->t, st, msg);
}

static void *reader_main(void *arg) {
  pipeline *pl = arg;
  const filter_run_config *cfg = pl->cfg;
  char err[512];
  for (;;) {
    chunk *c = work_queue_pop(&pl->t.free_in);
    if (!c) return NULL;
    int64_t got = 0;
    err[0] = '\0';
    convoy_status st =
        audio_source_read(cfg->src, c->data, cfg->chunk_frames, &got, err, sizeof err);
    if (st != CONVOY_OK) {
      fail(pl, st, err);
      return NULL;
    }
    int end = got == 0; /* c belongs to the filter thread once pushed */
    c->frames = got;
    c->offset = 0;
    c->end = end;
    work_queue_push(&pl->t.full_in, c);
    if (end) return NULL;
  }
}

static void *consumer_main(void *arg) {
  pipeline *pl = arg;
  const filter_run_config *cfg = pl->cfg;
  char err[512];
  for (;;) {
    chunk *c = work_queue_pop(&pl->t.full_out);
    if (!c || c->end) return NULL;
    if (c->frames > 0) {
      err[0] = '\0';
      convoy_status st = cfg->consume(cfg->consume_ctx, c->data + c->offset * cfg->channels,
                                      c->frames, err, sizeof err);
      if (st != CONVOY_OK) {
        fail(pl, st, err);
        return NULL;
      }
      pl->out_frames += c->frames;
    }
    work_queue_push(&pl->t.free_out, c);
  }
}

/* Keeps the part of the n frames at absolute output index produced that lies
 * in [skip, limit), and applies the gain to it. */
static void trim_and_scale(const filter_run_config *cfg, chunk *c, int64_t produced, int64_t n,
                           int64_t limit) {
  int64_t lo = produced > cfg->skip ? produced : cfg->skip;
  int64_t hi = produced + n < limit ? produced + n : limit;
  c->end = 0;
  if (hi <= lo) {
    c->offset = 0;
    c->frames = 0;
    return;
  }
  c->offset = lo - produced;
  c->frames = hi - lo;
  if (cfg->gain != 1.0f) {
    float *p = c->data + c->offset * cfg->channels;
    int64_t samples = c->frames * cfg->channels;
    for (int64_t i = 0; i < samples; i++) p[i] *= cfg->gain;
  }
}

static convoy_status stream_fail(pipeline *pl, convoy_status st) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s: filtering failed: %s", pl->cfg->in_name,
           convoy_stream_last_error(pl->cfg->stream));
  fail(pl, st, msg);
  return st;
}

/* The filter loop, on the calling thread. */
static void filter_main(void *arg) {
  pipeline *pl = arg;
  filter_run_result *res = pl->res;
  const filter_run_config *cfg = pl->cfg;
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
      st = convoy_stream_process(s, ic->data, ic->frames, oc->data, pl->out_capacity, &n);
      if (st != CONVOY_OK) {
        stream_fail(pl, st);
        return;
      }
      res->in_frames += ic->frames;
      work_queue_push(&pl->t.free_in, ic);
      trim_and_scale(cfg, oc, produced, n, INT64_MAX);
      produced += n;
      work_queue_push(&pl->t.full_out, oc);
      if (cfg->progress) progress_update(cfg->progress, res->in_frames);
      continue;
    }

    if (convoy_stream_flush_frames(s) > pl->out_capacity) {
      fail(pl, CONVOY_ERR_INTERNAL, "internal error: flush larger than its buffer");
      return;
    }
    st = convoy_stream_flush(s, oc->data, pl->out_capacity, &n);
    if (st != CONVOY_OK) {
      stream_fail(pl, st);
      return;
    }
    int64_t taps = convoy_stream_taps(s);
    int64_t limit = cfg->tail ? res->in_frames + taps - 1 : cfg->skip + res->in_frames;
    trim_and_scale(cfg, oc, produced, n, limit);
    produced += n;
    work_queue_push(&pl->t.full_out, oc);
    /* The input's end marker goes on to the consumer as its stop signal. */
    ic->end = 1;
    ic->frames = 0;
    work_queue_push(&pl->t.full_out, ic);
    return;
  }
}

static int pipeline_alloc(pipeline *pl, char *err, size_t err_size) {
  const filter_run_config *cfg = pl->cfg;
  convoy_stream *s = cfg->stream;
  /* max_output() depends on the frames held back at the time of the call;
   * never more than latency() are, so these bound every call and the flush. */
  int64_t latency = convoy_stream_latency(s);
  int64_t cap = convoy_stream_max_output(s, cfg->chunk_frames);
  if (cfg->chunk_frames + latency > cap) cap = cfg->chunk_frames + latency;
  if (latency + convoy_stream_taps(s) - 1 > cap) cap = latency + convoy_stream_taps(s) - 1;
  if (cap < cfg->chunk_frames) cap = cfg->chunk_frames; /* the end marker travels as an out chunk */
  pl->out_capacity = cap;
  size_t ch = (size_t)cfg->channels;
  for (int i = 0; i < RING_BUFFERS; i++) {
    /* Pinned where a GPU is usable, so a GPU stream copies straight from
     * and into these buffers instead of through its staging ring. */
    pl->in[i].data = convoy_host_alloc((size_t)cfg->chunk_frames * ch * sizeof(float));
    pl->out[i].data = convoy_host_alloc((size_t)cap * ch * sizeof(float));
    if (!pl->in[i].data || !pl->out[i].data) {
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
    convoy_host_free(pl->in[i].data);
    convoy_host_free(pl->out[i].data);
  }
  pass_threads_destroy(&pl->t);
}

convoy_status filter_run(const filter_run_config *cfg, filter_run_result *res, char *err,
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
    st = pass_threads_run(&pl->t, reader_main, consumer_main, filter_main, pl, err, err_size);
    res->out_frames = pl->out_frames;
  }
  pipeline_free(pl);
  free(pl);
  return st;
}
