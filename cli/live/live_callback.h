/*
 * live_callback.h - the audio callbacks of `convoy live`: one call of
 * convoy_rt_process per audio period, plus copies and counting. They take
 * no lock, allocate nothing, print nothing and make no system call other
 * than reading the clock (and what convoy_rt_process does in REALTIME mode:
 * waking workers). The PortAudio callback is here; the JACK process
 * callback (live_jack.c) shares live_engine_run.
 */
#ifndef CONVOY_CLI_LIVE_CALLBACK_H
#define CONVOY_CLI_LIVE_CALLBACK_H

#include "convoy_rt.h"
#include "live_meter.h"

#include <portaudio.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct live_engine {
  _Atomic(convoy_rt *) rt;   /* the convolver the callback runs (REALTIME mode, channels in =
                                out); the main thread may replace it (live_engine_swap) */
  _Atomic(convoy_rt *) seen; /* the convolver the callback took last: the acknowledgement */
  int32_t channels;          /* buffers the stream hands over, each way */
  live_meter meter;          /* written by the callback, read by the main thread */
  convoy_rt_stats retired;   /* main thread: the counts of convolvers replaced so far */
} live_engine;

/* Real-time safe: the convolver to run this period, acknowledged as taken. */
static inline convoy_rt *live_engine_take(live_engine *e) {
  convoy_rt *rt = atomic_load_explicit(&e->rt, memory_order_acquire);
  atomic_store_explicit(&e->seen, rt, memory_order_release);
  return rt;
}

/* One period of frames through rt (from live_engine_take; NULL: silence):
 * output samples beyond +-1 are counted (not clipped: the device or the
 * server's conversion does that) and each input's and output's peak and sum
 * of squares kept (the first LIVE_METER_PEAKS channels). A period
 * whose frame count is not a multiple of rt's block, or that the convolver
 * fails, is output as silence and counted as a bad block. Pushes the time
 * per block into the meter. */
void live_engine_run(live_engine *e, convoy_rt *rt, const float *const *in, float *const *out,
                     unsigned long frames);

/* PortAudio stream callback; user is a live_engine. */
int live_callback(const void *input, void *output, unsigned long frames,
                  const PaStreamCallbackTimeInfo *time_info, PaStreamCallbackFlags flags,
                  void *user);

#endif /* CONVOY_CLI_LIVE_CALLBACK_H */
