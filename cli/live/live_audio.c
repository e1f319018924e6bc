/* live_audio.c - PortAudio devices and the duplex stream of `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_audio.h"

#include "live_timed.h"

#include "argparse.h"
#include "diag.h"

#include <ctype.h>
#include <fcntl.h>
#include <pa_jack.h>
#include <string.h>
#include <unistd.h>
#ifdef CONVOY_HAVE_ALSA
#include <alsa/asoundlib.h>
#endif

/* Redirects stderr to /dev/null while the libraries probe (hush), back after
 * (unhush). Returns the saved descriptor or -1. */
static int hush(int verbose) {
  if (verbose) return -1;
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  int null = open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0) {
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    return -1;
  }
  dup2(null, STDERR_FILENO);
  close(null);
  return saved;
}

static void unhush(int saved) {
  if (saved < 0) return;
  dup2(saved, STDERR_FILENO);
  close(saved);
}

static int quiet_probe = 1;

#ifdef CONVOY_HAVE_ALSA
/* ALSA reports every device it cannot open while PortAudio probes (tens of
 * "ALSA lib ... cannot find card" lines on a machine without a sound card);
 * during the probe they are counted instead of printed. */
static int alsa_probe_messages;

static void count_alsa_message(const char *file, int line, const char *function, int err,
                               const char *fmt, ...) {
  (void)file, (void)line, (void)function, (void)err, (void)fmt;
  alsa_probe_messages++;
}
#endif

convoy_status live_audio_init(int verbose, char *err, size_t err_size) {
  quiet_probe = !verbose;
  PaJack_SetClientName("convoy");
  int saved = hush(verbose);
#ifdef CONVOY_HAVE_ALSA
  snd_lib_error_set_handler(count_alsa_message);
#endif
  PaError e = Pa_Initialize();
#ifdef CONVOY_HAVE_ALSA
  snd_lib_error_set_handler(NULL); /* ALSA's own reporting again, for real errors */
  if (verbose && alsa_probe_messages > 0)
    diag_notice("ALSA: %d messages while probing for devices, not shown", alsa_probe_messages);
#endif
  unhush(saved);
  if (e != paNoError) {
    snprintf(err, err_size, "cannot start PortAudio: %s", Pa_GetErrorText(e));
    return CONVOY_ERR_BACKEND;
  }
  return CONVOY_OK;
}

void live_audio_terminate(void) {
  int saved = hush(!quiet_probe);
  Pa_Terminate();
  unhush(saved);
}

/* The close of live_audio_shutdown, run through live_timed_run. Static: it
 * outlives a shutdown that timed out. */
static PaStream *shutdown_stream;

static void shutdown_close(void *unused) {
  (void)unused;
  if (shutdown_stream) {
    Pa_StopStream(shutdown_stream);
    Pa_CloseStream(shutdown_stream);
  }
  Pa_Terminate();
}

int live_audio_shutdown(PaStream *stream, double timeout_s) {
  int saved = hush(!quiet_probe);
  shutdown_stream = stream;
  const int done = live_timed_run(shutdown_close, NULL, timeout_s);
  unhush(saved);
  return done;
}

static const char *host_name(const PaDeviceInfo *d) {
  const PaHostApiInfo *h = Pa_GetHostApiInfo(d->hostApi);
  return h ? h->name : "?";
}

const char *live_audio_device_name(int dev, char *buf, size_t buf_size) {
  const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
  if (!d)
    snprintf(buf, buf_size, "device %d", dev);
  else
    snprintf(buf, buf_size, "'%s' (%s)", d->name, host_name(d));
  return buf;
}

void live_audio_list(FILE *f) {
  int n = Pa_GetDeviceCount();
  if (n <= 0) {
    fprintf(f, "no audio devices found%s\n", n < 0 ? " (PortAudio failed to list them)" : "");
    return;
  }
  int def_in = Pa_GetDefaultInputDevice(), def_out = Pa_GetDefaultOutputDevice();
  fprintf(f, "%5s  %-25s %4s %4s %7s  %s\n", "index", "host API", "in", "out", "rate", "name");
  for (int i = 0; i < n; i++) {
    const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
    if (!d) continue;
    const char *mark = i == def_in && i == def_out ? " (default in/out)"
                       : i == def_in               ? " (default in)"
                       : i == def_out              ? " (default out)"
                                                   : "";
    fprintf(f, "%5d  %-25.25s %4d %4d %7.0f  %s%s\n", i, host_name(d), d->maxInputChannels,
            d->maxOutputChannels, d->defaultSampleRate, d->name, mark);
  }
}

static int contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return 1;
  }
  return n == 0;
}

static int equal_nocase(const char *a, const char *b) {
  while (*a && tolower((unsigned char)*a) == tolower((unsigned char)*b)) a++, b++;
  return *a == *b;
}

static int channels_of(const PaDeviceInfo *d, int input) {
  return input ? d->maxInputChannels : d->maxOutputChannels;
}

/* Rank of a candidate: exact name beats part of a name; JACK beats others. */
static int score(const PaDeviceInfo *d, const char *spec, int input) {
  if (channels_of(d, input) < 1) return 0;
  int s = 0;
  if (equal_nocase(d->name, spec))
    s = 4;
  else if (contains_nocase(d->name, spec))
    s = 2;
  else
    return 0;
  const PaHostApiInfo *h = Pa_GetHostApiInfo(d->hostApi);
  if (h && h->type == paJACK) s += 1;
  return s;
}

static int find(const char *spec, int input) {
  int64_t index;
  int n = Pa_GetDeviceCount();
  if (parse_int64(spec, &index) == 0) {
    if (index < 0 || index >= n) return paNoDevice;
    const PaDeviceInfo *d = Pa_GetDeviceInfo((int)index);
    return d && channels_of(d, input) > 0 ? (int)index : paNoDevice;
  }
  int best = paNoDevice, best_score = 0;
  for (int i = 0; i < n; i++) {
    const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
    int s = d ? score(d, spec, input) : 0;
    if (s > best_score) best = i, best_score = s;
  }
  return best;
}

/* The default device of one direction: JACK's when its host API is there,
 * else PortAudio's default. */
static int default_device(int input, int host_api) {
  if (host_api < 0) {
    PaHostApiIndex jack = Pa_HostApiTypeIdToHostApiIndex(paJACK);
    const PaHostApiInfo *h = jack >= 0 ? Pa_GetHostApiInfo(jack) : NULL;
    int dev = h ? (input ? h->defaultInputDevice : h->defaultOutputDevice) : paNoDevice;
    if (dev != paNoDevice) return dev;
    return input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
  }
  const PaHostApiInfo *h = Pa_GetHostApiInfo(host_api);
  return h ? (input ? h->defaultInputDevice : h->defaultOutputDevice) : paNoDevice;
}

convoy_status live_audio_pick(const char *in_spec, const char *out_spec, int *in_dev, int *out_dev,
                              char *err, size_t err_size) {
  *in_dev = in_spec ? find(in_spec, 1) : paNoDevice;
  if (in_spec && *in_dev == paNoDevice) {
    snprintf(err, err_size, "--in '%s': no such audio input device", in_spec);
    return CONVOY_ERR_NO_DEVICE;
  }
  *out_dev = out_spec ? find(out_spec, 0) : paNoDevice;
  if (out_spec && *out_dev == paNoDevice) {
    snprintf(err, err_size, "--out '%s': no such audio output device", out_spec);
    return CONVOY_ERR_NO_DEVICE;
  }
  if (*in_dev != paNoDevice && *out_dev == paNoDevice) {
    const PaDeviceInfo *d = Pa_GetDeviceInfo(*in_dev);
    *out_dev = d->maxOutputChannels > 0 ? *in_dev : default_device(0, d->hostApi);
  } else if (*out_dev != paNoDevice && *in_dev == paNoDevice) {
    const PaDeviceInfo *d = Pa_GetDeviceInfo(*out_dev);
    *in_dev = d->maxInputChannels > 0 ? *out_dev : default_device(1, d->hostApi);
  } else if (*in_dev == paNoDevice) {
    *in_dev = default_device(1, -1);
    const PaDeviceInfo *d = *in_dev != paNoDevice ? Pa_GetDeviceInfo(*in_dev) : NULL;
    *out_dev = d ? default_device(0, d->hostApi) : default_device(0, -1);
  }
  if (*in_dev == paNoDevice || *out_dev == paNoDevice) {
    snprintf(err, err_size, "no audio %s device%s", *in_dev == paNoDevice ? "input" : "output",
             in_spec || out_spec ? " to go with the one given" : " (is a JACK server running?)");
    return CONVOY_ERR_NO_DEVICE;
  }
  const PaDeviceInfo *di = Pa_GetDeviceInfo(*in_dev), *dout = Pa_GetDeviceInfo(*out_dev);
  if (di->hostApi != dout->hostApi) {
    snprintf(err, err_size,
             "input '%s' (%s) and output '%s' (%s) are on different host APIs; a duplex stream "
             "needs both on one",
             di->name, host_name(di), dout->name, host_name(dout));
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return CONVOY_OK;
}

int32_t live_audio_max_channels(int in_dev, int out_dev) {
  const PaDeviceInfo *di = Pa_GetDeviceInfo(in_dev), *dout = Pa_GetDeviceInfo(out_dev);
  if (!di || !dout) return 0;
  return di->maxInputChannels < dout->maxOutputChannels ? di->maxInputChannels
                                                        : dout->maxOutputChannels;
}

int live_audio_is_jack(int dev) {
  const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
  const PaHostApiInfo *h = d ? Pa_GetHostApiInfo(d->hostApi) : NULL;
  return h && h->type == paJACK;
}

int32_t live_audio_default_rate(int out_dev) {
  const PaDeviceInfo *d = Pa_GetDeviceInfo(out_dev);
  return d ? (int32_t)(d->defaultSampleRate + 0.5) : 0;
}

static void stream_params(PaStreamParameters *sp, int dev, int32_t channels, int input) {
  const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
  memset(sp, 0, sizeof *sp);
  sp->device = dev;
  sp->channelCount = channels;
  sp->sampleFormat = paFloat32 | paNonInterleaved;
  sp->suggestedLatency = input ? d->defaultLowInputLatency : d->defaultLowOutputLatency;
}

convoy_status live_audio_open(const live_audio_params *p, PaStream **stream, double *latency_s,
                              char *err, size_t err_size) {
  char in_name[300], out_name[300];
  live_audio_device_name(p->in_dev, in_name, sizeof in_name);
  live_audio_device_name(p->out_dev, out_name, sizeof out_name);
  const PaDeviceInfo *di = Pa_GetDeviceInfo(p->in_dev), *dout = Pa_GetDeviceInfo(p->out_dev);
  if (di->maxInputChannels < p->channels || dout->maxOutputChannels < p->channels) {
    int in_short = di->maxInputChannels < p->channels;
    snprintf(err, err_size, "%s has %d %s channel%s; the stream needs %d (see --channels)",
             in_short ? in_name : out_name,
             in_short ? di->maxInputChannels : dout->maxOutputChannels,
             in_short ? "input" : "output",
             (in_short ? di->maxInputChannels : dout->maxOutputChannels) == 1 ? "" : "s",
             (int)p->channels);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  PaStreamParameters in, out;
  stream_params(&in, p->in_dev, p->channels, 1);
  stream_params(&out, p->out_dev, p->channels, 0);
  int saved = hush(!quiet_probe);
  PaError e = Pa_IsFormatSupported(&in, &out, p->rate);
  unhush(saved);
  if (e != paFormatIsSupported) {
    snprintf(err, err_size,
             "%s does not run at %d Hz with %d channels (%s; its default rate is "
             "%.0f Hz)",
             in_name, (int)p->rate, (int)p->channels, Pa_GetErrorText(e), dout->defaultSampleRate);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  saved = hush(!quiet_probe);
  unsigned long frames = p->host_block ? paFramesPerBufferUnspecified : (unsigned long)p->block;
  e = Pa_OpenStream(stream, &in, &out, p->rate, frames, paNoFlag, p->callback, p->user);
  unhush(saved);
  if (e != paNoError) {
    *stream = NULL;
    snprintf(err, err_size, "%s refused a block of %d frames at %d Hz: %s", in_name, (int)p->block,
             (int)p->rate, Pa_GetErrorText(e));
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const PaStreamInfo *si = Pa_GetStreamInfo(*stream);
  *latency_s = si ? si->inputLatency + si->outputLatency : 0;
  return CONVOY_OK;
}
