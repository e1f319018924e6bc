/*
 * output_write.h - planar float output to the caller's interleaved frames in
 * a stream's output format (internal): a copy for float32, the rule of
 * sample_quantize.h for integer codes. No allocation.
 *
 * Integer containers: S16, S32, S8 (two's complement) and U8 (offset binary:
 * the S8 code plus 128, so code -128 is byte 0 and 0 is byte 128). Codes of
 * b < container bits are left-justified. A complex stream passes its real and
 * imaginary rows as two channels each: they are quantized as two samples.
 *
 * Without dither and for at most 16 bits the codes come from a branch-free
 * rounding (SSE2 four values at a time, a scalar loop for the rest), equal
 * bit for bit to sq_code(); otherwise sq_code() runs per value.
 */
#ifndef CONVOY_OUTPUT_WRITE_H
#define CONVOY_OUTPUT_WRITE_H

#include "sample_quantize.h"
#include "worker_pool.h"

#include <stdint.h>

/* Bytes of one output frame of `channels` channels. */
int64_t output_frame_bytes(const output_spec *o, int32_t channels);

/* out[i * channels + c] = code(planar[c][i]) for 0 <= i < frames, in o's
 * format; first_index is the output position (in samples) of out[0], which
 * places the dither noise. Integer output adds to *tally. */
void output_write(const output_spec *o, const float *const *planar, int32_t channels,
                  int64_t frames, uint64_t first_index, void *out, output_tally *tally);

/* Most tasks output_write_parallel() splits one call into. */
#define OUTPUT_WRITE_MAX_TASKS 64

/* As output_write(), on the threads of pool (NULL: the calling thread) when
 * the call is large enough to pay for the fork and join: contiguous ranges
 * of frames, one per task, each with its own tally, summed (clip counts)
 * and maximized (peak) at the end. Codes, dither and tally are bit for bit
 * those of output_write(): dither depends only on (seed, index). The pool
 * must not be running another job. */
void output_write_parallel(const output_spec *o, worker_pool *pool, const float *const *planar,
                           int32_t channels, int64_t frames, uint64_t first_index, void *out,
                           output_tally *tally);

#endif /* CONVOY_OUTPUT_WRITE_H */
