/*
 * jack_signal - plays a test signal into a JACK port and records what comes
 * back from another, in the same JACK cycles, for the live test
 * (tests/cli/live_jack.sh).
 *
 *   jack_signal OUT.wav --to PORT --from PORT [--seconds S] [--freewheel]
 *               [--name NAME] [--amp A] [--freq HZ] [--square]
 *   jack_signal --play --to PORT [--name NAME] [--amp A] [--freq HZ] [--square]
 *
 * Two clients, NAME-src (default name "csig") and NAME-rec: the first plays
 * bursts of a sine (A, default 0.5, at HZ, default 1000, 20 ms out of every
 * 100 ms) into PORT of --to; the second records that signal and PORT of
 * --from, and OUT.wav gets S seconds (default 2) of both as two channels of
 * 32-bit PCM at the server's rate: channel 1 the signal, channel 2 what came
 * back. Recording starts a few cycles after the connections are made.
 *
 * With --freewheel the server runs in freewheel mode while recording: no
 * timer, each cycle starts when every client has finished the previous one,
 * so no client can be late and the recording does not depend on how busy
 * the machine is. The recording client turns freewheel on and off itself
 * and stays active meanwhile (a client that closes while the server
 * freewheels leaves jackd2 waiting for it). Exit status 0 when recorded, 2
 * on any error (one line on stderr).
 *
 * --square plays, instead of the bursts, +A and -A in turn on every frame:
 * every sample has magnitude A, so that any stretch of it has peak and RMS
 * A, however the cycles fall. --play only plays, from client NAME-src into
 * --to, prints "playing" once connected and goes on until SIGINT or
 * SIGTERM.
 */
#define _POSIX_C_SOURCE 200809L

#include <jack/jack.h>
#include <math.h>
#include <signal.h>
#include <sndfile.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI 3.14159265358979323846
#define SKIP_CYCLES 8     /* cycles between connecting and recording */
#define WALL_LIMIT_S 60.0 /* most seconds to wait for the recording */

typedef struct state {
  jack_port_t *out, *ref, *in;
  double amp, freq;
  int square;
  jack_nframes_t rate;
  long long played; /* frames of signal played so far */
  atomic_int armed; /* connections made: count cycles, then record */
  int skip;
  float *rec_ref, *rec_in;
  long long want, got;
  atomic_int done;
} state;

static state st;

static int play(jack_nframes_t n, void *arg) {
  (void)arg;
  float *y = jack_port_get_buffer(st.out, n);
  const long long burst = st.rate / 50, every = st.rate / 10; /* 20 ms of 100 ms */
  for (jack_nframes_t i = 0; i < n; i++, st.played++) {
    long long k = st.played;
    if (st.square) {
      y[i] = (float)(k % 2 ? -st.amp : st.amp);
      continue;
    }
    y[i] = k % every < burst ? (float)(st.amp * sin(2 * PI * st.freq * (double)k / st.rate)) : 0;
  }
  return 0;
}

static int record(jack_nframes_t n, void *arg) {
  (void)arg;
  if (!atomic_load(&st.armed) || atomic_load(&st.done)) return 0;
  if (st.skip > 0) {
    st.skip--;
    return 0;
  }
  const float *r = jack_port_get_buffer(st.ref, n), *x = jack_port_get_buffer(st.in, n);
  long long take = st.want - st.got < (long long)n ? st.want - st.got : (long long)n;
  memcpy(st.rec_ref + st.got, r, (size_t)take * sizeof *r);
  memcpy(st.rec_in + st.got, x, (size_t)take * sizeof *x);
  st.got += take;
  if (st.got >= st.want) atomic_store(&st.done, 1);
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fail(const char *what) {
  fprintf(stderr, "jack_signal: %s\n", what);
  return 2;
}

static volatile sig_atomic_t stop;
static void on_stop(int sig) {
  (void)sig;
  stop = 1;
}

/* --play: the source alone, into to, until a signal. */
static int play_only(const char *name, const char *to) {
  char src_name[64], port[160];
  snprintf(src_name, sizeof src_name, "%s-src", name);
  jack_client_t *src = jack_client_open(src_name, JackNoStartServer | JackUseExactName, NULL);
  if (!src) return fail("cannot open the JACK client (is a server running?)");
  st.rate = jack_get_sample_rate(src);
  st.out = jack_port_register(src, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
  if (!st.out) return fail("cannot register the port");
  jack_set_process_callback(src, play, NULL);
  if (jack_activate(src)) return fail("cannot activate the client");
  snprintf(port, sizeof port, "%s:out", src_name);
  if (jack_connect(src, port, to)) return fail("cannot connect the signal to --to");
  signal(SIGINT, on_stop);
  signal(SIGTERM, on_stop);
  printf("playing\n");
  fflush(stdout);
  struct timespec tick = {0, 10 * 1000 * 1000};
  while (!stop) nanosleep(&tick, NULL);
  jack_deactivate(src);
  jack_client_close(src);
  return 0;
}

static int write_wav(const char *path) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.samplerate = (int)st.rate;
  info.channels = 2;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_32;
  SNDFILE *f = sf_open(path, SFM_WRITE, &info);
  if (!f) return -1;
  float *frames = malloc(sizeof(float) * 2 * (size_t)st.got);
  if (!frames) {
    sf_close(f);
    return -1;
  }
  for (long long i = 0; i < st.got; i++) {
    frames[2 * i] = st.rec_ref[i];
    frames[2 * i + 1] = st.rec_in[i];
  }
  sf_count_t put = sf_writef_float(f, frames, st.got);
  free(frames);
  return sf_close(f) == 0 && put == st.got ? 0 : -1;
}

int main(int argc, char **argv) {
  const char *path = NULL, *to = NULL, *from = NULL, *name = "csig";
  double seconds = 2;
  int freewheel = 0, play_mode = 0;
  st.amp = 0.5;
  st.freq = 1000;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--freewheel")) {
      freewheel = 1;
    } else if (!strcmp(a, "--square")) {
      st.square = 1;
    } else if (!strcmp(a, "--play")) {
      play_mode = 1;
    } else if (a[0] == '-' && a[1] == '-' && !v) {
      return fail("an option without its value");
    } else if (!strcmp(a, "--to")) {
      to = argv[++i];
    } else if (!strcmp(a, "--from")) {
      from = argv[++i];
    } else if (!strcmp(a, "--seconds")) {
      seconds = atof(argv[++i]);
    } else if (!strcmp(a, "--name")) {
      name = argv[++i];
    } else if (!strcmp(a, "--amp")) {
      st.amp = atof(argv[++i]);
    } else if (!strcmp(a, "--freq")) {
      st.freq = atof(argv[++i]);
    } else if (!path && a[0] != '-') {
      path = a;
    } else {
      return fail("usage: jack_signal OUT.wav --to PORT --from PORT [--seconds S] "
                  "[--freewheel] [--name NAME] [--amp A] [--freq HZ] [--square]\n"
                  "       jack_signal --play --to PORT [--name NAME] [--amp A] [--freq HZ] "
                  "[--square]");
    }
  }
  if (play_mode) return to ? play_only(name, to) : fail("need --to");
  if (!path || !to || !from || seconds <= 0) return fail("need OUT.wav, --to, --from");

  char src_name[64], rec_name[64], port[160];
  snprintf(src_name, sizeof src_name, "%s-src", name);
  snprintf(rec_name, sizeof rec_name, "%s-rec", name);
  jack_client_t *src = jack_client_open(src_name, JackNoStartServer | JackUseExactName, NULL);
  jack_client_t *rec = jack_client_open(rec_name, JackNoStartServer | JackUseExactName, NULL);
  if (!src || !rec) return fail("cannot open the JACK clients (is a server running?)");
  st.rate = jack_get_sample_rate(rec);
  st.want = (long long)llround(seconds * st.rate);
  st.skip = SKIP_CYCLES;
  st.rec_ref = calloc((size_t)st.want, sizeof(float));
  st.rec_in = calloc((size_t)st.want, sizeof(float));
  st.out = jack_port_register(src, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
  st.ref = jack_port_register(rec, "ref", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
  st.in = jack_port_register(rec, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
  if (!st.rec_ref || !st.rec_in || !st.out || !st.ref || !st.in)
    return fail("cannot register ports or allocate the recording");
  jack_set_process_callback(src, play, NULL);
  jack_set_process_callback(rec, record, NULL);
  if (jack_activate(src) || jack_activate(rec)) return fail("cannot activate the clients");

  int rc = 0;
  snprintf(port, sizeof port, "%s:out", src_name);
  if (jack_connect(src, port, to)) rc = fail("cannot connect the signal to --to");
  char ref_port[160];
  snprintf(ref_port, sizeof ref_port, "%s:ref", rec_name);
  if (!rc && jack_connect(src, port, ref_port)) rc = fail("cannot connect the signal to ref");
  snprintf(port, sizeof port, "%s:in", rec_name);
  if (!rc && jack_connect(rec, from, port)) rc = fail("cannot connect --from to the recorder");
  if (!rc && freewheel && jack_set_freewheel(rec, 1)) rc = fail("cannot start freewheeling");
  double start = now_s();
  if (!rc) atomic_store(&st.armed, 1);
  struct timespec tick = {0, 10 * 1000 * 1000};
  while (!rc && !atomic_load(&st.done) && now_s() - start < WALL_LIMIT_S) nanosleep(&tick, NULL);
  double wall = now_s() - start;
  if (freewheel) jack_set_freewheel(rec, 0);
  jack_deactivate(rec);
  jack_deactivate(src);
  jack_client_close(rec);
  jack_client_close(src);
  if (!rc && !atomic_load(&st.done)) rc = fail("the recording did not complete in time");
  if (!rc && write_wav(path) != 0) rc = fail("cannot write the recording");
  if (!rc)
    printf("jack_signal: %lld frames at %u Hz recorded in %.2f s%s\n", st.got, (unsigned)st.rate,
           wall, freewheel ? " (freewheel)" : "");
  free(st.rec_ref);
  free(st.rec_in);
  return rc;
}
