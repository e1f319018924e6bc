/*
 * test_audio_bytes.c - audio_sink's files, which it writes itself for WAV,
 * RF64 and W64 (libsndfile making only the header), byte for byte against
 * the files libsndfile writes from the same codes in one call: unsigned 8,
 * 16, 24 and 32-bit PCM and float (double, which goes through libsndfile,
 * as a control, on 1 and 2 channels: libsndfile's own PEAK of a double
 * file is taken in pieces of its buffer that cut frames of 3 or 6
 * channels), 1, 2, 3 and 6 channels, 0 to 20000 frames written in
 * random pieces (floats, codes, and the codes in their stored form made on
 * a pool's threads), with and without dither, signals that clip, hold NaN and
 * infinities, and reach their largest value more than once (a float WAV's
 * PEAK chunk names the first frame). The PEAK chunk's time stamp, the
 * second the file was finished, is the one part left out.
 */
#define _POSIX_C_SOURCE 200809L
#include "audio_file.h"
#include "quantize.h"
#include "sample_path.h"
#include "test_support.h"
#include "worker_pool.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ts_rng rng;
static char dir[256];

/* A random signal; no NaN in frame 0, nor any for double, which the sink
 * writes through libsndfile in pieces (libsndfile's PEAK skips a call, for
 * a channel, whose first sample is NaN). */
static void make_signal(float *x, int64_t frames, int channels, int nan_ok) {
  const int64_t n = frames * channels;
  const float top = (float)(0.5 + ts_uniform(&rng));
  for (int64_t i = 0; i < n; i++) {
    const int kind = (int)ts_range(&rng, 0, 199);
    if (kind == 0 && i >= channels && nan_ok)
      x[i] = NAN;
    else if (kind == 1)
      x[i] = ts_uniform(&rng) < 0.5 ? INFINITY : -INFINITY;
    else if (kind < 8)
      x[i] = ts_uniform(&rng) < 0.5 ? top : -top; /* the largest, many times */
    else
      x[i] = (float)((2.0 * ts_uniform(&rng) - 1.0) * top * 0.999);
  }
  if (ts_uniform(&rng) < 0.3)
    for (int64_t i = 0; i < n; i++)
      if (!isfinite(x[i])) x[i] = 0.0f; /* most files hold no NaN nor infinity */
}

/* One piece of k frames: floats (audio_sink_write), codes
 * (audio_sink_encode, then audio_sink_write_encoded) or, where the file
 * stores its codes otherwise, codes turned into that form on pool's
 * threads (audio_sink_store_parallel, then audio_sink_write_stored). */
static convoy_status write_piece(audio_sink *sink, const float *x, int64_t k, int channels,
                                 worker_pool *pool, char *err, size_t err_size) {
  const size_t code_bytes = audio_sink_encoded_bytes(sink),
               stored_bytes = audio_sink_stored_bytes(sink);
  const int way = (int)ts_range(&rng, 0, stored_bytes ? 2 : code_bytes ? 1 : 0);
  if (way == 0) return audio_sink_write(sink, x, k, err, err_size);
  const size_t samples = (size_t)(k * channels);
  unsigned char *codes = malloc(code_bytes * samples + 1), *stored = malloc(3 * samples + 1);
  convoy_status st = CONVOY_ERR_OUT_OF_MEMORY;
  if (codes && stored) {
    audio_sink_encode(sink, x, k, codes);
    if (way == 1) {
      st = audio_sink_write_encoded(sink, codes, k, err, err_size);
    } else {
      audio_sink_store_parallel(sink, codes, k, stored, ts_uniform(&rng) < 0.5 ? pool : NULL);
      st = audio_sink_write_stored(sink, stored, k, err, err_size);
    }
  }
  free(codes);
  free(stored);
  return st;
}

/* Through audio_sink, in random pieces. */
static int write_sink(const char *path, int format, int channels, const float *x, int64_t frames,
                      int dither, uint64_t seed) {
  char err[512];
  audio_sink_options opt = {format, channels, 48000, dither, seed};
  audio_sink *sink;
  if (audio_sink_open(&sink, path, &opt, 1, err, sizeof err) != CONVOY_OK) {
    TS_CHECK(0, "%s: %s", path, err);
    return -1;
  }
  worker_pool *pool = pool_create(3);
  for (int64_t at = 0; at < frames;) {
    const int64_t k = ts_range(&rng, 1, frames - at < 30000 ? frames - at : 30000);
    if (write_piece(sink, x + at * channels, k, channels, pool, err, sizeof err) != CONVOY_OK) {
      TS_CHECK(0, "%s: %s", path, err);
      audio_sink_abort(sink);
      pool_destroy(pool);
      return -1;
    }
    at += k;
  }
  pool_destroy(pool);
  if (audio_sink_commit(sink, err, sizeof err) != CONVOY_OK) {
    TS_CHECK(0, "%s: %s", path, err);
    return -1;
  }
  return 0;
}

/* Through libsndfile alone, one call, the codes of the same rule. */
static int write_reference(const char *path, int format, int channels, const float *x,
                           int64_t frames, int dither, uint64_t seed) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.format = format;
  info.channels = channels;
  info.samplerate = 48000;
  SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
  TS_CHECK(sf != NULL, "%s: libsndfile: %s", path, sf_strerror(NULL));
  if (!sf) return -1;
  const sample_path sp = sample_path_for(format);
  const size_t n = (size_t)(frames * channels);
  quantizer q;
  quantizer_init(&q, sp.kind == SAMPLE_PATH_FLOAT ? 32 : sp.bits, dither, seed);
  sf_count_t wrote = 0;
  if (sp.kind == SAMPLE_PATH_SHORT) {
    short *codes = malloc(sizeof *codes * (n ? n : 1));
    quantize_to_short(&q, x, n, codes);
    wrote = sf_writef_short(sf, codes, frames);
    free(codes);
  } else if (sp.kind == SAMPLE_PATH_INT) {
    int32_t *codes = malloc(sizeof *codes * (n ? n : 1));
    quantize_to_int(&q, x, n, codes);
    wrote = sf_writef_int(sf, codes, frames);
    free(codes);
  } else {
    wrote = sf_writef_float(sf, x, frames);
  }
  sf_close(sf);
  TS_CHECK(wrote == frames, "%s: libsndfile wrote %lld of %lld frames", path, (long long)wrote,
           (long long)frames);
  return wrote == frames ? 0 : -1;
}

static unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  *size = 0;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(len > 0 ? (size_t)len : 1);
  if (b && len > 0 && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) *size = (size_t)(len > 0 ? len : 0);
  return b;
}

/* The time stamp of a WAV's PEAK chunk ("PEAK", size, version, stamp). */
static void blank_peak_stamp(unsigned char *b, size_t n) {
  for (size_t i = 0; i + 16 <= n && i < 4096; i++)
    if (memcmp(b + i, "PEAK", 4) == 0) memset(b + i + 12, 0, 4);
}

static void check_case(int container, int subtype, int channels, int dither) {
  static int count;
  const int format = container | subtype;
  const int64_t frames = ts_uniform(&rng) < 0.05 ? 0 : ts_log_range(&rng, 1, 20000);
  const uint64_t seed = ts_next(&rng);
  float *x = malloc(sizeof *x * (size_t)(frames * channels + 1));
  TS_CHECK(x != NULL, "out of memory");
  if (!x) return;
  make_signal(x, frames, channels, subtype != SF_FORMAT_DOUBLE);
  char got_path[512], want_path[512];
  const char *ext = container == SF_FORMAT_WAV    ? "wav"
                    : container == SF_FORMAT_RF64 ? "rf64"
                                                  : "w64";
  snprintf(got_path, sizeof got_path, "%s/sink-%d.%s", dir, count, ext);
  snprintf(want_path, sizeof want_path, "%s/ref-%d.%s", dir, count, ext);
  count++;
  if (write_sink(got_path, format, channels, x, frames, dither, seed) == 0 &&
      write_reference(want_path, format, channels, x, frames, dither, seed) == 0) {
    size_t got_n, want_n;
    unsigned char *got = slurp(got_path, &got_n), *want = slurp(want_path, &want_n);
    TS_CHECK(got && want, "cannot read back %s or %s", got_path, want_path);
    if (got && want) {
      blank_peak_stamp(got, got_n);
      blank_peak_stamp(want, want_n);
      size_t first = 0;
      while (first < got_n && first < want_n && got[first] == want[first]) first++;
      TS_CHECK(got_n == want_n && first == got_n,
               "format 0x%06x, %d channels, %lld frames%s: %zu bytes against libsndfile's %zu, "
               "first difference at byte %zu",
               (unsigned)format, channels, (long long)frames, dither ? ", dithered" : "", got_n,
               want_n, first);
    }
    free(got);
    free(want);
  }
  unlink(got_path);
  unlink(want_path);
  free(x);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_audio_bytes"));
  snprintf(dir, sizeof dir, "%s/convoy-audio-bytes-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  static const int containers[] = {SF_FORMAT_WAV, SF_FORMAT_RF64, SF_FORMAT_W64};
  static const int subtypes[] = {SF_FORMAT_PCM_U8, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24,
                                 SF_FORMAT_PCM_32, SF_FORMAT_FLOAT,  SF_FORMAT_DOUBLE};
  static const int channel_counts[] = {1, 2, 3, 6};
  for (int round = 0; round < (ts_quick() ? 1 : 3); round++)
    for (size_t c = 0; c < 3; c++)
      for (size_t s = 0; s < 6; s++)
        for (size_t k = 0; k < 4; k++)
          for (int dither = 0; dither <= 1; dither++)
            if (subtypes[s] != SF_FORMAT_DOUBLE || channel_counts[k] <= 2)
              check_case(containers[c], subtypes[s], channel_counts[k], dither);
  rmdir(dir);
  return ts_finish();
}
