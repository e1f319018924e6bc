/* stream_process.c - convoy_stream process, flush and reset: the hot path.
 * Nothing here allocates. */
#include "interleave.h"
#include "output_write.h"
#include "sample_convert.h"
#include "stream_decimate.h"
#include "stream_internal.h"
#include "stream_warm.h"

#include <stdint.h>
#include <string.h>

/* 1 when the byte ranges [a, a + a_len) and [b, b + b_len) intersect. */
static int overlaps(const void *a, uint64_t a_len, const void *b, uint64_t b_len) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a_len > 0 && b_len > 0 && a0 < b0 + b_len && b0 < a0 + a_len;
}

/* Runs the engine on the first n frames of pending input (n a multiple of
 * granule, n <= pending), writes the outputs of the first `keep` of them
 * interleaved to out (*written frames: keep, or the kept ones of a decimating
 * stream), and shifts the buffers so that the last taps_len - 1 consumed
 * frames become the history in front of the frames still pending. */
static convoy_status run_engine(convoy_stream *s, int64_t n, int64_t keep, void *out,
                                int64_t *written) {
  const int64_t valid = s->hist + s->pending;
  *written = 0;
  for (int32_t c = 0; c < s->rows; c++)
    memset(s->in_buf[c] + valid, 0, sizeof(float) * CONVOY_ENGINE_SLACK);
  char msg[CONVOY_ERROR_SIZE] = "";
  convoy_status st;
  /* A warm start's first run begins on the block grid before first_sample:
   * the outputs before it are not the stream's. */
  const int64_t dropped = warm_dropped(s, s->full_pos, keep);
  if (s->dec) {
    st = decim_run(s, n, keep, &keep, msg, sizeof msg);
  } else {
    st = s->ops->run(s->impl, (const float *const *)s->in_buf, s->out_buf, n, msg, sizeof msg);
  }
  if (st != CONVOY_OK) {
    s->failed = 1;
    return stream_fail(s, st, "%s: %s", convoy_engine_name(s->ops->id),
                       msg[0] ? msg : convoy_strerror(st));
  }
  if (dropped > 0) {
    keep -= dropped;
    for (int32_t c = 0; c < s->rows; c++)
      memmove(s->out_buf[c], s->out_buf[c] + dropped, sizeof(float) * (size_t)keep);
  }
  output_write_parallel(&s->out, s->pool, (const float *const *)s->out_buf, s->rows, keep,
                        s->out_index, out, &s->tally);
  s->out_index += (uint64_t)keep * (uint64_t)s->rows;
  s->full_pos += n;
  *written = keep;
  for (int32_t c = 0; c < s->rows; c++)
    memmove(s->in_buf[c], s->in_buf[c] + n, sizeof(float) * (size_t)(valid - n));
  s->pending -= n;
  return CONVOY_OK;
}

/* Checks shared by process and flush. */
static convoy_status check_usable(convoy_stream *s, const char *fn) {
  if (s->flushed)
    return stream_fail(s, CONVOY_ERR_STATE, "%s: the stream was flushed; call convoy_stream_reset",
                       fn);
  if (s->failed)
    return stream_fail(s, CONVOY_ERR_STATE,
                       "%s: an earlier call failed (%s); call convoy_stream_reset", fn,
                       convoy_engine_name(s->ops->id));
  return CONVOY_OK;
}

/* A whole-stream engine's failure: the stream needs a reset. */
static convoy_status whole_failed(convoy_stream *s, convoy_status st, const char *fn,
                                  const char *msg) {
  s->failed = 1;
  return stream_fail(s, st, "%s: %s: %s", fn, convoy_engine_name(s->ops->id),
                     msg[0] ? msg : convoy_strerror(st));
}

/* Float-output entry points on a stream with integer output. */
static convoy_status check_float_output(convoy_stream *s, const char *fn) {
  if (s && s->out.fmt != CONVOY_FORMAT_F32)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT,
                       "%s: the stream writes integer samples (output_format %d); use "
                       "convoy_stream_process_to and convoy_stream_flush_to",
                       fn, (int)s->out.fmt);
  return CONVOY_OK;
}

static convoy_status process_any(convoy_stream *s, const char *fn, convoy_sample_format fmt,
                                 const void *in_bytes, int64_t in_frames, void *out_bytes,
                                 int64_t out_capacity, int64_t *out_frames) {
  if (!s) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: stream is NULL", fn);
  if (!out_frames) return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: out_frames is NULL", fn);
  *out_frames = 0;
  const size_t width = convoy_sample_format_bytes(fmt);
  if (width == 0)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: unknown sample format %d", fn,
                       (int)fmt);
  convoy_status st = check_usable(s, fn);
  if (st != CONVOY_OK) return st;
  const int32_t ch = s->rows; /* values per frame */
  if (in_frames < 0 || in_frames > INT64_MAX / ch / (int64_t)sizeof(float))
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: in_frames %lld is out of range", fn,
                       (long long)in_frames);
  if (!in_bytes && in_frames > 0)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: in is NULL with in_frames %lld", fn,
                       (long long)in_frames);
  const int64_t will = convoy_stream_max_output(s, in_frames);
  if (out_capacity < will)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT,
                       "%s: out_capacity %lld frames is less than the %lld this call writes "
                       "(see convoy_stream_max_output)",
                       fn, (long long)out_capacity, (long long)will);
  if (!out_bytes && will > 0)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: out is NULL and %lld frames are due",
                       fn, (long long)will);
  const uint64_t in_frame_bytes = width * (uint64_t)ch;
  const uint64_t out_frame_bytes = (uint64_t)output_frame_bytes(&s->out, ch);
  unsigned char *out = out_bytes;
  if (overlaps(in_bytes, (uint64_t)in_frames * in_frame_bytes, out,
               (uint64_t)will * out_frame_bytes))
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT,
                       "%s: in and out overlap (in-place filtering is not supported)", fn);

  s->started = 1;
  if (s->whole) {
    char msg[CONVOY_ERROR_SIZE] = "";
    st = s->ops->whole_stream->process(s->whole, fmt, in_bytes, in_frames, out_bytes, out_frames,
                                       msg, sizeof msg);
    return st == CONVOY_OK ? st : whole_failed(s, st, fn, msg);
  }

  const unsigned char *in = in_bytes;
  int64_t pos = 0, done = 0;
  while (pos < in_frames) {
    int64_t take = s->work - s->pending;
    if (take > in_frames - pos) take = in_frames - pos;
    deinterleave_samples(fmt, in + (size_t)pos * in_frame_bytes, ch, take, s->in_buf,
                         s->hist + s->pending);
    s->pending += take;
    pos += take;
    if (s->pending >= s->granule) {
      int64_t n = s->pending / s->granule * s->granule, written = 0;
      st = run_engine(s, n, n, out + (uint64_t)done * out_frame_bytes, &written);
      if (st != CONVOY_OK) {
        *out_frames = done;
        return st;
      }
      done += written;
    }
  }
  *out_frames = done;
  return CONVOY_OK;
}

convoy_status convoy_stream_process(convoy_stream *stream, const float *in, int64_t in_frames,
                                    float *out, int64_t out_capacity, int64_t *out_frames) {
  convoy_status st = check_float_output(stream, "convoy_stream_process");
  if (st != CONVOY_OK) return st;
  return process_any(stream, "convoy_stream_process", CONVOY_FORMAT_F32, in, in_frames, out,
                     out_capacity, out_frames);
}

convoy_status convoy_stream_process_samples(convoy_stream *stream, convoy_sample_format fmt,
                                            const void *in, int64_t in_frames, float *out,
                                            int64_t out_capacity, int64_t *out_frames) {
  convoy_status st = check_float_output(stream, "convoy_stream_process_samples");
  if (st != CONVOY_OK) return st;
  return process_any(stream, "convoy_stream_process_samples", fmt, in, in_frames, out, out_capacity,
                     out_frames);
}

convoy_status convoy_stream_process_to(convoy_stream *stream, convoy_sample_format in_format,
                                       const void *in, int64_t in_frames, void *out,
                                       int64_t out_capacity, int64_t *out_frames) {
  return process_any(stream, "convoy_stream_process_to", in_format, in, in_frames, out,
                     out_capacity, out_frames);
}

static convoy_status flush_any(convoy_stream *s, const char *fn, void *out_bytes,
                               int64_t out_capacity, int64_t *out_frames) {
  if (!s) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: stream is NULL", fn);
  if (!out_frames) return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: out_frames is NULL", fn);
  *out_frames = 0;
  convoy_status st = check_usable(s, fn);
  if (st != CONVOY_OK) return st;
  const int64_t total = convoy_stream_flush_frames(s);
  if (out_capacity < total)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT,
                       "%s: out_capacity %lld frames is less than the %lld flush writes "
                       "(see convoy_stream_flush_frames)",
                       fn, (long long)out_capacity, (long long)total);
  if (!out_bytes && total > 0)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: out is NULL and %lld frames are due",
                       fn, (long long)total);

  s->started = 1;
  if (s->whole) {
    char msg[CONVOY_ERROR_SIZE] = "";
    st = s->ops->whole_stream->flush(s->whole, out_bytes, out_frames, msg, sizeof msg);
    if (st != CONVOY_OK) return whole_failed(s, st, fn, msg);
    s->flushed = 1;
    return CONVOY_OK;
  }

  /* The input continues with zeros: pad the pending frames up to whole
   * granules, run, and keep only the outputs that exist. Counted at the full
   * rate: a decimating run writes only its kept frames. */
  unsigned char *out = out_bytes;
  const uint64_t out_frame_bytes = (uint64_t)output_frame_bytes(&s->out, s->rows);
  const int64_t total_full = s->pending + s->hist;
  int64_t done = 0, done_full = 0;
  while (done_full < total_full) {
    const int64_t remaining = total_full - done_full;
    int64_t n = (remaining + s->granule - 1) / s->granule * s->granule;
    if (n > s->work) n = s->work;
    for (int32_t c = 0; c < s->rows; c++)
      memset(s->in_buf[c] + s->hist + s->pending, 0, sizeof(float) * (size_t)(n - s->pending));
    s->pending = n;
    const int64_t keep = n < remaining ? n : remaining;
    int64_t written = 0;
    st = run_engine(s, n, keep, out + (uint64_t)done * out_frame_bytes, &written);
    if (st != CONVOY_OK) {
      *out_frames = done;
      return st;
    }
    done += written;
    done_full += keep;
  }
  s->flushed = 1;
  *out_frames = done;
  return CONVOY_OK;
}

convoy_status convoy_stream_flush(convoy_stream *stream, float *out, int64_t out_capacity,
                                  int64_t *out_frames) {
  const char *fn = "convoy_stream_flush";
  convoy_status st = check_float_output(stream, fn);
  if (st != CONVOY_OK) return st;
  return flush_any(stream, fn, out, out_capacity, out_frames);
}

convoy_status convoy_stream_flush_to(convoy_stream *stream, void *out, int64_t out_capacity,
                                     int64_t *out_frames) {
  return flush_any(stream, "convoy_stream_flush_to", out, out_capacity, out_frames);
}

convoy_status convoy_stream_output_stats(const convoy_stream *stream, convoy_output_stats *stats) {
  if (!stream || !stats)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_stream_output_stats: stream or stats is NULL");
  output_tally t = stream->whole ? stream->ops->whole_stream->tally(stream->whole) : stream->tally;
  stats->clipped = t.clipped;
  stats->peak = t.peak;
  return CONVOY_OK;
}

convoy_status convoy_stream_set_stats_range(convoy_stream *stream, int64_t first, int64_t end) {
  if (!stream)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_stream_set_stats_range: stream is NULL");
  if (first < 0 || (end >= 0 && end < first))
    return stream_fail(stream, CONVOY_ERR_INVALID_ARGUMENT,
                       "convoy_stream_set_stats_range: [%lld, %lld) is not a range of frames",
                       (long long)first, (long long)end);
  if (stream->whole) {
    stream->ops->whole_stream->stats_range(stream->whole, first, end);
    return CONVOY_OK;
  }
  output_spec_count_frames(&stream->out, warm_first_out_index(stream), first, end, stream->rows);
  return CONVOY_OK;
}

convoy_status convoy_stream_reset(convoy_stream *stream) {
  convoy_stream *s = stream;
  if (!s)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_stream_reset: stream is NULL");
  if (s->whole) {
    char msg[CONVOY_ERROR_SIZE] = "";
    convoy_status st = s->ops->whole_stream->reset(s->whole, msg, sizeof msg);
    s->flushed = 0;
    s->started = 0;
    s->failed = st != CONVOY_OK;
    if (st != CONVOY_OK)
      return stream_fail(s, st, "convoy_stream_reset: %s: %s", convoy_engine_name(s->ops->id),
                         msg[0] ? msg : convoy_strerror(st));
    return CONVOY_OK;
  }
  warm_reset_planar(s);
  s->tally.clipped = 0;
  s->tally.peak = 0.0;
  output_spec_count_frames(&s->out, 0, 0, -1, s->rows);
  s->flushed = 0;
  s->failed = 0;
  return CONVOY_OK;
}
