/* capture_filter.c - `convoy filter` on a capture: open, filter, record, commit. */
#define _POSIX_C_SOURCE 200809L
#include "capture_filter.h"

#include "capture_io.h"
#include "capture_matched.h"
#include "capture_meta.h"
#include "capture_pulses.h"
#include "capture_run.h"
#include "capture_split.h"
#include "capture_stream.h"
#include "capture_taps.h"
#include "capture_xlate.h"
#include "commands.h"
#include "diag.h"
#include "engine_choice.h"
#include "pass_warm.h"
#include "progress.h"
#include "scale_world.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
  convoy_engine engine_used;
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

static capture_stream_spec stream_spec(const capture_job *j, convoy_engine engine,
                                       int32_t threads) {
  capture_stream_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.o = j->o;
  spec.in = &j->in;
  spec.taps = &j->taps;
  spec.output_format = capture_run_output_format(j->out.wo.type, j->out.wo.scaling);
  spec.align_skip = j->align_skip;
  spec.engine = engine;
  spec.threads = threads;
  return spec;
}

/* Where the kept frames of a decimating run sit: from the stream's first
 * output (of_window 0: the pass window's phase, before --align's frames are
 * dropped) or from the first frame of the window (of_window 1). */
static int64_t window_phase(const capture_job *j, int of_window) {
  return capture_stream_phase(j->o, of_window ? 0 : j->align_skip, j->in.warm ? j->in.skip : 0);
}

static int make_stream(capture_job *j, convoy_engine engine, int32_t threads) {
  const capture_stream_spec spec = stream_spec(j, engine, threads);
  int rc = capture_stream_make(&spec, j->in.warm ? j->in.skip : 0, -1, &j->stream);
  if (rc != CLI_EXIT_OK) return rc;
  j->engine_used = convoy_stream_engine(j->stream);
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
  return pass_chunk_frames(j->stream, CAPTURE_CHUNK_VALUES,
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
    mi.engine = convoy_engine_name(j->engine_used);
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
          j->taps.complex_taps ? "complex" : "real", convoy_engine_name(j->engine_used),
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

/* Opens the input and makes the taps and the output window: every rank of
 * a split job does the same. */
static int job_setup(capture_job *j) {
  int rc = capture_in_open(j->o, &j->in);
  if (rc == CLI_EXIT_OK && j->o->capture.matched.template_path)
    rc = capture_matched_taps(j->o, j->in.name, j->in.ro.type.is_complex, j->in.rate, &j->taps);
  else if (rc == CLI_EXIT_OK)
    rc = capture_taps_make(j->o, j->in.name, j->in.ro.channels, j->in.rate,
                           j->in.ro.type.is_complex, &j->taps);
  if (rc == CLI_EXIT_OK) rc = set_window(j);
  return rc;
}

static int job_run(capture_job *j, convoy_engine engine, int32_t threads) {
  double t0 = progress_clock();
  int rc = job_setup(j);
  if (rc == CLI_EXIT_OK) {
    const int64_t values = j->in.ro.channels * capture_datatype_components(j->in.ro.type);
    const int64_t frames = j->in.frames >= 0 ? j->in.frames : j->in.piped_frames;
    engine = engine_for_input(engine, frames >= 0 ? frames * values : -1, j->taps.max_taps,
                              j->in.name, j->o->verbose);
  }
  if (rc == CLI_EXIT_OK) rc = capture_out_open(j->o, &j->in, 0, &j->out);
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

/* A split job reads its input at any place, and writes its output so. */
static int split_check(const capture_job *j) {
  if (capture_reader_frames(j->in.reader) < 0 || strcmp(j->o->out_path, "-") == 0)
    return diag_usage("filter", "%s needs IN and OUT to be files, not pipes",
                      j->o->devices.given ? "--devices" : "a run over several processes (mpirun)");
  return CLI_EXIT_OK;
}

/* Rank 0 makes the output's temporary (shared with the other ranks under
 * MPI); every rank learns how to open it. */
static int split_output(capture_job *j, char *path, size_t size) {
  const scale_world *w = scale_world_get();
  int rc = CLI_EXIT_OK;
  path[0] = '\0';
  if (w->rank != 0) {
    rc = capture_out_plan(j->o, &j->in, 1, &j->out);
  } else {
    rc = capture_out_open(j->o, &j->in, w->size > 1, &j->out);
    char proc[64];
    const char *p =
        rc == CLI_EXIT_OK ? capture_writer_reopen_path(j->out.writer, proc, sizeof proc) : NULL;
    if (p && strlen(p) < size) {
      strcpy(path, p);
    } else if (rc == CLI_EXIT_OK) {
      diag_error("%s: its temporary file cannot be shared", j->out.name);
      rc = CLI_EXIT_FAIL;
    }
  }
  rc = scale_world_agree(rc);
  scale_world_share(path, size);
  return rc;
}

/* Every range's results added up over the ranks, as one run's. */
static void split_totals(capture_job *j) {
  int64_t sums[3] = {j->result.in_frames, j->result.out_frames, j->result.tally.clipped};
  scale_world_sum(sums, 3);
  j->result.in_frames = sums[0];
  j->result.out_frames = sums[1];
  j->result.tally.clipped = sums[2];
  j->result.tally.peak = scale_world_max(j->result.tally.peak);
}

/* The job cut into ranges over --devices' GPUs and MPI's ranks
 * (capture_split.h). Each step ends with every rank agreeing on its status,
 * so that all stop together, and only rank 0 puts OUT in place. */
static int job_run_split(capture_job *j, convoy_engine engine, int32_t threads) {
  const scale_world *w = scale_world_get();
  double t0 = progress_clock();
  int rc = job_setup(j);
  if (rc == CLI_EXIT_OK) rc = split_check(j);
  scale_devices devices;
  memset(&devices, 0, sizeof devices);
  if (rc == CLI_EXIT_OK)
    rc = scale_devices_for_process(&j->o->devices, j->o->device, engine, &devices);
  rc = scale_world_agree(rc);
  if (rc != CLI_EXIT_OK) return rc;
  char path[4096];
  rc = split_output(j, path, sizeof path);
  if (rc != CLI_EXIT_OK) return rc;

  capture_split_config sc;
  memset(&sc, 0, sizeof sc);
  sc.stream = stream_spec(j, engine, threads);
  sc.out_type = j->out.wo.type;
  sc.out_scaling = j->out.wo.scaling;
  sc.out_name = j->o->out_path;
  sc.out_path = path;
  sc.tail = j->tail;
  sc.drop_end = j->drop_end;
  sc.devices = devices.index;
  sc.pipelines = devices.count;
  sc.rank = w->rank;
  sc.ranks = w->size;
  sc.progress = &j->prog;
  j->prog.enabled = w->rank == 0 && isatty(STDERR_FILENO) && !j->o->quiet;
  if (j->o->verbose)
    diag_notice("split: %d range%s over %d process%s of %d pipeline%s each",
                w->size * devices.count, w->size * devices.count == 1 ? "" : "s", w->size,
                w->size == 1 ? "" : "es", devices.count, devices.count == 1 ? "" : "s");
  int own = capture_split_run(&sc, &j->result, &j->engine_used);
  rc = scale_world_agree(own);
  split_totals(j);
  if (rc != CLI_EXIT_OK) {
    if (w->rank == 0 && own == CLI_EXIT_OK)
      diag_error("%s: not written: another process of the run failed", j->out.name);
    return rc;
  }
  if (j->o->verbose) pass_print_times(&j->result.pass);
  capture_tally tally = j->result.tally;
  if (w->rank == 0) {
    capture_writer_add_parts(j->out.writer, j->result.out_frames);
    rc = commit(j);
  }
  rc = scale_world_agree(rc);
  if (rc == CLI_EXIT_OK && w->rank == 0) summary(j, tally, progress_clock() - t0);
  return rc;
}

int capture_filter(const filter_options *o, convoy_engine engine, int32_t threads) {
  if (o->capture.matched.pulse_len > 0) return capture_pulses(o, engine, threads);
  capture_job j;
  memset(&j, 0, sizeof j);
  j.o = o;
  const int split = j.o->devices.given || scale_world_get()->size > 1;
  int rc = split ? job_run_split(&j, engine, threads) : job_run(&j, engine, threads);
  capture_out_discard(&j.out); /* nothing left after a commit */
  convoy_stream_destroy(j.stream);
  capture_taps_free(&j.taps);
  capture_in_close(&j.in);
  return rc;
}
