/* output_write.c - planar float output to interleaved float or integer frames. */
#include "output_write.h"

#include "interleave.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* U8 output is offset binary: the S8 code plus 128. */
#define U8_OFFSET 128

/* Values quantized per block of the plain path (a stack buffer of codes
 * that stays in the L1 cache), and channels interleaved per block. */
#define PLAIN_BLOCK 1024
#define PLAIN_GROUP 16

/* Below this many values per call the fork and join of the pool (a wake-up
 * of sleeping workers, some tens of microseconds on a busy machine) costs
 * more than quantizing on one thread; each task gets at least
 * MIN_TASK_VALUES. */
#define PARALLEL_MIN_VALUES ((int64_t)1 << 16)
#define MIN_TASK_VALUES ((int64_t)1 << 13)
#define TASKS_PER_THREAD 4
/* Task boundaries fall on multiples of this many frames, so that two tasks
 * rarely write into one cache line. */
#define TASK_ALIGN_FRAMES 64

int64_t output_frame_bytes(const output_spec *o, int32_t channels) {
  return (int64_t)convoy_sample_format_bytes(o->fmt) * channels;
}

/* One code, left-justified by multiplying (shifting a negative is undefined). */
static inline int32_t code_of(const output_spec *o, float x, double full, uint64_t index,
                              output_tally *t, double *peak) {
  const double ax = fabs((double)x);
  if (ax > *peak) *peak = ax;
  int clipped;
  int32_t code = sq_code(x, full, o->dither ? sq_tpdf(o->seed, index) : 0.0, &clipped);
  t->clipped += clipped;
  return code;
}

/* Codes of n values without dither for bits <= 16, bit for bit sq_code().
 * Everything is exact in float: v = x * full (a power of two; an overflow
 * to infinity is clipped either way), the clip test lo <= v < hi (NaN fails
 * it), and floor(v + 0.5), which is the nearest integer r of v (rounded to
 * even by adding and subtracting 1.5 x 2^23, exact for |v| <= 2^22) plus
 * one where v lies half way above r. Clamping v to [-full - 1, full] first
 * and the code to [-full, full - 1] after gives sq_code's saturated codes;
 * NaN gives 0. Peak: |x| in float converts to the double sq_code's caller
 * compares. */
#define MAGIC 0x1.8p23f

static inline int32_t code_plain(float x, float f, int32_t *clip) {
  float v = x * f;
  *clip += (v < -f - 0.5f) | (v >= f - 0.5f) | (v != v);
  if (v != v) v = 0.0f;
  if (v < -f - 1.0f) v = -f - 1.0f;
  if (v > f) v = f;
  const float r = (v + MAGIC) - MAGIC;
  float code = v - r == 0.5f ? r + 1.0f : r;
  if (code > f - 1.0f) code = f - 1.0f;
  if (code < -f) code = -f;
  return (int32_t)code;
}

static void codes_plain(const float *src, int64_t n, double full, int32_t *codes, int64_t *clipped,
                        float *peak) {
  const float f = (float)full;
  int32_t clip = 0;
  float pk = *peak;
  int64_t i = 0;
#ifdef __SSE2__
  /* The same steps four values at a time; max/min return their second
   * operand when one is NaN, which keeps the peak and is never reached by
   * the clamps (NaN is zeroed first). */
  const __m128 vf = _mm_set1_ps(f), lo = _mm_set1_ps(-f - 0.5f), hi = _mm_set1_ps(f - 0.5f);
  const __m128 vmin = _mm_set1_ps(-f - 1.0f), cmin = _mm_set1_ps(-f), cmax = _mm_set1_ps(f - 1.0f);
  const __m128 magic = _mm_set1_ps(MAGIC), half = _mm_set1_ps(0.5f), one = _mm_set1_ps(1.0f);
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  __m128 vpk = _mm_set1_ps(pk);
  __m128i vclip = _mm_setzero_si128();
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps(src + i);
    vpk = _mm_max_ps(_mm_and_ps(x, abs_mask), vpk);
    __m128 v = _mm_mul_ps(x, vf);
    const __m128 out =
        _mm_or_ps(_mm_or_ps(_mm_cmplt_ps(v, lo), _mm_cmpge_ps(v, hi)), _mm_cmpunord_ps(v, v));
    vclip = _mm_sub_epi32(vclip, _mm_castps_si128(out));
    v = _mm_and_ps(v, _mm_cmpord_ps(v, v));
    v = _mm_min_ps(_mm_max_ps(v, vmin), vf);
    const __m128 r = _mm_sub_ps(_mm_add_ps(v, magic), magic);
    __m128 code = _mm_add_ps(r, _mm_and_ps(_mm_cmpeq_ps(_mm_sub_ps(v, r), half), one));
    code = _mm_max_ps(_mm_min_ps(code, cmax), cmin);
    _mm_storeu_si128((__m128i *)(void *)(codes + i), _mm_cvttps_epi32(code));
  }
  int32_t lanes[4];
  float pks[4];
  _mm_storeu_si128((__m128i *)(void *)lanes, vclip);
  _mm_storeu_ps(pks, vpk);
  clip = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (int k = 0; k < 4; k++)
    if (pks[k] > pk) pk = pks[k];
#endif
  for (; i < n; i++) {
    const float a = fabsf(src[i]);
    if (a > pk) pk = a;
    codes[i] = code_plain(src[i], f, &clip);
  }
  *clipped += clip;
  *peak = pk;
}

/* dst[i * stride + c] = CONV(codes[c * n + i]) for i < n, c < g, frame by
 * frame so that the writes are sequential; one and two channels (a complex
 * signal) get loops of their own. */
#define STORE_CODES(type, CONV)                                                                    \
  do {                                                                                             \
    type *d = (type *)out + at;                                                                    \
    if (g == 1 && stride == 1) {                                                                   \
      for (int64_t i = 0; i < n; i++) d[i] = (type)(CONV(codes[i]));                               \
    } else if (g == 2) {                                                                           \
      for (int64_t i = 0; i < n; i++) {                                                            \
        d[i * stride] = (type)(CONV(codes[i]));                                                    \
        d[i * stride + 1] = (type)(CONV(codes[n + i]));                                            \
      }                                                                                            \
    } else {                                                                                       \
      for (int64_t i = 0; i < n; i++)                                                              \
        for (int32_t c = 0; c < g; c++) d[i * stride + c] = (type)(CONV(codes[c * n + i]));        \
    }                                                                                              \
  } while (0)

#define SCALED(k) ((k)*step)
#define OFFSET_BINARY(k) ((k)*step + U8_OFFSET)

static void store_codes(convoy_sample_format fmt, const int32_t *codes, int32_t g, int64_t n,
                        int32_t step, int32_t stride, void *out, int64_t at) {
  switch (fmt) {
  case CONVOY_FORMAT_S16:
    STORE_CODES(int16_t, SCALED);
    break;
  case CONVOY_FORMAT_S8:
    STORE_CODES(int8_t, SCALED);
    break;
  case CONVOY_FORMAT_U8: /* offset binary: code + 128 */
    STORE_CODES(uint8_t, OFFSET_BINARY);
    break;
  default:
    STORE_CODES(int32_t, SCALED);
    break;
  }
}

/* Frames [lo, hi) of the plain path (no dither, bits <= 16), in blocks of
 * PLAIN_BLOCK values: groups of up to PLAIN_GROUP channels, a run of frames
 * of each. */
static void write_plain(const output_spec *o, const float *const *planar, int32_t channels,
                        int64_t lo, int64_t hi, void *out, output_tally *tally) {
  const double full = ldexp(1.0, o->bits - 1);
  const int container = 8 * (int)convoy_sample_format_bytes(o->fmt);
  const int32_t step = (int32_t)1 << (container - o->bits);
  int32_t codes[PLAIN_BLOCK];
  float peak = 0.0f;
  for (int32_t c0 = 0; c0 < channels; c0 += PLAIN_GROUP) {
    const int32_t g = channels - c0 < PLAIN_GROUP ? channels - c0 : PLAIN_GROUP;
    const int64_t per = PLAIN_BLOCK / g;
    for (int64_t b = lo; b < hi; b += per) {
      const int64_t n = hi - b < per ? hi - b : per;
      for (int32_t c = 0; c < g; c++)
        codes_plain(planar[c0 + c] + b, n, full, codes + c * n, &tally->clipped, &peak);
      store_codes(o->fmt, codes, g, n, step, channels, out, b * channels + c0);
    }
  }
  if ((double)peak > tally->peak) tally->peak = peak;
}

/* Frames [lo, hi) by sq_code() one value at a time: dither, or more than
 * 16 bits. */
static void write_exact(const output_spec *o, const float *const *planar, int32_t channels,
                        int64_t lo, int64_t hi, uint64_t first_index, void *out,
                        output_tally *tally) {
  const double full = ldexp(1.0, o->bits - 1);
  const int container = 8 * (int)convoy_sample_format_bytes(o->fmt);
  const int32_t step = o->bits >= container ? 1 : (int32_t)1 << (container - o->bits);
  double peak = tally->peak;
  const uint64_t next = (uint64_t)channels;
  for (int32_t c = 0; c < channels; c++) {
    const float *src = planar[c];
    uint64_t index = first_index + (uint64_t)lo * next + (uint64_t)c;
    switch (o->fmt) {
    case CONVOY_FORMAT_S16: {
      int16_t *dst = (int16_t *)out + c;
      for (int64_t i = lo; i < hi; i++, index += next)
        dst[i * channels] = (int16_t)(code_of(o, src[i], full, index, tally, &peak) * step);
      break;
    }
    case CONVOY_FORMAT_S8: {
      int8_t *dst = (int8_t *)out + c;
      for (int64_t i = lo; i < hi; i++, index += next)
        dst[i * channels] = (int8_t)(code_of(o, src[i], full, index, tally, &peak) * step);
      break;
    }
    case CONVOY_FORMAT_U8: { /* offset binary: code + 128 */
      uint8_t *dst = (uint8_t *)out + c;
      for (int64_t i = lo; i < hi; i++, index += next)
        dst[i * channels] =
            (uint8_t)(code_of(o, src[i], full, index, tally, &peak) * step + U8_OFFSET);
      break;
    }
    default: {
      int32_t *dst = (int32_t *)out + c;
      for (int64_t i = lo; i < hi; i++, index += next)
        dst[i * channels] = code_of(o, src[i], full, index, tally, &peak) * step;
      break;
    }
    }
  }
  tally->peak = peak;
}

static void write_span(const output_spec *o, const float *const *planar, int32_t channels,
                       int64_t lo, int64_t hi, uint64_t first_index, void *out,
                       output_tally *tally) {
  if (hi <= lo) return;
  if (!o->dither && o->bits <= 16)
    write_plain(o, planar, channels, lo, hi, out, tally);
  else
    write_exact(o, planar, channels, lo, hi, first_index, out, tally);
}

/* The first frame of the call, clamped to [lo, hi], whose position is at
 * least index (positions are first_index + frame x channels). */
static int64_t frame_from(uint64_t index, uint64_t first_index, int32_t channels, int64_t lo,
                          int64_t hi) {
  if (index <= first_index) return lo;
  const uint64_t d = index - first_index, ch = (uint64_t)channels;
  const uint64_t f = d / ch + (d % ch != 0);
  if (f <= (uint64_t)lo) return lo;
  return f >= (uint64_t)hi ? hi : (int64_t)f;
}

/* Integer frames [lo, hi) of the call; out is the call's out[0]. Frames
 * outside the spec's counted positions are written without being tallied. */
static void write_range(const output_spec *o, const float *const *planar, int32_t channels,
                        int64_t lo, int64_t hi, uint64_t first_index, void *out,
                        output_tally *tally) {
  const int64_t a = frame_from(o->count_lo, first_index, channels, lo, hi);
  const int64_t b = frame_from(o->count_hi, first_index, channels, a, hi);
  output_tally outside = {0, 0.0};
  write_span(o, planar, channels, lo, a, first_index, out, &outside);
  write_span(o, planar, channels, a, b, first_index, out, tally);
  write_span(o, planar, channels, b, hi, first_index, out, &outside);
}

void output_write(const output_spec *o, const float *const *planar, int32_t channels,
                  int64_t frames, uint64_t first_index, void *out, output_tally *tally) {
  if (o->fmt == CONVOY_FORMAT_F32) {
    interleave_frames(planar, channels, frames, out);
    return;
  }
  write_range(o, planar, channels, 0, frames, first_index, out, tally);
}

typedef struct write_job {
  const output_spec *o;
  const float *const *planar;
  int32_t channels;
  int64_t frames;
  int64_t tasks;
  uint64_t first_index;
  void *out;
  output_tally tallies[OUTPUT_WRITE_MAX_TASKS];
} write_job;

static void write_task(void *ctx, int64_t t) {
  write_job *j = ctx;
  write_range(j->o, j->planar, j->channels,
              pool_task_start(j->frames, j->tasks, t, TASK_ALIGN_FRAMES),
              pool_task_start(j->frames, j->tasks, t + 1, TASK_ALIGN_FRAMES), j->first_index,
              j->out, &j->tallies[t]);
}

void output_write_parallel(const output_spec *o, worker_pool *pool, const float *const *planar,
                           int32_t channels, int64_t frames, uint64_t first_index, void *out,
                           output_tally *tally) {
  const int64_t values = frames * channels;
  const int threads = pool_threads(pool);
  if (o->fmt == CONVOY_FORMAT_F32 || threads < 2 || values < PARALLEL_MIN_VALUES) {
    output_write(o, planar, channels, frames, first_index, out, tally);
    return;
  }
  write_job j = {.o = o,
                 .planar = planar,
                 .channels = channels,
                 .frames = frames,
                 .tasks = pool_split_tasks(pool, values, TASKS_PER_THREAD, MIN_TASK_VALUES,
                                           OUTPUT_WRITE_MAX_TASKS),
                 .first_index = first_index,
                 .out = out};
  if (j.tasks > frames / TASK_ALIGN_FRAMES) j.tasks = frames / TASK_ALIGN_FRAMES;
  if (j.tasks < 2) {
    output_write(o, planar, channels, frames, first_index, out, tally);
    return;
  }
  pool_run(pool, j.tasks, write_task, &j);
  /* A sum and a maximum: the same whatever the order of the tasks. */
  for (int64_t t = 0; t < j.tasks; t++) {
    tally->clipped += j.tallies[t].clipped;
    if (j.tallies[t].peak > tally->peak) tally->peak = j.tallies[t].peak;
  }
}
