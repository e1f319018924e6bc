/* layout.c - prints the size of every struct the Python package declares
 * (python/convoy/_cdefs.py) and the offset of each field, as the C compiler
 * lays them out from the public headers ("NAME SIZE", "NAME.FIELD OFFSET"),
 * and the value of every enum constant it declares ("NAME VALUE").
 * tests/python/test_convoy.py compares them with cffi's, which ABI mode
 * computes from the package's own copy of the declarations. */
#include <convoy.h>
#include <convoy_pulse.h>
#include <convoy_taps.h>
#ifdef CONVOY_HAVE_CUDA
#include <convoy_cuda.h>
#endif

#include <stddef.h>
#include <stdio.h>

#define SIZE(s) printf("%s %zu\n", #s, sizeof(s))
#define FIELD(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(s, f))
#define CONST(c) printf("%s %lld\n", #c, (long long)(c))

int main(void) {
  SIZE(convoy_stream_config);
  FIELD(convoy_stream_config, channels);
  FIELD(convoy_stream_config, engine);
  FIELD(convoy_stream_config, sample);
  FIELD(convoy_stream_config, threads);
  FIELD(convoy_stream_config, fft_size);
  FIELD(convoy_stream_config, plan_effort);
  FIELD(convoy_stream_config, device);
  FIELD(convoy_stream_config, gpu_streams);
  FIELD(convoy_stream_config, chunk_frames);
  FIELD(convoy_stream_config, output_format);
  FIELD(convoy_stream_config, output_bits);
  FIELD(convoy_stream_config, dither);
  FIELD(convoy_stream_config, dither_seed);
  FIELD(convoy_stream_config, decimation);
  FIELD(convoy_stream_config, shift);
  FIELD(convoy_stream_config, decimation_phase);
  FIELD(convoy_stream_config, first_sample);

  SIZE(convoy_taps);
  FIELD(convoy_taps, channels);
  FIELD(convoy_taps, length);
  FIELD(convoy_taps, data);
  FIELD(convoy_taps, rate);
  FIELD(convoy_taps, is_complex);

  SIZE(convoy_design);
  FIELD(convoy_design, type);
  FIELD(convoy_design, rate);
  FIELD(convoy_design, cutoff);
  FIELD(convoy_design, low);
  FIELD(convoy_design, high);
  FIELD(convoy_design, width);
  FIELD(convoy_design, atten);
  FIELD(convoy_design, taps);

  SIZE(convoy_pulse_config);
  FIELD(convoy_pulse_config, channels);
  FIELD(convoy_pulse_config, pulses);
  FIELD(convoy_pulse_config, pulse_len);
  FIELD(convoy_pulse_config, waveform);
  FIELD(convoy_pulse_config, template_len);
  FIELD(convoy_pulse_config, mode);
  FIELD(convoy_pulse_config, window);
  FIELD(convoy_pulse_config, kaiser_beta);
  FIELD(convoy_pulse_config, normalize);
  FIELD(convoy_pulse_config, layout);
  FIELD(convoy_pulse_config, engine);
  FIELD(convoy_pulse_config, device);
  FIELD(convoy_pulse_config, threads);
  FIELD(convoy_pulse_config, plan_effort);

  CONST(CONVOY_OK);
  CONST(CONVOY_ERR_INVALID_ARGUMENT);
  CONST(CONVOY_ERR_OUT_OF_MEMORY);
  CONST(CONVOY_ERR_UNSUPPORTED);
  CONST(CONVOY_ERR_NO_DEVICE);
  CONST(CONVOY_ERR_STATE);
  CONST(CONVOY_ERR_BACKEND);
  CONST(CONVOY_ERR_IO);
  CONST(CONVOY_ERR_FORMAT);
  CONST(CONVOY_ERR_INTERNAL);
  CONST(CONVOY_ENGINE_AUTO);
  CONST(CONVOY_ENGINE_CPU);
  CONST(CONVOY_ENGINE_CPU_DIRECT);
  CONST(CONVOY_ENGINE_CPU_FFT);
  CONST(CONVOY_ENGINE_GPU);
  CONST(CONVOY_ENGINE_GPU_DIRECT);
  CONST(CONVOY_ENGINE_GPU_FFT);
  CONST(CONVOY_FAMILY_ANY);
  CONST(CONVOY_FAMILY_CPU);
  CONST(CONVOY_FAMILY_GPU);
  CONST(CONVOY_SAMPLE_F32);
  CONST(CONVOY_SAMPLE_CF32);
  CONST(CONVOY_FORMAT_F32);
  CONST(CONVOY_FORMAT_S16);
  CONST(CONVOY_FORMAT_S32);
  CONST(CONVOY_FORMAT_S8);
  CONST(CONVOY_FORMAT_U8);
  CONST(CONVOY_TAPS_AUTO);
  CONST(CONVOY_TAPS_TEXT);
  CONST(CONVOY_TAPS_NPY);
  CONST(CONVOY_TAPS_RAW_F32);
  CONST(CONVOY_TAPS_AUDIO);
  CONST(CONVOY_DESIGN_LOWPASS);
  CONST(CONVOY_DESIGN_HIGHPASS);
  CONST(CONVOY_DESIGN_BANDPASS);
  CONST(CONVOY_DESIGN_BANDSTOP);
  CONST(CONVOY_PULSE_FULL);
  CONST(CONVOY_PULSE_SAME);
  CONST(CONVOY_PULSE_VALID);
  CONST(CONVOY_WINDOW_NONE);
  CONST(CONVOY_WINDOW_HAMMING);
  CONST(CONVOY_WINDOW_HANN);
  CONST(CONVOY_WINDOW_KAISER);
  CONST(CONVOY_PULSE_CONTIGUOUS);
  CONST(CONVOY_PULSE_INTERLEAVED);

#ifdef CONVOY_HAVE_CUDA
  SIZE(convoy_cuda_config);
  FIELD(convoy_cuda_config, channels);
  FIELD(convoy_cuda_config, engine);
  FIELD(convoy_cuda_config, device);
  FIELD(convoy_cuda_config, max_frames);
  FIELD(convoy_cuda_config, fft_size);
  FIELD(convoy_cuda_config, plan_effort);
  FIELD(convoy_cuda_config, sample);
#endif
  return 0;
}
