/* capture_matched.c - the template, the matched filter and the output window
 * of `convoy filter --matched`. */
#define _POSIX_C_SOURCE 200809L
#include "capture_matched.h"

#include "capture.h"
#include "capture_taps.h"
#include "commands.h"
#include "diag.h"
#include "pulse_internal.h"
#include "sigmf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Longest pulse, samples (convoy_pulse's limit). */
#define PULSE_LEN_MAX ((int64_t)1 << 26)

int capture_matched_option(const arg_parser *p, capture_matched_args *m, capture_matched_opt which,
                           const char *val) {
  switch (which) {
  case MATCHED_OPT_TEMPLATE:
    if (m->template_path)
      return diag_usage(p->cmd, "give one template (%s is the second)", p->current);
    if (!*val) return diag_usage(p->cmd, "%s needs a file name", p->current);
    m->template_path = val;
    return CLI_EXIT_OK;
  case MATCHED_OPT_WINDOW:
    if (convoy_pulse_window_from_name(val, &m->window, &m->kaiser_beta) != CONVOY_OK)
      return diag_usage(p->cmd, "--window: %s", convoy_last_error());
    m->window_name = val;
    return CLI_EXIT_OK;
  case MATCHED_OPT_NORMALIZE:
    m->normalize = 1;
    return CLI_EXIT_OK;
  case MATCHED_OPT_MODE:
    if (!strcmp(val, "full"))
      m->mode = CONVOY_PULSE_FULL;
    else if (!strcmp(val, "same"))
      m->mode = CONVOY_PULSE_SAME;
    else if (!strcmp(val, "valid"))
      m->mode = CONVOY_PULSE_VALID;
    else
      return diag_usage(p->cmd, "--mode: '%s' is not one of full, same, valid", val);
    m->mode_given = 1;
    return CLI_EXIT_OK;
  case MATCHED_OPT_PULSES:
    return arg_int64(p, val, 1, INT32_MAX, &m->pulses) ? CLI_EXIT_USAGE : CLI_EXIT_OK;
  case MATCHED_OPT_PULSE_LEN:
    return arg_int64(p, val, 1, PULSE_LEN_MAX, &m->pulse_len) ? CLI_EXIT_USAGE : CLI_EXIT_OK;
  }
  return diag_usage(p->cmd, "internal: unhandled option %s", p->current);
}

/* The first option that needs --matched, spelled as on the command line. */
static const char *first_dependent(const capture_matched_args *m) {
  if (m->window_name) return "--window";
  if (m->normalize) return "--normalize-template";
  if (m->mode_given) return "--mode";
  if (m->pulses) return "--pulses";
  if (m->pulse_len) return "--pulse-len";
  return NULL;
}

int capture_matched_check(const char *cmd, const filter_options *o) {
  const capture_matched_args *m = &o->capture.matched;
  if (!m->template_path) {
    const char *dep = first_dependent(m);
    if (dep) return diag_usage(cmd, "%s is for matched filtering: give --matched TEMPLATE", dep);
    return CLI_EXIT_OK;
  }
  if (o->taps != TAPS_NONE)
    return diag_usage(cmd, "--matched makes the filter from its template; drop %s",
                      o->taps == TAPS_DESIGN ? "--design"
                      : o->taps == TAPS_IR   ? "--ir"
                                             : "--taps");
  if (o->tail) return diag_usage(cmd, "--tail does not apply to --matched; use --mode full");
  if (o->align) return diag_usage(cmd, "--align does not apply to --matched; use --mode same");
  if (m->pulses && !m->pulse_len)
    return diag_usage(cmd, "--pulses needs --pulse-len (samples per pulse)");
  return CLI_EXIT_OK;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* TEMPLATE names a SigMF pair: by its name, or as the base of one. */
static int is_sigmf_template(const char *path) {
  if (sigmf_is_path(path) || ends_with(path, ".sigmf")) return 1;
  capture_datatype t;
  if (capture_datatype_from_extension(path, &t) == 0) return 0;
  char meta[4096];
  struct stat sb;
  if (snprintf(meta, sizeof meta, "%s.sigmf-meta", path) >= (int)sizeof meta) return 0;
  return stat(path, &sb) != 0 && stat(meta, &sb) == 0;
}

/* Reader options of the template file: SigMF metadata or the extension. */
static convoy_status template_options(const char *path, capture_reader_options *ro,
                                      const char **data_path, sigmf_meta **meta, double *rate,
                                      char *err, size_t err_size) {
  *data_path = path;
  if (!is_sigmf_template(path)) {
    capture_datatype t;
    convoy_status st = capture_datatype_from_path(path, &t, err, err_size);
    if (st == CONVOY_OK) *ro = capture_reader_defaults(t);
    return st;
  }
  convoy_status st = sigmf_open(meta, path, err, err_size);
  if (st == CONVOY_OK) st = sigmf_reader_options(*meta, ro, err, err_size);
  if (st != CONVOY_OK) return st;
  *data_path = sigmf_meta_data_path(*meta);
  *rate = sigmf_meta_sample_rate(*meta);
  if (ro->channels != 1) {
    snprintf(err, err_size, "%s: a template has one channel, this recording has %d", path,
             (int)ro->channels);
    return CONVOY_ERR_FORMAT;
  }
  return CONVOY_OK;
}

/* Reads every sample of the template as complex floats into t. */
static convoy_status template_read(const char *path, const char *data_path,
                                   const capture_reader_options *ro, capture_template *t, char *err,
                                   size_t err_size) {
  capture_reader *r = NULL;
  convoy_status st = capture_reader_open(&r, data_path, ro, err, err_size);
  if (st != CONVOY_OK) return st;
  int64_t n = capture_reader_frames(r);
  if (n == 0) { /* an empty capture is an empty signal, but no template */
    snprintf(err, err_size, "%s: an empty template (the file holds no samples)", path);
    capture_reader_close(r);
    return CONVOY_ERR_FORMAT;
  }
  if (n > CAPTURE_TAPS_MAX) {
    snprintf(err, err_size, "%s: a template of %lld samples is longer than the %lld a filter takes",
             path, (long long)n, (long long)CAPTURE_TAPS_MAX);
    capture_reader_close(r);
    return CONVOY_ERR_FORMAT;
  }
  t->is_complex = capture_datatype_components(ro->type) == 2;
  t->length = n;
  t->iq = malloc((size_t)n * 2 * sizeof(float));
  if (!t->iq) {
    snprintf(err, err_size, "%s: out of memory for %lld samples", path, (long long)n);
    capture_reader_close(r);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  int64_t got = 0;
  st = capture_reader_read(r, t->iq, n, &got, err, err_size);
  capture_reader_close(r);
  if (st == CONVOY_OK && got != n) {
    snprintf(err, err_size, "%s: truncated while reading", path);
    st = CONVOY_ERR_IO;
  }
  if (st != CONVOY_OK) return st;
  if (!t->is_complex) /* real samples to (re, 0) pairs, from the end backwards */
    for (int64_t i = n - 1; i >= 0; i--) {
      t->iq[2 * i] = t->iq[i];
      t->iq[2 * i + 1] = 0.0f;
    }
  for (int64_t i = 0; i < 2 * n; i++)
    if (!isfinite(t->iq[i])) {
      snprintf(err, err_size, "%s: template sample %lld is not a finite number", path,
               (long long)(i / 2));
      return CONVOY_ERR_FORMAT;
    }
  return CONVOY_OK;
}

int capture_template_load(const filter_options *o, const char *in_name, int complex_input,
                          double rate, capture_template *t) {
  memset(t, 0, sizeof *t);
  const char *path = o->capture.matched.template_path;
  char err[512] = "";
  capture_reader_options ro;
  const char *data_path = path;
  sigmf_meta *meta = NULL;
  convoy_status st = CONVOY_OK;
  if (!strcmp(path, "-")) {
    snprintf(err, sizeof err, "--matched: the template cannot come from stdin; give a file");
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st == CONVOY_OK)
    st = template_options(path, &ro, &data_path, &meta, &t->rate, err, sizeof err);
  if (st == CONVOY_OK) st = template_read(path, data_path, &ro, t, err, sizeof err);
  sigmf_meta_free(meta);
  if (st == CONVOY_OK && t->is_complex && !complex_input) {
    snprintf(err, sizeof err, "%s: a complex template needs a complex input, and %s is real", path,
             in_name);
    st = CONVOY_ERR_FORMAT;
  }
  if (st == CONVOY_OK && rate > 0 && t->rate > 0 && fabs(t->rate - rate) > 1e-6 * rate) {
    snprintf(err, sizeof err, "%s: the template is sampled at %.9g Hz but %s at %.9g Hz", path,
             t->rate, in_name, rate);
    st = CONVOY_ERR_FORMAT;
  }
  if (st != CONVOY_OK) {
    capture_template_free(t);
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

void capture_template_free(capture_template *t) {
  free(t->iq);
  t->iq = NULL;
  t->length = 0;
}

/* The matched filter h of t (window and normalisation applied), complex or
 * real as t is, into a new filter. */
static int make_filter(const filter_options *o, const capture_template *t, convoy_filter **f) {
  const capture_matched_args *m = &o->capture.matched;
  float *h = malloc((size_t)t->length * 2 * sizeof(float));
  if (!h) {
    diag_error("%s: out of memory for %lld taps", m->template_path, (long long)t->length);
    return CLI_EXIT_FAIL;
  }
  char err[512] = "";
  convoy_status st = pulse_matched_filter(t->iq, t->length, m->window, m->kaiser_beta, m->normalize,
                                          h, err, sizeof err);
  if (st == CONVOY_OK && !t->is_complex)
    for (int64_t k = 0; k < t->length; k++) h[k] = h[2 * k];
  if (st == CONVOY_OK) capture_taps_apply_gain(o, h, t->length * (t->is_complex ? 2 : 1));
  if (st == CONVOY_OK)
    st = convoy_filter_create_typed(f, t->is_complex ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32, h,
                                    t->length);
  free(h);
  if (st != CONVOY_OK) {
    /* pulse_matched_filter's messages begin "pulse: "; name the file instead. */
    const char *msg = err[0] ? err : convoy_last_error();
    if (!strncmp(msg, "pulse: ", 7)) msg += 7;
    diag_error("%s: %s", m->template_path, msg[0] ? msg : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

int capture_matched_taps(const filter_options *o, const char *in_name, int complex_input,
                         double rate, capture_taps *t) {
  memset(t, 0, sizeof *t);
  capture_template tmpl;
  int rc = capture_template_load(o, in_name, complex_input, rate, &tmpl);
  if (rc != CLI_EXIT_OK) return rc;
  rc = make_filter(o, &tmpl, &t->filters[0]);
  if (rc == CLI_EXIT_OK) {
    t->count = 1;
    t->max_taps = tmpl.length;
    t->delay = tmpl.length - 1;
    t->linear_phase = 0;
    t->complex_taps = tmpl.is_complex;
  }
  capture_template_free(&tmpl);
  return rc;
}

int capture_matched_window(const filter_options *o, const char *in_name, int64_t frames,
                           int64_t taps, int64_t *skip, int *tail, int64_t *drop_end) {
  *skip = 0;
  *tail = 0;
  *drop_end = 0;
  switch (o->capture.matched.mode) {
  case CONVOY_PULSE_FULL:
    *tail = 1;
    break;
  case CONVOY_PULSE_SAME:
    *skip = (taps - 1) / 2;
    break;
  case CONVOY_PULSE_VALID:
    if (taps > frames) {
      diag_error("%s: the template %s (%lld samples) is longer than the input (%lld samples); "
                 "--mode valid has no output",
                 in_name, o->capture.matched.template_path, (long long)taps, (long long)frames);
      return CLI_EXIT_FAIL;
    }
    *skip = taps - 1;
    *drop_end = taps - 1;
    break;
  }
  return CLI_EXIT_OK;
}

const char *capture_matched_mode_name(convoy_pulse_mode mode) {
  return mode == CONVOY_PULSE_SAME ? "same" : mode == CONVOY_PULSE_VALID ? "valid" : "full";
}

void capture_matched_recorded(const filter_options *o, int64_t pulses, filter_options *recorded,
                              char *design, size_t size) {
  *recorded = *o;
  const capture_matched_args *m = &o->capture.matched;
  if (!m->template_path) return;
  int n = snprintf(design, size, "matched:template=%s,mode=%s,window=%s%s", m->template_path,
                   capture_matched_mode_name(m->mode), m->window_name ? m->window_name : "none",
                   m->normalize ? ",normalize" : "");
  if (m->pulse_len > 0 && n >= 0 && (size_t)n < size)
    snprintf(design + n, size - (size_t)n, ",pulses=%lld,pulse_len=%lld", (long long)pulses,
             (long long)m->pulse_len);
  recorded->taps = TAPS_DESIGN;
  recorded->taps_arg = design;
}
