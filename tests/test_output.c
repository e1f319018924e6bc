/* test_output.c - integer stream output (convoy_stream_process_to / flush_to
 * with output_format S16/S32): codes, clipping, peak, dither, chunk
 * invariance and argument checks, on every available engine. The expected
 * codes come from the float output of an F32 stream on the same engine,
 * quantized here by the documented rule (written out independently of the
 * library's code; only the dither noise function, which is part of the
 * specification, is shared). */
#include "sample_quantize.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ts_rng rng;

typedef struct out_case {
  convoy_sample_format fmt;
  int32_t bits;
  int32_t dither;
} out_case;

/* The documented rule, per sample. */
static int64_t expected_code(float x, const out_case *oc, uint64_t seed, uint64_t index,
                             int64_t *clipped) {
  const int container = 8 * (int)convoy_sample_format_bytes(oc->fmt);
  const int bits = oc->bits ? oc->bits : container;
  const double full = ldexp(1.0, bits - 1);
  const double step = ldexp(1.0, container - bits);
  if (isnan(x)) {
    (*clipped)++;
    return 0;
  }
  double code = floor((double)x * full + 0.5);
  if (code > full - 1 || code < -full) {
    (*clipped)++;
    return (int64_t)((code > 0 ? full - 1 : -full) * step);
  }
  if (oc->dither && bits <= 16) {
    code = floor((double)x * full + sq_tpdf(seed, index) + 0.5);
    if (code > full - 1) code = full - 1;
    if (code < -full) code = -full;
  }
  return (int64_t)(code * step);
}

/* The signed code at i (U8 is offset binary: its byte minus 128). */
static int64_t code_at(const void *buf, convoy_sample_format fmt, int64_t i) {
  switch (fmt) {
  case CONVOY_FORMAT_S8:
    return ((const int8_t *)buf)[i];
  case CONVOY_FORMAT_U8:
    return (int64_t)((const uint8_t *)buf)[i] - 128;
  case CONVOY_FORMAT_S16:
    return ((const int16_t *)buf)[i];
  default:
    return ((const int32_t *)buf)[i];
  }
}

/* Runs the input through the stream with process_to in random chunks, then
 * flush_to. Returns a malloc'd buffer of *frames output frames. */
static void *run_to(convoy_stream *s, convoy_sample_format in_fmt, const void *in, int64_t frames,
                    int64_t chunk_max, convoy_sample_format out_fmt, int64_t *out_frames) {
  const int32_t ch = convoy_stream_channels(s);
  const size_t in_fb = convoy_sample_format_bytes(in_fmt) * (size_t)ch;
  const size_t out_fb = convoy_sample_format_bytes(out_fmt) * (size_t)ch;
  const int64_t cap = frames + convoy_stream_latency(s) + convoy_stream_taps(s) + 64;
  unsigned char *out = malloc((size_t)cap * out_fb);
  int64_t done = 0, pos = 0;
  while (pos < frames) {
    int64_t take = chunk_max <= 0 ? frames - pos : ts_log_range(&rng, 1, chunk_max);
    if (take > frames - pos) take = frames - pos;
    int64_t n = 0;
    const int64_t room = convoy_stream_max_output(s, take);
    convoy_status st = convoy_stream_process_to(s, in_fmt, (const unsigned char *)in + pos * in_fb,
                                                take, out + done * out_fb, room, &n);
    TS_CHECK(st == CONVOY_OK, "process_to: %s", convoy_stream_last_error(s));
    if (st != CONVOY_OK) {
      free(out);
      return NULL;
    }
    done += n;
    pos += take;
  }
  int64_t n = 0;
  convoy_status st = convoy_stream_flush_to(s, out + done * out_fb, cap - done, &n);
  TS_CHECK(st == CONVOY_OK, "flush_to: %s", convoy_stream_last_error(s));
  *out_frames = done + n;
  return out;
}

static convoy_stream *make_stream(convoy_engine engine, int32_t ch, convoy_filter *f,
                                  const out_case *oc, uint64_t seed) {
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = ch;
  cfg.engine = engine;
  cfg.threads = 2;
  cfg.chunk_frames = 4096; /* GPU: many chunks, so the dither positions cross them */
  if (oc) {
    cfg.output_format = oc->fmt;
    cfg.output_bits = oc->bits;
    cfg.dither = oc->dither;
    cfg.dither_seed = seed;
  }
  convoy_stream *s = NULL;
  convoy_status st = convoy_stream_create(&s, &cfg, &f, 1);
  TS_CHECK(st == CONVOY_OK, "create %s: %s", convoy_engine_name(engine), convoy_last_error());
  return s;
}

/* Integer output of one engine against its own float output, quantized. */
static void check_engine(convoy_engine engine) {
  const out_case cases[] = {
      {CONVOY_FORMAT_S16, 0, 0},  {CONVOY_FORMAT_S16, 0, 1}, {CONVOY_FORMAT_S16, 12, 1},
      {CONVOY_FORMAT_S32, 24, 0}, {CONVOY_FORMAT_S32, 0, 0}, {CONVOY_FORMAT_S32, 16, 1},
      {CONVOY_FORMAT_S8, 0, 0},   {CONVOY_FORMAT_U8, 0, 1},  {CONVOY_FORMAT_U8, 6, 0}};
  const int rounds = ts_quick() ? 2 : 4;
  for (int r = 0; r < rounds; r++) {
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const out_case *oc = &cases[k];
      const int32_t ch = (int32_t)ts_range(&rng, 1, 3);
      const int64_t frames = ts_log_range(&rng, 1, ts_quick() ? 20000 : 60000);
      const int64_t taps = ts_log_range(&rng, 1, 700);
      float *h = malloc(sizeof(float) * (size_t)taps);
      ts_fill_uniform(&rng, h, taps);
      /* Loud enough that some outputs clip. */
      for (int64_t j = 0; j < taps; j++) h[j] *= (float)(1.6 / sqrt((double)taps));
      float *x = malloc(sizeof(float) * (size_t)(frames * ch));
      ts_fill_uniform(&rng, x, frames * ch);
      const uint64_t seed = ts_next(&rng);
      convoy_filter *f = NULL;
      TS_CHECK_OK(convoy_filter_create(&f, h, taps));

      convoy_stream *sf = make_stream(engine, ch, f, NULL, 0);
      convoy_stream *si = make_stream(engine, ch, f, oc, seed);
      int64_t nf = 0, ni = 0, ni2 = 0;
      float *yf = sf ? run_to(sf, CONVOY_FORMAT_F32, x, frames, 0, CONVOY_FORMAT_F32, &nf) : NULL;
      void *yi = si ? run_to(si, CONVOY_FORMAT_F32, x, frames, 5000, oc->fmt, &ni) : NULL;
      /* Reset, then again in other chunks: the same codes. */
      void *yi2 = NULL;
      if (si && convoy_stream_reset(si) == CONVOY_OK)
        yi2 = run_to(si, CONVOY_FORMAT_F32, x, frames, 300, oc->fmt, &ni2);
      if (yf && yi && yi2) {
        TS_CHECK(nf == frames + taps - 1 && ni == nf && ni2 == nf, "frames %lld %lld %lld",
                 (long long)nf, (long long)ni, (long long)ni2);
        int64_t want_clipped = 0, bad = 0, first_bad = -1, diff2 = 0;
        double peak = 0.0;
        for (int64_t i = 0; i < nf * ch; i++) {
          if (fabs((double)yf[i]) > peak) peak = fabs((double)yf[i]);
          int64_t want = expected_code(yf[i], oc, seed, (uint64_t)i, &want_clipped);
          if (code_at(yi, oc->fmt, i) != want && bad++ == 0) first_bad = i;
          if (code_at(yi2, oc->fmt, i) != code_at(yi, oc->fmt, i)) diff2++;
        }
        TS_CHECK(bad == 0,
                 "%s fmt %d bits %d dither %d ch %d frames %lld taps %lld: %lld codes differ "
                 "(first at %lld: x %.9g got %lld)",
                 convoy_engine_name(engine), (int)oc->fmt, (int)oc->bits, (int)oc->dither, (int)ch,
                 (long long)frames, (long long)taps, (long long)bad, (long long)first_bad,
                 first_bad >= 0 ? yf[first_bad] : 0.0,
                 first_bad >= 0 ? (long long)code_at(yi, oc->fmt, first_bad) : 0LL);
        TS_CHECK(diff2 == 0, "%s: %lld codes depend on the chunking", convoy_engine_name(engine),
                 (long long)diff2);
        convoy_output_stats st;
        TS_CHECK_OK(convoy_stream_output_stats(si, &st));
        TS_CHECK(st.clipped == want_clipped, "%s: clipped %lld, expected %lld",
                 convoy_engine_name(engine), (long long)st.clipped, (long long)want_clipped);
        TS_CHECK(st.peak == peak, "%s: peak %.9g, expected %.9g", convoy_engine_name(engine),
                 st.peak, peak);
      }
      free(yf);
      free(yi);
      free(yi2);
      convoy_stream_destroy(sf);
      convoy_stream_destroy(si);
      convoy_filter_destroy(f);
      free(x);
      free(h);
    }
  }
}

/* Integer input to integer output: the bus-saving path end to end. */
static void check_s16_to_s16(convoy_engine engine) {
  const int32_t ch = 2;
  const int64_t frames = ts_quick() ? 9000 : 40000, taps = 33;
  float h[33];
  ts_fill_uniform(&rng, h, taps);
  int16_t *x = malloc(sizeof(int16_t) * (size_t)(frames * ch));
  float *xf = malloc(sizeof(float) * (size_t)(frames * ch));
  for (int64_t i = 0; i < frames * ch; i++) {
    x[i] = (int16_t)ts_range(&rng, -32768, 32767);
    xf[i] = (float)x[i] / 32768.0f;
  }
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, h, taps));
  const out_case oc = {CONVOY_FORMAT_S16, 0, 0};
  convoy_stream *sf = make_stream(engine, ch, f, NULL, 0);
  convoy_stream *si = make_stream(engine, ch, f, &oc, 0);
  int64_t nf = 0, ni = 0;
  float *yf = sf ? run_to(sf, CONVOY_FORMAT_F32, xf, frames, 0, CONVOY_FORMAT_F32, &nf) : NULL;
  int16_t *yi = si ? run_to(si, CONVOY_FORMAT_S16, x, frames, 7000, CONVOY_FORMAT_S16, &ni) : NULL;
  if (yf && yi) {
    int64_t clipped = 0, bad = 0;
    for (int64_t i = 0; i < nf * ch; i++)
      bad += yi[i] != (int16_t)expected_code(yf[i], &oc, 0, (uint64_t)i, &clipped);
    TS_CHECK(ni == nf && bad == 0, "%s s16 -> s16: %lld codes differ", convoy_engine_name(engine),
             (long long)bad);
  }
  free(yf);
  free(yi);
  convoy_stream_destroy(sf);
  convoy_stream_destroy(si);
  convoy_filter_destroy(f);
  free(x);
  free(xf);
}

static void check_arguments(void) {
  float h[3] = {1, 0.5f, 0.25f};
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, h, 3));
  convoy_stream_config cfg;
  convoy_stream *s = NULL;
  const struct {
    convoy_sample_format fmt;
    int32_t bits, dither;
  } bad[] = {{(convoy_sample_format)7, 0, 0}, {CONVOY_FORMAT_S16, 17, 0},
             {CONVOY_FORMAT_S16, 1, 0},       {CONVOY_FORMAT_S32, 33, 0},
             {CONVOY_FORMAT_F32, 16, 0},      {CONVOY_FORMAT_S16, 0, 2}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    convoy_stream_config_init(&cfg);
    cfg.output_format = bad[i].fmt;
    cfg.output_bits = bad[i].bits;
    cfg.dither = bad[i].dither;
    TS_CHECK(convoy_stream_create(&s, &cfg, &f, 1) == CONVOY_ERR_INVALID_ARGUMENT && !s,
             "bad output config %zu accepted", i);
    TS_CHECK(strstr(convoy_last_error(), "output") || strstr(convoy_last_error(), "dither"),
             "message: %s", convoy_last_error());
  }
  /* An integer stream refuses the float-output calls, with a message. */
  convoy_stream_config_init(&cfg);
  cfg.output_format = CONVOY_FORMAT_S16;
  cfg.engine = CONVOY_ENGINE_CPU;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  if (s) {
    float x[4] = {0}, y[64];
    int64_t n = 0;
    TS_CHECK(convoy_stream_process(s, x, 4, y, 64, &n) == CONVOY_ERR_INVALID_ARGUMENT,
             "process on an s16 stream");
    TS_CHECK(strstr(convoy_stream_last_error(s), "process_to") != NULL, "message: %s",
             convoy_stream_last_error(s));
    TS_CHECK(convoy_stream_flush(s, y, 64, &n) == CONVOY_ERR_INVALID_ARGUMENT,
             "flush on an s16 stream");
    int16_t yi[64];
    TS_CHECK_OK(convoy_stream_process_to(s, CONVOY_FORMAT_F32, x, 4, yi, 64, &n));
    convoy_output_stats st;
    TS_CHECK(convoy_stream_output_stats(s, NULL) == CONVOY_ERR_INVALID_ARGUMENT, "NULL stats");
    TS_CHECK_OK(convoy_stream_output_stats(s, &st));
    TS_CHECK(st.clipped == 0 && st.peak == 0.0, "silence: clipped %lld peak %g",
             (long long)st.clipped, st.peak);
  }
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_output"));
  check_arguments();
  const convoy_engine engines[] = {CONVOY_ENGINE_CPU_DIRECT, CONVOY_ENGINE_CPU_FFT,
                                   CONVOY_ENGINE_GPU_DIRECT, CONVOY_ENGINE_GPU_FFT};
  for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
    if (!convoy_engine_available(engines[i])) {
      printf("%s: not available here, skipped\n", convoy_engine_name(engines[i]));
      continue;
    }
    check_engine(engines[i]);
    check_s16_to_s16(engines[i]);
  }
  return ts_finish();
}
