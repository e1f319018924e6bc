"""The C declarations the package calls, for cffi's ABI mode.

Copied from include/convoy.h, convoy_taps.h, convoy_pulse.h and
convoy_cuda.h (only what the package uses). ABI mode lays the structs out
from these declarations, so they must match the headers field for field;
tests/python/test_convoy.py compares every struct's size and offsets with
what the C compiler gives for the real headers.
"""

CDEFS = r"""
typedef enum convoy_status {
  CONVOY_OK = 0,
  CONVOY_ERR_INVALID_ARGUMENT = 1,
  CONVOY_ERR_OUT_OF_MEMORY = 2,
  CONVOY_ERR_UNSUPPORTED = 3,
  CONVOY_ERR_NO_DEVICE = 4,
  CONVOY_ERR_STATE = 5,
  CONVOY_ERR_BACKEND = 6,
  CONVOY_ERR_IO = 7,
  CONVOY_ERR_FORMAT = 8,
  CONVOY_ERR_INTERNAL = 9
} convoy_status;

const char *convoy_strerror(convoy_status status);
const char *convoy_last_error(void);
const char *convoy_version(void);

typedef enum convoy_engine {
  CONVOY_ENGINE_AUTO = 0,
  CONVOY_ENGINE_CPU = 1,
  CONVOY_ENGINE_CPU_DIRECT = 2,
  CONVOY_ENGINE_CPU_FFT = 3,
  CONVOY_ENGINE_GPU = 4,
  CONVOY_ENGINE_GPU_DIRECT = 5,
  CONVOY_ENGINE_GPU_FFT = 6
} convoy_engine;

typedef enum convoy_family {
  CONVOY_FAMILY_ANY = 0,
  CONVOY_FAMILY_CPU = 1,
  CONVOY_FAMILY_GPU = 2
} convoy_family;

int32_t convoy_engine_count(void);
convoy_engine convoy_engine_at(int32_t index);
convoy_family convoy_engine_family(convoy_engine engine);
const char *convoy_engine_name(convoy_engine engine);
convoy_status convoy_engine_from_name(const char *name, convoy_engine *engine);
int convoy_engine_available(convoy_engine engine);
int convoy_cpu_threads(void);
int convoy_gpu_count(void);
int convoy_built_with_cuda(void);

typedef enum convoy_sample_type {
  CONVOY_SAMPLE_F32 = 0,
  CONVOY_SAMPLE_CF32 = 1
} convoy_sample_type;

typedef struct convoy_filter convoy_filter;
convoy_status convoy_filter_create_typed(convoy_filter **filter, convoy_sample_type type,
                                         const void *taps, int64_t n_taps);
void convoy_filter_destroy(convoy_filter *filter);

typedef enum convoy_sample_format {
  CONVOY_FORMAT_F32 = 0,
  CONVOY_FORMAT_S16 = 1,
  CONVOY_FORMAT_S32 = 2,
  CONVOY_FORMAT_S8 = 3,
  CONVOY_FORMAT_U8 = 4
} convoy_sample_format;

typedef struct convoy_stream_config {
  int32_t channels;
  convoy_engine engine;
  convoy_sample_type sample;
  int32_t threads;
  int64_t fft_size;
  int32_t plan_effort;
  int32_t device;
  int32_t gpu_streams;
  int64_t chunk_frames;
  convoy_sample_format output_format;
  int32_t output_bits;
  int32_t dither;
  uint64_t dither_seed;
  int32_t decimation;
  double shift;
  int32_t decimation_phase;
  int64_t first_sample;
} convoy_stream_config;

void convoy_stream_config_init(convoy_stream_config *config);

typedef struct convoy_stream convoy_stream;
convoy_status convoy_stream_create(convoy_stream **stream, const convoy_stream_config *config,
                                   convoy_filter *const *filters, int32_t n_filters);
void convoy_stream_destroy(convoy_stream *stream);
convoy_status convoy_stream_process(convoy_stream *stream, const float *in, int64_t in_frames,
                                    float *out, int64_t out_capacity, int64_t *out_frames);
int64_t convoy_stream_max_output(const convoy_stream *stream, int64_t in_frames);
convoy_status convoy_stream_flush(convoy_stream *stream, float *out, int64_t out_capacity,
                                  int64_t *out_frames);
int64_t convoy_stream_flush_frames(const convoy_stream *stream);
convoy_status convoy_stream_reset(convoy_stream *stream);
int64_t convoy_stream_latency(const convoy_stream *stream);
int64_t convoy_stream_taps(const convoy_stream *stream);
int32_t convoy_stream_channels(const convoy_stream *stream);
convoy_engine convoy_stream_engine(const convoy_stream *stream);
convoy_status convoy_stream_describe(const convoy_stream *stream, char *buf, size_t buf_size);
const char *convoy_stream_last_error(const convoy_stream *stream);

/* convoy_taps.h */
typedef struct convoy_taps {
  int32_t channels;
  int64_t length;
  float *data;
  double rate;
  int32_t is_complex;
} convoy_taps;

typedef enum convoy_taps_format {
  CONVOY_TAPS_AUTO = 0,
  CONVOY_TAPS_TEXT = 1,
  CONVOY_TAPS_NPY = 2,
  CONVOY_TAPS_RAW_F32 = 3,
  CONVOY_TAPS_AUDIO = 4
} convoy_taps_format;

convoy_status convoy_taps_load(const char *path, convoy_taps_format format, convoy_taps *taps,
                               char *err, size_t err_size);
void convoy_taps_free(convoy_taps *taps);

typedef enum convoy_design_type {
  CONVOY_DESIGN_LOWPASS = 0,
  CONVOY_DESIGN_HIGHPASS = 1,
  CONVOY_DESIGN_BANDPASS = 2,
  CONVOY_DESIGN_BANDSTOP = 3
} convoy_design_type;

typedef struct convoy_design {
  convoy_design_type type;
  double rate;
  double cutoff;
  double low;
  double high;
  double width;
  double atten;
  int64_t taps;
} convoy_design;

convoy_status convoy_design_parse(const char *spec, double rate, convoy_design *design,
                                  char *err, size_t err_size);
convoy_status convoy_design_taps(const convoy_design *design, convoy_taps *taps, char *err,
                                 size_t err_size);

/* convoy_pulse.h */
typedef enum convoy_pulse_mode {
  CONVOY_PULSE_FULL = 0,
  CONVOY_PULSE_SAME = 1,
  CONVOY_PULSE_VALID = 2
} convoy_pulse_mode;

typedef enum convoy_pulse_window {
  CONVOY_WINDOW_NONE = 0,
  CONVOY_WINDOW_HAMMING = 1,
  CONVOY_WINDOW_HANN = 2,
  CONVOY_WINDOW_KAISER = 3
} convoy_pulse_window;

typedef enum convoy_pulse_layout {
  CONVOY_PULSE_CONTIGUOUS = 0,
  CONVOY_PULSE_INTERLEAVED = 1
} convoy_pulse_layout;

typedef struct convoy_pulse_config {
  int32_t channels;
  int32_t pulses;
  int64_t pulse_len;
  const float *waveform;
  int64_t template_len;
  convoy_pulse_mode mode;
  convoy_pulse_window window;
  double kaiser_beta;
  int32_t normalize;
  convoy_pulse_layout layout;
  convoy_engine engine;
  int32_t device;
  int32_t threads;
  int32_t plan_effort;
} convoy_pulse_config;

void convoy_pulse_config_init(convoy_pulse_config *config);
convoy_status convoy_pulse_window_from_name(const char *name, convoy_pulse_window *window,
                                            double *beta);
typedef struct convoy_pulse convoy_pulse;
convoy_status convoy_pulse_create(convoy_pulse **pulse, const convoy_pulse_config *config);
void convoy_pulse_destroy(convoy_pulse *pulse);
int64_t convoy_pulse_output_len(const convoy_pulse *pulse);
int64_t convoy_pulse_input_samples(const convoy_pulse *pulse);
int64_t convoy_pulse_output_samples(const convoy_pulse *pulse);
convoy_engine convoy_pulse_engine(const convoy_pulse *pulse);
convoy_status convoy_pulse_run(convoy_pulse *pulse, const float *in, float *out);
convoy_status convoy_pulse_run_device(convoy_pulse *pulse, const void *d_in, void *d_out,
                                      void *cuda_stream);
convoy_status convoy_pulse_describe(const convoy_pulse *pulse, char *buf, size_t buf_size);
const char *convoy_pulse_last_error(const convoy_pulse *pulse);

/* convoy_cuda.h: exported by CUDA builds only (cffi resolves a function when
   it is first used, so a CPU-only library loads; convoy_built_with_cuda()
   says which). cudaStream_t is a pointer. */
typedef void *cudaStream_t;

typedef struct convoy_cuda_config {
  int32_t channels;
  convoy_engine engine;
  int32_t device;
  int64_t max_frames;
  int64_t fft_size;
  int32_t plan_effort;
  convoy_sample_type sample;
} convoy_cuda_config;

void convoy_cuda_config_init(convoy_cuda_config *config);
typedef struct convoy_cuda_conv convoy_cuda_conv;
convoy_status convoy_cuda_conv_create(convoy_cuda_conv **conv, const convoy_cuda_config *config,
                                      convoy_filter *const *filters, int32_t n_filters);
convoy_status convoy_cuda_conv_process(convoy_cuda_conv *conv, convoy_sample_format fmt,
                                       const void *d_in, float *d_out, int64_t frames,
                                       cudaStream_t stream);
convoy_status convoy_cuda_conv_process_planar(convoy_cuda_conv *conv, const float *d_in,
                                              int64_t in_stride, float *d_out,
                                              int64_t out_stride, int64_t frames,
                                              cudaStream_t stream);
convoy_status convoy_cuda_conv_reset(convoy_cuda_conv *conv, cudaStream_t stream);
int64_t convoy_cuda_conv_granule(const convoy_cuda_conv *conv);
convoy_engine convoy_cuda_conv_engine(const convoy_cuda_conv *conv);
convoy_status convoy_cuda_conv_describe(const convoy_cuda_conv *conv, char *buf, size_t buf_size);
const char *convoy_cuda_conv_last_error(const convoy_cuda_conv *conv);
void convoy_cuda_conv_destroy(convoy_cuda_conv *conv);
"""

# The structs whose layout the tests check against the C headers.
STRUCTS = ("convoy_stream_config", "convoy_taps", "convoy_design", "convoy_pulse_config")
CUDA_STRUCTS = ("convoy_cuda_config",)
