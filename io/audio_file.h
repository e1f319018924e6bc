/*
 * audio_file.h - reading and writing audio files through libsndfile (internal
 * to the convoy program and tests; part of the convoy_io library).
 *
 * Errors: functions return a convoy_status and write one line into err that
 * names the file and the problem ("in.wav: truncated: 1000 of 4800 frames").
 */
#ifndef CONVOY_AUDIO_FILE_H
#define CONVOY_AUDIO_FILE_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

/* Output sample encodings the CLI offers; AUDIO_SUBTYPE_SAME keeps the input's. */
typedef enum audio_subtype {
  AUDIO_SUBTYPE_SAME = 0,
  AUDIO_SUBTYPE_PCM16,
  AUDIO_SUBTYPE_PCM24,
  AUDIO_SUBTYPE_PCM32,
  AUDIO_SUBTYPE_FLOAT,
  AUDIO_SUBTYPE_DOUBLE
} audio_subtype;

/* "pcm16" etc.; returns -1 for an unknown name. */
int audio_subtype_from_name(const char *name, audio_subtype *subtype);

/* ------------------------------------------------------------------ reading */

typedef struct audio_source audio_source;

typedef struct audio_info {
  int64_t frames;   /* -1 when unknown (a pipe) */
  int32_t channels;
  int32_t rate;     /* Hz */
  int32_t format;   /* libsndfile SF_FORMAT_* (container | subtype) */
} audio_info;

/* Opens path for reading ("-" = stdin). Rejects unreadable, unsupported,
 * corrupt files, and empty signals (0 frames). */
convoy_status audio_source_open(audio_source **src, const char *path, audio_info *info,
                                char *err, size_t err_size);

/* Reads up to max_frames interleaved float frames; *got = 0 at the end.
 * Reports a truncated file (fewer frames than the header says) as
 * CONVOY_ERR_FORMAT. */
convoy_status audio_source_read(audio_source *src, float *frames, int64_t max_frames,
                                int64_t *got, char *err, size_t err_size);

/* Back to the first frame (not for pipes: CONVOY_ERR_UNSUPPORTED). */
convoy_status audio_source_rewind(audio_source *src, char *err, size_t err_size);

void audio_source_close(audio_source *src);


/* ------------------------------------------------------------------ writing */

typedef struct audio_sink audio_sink;

typedef struct audio_sink_options {
  int32_t format;   /* libsndfile container | subtype for the output */
  int32_t channels;
  int32_t rate;
  int dither;       /* 1: TPDF dither when the subtype has <= 16 bits */
  uint64_t seed;    /* dither noise seed */
} audio_sink_options;

typedef struct audio_sink_stats {
  int64_t frames;   /* frames written */
  int64_t clipped;  /* samples that were saturated to full scale */
  double peak;      /* largest |sample| before saturation, linear (1.0 = 0 dBFS) */
} audio_sink_stats;

/* Output format for path: container from its extension (wav, flac, aiff,
 * ogg, ...), subtype from `subtype` or, when AUDIO_SUBTYPE_SAME, from
 * input_format when the container can hold it, else the container's usual
 * one. Fails for an unknown extension or an impossible combination. */
convoy_status audio_output_format(const char *path, int32_t input_format, audio_subtype subtype,
                                  int32_t *format, char *err, size_t err_size);

/* Opens a temporary file in path's directory (path "-" writes stdout, no
 * temporary). Refuses an existing path unless overwrite. The temporary is
 * removed on audio_sink_abort, on a failed commit, and on SIGINT/SIGTERM. */
convoy_status audio_sink_open(audio_sink **sink, const char *path, const audio_sink_options *opt,
                              int overwrite, char *err, size_t err_size);

/* Writes interleaved float frames: integer subtypes saturate (never wrap),
 * with TPDF dither at <= 16 bits when enabled; clips and peak are counted. */
convoy_status audio_sink_write(audio_sink *sink, const float *frames, int64_t n_frames,
                               char *err, size_t err_size);

/* Closes the file and renames the temporary over path. Frees the sink. */
convoy_status audio_sink_commit(audio_sink *sink, char *err, size_t err_size);

/* Closes and removes the temporary; path is untouched. Frees the sink. NULL-safe. */
void audio_sink_abort(audio_sink *sink);

void audio_sink_get_stats(const audio_sink *sink, audio_sink_stats *stats);

/* Installs SIGINT/SIGTERM handlers that remove open temporaries, then die of
 * the same signal. Call once at program start. */
void audio_install_signal_cleanup(void);

#endif /* CONVOY_AUDIO_FILE_H */
