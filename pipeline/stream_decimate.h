/*
 * stream_decimate.h - decimation and frequency shift of a CPU-engine stream
 * (internal; see "Decimation and frequency shift" in convoy.h).
 *
 * A stream with config.decimation D > 1 or config.shift f != 0 owns one
 * stream_decim (convoy_stream.dec; NULL otherwise). On a GPU engine only
 * the taps rotation below applies: the GPU pipeline keeps and rotates the
 * outputs itself (cuda/stream/gpu_pipeline.h). At create:
 *   decim_setup_taps   rotates the taps, h'[j] = h[j] e^{j 2 pi f j}, making
 *                      them complex (the stream's complex_taps) when f != 0;
 *   decim_choose_engine  sets the request's decimation (engine.h), so that
 *                      the engines plan and cost a decimated run, and picks
 *                      the engine.
 * On every engine run (decim_run) the stream's full-rate position
 * convoy_stream.full_pos says which of the run's outputs are kept: those at
 * absolute full-rate indices P mod D (P the phase), which the engine's
 * run_decimated writes (cpu-direct: polyphase, decimate_direct.h; cpu-fft:
 * the inverse transform at 1/D of the size).
 * Then the kept outputs are rotated by e^{-j 2 pi f (n D + P)} (rotator.h).
 * Everything is a function of absolute indices, so chunking never changes a
 * bit. Not thread-safe beyond the stream's own rule.
 */
#ifndef CONVOY_STREAM_DECIMATE_H
#define CONVOY_STREAM_DECIMATE_H

#include "convoy.h"
#include "engine.h"
#include "rotator.h"

#include <stddef.h>
#include <stdint.h>

struct convoy_stream;

typedef struct stream_decim {
  int64_t factor;  /* D >= 1 */
  int64_t phase;   /* P: kept full-rate indices are P mod D, 0 .. D - 1 */
  double shift;    /* f, cycles per input sample; 0 = none */
  float *rot_taps; /* f != 0: the rotated (re, im) taps rows */
  rotator rot;     /* f != 0 */
} stream_decim;

/* Multiples of factor in [pos, pos + n): the kept outputs among n full-rate
 * outputs starting at absolute index pos (n >= 0; pos may be negative, as
 * pos - phase is for the kept indices phase mod factor). */
int64_t decim_count(int64_t factor, int64_t pos, int64_t n);

/* Validates config.decimation and config.shift; message in convoy_last_error(). */
convoy_status decim_check_config(const convoy_stream_config *c);

/* Creates s->dec when the config asks for decimation or a shift, and rotates
 * s->taps (s->rows rows of s->taps_len) for a shift. CONVOY_ERR_OUT_OF_MEMORY
 * on failure. */
convoy_status decim_setup_taps(struct convoy_stream *s, const convoy_stream_config *c);

/* Runs the engine on n full-rate frames (as run_engine in stream_process.c)
 * of which the first keep are real outputs, and leaves the *kept decimated,
 * rotated outputs at the front of s->out_buf. Does not move s->full_pos. */
convoy_status decim_run(struct convoy_stream *s, int64_t n, int64_t keep, int64_t *kept, char *err,
                        size_t err_size);

void decim_destroy(stream_decim *d);

#endif /* CONVOY_STREAM_DECIMATE_H */
