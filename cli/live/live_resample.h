/*
 * live_resample.h - changing the sample rate of impulse responses
 * (libsamplerate, SRC_SINC_BEST_QUALITY), for `convoy live --resample-ir`.
 */
#ifndef CONVOY_CLI_LIVE_RESAMPLE_H
#define CONVOY_CLI_LIVE_RESAMPLE_H

#include "convoy.h"
#include "convoy_taps.h"

#include <stddef.h>

/* Replaces taps (all channels, taps->rate > 0) by the same responses at
 * to_rate Hz: length about length * to_rate / rate, values scaled by
 * rate / to_rate so that the frequency response (the gain at DC, say) stays
 * the same. On failure writes "NAME: ..." into err and leaves taps as they
 * were. Not for the real-time thread (allocates). */
convoy_status live_resample_taps(convoy_taps *taps, double to_rate, const char *name, char *err,
                                 size_t err_size);

#endif /* CONVOY_CLI_LIVE_RESAMPLE_H */
