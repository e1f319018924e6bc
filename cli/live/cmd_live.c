/* cmd_live.c - `convoy live`: real-time convolution between audio devices. */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "convoy_rt.h"
#include "diag.h"
#include "live_help.h"
#include "live_audio.h"
#include "live_callback.h"
#include "live_control.h"
#include "live_options.h"
#include "live_reload.h"
#include "live_setup.h"
#include "live_status.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BLOCK 128
#define WAIT_MS 100           /* main loop tick: commands, meter draining */
#define TERMINAL_STATUS_S 0.5 /* status redraw on a terminal */
#define VERBOSE_STATUS_S 5.0  /* a status line with -v when not a terminal */
#define SHUTDOWN_S 5.0        /* most seconds to wait for the audio server at exit */

typedef struct live_run {
  live_options opt;
  live_reload reload; /* what a reload loads, and the running format */
  int in_dev, out_dev;
  double latency_ms;
  live_engine *engine; /* heap: PortAudio's thread reads it */
  PaStream *stream;
  live_load load;
  double seconds; /* how long the stream ran; < 0 until run_loop ends */
} live_run;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fail(const char *err) {
  diag_error("%s", err);
  return CLI_EXIT_FAIL;
}

static int list_devices(const live_options *o) {
  char err[512];
  if (live_audio_init(o->verbose, err, sizeof err) != CONVOY_OK) return fail(err);
  live_audio_list(stdout);
  live_audio_terminate();
  return CLI_EXIT_OK;
}

static int pick_devices(live_run *r) {
  char err[512];
  if (live_audio_pick(r->opt.in_dev, r->opt.out_dev, &r->in_dev, &r->out_dev, err, sizeof err) ==
      CONVOY_OK)
    return CLI_EXIT_OK;
  diag_error("%s; the devices are:", err);
  live_audio_list(stderr);
  return CLI_EXIT_FAIL;
}

/* The rate and channels that the command line or the config file fix (a
 * config's routes fix the channels too); 0 where the devices decide. */
static int32_t fixed_rate(const live_run *r, const live_setup *s) {
  return r->opt.rate ? r->opt.rate : s->cfg.rate;
}

static int32_t fixed_channels(const live_run *r, const live_setup *s) {
  return r->opt.channels                   ? r->opt.channels
         : s->cfg.channels                 ? s->cfg.channels
         : s->source == LIVE_SOURCE_CONFIG ? s->cfg.max_channel
                                           : 0;
}

/* rate, block and channels: the command line, then the config file, then
 * the devices (the rate: never the impulse response's, which must match the
 * device's or be resampled). */
static void choose_format(live_run *r, const live_setup *s) {
  const int32_t rate = fixed_rate(r, s), channels = fixed_channels(r, s);
  r->reload.rate = rate ? rate : live_audio_default_rate(r->out_dev);
  r->reload.block = r->opt.block ? r->opt.block : s->cfg.block ? s->cfg.block : DEFAULT_BLOCK;
  r->reload.channels =
      channels ? channels
               : live_routes_default_channels(&s->bank, &s->cfg,
                                              live_audio_max_channels(r->in_dev, r->out_dev));
}

static int make_engine(live_run *r, const live_routes *routes) {
  convoy_rt_config cfg;
  convoy_rt_config_init(&cfg);
  cfg.block_frames = r->reload.block;
  cfg.n_inputs = cfg.n_outputs = r->reload.channels;
  cfg.max_ir_frames = routes->max_taps;
  cfg.engine = r->opt.engine;
  cfg.mode = CONVOY_RT_REALTIME;
  r->reload.max_ir = routes->max_taps;
  r->engine = calloc(1, sizeof *r->engine);
  if (!r->engine) return fail("out of memory");
  r->engine->channels = r->reload.channels;
  r->engine->block = r->reload.block;
  live_meter_init(&r->engine->meter);
  convoy_status st = convoy_rt_create(&r->engine->rt, &cfg, routes->routes, routes->count);
  if (st == CONVOY_OK) return CLI_EXIT_OK;
  const char *why = convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st);
  if (st == CONVOY_ERR_NO_DEVICE ||
      (st == CONVOY_ERR_UNSUPPORTED && convoy_engine_family(r->opt.engine) == CONVOY_FAMILY_GPU))
    diag_error("--engine %s: no GPU to run on (%s)", convoy_engine_name(r->opt.engine), why);
  else
    diag_error("cannot set up the convolver (%d channels, block %d, %lld-frame responses): %s",
               (int)r->reload.channels, (int)r->reload.block, (long long)routes->max_taps, why);
  return CLI_EXIT_FAIL;
}

/* Runs silence through the convolver before the stream starts, so that the
 * first audio blocks do not pay for first touches of its memory and plans:
 * blocks enough to reach its longest partition, at most 2 s of them. The
 * history and counters are then reset. */
static int warm_up(live_run *r) {
  int32_t block = r->reload.block, channels = r->reload.channels;
  int64_t blocks = r->reload.max_ir / block + 2, cap = 2 * (int64_t)r->reload.rate / block + 2;
  if (blocks > cap) blocks = cap;
  float *zeros = calloc((size_t)block * 2 * (size_t)channels, sizeof *zeros);
  const float **in = calloc((size_t)channels, sizeof *in);
  float **out = calloc((size_t)channels, sizeof *out);
  convoy_status st = zeros && in && out ? CONVOY_OK : CONVOY_ERR_OUT_OF_MEMORY;
  for (int32_t c = 0; st == CONVOY_OK && c < channels; c++) {
    in[c] = zeros + (size_t)c * (size_t)block;
    out[c] = zeros + ((size_t)channels + (size_t)c) * (size_t)block;
  }
  for (int64_t b = 0; st == CONVOY_OK && b < blocks; b++)
    st = convoy_rt_process(r->engine->rt, in, out, block);
  if (st == CONVOY_OK) st = convoy_rt_reset(r->engine->rt);
  free(zeros);
  free(in);
  free(out);
  if (st == CONVOY_OK) return CLI_EXIT_OK;
  diag_error("the convolver failed on silence: %s", convoy_rt_last_error(r->engine->rt)[0]
                                                        ? convoy_rt_last_error(r->engine->rt)
                                                        : convoy_strerror(st));
  return CLI_EXIT_FAIL;
}

static int open_stream(live_run *r, int host_block) {
  char err[1024];
  live_audio_params p = {r->in_dev,       r->out_dev, r->reload.channels, r->reload.rate,
                         r->reload.block, host_block, live_callback,      r->engine};
  double latency_s = 0;
  if (live_audio_open(&p, &r->stream, &latency_s, err, sizeof err) != CONVOY_OK) return fail(err);
  r->latency_ms = 1000.0 * (latency_s + (double)r->reload.block / r->reload.rate);
  return CLI_EXIT_OK;
}

/* On JACK the callback first gets the server's own buffers: no adaptation
 * latency when their size is a multiple of the block. When the first
 * callback shows it is not, the stream is opened again with PortAudio
 * adapting the buffers (one more block of latency). */
static int start_stream(live_run *r) {
  int host_block = live_audio_is_jack(r->out_dev);
  int rc = open_stream(r, host_block);
  PaError e = rc == CLI_EXIT_OK ? Pa_StartStream(r->stream) : paNoError;
  if (rc == CLI_EXIT_OK && e == paNoError && host_block) {
    live_meter *m = &r->engine->meter;
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 200 && atomic_load(&m->head) == 0; i++) nanosleep(&tick, NULL);
    if (atomic_load(&m->bad_blocks) > 0) {
      Pa_StopStream(r->stream);
      Pa_CloseStream(r->stream);
      r->stream = NULL;
      convoy_rt_reset(r->engine->rt);
      live_meter_init(m);
      rc = open_stream(r, 0);
      e = rc == CLI_EXIT_OK ? Pa_StartStream(r->stream) : paNoError;
    }
  }
  if (rc == CLI_EXIT_OK && e != paNoError) {
    diag_error("cannot start the audio stream: %s", Pa_GetErrorText(e));
    rc = CLI_EXIT_FAIL;
  }
  return rc;
}

static void figures(live_run *r, int whole, live_figures *f) {
  memset(f, 0, sizeof *f);
  live_load_drain(&r->load, &r->engine->meter);
  f->block = r->reload.block;
  f->rate = r->reload.rate;
  f->latency_ms = r->latency_ms;
  live_load_figures(&r->load, whole, &f->p50, &f->p99, &f->max);
  convoy_rt_stats st;
  memset(&st, 0, sizeof st);
  convoy_rt_get_stats(r->engine->rt, &st);
  f->blocks = st.blocks;
  f->misses = st.deadline_misses;
  /* Each change loaded is heard (a switch), merged into a later one that
   * came before the convolver switched to it, or still on its way. */
  f->ir_changes = r->reload.loaded;
  f->ir_merged = st.route_sets_merged;
  f->ir_pending = f->ir_changes - st.route_switches - st.route_sets_merged;
  if (f->ir_pending < 0) f->ir_pending = 0;
  f->audio_xruns = atomic_load(&r->engine->meter.audio_xruns);
  f->bad_blocks = atomic_load(&r->engine->meter.bad_blocks);
  f->clipped = atomic_load(&r->engine->meter.clipped);
}

static int run_loop(live_run *r) {
  int terminal = !r->opt.quiet && isatty(STDERR_FILENO);
  double every = terminal ? TERMINAL_STATUS_S : r->opt.verbose ? VERBOSE_STATUS_S : 0;
  double start = now_s(), next_status = start + every;
  int rc = CLI_EXIT_OK;
  char arg[4096];
  for (;;) {
    int wait = WAIT_MS;
    if (r->opt.duration > 0) {
      double left = start + r->opt.duration - now_s();
      if (left <= 0) break;
      if (left * 1000 < wait) wait = (int)(left * 1000) + 1;
    }
    live_command c = live_control_wait(wait, arg, sizeof arg);
    if (c == LIVE_CMD_STOP) break;
    if (c != LIVE_CMD_NONE) live_status_clear(terminal);
    if (c == LIVE_CMD_RELOAD) live_reload_run(&r->reload, r->engine->rt, NULL);
    if (c == LIVE_CMD_IR) live_reload_run(&r->reload, r->engine->rt, arg);
    if (c == LIVE_CMD_UNKNOWN)
      diag_warn("unknown command '%s' (commands: reload, ir FILE, quit)", arg);
    if (Pa_IsStreamActive(r->stream) != 1) {
      live_status_clear(terminal);
      diag_error("the audio stream stopped (device gone or audio server ended)");
      rc = CLI_EXIT_FAIL;
      break;
    }
    live_load_drain(&r->load, &r->engine->meter);
    if (every > 0 && now_s() >= next_status) {
      live_figures f;
      figures(r, 0, &f);
      live_status_show(&f, terminal);
      next_status = now_s() + every;
    }
  }
  r->seconds = now_s() - start;
  live_status_clear(terminal);
  return rc;
}

/* Everything up to a running stream; the caller cleans up. */
static int start(live_run *r) {
  char err[1024] = "";
  live_setup s;
  if (live_setup_load(&s, r->opt.source, r->opt.source_arg, err, sizeof err) != CONVOY_OK)
    return fail(err);
  int rc = CLI_EXIT_OK;
  /* Before any device: a bad routing file or response is reported as such,
   * not as a missing device. */
  if (live_setup_check(&s, fixed_rate(r, &s), fixed_channels(r, &s), r->opt.resample_ir, err,
                       sizeof err) != CONVOY_OK)
    rc = fail(err);
  if (rc == CLI_EXIT_OK && live_audio_init(r->opt.verbose, err, sizeof err) != CONVOY_OK)
    rc = fail(err);
  if (rc == CLI_EXIT_OK) rc = pick_devices(r);
  if (rc == CLI_EXIT_OK) {
    choose_format(r, &s);
    if (live_setup_route(&s, r->reload.rate, r->reload.channels, r->opt.resample_ir, r->opt.gain_db,
                         err, sizeof err) != CONVOY_OK)
      rc = fail(err);
  }
  if (rc == CLI_EXIT_OK) rc = make_engine(r, &s.routes);
  live_setup_free(&s);
  if (rc == CLI_EXIT_OK) rc = warm_up(r);
  if (rc == CLI_EXIT_OK) rc = start_stream(r);
  if (rc != CLI_EXIT_OK) return rc;
  live_load_init(&r->load, r->reload.block, r->reload.rate);
  if (r->opt.verbose) {
    char in_name[300], out_name[300], plan[512];
    convoy_rt_describe(r->engine->rt, plan, sizeof plan);
    diag_notice("in %s, out %s", live_audio_device_name(r->in_dev, in_name, sizeof in_name),
                live_audio_device_name(r->out_dev, out_name, sizeof out_name));
    diag_notice("%d channels at %d Hz, block %d, latency %.1f ms; %s", (int)r->reload.channels,
                (int)r->reload.rate, (int)r->reload.block, r->latency_ms, plan);
  }
  return CLI_EXIT_OK;
}

int cmd_live(int argc, char **argv) {
  live_run *r = calloc(1, sizeof *r);
  if (!r) return fail("out of memory");
  int rc = live_options_parse(argc, argv, &r->opt);
  if (rc == CLI_EXIT_OK && r->opt.help) {
    help_live(stdout);
  } else if (rc == CLI_EXIT_OK && r->opt.list_devices) {
    rc = list_devices(&r->opt);
  } else if (rc == CLI_EXIT_OK) {
    diag_set_quiet(r->opt.quiet);
    live_reload_init(&r->reload, &r->opt);
    /* Early: a stop or reload request while loading is acted on once running. */
    live_control_install();
    r->seconds = -1.0;
    rc = start(r);
    if (rc == CLI_EXIT_OK) rc = run_loop(r);
    /* Stopping waits for the server's next callback: a server that stopped
     * answering would hold the process for good. */
    const int closed = live_audio_shutdown(r->stream, SHUTDOWN_S);
    if (r->seconds >= 0 && !r->opt.quiet) {
      live_figures f;
      figures(r, 1, &f);
      live_status_summary(&f, r->seconds);
    }
    if (!closed) {
      /* The callback may still run once the server wakes: nothing it uses
       * may be freed, so the process ends here. */
      diag_error("the audio server did not answer within %.0f s; exiting without closing the "
                 "connection",
                 SHUTDOWN_S);
      fflush(stdout);
      fflush(stderr);
      _exit(CLI_EXIT_FAIL);
    }
    if (r->engine) convoy_rt_destroy(r->engine->rt);
    free(r->engine);
    live_control_restore();
  }
  free(r);
  return rc;
}
