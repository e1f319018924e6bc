/* stream.c - convoy_stream: configuration, create/destroy and queries. */
#include "filter_internal.h"
#include "stream_decimate.h"
#include "stream_internal.h"
#include "stream_warm.h"
#include "worker_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The work buffer holds at least this many samples (frames x channels), so
 * that one engine run amortises its fixed costs, while memory stays a few
 * megabytes whatever the signal's length. */
#define WORK_SAMPLES ((int64_t)1 << 17)
#define WORK_MIN_FRAMES 1024
/* Channel buffers start on cache-line boundaries. */
#define ALIGN_FLOATS 16

void convoy_stream_config_init(convoy_stream_config *config) {
  if (!config) return;
  memset(config, 0, sizeof *config);
  config->channels = 1;
  config->engine = CONVOY_ENGINE_AUTO;
  config->sample = CONVOY_SAMPLE_F32;
  config->threads = 0;
  config->fft_size = 0;
  config->plan_effort = 0;
  config->device = -1;
  config->gpu_streams = 0;
  config->chunk_frames = 0;
  config->output_format = CONVOY_FORMAT_F32;
  config->output_bits = 0;
  config->dither = 0;
  config->dither_seed = 0;
  config->decimation = 1;
  config->shift = 0.0;
  config->decimation_phase = 0;
  config->first_sample = 0;
}

convoy_status stream_fail(convoy_stream *s, convoy_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  convoy_error_vformat(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  return status;
}

static convoy_status check_config(const convoy_stream_config *c) {
  const char *fn = "convoy_stream_create";
  if (c->channels < 1 || c->channels > CONVOY_MAX_CHANNELS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: channels %d is outside 1 .. %d", fn,
                            (int)c->channels, CONVOY_MAX_CHANNELS);
  if (!engine_is_known(c->engine))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: unknown engine id %d", fn,
                            (int)c->engine);
  if (c->sample != CONVOY_SAMPLE_F32 && c->sample != CONVOY_SAMPLE_CF32)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: unknown sample type %d", fn,
                            (int)c->sample);
  if (c->threads < 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: threads %d is negative (0 means all CPU threads)", fn,
                            (int)c->threads);
  if (c->fft_size < 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: fft_size %lld is negative (0 means the cost model)", fn,
                            (long long)c->fft_size);
  if (c->plan_effort != 0 && c->plan_effort != 1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: plan_effort %d is not 0 (estimate) or 1 (measure)", fn,
                            (int)c->plan_effort);
  if (c->device < -1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: device %d is invalid (-1 means the default GPU)", fn,
                            (int)c->device);
  if (c->gpu_streams < 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: gpu_streams %d is negative", fn,
                            (int)c->gpu_streams);
  if (c->chunk_frames < 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: chunk_frames %lld is negative", fn,
                            (long long)c->chunk_frames);
  const size_t out_width = convoy_sample_format_bytes(c->output_format);
  if (out_width == 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: unknown output_format %d", fn,
                            (int)c->output_format);
  if (c->output_format == CONVOY_FORMAT_F32
          ? c->output_bits != 0
          : c->output_bits != 0 && (c->output_bits < 2 || c->output_bits > 8 * (int)out_width))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: output_bits %d does not fit output_format %d (0, or 2 .. %d "
                            "for integer output)",
                            fn, (int)c->output_bits, (int)c->output_format, 8 * (int)out_width);
  if (c->dither != 0 && c->dither != 1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: dither %d is not 0 or 1", fn,
                            (int)c->dither);
  convoy_status st = decim_check_config(c);
  return st == CONVOY_OK ? warm_check_config(c) : st;
}

void convoy_stream_destroy(convoy_stream *stream) {
  convoy_stream *s = stream;
  if (!s) return;
  if (s->ops && s->impl) s->ops->destroy(s->impl);
  if (s->ops && s->whole) s->ops->whole_stream->destroy(s->whole);
  decim_destroy(s->dec);
  pool_destroy(s->pool);
  if (s->filters) {
    for (int32_t i = 0; i < s->n_filters; i++) filter_release(s->filters[i]);
  }
  free(s->filters);
  free(s->padded);
  free(s->taps);
  free(s->in_mem);
  free(s->out_mem);
  free(s->in_buf);
  free(s->out_buf);
  free(s);
}

/* A whole-stream engine in place of the engine impl and planar buffers. A
 * choice (auto, a family) lets the engine settle its own method, by its own
 * model or by timing with plan_effort 1; the stream then reports what it
 * picked. */
static convoy_status create_whole(convoy_stream *s, const convoy_stream_config *cfg,
                                  const engine_request *req, char *msg, size_t msg_size) {
  const engine_stream_setup setup = {
      .wanted = cfg->engine,
      .streams = cfg->gpu_streams,
      .chunk_frames = cfg->chunk_frames,
      .out = s->out,
      .shift = s->dec ? s->dec->shift : 0.0,
      .decimation_phase = s->dec ? s->dec->phase : 0,
      .first_sample = cfg->first_sample,
  };
  const engine_stream_ops *whole = s->ops->whole_stream;
  convoy_engine chosen = s->ops->id;
  convoy_status st = whole->create(req, &setup, &s->whole, &chosen, msg, msg_size);
  if (st != CONVOY_OK) return st;
  const engine_ops *ran = engine_lookup(chosen);
  if (!ran || ran->whole_stream != whole) {
    convoy_error_format(msg, msg_size, CONVOY_ERR_INTERNAL, "engine '%s' is not in the list",
                        convoy_engine_name(chosen));
    return CONVOY_ERR_INTERNAL;
  }
  s->ops = ran;
  s->granule = 1;
  warm_setup(s, cfg, whole->grid(s->whole));
  return CONVOY_OK;
}

/* Bytes of floats still fit in size_t for count arrays of taps_len each. */
static int fits(int64_t count, int64_t taps_len) {
  return count == 0 || (uint64_t)taps_len <= SIZE_MAX / sizeof(float) / (uint64_t)count;
}

/* The rows of filter f, each taps_len floats: *re its (real part of the)
 * taps, *im the imaginary part (NULL for a real filter). Shorter filters and
 * complex ones (whose taps are interleaved) are copied into arrays taken
 * from *next. */
static void split_filter(const convoy_filter *f, int64_t taps_len, float **next, const float **re,
                         const float **im) {
  const int64_t len = convoy_filter_length(f);
  const float *t = convoy_filter_taps(f);
  *im = NULL;
  if (convoy_filter_type(f) == CONVOY_SAMPLE_CF32) {
    float *r = *next, *i = *next + taps_len;
    *next += 2 * taps_len;
    for (int64_t j = 0; j < len; j++) {
      r[j] = t[2 * j];
      i[j] = t[2 * j + 1];
    }
    *re = r;
    *im = i;
  } else if (len == taps_len) {
    *re = t;
  } else {
    memcpy(*next, t, sizeof(float) * (size_t)len);
    *re = *next;
    *next += taps_len;
  }
}

/* Per-row taps (see stream_internal.h): zero-padded to the longest filter,
 * complex filters split into real and imaginary rows, real filters of a
 * complex_taps stream given the one shared row of zeros as imaginary part. */
static convoy_status setup_taps(convoy_stream *s) {
  int64_t arrays = 0;
  int any_real = 0;
  for (int32_t i = 0; i < s->n_filters; i++) {
    const convoy_filter *f = s->filters[i];
    if (convoy_filter_type(f) == CONVOY_SAMPLE_CF32) {
      arrays += 2;
    } else {
      any_real = 1;
      arrays += convoy_filter_length(f) < s->taps_len;
    }
  }
  const int zeros = s->complex_taps && any_real;
  arrays += zeros;
  s->taps = malloc(sizeof(float *) * (size_t)s->rows);
  const float **re = malloc(sizeof(float *) * (size_t)s->n_filters);
  const float **im = malloc(sizeof(float *) * (size_t)s->n_filters);
  if (!s->taps || !re || !im || !fits(arrays, s->taps_len)) goto oom;
  if (arrays > 0) {
    s->padded = calloc((size_t)arrays * (size_t)s->taps_len, sizeof(float));
    if (!s->padded) goto oom;
  }
  float *next = s->padded;
  const float *zero_row = zeros ? next : NULL;
  next += zeros ? s->taps_len : 0;
  for (int32_t i = 0; i < s->n_filters; i++) {
    split_filter(s->filters[i], s->taps_len, &next, &re[i], &im[i]);
    if (!im[i]) im[i] = s->complex_taps ? zero_row : re[i];
  }
  for (int32_t c = 0; c < s->channels; c++) {
    const int32_t fi = s->n_filters == 1 ? 0 : c;
    if (s->is_complex) {
      s->taps[2 * c] = re[fi];
      s->taps[2 * c + 1] = im[fi];
    } else {
      s->taps[c] = re[fi];
    }
  }
  free(re);
  free(im);
  return CONVOY_OK;
oom:
  free(re);
  free(im);
  return CONVOY_ERR_OUT_OF_MEMORY;
}

static int64_t round_up(int64_t n, int64_t to) {
  return (n + to - 1) / to * to;
}

/* The planar buffers; sizes fixed here for the stream's life. */
static convoy_status setup_buffers(convoy_stream *s, int32_t threads) {
  int64_t work = WORK_SAMPLES / s->rows;
  if (work < WORK_MIN_FRAMES) work = WORK_MIN_FRAMES;
  if (work < 2 * s->hist) work = 2 * s->hist; /* history copies stay a small overhead */
  if (work < s->granule) work = s->granule;
  /* Enough whole granules per run that every thread gets some, when the
   * channels alone do not spread the work. */
  if (s->rows < threads && work < 2 * (int64_t)threads * s->granule)
    work = 2 * (int64_t)threads * s->granule;
  s->work = round_up(work, s->granule);
  int64_t in_stride = round_up(s->hist + s->work + CONVOY_ENGINE_SLACK, ALIGN_FLOATS);
  int64_t out_stride = round_up(s->work, ALIGN_FLOATS);
  uint64_t limit = SIZE_MAX / sizeof(float) / (uint64_t)s->rows;
  if ((uint64_t)in_stride > limit || (uint64_t)out_stride > limit) return CONVOY_ERR_OUT_OF_MEMORY;
  size_t in_bytes = sizeof(float) * (size_t)in_stride * (size_t)s->rows;
  size_t out_bytes = sizeof(float) * (size_t)out_stride * (size_t)s->rows;
  s->in_mem = aligned_alloc(sizeof(float) * ALIGN_FLOATS, in_bytes);
  s->out_mem = aligned_alloc(sizeof(float) * ALIGN_FLOATS, out_bytes);
  s->in_buf = malloc(sizeof(float *) * (size_t)s->rows);
  s->out_buf = malloc(sizeof(float *) * (size_t)s->rows);
  if (!s->in_mem || !s->out_mem || !s->in_buf || !s->out_buf) return CONVOY_ERR_OUT_OF_MEMORY;
  memset(s->in_mem, 0, in_bytes);
  for (int32_t c = 0; c < s->rows; c++) {
    s->in_buf[c] = s->in_mem + (size_t)c * (size_t)in_stride;
    s->out_buf[c] = s->out_mem + (size_t)c * (size_t)out_stride;
  }
  return CONVOY_OK;
}

convoy_status convoy_stream_create(convoy_stream **stream, const convoy_stream_config *config,
                                   convoy_filter *const *filters, int32_t n_filters) {
  const char *fn = "convoy_stream_create";
  if (!stream) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: stream is NULL", fn);
  *stream = NULL;
  convoy_stream_config cfg;
  if (config)
    cfg = *config;
  else
    convoy_stream_config_init(&cfg);
  convoy_status st = check_config(&cfg);
  if (st != CONVOY_OK) return st;
  if (!filters) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: filters is NULL", fn);
  if (n_filters != 1 && n_filters != cfg.channels)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: n_filters %d must be 1 or the channel count %d", fn,
                            (int)n_filters, (int)cfg.channels);
  int64_t taps_len = 0;
  int complex_taps = 0;
  for (int32_t i = 0; i < n_filters; i++) {
    if (!filters[i])
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: filters[%d] is NULL", fn, (int)i);
    int64_t len = convoy_filter_length(filters[i]);
    if (len > taps_len) taps_len = len;
    if (convoy_filter_type(filters[i]) == CONVOY_SAMPLE_CF32) {
      if (cfg.sample != CONVOY_SAMPLE_CF32)
        return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                                "%s: filters[%d] has complex taps but the stream is real; use a "
                                "complex stream (config.sample = CONVOY_SAMPLE_CF32)",
                                fn, (int)i);
      complex_taps = 1;
    }
  }
  if (cfg.fft_size != 0 && cfg.fft_size < taps_len)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: fft_size %lld is shorter than the filter (%lld taps)", fn,
                            (long long)cfg.fft_size, (long long)taps_len);

  convoy_stream *s = calloc(1, sizeof *s);
  if (!s) return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  s->channels = cfg.channels;
  s->is_complex = cfg.sample == CONVOY_SAMPLE_CF32;
  s->rows = s->is_complex ? 2 * cfg.channels : cfg.channels;
  s->complex_taps = complex_taps;
  s->out = output_spec_make(cfg.output_format, cfg.output_bits, cfg.dither, cfg.dither_seed);
  s->taps_len = taps_len;
  s->hist = taps_len - 1;
  s->filters = calloc((size_t)n_filters, sizeof *s->filters);
  if (!s->filters) {
    convoy_stream_destroy(s);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  }
  s->n_filters = n_filters;
  for (int32_t i = 0; i < n_filters; i++) s->filters[i] = filter_retain(filters[i]);
  if (setup_taps(s) != CONVOY_OK) {
    convoy_stream_destroy(s);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d x %lld taps", fn,
                            (int)s->rows, (long long)taps_len);
  }
  if (decim_setup_taps(s, &cfg) != CONVOY_OK) {
    convoy_stream_destroy(s);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: cannot allocate shifted taps", fn);
  }

  engine_request req = {
      .channels = s->rows,
      .complex_taps = s->complex_taps,
      .taps_len = taps_len,
      .taps = s->taps,
      .threads = cfg.threads > 0 ? cfg.threads : convoy_cpu_threads(),
      .fft_size = cfg.fft_size,
      .plan_effort = cfg.plan_effort,
      .device = cfg.device,
      .decimation = s->dec ? (int32_t)s->dec->factor : 1,
  };
  char msg[CONVOY_ERROR_SIZE] = "";
  st = engine_check_device(cfg.engine, cfg.device, msg, sizeof msg);
  if (st != CONVOY_OK) {
    convoy_stream_destroy(s);
    return convoy_error_set(st, "%s: %s", fn, msg);
  }
  s->ops = engine_choose(cfg.engine, &req, msg, sizeof msg);
  if (!s->ops) {
    char reason[CONVOY_ERROR_SIZE];
    convoy_status why = engine_unavailable(cfg.engine, reason, sizeof reason);
    convoy_stream_destroy(s);
    if (why == CONVOY_ERR_NO_DEVICE) return convoy_error_set(why, "%s: %s (%s)", fn, msg, reason);
    return convoy_error_set(why, "%s: %s%s", fn, msg,
                            complex_taps ? " (complex taps, rows counted as real and "
                                           "imaginary parts)"
                                         : "");
  }
  if (s->ops->whole_stream) {
    st = create_whole(s, &cfg, &req, msg, sizeof msg);
    if (st != CONVOY_OK) {
      convoy_stream_destroy(s);
      return convoy_error_set(st, "%s: %s", fn, msg);
    }
    *stream = s;
    return CONVOY_OK;
  }
  if (req.threads > ENGINE_MAX_THREADS) req.threads = ENGINE_MAX_THREADS;
  if (req.threads > 1) {
    s->pool = pool_create(req.threads);
    if (!s->pool) {
      convoy_stream_destroy(s);
      return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: cannot start %d threads", fn,
                              (int)req.threads);
    }
    req.pool = s->pool;
  }
  st = s->ops->create(&req, &s->impl, msg, sizeof msg);
  if (st != CONVOY_OK) {
    s->impl = NULL;
    convoy_stream_destroy(s);
    return convoy_error_set(st, "%s: %s", fn, msg);
  }
  s->granule = s->ops->granule(s->impl);
  if (s->granule < 1) {
    int64_t g = s->granule;
    convoy_stream_destroy(s);
    return convoy_error_set(CONVOY_ERR_INTERNAL, "%s: engine '%s' reported granule %lld", fn,
                            convoy_engine_name(cfg.engine), (long long)g);
  }
  if (setup_buffers(s, req.threads) != CONVOY_OK) {
    convoy_stream_destroy(s);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY,
                            "%s: cannot allocate stream buffers (%d channels, %lld taps)", fn,
                            (int)cfg.channels, (long long)taps_len);
  }
  warm_setup(s, &cfg, s->granule);
  warm_reset_planar(s);
  *stream = s;
  return CONVOY_OK;
}

int64_t convoy_stream_max_output(const convoy_stream *stream, int64_t in_frames) {
  const convoy_stream *s = stream;
  if (!s || in_frames < 0 || s->flushed) return 0;
  if (s->whole) return s->ops->whole_stream->max_output(s->whole, in_frames);
  int64_t total = in_frames > INT64_MAX - s->pending ? INT64_MAX : s->pending + in_frames;
  return warm_visible(s, s->full_pos, total / s->granule * s->granule);
}

int64_t convoy_stream_flush_frames(const convoy_stream *stream) {
  const convoy_stream *s = stream;
  if (!s || s->flushed) return 0;
  if (s->whole) return s->ops->whole_stream->flush_frames(s->whole);
  return warm_visible(s, s->full_pos, s->pending + s->hist);
}

int64_t convoy_stream_latency(const convoy_stream *stream) {
  if (!stream) return 0;
  if (stream->whole) return stream->ops->whole_stream->latency(stream->whole);
  return stream->granule - 1 + (stream->dec ? stream->dec->factor - 1 : 0);
}

int64_t convoy_stream_taps(const convoy_stream *stream) {
  return stream ? stream->taps_len : 0;
}

int32_t convoy_stream_channels(const convoy_stream *stream) {
  return stream ? stream->channels : 0;
}

convoy_engine convoy_stream_engine(const convoy_stream *stream) {
  return stream ? stream->ops->id : CONVOY_ENGINE_AUTO;
}

convoy_status convoy_stream_describe(const convoy_stream *stream, char *buf, size_t buf_size) {
  const char *fn = "convoy_stream_describe";
  if (!stream) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: stream is NULL", fn);
  convoy_stream *s = (convoy_stream *)stream; /* only its message buffer is written */
  if (!buf || buf_size == 0)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: buf is NULL or buf_size is 0", fn);
  char warm[96] = "";
  if (s->first_sample > 0)
    snprintf(warm, sizeof warm, "; first sample %lld (grid %lld)", (long long)s->first_sample,
             (long long)s->grid);
  if (s->whole) {
    char line[512] = "";
    s->ops->whole_stream->describe(s->whole, line, sizeof line);
    snprintf(buf, buf_size, "%s: %s%s%s", convoy_engine_name(s->ops->id), line,
             !s->is_complex    ? ""
             : s->complex_taps ? "; complex samples, complex taps"
                               : "; complex samples, real taps",
             warm);
    return CONVOY_OK;
  }
  char line[CONVOY_ERROR_SIZE] = "", dec[96] = "";
  s->ops->describe(s->impl, line, sizeof line);
  if (s->dec)
    snprintf(dec, sizeof dec, ", decimation %lld phase %lld, shift %.9g cycles/sample",
             (long long)s->dec->factor, (long long)s->dec->phase, s->dec->shift);
  snprintf(buf, buf_size, "%s; %d %schannel%s%s, %lld-frame work buffer%s%s", line,
           (int)s->channels, s->is_complex ? "complex " : "", s->channels == 1 ? "" : "s",
           !s->is_complex    ? ""
           : s->complex_taps ? " (complex taps)"
                             : " (real taps)",
           (long long)s->work, dec, warm);
  return CONVOY_OK;
}

const char *convoy_stream_last_error(const convoy_stream *stream) {
  return stream ? stream->err : "";
}
