/*
 * gpu_conv_fft_path.h - forcing the FFT engine's implementation, for the
 * benchmark and for running the kernel tests over every implementation
 * (internal, C boundary).
 *
 * The FFT engine (GPU_CONV_FFT in gpu_conv.h) has three implementations of
 * the same overlap-save, with the same results within float rounding and the
 * same call-splitting invariance:
 *   GPU_CONV_FFT_FUSED     one kernel per launch, a segment per thread block,
 *                          for FFT sizes 2^10 .. 2^15 (the default there);
 *   GPU_CONV_FFT_FOURSTEP  three kernels per batch of segments, a four-step
 *                          FFT of our own, for sizes 2^16 .. 2^22 (the
 *                          default there);
 *   GPU_CONV_FFT_CALLBACK  batched cuFFT with LTO callbacks for gather,
 *                          multiply and scatter (never the default);
 *   GPU_CONV_FFT_PLAIN     batched cuFFT with separate gather, multiply and
 *                          scatter kernels (the default above 2^22).
 * A forced implementation applies only where it can: the fused and
 * four-step ones fall back to the default outside their sizes, the callback
 * one to the plain one when cuFFT cannot link the callbacks
 * (gpu_conv_describe says so).
 *
 * Complex filters (gpu_conv_config.complex_taps) have only the fused kernel
 * (2^9 .. 2^14 complex points) and the plain path (cuFFT C2C): forcing
 * GPU_CONV_FFT_PLAIN applies to them, the other values leave their default.
 *
 * gpu_conv_fft_override() affects handles created after it, process-wide;
 * call it while no other thread creates handles. Until it is called, the
 * environment variable CONVOY_GPU_FFT_PATH (fused, fourstep, callback or
 * plain), read
 * at each create, forces the path.
 */
#ifndef CONVOY_GPU_CONV_FFT_PATH_H
#define CONVOY_GPU_CONV_FFT_PATH_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  GPU_CONV_FFT_CHOOSE = 0,
  GPU_CONV_FFT_FUSED = 1,
  GPU_CONV_FFT_CALLBACK = 2,
  GPU_CONV_FFT_PLAIN = 3,
  GPU_CONV_FFT_FOURSTEP = 4
};

/* path: one of the values above; fused_points: points per thread of the
 * fused kernel, 8 or 16 (0 = the default for the size). */
void gpu_conv_fft_override(int path, int fused_points);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_GPU_CONV_FFT_PATH_H */
