/* capture_xlate.c - --decimate and --shift of `convoy filter` on captures. */
#include "capture_xlate.h"

#include "commands.h"
#include "diag.h"

#include <math.h>

int capture_xlate_option(const arg_parser *p, capture_xlate_args *x, int is_shift,
                         const char *val) {
  if (is_shift) {
    if (arg_double(p, val, &x->shift_hz)) return CLI_EXIT_USAGE;
    if (!isfinite(x->shift_hz))
      return diag_usage(p->cmd, "--shift: '%s' is not a frequency in Hz", val);
    x->has_shift = 1;
    return CLI_EXIT_OK;
  }
  return arg_int64(p, val, 1, CONVOY_MAX_DECIMATION, &x->decimation) ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int capture_xlate_check(const char *cmd, const filter_options *o) {
  const capture_xlate_args *x = &o->capture.xlate;
  if ((x->decimation || x->has_shift) && o->capture.matched.pulse_len > 0)
    return diag_usage(cmd, "%s does not apply to --pulse-len (batched pulse compression)",
                      x->decimation ? "--decimate" : "--shift");
  return CLI_EXIT_OK;
}

int capture_xlate_config(const filter_options *o, const char *in_name, int is_complex, double rate,
                         int64_t dropped, convoy_stream_config *cfg) {
  const capture_xlate_args *x = &o->capture.xlate;
  cfg->decimation = (int32_t)capture_xlate_factor(x);
  cfg->decimation_phase = (int32_t)(dropped % cfg->decimation);
  cfg->shift = 0.0;
  if (!x->has_shift) return CLI_EXIT_OK;
  if (!is_complex) {
    diag_error("%s: --shift needs complex samples, and this input holds real ones", in_name);
    return CLI_EXIT_FAIL;
  }
  if (!(rate > 0))
    return diag_usage("filter",
                      "--shift needs the sample rate of %s: give --rate HZ (SigMF recordings "
                      "carry it in core:sample_rate)",
                      in_name);
  if (fabs(x->shift_hz) > rate / 2) {
    diag_error("%s: --shift %.9g Hz is beyond half its sample rate (%.9g Hz)", in_name, x->shift_hz,
               rate);
    return CLI_EXIT_FAIL;
  }
  cfg->shift = x->shift_hz / rate;
  return CLI_EXIT_OK;
}

int64_t capture_xlate_factor(const capture_xlate_args *x) {
  return x->decimation > 1 ? x->decimation : 1;
}

void capture_xlate_describe(const capture_xlate_args *x, int64_t dropped, int64_t phase) {
  const int64_t d = capture_xlate_factor(x);
  if (d == 1) return;
  if (phase != 0)
    diag_notice("--decimate %lld: output k is the selection's sample %lld k + %lld of the %s "
                "signal (the whole input's multiples of %lld)",
                (long long)d, (long long)d, (long long)phase, dropped ? "aligned" : "filtered",
                (long long)d);
  else if (dropped == 0)
    diag_notice("--decimate %lld: output k is the filter output's sample %lld k", (long long)d,
                (long long)d);
  else
    diag_notice("--decimate %lld: output k is the aligned signal's sample %lld k (the filter "
                "output's sample %lld k + %lld)",
                (long long)d, (long long)d, (long long)d, (long long)dropped);
}

convoy_status capture_xlate_meta(sigmf_meta *m, const capture_xlate_args *x, int64_t phase,
                                 char *err, size_t err_size) {
  convoy_status st = CONVOY_OK;
  const int64_t d = capture_xlate_factor(x);
  if (d > 1) st = sigmf_meta_decimate(m, d, phase, err, err_size);
  if (st == CONVOY_OK && x->has_shift && x->shift_hz != 0.0)
    st = sigmf_meta_retune(m, x->shift_hz, err, err_size);
  return st;
}
