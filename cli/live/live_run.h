/*
 * live_run.h - the state of one `convoy live` run, shared by the command
 * (cmd_live.c), its JACK backend (live_jack_run.c) and the commands it
 * carries out (live_exec.c). Main thread only; the audio thread sees only
 * engine.
 */
#ifndef CONVOY_CLI_LIVE_RUN_H
#define CONVOY_CLI_LIVE_RUN_H

#include "live_callback.h"
#include "live_ctl_server.h"
#include "live_jack.h"
#include "live_levels.h"
#include "live_meter.h"
#include "live_options.h"
#include "live_reload.h"
#include "live_status.h"

#include <portaudio.h>

typedef struct live_run {
  live_options opt;
  live_reload reload;        /* the routes playing and how to change them; the running format */
  live_backend_kind backend; /* the one running: JACK or PORTAUDIO */
  int in_dev, out_dev;       /* PortAudio's devices */
  double latency_ms;         /* PortAudio's latency plus the block, fixed at open; JACK's,
                                as live_run_figures last found it */
  live_engine *engine;       /* heap: the audio thread reads it */
  PaStream *stream;          /* PortAudio */
  live_jack *jack;           /* JACK */
  live_ctl_server *ctl;      /* --control */
  live_load load;
  live_levels levels; /* each channel's peak and RMS, for --meter and "stats" */
  live_figures mark;  /* the counters at the last "stats" */
  double started;     /* when the stream started (now_s) */
  double mark_s;      /* when the last "stats" was answered (now_s) */
  double seconds;     /* how long the stream ran; < 0 until the main loop ends */
} live_run;

/* Seconds on the monotonic clock. */
double live_run_now(void);

/* Drains the meter and fills f: the load over the whole run (whole = 1) or
 * the last 2 s (whole = 0); under JACK the latency is read again. */
void live_run_figures(live_run *r, int whole, live_figures *f);

#endif /* CONVOY_CLI_LIVE_RUN_H */
