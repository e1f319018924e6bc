/* cmd_live.c - `convoy live`: real-time convolution between audio devices. */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "convoy_rt.h"
#include "diag.h"
#include "live_help.h"
#include "live_audio.h"
#include "live_bars.h"
#include "live_callback.h"
#include "live_control.h"
#include "live_engine.h"
#include "live_exec.h"
#include "live_jack_run.h"
#include "live_options.h"
#include "live_reload.h"
#include "live_run.h"
#include "live_setup.h"
#include "live_status.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BLOCK 128
#define WAIT_MS 100           /* main loop tick: commands, meter draining, bars */
#define TERMINAL_STATUS_S 0.5 /* status redraw on a terminal */
#define METER_S 0.1           /* redraw with --meter */
#define VERBOSE_STATUS_S 5.0  /* a status line with -v when not a terminal */
#define SHUTDOWN_S 5.0        /* most seconds to wait for the audio server at exit */

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

/* rate, block and channels: the command line, then the config file, then
 * the devices (the rate: never the impulse response's, which must match the
 * device's or be resampled). */
static void choose_format(live_run *r, const live_setup *s) {
  const int32_t rate = live_setup_fixed_rate(s, &r->opt);
  const int32_t block = live_setup_fixed_block(s, &r->opt);
  const int32_t channels = live_setup_fixed_channels(s, &r->opt);
  r->reload.rate = rate ? rate : live_audio_default_rate(r->out_dev);
  r->reload.block = block ? block : DEFAULT_BLOCK;
  r->reload.channels =
      channels ? channels
               : live_routes_default_channels(&s->bank, &s->cfg,
                                              live_audio_max_channels(r->in_dev, r->out_dev));
}

static int make_engine(live_run *r, const live_routes *routes) {
  r->reload.max_ir = routes->max_taps;
  live_engine_format f = {r->reload.block, r->reload.channels, r->reload.rate, r->opt.engine,
                          r->reload.max_ir};
  convoy_rt *rt = live_engine_make(&f, routes);
  if (!rt) return CLI_EXIT_FAIL;
  r->engine = live_engine_new(r->reload.channels, rt);
  if (r->engine) return CLI_EXIT_OK;
  convoy_rt_destroy(rt);
  return fail("out of memory");
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
      convoy_rt_reset(atomic_load(&r->engine->rt));
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

/* The audio side still runs; CLI_EXIT_FAIL after one line when it ended. */
static int still_running(live_run *r) {
  if (r->backend == LIVE_BACKEND_JACK) return live_jack_run_follow(r);
  if (Pa_IsStreamActive(r->stream) == 1) return CLI_EXIT_OK;
  diag_error("the audio stream stopped (device gone or audio server ended)");
  return CLI_EXIT_FAIL;
}

/* What the loop redraws on stderr: the status line, with --meter on a
 * terminal the level bars above it. */
typedef struct screen {
  int terminal;
  live_bars *bars; /* NULL: no bars */
} screen;

static void screen_clear(const screen *s) {
  if (s->bars)
    live_bars_clear(s->bars);
  else
    live_status_clear(s->terminal);
}

static void screen_show(const screen *s, live_run *r) {
  live_figures f;
  live_run_figures(r, 0, &f);
  if (!s->bars) {
    live_status_show(&f, s->terminal);
    return;
  }
  char status[LIVE_STATUS_MAX];
  live_status_format(&f, status, sizeof status);
  live_bars_draw(s->bars, &r->levels.bars, r->levels.channels, status, live_run_now());
}

static int run_loop(live_run *r) {
  screen scr = {!r->opt.quiet && isatty(STDERR_FILENO), NULL};
  if (scr.terminal && r->opt.meter) scr.bars = calloc(1, sizeof *scr.bars);
  double every = scr.bars         ? METER_S
                 : scr.terminal   ? TERMINAL_STATUS_S
                 : r->opt.verbose ? VERBOSE_STATUS_S
                                  : 0;
  double start = live_run_now(), next_status = start + every;
  int rc = CLI_EXIT_OK;
  live_request *q = malloc(sizeof *q);
  if (!q || (scr.terminal && r->opt.meter && !scr.bars)) {
    free(q);
    free(scr.bars);
    return fail("out of memory");
  }
  r->started = r->mark_s = start;
  live_levels_init(&r->levels, &r->engine->meter, r->reload.channels);
  for (;;) {
    int wait = WAIT_MS;
    if (r->opt.duration > 0) {
      double left = start + r->opt.duration - live_run_now();
      if (left <= 0) break;
      if (left * 1000 < wait) wait = (int)(left * 1000) + 1;
    }
    live_command c = live_control_wait(wait, q);
    if (c != LIVE_CMD_NONE) screen_clear(&scr);
    if (c != LIVE_CMD_NONE && live_exec(r, q)) break;
    rc = still_running(r);
    if (rc != CLI_EXIT_OK) {
      screen_clear(&scr);
      break;
    }
    live_load_drain(&r->load, &r->engine->meter);
    live_levels_drain(&r->levels, &r->engine->meter);
    if (every > 0 && live_run_now() >= next_status) {
      screen_show(&scr, r);
      next_status = live_run_now() + every;
    }
  }
  free(q);
  r->seconds = live_run_now() - start;
  screen_clear(&scr);
  free(scr.bars);
  return rc;
}

/* PortAudio: devices, format, routes, convolver, stream. */
static int start_portaudio(live_run *r, live_setup *s) {
  char err[1024] = "";
  int rc = CLI_EXIT_OK;
  if (live_audio_init(r->opt.verbose, err, sizeof err) != CONVOY_OK) rc = fail(err);
  if (rc == CLI_EXIT_OK) rc = pick_devices(r);
  if (rc == CLI_EXIT_OK) {
    choose_format(r, s);
    if (live_setup_route(s, r->reload.rate, r->reload.channels, r->opt.resample_ir,
                         r->reload.gain_db, err, sizeof err) != CONVOY_OK)
      rc = fail(err);
  }
  if (rc == CLI_EXIT_OK) rc = make_engine(r, &s->routes);
  if (rc == CLI_EXIT_OK) live_reload_keep(&r->reload, s);
  if (rc == CLI_EXIT_OK) rc = start_stream(r);
  if (rc == CLI_EXIT_OK) live_load_init(&r->load, r->reload.block, r->reload.rate);
  return rc;
}

static void describe(live_run *r) {
  char in_name[300], out_name[300], plan[512];
  convoy_rt_describe(atomic_load(&r->engine->rt), plan, sizeof plan);
  if (r->backend == LIVE_BACKEND_JACK) {
    diag_notice("JACK client '%s', ports in_1..%d and out_1..%d", live_jack_name(r->jack),
                (int)r->reload.channels, (int)r->reload.channels);
  } else {
    diag_notice("in %s, out %s", live_audio_device_name(r->in_dev, in_name, sizeof in_name),
                live_audio_device_name(r->out_dev, out_name, sizeof out_name));
  }
  live_figures f;
  live_run_figures(r, 0, &f);
  diag_notice("%d channels at %d Hz, block %d, latency %.1f ms; %s", (int)r->reload.channels,
              (int)r->reload.rate, (int)r->reload.block, f.latency_ms, plan);
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
  if (live_setup_check(&s, live_setup_fixed_rate(&s, &r->opt),
                       live_setup_fixed_channels(&s, &r->opt), r->opt.resample_ir, err,
                       sizeof err) != CONVOY_OK)
    rc = fail(err);
  /* Before the audio side too: a second instance on the same socket opens
   * no client. */
  if (rc == CLI_EXIT_OK && r->opt.control) {
    if (live_ctl_server_open(&r->ctl, r->opt.control, err, sizeof err) != CONVOY_OK) rc = fail(err);
    live_control_serve(r->ctl);
  }
  if (rc == CLI_EXIT_OK) rc = live_jack_run_choose(r);
  if (rc == CLI_EXIT_OK)
    rc = r->backend == LIVE_BACKEND_JACK ? live_jack_run_start(r, &s) : start_portaudio(r, &s);
  live_setup_free(&s);
  if (rc == CLI_EXIT_OK && r->opt.verbose) describe(r);
  return rc;
}

/* Stops the audio side, waiting at most SHUTDOWN_S for the server; 1 when
 * it is closed. */
static int stop_audio(live_run *r) {
  if (r->backend != LIVE_BACKEND_JACK) return live_audio_shutdown(r->stream, SHUTDOWN_S);
  live_jack *j = r->jack;
  if (j && r->seconds >= 0) { /* the summary's latency, while the ports are there */
    live_figures f;
    live_run_figures(r, 0, &f);
  }
  r->jack = NULL; /* freed, or left to a server that does not answer */
  return live_jack_close(j, SHUTDOWN_S);
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
    const int closed = stop_audio(r);
    if (r->seconds >= 0 && !r->opt.quiet) {
      live_figures f;
      live_run_figures(r, 1, &f);
      live_status_summary(&f, r->seconds);
    }
    live_control_serve(NULL);
    live_ctl_server_close(r->ctl);
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
    live_engine_free(r->engine);
    live_reload_free(&r->reload);
    live_control_restore();
  }
  free(r);
  return rc;
}
