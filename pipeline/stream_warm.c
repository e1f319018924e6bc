/* stream_warm.c - warm start of a convoy_stream (stream_warm.h): the first
 * sample, the history before it, and the counts of an exact range. */
#include "stream_warm.h"

#include "sample_convert.h"
#include "stream_decimate.h"
#include "stream_internal.h"

#include <string.h>

convoy_status warm_check_config(const convoy_stream_config *c) {
  if (c->first_sample < 0 || c->first_sample > WARM_MAX_FIRST)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_stream_create: first_sample %lld is outside 0 .. 2^62",
                            (long long)c->first_sample);
  return CONVOY_OK;
}

void warm_setup(convoy_stream *s, const convoy_stream_config *c, int64_t grid) {
  s->first_sample = c->first_sample;
  s->grid = grid > 0 ? grid : 1;
  s->lead = s->first_sample % s->grid;
}

/* Output frames among the full-rate outputs [pos, pos + n), n >= 0. */
static int64_t kept(const convoy_stream *s, int64_t pos, int64_t n) {
  return s->dec ? decim_count(s->dec->factor, pos - s->dec->phase, n) : n;
}

int64_t warm_visible(const convoy_stream *s, int64_t pos, int64_t n) {
  const int64_t lo = pos > s->first_sample ? pos : s->first_sample;
  const int64_t hi = n > INT64_MAX - pos ? INT64_MAX : pos + n;
  return hi > lo ? kept(s, lo, hi - lo) : 0;
}

int64_t warm_dropped(const convoy_stream *s, int64_t pos, int64_t n) {
  const int64_t hi = pos + n < s->first_sample ? pos + n : s->first_sample;
  return hi > pos ? kept(s, pos, hi - pos) : 0;
}

uint64_t warm_first_out_index(const convoy_stream *s) {
  return (uint64_t)kept(s, 0, s->first_sample) * (uint64_t)s->rows;
}

void warm_reset_planar(convoy_stream *s) {
  for (int32_t c = 0; c < s->rows; c++)
    memset(s->in_buf[c], 0, sizeof(float) * (size_t)(s->hist + s->lead));
  s->pending = s->lead;
  s->full_pos = s->first_sample - s->lead;
  /* Dither follows the output's absolute position: the kept frames before
   * first_sample come first in a whole run. */
  s->out_index = warm_first_out_index(s);
  s->started = 0;
}

int64_t convoy_stream_history_frames(const convoy_stream *stream) {
  if (!stream) return 0;
  const int64_t h = stream->hist + stream->lead;
  return h < stream->first_sample ? h : stream->first_sample;
}

int64_t convoy_stream_lookahead_frames(const convoy_stream *stream, int64_t end) {
  if (!stream || end <= 0) return 0;
  const int64_t r = end % stream->grid;
  return r == 0 ? 0 : stream->grid - r;
}

int64_t convoy_stream_range_frames(const convoy_stream *stream, int64_t end) {
  if (!stream || end <= stream->first_sample) return 0;
  return warm_visible(stream, stream->first_sample, end - stream->first_sample);
}

convoy_status convoy_stream_set_history(convoy_stream *stream, convoy_sample_format fmt,
                                        const void *frames, int64_t n_frames) {
  const char *fn = "convoy_stream_set_history";
  convoy_stream *s = stream;
  if (!s) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: stream is NULL", fn);
  const size_t width = convoy_sample_format_bytes(fmt);
  if (width == 0)
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: unknown sample format %d", fn,
                       (int)fmt);
  if (n_frames < 0 || (!frames && n_frames > 0))
    return stream_fail(s, CONVOY_ERR_INVALID_ARGUMENT, "%s: frames is NULL or n_frames %lld < 0",
                       fn, (long long)n_frames);
  if (s->started || s->flushed || s->failed)
    return stream_fail(s, CONVOY_ERR_STATE,
                       "%s: the history goes in before the first process or flush (after create "
                       "or convoy_stream_reset)",
                       fn);
  const int64_t want = convoy_stream_history_frames(s);
  const int64_t use = n_frames < want ? n_frames : want;
  const unsigned char *src =
      (const unsigned char *)frames + (size_t)(n_frames - use) * width * (size_t)s->rows;
  if (s->whole) {
    char msg[CONVOY_ERROR_SIZE] = "";
    convoy_status st = s->ops->whole_stream->set_history(s->whole, fmt, use > 0 ? src : NULL, use,
                                                         msg, sizeof msg);
    if (st != CONVOY_OK) {
      s->failed = 1;
      return stream_fail(s, st, "%s: %s: %s", fn, convoy_engine_name(s->ops->id),
                         msg[0] ? msg : convoy_strerror(st));
    }
    return CONVOY_OK;
  }
  /* The hist + lead frames in front of the first run: zeros, then the
   * frames given, ending at x[first_sample - 1]. */
  const int64_t region = s->hist + s->lead, at = region - use;
  for (int32_t c = 0; c < s->rows; c++) memset(s->in_buf[c], 0, sizeof(float) * (size_t)at);
  if (use > 0) deinterleave_samples(fmt, src, s->rows, use, s->in_buf, at);
  return CONVOY_OK;
}
