/*
 * test_api.c - the public API's contract: lifecycle, argument checking with
 * the right status and a message, state rules, filter reference counting,
 * engine names and availability, group delay, describe.
 */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Checks a failed call: the expected status and a message naming `word`. */
#define CHECK_FAIL(call, want, msg_fn, word)                                                       \
  do {                                                                                             \
    convoy_status st_ = (call);                                                                    \
    const char *m_ = (msg_fn);                                                                     \
    TS_CHECK(st_ == (want), "%s -> %s, want %s", #call, convoy_strerror(st_),                      \
             convoy_strerror(want));                                                               \
    TS_CHECK(m_ &&strstr(m_, (word)) != NULL, "%s: message '%s' lacks '%s'", #call,                \
             m_ ? m_ : "(null)", (word));                                                          \
  } while (0)

static convoy_filter *make_filter(const float *taps, int64_t n) {
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, taps, n));
  return f;
}

static convoy_stream *make_stream(convoy_engine engine, int32_t channels, convoy_filter *f) {
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.engine = engine;
  cfg.channels = channels;
  convoy_stream *s = NULL;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  return s;
}

static void test_status_and_version(void) {
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", CONVOY_VERSION_MAJOR, CONVOY_VERSION_MINOR,
           CONVOY_VERSION_PATCH);
  TS_CHECK(strcmp(convoy_version(), want) == 0, "version '%s', header says '%s'", convoy_version(),
           want);
  for (int a = CONVOY_OK; a <= CONVOY_ERR_INTERNAL; a++) {
    const char *sa = convoy_strerror((convoy_status)a);
    TS_CHECK(sa && sa[0], "strerror(%d) empty", a);
    for (int b = CONVOY_OK; b < a; b++)
      TS_CHECK(strcmp(sa, convoy_strerror((convoy_status)b)) != 0, "strerror(%d) == strerror(%d)",
               a, b);
  }
  const char *unknown = convoy_strerror((convoy_status)1234);
  TS_CHECK(unknown && unknown[0], "strerror(1234) empty");
  TS_CHECK(convoy_last_error() != NULL, "last_error NULL");
}

static void test_filter_create(void) {
  float taps[4] = {0.5f, -1.0f, 0.25f, 2.0f};
  convoy_filter *f = make_filter(taps, 4);
  taps[0] = 99.0f; /* the filter holds a copy */
  TS_CHECK(convoy_filter_length(f) == 4, "length %lld", (long long)convoy_filter_length(f));
  const float *t = convoy_filter_taps(f);
  TS_CHECK(t && t[0] == 0.5f && t[1] == -1.0f && t[3] == 2.0f, "taps not copied at create");
  convoy_filter_destroy(f);
  convoy_filter_destroy(NULL);
  TS_CHECK(convoy_filter_length(NULL) == 0 && convoy_filter_taps(NULL) == NULL, "NULL queries");

  convoy_filter *g = (convoy_filter *)&g; /* must be reset to NULL on failure */
  CHECK_FAIL(convoy_filter_create(NULL, taps, 4), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "filter");
  CHECK_FAIL(convoy_filter_create(&g, NULL, 4), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "taps is NULL");
  TS_CHECK(g == NULL, "*filter not NULL after a failed create");
  CHECK_FAIL(convoy_filter_create(&g, taps, 0), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "n_taps 0");
  CHECK_FAIL(convoy_filter_create(&g, taps, -3), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "n_taps -3");
  CHECK_FAIL(convoy_filter_create(&g, taps, ((int64_t)1 << 31) + 1), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "n_taps 2147483649");
  float bad[3] = {1.0f, NAN, 2.0f};
  CHECK_FAIL(convoy_filter_create(&g, bad, 3), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "tap 1 is NaN");
  bad[1] = 0.0f;
  bad[2] = -INFINITY;
  CHECK_FAIL(convoy_filter_create(&g, bad, 3), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "tap 2 is infinite");
  CHECK_FAIL(convoy_filter_create_typed(&g, (convoy_sample_type)7, taps, 2),
             CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(), "sample type");
  TS_CHECK(g == NULL, "*filter not NULL after a failed create");
  TS_CHECK_OK(convoy_filter_create_typed(&g, CONVOY_SAMPLE_F32, taps, 1));
  TS_CHECK(convoy_filter_length(g) == 1, "typed create length");
  convoy_filter_destroy(g);
}

static void check_delay(const float *taps, int64_t n, double want, int want_linear,
                        const char *what) {
  convoy_filter *f = make_filter(taps, n);
  int linear = -1;
  double d = convoy_filter_group_delay(f, &linear);
  TS_CHECK(d == want && linear == want_linear, "%s: delay %g linear %d, want %g linear %d", what, d,
           linear, want, want_linear);
  TS_CHECK(convoy_filter_group_delay(f, NULL) == want, "%s: NULL linear_phase", what);
  convoy_filter_destroy(f);
}

static void test_group_delay(void) {
  const float one[1] = {0.7f};
  check_delay(one, 1, 0.0, 1, "single tap");
  const float sym_odd[5] = {0.1f, 0.5f, 1.0f, 0.5f, 0.1f};
  check_delay(sym_odd, 5, 2.0, 1, "symmetric odd");
  const float sym_even[4] = {0.2f, 0.9f, 0.9f, 0.2f};
  check_delay(sym_even, 4, 1.5, 1, "symmetric even");
  const float anti_odd[5] = {0.3f, -0.8f, 0.0f, 0.8f, -0.3f};
  check_delay(anti_odd, 5, 2.0, 1, "antisymmetric odd");
  const float anti_even[6] = {-0.1f, 0.4f, 1.0f, -1.0f, -0.4f, 0.1f};
  check_delay(anti_even, 6, 2.5, 1, "antisymmetric even");
  const float min_phase[4] = {1.0f, 0.5f, 0.25f, 0.125f};
  check_delay(min_phase, 4, 0.0, 0, "decaying");
  const float peak_late[5] = {0.1f, 0.2f, 0.3f, -1.5f, 0.2f};
  check_delay(peak_late, 5, 3.0, 0, "peak at 3");
  const float nearly[5] = {0.1f, 0.5f, 1.0f, 0.5f, 0.11f};
  check_delay(nearly, 5, 2.0, 0, "visible asymmetry");

  /* A windowed sinc computed in double and rounded to float per tap: each
   * pair rounds the same value, plus one tap nudged by one ulp. */
  enum { N = 101 };
  float sinc[N];
  for (int i = 0; i < N; i++) {
    double t = i - (N - 1) / 2.0;
    double w = 0.54 - 0.46 * cos(2.0 * 3.14159265358979 * i / (N - 1));
    sinc[i] = (float)(t == 0.0 ? 0.25 : sin(0.25 * 3.14159265358979 * t) / (3.14159265358979 * t));
    sinc[i] *= (float)w;
  }
  sinc[10] = nextafterf(sinc[10], 1.0f);
  check_delay(sinc, N, 50.0, 1, "designed sinc, one ulp off");
  TS_CHECK(convoy_filter_group_delay(NULL, NULL) == 0.0, "NULL filter");
}

/* The list as include/convoy.h documents it: every id once, names that parse
 * back, each family's choice first, and what a GPU request falls back to. */
static void test_engine_list(void) {
  static const struct {
    convoy_engine id;
    const char *name;
    convoy_family family;
    int exact;
    convoy_engine cpu_fallback;
  } want[] = {
      {CONVOY_ENGINE_AUTO, "auto", CONVOY_FAMILY_ANY, 0, CONVOY_ENGINE_AUTO},
      {CONVOY_ENGINE_CPU, "cpu", CONVOY_FAMILY_CPU, 0, CONVOY_ENGINE_CPU},
      {CONVOY_ENGINE_CPU_DIRECT, "cpu-direct", CONVOY_FAMILY_CPU, 1, CONVOY_ENGINE_CPU_DIRECT},
      {CONVOY_ENGINE_CPU_FFT, "cpu-fft", CONVOY_FAMILY_CPU, 1, CONVOY_ENGINE_CPU_FFT},
      {CONVOY_ENGINE_GPU, "gpu", CONVOY_FAMILY_GPU, 0, CONVOY_ENGINE_CPU},
      {CONVOY_ENGINE_GPU_DIRECT, "gpu-direct", CONVOY_FAMILY_GPU, 1, CONVOY_ENGINE_CPU_DIRECT},
      {CONVOY_ENGINE_GPU_FFT, "gpu-fft", CONVOY_FAMILY_GPU, 1, CONVOY_ENGINE_CPU_FFT},
  };
  const int32_t n = (int32_t)(sizeof want / sizeof want[0]);
  TS_CHECK(convoy_engine_count() == n, "%d engines listed, want %d", (int)convoy_engine_count(),
           (int)n);
  for (int32_t i = 0; i < convoy_engine_count() && i < n; i++) {
    const convoy_engine e = convoy_engine_at(i);
    TS_CHECK(e == want[i].id, "engine %d is id %d, want %d", (int)i, (int)e, (int)want[i].id);
    const char *name = convoy_engine_name(e);
    TS_CHECK(strcmp(name, want[i].name) == 0, "id %d named '%s', want '%s'", (int)e, name,
             want[i].name);
    convoy_engine back = (convoy_engine)-1;
    TS_CHECK_OK(convoy_engine_from_name(name, &back));
    TS_CHECK(back == e, "'%s' parsed back to %d, want %d", name, (int)back, (int)e);
    TS_CHECK(convoy_engine_family(e) == want[i].family, "%s: family %d", name,
             (int)convoy_engine_family(e));
    TS_CHECK(convoy_engine_is_exact(e) == want[i].exact, "%s: exact %d", name,
             convoy_engine_is_exact(e));
    TS_CHECK(convoy_engine_cpu_fallback(e) == want[i].cpu_fallback, "%s falls back to %s", name,
             convoy_engine_name(convoy_engine_cpu_fallback(e)));
    if (!want[i].exact)
      TS_CHECK(convoy_family_choice(want[i].family) == e, "%s is not its family's choice", name);
    for (int32_t j = 0; j < i; j++) TS_CHECK(convoy_engine_at(j) != e, "%s listed twice", name);
  }
  TS_CHECK(convoy_engine_at(-1) == CONVOY_ENGINE_AUTO && convoy_engine_at(n) == CONVOY_ENGINE_AUTO,
           "out-of-range index");
  TS_CHECK(convoy_engine_family((convoy_engine)77) == CONVOY_FAMILY_ANY &&
               !convoy_engine_is_exact((convoy_engine)77) &&
               convoy_engine_cpu_fallback((convoy_engine)77) == (convoy_engine)77,
           "unknown id");
  TS_CHECK(strcmp(convoy_engine_name((convoy_engine)77), "unknown") == 0, "unknown id's name");
  /* The parse error lists every name from the same list. */
  convoy_engine e;
  TS_CHECK(convoy_engine_from_name("fastest", &e) == CONVOY_ERR_INVALID_ARGUMENT, "fastest parsed");
  for (int32_t i = 0; i < n; i++)
    TS_CHECK(strstr(convoy_last_error(), want[i].name) != NULL, "'%s' does not list %s",
             convoy_last_error(), want[i].name);
}

static void test_engines(void) {
  TS_CHECK(strcmp(convoy_engine_name(CONVOY_ENGINE_CPU_FFT), "cpu-fft") == 0, "cpu-fft name");
  TS_CHECK(convoy_engine_name((convoy_engine)77) != NULL, "unknown id name NULL");
  convoy_engine e;
  CHECK_FAIL(convoy_engine_from_name("fastest", &e), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "fastest");
  CHECK_FAIL(convoy_engine_from_name(NULL, &e), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "NULL");
  CHECK_FAIL(convoy_engine_from_name("cpu", NULL), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "NULL");

  TS_CHECK(convoy_engine_available(CONVOY_ENGINE_CPU_DIRECT), "cpu-direct unavailable");
  TS_CHECK(convoy_engine_available(CONVOY_ENGINE_CPU), "cpu family unavailable");
  TS_CHECK(convoy_engine_available(CONVOY_ENGINE_AUTO), "auto unavailable");
  TS_CHECK(!convoy_engine_available((convoy_engine)77), "unknown id available");
  TS_CHECK(convoy_engine_available(CONVOY_ENGINE_GPU) ==
               (convoy_engine_available(CONVOY_ENGINE_GPU_DIRECT) ||
                convoy_engine_available(CONVOY_ENGINE_GPU_FFT)),
           "gpu family availability disagrees with its members");
  TS_CHECK(convoy_cpu_threads() >= 1, "cpu threads %d", convoy_cpu_threads());

  /* Every unavailable engine is refused at create with a message naming it. */
  const float taps[3] = {1.0f, 2.0f, 3.0f};
  convoy_filter *f = make_filter(taps, 3);
  for (int32_t i = 0; i < convoy_engine_count(); i++) {
    const convoy_engine id = convoy_engine_at(i);
    convoy_stream_config cfg;
    convoy_stream_config_init(&cfg);
    cfg.engine = (convoy_engine)id;
    convoy_stream *s = NULL;
    convoy_status st = convoy_stream_create(&s, &cfg, &f, 1);
    if (convoy_engine_available((convoy_engine)id)) {
      TS_CHECK(st == CONVOY_OK, "%s available but create -> %s (%s)",
               convoy_engine_name((convoy_engine)id), convoy_strerror(st), convoy_last_error());
      if (s) {
        convoy_engine got = convoy_stream_engine(s);
        TS_CHECK(convoy_engine_is_exact(got), "stream engine %s is not an exact engine",
                 convoy_engine_name(got));
        if (convoy_engine_family(id) != CONVOY_FAMILY_ANY)
          TS_CHECK(convoy_engine_family(got) == convoy_engine_family(id), "%s resolved to %s",
                   convoy_engine_name(id), convoy_engine_name(got));
        if (convoy_engine_is_exact(id))
          TS_CHECK(got == (convoy_engine)id, "asked %s got %s",
                   convoy_engine_name((convoy_engine)id), convoy_engine_name(got));
      }
    } else {
      TS_CHECK(st == CONVOY_ERR_UNSUPPORTED || st == CONVOY_ERR_NO_DEVICE, "unavailable %s -> %s",
               convoy_engine_name((convoy_engine)id), convoy_strerror(st));
      TS_CHECK(strstr(convoy_last_error(), convoy_engine_name((convoy_engine)id)) != NULL,
               "message '%s' does not name %s", convoy_last_error(),
               convoy_engine_name((convoy_engine)id));
      TS_CHECK(s == NULL, "stream set on failure");
    }
    convoy_stream_destroy(s);
  }
  convoy_filter_destroy(f);
}

static void test_stream_create_args(void) {
  const float taps[5] = {1, 2, 3, 4, 5};
  convoy_filter *f = make_filter(taps, 5);
  convoy_filter *fs[3] = {f, NULL, f};
  convoy_stream_config def;
  convoy_stream_config_init(&def);
  TS_CHECK(def.channels == 1 && def.engine == CONVOY_ENGINE_AUTO && def.threads == 0 &&
               def.fft_size == 0 && def.device == -1 && def.sample == CONVOY_SAMPLE_F32,
           "config defaults");
  convoy_stream_config_init(NULL);

  convoy_stream *s = NULL;
  TS_CHECK_OK(convoy_stream_create(&s, NULL, &f, 1));
  TS_CHECK(convoy_stream_channels(s) == 1 && convoy_stream_taps(s) == 5, "NULL config defaults");
  TS_CHECK(convoy_stream_latency(s) >= 0, "latency %lld", (long long)convoy_stream_latency(s));
  convoy_stream_destroy(s);
  convoy_stream_destroy(NULL);

  convoy_stream_config c;
#define CREATE_FAIL(field, value, want, word)                                                      \
  do {                                                                                             \
    c = def;                                                                                       \
    c.field = value;                                                                               \
    s = (convoy_stream *)&s;                                                                       \
    CHECK_FAIL(convoy_stream_create(&s, &c, &f, 1), want, convoy_last_error(), word);              \
    TS_CHECK(s == NULL, "stream not NULL after failed create (%s)", #field);                       \
  } while (0)
  CREATE_FAIL(channels, 0, CONVOY_ERR_INVALID_ARGUMENT, "channels 0");
  CREATE_FAIL(channels, CONVOY_MAX_CHANNELS + 1, CONVOY_ERR_INVALID_ARGUMENT, "channels 1025");
  CREATE_FAIL(engine, (convoy_engine)42, CONVOY_ERR_INVALID_ARGUMENT, "engine id 42");
  CREATE_FAIL(sample, (convoy_sample_type)5, CONVOY_ERR_INVALID_ARGUMENT, "sample type");
  CREATE_FAIL(threads, -1, CONVOY_ERR_INVALID_ARGUMENT, "threads -1");
  CREATE_FAIL(fft_size, -8, CONVOY_ERR_INVALID_ARGUMENT, "fft_size -8");
  CREATE_FAIL(fft_size, 4, CONVOY_ERR_INVALID_ARGUMENT, "fft_size 4 is shorter");
  CREATE_FAIL(plan_effort, 2, CONVOY_ERR_INVALID_ARGUMENT, "plan_effort 2");
  CREATE_FAIL(device, -2, CONVOY_ERR_INVALID_ARGUMENT, "device -2");
  CREATE_FAIL(gpu_streams, -1, CONVOY_ERR_INVALID_ARGUMENT, "gpu_streams -1");
  CREATE_FAIL(chunk_frames, -1, CONVOY_ERR_INVALID_ARGUMENT, "chunk_frames -1");
#undef CREATE_FAIL

  CHECK_FAIL(convoy_stream_create(NULL, &def, &f, 1), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "stream is NULL");
  CHECK_FAIL(convoy_stream_create(&s, &def, NULL, 1), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "filters is NULL");
  CHECK_FAIL(convoy_stream_create(&s, &def, &f, 0), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "n_filters 0");
  c = def;
  c.channels = 3;
  CHECK_FAIL(convoy_stream_create(&s, &c, fs, 2), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "n_filters 2");
  CHECK_FAIL(convoy_stream_create(&s, &c, fs, 3), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "filters[1] is NULL");
  fs[1] = f;
  TS_CHECK_OK(convoy_stream_create(&s, &c, fs, 3));
  TS_CHECK(convoy_stream_channels(s) == 3, "channels %d", convoy_stream_channels(s));
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
}

static void test_process_args(void) {
  const float taps[4] = {0.25f, 0.5f, 0.125f, 1.0f};
  convoy_filter *f = make_filter(taps, 4);
  convoy_stream *s = make_stream(CONVOY_ENGINE_CPU_DIRECT, 2, f);
  if (!s) {
    convoy_filter_destroy(f);
    return;
  }
  float in[64] = {0}, out[256];
  int64_t got = -1;

  CHECK_FAIL(convoy_stream_process(NULL, in, 4, out, 64, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "stream is NULL");
  CHECK_FAIL(convoy_stream_process(s, in, 4, out, 64, NULL), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "out_frames is NULL");
  CHECK_FAIL(convoy_stream_process(s, in, -1, out, 64, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "in_frames -1");
  CHECK_FAIL(convoy_stream_process(s, in, INT64_MAX, out, INT64_MAX, &got),
             CONVOY_ERR_INVALID_ARGUMENT, convoy_stream_last_error(s), "in_frames");
  CHECK_FAIL(convoy_stream_process(s, NULL, 4, out, 64, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "in is NULL");
  int64_t bound = convoy_stream_max_output(s, 16);
  TS_CHECK(bound >= 16 - convoy_stream_latency(s) && bound <= 16, "max_output(16) = %lld",
           (long long)bound);
  if (bound > 0) {
    CHECK_FAIL(convoy_stream_process(s, in, 16, out, bound - 1, &got), CONVOY_ERR_INVALID_ARGUMENT,
               convoy_stream_last_error(s), "out_capacity");
    TS_CHECK(got == 0, "out_frames %lld after a failure", (long long)got);
    CHECK_FAIL(convoy_stream_process(s, in, 16, NULL, bound, &got), CONVOY_ERR_INVALID_ARGUMENT,
               convoy_stream_last_error(s), "out is NULL");
  }
  CHECK_FAIL(convoy_stream_process(s, in, 16, out, -5, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "out_capacity -5");
  CHECK_FAIL(convoy_stream_process(s, in, 16, in, 64, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "overlap");
  CHECK_FAIL(convoy_stream_process(s, in, 16, in + 31, 64, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "overlap");
  /* Adjacent buffers do not overlap. */
  TS_CHECK_OK(convoy_stream_process(s, in, 16, in + 32, 16, &got));
  TS_CHECK(got == bound, "wrote %lld frames, max_output said %lld", (long long)got,
           (long long)bound);

  /* Zero frames: in and out may be NULL when nothing is due. */
  int64_t zero_bound = convoy_stream_max_output(s, 0);
  if (zero_bound == 0) {
    TS_CHECK_OK(convoy_stream_process(s, NULL, 0, NULL, 0, &got));
    TS_CHECK(got == 0, "zero-frame call wrote %lld", (long long)got);
  }
  TS_CHECK(convoy_stream_max_output(s, -1) == 0, "max_output(-1)");

  /* Flush: capacity, then the state rules. */
  int64_t tail = convoy_stream_flush_frames(s);
  TS_CHECK(tail >= 3, "flush_frames %lld < taps - 1", (long long)tail);
  CHECK_FAIL(convoy_stream_flush(NULL, out, 64, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "stream is NULL");
  CHECK_FAIL(convoy_stream_flush(s, out, 64, NULL), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "out_frames is NULL");
  CHECK_FAIL(convoy_stream_flush(s, out, tail - 1, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "out_capacity");
  CHECK_FAIL(convoy_stream_flush(s, NULL, tail, &got), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "out is NULL");
  TS_CHECK(convoy_stream_flush_frames(s) == tail, "failed flush changed flush_frames");
  TS_CHECK_OK(convoy_stream_flush(s, out, tail, &got));
  TS_CHECK(got == tail, "flush wrote %lld, want %lld", (long long)got, (long long)tail);
  CHECK_FAIL(convoy_stream_process(s, in, 4, out, 64, &got), CONVOY_ERR_STATE,
             convoy_stream_last_error(s), "reset");
  CHECK_FAIL(convoy_stream_flush(s, out, 64, &got), CONVOY_ERR_STATE, convoy_stream_last_error(s),
             "flushed");
  TS_CHECK(convoy_stream_max_output(s, 10) == 0 && convoy_stream_flush_frames(s) == 0,
           "flushed stream still promises output");
  TS_CHECK_OK(convoy_stream_reset(s));
  TS_CHECK(convoy_stream_flush_frames(s) == 3, "after reset flush_frames %lld",
           (long long)convoy_stream_flush_frames(s));
  CHECK_FAIL(convoy_stream_reset(NULL), CONVOY_ERR_INVALID_ARGUMENT, convoy_last_error(),
             "stream is NULL");

  /* describe */
  char line[256], tiny[8];
  CHECK_FAIL(convoy_stream_describe(s, NULL, 10), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "buf");
  CHECK_FAIL(convoy_stream_describe(s, line, 0), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_stream_last_error(s), "buf");
  CHECK_FAIL(convoy_stream_describe(NULL, line, sizeof line), CONVOY_ERR_INVALID_ARGUMENT,
             convoy_last_error(), "stream is NULL");
  TS_CHECK_OK(convoy_stream_describe(s, line, sizeof line));
  TS_CHECK(strstr(line, "cpu-direct") && strstr(line, "2 channels"), "describe: '%s'", line);
  memset(tiny, 'x', sizeof tiny);
  TS_CHECK_OK(convoy_stream_describe(s, tiny, sizeof tiny));
  TS_CHECK(memchr(tiny, '\0', sizeof tiny) != NULL, "describe into 8 bytes not terminated");
  TS_CHECK(strcmp(convoy_stream_last_error(NULL), "") == 0, "last_error(NULL)");
  TS_CHECK(convoy_stream_latency(NULL) == 0 && convoy_stream_channels(NULL) == 0 &&
               convoy_stream_taps(NULL) == 0 && convoy_stream_max_output(NULL, 5) == 0 &&
               convoy_stream_flush_frames(NULL) == 0,
           "NULL stream queries");
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
}

/* Impulse through a stream whose filter handle the caller already dropped:
 * the output must be the taps, so the taps are still alive. */
static void test_filter_lifetime(void) {
  const float taps[6] = {0.5f, -0.25f, 1.5f, 0.0f, 2.0f, -1.0f};
  convoy_filter *f = make_filter(taps, 6);
  convoy_stream *a = make_stream(CONVOY_ENGINE_CPU_DIRECT, 1, f);
  convoy_stream *b = make_stream(CONVOY_ENGINE_CPU_DIRECT, 1, f);
  convoy_filter_destroy(f);
  convoy_stream_destroy(a);
  if (!b) return;
  float x[4] = {1.0f, 0.0f, 0.0f, 0.0f}, y[16];
  int64_t n1 = 0, n2 = 0;
  TS_CHECK_OK(convoy_stream_process(b, x, 4, y, 16, &n1));
  TS_CHECK_OK(convoy_stream_flush(b, y + n1, 16 - n1, &n2));
  TS_CHECK(n1 + n2 == 9, "impulse output %lld frames", (long long)(n1 + n2));
  int same = n1 + n2 == 9;
  for (int i = 0; i < 6 && same; i++) same = y[i] == taps[i];
  TS_CHECK(same, "impulse response differs from the taps after the handle was destroyed");
  convoy_stream_destroy(b);
}

/* reset() returns a used stream to its just-created state. */
static void test_reset_restores(void) {
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_api reset"));
  float taps[33], x[500];
  ts_fill_uniform(&rng, taps, 33);
  ts_fill_uniform(&rng, x, 500);
  convoy_filter *f = make_filter(taps, 33);
  convoy_stream *s = make_stream(CONVOY_ENGINE_AUTO, 2, f);
  convoy_filter_destroy(f);
  if (!s) return;
  int64_t n_a = 0, n_b = 0, n_c = 0;
  float *a = ts_stream_run(s, x, 250, 0, NULL, &n_a);
  TS_CHECK_OK(convoy_stream_reset(s));
  float *b = ts_stream_run(s, x, 250, 17, &rng, &n_b);
  /* Reset in the middle of a run, without a flush, discards the history. */
  TS_CHECK_OK(convoy_stream_reset(s));
  float junk[2 * 300];
  int64_t got = 0;
  TS_CHECK_OK(convoy_stream_process(s, x + 100, 150, junk, 300, &got));
  TS_CHECK_OK(convoy_stream_reset(s));
  float *c = ts_stream_run(s, x, 250, 5, &rng, &n_c);
  TS_CHECK(a && b && c && n_a == 250 + 32 && n_b == n_a && n_c == n_a,
           "frames %lld %lld %lld, want 282", (long long)n_a, (long long)n_b, (long long)n_c);
  if (a && b && c && n_b == n_a && n_c == n_a) {
    TS_CHECK(memcmp(a, b, sizeof(float) * 2 * (size_t)n_a) == 0, "rerun after reset differs");
    TS_CHECK(memcmp(a, c, sizeof(float) * 2 * (size_t)n_a) == 0,
             "rerun after a mid-stream reset differs");
  }
  free(a);
  free(b);
  free(c);
  convoy_stream_destroy(s);
}

int main(void) {
  test_status_and_version();
  test_filter_create();
  test_group_delay();
  test_engine_list();
  test_engines();
  test_stream_create_args();
  test_process_args();
  test_filter_lifetime();
  test_reset_restores();
  return ts_finish();
}
