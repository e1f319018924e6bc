/* capture_taps.c - real or complex taps for filtering a capture. */
#include "capture_taps.h"

#include "capture.h"
#include "commands.h"
#include "convoy_taps.h"
#include "diag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loaded taps: planar channels of `length` values, each value 1 float
 * (real) or 2 (complex, re then im). */
typedef struct loaded {
  float *data;
  int32_t channels;
  int64_t length;
  int is_complex;
  double rate;       /* 0: unknown */
  convoy_taps owner; /* the loader's taps, when data points into them */
} loaded;

static void loaded_free(loaded *l) {
  if (l->owner.data)
    convoy_taps_free(&l->owner);
  else
    free(l->data);
  l->data = NULL;
}

/* A raw capture file of taps: one channel, every sample a tap. */
static int load_capture(const char *path, capture_datatype type, loaded *l) {
  char err[512] = "";
  capture_reader_options ro = capture_reader_defaults(type);
  capture_reader *r = NULL;
  convoy_status st = capture_reader_open(&r, path, &ro, err, sizeof err);
  if (st == CONVOY_OK && capture_reader_frames(r) == 0) {
    /* The reader takes an empty capture as an empty signal; taps need one. */
    snprintf(err, sizeof err, "%s: no taps (the file holds no samples)", path);
    st = CONVOY_ERR_FORMAT;
  }
  if (st == CONVOY_OK && capture_reader_frames(r) > CAPTURE_TAPS_MAX) {
    snprintf(err, sizeof err, "%s: %lld taps is more than the %lld a filter takes", path,
             (long long)capture_reader_frames(r), (long long)CAPTURE_TAPS_MAX);
    st = CONVOY_ERR_FORMAT;
  }
  if (st == CONVOY_OK) {
    int comps = capture_datatype_components(type);
    l->length = capture_reader_frames(r);
    l->channels = 1;
    l->is_complex = comps == 2;
    l->data = malloc((size_t)l->length * (size_t)comps * sizeof(float));
    if (!l->data) {
      snprintf(err, sizeof err, "%s: out of memory for %lld taps", path, (long long)l->length);
      st = CONVOY_ERR_OUT_OF_MEMORY;
    }
  }
  int64_t got = 0;
  if (st == CONVOY_OK) st = capture_reader_read(r, l->data, l->length, &got, err, sizeof err);
  if (st == CONVOY_OK && got != l->length) {
    snprintf(err, sizeof err, "%s: truncated while reading", path);
    st = CONVOY_ERR_IO;
  }
  capture_reader_close(r);
  if (st == CONVOY_OK) {
    int64_t n = l->length * (l->is_complex ? 2 : 1);
    for (int64_t i = 0; i < n; i++) {
      if (!isfinite(l->data[i])) {
        snprintf(err, sizeof err, "%s: tap %lld is not a finite number", path,
                 (long long)(i / (l->is_complex ? 2 : 1)));
        st = CONVOY_ERR_FORMAT;
        break;
      }
    }
  }
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

static int load(const filter_options *o, double rate, loaded *l) {
  char err[512] = "";
  convoy_status st;
  convoy_taps taps;
  memset(&taps, 0, sizeof taps);
  capture_datatype type;
  if (o->taps != TAPS_DESIGN && strcmp(o->taps_arg, "-") == 0) {
    diag_error("%s: taps cannot come from stdin; give a file",
               o->taps == TAPS_IR ? "--ir" : "--taps");
    return CLI_EXIT_FAIL;
  }
  if (o->taps == TAPS_FILE && capture_datatype_from_extension(o->taps_arg, &type) == 0)
    return load_capture(o->taps_arg, type, l);
  if (o->taps == TAPS_DESIGN) {
    convoy_design d;
    /* A rate the input does not carry is missing from the command line. */
    if (convoy_design_parse_spec(o->taps_arg, &d, err, sizeof err) == CONVOY_OK && d.rate == 0 &&
        !(rate > 0))
      return diag_usage("filter",
                        "--design %s needs the sample rate: add rate=HZ to it or give --rate HZ "
                        "(SigMF recordings carry it in core:sample_rate)",
                        o->taps_arg);
    st = convoy_design_parse(o->taps_arg, rate, &d, err, sizeof err);
    if (st == CONVOY_OK) st = convoy_design_taps(&d, &taps, err, sizeof err);
  } else {
    st = convoy_taps_load(o->taps_arg, o->taps == TAPS_IR ? CONVOY_TAPS_AUDIO : CONVOY_TAPS_AUTO,
                          &taps, err, sizeof err);
  }
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  l->owner = taps;
  l->data = taps.data;
  l->channels = taps.channels;
  l->length = taps.length;
  l->rate = taps.rate;
  l->is_complex = taps.is_complex;
  return CLI_EXIT_OK;
}

static int check(const filter_options *o, const char *in_name, int32_t channels, double rate,
                 int complex_input, const loaded *l) {
  if (l->is_complex && !complex_input) {
    diag_error("%s: complex taps need a complex input, and %s is real", o->taps_arg, in_name);
    return CLI_EXIT_FAIL;
  }
  if (rate > 0 && l->rate > 0 && fabs(l->rate - rate) > 1e-6 * rate) {
    diag_error("%s: taps are for %.9g Hz but %s is %.9g Hz (resample one of them first)",
               o->taps_arg, l->rate, in_name, rate);
    return CLI_EXIT_FAIL;
  }
  if (l->channels != 1 && l->channels != channels) {
    diag_error("%s: %d channels of taps for %s with %d channel%s", o->taps_arg, (int)l->channels,
               in_name, (int)channels, channels == 1 ? "" : "s");
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

int capture_taps_make(const filter_options *o, const char *in_name, int32_t channels, double rate,
                      int complex_input, capture_taps *t) {
  memset(t, 0, sizeof *t);
  loaded l;
  memset(&l, 0, sizeof l);
  int rc = load(o, rate, &l);
  if (rc == CLI_EXIT_OK) rc = check(o, in_name, channels, rate, complex_input, &l);
  if (rc != CLI_EXIT_OK) {
    loaded_free(&l);
    return rc;
  }
  int per = l.is_complex ? 2 : 1;
  t->max_taps = l.length;
  t->complex_taps = l.is_complex;
  t->linear_phase = 1;
  t->delay = INT64_MAX;
  capture_taps_apply_gain(o, l.data, (int64_t)l.channels * l.length * per);
  for (int32_t c = 0; c < l.channels; c++) {
    const float *h = l.data + (size_t)c * (size_t)l.length * (size_t)per;
    convoy_status st = convoy_filter_create_typed(
        &t->filters[c], l.is_complex ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32, h, l.length);
    if (st != CONVOY_OK) {
      diag_error("%s: %s", o->taps_arg,
                 convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st));
      loaded_free(&l);
      capture_taps_free(t);
      return CLI_EXIT_FAIL;
    }
    t->count = c + 1;
    int lin = 0;
    int64_t d = (int64_t)llround(convoy_filter_group_delay(t->filters[c], &lin));
    if (d < t->delay) t->delay = d;
    if (!lin) t->linear_phase = 0;
  }
  loaded_free(&l);
  return CLI_EXIT_OK;
}

float capture_taps_gain(const filter_options *o) {
  return (float)pow(10.0, o->gain_db / 20.0);
}

void capture_taps_apply_gain(const filter_options *o, float *h, int64_t n) {
  const float g = capture_taps_gain(o);
  if (g != 1.0f)
    for (int64_t i = 0; i < n; i++) h[i] *= g;
}

void capture_taps_free(capture_taps *t) {
  for (int32_t c = 0; c < t->count; c++) convoy_filter_destroy(t->filters[c]);
  t->count = 0;
}
