/*
 * output_write.h - planar float output to the caller's interleaved frames in
 * a stream's output format (internal): a copy for float32, the rule of
 * sample_quantize.h for integer codes. No allocation.
 *
 * Integer containers: S16, S32, S8 (two's complement) and U8 (offset binary:
 * the S8 code plus 128, so code -128 is byte 0 and 0 is byte 128). Codes of
 * b < container bits are left-justified. A complex stream passes its real and
 * imaginary rows as two channels each: they are quantized as two samples.
 */
#ifndef CONVOY_OUTPUT_WRITE_H
#define CONVOY_OUTPUT_WRITE_H

#include "sample_quantize.h"

#include <stdint.h>

/* Bytes of one output frame of `channels` channels. */
int64_t output_frame_bytes(const output_spec *o, int32_t channels);

/* out[i * channels + c] = code(planar[c][i]) for 0 <= i < frames, in o's
 * format; first_index is the output position (in samples) of out[0], which
 * places the dither noise. Integer output adds to *tally. */
void output_write(const output_spec *o, const float *const *planar, int32_t channels,
                  int64_t frames, uint64_t first_index, void *out, output_tally *tally);

#endif /* CONVOY_OUTPUT_WRITE_H */
