/* cmd_filter.c - `convoy filter IN OUT ...`: filter an audio file (captures
 * are handed to cli/capture/capture_filter.c). */
#define _POSIX_C_SOURCE 200809L
#include "audio_file.h"
#include "capture_filter.h"
#include "capture_io.h"
#include "commands.h"
#include "convoy.h"
#include "diag.h"
#include "engine_choice.h"
#include "filter_options.h"
#include "audio_split.h"
#include "filter_job.h"
#include "filter_run.h"
#include "filter_taps.h"
#include "help.h"
#include "out_check.h"
#include "pass_warm.h"
#include "progress.h"
#include "scale_world.h"
#include "summary.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *display_name(const char *path, const char *dash) {
  return strcmp(path, "-") == 0 ? dash : path;
}

/* Why no GPU engine can run here. */
static const char *no_gpu_reason(void) {
  if (!convoy_built_with_cuda()) return "convoy was built without CUDA";
  convoy_gpu_count();
  return convoy_last_error()[0] ? convoy_last_error() : "no usable GPU";
}

/* A GPU engine asked for where none can run falls back to its CPU twin. */
static convoy_engine resolve_engine(convoy_engine wanted) {
  if (convoy_engine_family(wanted) != CONVOY_FAMILY_GPU) return wanted;
  if (convoy_engine_available(wanted)) return wanted;
  convoy_engine cpu = convoy_engine_cpu_fallback(wanted);
  diag_notice("%s engine not available (%s); using %s", convoy_engine_name(wanted), no_gpu_reason(),
              convoy_engine_name(cpu));
  return cpu;
}

/* --devices runs GPU engines (any of them with the default engine), with
 * no fallback: the GPUs were asked for by name. */
static int devices_engine(filter_options *o) {
  if (!o->devices.given) return CLI_EXIT_OK;
  if (o->engine == CONVOY_ENGINE_AUTO) o->engine = CONVOY_ENGINE_GPU;
  if (convoy_engine_available(o->engine)) return CLI_EXIT_OK;
  diag_error("--devices: the %s engine cannot run here (%s)", convoy_engine_name(o->engine),
             no_gpu_reason());
  return CLI_EXIT_FAIL;
}

/* All CPU threads but one: the reader and writer threads need a core of their
 * own, or the filter's worker threads (which spin while they wait) and the
 * I/O slow each other down several times over. */
int32_t filter_job_default_threads(void) {
  int n = convoy_cpu_threads() / scale_world_get()->local_size; /* the processes on this host */
  return n > 1 ? n - 1 : 1;
}

int filter_job_make_stream(const filter_job *j, int64_t first_sample, int32_t device,
                           convoy_stream **stream) {
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = j->filters.true_stereo ? 4 : j->info.channels;
  cfg.engine = j->engine;
  cfg.threads = j->opt.threads > 0 ? j->opt.threads : filter_job_default_threads();
  cfg.fft_size = j->opt.fft_size;
  cfg.plan_effort = j->opt.plan_effort;
  cfg.device = device >= 0 ? device : j->opt.device;
  cfg.first_sample = first_sample;
  if (j->stream_codes) { /* OUT's codes, with its dither */
    audio_sink_options so;
    filter_job_sink_options(j, &so);
    (void)audio_sink_codes_format(&so, &cfg.output_format, &cfg.output_bits);
    cfg.dither = so.dither;
    cfg.dither_seed = so.seed;
  }
  convoy_status st = convoy_stream_create(stream, &cfg, j->filters.filters, j->filters.count);
  if (st != CONVOY_OK) {
    diag_error("%s: cannot set up the filter: %s", j->in_name,
               convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

static int make_stream(filter_job *j) {
  int rc = filter_job_make_stream(j, j->warm ? j->sel_skip : 0, -1, &j->stream);
  if (rc == CLI_EXIT_OK && j->stream_codes &&
      convoy_engine_family(convoy_stream_engine(j->stream)) != CONVOY_FAMILY_GPU) {
    /* auto chose a CPU engine: the sink's vectorised quantizer on the
     * encoder thread is the faster way to the same codes there */
    convoy_stream_destroy(j->stream);
    j->stream = NULL;
    j->stream_codes = 0;
    rc = filter_job_make_stream(j, j->warm ? j->sel_skip : 0, -1, &j->stream);
  }
  if (rc == CLI_EXIT_OK && j->opt.verbose) {
    char plan[512];
    convoy_stream_describe(j->stream, plan, sizeof plan);
    diag_notice("plan: %s", plan);
  }
  return rc;
}

/* WAV, AIFF and AU count their sizes in 32 bits. An output known to need
 * more is written as RF64 where WAV was asked for (as ffmpeg's -rf64 auto
 * does; libsndfile, sox and ffmpeg read it), and refused for the others
 * before anything is written. An input of unknown length (stdin) is stopped
 * by the sink when it gets there. */
static int fit_container(filter_job *j) {
  const int64_t limit = audio_container_limit(j->out_format);
  const int bytes = audio_subtype_bytes(j->out_format);
  if (limit <= 0 || bytes <= 0 || j->info.frames < 0) return CLI_EXIT_OK;
  const int64_t frames = j->info.frames + (j->opt.tail ? j->filters.max_taps - 1 : 0);
  const double need = (double)frames * j->info.channels * bytes;
  if (need <= (double)limit) return CLI_EXIT_OK;
  const double gib = need / (double)(1 << 30);
  if ((j->out_format & SF_FORMAT_TYPEMASK) == SF_FORMAT_WAV) {
    j->out_format = SF_FORMAT_RF64 | (j->out_format & SF_FORMAT_SUBMASK);
    diag_notice("%s: %.1f GiB of samples is more than WAV's 4 GiB; writing RF64 (which "
                "libsndfile, sox and ffmpeg read)",
                j->out_name, gib);
    return CLI_EXIT_OK;
  }
  diag_error("%s: %.1f GiB of samples is more than this container's 4 GiB; name it .rf64, .w64 "
             "or .caf",
             j->out_name, gib);
  return CLI_EXIT_FAIL;
}

int filter_job_output_format(filter_job *j) {
  char err[512] = "";
  char typed[256];
  const char *format_path = j->opt.out_path;
  if (j->opt.out_type) {
    snprintf(typed, sizeof typed, "stdout.%s", j->opt.out_type);
    format_path = typed;
  } else if (strcmp(j->opt.out_path, "-") == 0 && lseek(STDOUT_FILENO, 0, SEEK_CUR) < 0) {
    /* WAV's header is written last, so it cannot stream: a pipe gets AU,
     * which convoy (and sox, ffmpeg) read back from a pipe. */
    format_path = "stdout.au";
    diag_notice("stdout is a pipe: writing AU (--type chooses another container)");
  }
  convoy_status st = audio_output_format(format_path, j->info.format, j->opt.subtype,
                                         &j->out_format, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  const int32_t in_sub = j->info.format & SF_FORMAT_SUBMASK,
                out_sub = j->out_format & SF_FORMAT_SUBMASK;
  if (j->opt.subtype == AUDIO_SUBTYPE_SAME && in_sub != out_sub)
    diag_notice("%s: the output cannot hold %s's %s samples; writing %s", j->out_name, j->in_name,
                summary_subtype_name(j->info.format), summary_subtype_name(j->out_format));
  return fit_container(j);
}

void filter_job_sink_options(const filter_job *j, audio_sink_options *so) {
  memset(so, 0, sizeof *so);
  so->format = j->out_format;
  so->channels = j->info.channels;
  so->rate = j->info.rate;
  so->dither = j->opt.dither;
  so->seed = FILTER_DITHER_SEED;
}

void filter_job_choose_codes(filter_job *j) {
  j->stream_codes = 0;
  if (j->opt.gain_db != 0.0 || j->opt.normalize || j->filters.true_stereo || j->opt.align ||
      j->warm)
    return;
  const int gpu = convoy_engine_family(j->engine) == CONVOY_FAMILY_GPU ||
                  (j->engine == CONVOY_ENGINE_AUTO && convoy_engine_available(CONVOY_ENGINE_GPU));
  if (!gpu) return;
  audio_sink_options so;
  filter_job_sink_options(j, &so);
  j->stream_codes = audio_sink_codes_format(&so, NULL, NULL);
}

/* Opens OUT's sink (after filter_job_output_format). */
static int open_output(filter_job *j) {
  char err[512] = "";
  audio_sink_options so;
  filter_job_sink_options(j, &so);
  convoy_status st =
      audio_sink_open(&j->sink, j->opt.out_path, &so, j->opt.overwrite, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

typedef struct peak_meter {
  float peak;
  int32_t channels;
} peak_meter;

static convoy_status consume_meter(void *ctx, const float *x, int64_t n, char *err,
                                   size_t err_size) {
  (void)err;
  (void)err_size;
  peak_meter *m = ctx;
  int64_t samples = n * m->channels;
  float p = m->peak;
  for (int64_t i = 0; i < samples; i++) {
    float a = fabsf(x[i]);
    if (a > p) p = a;
  }
  m->peak = p;
  return CONVOY_OK;
}

/* One pass over IN: into the sink, or (sink NULL) into consume. */
static int run_pass(filter_job *j, const char *label, float gain, audio_sink *sink,
                    filter_consumer consume, void *ctx) {
  filter_run_config rc;
  memset(&rc, 0, sizeof rc);
  rc.in_name = j->in_name;
  rc.src = j->src;
  rc.stream = j->stream;
  rc.channels = j->info.channels;
  rc.true_stereo = j->filters.true_stereo;
  rc.chunk_frames =
      pass_chunk_frames(j->stream, FILTER_CHUNK_SAMPLES, j->info.channels, j->info.frames);
  rc.window = j->window;
  rc.warm = j->reads;
  rc.gain = gain;
  rc.sink = sink;
  rc.stream_codes = sink && j->stream_codes;
  rc.consume = consume;
  rc.consume_ctx = ctx;
  rc.progress = &j->prog;
  progress_start(&j->prog, isatty(STDERR_FILENO) && !j->opt.quiet, label, j->info.frames,
                 j->info.rate, j->info.channels);
  pass_result res;
  char err[512] = "";
  convoy_status st = filter_run(&rc, &res, err, sizeof err);
  progress_end(&j->prog);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (j->opt.verbose) pass_print_times(&res);
  return CLI_EXIT_OK;
}

/* First pass of --normalize: the filtered peak, nothing written. */
static int measure_gain(filter_job *j, float *gain) {
  peak_meter m = {0.0f, j->info.channels};
  int rc = run_pass(j, "measuring", 1.0f, NULL, consume_meter, &m);
  if (rc != CLI_EXIT_OK) return rc;
  char err[512] = "";
  convoy_status st = audio_source_rewind(j->src, err, sizeof err);
  if (st == CONVOY_OK && convoy_stream_reset(j->stream) != CONVOY_OK) {
    snprintf(err, sizeof err, "%s: %s", j->in_name, convoy_stream_last_error(j->stream));
    st = CONVOY_ERR_INTERNAL;
  }
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (m.peak <= 0.0f) {
    diag_warn("%s: the filtered signal is silent; --normalize leaves it as it is", j->in_name);
    *gain = 1.0f;
    j->gain_db = 0.0;
    return CLI_EXIT_OK;
  }
  j->gain_db = j->opt.normalize_dbfs - 20.0 * log10((double)m.peak);
  *gain = (float)pow(10.0, j->gain_db / 20.0);
  return CLI_EXIT_OK;
}

void filter_job_set_align(filter_job *j) {
  j->skip = 0;
  if (!j->opt.align) return;
  if (j->opt.align == ALIGN_SOX) { /* sox's fir: floor((T - 1) / 2), whatever the taps */
    j->skip = (j->filters.max_taps - 1) / 2;
    if (j->opt.verbose)
      diag_notice("--align=sox: removing %lld frames, as sox's fir does", (long long)j->skip);
    return;
  }
  j->skip = j->filters.min_delay;
  if (!j->filters.linear_phase)
    diag_notice("%s: taps are not linear phase; --align removes the delay of the largest tap "
                "(%lld frames)",
                j->opt.taps_arg, (long long)j->skip);
  else if (j->opt.verbose)
    diag_notice("--align: removing %lld frames of group delay", (long long)j->skip);
}

/* The output window and, with a warm start, the frames read around the
 * selection: IN is read from the first frame of the stream's history. */
static int plan_window(filter_job *j) {
  memset(&j->window, 0, sizeof j->window);
  j->window.skip = j->skip;
  j->window.tail = j->opt.tail;
  memset(&j->reads, 0, sizeof j->reads);
  if (!j->warm) return CLI_EXIT_OK;
  const int64_t start = pass_warm_plan(j->stream, j->sel_skip, j->sel_count, &j->window, &j->reads);
  char err[512] = "";
  convoy_status st = audio_source_set_range(j->src, start, -1, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (j->opt.verbose)
    diag_notice("warm start: %lld frames of history before frame %lld, %s",
                (long long)j->reads.history, (long long)j->sel_skip,
                j->reads.read_limit > 0 ? "reading past the selection as the window needs"
                                        : "reading to the end");
  return CLI_EXIT_OK;
}

/* --skip and --count on audio: the frames read from IN (seconds at IN's rate). */
static int select_range(filter_job *j) {
  const capture_span *skip = &j->opt.capture.skip, *count = &j->opt.capture.count;
  j->sel_skip = 0;
  j->sel_count = -1;
  j->warm = 0;
  if (!skip->given && !count->given) return CLI_EXIT_OK;
  int64_t first = 0, n = -1;
  if (skip->given &&
      capture_span_frames(skip, j->info.rate, j->in_name, "--skip", &first) != CLI_EXIT_OK)
    return CLI_EXIT_FAIL;
  if (count->given &&
      capture_span_frames(count, j->info.rate, j->in_name, "--count", &n) != CLI_EXIT_OK)
    return CLI_EXIT_FAIL;
  if (n == 0) {
    diag_error("%s: --count selects no frames", j->in_name);
    return CLI_EXIT_FAIL;
  }
  char err[512] = "";
  convoy_status st = audio_source_set_range(j->src, first, n, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  if (n >= 0)
    j->info.frames = n;
  else if (j->info.frames >= 0)
    j->info.frames -= first;
  j->sel_skip = first;
  j->sel_count = n;
  j->warm = !j->opt.cold_start;
  return CLI_EXIT_OK;
}

int filter_job_open_input(filter_job *j) {
  char err[512] = "";
  convoy_status st = audio_source_open(&j->src, j->opt.in_path, &j->info, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  int rc = select_range(j);
  if (rc == CLI_EXIT_OK)
    rc = filter_set_make(&j->opt, j->in_name, j->info.channels, j->info.rate, &j->filters);
  return rc;
}

static int filter_job_run(filter_job *j) {
  double t0 = progress_clock();
  char err[512] = "";
  int rc = filter_job_open_input(j);
  if (rc == CLI_EXIT_OK)
    j->engine =
        engine_for_input(j->engine, j->info.frames >= 0 ? j->info.frames * j->info.channels : -1,
                         j->filters.max_taps, j->in_name, j->opt.verbose);
  if (rc == CLI_EXIT_OK) rc = filter_job_output_format(j);
  if (rc == CLI_EXIT_OK) {
    filter_job_choose_codes(j);
    rc = make_stream(j);
  }
  if (rc == CLI_EXIT_OK) rc = open_output(j);
  if (rc != CLI_EXIT_OK) return rc;
  filter_job_set_align(j);
  if ((rc = plan_window(j)) != CLI_EXIT_OK) return rc;

  float gain = (float)pow(10.0, j->opt.gain_db / 20.0);
  j->gain_db = j->opt.gain_db;
  if (j->opt.normalize) rc = measure_gain(j, &gain);
  if (rc == CLI_EXIT_OK) rc = run_pass(j, "filtering", gain, j->sink, NULL, NULL);
  if (rc != CLI_EXIT_OK) return rc;

  audio_sink_stats stats;
  audio_sink_get_stats(j->sink, &stats);
  audio_sink *sink = j->sink;
  j->sink = NULL; /* commit frees it, whatever the outcome */
  convoy_status st = audio_sink_commit(sink, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }

  filter_summary s;
  memset(&s, 0, sizeof s);
  s.in_name = j->in_name;
  s.out_name = j->out_name;
  s.frames = stats.frames;
  s.channels = j->info.channels;
  s.rate = j->info.rate;
  s.format = j->out_format;
  s.taps = j->filters.max_taps;
  s.engine = convoy_engine_name(convoy_stream_engine(j->stream));
  s.peak = stats.peak;
  s.clipped = stats.clipped;
  s.gain_db = j->gain_db;
  s.normalized = j->opt.normalize;
  s.elapsed_s = progress_clock() - t0;
  summary_print(&s);
  return CLI_EXIT_OK;
}

static int filter_command(int argc, char **argv) {
  filter_job j;
  memset(&j, 0, sizeof j);
  int rc = filter_options_parse(argc, argv, &j.opt);
  if (rc != CLI_EXIT_OK) return rc;
  if (j.opt.help) {
    help_filter(stdout);
    return CLI_EXIT_OK;
  }
  if (scale_world_get()->rank == 0) diag_set_quiet(j.opt.quiet);
  int is_capture = capture_is_input(&j.opt);
  rc = capture_filter_check(&j.opt, is_capture);
  if (rc == CLI_EXIT_OK) rc = out_check_free("filter", j.opt.out_path, j.opt.overwrite);
  if (rc == CLI_EXIT_OK) rc = devices_engine(&j.opt);
  if (rc != CLI_EXIT_OK) return rc;
  audio_install_signal_cleanup();
  if (is_capture)
    return capture_filter(&j.opt, resolve_engine(j.opt.engine),
                          j.opt.threads > 0 ? j.opt.threads : filter_job_default_threads());
  j.in_name = display_name(j.opt.in_path, "stdin");
  j.out_name = display_name(j.opt.out_path, "stdout");
  j.engine = resolve_engine(j.opt.engine);

  rc =
      j.opt.devices.given || scale_world_get()->size > 1 ? audio_split_run(&j) : filter_job_run(&j);

  audio_sink_abort(j.sink); /* NULL after a commit */
  convoy_stream_destroy(j.stream);
  filter_set_free(&j.filters);
  if (j.src) audio_source_close(j.src);
  return rc;
}

int cmd_filter(int argc, char **argv) {
  if (scale_world_start(&argc, &argv) != 0) return CLI_EXIT_FAIL;
  int rc = filter_command(argc, argv);
  scale_world_end();
  return rc;
}
