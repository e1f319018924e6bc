/*
 * test_warm_start.c - exact ranges (config.first_sample,
 * convoy_stream_set_history, "Exact ranges (warm start)" in convoy.h),
 * through the public API, on every exact engine that can run here (the CPU
 * engines always, the GPU engines where a GPU is present):
 *   - a signal cut at random points into ranges, each range filtered by a
 *     stream of its own (first_sample at the cut, the history frames before
 *     it, the lookahead after its end, random chunk sizes and input formats
 *     inside it), the ranges' first convoy_stream_range_frames() frames put
 *     end to end (all of the last range's): bitwise (memcmp) the output of
 *     one stream over the whole signal, for real and complex signals, real
 *     and complex taps, one filter or one per channel, decimation with and
 *     without a phase, frequency shift, 16-bit output with dither, the FFT
 *     engines at small forced sizes (many blocks, so many grid points) and
 *     at their own, several threads;
 *   - history given longer than asked for (only the last frames count);
 *     the same range again after reset gives the same bits;
 *   - a range starting where the signal is zero needs no history;
 *   - the queries' bounds (history <= first_sample, the grid's lookahead),
 *     and the errors: set_history after process (CONVOY_ERR_STATE), bad
 *     arguments, a negative first_sample.
 * CONVOY_TEST_QUICK shrinks the case count.
 */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CH 3

static int quick;

/* One case: a signal (S16 codes, and the same values as float), filters and
 * a stream configuration. */
typedef struct wcase {
  convoy_engine engine;
  int32_t channels;
  int is_complex;
  int32_t values; /* floats a frame: channels, or 2 x channels */
  int64_t frames;
  int16_t *x16; /* frames x values codes */
  float *xf;    /* the same, / 32768 */
  int32_t n_filters;
  convoy_filter *filters[MAX_CH];
  float *taps[MAX_CH];
  int64_t longest;
  convoy_stream_config cfg;
  int64_t zeros; /* the signal is zero before this frame */
} wcase;

static size_t out_frame_bytes(const wcase *w) {
  return convoy_sample_format_bytes(w->cfg.output_format) * (size_t)w->values;
}

static int is_fft(convoy_engine e) {
  return convoy_engine_cpu_fallback(e) == CONVOY_ENGINE_CPU_FFT;
}

static int is_gpu(convoy_engine e) {
  return convoy_engine_family(e) == CONVOY_FAMILY_GPU;
}

static void case_free(wcase *w) {
  for (int32_t i = 0; i < w->n_filters; i++) {
    convoy_filter_destroy(w->filters[i]);
    free(w->taps[i]);
  }
  free(w->x16);
  free(w->xf);
  memset(w, 0, sizeof *w);
}

static void case_make(wcase *w, ts_rng *rng, convoy_engine e) {
  memset(w, 0, sizeof *w);
  w->engine = e;
  w->channels = (int32_t)ts_range(rng, 1, MAX_CH);
  w->is_complex = ts_range(rng, 0, 1);
  w->values = w->channels * (w->is_complex ? 2 : 1);
  const int complex_taps = w->is_complex && ts_range(rng, 0, 2) == 0;
  const int64_t max_taps = is_fft(e) ? 400 : 48;
  w->longest = ts_log_range(rng, 1, max_taps);
  w->frames = ts_log_range(rng, 1, quick ? 4000 : 20000);
  w->n_filters = ts_range(rng, 0, 1) ? w->channels : 1;
  for (int32_t i = 0; i < w->n_filters; i++) {
    const int64_t len = i == 0 ? w->longest : ts_range(rng, 1, w->longest);
    w->filters[i] = ts_random_filter(rng, complex_taps, len, &w->taps[i]);
  }
  const size_t n = (size_t)(w->frames * w->values);
  w->x16 = malloc(sizeof(int16_t) * (n ? n : 1));
  w->xf = malloc(sizeof(float) * (n ? n : 1));
  /* Some signals start with silence, for the range that needs no history. */
  w->zeros = ts_range(rng, 0, 3) == 0 ? ts_range(rng, 0, w->frames) : 0;
  for (size_t i = 0; i < n; i++) {
    const int64_t code =
        (int64_t)(i / (size_t)w->values) < w->zeros ? 0 : ts_range(rng, -12000, 12000);
    w->x16[i] = (int16_t)code;
    w->xf[i] = (float)code / 32768.0f;
  }
  convoy_stream_config *c = &w->cfg;
  convoy_stream_config_init(c);
  c->engine = e;
  c->channels = w->channels;
  c->sample = w->is_complex ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32;
  c->threads = (int32_t)ts_range(rng, 1, 3);
  if (ts_range(rng, 0, 2) > 0) {
    c->decimation = (int32_t)ts_range(rng, 2, 9);
    c->decimation_phase = ts_range(rng, 0, 1) ? (int32_t)ts_range(rng, 0, c->decimation - 1) : 0;
  }
  if (w->is_complex && ts_range(rng, 0, 1)) c->shift = ts_uniform(rng) - 0.5;
  if (is_fft(e) && ts_range(rng, 0, 2) > 0) /* small blocks: many grid points */
    c->fft_size = w->longest + ts_log_range(rng, 1, 96);
  if (is_gpu(e)) c->chunk_frames = ts_range(rng, 1, 3) * 1024;
  if (ts_range(rng, 0, 3) == 0) {
    c->output_format = CONVOY_FORMAT_S16;
    c->dither = ts_range(rng, 0, 1);
    c->dither_seed = ts_next(rng);
  }
}

static void case_name(const wcase *w, char *buf, size_t size) {
  snprintf(buf, size,
           "%s: %lld frames x %d %s ch, %lld taps (%s), D %d P %d, shift %.3f, fft %lld, %s%s",
           convoy_engine_name(w->engine), (long long)w->frames, (int)w->channels,
           w->is_complex ? "complex" : "real", (long long)w->longest,
           w->n_filters > 1 ? "per channel" : "shared", (int)w->cfg.decimation,
           (int)w->cfg.decimation_phase, w->cfg.shift, (long long)w->cfg.fft_size,
           w->cfg.output_format == CONVOY_FORMAT_S16 ? "s16" : "f32",
           w->cfg.dither ? " dither" : "");
}

static convoy_stream *make_stream(const wcase *w, int64_t first) {
  convoy_stream_config c = w->cfg;
  c.first_sample = first;
  convoy_stream *s = NULL;
  convoy_status st = convoy_stream_create(&s, &c, w->filters, w->n_filters);
  TS_CHECK(st == CONVOY_OK, "create at %lld: %s", (long long)first, convoy_last_error());
  return st == CONVOY_OK ? s : NULL;
}

/* Frames [from, to) of the signal as fmt (S16 codes or floats). */
static const void *frames_at(const wcase *w, convoy_sample_format fmt, int64_t from) {
  return fmt == CONVOY_FORMAT_S16 ? (const void *)(w->x16 + from * w->values)
                                  : (const void *)(w->xf + from * w->values);
}

/* memcmp of n bytes that may be none (at NULL). */
static int same_bytes(const void *a, const void *b, size_t n) {
  return n == 0 || memcmp(a, b, n) == 0;
}

/* A growable output buffer. */
typedef struct obuf {
  unsigned char *b;
  int64_t frames, cap;
  size_t fb;
} obuf;

static unsigned char *obuf_room(obuf *o, int64_t more) {
  if (o->frames + more > o->cap) {
    o->cap = 2 * (o->frames + more) + 64;
    o->b = realloc(o->b, (size_t)o->cap * o->fb);
  }
  return o->b + (size_t)o->frames * o->fb;
}

/* Feeds frames [from, to) in random chunks, in random input formats, then
 * flushes; the output frames are appended to o. Returns 0 on a failure
 * (counted). */
static int feed(convoy_stream *s, const wcase *w, int64_t from, int64_t to, ts_rng *rng, obuf *o) {
  int64_t pos = from;
  while (pos < to) {
    int64_t n = ts_log_range(rng, 1, to - pos);
    const convoy_sample_format fmt = ts_range(rng, 0, 1) ? CONVOY_FORMAT_S16 : CONVOY_FORMAT_F32;
    const int64_t most = convoy_stream_max_output(s, n);
    int64_t got = -1;
    convoy_status st =
        convoy_stream_process_to(s, fmt, frames_at(w, fmt, pos), n, obuf_room(o, most), most, &got);
    TS_CHECK(st == CONVOY_OK && got >= 0 && got <= most, "process %lld at %lld: %s (%lld of %lld)",
             (long long)n, (long long)pos, convoy_stream_last_error(s), (long long)got,
             (long long)most);
    if (st != CONVOY_OK) return 0;
    o->frames += got;
    pos += n;
  }
  const int64_t due = convoy_stream_flush_frames(s);
  int64_t got = -1;
  convoy_status st = convoy_stream_flush_to(s, obuf_room(o, due), due, &got);
  TS_CHECK(st == CONVOY_OK && got == due, "flush: %s (%lld of %lld)", convoy_stream_last_error(s),
           (long long)got, (long long)due);
  if (st != CONVOY_OK) return 0;
  o->frames += got;
  return 1;
}

/* What a range ran with, for the message of a mismatch. */
typedef struct range_info {
  int64_t first, end, history, ahead, out_at; /* out_at: its first frame in the joined output */
  char plan[256];
} range_info;

/* Runs range [first, end) of w (end == frames: the last range) on a stream
 * of its own, giving the convoy_stream_history_frames() frames before first
 * and `extra` more before them (only the last ones count). Appends the
 * range's frames to o; fills *info. */
static int run_range(const wcase *w, int64_t first, int64_t end, int64_t extra, ts_rng *rng,
                     obuf *o, range_info *info) {
  convoy_stream *s = make_stream(w, first);
  if (!s) return 0;
  const int64_t want = convoy_stream_history_frames(s);
  info->first = first;
  info->end = end;
  info->history = want;
  info->out_at = o->frames;
  convoy_stream_describe(s, info->plan, sizeof info->plan);
  const int64_t floor_h = first < w->longest - 1 ? first : w->longest - 1;
  TS_CHECK(want >= floor_h && want <= first, "history %lld for first %lld, %lld taps",
           (long long)want, (long long)first, (long long)w->longest);
  int64_t history = want + extra;
  if (history > first) history = first;
  const convoy_sample_format fmt = ts_range(rng, 0, 1) ? CONVOY_FORMAT_S16 : CONVOY_FORMAT_F32;
  if (history > 0 || ts_range(rng, 0, 1))
    TS_CHECK_OK(convoy_stream_set_history(s, fmt, frames_at(w, fmt, first - history), history));
  const int64_t ahead = convoy_stream_lookahead_frames(s, end);
  TS_CHECK(ahead >= 0, "lookahead %lld", (long long)ahead);
  info->ahead = ahead;
  const int64_t to = end + ahead < w->frames ? end + ahead : w->frames;
  obuf mine = {NULL, 0, 0, o->fb};
  int ok = feed(s, w, first, to, rng, &mine);
  const int64_t keep = end == w->frames ? mine.frames : convoy_stream_range_frames(s, end);
  TS_CHECK(!ok || keep <= mine.frames, "range [%lld, %lld): %lld frames, %lld kept",
           (long long)first, (long long)end, (long long)mine.frames, (long long)keep);
  if (ok && keep <= mine.frames) {
    if (keep > 0) memcpy(obuf_room(o, keep), mine.b, (size_t)keep * o->fb);
    o->frames += keep;
    /* Again after a reset: the same bits. */
    if (ts_range(rng, 0, 3) == 0) {
      TS_CHECK_OK(convoy_stream_reset(s));
      TS_CHECK_OK(convoy_stream_set_history(s, fmt, frames_at(w, fmt, first - history), history));
      obuf again = {NULL, 0, 0, o->fb};
      if (feed(s, w, first, to, rng, &again))
        TS_CHECK(again.frames == mine.frames &&
                     same_bytes(again.b, mine.b, (size_t)mine.frames * o->fb),
                 "range [%lld, %lld) differs after reset", (long long)first, (long long)end);
      free(again.b);
    }
  } else {
    ok = 0;
  }
  free(mine.b);
  convoy_stream_destroy(s);
  return ok;
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Says where joined (n frames of fb bytes) first differs from whole, and in
 * which range. */
static void explain(const unsigned char *joined, const unsigned char *whole, int64_t n, size_t fb,
                    const range_info *ranges, int n_ranges) {
  int64_t f = 0;
  while (f < n && memcmp(joined + (size_t)f * fb, whole + (size_t)f * fb, fb) == 0) f++;
  if (f == n) return;
  int r = 0;
  while (r + 1 < n_ranges && ranges[r + 1].out_at <= f) r++;
  const range_info *i = &ranges[r];
  fprintf(stderr,
          "  first difference at output frame %lld, frame %lld of range %d [%lld, %lld) (history "
          "%lld, lookahead %lld); %s\n",
          (long long)f, (long long)(f - i->out_at), r, (long long)i->first, (long long)i->end,
          (long long)i->history, (long long)i->ahead, i->plan);
}

/* The whole signal through one stream, then cut into random ranges. */
static void check_case(const wcase *w, ts_rng *rng) {
  char name[256];
  case_name(w, name, sizeof name);
  const size_t fb = out_frame_bytes(w);
  obuf whole = {NULL, 0, 0, fb};
  convoy_stream *s = make_stream(w, 0);
  if (!s) return;
  TS_CHECK(convoy_stream_history_frames(s) == 0, "%s: history at frame 0", name);
  int ok = feed(s, w, 0, w->frames, rng, &whole);
  convoy_stream_destroy(s);
  if (!ok) {
    free(whole.b);
    return;
  }
  for (int round = 0; round < 2; round++) {
    int64_t cuts[8];
    const int n_cuts = (int)ts_range(rng, 1, 6);
    for (int i = 0; i < n_cuts; i++) cuts[i] = ts_range(rng, 0, w->frames);
    qsort(cuts, (size_t)n_cuts, sizeof cuts[0], cmp_i64);
    obuf joined = {NULL, 0, 0, fb};
    range_info ranges[8];
    int n_ranges = 0;
    int64_t start = 0;
    for (int i = 0; i <= n_cuts && ok; i++) {
      const int64_t end = i < n_cuts ? cuts[i] : w->frames;
      if (i < n_cuts && (end <= start || end >= w->frames)) continue; /* N ends the last */
      /* History: as asked, or more (the whole prefix). */
      ok = run_range(w, start, end, round == 0 ? 0 : start, rng, &joined, &ranges[n_ranges++]);
      start = end;
    }
    const int same =
        joined.frames == whole.frames && same_bytes(joined.b, whole.b, (size_t)whole.frames * fb);
    TS_CHECK(!ok || same, "%s: %d ranges give %lld frames, one stream %lld, or other bits", name,
             n_ranges, (long long)joined.frames, (long long)whole.frames);
    if (ok && !same)
      explain(joined.b, whole.b, joined.frames < whole.frames ? joined.frames : whole.frames, fb,
              ranges, n_ranges);
    free(joined.b);
  }
  /* Where the signal is silent before the range, no history is needed. */
  if (ok && w->zeros > 0 && w->zeros < w->frames) {
    obuf tail = {NULL, 0, 0, fb};
    convoy_stream *t = make_stream(w, w->zeros);
    if (t && feed(t, w, w->zeros, w->frames, rng, &tail)) {
      convoy_stream *z = make_stream(w, 0);
      const int64_t before = z ? convoy_stream_range_frames(z, w->zeros) : 0;
      convoy_stream_destroy(z);
      TS_CHECK(before + tail.frames == whole.frames &&
                   same_bytes(tail.b, whole.b + (size_t)before * fb, (size_t)tail.frames * fb),
               "%s: a range from the end of the silence at %lld differs without history", name,
               (long long)w->zeros);
    }
    convoy_stream_destroy(t);
    free(tail.b);
  }
  free(whole.b);
}

static void test_errors(ts_rng *rng) {
  float *taps = NULL;
  convoy_filter *f = ts_random_filter(rng, 0, 33, &taps);
  convoy_stream_config c;
  convoy_stream_config_init(&c);
  c.engine = CONVOY_ENGINE_CPU_FFT;
  c.fft_size = 64;
  c.first_sample = -1;
  convoy_stream *s = NULL;
  TS_CHECK(convoy_stream_create(&s, &c, &f, 1) == CONVOY_ERR_INVALID_ARGUMENT,
           "negative first_sample accepted");
  c.first_sample = 1000;
  TS_CHECK_OK(convoy_stream_create(&s, &c, &f, 1));
  if (s) {
    /* FFT size 64, 33 taps: blocks of 32 from absolute frame 0. */
    TS_CHECK(convoy_stream_history_frames(s) == 32 + 1000 % 32, "history %lld",
             (long long)convoy_stream_history_frames(s));
    TS_CHECK(convoy_stream_lookahead_frames(s, 1000) == 24 &&
                 convoy_stream_lookahead_frames(s, 1024) == 0,
             "lookahead %lld", (long long)convoy_stream_lookahead_frames(s, 1000));
    TS_CHECK(convoy_stream_range_frames(s, 1010) == 10 && convoy_stream_range_frames(s, 999) == 0,
             "range frames %lld", (long long)convoy_stream_range_frames(s, 1010));
    float x[64] = {0}, y[256];
    int64_t got;
    TS_CHECK(convoy_stream_set_history(s, (convoy_sample_format)99, x, 1) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "unknown format accepted");
    TS_CHECK(convoy_stream_set_history(s, CONVOY_FORMAT_F32, NULL, 3) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "NULL frames accepted");
    TS_CHECK(convoy_stream_set_history(s, CONVOY_FORMAT_F32, x, -1) == CONVOY_ERR_INVALID_ARGUMENT,
             "negative count accepted");
    TS_CHECK_OK(convoy_stream_set_history(s, CONVOY_FORMAT_F32, x, 64));
    TS_CHECK_OK(convoy_stream_process(s, x, 64, y, 256, &got));
    TS_CHECK(convoy_stream_set_history(s, CONVOY_FORMAT_F32, x, 10) == CONVOY_ERR_STATE,
             "history after process accepted");
    TS_CHECK_OK(convoy_stream_reset(s));
    TS_CHECK_OK(convoy_stream_set_history(s, CONVOY_FORMAT_F32, NULL, 0));
    convoy_stream_destroy(s);
  }
  TS_CHECK(convoy_stream_set_history(NULL, CONVOY_FORMAT_F32, NULL, 0) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL stream accepted");
  TS_CHECK(convoy_stream_history_frames(NULL) == 0 && convoy_stream_range_frames(NULL, 5) == 0 &&
               convoy_stream_lookahead_frames(NULL, 5) == 0,
           "queries on NULL");
  /* The direct engine needs taps - 1 frames and no lookahead. */
  c.engine = CONVOY_ENGINE_CPU_DIRECT;
  c.first_sample = 5;
  TS_CHECK_OK(convoy_stream_create(&s, &c, &f, 1));
  if (s)
    TS_CHECK(convoy_stream_history_frames(s) == 5 && convoy_stream_lookahead_frames(s, 77) == 0,
             "direct: history %lld, lookahead %lld", (long long)convoy_stream_history_frames(s),
             (long long)convoy_stream_lookahead_frames(s, 77));
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  free(taps);
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_warm_start"));
  test_errors(&rng);
  const int cases = quick ? 12 : 60;
  for (int32_t i = 0; i < convoy_engine_count(); i++) {
    const convoy_engine e = convoy_engine_at(i);
    if (!convoy_engine_is_exact(e)) continue;
    if (!convoy_engine_available(e)) {
      printf("%s: not available here, skipped\n", convoy_engine_name(e));
      continue;
    }
    const int before = ts_failures;
    for (int k = 0; k < cases && ts_failures - before < 5; k++) {
      wcase w;
      case_make(&w, &rng, e);
      check_case(&w, &rng);
      case_free(&w);
    }
    printf("%s: %d cases\n", convoy_engine_name(e), cases);
  }
  return ts_finish();
}
