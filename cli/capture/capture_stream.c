/* capture_stream.c - the stream of a capture run (capture_stream.h). */
#include "capture_stream.h"

#include "capture_xlate.h"
#include "commands.h"
#include "diag.h"

int capture_stream_make(const capture_stream_spec *spec, int64_t first_sample, int32_t device,
                        convoy_stream **stream) {
  *stream = NULL;
  const capture_in *in = spec->in;
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = in->ro.channels;
  cfg.sample = in->ro.type.is_complex ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32;
  cfg.engine = spec->engine;
  cfg.threads = spec->threads;
  cfg.fft_size = spec->o->fft_size;
  cfg.plan_effort = spec->o->plan_effort;
  cfg.device = device >= 0 ? device : spec->o->device;
  cfg.output_format = spec->output_format;
  cfg.first_sample = first_sample;
  int rc = capture_xlate_config(spec->o, in->name, in->ro.type.is_complex, in->rate,
                                spec->align_skip, &cfg);
  if (rc != CLI_EXIT_OK) return rc;
  convoy_status st = convoy_stream_create(stream, &cfg, spec->taps->filters, spec->taps->count);
  if (st != CONVOY_OK) {
    diag_error("%s: cannot set up the filter: %s", in->name,
               convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

/* The stream keeps the aligned signal's frames at multiples of D of its
 * absolute index: counted from first_sample they sit at (dropped -
 * first_sample) mod D. */
int64_t capture_stream_phase(const filter_options *o, int64_t dropped, int64_t first_sample) {
  const int64_t d = capture_xlate_factor(&o->capture.xlate);
  const int64_t p = (dropped - first_sample) % d;
  return p < 0 ? p + d : p;
}
