/*
 * fuzz_audio.c - fuzz entry point for impulse responses loaded from audio
 * files (filters/taps_audio.c, what --ir and an audio --taps use) and for the
 * reading of libsndfile's header log (io/header_frames.c), through the
 * audio reader that uses it (io/audio_source.c). libsndfile is the real one.
 *
 * Every input is used two ways. As an audio file: written to a temporary
 * file, loaded as CONVOY_TAPS_AUDIO taps, opened and read to its end by the
 * audio reader, and its libsndfile header log read by header_frames. As log
 * text: read by header_frames for every container it knows. A property that
 * does not hold aborts, which the fuzzer reports like a crash:
 *   - taps load as 1 .. 2^31 finite taps per channel at a rate above 0, the
 *     samples libsndfile reads; or fail with one line that starts with the
 *     file's name, and no taps;
 *   - the audio reader gives the frames it announced, or fails with one line;
 *   - a header declares -1 (unknown) or a count >= 0 of frames, the count
 *     for two channels is half the count for one; an unsized WAV has the
 *     width of a sample of its subtype.
 *
 * Short run: the ctest fuzz_audio_replay feeds corpus_audio/ and mutations
 * of it (fuzz_replay.c), in the normal and the ASan+UBSan builds.
 *
 * Long run (libFuzzer; clang), as for fuzz_capture.c:
 *   cmake --build build-fuzz --target fuzz_audio -j
 *   mkdir -p build-fuzz/corpus_audio
 *   build-fuzz/tests/fuzz/fuzz_audio build-fuzz/corpus_audio tests/fuzz/corpus_audio \
 *         -dict=tests/fuzz/audio.dict -max_len=4096 -max_total_time=3600 \
 *         -timeout=10 -fork=1 -ignore_timeouts=1
 * libsndfile 1.2's sf_open can spin for ever on a malformed WAV whose LIST
 * chunks nest a data chunk (a 228-byte file did; upstream libsndfile issue
 * 1118 is of the same kind): -timeout reports such an input instead of
 * waiting 20 minutes, and fork mode with -ignore_timeouts goes on past it.
 * Such an input cannot go into corpus_audio: the replay would hang on it.
 */
#define _POSIX_C_SOURCE 200809L

#include "audio_file.h"
#include "convoy_taps.h"
#include "fuzz_property.h"
#include "fuzz_tmp.h"
#include "header_frames.h"

#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Most frames compared with libsndfile's own reading. */
#define COMPARE_MAX 65536

static void one_line(const char *err, const char *what) {
  fuzz_require(err[0] != '\0' && !strchr(err, '\n'), what);
}

/* The samples libsndfile reads from path: interleaved, *frames of them. */
static float *sndfile_samples(const char *path, SF_INFO *info, int64_t *frames) {
  memset(info, 0, sizeof *info);
  *frames = 0;
  SNDFILE *sf = sf_open(path, SFM_READ, info);
  if (!sf) return NULL;
  float *x = NULL;
  if (info->channels >= 1 && info->frames >= 1 && info->frames <= COMPARE_MAX)
    x = malloc((size_t)info->frames * (size_t)info->channels * sizeof *x);
  if (x) *frames = sf_readf_float(sf, x, info->frames);
  sf_close(sf);
  return x;
}

static void taps_from_file(const char *path) {
  convoy_taps t;
  char err[512] = "";
  convoy_status st = convoy_taps_load(path, CONVOY_TAPS_AUDIO, &t, err, sizeof err);
  if (st != CONVOY_OK) {
    one_line(err, "a refused impulse response has a one-line message");
    fuzz_require(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
                 "a refused impulse response names the file");
    fuzz_require(t.data == NULL && t.length == 0, "a refusal returns no taps");
    return;
  }
  fuzz_require(t.channels >= 1 && t.length >= 1 && t.length <= (int64_t)1 << 31 && t.data &&
                   !t.is_complex && t.rate > 0,
               "an impulse response has channels, taps and a rate");
  for (int64_t i = 0; i < t.channels * t.length; i++)
    fuzz_require(isfinite(t.data[i]), "impulse response taps are finite");
  SF_INFO info;
  int64_t frames;
  float *x = sndfile_samples(path, &info, &frames);
  if (x && frames == info.frames) {
    fuzz_require(t.channels == info.channels && t.length == info.frames &&
                     t.rate == info.samplerate,
                 "the taps have the file's channels, frames and rate");
    for (int64_t i = 0; i < frames; i++)
      for (int32_t c = 0; c < t.channels; c++)
        fuzz_require(memcmp(&t.data[c * t.length + i], &x[i * t.channels + c], sizeof(float)) == 0,
                     "the taps are the samples libsndfile reads");
  }
  free(x);
  convoy_taps_free(&t);
}

static void read_as_audio(const char *path) {
  audio_source *src = NULL;
  audio_info info;
  char err[512] = "";
  convoy_status st = audio_source_open(&src, path, &info, err, sizeof err);
  if (st != CONVOY_OK) {
    one_line(err, "an audio file refused has a one-line message");
    fuzz_require(src == NULL, "a refused audio file gives no reader");
    return;
  }
  fuzz_require(info.channels >= 1 && info.frames >= -1, "an audio file has channels");
  enum { BLOCK = 512 };
  float *buf = malloc((size_t)BLOCK * (size_t)info.channels * sizeof *buf);
  int64_t total = 0, got = 0;
  while (buf && total <= COMPARE_MAX) {
    st = audio_source_read(src, buf, BLOCK, &got, err, sizeof err);
    if (st != CONVOY_OK) {
      one_line(err, "an audio read error has a one-line message");
      break;
    }
    if (got == 0) {
      fuzz_require(info.frames < 0 || total == info.frames,
                   "the audio reader gives the frames it announced");
      break;
    }
    fuzz_require(got >= 1 && got <= BLOCK, "a read gives 1 .. max frames");
    total += got;
  }
  free(buf);
  audio_source_close(src);
}

static const int log_formats[] = {
    SF_FORMAT_WAV | SF_FORMAT_PCM_16,    SF_FORMAT_WAVEX | SF_FORMAT_FLOAT,
    SF_FORMAT_W64 | SF_FORMAT_PCM_24,    SF_FORMAT_RF64 | SF_FORMAT_DOUBLE,
    SF_FORMAT_AU | SF_FORMAT_ULAW,       SF_FORMAT_AIFF | SF_FORMAT_PCM_32,
    SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM, SF_FORMAT_FLAC | SF_FORMAT_PCM_16};

/* header_frames on a log: the real one of a file, or any text. */
static void check_log(const char *log, int format, int channels) {
  const int64_t d = header_declared_frames(log, format, channels);
  fuzz_require(d >= -1, "declared frames are -1 or a count");
  if ((format & SF_FORMAT_TYPEMASK) != SF_FORMAT_AIFF && channels == 1) {
    const int64_t d2 = header_declared_frames(log, format, 2);
    fuzz_require(d2 == (d < 0 ? -1 : d / 2), "two channels declare half the frames of one");
  }
  const int w = header_wav_unsized(log, format);
  fuzz_require(w == 0 || w == 1 || w == 2 || w == 3 || w == 4 || w == 8,
               "an unsized WAV's sample width is 0 or a subtype's");
  if (w) {
    const int type = format & SF_FORMAT_TYPEMASK;
    fuzz_require(type == SF_FORMAT_WAV || type == SF_FORMAT_WAVEX, "only a WAV is unsized");
  }
  const int cut = header_log_says_cut_short(log);
  fuzz_require(cut == 0 || cut == 1, "cut short is 0 or 1");
}

static void log_of_file(const char *path) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *sf = sf_open(path, SFM_READ, &info);
  char log[8192];
  log[0] = '\0';
  sf_command(sf, SFC_GET_LOG_INFO, log, (int)sizeof log);
  log[sizeof log - 1] = '\0';
  if (sf) {
    check_log(log, info.format, info.channels >= 1 ? info.channels : 1);
    sf_close(sf);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[1024];
  fuzz_tmp_write(path, sizeof path, "ir", data, size);
  taps_from_file(path);
  read_as_audio(path);
  log_of_file(path);
  unlink(path);

  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  for (size_t i = 0; i < sizeof log_formats / sizeof log_formats[0]; i++)
    check_log(text, log_formats[i], 1);
  free(text);
  return 0;
}
