/* test_output.c - integer stream output (convoy_stream_process_to / flush_to
 * with output_format S16/S32): codes, clipping, peak, dither, chunk
 * invariance and argument checks, on every available engine; hard values
 * (ties, saturation, NaN, infinities) and the threads that quantize large
 * runs, which must not change a bit. The expected
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
  const int64_t before = *clipped;
  double code = ts_quantize(x, bits, clipped);
  if (*clipped == before && oc->dither && bits <= 16) {
    code = floor((double)x * full + sq_tpdf(seed, index) + 0.5);
    if (code > full - 1) code = full - 1;
    if (code < -full) code = -full;
  }
  return (int64_t)(code * step);
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

static convoy_stream *make_stream_threads(convoy_engine engine, int32_t ch, convoy_filter *f,
                                          const out_case *oc, uint64_t seed, int32_t threads) {
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = ch;
  cfg.engine = engine;
  cfg.threads = threads;
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

static convoy_stream *make_stream(convoy_engine engine, int32_t ch, convoy_filter *f,
                                  const out_case *oc, uint64_t seed) {
  return make_stream_threads(engine, ch, f, oc, seed, 2);
}

/* A random case: 1-3 channels of uniform noise through taps loud enough
 * that some outputs clip. */
typedef struct loud_case {
  int32_t ch;
  int64_t frames, taps;
  float *h, *x;
  uint64_t seed;
  convoy_filter *f;
} loud_case;

static loud_case loud_case_make(int64_t max_taps) {
  loud_case c;
  c.ch = (int32_t)ts_range(&rng, 1, 3);
  c.frames = ts_log_range(&rng, 1, ts_quick() ? 20000 : 60000);
  c.taps = ts_log_range(&rng, 1, max_taps);
  c.h = malloc(sizeof(float) * (size_t)c.taps);
  ts_fill_uniform(&rng, c.h, c.taps);
  for (int64_t j = 0; j < c.taps; j++) c.h[j] *= (float)(1.6 / sqrt((double)c.taps));
  c.x = malloc(sizeof(float) * (size_t)(c.frames * c.ch));
  ts_fill_uniform(&rng, c.x, c.frames * c.ch);
  c.seed = ts_next(&rng);
  c.f = NULL;
  TS_CHECK_OK(convoy_filter_create(&c.f, c.h, c.taps));
  return c;
}

static void loud_case_free(loud_case *c) {
  convoy_filter_destroy(c->f);
  free(c->x);
  free(c->h);
}

/* The tally over frames [a, b) of yf (b < 0: to nf), by the rule. */
static void expected_tally(const float *yf, int64_t nf, int32_t ch, int64_t a, int64_t b,
                           const out_case *oc, uint64_t seed, int64_t *clipped, double *peak) {
  *clipped = 0;
  *peak = 0.0;
  const int64_t end = b < 0 || b > nf ? nf : b;
  for (int64_t i = a * ch; i < end * ch; i++) {
    if (fabs((double)yf[i]) > *peak) *peak = fabs((double)yf[i]);
    (void)expected_code(yf[i], oc, seed, (uint64_t)i, clipped);
  }
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
      loud_case lc = loud_case_make(700);
      const int32_t ch = lc.ch;
      const int64_t frames = lc.frames, taps = lc.taps;
      const float *x = lc.x;
      const uint64_t seed = lc.seed;
      convoy_filter *f = lc.f;

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
        int64_t want_clipped = 0, bad = 0, first_bad = -1, diff2 = 0, clips = 0;
        double peak = 0.0;
        expected_tally(yf, nf, ch, 0, -1, oc, seed, &want_clipped, &peak);
        for (int64_t i = 0; i < nf * ch; i++) {
          int64_t want = expected_code(yf[i], oc, seed, (uint64_t)i, &clips);
          if (ts_code_at(yi, oc->fmt, i) != want && bad++ == 0) first_bad = i;
          if (ts_code_at(yi2, oc->fmt, i) != ts_code_at(yi, oc->fmt, i)) diff2++;
        }
        TS_CHECK(bad == 0,
                 "%s fmt %d bits %d dither %d ch %d frames %lld taps %lld: %lld codes differ "
                 "(first at %lld: x %.9g got %lld)",
                 convoy_engine_name(engine), (int)oc->fmt, (int)oc->bits, (int)oc->dither, (int)ch,
                 (long long)frames, (long long)taps, (long long)bad, (long long)first_bad,
                 first_bad >= 0 ? yf[first_bad] : 0.0,
                 first_bad >= 0 ? (long long)ts_code_at(yi, oc->fmt, first_bad) : 0LL);
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
      loud_case_free(&lc);
    }
  }
}

/* convoy_stream_set_stats_range: the counters cover the frames asked for,
 * set before any output (random [a, b)) or, for the ring-out, after the
 * whole input and before the flush; the codes do not change. */
static void check_stats_range(convoy_engine engine) {
  const out_case cases[] = {{CONVOY_FORMAT_S16, 0, 1},
                            {CONVOY_FORMAT_S16, 0, 0},
                            {CONVOY_FORMAT_S32, 24, 0},
                            {CONVOY_FORMAT_U8, 0, 1}};
  const int rounds = ts_quick() ? 3 : 8;
  for (int r = 0; r < rounds; r++) {
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const out_case *oc = &cases[k];
      loud_case lc = loud_case_make(300);
      const int32_t ch = lc.ch;
      const int64_t frames = lc.frames, taps = lc.taps;
      float *x = lc.x;
      /* A loud last frame: its ring-out clips where the rest may not. */
      for (int32_t c = 0; c < ch; c++) x[(frames - 1) * ch + c] = 1.0f;
      const uint64_t seed = lc.seed;
      convoy_filter *f = lc.f;
      convoy_stream *sf = make_stream(engine, ch, f, NULL, 0);
      convoy_stream *si = make_stream(engine, ch, f, oc, seed);
      int64_t nf = 0, ni = 0;
      float *yf = sf ? run_to(sf, CONVOY_FORMAT_F32, x, frames, 0, CONVOY_FORMAT_F32, &nf) : NULL;
      const int64_t total = frames + taps - 1;
      /* 1. A range set before any output. */
      const int64_t a = ts_range(&rng, 0, total);
      const int64_t b = ts_range(&rng, 0, 3) == 0 ? -1 : ts_range(&rng, a, total);
      void *yi = NULL;
      if (si && convoy_stream_set_stats_range(si, a, b) == CONVOY_OK)
        yi = run_to(si, CONVOY_FORMAT_F32, x, frames, 3000, oc->fmt, &ni);
      if (yf && yi && ni == nf) {
        int64_t want_clipped;
        double want_peak;
        expected_tally(yf, nf, ch, a, b, oc, seed, &want_clipped, &want_peak);
        convoy_output_stats st;
        TS_CHECK_OK(convoy_stream_output_stats(si, &st));
        TS_CHECK(st.clipped == want_clipped && st.peak == want_peak,
                 "%s fmt %d ch %d frames %lld taps %lld range [%lld, %lld): clipped %lld peak "
                 "%.9g, expected %lld and %.9g",
                 convoy_engine_name(engine), (int)oc->fmt, (int)ch, (long long)frames,
                 (long long)taps, (long long)a, (long long)b, (long long)st.clipped, st.peak,
                 (long long)want_clipped, want_peak);
      }
      /* 2. After reset, the ring-out left out: the whole input, then the
       * range's end, then the flush. The codes are those of run 1. */
      if (si && yi && convoy_stream_reset(si) == CONVOY_OK) {
        const size_t fb = convoy_sample_format_bytes(oc->fmt) * (size_t)ch;
        const int64_t cap = total + convoy_stream_latency(si) + 64;
        unsigned char *out = malloc((size_t)cap * fb);
        int64_t n1 = 0, n2 = 0;
        TS_CHECK_OK(convoy_stream_process_to(si, CONVOY_FORMAT_F32, x, frames, out, cap, &n1));
        TS_CHECK_OK(convoy_stream_set_stats_range(si, 0, frames));
        TS_CHECK_OK(convoy_stream_flush_to(si, out + n1 * fb, cap - n1, &n2));
        TS_CHECK(n1 + n2 == nf && memcmp(out, yi, (size_t)nf * fb) == 0,
                 "%s: a stats range changed the codes", convoy_engine_name(engine));
        int64_t want_clipped;
        double want_peak;
        expected_tally(yf, nf, ch, 0, frames, oc, seed, &want_clipped, &want_peak);
        convoy_output_stats st;
        TS_CHECK_OK(convoy_stream_output_stats(si, &st));
        TS_CHECK(st.clipped == want_clipped && st.peak == want_peak,
                 "%s fmt %d ch %d frames %lld taps %lld, ring-out left out: clipped %lld peak "
                 "%.9g, expected %lld and %.9g",
                 convoy_engine_name(engine), (int)oc->fmt, (int)ch, (long long)frames,
                 (long long)taps, (long long)st.clipped, st.peak, (long long)want_clipped,
                 want_peak);
        free(out);
      }
      if (si) {
        TS_CHECK(convoy_stream_set_stats_range(si, -1, 5) == CONVOY_ERR_INVALID_ARGUMENT &&
                     convoy_stream_set_stats_range(si, 7, 6) == CONVOY_ERR_INVALID_ARGUMENT,
                 "bad ranges refused");
      }
      TS_CHECK(convoy_stream_set_stats_range(NULL, 0, -1) == CONVOY_ERR_INVALID_ARGUMENT,
               "NULL stream");
      free(yf);
      free(yi);
      convoy_stream_destroy(sf);
      convoy_stream_destroy(si);
      loud_case_free(&lc);
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

static const out_case all_cases[] = {
    {CONVOY_FORMAT_S16, 0, 0},  {CONVOY_FORMAT_S16, 0, 1},  {CONVOY_FORMAT_S16, 12, 0},
    {CONVOY_FORMAT_S16, 9, 1},  {CONVOY_FORMAT_S32, 0, 0},  {CONVOY_FORMAT_S32, 24, 0},
    {CONVOY_FORMAT_S32, 16, 0}, {CONVOY_FORMAT_S32, 16, 1}, {CONVOY_FORMAT_S8, 0, 0},
    {CONVOY_FORMAT_S8, 0, 1},   {CONVOY_FORMAT_S8, 5, 0},   {CONVOY_FORMAT_U8, 0, 0},
    {CONVOY_FORMAT_U8, 0, 1},   {CONVOY_FORMAT_U8, 6, 0},   {CONVOY_FORMAT_S16, 2, 0}};

/* Values that stress the rounding and saturation rule for a width of
 * `bits`: exact half-way points (ties round up), one float step either side
 * of them, full scale and just below, beyond it, infinities, NaN, zeros of
 * both signs, denormals, and ordinary values; without `wild` no infinities
 * nor huge values, so that the peak is a finite one among NaNs. */
static float hard_value(ts_rng *r, int32_t bits, int wild) {
  const double full = ldexp(1.0, bits - 1);
  const double k = (double)ts_range(r, (int64_t)-full - 2, (int64_t)full + 1);
  const float tie = (float)((k + 0.5) / full);
  int64_t kind = ts_range(r, 0, 11);
  if (!wild && (kind == 6 || kind == 10)) kind = 11;
  switch (kind) {
  case 0:
    return tie;
  case 1:
    return nextafterf(tie, 2.0f);
  case 2:
    return nextafterf(tie, -2.0f);
  case 3:
    return (float)(k / full);
  case 4:
    return ts_range(r, 0, 1) ? 1.0f : -1.0f;
  case 5:
    return ts_range(r, 0, 1) ? nextafterf(1.0f, 0.0f) : nextafterf(-1.0f, -2.0f);
  case 6:
    return ts_range(r, 0, 1) ? INFINITY : -INFINITY;
  case 7:
    return NAN;
  case 8:
    return ts_range(r, 0, 1) ? 0.0f : -0.0f;
  case 9:
    return (ts_range(r, 0, 1) ? 1.0f : -1.0f) * (float)ldexp(1.0, -(int)ts_range(r, 100, 149));
  case 10:
    return (float)ldexp((double)ts_range(r, -1000, 1000), (int)ts_range(r, 0, 100));
  default: {
    float x;
    ts_fill_uniform(r, &x, 1);
    return 1.3f * x;
  }
  }
}

/* A one-tap unit filter passes hard values through: the codes, clip count
 * and peak of every format against the documented rule, with 1 and 2
 * threads (runs large enough to be split). */
static void check_hard_values(void) {
  const int64_t frames = ts_quick() ? 150000 : 400000;
  const float one = 1.0f;
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, &one, 1));
  for (size_t k = 0; k < sizeof all_cases / sizeof all_cases[0]; k++) {
    const out_case *oc = &all_cases[k];
    const int32_t ch = (int32_t)ts_range(&rng, 1, 3);
    const int32_t bits = oc->bits ? oc->bits : 8 * (int32_t)convoy_sample_format_bytes(oc->fmt);
    float *x = malloc(sizeof(float) * (size_t)(frames * ch));
    const int wild = (int)(k % 2);
    for (int64_t i = 0; i < frames * ch; i++) x[i] = hard_value(&rng, bits > 24 ? 24 : bits, wild);
    const uint64_t seed = ts_next(&rng);
    convoy_stream *sf = make_stream_threads(CONVOY_ENGINE_CPU_DIRECT, ch, f, NULL, 0, 1);
    int64_t nf = 0;
    float *yf = sf ? run_to(sf, CONVOY_FORMAT_F32, x, frames, 0, CONVOY_FORMAT_F32, &nf) : NULL;
    for (int32_t threads = 1; threads <= 2 && yf; threads++) {
      convoy_stream *si = make_stream_threads(CONVOY_ENGINE_CPU_DIRECT, ch, f, oc, seed, threads);
      int64_t ni = 0;
      void *yi = si ? run_to(si, CONVOY_FORMAT_F32, x, frames, 200000, oc->fmt, &ni) : NULL;
      if (yi) {
        int64_t want_clipped = 0, bad = 0, first_bad = -1;
        double peak = 0.0;
        for (int64_t i = 0; i < nf * ch; i++) {
          if (fabs((double)yf[i]) > peak) peak = fabs((double)yf[i]);
          int64_t want = expected_code(yf[i], oc, seed, (uint64_t)i, &want_clipped);
          if (ts_code_at(yi, oc->fmt, i) != want && bad++ == 0) first_bad = i;
        }
        convoy_output_stats st;
        TS_CHECK_OK(convoy_stream_output_stats(si, &st));
        TS_CHECK(ni == nf && bad == 0 && st.clipped == want_clipped && st.peak == peak,
                 "hard values, fmt %d bits %d dither %d ch %d threads %d: %lld codes differ "
                 "(first at %lld: x %.9g got %lld), clipped %lld want %lld, peak %g want %g",
                 (int)oc->fmt, (int)oc->bits, (int)oc->dither, (int)ch, (int)threads,
                 (long long)bad, (long long)first_bad, first_bad >= 0 ? yf[first_bad] : 0.0,
                 first_bad >= 0 ? (long long)ts_code_at(yi, oc->fmt, first_bad) : 0LL,
                 (long long)st.clipped, (long long)want_clipped, st.peak, peak);
      }
      free(yi);
      convoy_stream_destroy(si);
    }
    free(yf);
    convoy_stream_destroy(sf);
    free(x);
  }
  convoy_filter_destroy(f);
}

/* The quantizing threads change nothing: integer output of streams with
 * 1, 2 and 3 threads, complex and real, fed in random chunks, is the same
 * bytes with the same tally, for every format, with and without dither. */
static void check_threads_identical(convoy_engine engine) {
  const int64_t frames = ts_quick() ? 120000 : 300000;
  int clipped_cases = 0;
  for (size_t k = 0; k < sizeof all_cases / sizeof all_cases[0]; k++) {
    const out_case *oc = &all_cases[k];
    const int32_t ch = (int32_t)ts_range(&rng, 1, 2);
    const int cx = ts_range(&rng, 0, 1) == 1;
    const int32_t rows = cx ? 2 * ch : ch;
    const int64_t taps = ts_log_range(&rng, 1, 200);
    float *h = malloc(sizeof(float) * (size_t)taps);
    ts_fill_uniform(&rng, h, taps);
    for (int64_t j = 0; j < taps; j++) h[j] *= (float)(1.6 / sqrt((double)taps));
    float *x = malloc(sizeof(float) * (size_t)(frames * rows));
    ts_fill_uniform(&rng, x, frames * rows);
    const uint64_t seed = ts_next(&rng);
    convoy_filter *f = NULL;
    TS_CHECK_OK(convoy_filter_create(&f, h, taps));
    void *y[3] = {NULL, NULL, NULL};
    int64_t n[3] = {0, 0, 0};
    convoy_output_stats st[3];
    memset(st, 0, sizeof st);
    const size_t fb = convoy_sample_format_bytes(oc->fmt) * (size_t)rows;
    for (int t = 0; t < 3; t++) {
      convoy_stream_config cfg;
      convoy_stream_config_init(&cfg);
      cfg.channels = ch;
      cfg.sample = cx ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32;
      cfg.engine = engine;
      cfg.threads = t + 1;
      cfg.output_format = oc->fmt;
      cfg.output_bits = oc->bits;
      cfg.dither = oc->dither;
      cfg.dither_seed = seed;
      convoy_stream *s = NULL;
      TS_CHECK(convoy_stream_create(&s, &cfg, &f, 1) == CONVOY_OK, "create: %s",
               convoy_last_error());
      if (!s) continue;
      const int64_t cap = frames + convoy_stream_latency(s) + taps + 64;
      unsigned char *out = malloc((size_t)cap * fb);
      int64_t pos = 0, done = 0;
      while (pos < frames) {
        int64_t take = ts_log_range(&rng, 1, 300000);
        if (take > frames - pos) take = frames - pos;
        int64_t got = 0;
        TS_CHECK_OK(convoy_stream_process_to(s, CONVOY_FORMAT_F32, x + pos * rows, take,
                                             out + (size_t)done * fb, cap - done, &got));
        done += got;
        pos += take;
      }
      int64_t got = 0;
      TS_CHECK_OK(convoy_stream_flush_to(s, out + (size_t)done * fb, cap - done, &got));
      n[t] = done + got;
      y[t] = out;
      TS_CHECK_OK(convoy_stream_output_stats(s, &st[t]));
      convoy_stream_destroy(s);
    }
    for (int t = 1; t < 3; t++) {
      if (!y[0] || !y[t]) continue;
      TS_CHECK(n[t] == n[0] && memcmp(y[t], y[0], (size_t)n[0] * fb) == 0,
               "%s fmt %d bits %d dither %d %s ch %d: %d threads differ from 1",
               convoy_engine_name(engine), (int)oc->fmt, (int)oc->bits, (int)oc->dither,
               cx ? "complex" : "real", (int)ch, t + 1);
      TS_CHECK(st[t].clipped == st[0].clipped && st[t].peak == st[0].peak,
               "%s: tally with %d threads: clipped %lld peak %.9g; 1 thread: %lld %.9g",
               convoy_engine_name(engine), t + 1, (long long)st[t].clipped, st[t].peak,
               (long long)st[0].clipped, st[0].peak);
    }
    clipped_cases += st[0].clipped > 0;
    for (int t = 0; t < 3; t++) free(y[t]);
    convoy_filter_destroy(f);
    free(x);
    free(h);
  }
  TS_CHECK(clipped_cases > 0, "%s: no case clipped; the tallies were not compared",
           convoy_engine_name(engine));
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
  check_hard_values();
  check_threads_identical(CONVOY_ENGINE_CPU_DIRECT);
  check_threads_identical(CONVOY_ENGINE_CPU_FFT);
  const convoy_engine engines[] = {CONVOY_ENGINE_CPU_DIRECT, CONVOY_ENGINE_CPU_FFT,
                                   CONVOY_ENGINE_GPU_DIRECT, CONVOY_ENGINE_GPU_FFT};
  for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
    if (!convoy_engine_available(engines[i])) {
      printf("%s: not available here, skipped\n", convoy_engine_name(engines[i]));
      continue;
    }
    check_engine(engines[i]);
    check_stats_range(engines[i]);
    check_s16_to_s16(engines[i]);
  }
  return ts_finish();
}
