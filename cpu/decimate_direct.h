/*
 * decimate_direct.h - direct-form FIR evaluated only at every D-th output,
 * in polyphase form (internal; the decimating path of a cpu-direct stream).
 *
 * With reversed taps rev[i] = h[taps - 1 - i], output m is
 *   y[m] = sum_i rev[i] x[m D + i],   0 <= m < n.
 * Split i = q D + p: y[m] = sum_p sum_q rev[q D + p] xp[m + q] with the
 * phase rows xp[k] = x[k D + p]. Each call copies the P = min(D, taps)
 * phase rows it needs into scratch (one strided pass over the input) and
 * runs tiles of DECIM_TILE consecutive outputs over them, the taps outside
 * and the lanes inside, as the full-rate engine does: taps multiply-adds per
 * kept output, none for the D - 1 dropped ones. Every lane performs the same
 * multiplies and adds in the same order (phases in order, taps in order,
 * multiply then add), so an output's bits depend only on its inputs, never
 * on m, n, the tile or the call. AVX-512, AVX2 and baseline builds of the
 * same code give the same bits.
 *
 * x must be readable for (n - 1) D + taps frames. Reentrant; no allocation
 * (scratch comes from the caller).
 */
#ifndef CONVOY_DECIMATE_DIRECT_H
#define CONVOY_DECIMATE_DIRECT_H

#include <stddef.h>
#include <stdint.h>

#define DECIM_TILE 32

/* Floats of scratch one call needs for taps and step (complex included). */
size_t decim_direct_scratch(int64_t taps, int64_t step);

/* The phase-ordered taps the kernels take: for p = 0 .. min(step, taps) - 1,
 * rev[p], rev[p + step], ... (taps floats in all) into poly. */
void decim_direct_taps(const float *rev, int64_t taps, int64_t step, float *poly);

/* y[m] for 0 <= m < n of one real row; poly from decim_direct_taps. */
void decim_direct_real(const float *x, const float *poly, int64_t taps, int64_t step, float *y,
                       int64_t n, float *scratch);

/* A complex row pair (xr, xi) with complex phase-ordered taps (hr, hi):
 *   yr[m] = sum hr xr - hi xi,  yi[m] = sum hr xi + hi xr
 * per tap in that order, over the same index pairs as above. */
void decim_direct_complex(const float *xr, const float *xi, const float *hr, const float *hi,
                          int64_t taps, int64_t step, float *yr, float *yi, int64_t n,
                          float *scratch);

#endif /* CONVOY_DECIMATE_DIRECT_H */
