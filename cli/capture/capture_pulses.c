/* capture_pulses.c - `convoy filter --matched --pulse-len`: batched pulse
 * compression of a capture through convoy_pulse. */
#define _POSIX_C_SOURCE 200809L
#include "capture_pulses.h"

#include "buffers.h"
#include "capture_io.h"
#include "capture_matched.h"
#include "capture_meta.h"
#include "capture_taps.h"
#include "commands.h"
#include "convoy_pulse.h"
#include "diag.h"
#include "progress.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pulse_job {
  const filter_options *o;
  convoy_engine engine;
  int32_t threads;
  capture_in in;
  capture_template tmpl;
  capture_out out;
  int32_t channels;
  int64_t pulses, pulse_len, out_len, batch; /* batch: pulses per run */
  convoy_pulse *full, *rest;                 /* batch pulses; the last P % batch */
  float *raw, *in_iq, *out_iq;               /* read floats; complex batch in and out */
  int pinned;                                /* in_iq and out_iq are pinned (GPU) */
  int64_t out_frames;
} pulse_job;

/* convoy_pulse takes the engine families' choices only. */
static convoy_engine family(convoy_engine e) {
  return convoy_family_choice(convoy_engine_family(e));
}

/* P, L and the batch size from the options and IN's length. */
static int geometry(pulse_job *j) {
  const capture_matched_args *m = &j->o->capture.matched;
  int64_t frames = capture_reader_frames(j->in.reader);
  j->channels = j->in.ro.channels;
  j->pulse_len = m->pulse_len;
  if (j->tmpl.length > j->pulse_len) {
    diag_error("%s: the template has %lld samples, longer than --pulse-len %lld", m->template_path,
               (long long)j->tmpl.length, (long long)j->pulse_len);
    return CLI_EXIT_FAIL;
  }
  if (m->pulses > 0) {
    j->pulses = m->pulses;
    if (frames / j->pulse_len < j->pulses) {
      diag_error("%s: %lld samples per channel, fewer than --pulses %lld x --pulse-len %lld",
                 j->in.name, (long long)frames, (long long)j->pulses, (long long)j->pulse_len);
      return CLI_EXIT_FAIL;
    }
  } else {
    if (frames % j->pulse_len != 0) {
      diag_error("%s: %lld samples per channel is not a whole number of pulses of --pulse-len "
                 "%lld (give --pulses to use the first ones)",
                 j->in.name, (long long)frames, (long long)j->pulse_len);
      return CLI_EXIT_FAIL;
    }
    j->pulses = frames / j->pulse_len;
  }
  int64_t per_pulse = j->pulse_len * j->channels;
  j->batch = PULSES_BATCH_SAMPLES / per_pulse;
  if (j->batch < 1) j->batch = 1;
  if (j->batch > j->pulses) j->batch = j->pulses;
  return CLI_EXIT_OK;
}

static int make_pulse(pulse_job *j, int64_t pulses, convoy_pulse **p) {
  const capture_matched_args *m = &j->o->capture.matched;
  convoy_pulse_config cfg;
  convoy_pulse_config_init(&cfg);
  cfg.channels = j->channels;
  cfg.pulses = (int32_t)pulses;
  cfg.pulse_len = j->pulse_len;
  cfg.waveform = j->tmpl.iq;
  cfg.template_len = j->tmpl.length;
  cfg.mode = m->mode;
  cfg.window = m->window;
  if (m->window == CONVOY_WINDOW_KAISER) cfg.kaiser_beta = m->kaiser_beta;
  cfg.normalize = m->normalize;
  cfg.layout = CONVOY_PULSE_INTERLEAVED;
  cfg.engine = family(j->engine);
  cfg.device = j->o->device;
  cfg.threads = j->threads;
  cfg.plan_effort = j->o->plan_effort;
  convoy_status st = convoy_pulse_create(p, &cfg);
  if (st != CONVOY_OK) {
    const char *msg = convoy_last_error();
    if (!strncmp(msg, "pulse: ", 7)) msg += 7;
    diag_error("%s: cannot set up pulse compression with %s: %s", j->in.name, m->template_path,
               msg[0] ? msg : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

static int setup(pulse_job *j) {
  int rc = make_pulse(j, j->batch, &j->full);
  if (rc == CLI_EXIT_OK && j->pulses % j->batch != 0)
    rc = make_pulse(j, j->pulses % j->batch, &j->rest);
  if (rc != CLI_EXIT_OK) return rc;
  j->out_len = convoy_pulse_output_len(j->full);
  if (j->o->verbose) {
    char plan[512];
    convoy_pulse_describe(j->full, plan, sizeof plan);
    diag_notice("plan: %s", plan);
  }
  size_t in_samples = (size_t)convoy_pulse_input_samples(j->full);
  size_t out_samples = (size_t)convoy_pulse_output_samples(j->full);
  j->raw = malloc(in_samples * 2 * sizeof(float));
  j->pinned = buffer_pinned_for(convoy_pulse_engine(j->full));
  j->in_iq = buffer_alloc(in_samples * 2 * sizeof(float), j->pinned);
  j->out_iq = buffer_alloc(out_samples * 2 * sizeof(float), j->pinned);
  if (!j->raw || !j->in_iq || !j->out_iq) {
    diag_error("%s: out of memory for a batch of %lld pulses", j->in.name, (long long)j->batch);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

/* Reads `pulses` pulses into in_iq as complex samples. */
static int read_batch(pulse_job *j, int64_t pulses) {
  int64_t frames = pulses * j->pulse_len, got = 0;
  size_t values = (size_t)(frames * j->channels);
  char err[512] = "";
  int cx = j->in.ro.type.is_complex;
  convoy_status st =
      capture_reader_read(j->in.reader, cx ? j->in_iq : j->raw, frames, &got, err, sizeof err);
  if (st == CONVOY_OK && got != frames) {
    snprintf(err, sizeof err, "%s: truncated while reading", j->in.name);
    st = CONVOY_ERR_IO;
  }
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (!cx)
    for (size_t i = 0; i < values; i++) {
      j->in_iq[2 * i] = j->raw[i];
      j->in_iq[2 * i + 1] = 0.0f;
    }
  return CLI_EXIT_OK;
}

/* Compresses and writes `pulses` pulses (already read) through p. */
static int compress_batch(pulse_job *j, convoy_pulse *p, int64_t pulses) {
  convoy_status st = convoy_pulse_run(p, j->in_iq, j->out_iq);
  if (st != CONVOY_OK) {
    diag_error("%s: pulse compression failed: %s", j->in.name, convoy_pulse_last_error(p));
    return CLI_EXIT_FAIL;
  }
  int64_t frames = pulses * j->out_len;
  size_t n = (size_t)(frames * j->channels);
  /* The gain applies after the template's normalisation, so it cannot be
   * folded into the template. */
  const float gain = capture_taps_gain(j->o);
  float *y = j->out_iq;
  if (!j->in.ro.type.is_complex) { /* real in, real template: the imaginary parts are 0 */
    for (size_t i = 0; i < n; i++) y[i] = y[2 * i] * gain;
  } else if (gain != 1.0f) {
    for (size_t i = 0; i < 2 * n; i++) y[i] *= gain;
  }
  char err[512] = "";
  st = capture_writer_write(j->out.writer, y, frames, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  j->out_frames += frames;
  return CLI_EXIT_OK;
}

static int run(pulse_job *j) {
  int rc = CLI_EXIT_OK;
  for (int64_t done = 0; done < j->pulses && rc == CLI_EXIT_OK;) {
    int64_t n = j->pulses - done < j->batch ? j->pulses - done : j->batch;
    rc = read_batch(j, n);
    if (rc == CLI_EXIT_OK) rc = compress_batch(j, n == j->batch ? j->full : j->rest, n);
    done += n;
  }
  return rc;
}

static int commit(pulse_job *j) {
  const capture_matched_args *m = &j->o->capture.matched;
  sigmf_meta *meta = NULL;
  if (j->out.sigmf) {
    filter_options recorded;
    char design[1024];
    capture_matched_recorded(j->o, j->pulses, &recorded, design, sizeof design);
    capture_taps taps;
    memset(&taps, 0, sizeof taps);
    taps.max_taps = j->tmpl.length;
    taps.complex_taps = j->tmpl.is_complex;
    int64_t t = j->tmpl.length;
    capture_meta_info mi;
    memset(&mi, 0, sizeof mi);
    mi.o = &recorded;
    mi.in = &j->in;
    mi.out = &j->out;
    mi.taps = &taps;
    mi.engine = convoy_engine_name(convoy_pulse_engine(j->full));
    /* Index in the full correlation of output 0, as convoy_pulse.h puts it. */
    int64_t start = m->mode == CONVOY_PULSE_FULL   ? 0
                    : m->mode == CONVOY_PULSE_SAME ? (t - 1) / 2
                                                   : t - 1;
    mi.delay = t - 1 - start;
    mi.clipped = capture_writer_tally(j->out.writer).clipped;
    if (capture_meta_make(&mi, &meta) != CLI_EXIT_OK) return CLI_EXIT_FAIL;
    char err[512] = "";
    if (j->pulses > 1 && m->mode != CONVOY_PULSE_SAME &&
        sigmf_meta_clip(meta, 0, err, sizeof err) != CONVOY_OK) {
      diag_error("%s", err);
      sigmf_meta_free(meta);
      return CLI_EXIT_FAIL;
    }
  }
  int rc = capture_out_commit(&j->out, meta);
  sigmf_meta_free(meta);
  return rc;
}

static void summary(const pulse_job *j, capture_tally tally, double elapsed) {
  if (diag_quiet()) return;
  const capture_matched_args *m = &j->o->capture.matched;
  fprintf(stderr, "convoy: %s -> %s%s\n", j->in.name, j->out.name, j->out.sigmf ? " (SigMF)" : "");
  fprintf(stderr, "  pulses   %lld x %lld samples, %d channel%s -> %lld samples each (%s), %s\n",
          (long long)j->pulses, (long long)j->pulse_len, (int)j->channels,
          j->channels == 1 ? "" : "s", (long long)j->out_len, capture_matched_mode_name(m->mode),
          capture_datatype_name(j->out.wo.type));
  fprintf(stderr, "  template %lld %s samples, window %s%s, engine %s, FFT %lld\n",
          (long long)j->tmpl.length, j->tmpl.is_complex ? "complex" : "real",
          m->window_name ? m->window_name : "none", m->normalize ? ", unit energy" : "",
          convoy_engine_name(convoy_pulse_engine(j->full)),
          (long long)convoy_pulse_fft_size(j->full));
  summary_capture_level(tally.peak, tally.clipped);
  double samples = (double)(j->pulses * j->pulse_len * j->channels);
  fprintf(stderr, "  time     %.3f s, %.1f MS/s\n", elapsed,
          elapsed > 0 ? samples / elapsed / 1e6 : 0.0);
  summary_capture_clip_warning(tally.peak, tally.clipped);
  fflush(stderr);
}

static int job_run(pulse_job *j) {
  double t0 = progress_clock();
  int rc = capture_in_open(j->o, &j->in);
  if (rc == CLI_EXIT_OK)
    rc = capture_template_load(j->o, j->in.name, j->in.ro.type.is_complex, j->in.rate, &j->tmpl);
  if (rc == CLI_EXIT_OK) rc = geometry(j);
  if (rc == CLI_EXIT_OK) rc = setup(j);
  if (rc == CLI_EXIT_OK) rc = capture_out_open(j->o, &j->in, 0, &j->out);
  if (rc == CLI_EXIT_OK) rc = run(j);
  if (rc != CLI_EXIT_OK) return rc;
  capture_tally tally = capture_writer_tally(j->out.writer);
  rc = commit(j);
  if (rc == CLI_EXIT_OK) summary(j, tally, progress_clock() - t0);
  return rc;
}

int capture_pulses(const filter_options *o, convoy_engine engine, int32_t threads) {
  pulse_job j;
  memset(&j, 0, sizeof j);
  j.o = o;
  j.engine = engine;
  j.threads = threads;
  int rc = job_run(&j);
  capture_out_discard(&j.out);
  convoy_pulse_destroy(j.full);
  convoy_pulse_destroy(j.rest);
  free(j.raw);
  buffer_free(j.in_iq, j.pinned);
  buffer_free(j.out_iq, j.pinned);
  capture_template_free(&j.tmpl);
  capture_in_close(&j.in);
  return rc;
}
