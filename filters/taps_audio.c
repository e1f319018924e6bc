/* taps_audio.c - impulse responses from any file libsndfile reads.
 *
 * Samples are read as float with libsndfile's default normalisation (integer
 * full scale -> +-1.0). Each file channel becomes one channel of taps
 * (planar). The file's sample rate is recorded in taps->rate. */
#include "taps_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

/* libsndfile quietly shortens a WAV or AIFF whose data chunk runs past the
 * end of the file, so the frame count it reports is already the truncated
 * one. Its header log keeps the evidence ("data : 4000 (should be 1978)");
 * this reads it. Sizes of 0x7FFFFFFF and above are the "unknown length"
 * placeholders that streaming writers put in a header, not truncation. */
static int truncated_chunk(SNDFILE *sf, unsigned long long *announced,
                           unsigned long long *present) {
  char log[8192];
  log[0] = '\0';
  sf_command(sf, SFC_GET_LOG_INFO, log, (int)sizeof log);
  log[sizeof log - 1] = '\0';
  for (char *line = log; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    while (*line == ' ' || *line == '\t') line++;
    unsigned long long a = 0, p = 0;
    if ((strncmp(line, "data :", 6) == 0 || strncmp(line, "SSND :", 6) == 0) &&
        sscanf(line + 6, "%llu (should be %llu)", &a, &p) == 2 && a > p && a < 0x7FFFFFFFull) {
      *announced = a;
      *present = p;
      return 1;
    }
    line = next;
  }
  return 0;
}

convoy_status taps_load_audio(const char *path, const char *name, int quiet_open, convoy_taps *taps,
                              char *err, size_t err_size) {
  memset(taps, 0, sizeof *taps);
  convoy_status st = taps_probe_file(path, name, err, err_size);
  if (st != CONVOY_OK) return st;

  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *sf = sf_open(path, SFM_READ, &info);
  if (!sf) {
    if (quiet_open) return CONVOY_ERR_UNSUPPORTED;
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: not an audio file libsndfile reads (%s)", name,
                               sf_strerror(NULL));
  }

  unsigned long long announced = 0, present = 0;
  if (truncated_chunk(sf, &announced, &present)) {
    sf_close(sf);
    return convoy_error_format(
        err, err_size, CONVOY_ERR_FORMAT,
        "%s: truncated: the header announces %llu bytes of samples, the file holds %llu", name,
        announced, present);
  }
  if (info.channels < 1 || info.samplerate < 1) {
    sf_close(sf);
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: bad header (%d channels, %d Hz)", name, info.channels,
                               info.samplerate);
  }
  if (info.frames <= 0) {
    sf_close(sf);
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: no taps (0 frames)", name);
  }
  if (info.frames > TAPS_MAX_LENGTH) {
    sf_close(sf);
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: %lld frames, more than the limit %lld", name,
                               (long long)info.frames, (long long)TAPS_MAX_LENGTH);
  }

  const int64_t frames = info.frames;
  const int32_t ch = info.channels;
  /* The header's frame count is a claim, not memory to reserve: a FLAC
   * header of a few dozen bytes can announce 2^31 frames. The samples are
   * gathered in a buffer that grows with what is really decoded, and laid out
   * planar once they are all there. */
  enum { BLOCK = 4096 };
  float *inter = NULL;
  int64_t cap = 0, done = 0;
  convoy_status fail = CONVOY_OK;
  while (done < frames && fail == CONVOY_OK) {
    const sf_count_t want = frames - done < BLOCK ? (sf_count_t)(frames - done) : BLOCK;
    if (done + want > cap) {
      int64_t ncap = cap ? 2 * cap : BLOCK;
      if (ncap < done + want) ncap = done + want;
      if (ncap > frames) ncap = frames;
      float *grown = (uint64_t)ncap <= SIZE_MAX / sizeof(float) / (size_t)ch
                         ? realloc(inter, (size_t)ncap * (size_t)ch * sizeof *inter)
                         : NULL;
      if (!grown) {
        fail = convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                                   "%s: out of memory after %lld frames", name, (long long)done);
        break;
      }
      inter = grown;
      cap = ncap;
    }
    float *block = inter + (size_t)done * (size_t)ch;
    sf_count_t got = sf_readf_float(sf, block, want);
    if (got <= 0) break;
    for (size_t k = 0; k < (size_t)got * (size_t)ch && fail == CONVOY_OK; k++)
      if (!isfinite(block[k]))
        fail = convoy_error_format(
            err, err_size, CONVOY_ERR_FORMAT, "%s: sample %lld of channel %d (counting from 0) %s",
            name, (long long)(done + (int64_t)(k / (size_t)ch)), (int)(k % (size_t)ch),
            isnan(block[k]) ? "is NaN" : "is infinite");
    done += got;
  }

  if (fail != CONVOY_OK) {
    free(inter);
    sf_close(sf);
    return fail;
  }
  if (done < frames) {
    int code = sf_error(sf);
    const char *why = code ? sf_strerror(sf) : "file ends early";
    convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                        "%s: truncated or corrupt: read %lld of %lld frames (%s)", name,
                        (long long)done, (long long)frames, why);
    free(inter);
    sf_close(sf);
    return CONVOY_ERR_FORMAT;
  }
  st = taps_alloc(taps, ch, frames, name, err, err_size);
  if (st != CONVOY_OK) {
    free(inter);
    sf_close(sf);
    return st;
  }
  for (int64_t i = 0; i < frames; i++)
    for (int32_t c = 0; c < ch; c++)
      taps->data[(size_t)c * (size_t)frames + (size_t)i] =
          inter[(size_t)i * (size_t)ch + (size_t)c];
  free(inter);
  sf_close(sf);
  taps->rate = (double)info.samplerate;
  return CONVOY_OK;
}
