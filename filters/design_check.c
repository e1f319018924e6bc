/* design_check.c - validation of a convoy_design before any taps are computed. */
#include "design_internal.h"
#include "taps_internal.h"

#include <math.h>
#include <string.h>

const char *convoy_design_type_name(convoy_design_type type) {
  switch (type) {
  case CONVOY_DESIGN_LOWPASS:
    return "lowpass";
  case CONVOY_DESIGN_HIGHPASS:
    return "highpass";
  case CONVOY_DESIGN_BANDPASS:
    return "bandpass";
  case CONVOY_DESIGN_BANDSTOP:
    return "bandstop";
  }
  return "unknown";
}

#define BAD(...) convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* Checks one transition band [f - w/2, f + w/2] against 0 and Nyquist. */
static convoy_status check_edge(const char *label, const char *key, double f, double w, double nyq,
                                char *err, size_t err_size) {
  if (f - w / 2 < 0)
    return BAD("%s: the transition band around %s=%.10g (width %.10g Hz) reaches below 0 Hz: "
               "narrow width= or raise %s=",
               label, key, f, w, key);
  if (f + w / 2 > nyq)
    return BAD("%s: the transition band around %s=%.10g (width %.10g Hz) reaches above Nyquist "
               "(%.10g Hz): narrow width= or lower %s=",
               label, key, f, w, nyq, key);
  return CONVOY_OK;
}

static convoy_status check_freq(const char *label, const char *key, double f, double nyq, char *err,
                                size_t err_size) {
  if (!(f > 0)) return BAD("%s: %s %.10g Hz is not above 0 Hz", label, key, f);
  if (!(f < nyq)) return BAD("%s: %s %.10g Hz is not below Nyquist (%.10g Hz)", label, key, f, nyq);
  return CONVOY_OK;
}

convoy_status design_check_spec(const convoy_design *d, const char *label, char *err,
                                size_t err_size) {
  int two_edges = d->type == CONVOY_DESIGN_BANDPASS || d->type == CONVOY_DESIGN_BANDSTOP;
  int needs_odd = d->type == CONVOY_DESIGN_HIGHPASS || d->type == CONVOY_DESIGN_BANDSTOP;
  if ((int)d->type < CONVOY_DESIGN_LOWPASS || (int)d->type > CONVOY_DESIGN_BANDSTOP)
    return BAD("%s: unknown filter type %d", label, (int)d->type);
  if (!two_edges && !(d->cutoff > 0))
    return BAD("%s: cutoff %.10g Hz is not above 0 Hz", label, d->cutoff);
  if (two_edges && !(d->low > 0)) return BAD("%s: low %.10g Hz is not above 0 Hz", label, d->low);
  if (two_edges && !(d->low < d->high))
    return BAD("%s: low %.10g Hz is not below high %.10g Hz", label, d->low, d->high);
  if (!(d->atten >= 20 && d->atten <= DESIGN_MAX_ATTEN))
    return BAD("%s: atten %.10g dB is outside 20..%g dB (float32 taps do not meet more: "
               "their rounding leaves a floor near -130 dB)",
               label, d->atten, DESIGN_MAX_ATTEN);
  if (d->taps < 0 || d->taps > DESIGN_MAX_TAPS)
    return BAD("%s: taps=%lld is outside 1..%lld", label, (long long)d->taps,
               (long long)DESIGN_MAX_TAPS);
  if (needs_odd && d->taps > 0 && d->taps % 2 == 0)
    return BAD("%s: a %s needs an odd tap count (type I linear phase); taps=%lld is even, use "
               "taps=%lld",
               label, convoy_design_type_name(d->type), (long long)d->taps, (long long)d->taps + 1);
  if (!(d->width >= 0) || !isfinite(d->width))
    return BAD("%s: width %.10g Hz is not a positive number", label, d->width);
  if (d->width == 0 && d->taps == 0)
    return BAD("%s: needs width=HZ (transition width) or taps=N", label);
  if (d->width > 0 && d->taps > 0)
    return BAD("%s: give width= or taps=, not both (taps= fixes the length, and the width then "
               "follows from atten=)",
               label);
  return CONVOY_OK;
}

convoy_status design_check(const convoy_design *d, const char *label, char *err, size_t err_size) {
  convoy_status st = design_check_spec(d, label, err, err_size);
  if (st != CONVOY_OK) return st;
  int two_edges = d->type == CONVOY_DESIGN_BANDPASS || d->type == CONVOY_DESIGN_BANDSTOP;
  if (d->rate == 0) return BAD("%s: needs a sample rate: add rate=HZ", label);
  if (!(d->rate > 0) || !isfinite(d->rate))
    return BAD("%s: sample rate %.10g Hz is not a positive number", label, d->rate);
  double nyq = d->rate / 2;

  if (!two_edges) {
    if ((st = check_freq(label, "cutoff", d->cutoff, nyq, err, err_size)) != CONVOY_OK) return st;
  } else {
    if ((st = check_freq(label, "low", d->low, nyq, err, err_size)) != CONVOY_OK) return st;
    if ((st = check_freq(label, "high", d->high, nyq, err, err_size)) != CONVOY_OK) return st;
  }
  if (d->taps > 0) return CONVOY_OK;

  double w = d->width;
  if (two_edges) {
    if ((st = check_edge(label, "low", d->low, w, nyq, err, err_size)) != CONVOY_OK) return st;
    if ((st = check_edge(label, "high", d->high, w, nyq, err, err_size)) != CONVOY_OK) return st;
    if (d->high - d->low < w)
      return BAD("%s: the band %.10g..%.10g Hz is narrower than width %.10g Hz, so its two "
                 "transition bands overlap: narrow width= or widen the band",
                 label, d->low, d->high, w);
  } else {
    if ((st = check_edge(label, "cutoff", d->cutoff, w, nyq, err, err_size)) != CONVOY_OK)
      return st;
  }
  double n = design_kaiser_length(d->atten, w, d->rate);
  if (n > DESIGN_MAX_TAPS)
    return BAD("%s: width %.10g Hz at %.10g Hz with atten %.10g dB needs about %.0f taps, more "
               "than %lld: widen the transition",
               label, w, d->rate, d->atten, n, (long long)DESIGN_MAX_TAPS);
  return CONVOY_OK;
}
