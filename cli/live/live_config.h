/*
 * live_config.h - the routing file of `convoy live --config FILE`.
 *
 * A text file, one item per line; '#' starts a comment that runs to the end
 * of the line; blank lines are ignored; fields are separated by blanks.
 *
 *   rate R          stream sample rate in Hz (--rate wins)
 *   block N         frames per audio block (--block wins)
 *   channels N      input and output channels of the stream (--channels wins;
 *                   default: the highest channel a route names)
 *   IN OUT FILE[:CHANNEL] [GAIN_DB]
 *                   a route: input IN is convolved with the impulse response
 *                   in FILE and added to output OUT, scaled by GAIN_DB (default
 *                   0). IN, OUT and CHANNEL count from 1 (as JACK ports and
 *                   jconvolver do). FILE is anything `--taps` reads (an audio
 *                   file, text, .npy, raw float32); a relative FILE is taken
 *                   from the config file's directory. Without :CHANNEL the file
 *                   must have one channel. A FILE with blanks in its name is
 *                   written in double quotes.
 *
 * Pairs with no route cost nothing; the same pair twice adds both.
 * Example (true stereo from two stereo files, the right side 3 dB down):
 *   rate 48000
 *   block 256
 *   1 1 hall_L.wav:1
 *   1 2 hall_L.wav:2
 *   2 1 hall_R.wav:1 -3
 *   2 2 hall_R.wav:2 -3
 */
#ifndef CONVOY_CLI_LIVE_CONFIG_H
#define CONVOY_CLI_LIVE_CONFIG_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

/* Most routes one file may list. */
#define LIVE_CONFIG_MAX_ROUTES 65536

typedef struct live_config_route {
  int32_t input, output; /* 0-based here (the file counts from 1) */
  char *file;            /* resolved path, owned */
  int32_t channel;       /* 0-based channel of FILE; -1 = not given (mono file) */
  double gain_db;
  int line; /* line number in the config file, for messages */
} live_config_route;

typedef struct live_config {
  char *name;                    /* the file's name, for messages; owned */
  int32_t rate, block, channels; /* 0 where the file has no such line */
  live_config_route *routes;     /* owned */
  int32_t n_routes;              /* >= 1 after a successful parse */
  int32_t max_channel;           /* highest input or output index + 1 */
} live_config;

/* Parses text (NUL-terminated) of a file called name; relative route files
 * are resolved against dir ("" or NULL: as given). On failure writes one
 * line "NAME:LINE: problem" into err and returns CONVOY_ERR_FORMAT (or
 * CONVOY_ERR_OUT_OF_MEMORY); *cfg is then empty. */
convoy_status live_config_parse(const char *text, const char *name, const char *dir,
                                live_config *cfg, char *err, size_t err_size);

/* Reads and parses path (at most 1 MiB); CONVOY_ERR_IO when unreadable. */
convoy_status live_config_load(const char *path, live_config *cfg, char *err, size_t err_size);

/* Puts "NAME:LINE: " (the file's name, shortened when long) in front of the
 * message in err, for a problem of the item on that line found later (a
 * route's impulse response). */
void live_config_locate(const live_config *cfg, int line, char *err, size_t err_size);

/* Frees everything and zeroes *cfg. NULL-safe. */
void live_config_free(live_config *cfg);

#endif /* CONVOY_CLI_LIVE_CONFIG_H */
