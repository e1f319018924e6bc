/* live_jack.c - the JACK client of `convoy live` and its callbacks. */
#define _POSIX_C_SOURCE 200809L
#include "live_jack.h"

#include <stdio.h>

#ifdef CONVOY_HAVE_JACK
#include "live_jack_ports.h"
#include "live_timed.h"

#include <jack/jack.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ENDED_SIZE 256

struct live_jack {
  jack_client_t *client;
  live_engine *engine; /* set before activation, then read-only */
  int32_t channels;
  jack_port_t **in, **out;
  const float **in_buf; /* the process callback's per-period pointers */
  float **out_buf;
  _Atomic int32_t rate, period;
  _Atomic int64_t idle;
  _Atomic int ended;
  char ended_why[ENDED_SIZE]; /* written before ended is set */
};

static int verbose_jack;

static void jack_message(const char *msg) {
  if (verbose_jack) fprintf(stderr, "convoy: jack: %s\n", msg);
}

/* ---------------------------------------------------------------- callbacks */

/* The audio thread: the convolver on this period's buffers. */
static int on_process(jack_nframes_t frames, void *arg) {
  live_jack *j = arg;
  for (int32_t c = 0; c < j->channels; c++) {
    j->in_buf[c] = jack_port_get_buffer(j->in[c], frames);
    j->out_buf[c] = jack_port_get_buffer(j->out[c], frames);
  }
  convoy_rt *rt = live_engine_take(j->engine);
  if (!rt || frames % (jack_nframes_t)convoy_rt_block_frames(rt) != 0) {
    for (int32_t c = 0; c < j->channels; c++) memset(j->out_buf[c], 0, frames * sizeof(float));
    live_meter_add(&j->idle, 1);
    return 0;
  }
  live_engine_run(j->engine, rt, j->in_buf, j->out_buf, frames);
  return 0;
}

static int on_buffer_size(jack_nframes_t frames, void *arg) {
  live_jack *j = arg;
  atomic_store(&j->period, (int32_t)frames);
  return 0;
}

static int on_sample_rate(jack_nframes_t rate, void *arg) {
  live_jack *j = arg;
  atomic_store(&j->rate, (int32_t)rate);
  return 0;
}

static int on_xrun(void *arg) {
  live_jack *j = arg;
  live_meter_add(&j->engine->meter.audio_xruns, 1);
  return 0;
}

/* Convoy adds no latency: output period k holds the convolution of input up
 * to and including period k. Each direction's range is passed through. */
#define ADDED_LATENCY 0

/* The widest range of ports' latencies in one direction; 0 when none. */
static jack_latency_range_t range_of(jack_port_t *const *ports, int32_t n,
                                     jack_latency_callback_mode_t mode) {
  jack_latency_range_t all = {UINT32_MAX, 0}, r;
  for (int32_t c = 0; c < n; c++) {
    jack_port_get_latency_range(ports[c], mode, &r);
    if (r.min < all.min) all.min = r.min;
    if (r.max > all.max) all.max = r.max;
  }
  if (all.min > all.max) all.min = all.max = 0;
  return all;
}

static void on_latency(jack_latency_callback_mode_t mode, void *arg) {
  live_jack *j = arg;
  const int capture = mode == JackCaptureLatency;
  jack_latency_range_t r = range_of(capture ? j->in : j->out, j->channels, mode);
  r.min += ADDED_LATENCY;
  r.max += ADDED_LATENCY;
  for (int32_t c = 0; c < j->channels; c++)
    jack_port_set_latency_range(capture ? j->out[c] : j->in[c], mode, &r);
}

static void on_shutdown(jack_status_t code, const char *reason, void *arg) {
  live_jack *j = arg;
  (void)code;
  size_t n = 0;
  if (!reason || !*reason) reason = "the server shut down";
  for (; n + 1 < ENDED_SIZE && reason[n]; n++) j->ended_why[n] = reason[n];
  j->ended_why[n] = '\0';
  atomic_store(&j->ended, 1);
}

/* ---------------------------------------------------------------- client */

live_jack *live_jack_open(const char *name, int verbose, char *err, size_t err_size) {
  verbose_jack = verbose;
  jack_set_error_function(jack_message);
  jack_set_info_function(jack_message);
  live_jack *j = calloc(1, sizeof *j);
  if (!j) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  jack_status_t status = 0;
  j->client = jack_client_open(name ? name : "convoy", JackNoStartServer, &status);
  if (!j->client) {
    snprintf(err, err_size, "no JACK server answers%s",
             status & JackNameNotUnique  ? " (the client name is taken)"
             : status & JackInitFailure  ? " (the client could not start)"
             : status & JackVersionError ? " (its protocol differs from libjack's)"
                                         : "");
    free(j);
    return NULL;
  }
  atomic_init(&j->rate, (int32_t)jack_get_sample_rate(j->client));
  atomic_init(&j->period, (int32_t)jack_get_buffer_size(j->client));
  atomic_init(&j->idle, 0);
  atomic_init(&j->ended, 0);
  return j;
}

const char *live_jack_name(const live_jack *j) {
  return jack_get_client_name(j->client);
}

int32_t live_jack_rate(const live_jack *j) {
  return atomic_load(&j->rate);
}

int32_t live_jack_period(const live_jack *j) {
  return atomic_load(&j->period);
}

static convoy_status register_ports(live_jack *j, char *err, size_t err_size) {
  const size_t n = (size_t)j->channels;
  j->in = calloc(n, sizeof *j->in);
  j->out = calloc(n, sizeof *j->out);
  j->in_buf = calloc(n, sizeof *j->in_buf);
  j->out_buf = calloc(n, sizeof *j->out_buf);
  if (!j->in || !j->out || !j->in_buf || !j->out_buf) {
    snprintf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  for (int32_t c = 0; c < j->channels; c++) {
    char name[32];
    snprintf(name, sizeof name, "in_%d", (int)c + 1);
    j->in[c] = jack_port_register(j->client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    snprintf(name, sizeof name, "out_%d", (int)c + 1);
    j->out[c] = jack_port_register(j->client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (!j->in[c] || !j->out[c]) {
      snprintf(err, err_size, "JACK refused port %s of client '%s'", name, live_jack_name(j));
      return CONVOY_ERR_BACKEND;
    }
  }
  return CONVOY_OK;
}

convoy_status live_jack_start(live_jack *j, live_engine *e, char *err, size_t err_size) {
  j->engine = e;
  j->channels = e->channels;
  convoy_status st = register_ports(j, err, err_size);
  if (st != CONVOY_OK) return st;
  jack_client_t *c = j->client;
  if (jack_set_process_callback(c, on_process, j) ||
      jack_set_buffer_size_callback(c, on_buffer_size, j) ||
      jack_set_sample_rate_callback(c, on_sample_rate, j) ||
      jack_set_xrun_callback(c, on_xrun, j) || jack_set_latency_callback(c, on_latency, j)) {
    snprintf(err, err_size, "JACK refused convoy's callbacks");
    return CONVOY_ERR_BACKEND;
  }
  jack_on_info_shutdown(c, on_shutdown, j);
  if (jack_activate(c)) {
    snprintf(err, err_size, "JACK could not activate client '%s'", live_jack_name(j));
    return CONVOY_ERR_BACKEND;
  }
  return CONVOY_OK;
}

convoy_status live_jack_connect(live_jack *j, const char *const *patterns, int n, int none,
                                int verbose, char *err, size_t err_size) {
  if (none) return CONVOY_OK;
  return live_jack_ports_connect(j->client, j->in, j->out, j->channels, patterns, n, verbose, err,
                                 err_size);
}

int64_t live_jack_latency(const live_jack *j) {
  if (!j->in) return 0;
  return (int64_t)range_of(j->in, j->channels, JackCaptureLatency).max +
         (int64_t)range_of(j->out, j->channels, JackPlaybackLatency).max;
}

int64_t live_jack_idle(const live_jack *j) {
  return atomic_load(&j->idle);
}

const char *live_jack_ended(const live_jack *j) {
  return atomic_load(&j->ended) ? j->ended_why : NULL;
}

static void close_client(void *arg) {
  live_jack *j = arg;
  jack_deactivate(j->client);
  jack_client_close(j->client);
}

int live_jack_close(live_jack *j, double timeout_s) {
  if (!j) return 1;
  if (!live_timed_run(close_client, j, timeout_s)) return 0;
  free(j->in);
  free(j->out);
  free(j->in_buf);
  free(j->out_buf);
  free(j);
  return 1;
}

#else /* no libjack: PortAudio only */

struct live_jack {
  int unused;
};

live_jack *live_jack_open(const char *name, int verbose, char *err, size_t err_size) {
  (void)name, (void)verbose;
  snprintf(err, err_size, "this convoy was built without JACK (no libjack development files)");
  return NULL;
}

const char *live_jack_name(const live_jack *j) {
  return (void)j, "";
}
int32_t live_jack_rate(const live_jack *j) {
  return (void)j, 0;
}
int32_t live_jack_period(const live_jack *j) {
  return (void)j, 0;
}
convoy_status live_jack_start(live_jack *j, live_engine *e, char *err, size_t err_size) {
  (void)j, (void)e, (void)err, (void)err_size;
  return CONVOY_ERR_UNSUPPORTED;
}
convoy_status live_jack_connect(live_jack *j, const char *const *patterns, int n, int none,
                                int verbose, char *err, size_t err_size) {
  (void)j, (void)patterns, (void)n, (void)none, (void)verbose, (void)err, (void)err_size;
  return CONVOY_ERR_UNSUPPORTED;
}
int64_t live_jack_latency(const live_jack *j) {
  return (void)j, 0;
}
int64_t live_jack_idle(const live_jack *j) {
  return (void)j, 0;
}
const char *live_jack_ended(const live_jack *j) {
  return (void)j, NULL;
}
int live_jack_close(live_jack *j, double timeout_s) {
  return (void)j, (void)timeout_s, 1;
}

#endif
