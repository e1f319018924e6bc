/* capture_meta.c - SigMF metadata of a filtered capture. */
#include "capture_meta.h"

#include "capture_xlate.h"
#include "commands.h"
#include "diag.h"

#include <stdio.h>
#include <string.h>

static int has_integers(capture_datatype t) {
  return t.kind != CAPTURE_KIND_FLOAT;
}

/* Output k is window sample k D + this: a warm selection keeps the whole
 * input's multiples of D (capture_xlate.h). */
static int64_t window_phase(const capture_meta_info *info) {
  const int64_t d = capture_xlate_factor(&info->o->capture.xlate);
  return info->in->warm ? (d - info->in->skip % d) % d : 0;
}

static void fill_record(const capture_meta_info *info, sigmf_processing *p) {
  const filter_options *o = info->o;
  const capture_in *in = info->in;
  memset(p, 0, sizeof *p);
  p->operation = "filter";
  p->taps = info->taps->max_taps;
  p->taps_complex = info->taps->complex_taps;
  if (o->taps == TAPS_DESIGN)
    p->design = o->taps_arg;
  else
    p->taps_file = o->taps_arg;
  p->engine = info->engine;
  p->delay = info->delay;
  p->input = in->name;
  p->input_datatype = capture_datatype_name(in->ro.type);
  /* Scaling means something for integer samples, or when it was asked for. */
  p->has_input_scaling = has_integers(in->ro.type) || o->capture.has_scale || o->capture.has_offset;
  p->input_scaling = in->ro.scaling;
  p->has_output_scaling =
      has_integers(info->out->wo.type) || o->capture.has_out_scale || o->capture.has_out_offset;
  p->output_scaling = info->out->wo.scaling;
  p->has_clipped = 1;
  p->clipped = info->clipped;
  const capture_xlate_args *x = &o->capture.xlate;
  p->decimation = capture_xlate_factor(x);
  p->decimation_phase = window_phase(info); /* output k is window sample k D + this */
  p->shift_hz = x->has_shift ? x->shift_hz : 0.0;
  if (o->capture.skip.given || o->capture.count.given) {
    p->start = in->warm ? "warm" : "cold";
    p->skip = in->skip;
    p->count = in->count;
  }
}

int capture_meta_make(const capture_meta_info *info, sigmf_meta **meta) {
  const capture_in *in = info->in;
  char err[512] = "";
  convoy_status st = CONVOY_OK;
  sigmf_meta *m = NULL;
  if (in->meta) {
    m = sigmf_meta_copy(in->meta);
    if (!m) {
      snprintf(err, sizeof err, "%s: out of memory for its metadata", in->name);
      st = CONVOY_ERR_OUT_OF_MEMORY;
    }
    if (st == CONVOY_OK && info->o->capture.rate > 0)
      st = sigmf_meta_set_sample_rate(m, in->rate, err, sizeof err);
  } else {
    st = sigmf_meta_create(&m, info->out->wo.type, in->ro.channels, in->rate, err, sizeof err);
  }
  if (st == CONVOY_OK && in->skip != 0) st = sigmf_meta_shift(m, -in->skip, err, sizeof err);
  if (st == CONVOY_OK && info->delay != 0) st = sigmf_meta_shift(m, info->delay, err, sizeof err);
  if (st == CONVOY_OK)
    st = capture_xlate_meta(m, &info->o->capture.xlate, window_phase(info), err, sizeof err);
  sigmf_processing p;
  fill_record(info, &p);
  if (st == CONVOY_OK) st = sigmf_meta_record(m, &p, err, sizeof err);
  if (st != CONVOY_OK) {
    sigmf_meta_free(m);
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  *meta = m;
  return CLI_EXIT_OK;
}
