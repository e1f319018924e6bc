/* capture_run.c - the capture pass: pass_loop with a capture reader and writer. */
#define _POSIX_C_SOURCE 200809L
#include "capture_run.h"

#include "pass_loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN 1
#else
#define HOST_BIG_ENDIAN 0
#endif

typedef struct capture_pass {
  const capture_run_config *cfg;
  int direct;                 /* the stored samples go to the stream as they are */
  int int_out;                /* the stream writes the output's integer codes itself */
  int floats_out;             /* the file stores the stream's floats as they are */
  size_t out_values;          /* floats in one frame of the stream's output */
  int64_t got;                /* frames read so far (the reader thread's, after the history's) */
  capture_tally floats_tally; /* floats_out: their peak, kept by the encoder thread */
} capture_pass;

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

static convoy_status read_capture(void *ctx, void *in, int64_t max_frames, int64_t *got, char *err,
                                  size_t err_size) {
  capture_pass *cp = ctx;
  const capture_run_config *cfg = cp->cfg;
  convoy_status st = cp->direct
                         ? capture_reader_read_raw(cfg->reader, in, max_frames, got, err, err_size)
                         : capture_reader_read(cfg->reader, in, max_frames, got, err, err_size);
  if (st != CONVOY_OK) return st;
  cp->got += *got;
  /* A short read is the input's end: before the selection's, an error, as
   * the reader reports it for a range it knows. */
  if (*got < max_frames && cp->got < cfg->need_frames) {
    const long long seen = (long long)(cfg->read_start + cp->got);
    if (cfg->count >= 0)
      snprintf(err, err_size, "%s: skip %lld + count %lld samples is past the end (%lld samples)",
               cfg->in_name, (long long)cfg->skip, (long long)cfg->count, seen);
    else
      snprintf(err, err_size, "%s: skip of %lld samples is past the end (%lld samples)",
               cfg->in_name, (long long)cfg->skip, seen);
    return CONVOY_ERR_FORMAT;
  }
  return CONVOY_OK;
}

/* The peak of float output that the file stores as it is, on the pass's
 * encoder thread: the writer's thread then only copies pages, which bounds
 * a run whose filter is on the GPU. */
static convoy_status tally_floats(void *ctx, void *frames, int64_t n, void *codes, char *err,
                                  size_t err_size) {
  capture_pass *cp = ctx;
  (void)codes, (void)err, (void)err_size;
  capture_tally_peak(&cp->floats_tally, frames, (size_t)n * cp->out_values);
  return CONVOY_OK;
}

static convoy_status write_capture(void *ctx, void *frames, int64_t n, char *err, size_t err_size) {
  const capture_pass *cp = ctx;
  if (cp->int_out || cp->floats_out)
    return capture_writer_write_raw(cp->cfg->writer, frames, n, err, err_size);
  return capture_writer_write(cp->cfg->writer, frames, n, err, err_size);
}

convoy_status capture_run(const capture_run_config *cfg, capture_run_result *res, char *err,
                          size_t err_size) {
  memset(res, 0, sizeof *res);
  capture_pass cp;
  memset(&cp, 0, sizeof cp);
  cp.cfg = cfg;
  const capture_reader_options *ro = capture_reader_get_options(cfg->reader);
  const int direct_format = capture_run_direct_format(ro->type, ro->scaling);
  cp.direct = direct_format >= 0;
  cp.int_out = !cfg->float_output &&
               capture_run_output_format(cfg->out_type, cfg->out_scaling) != CONVOY_FORMAT_F32;
  cp.floats_out = !cp.int_out && capture_writer_stores_floats(cfg->writer);
  const size_t values = (size_t)ro->channels * capture_datatype_components(ro->type);
  const size_t stored_frame_bytes = (size_t)ro->channels * capture_datatype_sample_bytes(ro->type);

  pass_config pc;
  memset(&pc, 0, sizeof pc);
  pc.in_name = cfg->in_name;
  pc.stream = cfg->stream;
  pc.chunk_frames = cfg->chunk_frames;
  pc.in_format = cp.direct ? (convoy_sample_format)direct_format : CONVOY_FORMAT_F32;
  pc.in_frame_bytes = cp.direct ? stored_frame_bytes : values * sizeof(float);
  pc.out_frame_bytes = cp.int_out
                           ? (size_t)ro->channels * capture_datatype_sample_bytes(cfg->out_type)
                           : values * sizeof(float);
  pc.read = read_capture;
  pc.read_ctx = &cp;
  pc.write = write_capture;
  pc.write_ctx = &cp;
  cp.out_values = values;
  if (cp.floats_out) {
    pc.encode = tally_floats; /* in place: encoded_frame_bytes 0 */
    pc.encode_ctx = &cp;
  }
  pc.window = cfg->window;
  pc.warm = cfg->warm;
  pc.progress = cfg->progress;
  res->direct = cp.direct;
  pass_result pr;
  convoy_status st = pass_run(&pc, &pr, err, err_size);
  res->in_frames = pr.in_frames;
  res->out_frames = pr.out_frames;
  res->pass = pr;
  if (cp.int_out) {
    res->tally.peak = pr.out_stats.peak;
    res->tally.clipped = pr.out_stats.clipped;
  } else {
    res->tally = capture_writer_tally(cfg->writer);
    if (cp.floats_tally.peak > res->tally.peak) res->tally.peak = cp.floats_tally.peak;
  }
  return st;
}
