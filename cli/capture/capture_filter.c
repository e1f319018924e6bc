/* capture_filter.c - `convoy filter` on a capture: open, filter, record, commit. */
#define _POSIX_C_SOURCE 200809L
#include "capture_filter.h"

#include "capture_io.h"
#include "capture_matched.h"
#include "capture_meta.h"
#include "capture_pulses.h"
#include "capture_run.h"
#include "capture_taps.h"
#include "capture_xlate.h"
#include "commands.h"
#include "diag.h"
#include "pass_warm.h"
#include "progress.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Values (floats) per read: large enough that per-call costs vanish, small
 * enough that the rings of chunks stay in the caches. */
#define CHUNK_VALUES (1 << 17)

typedef struct capture_job {
  const filter_options *o;
  capture_in in;
  capture_taps taps;
  convoy_stream *stream;
  capture_out out;
  int64_t align_skip;
  int tail;         /* keep the ring-out: --tail, or --matched --mode full */
  int64_t drop_end; /* frames dropped at the end (--matched --mode valid) */
  pass_window window;
  pass_warm reads; /* what the pass reads around a warm selection */
  capture_run_result result;
  progress prog;
} capture_job;

int capture_filter_check(const filter_options *o, int is_capture) {
  if (!is_capture) {
    const char *first = capture_args_first(&o->capture);
    if (first)
      return diag_usage("filter",
                        "%s is for captures (raw I/Q or SigMF), and %s is not one (name its "
                        "datatype with --format, e.g. cf32_le)",
                        first, o->in_path);
    return CLI_EXIT_OK;
  }
  if (o->subtype != AUDIO_SUBTYPE_SAME)
    return diag_usage("filter", "--subtype is for audio; a capture's output datatype is "
                                "--out-format (e.g. ci16_le)");
  if (o->out_type)
    return diag_usage("filter", "--type is for audio; a capture's output datatype is --out-format "
                                "or its extension");
  if (o->normalize) return diag_usage("filter", "--normalize is for audio; use --gain on captures");
  return CLI_EXIT_OK;
}

/* After capture_out_open: the stream quantizes to the output's codes when it can. */
/* Where the kept frames of a decimating run sit: from the stream's first
 * output (of_window 0: the pass window's phase, before --align's frames are
 * dropped) or from the first frame of the window (of_window 1). The stream
 * keeps the aligned signal's frames at multiples of D; a warm selection
 * counts them from the input's frame 0, a cold one from the skip point. */
static int64_t window_phase(const capture_job *j, int of_window) {
  const int64_t d = capture_xlate_factor(&j->o->capture.xlate);
  const int64_t first = j->in.warm ? j->in.skip : 0;
  const int64_t p = (of_window ? -first : j->align_skip - first) % d;
  return p < 0 ? p + d : p;
}

static int make_stream(capture_job *j, convoy_engine engine, int32_t threads) {
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = j->in.ro.channels;
  cfg.sample = j->in.ro.type.is_complex ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32;
  cfg.engine = engine;
  cfg.threads = threads;
  cfg.fft_size = j->o->fft_size;
  cfg.device = j->o->device;
  cfg.output_format = capture_run_output_format(j->out.wo.type, j->out.wo.scaling);
  cfg.first_sample = j->in.warm ? j->in.skip : 0;
  int rc = capture_xlate_config(j->o, j->in.name, j->in.ro.type.is_complex, j->in.rate,
                                j->align_skip, &cfg);
  if (rc != CLI_EXIT_OK) return rc;
  convoy_status st = convoy_stream_create(&j->stream, &cfg, j->taps.filters, j->taps.count);
  if (st != CONVOY_OK) {
    diag_error("%s: cannot set up the filter: %s", j->in.name,
               convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (j->o->verbose) {
    char plan[512];
    convoy_stream_describe(j->stream, plan, sizeof plan);
    diag_notice("plan: %s", plan);
    capture_xlate_describe(&j->o->capture.xlate, j->align_skip,
                           j->in.warm ? window_phase(j, 1) : 0);
  }
  return CLI_EXIT_OK;
}

/* The output window and, for a warm selection, the frames read around it:
 * the reader moves to the first frame of the stream's history. */
static int plan_window(capture_job *j) {
  pass_window *w = &j->window;
  memset(w, 0, sizeof *w);
  w->skip = j->align_skip;
  w->tail = j->tail;
  w->drop_end = j->drop_end;
  w->decimation = capture_xlate_factor(&j->o->capture.xlate);
  w->phase = window_phase(j, 0);
  memset(&j->reads, 0, sizeof j->reads);
  if (!j->in.warm) return CLI_EXIT_OK;
  const int64_t start = pass_warm_plan(j->stream, j->in.skip, j->in.count, w, &j->reads);
  char err[512] = "";
  convoy_status st = capture_reader_set_range(j->in.reader, start, -1, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (j->o->verbose)
    diag_notice("warm start: %lld samples of history before sample %lld",
                (long long)j->reads.history, (long long)j->in.skip);
  return CLI_EXIT_OK;
}

static int set_window(capture_job *j) {
  j->align_skip = 0;
  j->tail = j->o->tail;
  j->drop_end = 0;
  if (j->o->capture.matched.template_path)
    return capture_matched_window(j->o, j->in.name, j->in.frames, j->taps.max_taps, &j->align_skip,
                                  &j->tail, &j->drop_end);
  if (!j->o->align) return CLI_EXIT_OK;
  if (j->o->align == ALIGN_SOX) { /* sox's fir: floor((T - 1) / 2), whatever the taps */
    j->align_skip = (j->taps.max_taps - 1) / 2;
    if (j->o->verbose)
      diag_notice("--align=sox: removing %lld samples, as sox's fir does",
                  (long long)j->align_skip);
    return CLI_EXIT_OK;
  }
  j->align_skip = j->taps.delay;
  if (!j->taps.linear_phase)
    diag_notice("%s: taps are not linear phase; --align removes the delay of the largest tap "
                "(%lld samples)",
                j->o->taps_arg, (long long)j->align_skip);
  else if (j->o->verbose)
    diag_notice("--align: removing %lld samples of group delay", (long long)j->align_skip);
  return CLI_EXIT_OK;
}

static int64_t chunk_frames(const capture_job *j) {
  return pass_chunk_frames(j->stream, CHUNK_VALUES,
                           (int64_t)j->in.ro.channels * capture_datatype_components(j->in.ro.type),
                           j->in.frames);
}

static int run(capture_job *j) {
  capture_run_config rc;
  memset(&rc, 0, sizeof rc);
  rc.in_name = j->in.name;
  rc.reader = j->in.reader;
  rc.stream = j->stream;
  rc.writer = j->out.writer;
  rc.out_type = j->out.wo.type;
  rc.out_scaling = j->out.wo.scaling;
  rc.chunk_frames = chunk_frames(j);
  rc.window = j->window;
  rc.warm = j->reads;
  if (j->in.warm && capture_reader_frames(j->in.reader) < 0) { /* a pipe */
    rc.need_frames = j->reads.history + (j->in.count >= 0 ? j->in.count : j->in.skip > 0);
    rc.read_start = j->in.skip - j->reads.history;
    rc.skip = j->in.skip;
    rc.count = j->in.count;
  }
  rc.progress = &j->prog;
  progress_start(&j->prog, isatty(STDERR_FILENO) && !j->o->quiet, "filtering", j->in.frames,
                 j->in.rate, j->in.ro.channels);
  char err[512] = "";
  convoy_status st = capture_run(&rc, &j->result, err, sizeof err);
  progress_end(&j->prog);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (j->o->verbose) pass_print_times(&j->result.pass);
  return CLI_EXIT_OK;
}

static int commit(capture_job *j) {
  sigmf_meta *meta = NULL;
  if (j->out.sigmf) {
    /* A matched filter is recorded as a design: the template and its options. */
    filter_options recorded;
    char design[1024];
    capture_matched_recorded(j->o, 0, &recorded, design, sizeof design);
    capture_meta_info mi;
    memset(&mi, 0, sizeof mi);
    mi.o = &recorded;
    mi.in = &j->in;
    mi.out = &j->out;
    mi.taps = &j->taps;
    mi.engine = convoy_engine_name(convoy_stream_engine(j->stream));
    mi.delay = j->taps.delay - j->align_skip;
    mi.clipped = j->result.tally.clipped;
    if (capture_meta_make(&mi, &meta) != CLI_EXIT_OK) return CLI_EXIT_FAIL;
  }
  int rc = capture_out_commit(&j->out, meta);
  sigmf_meta_free(meta);
  return rc;
}

static void summary(const capture_job *j, capture_tally tally, double elapsed) {
  if (diag_quiet()) return;
  int64_t frames = j->result.out_frames;
  int32_t ch = j->in.ro.channels;
  double rate = j->in.rate / (double)capture_xlate_factor(&j->o->capture.xlate); /* OUT's */
  fprintf(stderr, "convoy: %s -> %s%s\n", j->in.name, j->out.name, j->out.sigmf ? " (SigMF)" : "");
  if (rate > 0)
    fprintf(stderr, "  samples  %lld (%.3f s), %d channel%s, %.9g Hz, %s\n", (long long)frames,
            (double)frames / rate, (int)ch, ch == 1 ? "" : "s", rate,
            capture_datatype_name(j->out.wo.type));
  else
    fprintf(stderr, "  samples  %lld, %d channel%s, %s\n", (long long)frames, (int)ch,
            ch == 1 ? "" : "s", capture_datatype_name(j->out.wo.type));
  fprintf(stderr, "  filter   %lld %s taps, engine %s%s\n", (long long)j->taps.max_taps,
          j->taps.complex_taps ? "complex" : "real",
          convoy_engine_name(convoy_stream_engine(j->stream)),
          j->result.direct ? "" : " (input converted on the host)");
  summary_capture_level(tally.peak, tally.clipped);
  double msps = elapsed > 0 ? (double)j->result.in_frames * ch / elapsed / 1e6 : 0.0;
  if (rate > 0 && elapsed > 0)
    fprintf(stderr, "  time     %.3f s, %.1f MS/s, %.1fx real time\n", elapsed, msps,
            (double)j->result.in_frames / j->in.rate / elapsed);
  else
    fprintf(stderr, "  time     %.3f s, %.1f MS/s\n", elapsed, msps);
  summary_capture_clip_warning(tally.peak, tally.clipped);
  fflush(stderr);
}

static int job_run(capture_job *j, convoy_engine engine, int32_t threads) {
  double t0 = progress_clock();
  int rc = capture_in_open(j->o, &j->in);
  if (rc == CLI_EXIT_OK && j->o->capture.matched.template_path)
    rc = capture_matched_taps(j->o, j->in.name, j->in.ro.type.is_complex, j->in.rate, &j->taps);
  else if (rc == CLI_EXIT_OK)
    rc = capture_taps_make(j->o, j->in.name, j->in.ro.channels, j->in.rate,
                           j->in.ro.type.is_complex, &j->taps);
  if (rc == CLI_EXIT_OK) rc = set_window(j);
  if (rc == CLI_EXIT_OK) rc = capture_out_open(j->o, &j->in, &j->out);
  if (rc == CLI_EXIT_OK) rc = make_stream(j, engine, threads);
  if (rc == CLI_EXIT_OK) rc = plan_window(j);
  if (rc != CLI_EXIT_OK) return rc;
  rc = run(j);
  if (rc != CLI_EXIT_OK) return rc;
  capture_tally tally = j->result.tally;
  rc = commit(j);
  if (rc == CLI_EXIT_OK) summary(j, tally, progress_clock() - t0);
  return rc;
}

int capture_filter(const filter_options *o, convoy_engine engine, int32_t threads) {
  if (o->capture.matched.pulse_len > 0) return capture_pulses(o, engine, threads);
  capture_job j;
  memset(&j, 0, sizeof j);
  j.o = o;
  int rc = job_run(&j, engine, threads);
  capture_out_discard(&j.out); /* nothing left after a commit */
  convoy_stream_destroy(j.stream);
  capture_taps_free(&j.taps);
  capture_in_close(&j.in);
  return rc;
}
