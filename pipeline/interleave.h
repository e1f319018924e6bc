/*
 * interleave.h - moving frames between interleaved and planar layouts
 * (internal). No allocation; buffers must not overlap.
 */
#ifndef CONVOY_INTERLEAVE_H
#define CONVOY_INTERLEAVE_H

#include <stdint.h>

/* planar[c][at + i] = in[i * channels + c] for 0 <= i < frames. */
void deinterleave_frames(const float *in, int32_t channels, int64_t frames, float *const *planar,
                         int64_t at);

/* out[i * channels + c] = planar[c][i] for 0 <= i < frames. */
void interleave_frames(const float *const *planar, int32_t channels, int64_t frames, float *out);

#endif /* CONVOY_INTERLEAVE_H */
