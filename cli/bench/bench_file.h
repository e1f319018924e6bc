/*
 * bench_file.h - file-to-file throughput: WAV files (float32, pcm16) and raw
 * captures (float32 `.f32` and int16 `.s16` for one channel, complex `.cf32`
 * and `.cs16` for two) of the
 * benchmark signal in a temporary directory, filtered by the convoy program
 * itself (`convoy filter IN OUT --taps FILE --engine E -q -y`), timed by wall
 * clock from spawn to exit, so the figure includes start-up, decoding,
 * filtering, encoding and the final rename, as a user running the command
 * sees it; beside it, `cp IN OUT` of the same file timed the same way, the
 * limit of the file system and page cache.
 */
#ifndef CONVOY_BENCH_FILE_H
#define CONVOY_BENCH_FILE_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

#define BENCH_FILE_DIR 256
#define BENCH_FILE_PATH 512
#define BENCH_FILE_RATE 48000 /* Hz, for the WAVs and "x real time" */

typedef enum bench_file_subtype {
  BENCH_FILE_FLOAT = 0, /* float32 WAV */
  BENCH_FILE_PCM16 = 1, /* 16-bit WAV */
  BENCH_FILE_RAW = 2,   /* raw float32 capture: .f32 (1 channel) or .cf32 (2) */
  BENCH_FILE_RAW16 = 3, /* raw int16 capture: .s16 (1 channel) or .cs16 (2), whose
                           samples a GPU engine moves and quantizes as stored */
  BENCH_FILE_SUBTYPES = 4
} bench_file_subtype;

typedef struct bench_file_result {
  double median_s, min_s, max_s; /* wall-clock seconds per command */
} bench_file_result;

typedef struct bench_files {
  char dir[BENCH_FILE_DIR];                         /* temporary directory, owned */
  char input[BENCH_FILE_SUBTYPES][BENCH_FILE_PATH]; /* "" where not made */
  char output[BENCH_FILE_SUBTYPES][BENCH_FILE_PATH];
  char taps[BENCH_FILE_PATH];                /* the latest taps written */
  bench_file_result cp[BENCH_FILE_SUBTYPES]; /* `cp IN OUT` (bench_files_time_copy) */
  int64_t frames;
  int32_t channels;
} bench_files;

/* Makes a temporary directory under $TMPDIR (or /tmp) and writes signal
 * (frames * channels interleaved) into a float32 WAV and a pcm16 WAV there.
 * Until bench_files_remove, SIGINT and SIGTERM remove the files first.
 * files must stay at the same address until then. */
convoy_status bench_files_prepare(bench_files *files, const float *signal, int64_t frames,
                                  int32_t channels, char *err, size_t err_size);

/* Writes taps (one value per line, round-trip precision) as files->taps. */
convoy_status bench_files_write_taps(bench_files *files, const float *taps, int64_t n_taps,
                                     char *err, size_t err_size);

/* Removes every file made and the directory. Safe on a half-prepared set. */
void bench_files_remove(bench_files *files);

/* Whether the set has an input of this subtype (the raw captures need 1 or 2
 * channels). */
int bench_files_have(const bench_files *files, bench_file_subtype subtype);

/* Times `cp IN OUT` for every input, once to warm up and then runs times,
 * into files->cp. */
convoy_status bench_files_time_copy(bench_files *files, int runs, char *err, size_t err_size);

/* Runs `program filter INPUT OUTPUT --taps TAPS --engine E -q -y` (plus
 * `--threads N` when threads > 0 and `--fft-size N` when fft_size > 0) once
 * to warm up and check the output length, then runs times. program is the path of
 * the convoy binary (e.g. "/proc/self/exe"). Fails with a message when the
 * command exits non-zero or writes the wrong number of frames. */
convoy_status bench_file_run(const bench_files *files, bench_file_subtype subtype,
                             const char *program, convoy_engine engine, int32_t threads,
                             int64_t fft_size, int runs, bench_file_result *res, char *err,
                             size_t err_size);

#endif /* CONVOY_BENCH_FILE_H */
