/*
 * stream_warm.h - warm start of a convoy_stream (internal; the public side
 * is "Exact ranges (warm start)" in convoy.h).
 *
 * A stream created with config.first_sample = s counts every index from the
 * start of the signal, not from its own start: its first input frame is
 * x[s], its first output y[s] (the first kept index at or after s with
 * decimation), and the engine's blocks, the decimation grid, the shift's
 * rotation and the dither position all follow the absolute index, so a range
 * filtered alone computes each output with the arithmetic a whole run uses.
 *
 * Planar engines: the first engine run starts on the block grid, lead = s mod
 * grid frames before s, with the taps - 1 frames before that as its history.
 * At create and reset those hist + lead frames are zeros and the lead frames
 * are pending input; set_history() overwrites them with the frames before s
 * (convoy_stream_history_frames() of them, fewer = zeros before). The outputs
 * of the lead frames, indices below s, are computed and dropped
 * (warm_dropped). Whole-stream engines (the GPU pipeline) do the same behind
 * engine_stream_ops.set_history, told s by engine_stream_setup.first_sample.
 */
#ifndef CONVOY_STREAM_WARM_H
#define CONVOY_STREAM_WARM_H

#include "convoy.h"

#include <stdint.h>

struct convoy_stream;

/* Largest config.first_sample: absolute indices stay far from overflow. */
#define WARM_MAX_FIRST ((int64_t)1 << 62)

/* Validates config.first_sample; message in convoy_last_error(). */
convoy_status warm_check_config(const convoy_stream_config *c);

/* Sets s->first_sample, s->grid (grid >= 1: the engine's block grid) and
 * s->lead from the config. */
void warm_setup(struct convoy_stream *s, const convoy_stream_config *c, int64_t grid);

/* A planar stream's position state at create and reset: zero history and
 * lead frames (pending), full_pos on the grid, the output index (dither
 * position) of the first output, not started. */
void warm_reset_planar(struct convoy_stream *s);

/* The output index (dither position, in samples) of a planar stream's
 * first output after create or reset. */
uint64_t warm_first_out_index(const struct convoy_stream *s);

/* Output frames among the full-rate outputs [pos, pos + n) (n >= 0) that the
 * stream writes: those at or after first_sample, the kept ones of them with
 * decimation. */
int64_t warm_visible(const struct convoy_stream *s, int64_t pos, int64_t n);

/* Output frames the engine computes among [pos, pos + n) that are dropped
 * for lying before first_sample (the kept ones with decimation). */
int64_t warm_dropped(const struct convoy_stream *s, int64_t pos, int64_t n);

#endif /* CONVOY_STREAM_WARM_H */
