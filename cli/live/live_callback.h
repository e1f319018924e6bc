/*
 * live_callback.h - the PortAudio callback of `convoy live`: one call of
 * convoy_rt_process per audio block, plus copies and counting. It takes no
 * lock, allocates nothing, prints nothing and makes no system call other
 * than reading the clock (and what convoy_rt_process does in REALTIME mode:
 * waking workers).
 */
#ifndef CONVOY_CLI_LIVE_CALLBACK_H
#define CONVOY_CLI_LIVE_CALLBACK_H

#include "convoy_rt.h"
#include "live_meter.h"

#include <portaudio.h>
#include <stdint.h>

typedef struct live_engine {
  convoy_rt *rt;    /* REALTIME mode, channels in = out */
  int32_t channels; /* buffers the stream hands over, each way */
  int32_t block;    /* the convolver's block; PortAudio calls with exactly this */
  live_meter meter; /* written by the callback, read by the main thread */
} live_engine;

/* PortAudio stream callback; user is a live_engine. Output samples beyond
 * +-1 are counted (not clipped: the device or PortAudio's conversion does
 * that). A block whose frame count is not a multiple of the convolver's, or
 * that the convolver fails, is output as silence and counted. */
int live_callback(const void *input, void *output, unsigned long frames,
                  const PaStreamCallbackTimeInfo *time_info, PaStreamCallbackFlags flags,
                  void *user);

#endif /* CONVOY_CLI_LIVE_CALLBACK_H */
