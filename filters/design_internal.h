/*
 * design_internal.h - pieces of the Kaiser windowed-sinc designer (internal
 * to libconvoy). Frequencies in Hz, attenuation in dB, as in convoy_design.
 */
#ifndef CONVOY_DESIGN_INTERNAL_H
#define CONVOY_DESIGN_INTERNAL_H

#include "convoy_taps.h"

#include <stddef.h>
#include <stdint.h>

/* Longest design (explicit taps= or derived from width). */
#define DESIGN_MAX_TAPS ((int64_t)1 << 24)

/* Stopband attenuation when the spec has no atten=. */
#define DESIGN_DEFAULT_ATTEN 80.0
/* The most stopband attenuation a design may ask for: what its taps still
 * meet once rounded to float32 (measured over lowpass, highpass, bandpass and
 * bandstop designs of 200..3000 Hz transitions at 48 kHz: 120.3 dB worst at
 * 120 dB asked, 129.7 at 130, 137.1 at 140, and never past about 150 dB). */
#define DESIGN_MAX_ATTEN 120.0

/* Validates every field of d (ranges, band edges against 0 and Nyquist,
 * transition bands, width-or-taps, odd length for highpass/bandstop, the
 * derived length against DESIGN_MAX_TAPS). label starts each message, e.g.
 * the spec text: "label: cutoff 30000 Hz is not below Nyquist (24000 Hz)".
 * Returns CONVOY_ERR_INVALID_ARGUMENT on the first problem found. */
convoy_status design_check(const convoy_design *d, const char *label, char *err, size_t err_size);

/* The checks of design_check that hold whatever the sample rate: type,
 * edges above 0 and in order, atten, taps, width, one of width and taps. */
convoy_status design_check_spec(const convoy_design *d, const char *label, char *err,
                                size_t err_size);

/* Kaiser's window shape parameter for a stopband attenuation in dB. */
double design_kaiser_beta(double atten);

/* Kaiser's length estimate, ceil((atten - 7.95) / (14.36 * width / rate)) + 1,
 * raised to the next odd number; returned as double so that absurd inputs
 * can be compared with DESIGN_MAX_TAPS before any integer conversion. */
double design_kaiser_length(double atten, double width, double rate);

/* Fills h[0..n) with the Kaiser-windowed ideal response of d (beta as
 * given), normalised to unity gain at DC (lowpass, bandstop), Nyquist
 * (highpass) or the band centre (bandpass). Returns 0, or -1 when that gain
 * is too close to zero to normalise by. */
int design_fill(const convoy_design *d, int64_t n, double beta, double *h);

/* In-place forward DFT, X_k = sum_n x_n e^{-2 pi i n k / p}, of p complex
 * values (re, im interleaved), p a power of 2, in double precision (each
 * twiddle computed directly). Returns 0, or -1 when scratch memory could not
 * be allocated. */
int design_fft(double *x, size_t p);

/* Measures a linear-phase design of odd length n against the bands of d
 * (width > 0): *pass_err = max | |H(f)| - 1 | over the passband(s),
 * *stop_err = max |H(f)| over the stopband(s), on a grid of at least 8
 * points per ripple lobe plus the exact band edges, in double precision.
 * Returns 0, or -1 when scratch memory could not be allocated. */
int design_measure(const convoy_design *d, const double *h, int64_t n, double *pass_err,
                   double *stop_err);

#endif /* CONVOY_DESIGN_INTERNAL_H */
