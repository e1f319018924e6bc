/*
 * live_options.h - the command line of `convoy live`, parsed and checked.
 */
#ifndef CONVOY_CLI_LIVE_OPTIONS_H
#define CONVOY_CLI_LIVE_OPTIONS_H

#include "convoy.h"

#include <stdint.h>

typedef enum live_source {
  LIVE_SOURCE_NONE = 0,
  LIVE_SOURCE_IR,     /* --ir FILE: impulse response(s) in an audio file */
  LIVE_SOURCE_TAPS,   /* --taps FILE: text, .npy, raw float32 or audio, by extension */
  LIVE_SOURCE_DESIGN, /* --design SPEC */
  LIVE_SOURCE_CONFIG  /* --config FILE: routes, rate, block, channels (live_config.h) */
} live_source;

/* Where the audio comes from and goes to (--backend). */
typedef enum live_backend_kind {
  LIVE_BACKEND_AUTO =
      0,             /* JACK when a server runs (and --in/--out are not given), else PortAudio */
  LIVE_BACKEND_JACK, /* a JACK client of its own: ports, connections, the server's period */
  LIVE_BACKEND_PORTAUDIO /* PortAudio devices (ALSA, PortAudio's own JACK host, ...) */
} live_backend_kind;

#define LIVE_MAX_CONNECT 16 /* --connect patterns */

typedef struct live_options {
  live_source source;
  const char *source_arg;                /* the FILE or SPEC */
  const char *in_dev;                    /* --in: name substring or index; NULL = default */
  const char *out_dev;                   /* --out: likewise */
  int32_t rate;                          /* --rate, Hz; 0 = not given */
  int32_t block;                         /* --block, frames; 0 = not given */
  int32_t channels;                      /* --channels; 0 = not given */
  convoy_engine engine;                  /* AUTO, CPU or GPU */
  double gain_db;                        /* --gain, added to every route's gain */
  double duration;                       /* --duration, seconds; 0 = until stopped */
  live_backend_kind backend;             /* --backend */
  const char *client_name;               /* --name: the JACK client's; NULL = "convoy" */
  const char *connect[LIVE_MAX_CONNECT]; /* --connect PATTERN: JACK ports (regex) to connect */
  int n_connect;
  int no_connect;      /* --no-connect: leave the JACK ports unconnected */
  const char *control; /* --control PATH: the control socket; NULL = none */
  int list_devices;    /* --list-devices: print the devices and exit */
  int resample_ir;     /* --resample-ir: resample IRs of another rate */
  int meter;           /* --meter: level bars above the status line (a terminal only) */
  int quiet, verbose, help;
} live_options;

/* Parses argv (argv[0] = "live"). Returns CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after printing one line. With --help or --list-devices the taps source is
 * not required. */
int live_options_parse(int argc, char **argv, live_options *o);

/* The first option given that only the JACK backend takes (--connect,
 * --no-connect, --name); NULL when none. */
const char *live_options_jack_only(const live_options *o);

#endif /* CONVOY_CLI_LIVE_OPTIONS_H */
