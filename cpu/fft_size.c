/* fft_size.c - cost model and FFT size choice of the CPU overlap-save engine. */
#define _POSIX_C_SOURCE 200809L

#include "fft_size.h"

#include <math.h>
#include <stddef.h>
#include <unistd.h>

/*
 * The model of one block of size n, in nanoseconds on one core:
 *
 *   block_ns(n) = per_block + per_butterfly * n log2(n) * (1 + spill * s^2) * shape(n)
 *
 * where s = log2(working set / L2 size) once the working set (about 12n
 * bytes: the real buffer, the complex buffer and the spectrum) is larger
 * than the L2 cache, else 0; spill grows with s^2 because each level passed
 * (L2, then L3, then memory) costs more than the last.
 *
 * How the constants were measured (AMD EPYC Zen 5, 2 vCPUs, 1 MiB L2 per
 * core, gcc 12 -O3, FFTW 3.3.10 from Debian): a throwaway program created
 * this engine with a forced fft_size, 1 channel and 1 thread, and timed
 * run() over a work buffer of about 131072 frames reused (input in cache, as
 * the stream hands it over), best of three, per block. A least-squares fit
 * weighted by 1/time over the candidate sizes below, from 64 to 2^22 with
 * FFTW_ESTIMATE plans (to 2^21 with FFTW_MEASURE), gave the constants; the
 * residuals are 11 % rms (estimate) and 9 % (measure), within +-20 % for
 * nearly all sizes from 1024 up. A term linear in n (the copies and the
 * pointwise multiply) fitted to zero, so the n log n term carries it.
 *
 * shape(n), from a first sweep over every 2^a 3^b 5^c size:
 *  - Sizes with fewer than three factors of 2 ran 1.5x (a = 1, 2) to 3.5x
 *    (a = 0) slower than the formula; forced sizes are charged for it.
 *  - Sizes with another prime factor (forced only) are charged 2x.
 *  - Pure powers of two from 2^16 up ran slower than their neighbours:
 *    35 % with FFTW_ESTIMATE (a poor estimated plan), 10 % with
 *    FFTW_MEASURE.
 *
 * The result is on the same scale as the direct engine's cost (ns per
 * output frame per channel, one core, stream interleaving included). On the
 * machine above the models cross at about 100 taps (direct with AVX-512);
 * measured through the stream the engines cross between 64 and 128 taps.
 */
typedef struct model {
  double per_block, per_butterfly, spill, pow2_penalty;
} model;

static const model estimate_model = {62.3, 0.1695, 0.035, 0.35};
static const model measure_model = {66.3, 0.1340, 0.0325, 0.10};

/* Complex taps: a pair's block runs complex transforms of size n, which
 * move and compute what real ones of size 2n do, so its two rows cost one
 * block of size 2n (half a block each), times a growth past
 * COMPLEX_KNEE points: through the stream (1 complex channel, 1 thread,
 * FFTW_ESTIMATE, the machine of the model above, 64 to 4096 taps over the
 * candidate sizes) complex transforms ran slower from there on than the
 * real model at 2n says, about COMPLEX_GROWTH more per doubling, and the
 * best sizes were 4 to 16 times the taps. */
#define COMPLEX_KNEE 4096.0
#define COMPLEX_GROWTH 0.15

/* What the stream adds per output frame per channel ((de)interleaving),
 * counted as in the direct engine's cost. */
#define STREAM_NS_PER_OUTPUT 0.3
#define BYTES_PER_FRAME 12.0
#define DEFAULT_L2_BYTES 1048576.0
/* The size choice keeps the filter spectra under this many bytes when the
 * filter allows it. */
#define SPECTRA_BUDGET_BYTES 1073741824.0

static double l2_bytes(void) {
#ifdef _SC_LEVEL2_CACHE_SIZE
  long s = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (s >= 65536 && s <= (1L << 30)) return (double)s;
#endif
  return DEFAULT_L2_BYTES;
}

int fft_size_is_smooth(int64_t n) {
  if (n < 1) return 0;
  while (n % 2 == 0) n /= 2;
  while (n % 3 == 0) n /= 3;
  while (n % 5 == 0) n /= 5;
  return n == 1;
}

static double block_ns(int64_t n, int plan_effort, double l2) {
  const model *k = plan_effort >= 1 ? &measure_model : &estimate_model;
  if (n < 1) n = 1;
  double dn = (double)n;
  int64_t odd = n;
  int twos = 0;
  while (odd % 2 == 0) {
    odd /= 2;
    twos++;
  }
  double shape = twos >= 3 ? 1.0 : (twos == 0 ? 3.5 : 1.5);
  if (!fft_size_is_smooth(n)) shape *= 2.0;
  if (odd == 1 && n >= 65536) shape *= 1.0 + k->pow2_penalty;
  double ratio = BYTES_PER_FRAME * dn / l2;
  double s = ratio > 1.0 ? log2(ratio) : 0.0;
  double butterflies = dn * (n > 1 ? log2(dn) : 1.0);
  return k->per_block + k->per_butterfly * butterflies * (1.0 + k->spill * s * s) * shape;
}

/* Half a pair's block of complex transforms of size n (one row's share). */
static double complex_row_ns(int64_t n, int plan_effort, double l2) {
  const double over = (double)n > COMPLEX_KNEE ? log2((double)n / COMPLEX_KNEE) : 0.0;
  return 0.5 * block_ns(2 * n, plan_effort, l2) * (1.0 + COMPLEX_GROWTH * over);
}

static double mixed_block_ns(int64_t n, int plan_effort, double share, double l2) {
  return (1.0 - share) * block_ns(n, plan_effort, l2) + share * complex_row_ns(n, plan_effort, l2);
}

double fft_block_ns(int64_t n, int plan_effort) {
  return block_ns(n, plan_effort, l2_bytes());
}

double fft_block_ns_mixed(int64_t n, int plan_effort, double complex_share) {
  return mixed_block_ns(n, plan_effort, complex_share, l2_bytes());
}

static double output_ns(int64_t n, int64_t taps_len, int plan_effort, double share, double l2) {
  if (taps_len < 1 || n < taps_len) return -1.0;
  return mixed_block_ns(n, plan_effort, share, l2) / (double)(n - taps_len + 1) +
         STREAM_NS_PER_OUTPUT;
}

double fft_output_ns(int64_t n, int64_t taps_len, int plan_effort) {
  return output_ns(n, taps_len, plan_effort, 0.0, l2_bytes());
}

double fft_output_ns_mixed(int64_t n, int64_t taps_len, int plan_effort, double complex_share) {
  return output_ns(n, taps_len, plan_effort, complex_share, l2_bytes());
}

/* The candidate sizes are 2^a * (one of these), a >= 3: the sizes whose
 * measured time stayed within +-15 % of the model at every size tried from
 * 4096 to 2^21 (small sizes scatter more, whatever their factors).
 * Other 2^a 3^b 5^c sizes are as fast on average, but their estimated plans
 * have outliers (odd part 3 or 9: up to 1.5x slower from 2^17 up; odd parts
 * with many factors: up to 1.4x); the model cannot tell those apart. The
 * family still leaves at most 25 % between neighbouring sizes. */
static const int64_t odd_parts[] = {1, 5, 15, 25, 75};

/* 1 when size n = p2 * odd (odd one of odd_parts) is a candidate: with
 * complex pairs (share > 0) their complex plans narrow the family, since
 * FFTW's estimated complex plans ran 1.3x to 1.6x slower than their
 * neighbours at odd parts 25 and 75 and at powers of two from 16384 up
 * (same measurements as COMPLEX_KNEE). */
static int candidate(int64_t p2, int64_t odd, double share) {
  if (share <= 0.0) return 1;
  return (odd == 1 && p2 < 16384) || odd == 5 || odd == 15;
}

int64_t fft_choose_size(int64_t taps_len, int32_t n_spectra, int plan_effort) {
  return fft_choose_size_mixed(taps_len, n_spectra, plan_effort, 0.0);
}

/* The largest size the choice considers for taps_len taps and n_spectra
 * spectra (fft_choose_size). */
static int64_t upper_size(int64_t taps_len, int32_t n_spectra) {
  if (n_spectra < 1) n_spectra = 1;
  int64_t upper = FFT_SIZE_CAP;
  while (upper > 4096 && (double)n_spectra * 4.0 * (double)upper > SPECTRA_BUDGET_BYTES) upper /= 2;
  if (upper < 2 * taps_len) upper = 2 * taps_len;
  if (upper > FFT_SIZE_LIMIT) upper = FFT_SIZE_LIMIT;
  return upper;
}

int64_t fft_choose_size_mixed(int64_t taps_len, int32_t n_spectra, int plan_effort,
                              double complex_share) {
  if (taps_len < 1 || taps_len > FFT_SIZE_LIMIT) return 0;
  const int64_t upper = upper_size(taps_len, n_spectra);
  double l2 = l2_bytes();
  int64_t best = 0;
  double best_ns = 0.0;
  for (int64_t p2 = 8; p2 <= upper; p2 *= 2) {
    for (size_t i = 0; i < sizeof odd_parts / sizeof odd_parts[0]; i++) {
      if (!candidate(p2, odd_parts[i], complex_share)) continue;
      int64_t n = p2 * odd_parts[i];
      if (n < taps_len || n > upper) continue;
      double ns = output_ns(n, taps_len, plan_effort, complex_share, l2);
      if (!best || ns < best_ns || (ns == best_ns && n < best)) {
        best = n;
        best_ns = ns;
      }
    }
  }
  /* A filter so long that no narrowed candidate fits: the whole family. */
  if (!best && complex_share > 0.0)
    return fft_choose_size_mixed(taps_len, n_spectra, plan_effort, 0.0);
  return best;
}

/* The fold: per frame of n, about one load and add of a float per folded
 * bin, plus the copies around it; an estimate, not fitted. */
#define FOLD_NS_PER_FRAME 0.1

int64_t fft_decimated_block(int64_t n, int64_t taps_len, int64_t factor) {
  if (factor < 1 || taps_len < 1 || n < taps_len || n % factor != 0) return 0;
  const int64_t block = (n - taps_len + 1) / factor * factor;
  return block >= factor ? block : 0;
}

/* One row's decimating block: the forward transform at size n (half of a
 * block's two), the inverse at n / factor, the fold; a complex pair's rows
 * pay complex_row_ns's share of the same. */
static double decimated_block_ns(int64_t n, int64_t factor, int plan_effort, double share,
                                 double l2) {
  const model *k = plan_effort >= 1 ? &measure_model : &estimate_model;
  const double real = k->per_block + 0.5 * (block_ns(n, plan_effort, l2) - k->per_block) +
                      0.5 * (block_ns(n / factor, plan_effort, l2) - k->per_block);
  const double pair = 0.5 * k->per_block +
                      0.5 * (complex_row_ns(n, plan_effort, l2) - 0.5 * k->per_block) +
                      0.5 * (complex_row_ns(n / factor, plan_effort, l2) - 0.5 * k->per_block);
  return (1.0 - share) * real + share * pair + FOLD_NS_PER_FRAME * (double)n;
}

double fft_block_ns_decimated(int64_t n, int64_t factor, int plan_effort, double complex_share) {
  if (factor <= 1 || n % factor != 0) return fft_block_ns_mixed(n, plan_effort, complex_share);
  return decimated_block_ns(n, factor, plan_effort, complex_share, l2_bytes());
}

static double decimated_output_ns(int64_t n, int64_t taps_len, int64_t factor, int plan_effort,
                                  double share, double l2) {
  const int64_t block = fft_decimated_block(n, taps_len, factor);
  if (block <= 0) return -1.0;
  return decimated_block_ns(n, factor, plan_effort, share, l2) / (double)block +
         STREAM_NS_PER_OUTPUT / (double)factor;
}

double fft_output_ns_decimated(int64_t n, int64_t taps_len, int64_t factor, int plan_effort,
                               double complex_share) {
  if (factor <= 1) return fft_output_ns_mixed(n, taps_len, plan_effort, complex_share);
  return decimated_output_ns(n, taps_len, factor, plan_effort, complex_share, l2_bytes());
}

int64_t fft_choose_size_decimated(int64_t taps_len, int32_t n_spectra, int plan_effort,
                                  double complex_share, int64_t factor) {
  if (factor <= 1) return fft_choose_size_mixed(taps_len, n_spectra, plan_effort, complex_share);
  if (taps_len < 1 || taps_len > FFT_SIZE_LIMIT) return 0;
  const int64_t upper = upper_size(taps_len + factor - 1, n_spectra);
  const double l2 = l2_bytes();
  int64_t best = 0;
  double best_ns = 0.0;
  for (int64_t p2 = 8; p2 <= upper; p2 *= 2) {
    for (size_t i = 0; i < sizeof odd_parts / sizeof odd_parts[0]; i++) {
      if (!candidate(p2, odd_parts[i], complex_share)) continue;
      const int64_t family = p2 * odd_parts[i];
      for (int scaled = 0; scaled < 2; scaled++) {
        if (scaled && family > upper / factor) continue;
        const int64_t n = scaled ? family * factor : family;
        if (n > upper || n % factor != 0) continue;
        const double ns = decimated_output_ns(n, taps_len, factor, plan_effort, complex_share, l2);
        if (ns < 0.0) continue;
        if (!best || ns < best_ns || (ns == best_ns && n < best)) {
          best = n;
          best_ns = ns;
        }
      }
    }
  }
  if (!best && complex_share > 0.0)
    return fft_choose_size_decimated(taps_len, n_spectra, plan_effort, 0.0, factor);
  return best;
}
