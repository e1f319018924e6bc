/*
 * direct_complex.h - the complex kernels of the CPU direct engine
 * (internal; cpu/direct.c drives them).
 *
 * One call filters one complex channel held as two planar rows (real part,
 * imaginary part) with complex taps held the same way, reversed:
 *   yr[k] = sum_i hr[i] xr[k + i] - hi[i] xi[k + i]
 *   yi[k] = sum_i hr[i] xi[k + i] + hi[i] xr[k + i],   0 <= k < n.
 * Outputs are computed in tiles of consecutive lanes, every lane with the
 * same multiplies and adds in the same order (per tap: += hr xr, -= hi xi
 * for the real part; += hr xi, += hi xr for the imaginary part; no fused
 * multiply-add), so a lane's bits do not depend on the tile it sits in, on
 * the call, or on which kernel (they all compute the same bits). The last,
 * partial tile is computed whole into scratch: the rows must be readable
 * for roundup(n, DIRECT_COMPLEX_TILE_MAX) + taps - 1 frames.
 * Reentrant; no allocation.
 */
#ifndef CONVOY_DIRECT_COMPLEX_H
#define CONVOY_DIRECT_COMPLEX_H

#include <stdint.h>

/* Largest tile of any kernel, in outputs (the stream's slack covers it). */
#define DIRECT_COMPLEX_TILE_MAX 64

typedef void (*direct_complex_fn)(const float *xr, const float *xi, const float *hr,
                                  const float *hi, int64_t taps, float *yr, float *yi, int64_t n);

/* The fastest kernel this CPU runs; *name gets its name (static). */
direct_complex_fn direct_complex_best(const char **name);

#endif /* CONVOY_DIRECT_COMPLEX_H */
