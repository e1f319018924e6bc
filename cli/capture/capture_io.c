/* capture_io.c - the input and output files of `convoy filter` on captures. */
#define _POSIX_C_SOURCE 200809L
#include "capture_io.h"

#include "audio_file.h"

#include "commands.h"
#include "diag.h"
#include "engine_choice.h"
#include "out_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int has_capture_extension(const char *path) {
  capture_datatype t;
  return capture_datatype_from_extension(path, &t) == 0;
}

/* BASE of a pair: BASE.sigmf-meta exists and BASE itself does not. */
static int is_sigmf_base(const char *path) {
  struct stat sb;
  if (stat(path, &sb) == 0 || errno != ENOENT) return 0;
  size_t n = strlen(path);
  char *meta = malloc(n + sizeof ".sigmf-meta");
  if (!meta) return 0;
  memcpy(meta, path, n);
  memcpy(meta + n, ".sigmf-meta", sizeof ".sigmf-meta");
  int found = stat(meta, &sb) == 0;
  free(meta);
  return found;
}

static int is_sigmf_input(const char *path) {
  return sigmf_is_path(path) || ends_with(path, ".sigmf") || is_sigmf_base(path);
}

static int is_std(const char *path) {
  return strcmp(path, "-") == 0;
}

int capture_is_input(const filter_options *o) {
  if (is_std(o->in_path))
    return o->capture.format || capture_args_any(&o->capture) ||
           has_capture_extension(o->out_path) || sigmf_is_path(o->out_path);
  return o->capture.format || has_capture_extension(o->in_path) || is_sigmf_input(o->in_path);
}

static int failed(const char *err, convoy_status st) {
  diag_error("%s", err[0] ? err : convoy_strerror(st));
  return CLI_EXIT_FAIL;
}

/* The reader options of a SigMF input; --format must agree with it. */
static int open_sigmf(const filter_options *o, capture_in *in) {
  char err[512] = "";
  convoy_status st = sigmf_open(&in->meta, o->in_path, err, sizeof err);
  if (st == CONVOY_OK) st = sigmf_reader_options(in->meta, &in->ro, err, sizeof err);
  if (st != CONVOY_OK) return failed(err, st);
  capture_datatype forced;
  if (o->capture.format &&
      capture_datatype_parse(o->capture.format, &forced, NULL, 0) == CONVOY_OK &&
      memcmp(&forced, &in->ro.type, sizeof forced) != 0) {
    diag_error("%s: --format %s contradicts its core:datatype %s", o->in_path, o->capture.format,
               capture_datatype_name(in->ro.type));
    return CLI_EXIT_FAIL;
  }
  in->data_path = sigmf_meta_data_path(in->meta);
  in->rate = sigmf_meta_sample_rate(in->meta);
  return CLI_EXIT_OK;
}

static int open_raw(const filter_options *o, capture_in *in) {
  char err[512] = "";
  capture_datatype t;
  convoy_status st = o->capture.format
                         ? capture_datatype_parse(o->capture.format, &t, err, sizeof err)
                         : capture_datatype_from_path(o->in_path, &t, err, sizeof err);
  if (st != CONVOY_OK) return failed(err, st);
  in->ro = capture_reader_defaults(t);
  in->data_path = o->in_path;
  return CLI_EXIT_OK;
}

/* A raw capture on stdin: its datatype can only come from --format. */
static int open_stdin(const filter_options *o, capture_in *in) {
  const char *format = o->capture.format;
  if (!format) {
    diag_error("stdin: raw samples read from stdin need --format (their datatype, e.g. cu8 or "
               "cf32_le); a SigMF recording cannot come from stdin: give its .sigmf-meta file");
    return CLI_EXIT_FAIL;
  }
  if (isatty(STDIN_FILENO)) {
    diag_error("stdin is a terminal; pipe the samples in (e.g. rtl_sdr - | convoy filter - ...)");
    return CLI_EXIT_FAIL;
  }
  char err[512] = "";
  capture_datatype t;
  convoy_status st = capture_datatype_parse(format, &t, err, sizeof err);
  if (st != CONVOY_OK) return failed(err, st);
  in->ro = capture_reader_defaults(t);
  in->data_path = "-";
  return CLI_EXIT_OK;
}

/* What needs the length of IN before filtering cannot take a pipe. */
static int check_length_known(const filter_options *o, const capture_in *in) {
  if (in->frames >= 0) return CLI_EXIT_OK;
  const capture_matched_args *m = &o->capture.matched;
  const char *what = m->pulse_len > 0                                    ? "--pulse-len"
                     : m->template_path && m->mode == CONVOY_PULSE_VALID ? "--mode valid"
                                                                         : NULL;
  if (!what) return CLI_EXIT_OK;
  diag_error("stdin: %s needs the length of the capture, which a pipe does not give; redirect "
             "a file (< FILE), give --count, or name the file",
             what);
  return CLI_EXIT_FAIL;
}

/* The most a pipe is read ahead for `auto`'s choice. */
#define PIPE_LOOK_AHEAD_MAX_BYTES ((int64_t)64 << 20)

/* A pipe on stdin whose length is unknown, read ahead so that `auto`
 * chooses its engine by its length as for a file: past the skipped frames
 * a warm pipe still holds (skip_left) and the frames of a short input
 * (engine_choice.h); in->piped_frames is what follows the skip where the
 * pipe ends within that. */
static int look_ahead(capture_in *in, int64_t skip_left) {
  const int64_t frame_bytes = (int64_t)capture_datatype_sample_bytes(in->ro.type) * in->ro.channels;
  const int64_t values = (int64_t)capture_datatype_components(in->ro.type) * in->ro.channels;
  const int64_t short_frames = (ENGINE_SHORT_INPUT_SAMPLES + values - 1) / values;
  if (skip_left > PIPE_LOOK_AHEAD_MAX_BYTES / frame_bytes - short_frames)
    return CLI_EXIT_OK; /* left to the reads */
  const int64_t frames = skip_left + short_frames;
  char err[512] = "";
  int64_t held = 0;
  int ended = 0;
  convoy_status st = capture_reader_look_ahead(in->reader, frames, &held, &ended, err, sizeof err);
  if (st != CONVOY_OK) return failed(err, st);
  if (ended && held >= skip_left) in->piped_frames = held - skip_left;
  return CLI_EXIT_OK;
}

int capture_in_open(const filter_options *o, capture_in *in) {
  memset(in, 0, sizeof *in);
  in->name = is_std(o->in_path) ? "stdin" : o->in_path;
  const capture_args *a = &o->capture;
  int rc = is_std(o->in_path)           ? open_stdin(o, in)
           : is_sigmf_input(o->in_path) ? open_sigmf(o, in)
                                        : open_raw(o, in);
  if (rc != CLI_EXIT_OK) return rc;
  if (a->rate > 0) in->rate = a->rate;
  in->ro.scaling = capture_scaling_default(in->ro.type);
  if (a->has_scale) in->ro.scaling.scale = a->scale;
  if (a->has_offset) in->ro.scaling.offset = a->offset;
  int64_t skip = 0, count = -1;
  if (a->skip.given &&
      (rc = capture_span_frames(&a->skip, in->rate, in->name, "--skip", &skip)) != CLI_EXIT_OK)
    return rc;
  if (a->count.given &&
      (rc = capture_span_frames(&a->count, in->rate, in->name, "--count", &count)) != CLI_EXIT_OK)
    return rc;
  if (count == 0) {
    diag_error("%s: --count selects no samples", in->name);
    return CLI_EXIT_FAIL;
  }
  in->skip = skip;
  in->count = count;
  in->warm = (a->skip.given || a->count.given) && !o->cold_start && a->matched.pulse_len == 0;
  /* A warm pipe keeps the frames before the skip point for the filter's
   * history: it is opened at its start and moved forward later. */
  const int warm_pipe =
      in->warm && is_std(o->in_path) && lseek(STDIN_FILENO, 0, SEEK_CUR) == (off_t)-1;
  in->ro.skip = warm_pipe ? 0 : skip;
  in->ro.count = warm_pipe ? -1 : count;
  char err[512] = "";
  convoy_status st =
      is_std(o->in_path)
          ? capture_reader_open_fd(&in->reader, STDIN_FILENO, in->name, &in->ro, err, sizeof err)
          : capture_reader_open(&in->reader, in->data_path, &in->ro, err, sizeof err);
  if (st != CONVOY_OK) return failed(err, st);
  in->ro = *capture_reader_get_options(in->reader);
  in->frames = warm_pipe ? count : capture_reader_frames(in->reader);
  in->piped_frames = -1;
  if (in->frames < 0 && o->engine == CONVOY_ENGINE_AUTO &&
      (rc = look_ahead(in, warm_pipe ? skip : 0)) != CLI_EXIT_OK)
    return rc;
  return check_length_known(o, in);
}

void capture_in_close(capture_in *in) {
  capture_reader_close(in->reader);
  sigmf_meta_free(in->meta);
  in->reader = NULL;
  in->meta = NULL;
}

static int out_type(const filter_options *o, const capture_in *in, capture_datatype *t) {
  if (o->capture.out_format)
    return capture_datatype_parse(o->capture.out_format, t, NULL, 0) == CONVOY_OK ? 0 : -1;
  if (!sigmf_is_path(o->out_path) && capture_datatype_from_extension(o->out_path, t) == 0) return 0;
  *t = in->ro.type;
  return 0;
}

int capture_out_plan(const filter_options *o, const capture_in *in, int shared, capture_out *out) {
  memset(out, 0, sizeof *out);
  const int to_stdout = is_std(o->out_path);
  out->name = to_stdout ? "stdout" : o->out_path;
  if (to_stdout && in->meta && !o->capture.out_format) {
    diag_error("stdout: %s is SigMF, and SigMF output is a pair of files that cannot go to "
               "stdout; give a file name, or --out-format %s for its raw samples alone",
               in->name, capture_datatype_name(in->ro.type));
    return CLI_EXIT_FAIL;
  }
  if (to_stdout && isatty(STDOUT_FILENO)) {
    diag_error("stdout is a terminal; redirect it or pipe it (e.g. ... - | next-program)");
    return CLI_EXIT_FAIL;
  }
  int32_t audio_format = 0;
  if (!to_stdout && !o->capture.out_format && !sigmf_is_path(o->out_path) &&
      !has_capture_extension(o->out_path) &&
      audio_output_format(o->out_path, 0, AUDIO_SUBTYPE_SAME, &audio_format, NULL, 0) == CONVOY_OK)
    return diag_usage("filter",
                      "%s: an audio file name for the samples of the capture %s; convoy writes "
                      "captures raw or as SigMF: name OUT by its datatype (e.g. %s.%s) or "
                      ".sigmf-meta, or give --out-format to write raw samples under this name",
                      o->out_path, in->name, "out", capture_datatype_name(in->ro.type));
  capture_datatype t;
  if (out_type(o, in, &t) != 0) return diag_usage("filter", "--out-format: bad datatype");
  int in_c = capture_datatype_components(in->ro.type), out_c = capture_datatype_components(t);
  if (in_c != out_c) {
    diag_error("%s: %s is %s but %s is %s; complex and real datatypes do not mix", out->name,
               capture_datatype_name(t), out_c == 2 ? "complex" : "real", in->name,
               capture_datatype_name(in->ro.type));
    return CLI_EXIT_FAIL;
  }
  out->sigmf = !to_stdout && (sigmf_is_path(o->out_path) || ends_with(o->out_path, ".sigmf") ||
                              (in->meta && !has_capture_extension(o->out_path)));
  if (out->sigmf && !o->overwrite) { /* the pair's names, not OUT's */
    char *meta = NULL, *data = NULL, err[512] = "";
    int rc = sigmf_paths(o->out_path, &meta, &data, err, sizeof err) == CONVOY_OK
                 ? out_check_free("filter", meta, 0)
                 : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK && data) rc = out_check_free("filter", data, 0);
    free(meta);
    free(data);
    if (rc != CLI_EXIT_OK) return rc;
  }
  if (to_stdout && in->meta)
    diag_notice("stdout: raw %s samples; %s's SigMF metadata is not written",
                capture_datatype_name(t), in->name);
  out->wo.type = t;
  out->wo.channels = in->ro.channels;
  out->wo.overwrite = o->overwrite;
  out->wo.shared = shared;
  if (memcmp(&t, &in->ro.type, sizeof t) == 0)
    out->wo.scaling = in->ro.scaling;
  else
    out->wo.scaling = capture_scaling_default(t);
  if (o->capture.has_out_scale) out->wo.scaling.scale = o->capture.out_scale;
  if (o->capture.has_out_offset) out->wo.scaling.offset = o->capture.out_offset;
  return CLI_EXIT_OK;
}

int capture_out_open(const filter_options *o, const capture_in *in, int shared, capture_out *out) {
  int rc = capture_out_plan(o, in, shared, out);
  if (rc != CLI_EXIT_OK) return rc;
  const int to_stdout = is_std(o->out_path);
  char err[512] = "";
  convoy_status st;
  if (out->sigmf) {
    st = sigmf_writer_open(&out->sigmf_writer, o->out_path, &out->wo, err, sizeof err);
    out->writer = sigmf_writer_data(out->sigmf_writer);
  } else if (to_stdout) {
    st = capture_writer_open_fd(&out->writer, STDOUT_FILENO, out->name, &out->wo, err, sizeof err);
  } else {
    st = capture_writer_open(&out->writer, o->out_path, &out->wo, err, sizeof err);
  }
  if (st != CONVOY_OK) return failed(err, st);
  return CLI_EXIT_OK;
}

int capture_out_commit(capture_out *out, sigmf_meta *meta) {
  char err[512] = "";
  convoy_status st;
  if (out->sigmf)
    st = sigmf_writer_commit(out->sigmf_writer, meta, err, sizeof err);
  else
    st = capture_writer_commit(out->writer, err, sizeof err);
  out->sigmf_writer = NULL;
  out->writer = NULL;
  if (st != CONVOY_OK) return failed(err, st);
  return CLI_EXIT_OK;
}

void capture_out_discard(capture_out *out) {
  if (out->sigmf)
    sigmf_writer_discard(out->sigmf_writer);
  else
    capture_writer_discard(out->writer);
  out->sigmf_writer = NULL;
  out->writer = NULL;
}
