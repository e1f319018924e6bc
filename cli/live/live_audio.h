/*
 * live_audio.h - the PortAudio side of `convoy live`: starting PortAudio,
 * listing and choosing devices, opening the duplex stream.
 *
 * Devices are named by index (as --list-devices prints it) or by a
 * case-insensitive part of the name; JACK's host API is preferred when a
 * JACK server runs (for the default device and among equal name matches).
 * Call from the main thread only.
 */
#ifndef CONVOY_CLI_LIVE_AUDIO_H
#define CONVOY_CLI_LIVE_AUDIO_H

#include "convoy.h"

#include <portaudio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Starts PortAudio (the JACK client is called "convoy"). Unless verbose,
 * what the audio libraries print on stderr while probing (ALSA's
 * configuration complaints, JACK's "server not running") is hidden. */
convoy_status live_audio_init(int verbose, char *err, size_t err_size);

/* Stops PortAudio; after live_audio_init only. */
void live_audio_terminate(void);

/* Stops and closes stream (NULL: none) and stops PortAudio, waiting at most
 * timeout_s seconds: a JACK server that stopped answering blocks all three
 * (PortAudio waits up to ten minutes for a callback). Returns 1 when
 * done; 0 when the time ran out, the close going on in the background: the
 * caller must then end the process without freeing what the stream's
 * callback uses. Once per process. */
int live_audio_shutdown(PaStream *stream, double timeout_s);

/* One line per device: index, host API, input and output channels, default
 * rate, name; '*' marks the defaults. */
void live_audio_list(FILE *f);

/* Resolves --in and --out (NULL: not given). When only one is given and
 * that device has channels in both directions, it serves both; otherwise
 * the missing one is its host API's default. Fails with
 * CONVOY_ERR_NO_DEVICE and "--in 'x': no such audio device" (or "no audio
 * input device") in err. */
convoy_status live_audio_pick(const char *in_spec, const char *out_spec, int *in_dev, int *out_dev,
                              char *err, size_t err_size);

/* The smaller of in_dev's input and out_dev's output channel counts. */
int32_t live_audio_max_channels(int in_dev, int out_dev);

/* out_dev's default sample rate, Hz. */
int32_t live_audio_default_rate(int out_dev);

/* 1 when dev belongs to the JACK host API, whose buffer size is fixed by
 * the server for every client. */
int live_audio_is_jack(int dev);

/* "name (host API)" of a device, into buf. */
const char *live_audio_device_name(int dev, char *buf, size_t buf_size);

typedef struct live_audio_params {
  int in_dev, out_dev;
  int32_t channels;           /* inputs = outputs */
  int32_t rate;               /* Hz */
  int32_t block;              /* frames per callback, exactly (unless host_block) */
  int host_block;             /* 1: the host's own buffer size (paFramesPerBufferUnspecified),
                                 which saves PortAudio's adaptation buffer, one block of
                                 latency, when the host's size is a multiple of block */
  PaStreamCallback *callback; /* gets non-interleaved float32 buffers */
  void *user;
} live_audio_params;

/* Opens (does not start) the duplex stream. Checks the channel counts and
 * the rate first, so that a failure names the cause: too few channels, a
 * rate the device does not run at, or a block it refuses (PortAudio's
 * message and the block). *latency_s is PortAudio's input plus output
 * latency. */
convoy_status live_audio_open(const live_audio_params *p, PaStream **stream, double *latency_s,
                              char *err, size_t err_size);

#endif /* CONVOY_CLI_LIVE_AUDIO_H */
