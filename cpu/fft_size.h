/*
 * fft_size.h - the cost model of the CPU overlap-save engine and its choice
 * of FFT size (internal).
 *
 * One block of an FFT of size n turns n input frames (taps_len - 1 of history
 * and n - taps_len + 1 new ones) into n - taps_len + 1 outputs with one real
 * forward transform, a pointwise complex multiply and one inverse transform.
 * The model estimates that block's time on one core, so the cost per output
 * is block_ns(n) / (n - taps_len + 1): small n wastes work on the overlap,
 * large n pays log2(n) per sample and falls out of cache. The functions
 * depend only on their arguments and on the L2 cache size (sysconf), and are
 * thread-safe.
 */
#ifndef CONVOY_FFT_SIZE_H
#define CONVOY_FFT_SIZE_H

#include <stdint.h>

/* Largest size the cost model picks on its own when the taps fit in half of
 * it: 2^22 frames, 16 MiB per real buffer. */
#define FFT_SIZE_CAP (INT64_C(1) << 22)

/* Largest size the engine plans at all (FFTW takes int sizes); longer filters
 * are not served by the FFT engine. */
#define FFT_SIZE_LIMIT (INT64_C(1) << 30)

/* Estimated nanoseconds for one block of size n >= 1 on one core: both
 * transforms, the multiply and the copies in and out. plan_effort as in
 * engine_request (0 FFTW_ESTIMATE, 1 FFTW_MEASURE plans). */
double fft_block_ns(int64_t n, int plan_effort);

/* Estimated nanoseconds per output frame per channel with size n and
 * taps_len taps, on the same scale as the direct engine's cost (it includes
 * the stream's interleaving). Negative when n < taps_len. */
double fft_output_ns(int64_t n, int64_t taps_len, int plan_effort);

/* 1 when n >= 1 is of the form 2^a 3^b 5^c. */
int fft_size_is_smooth(int64_t n);

/* The size the engine uses for taps_len taps when none is forced: the
 * cheapest size 2^a * {1, 5, 15, 25, 75} with a >= 3 (sizes FFTW plans
 * well) in [taps_len, upper] by fft_output_ns, where upper is FFT_SIZE_CAP,
 * lowered while n_spectra filter spectra of that size would pass 1 GiB, and
 * raised to 2 * taps_len where the taps need it (never past FFT_SIZE_LIMIT). n_spectra >= 1 is the
 * number of distinct filters. Returns 0 when taps_len < 1 or taps_len > FFT_SIZE_LIMIT. */
int64_t fft_choose_size(int64_t taps_len, int32_t n_spectra, int plan_effort);

/* The same three for a request with complex taps (engine_request.
 * complex_taps), per row: complex_share in [0, 1] is the fraction of rows
 * in pairs with complex taps. Such a pair's block runs complex transforms
 * of size n, charged as half a real block of size 2n per row, more past
 * 4096 points; rows of real pairs cost what real rows do. With
 * complex_share > 0 the choice takes sizes 2^a * {5, 15}, and powers of two
 * below 16384 (FFTW's estimated complex plans are slow at the rest), or the
 * whole family when none of those fits the filter. complex_share 0 gives
 * the functions above. */
double fft_block_ns_mixed(int64_t n, int plan_effort, double complex_share);
double fft_output_ns_mixed(int64_t n, int64_t taps_len, int plan_effort, double complex_share);
int64_t fft_choose_size_mixed(int64_t taps_len, int32_t n_spectra, int plan_effort,
                              double complex_share);

/* Decimating blocks (engine_request.decimation factor D >= 2): with D
 * dividing n, a block folds its product spectrum to n / D bins and runs the
 * inverse transform at size n / D (fft_ols.c), so the model charges one
 * forward transform of size n, one inverse of size n / D and the fold
 * (FOLD_NS_PER_FRAME per frame of n); the block keeps fft_decimated_block()
 * full-rate outputs, every D-th of which is computed, and the stream
 * interleaves only those. */

/* Full-rate outputs per decimating block: n - taps_len + 1 rounded down to a
 * multiple of factor, so that every block starts on the decimation grid; 0
 * when that is below factor or factor does not divide n. */
int64_t fft_decimated_block(int64_t n, int64_t taps_len, int64_t factor);

/* Estimated nanoseconds for one decimating block of size n (factor divides
 * n), as fft_block_ns_mixed. */
double fft_block_ns_decimated(int64_t n, int64_t factor, int plan_effort, double complex_share);

/* Estimated nanoseconds per full-rate output frame per channel of a
 * decimating run (kept frames cost factor times this), on the scale of
 * fft_output_ns; negative when fft_decimated_block() is 0. */
double fft_output_ns_decimated(int64_t n, int64_t taps_len, int64_t factor, int plan_effort,
                               double complex_share);

/* fft_choose_size_mixed for a decimating run: the cheapest size by
 * fft_output_ns_decimated among the family sizes that factor divides and
 * factor times each family size, under the same bounds. factor 1 gives
 * fft_choose_size_mixed. Returns 0 when no size fits. */
int64_t fft_choose_size_decimated(int64_t taps_len, int32_t n_spectra, int plan_effort,
                                  double complex_share, int64_t factor);

#endif /* CONVOY_FFT_SIZE_H */
