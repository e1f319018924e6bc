/*
 * capture_pulses.h - batched pulse compression of a capture: `convoy filter
 * IN OUT --matched TEMPLATE --pulse-len L [--pulses P]`.
 *
 * IN holds P pulses of L samples per channel, one after the other (pulse 0,
 * then pulse 1, ...; a multi-channel recording interleaves its channels per
 * sample as usual), so the batch has the [pulse][sample][channel] layout of
 * include/convoy_pulse.h. Every pulse is correlated with the template
 * (cli/capture/capture_matched.h: window, normalisation, mode) through convoy_pulse
 * on the engine of --engine (cpu, gpu or auto; the cpu-* and gpu-* names
 * pick their family). OUT holds P pulses of the mode's length (full L+T-1,
 * same L, valid L-T+1) per channel, in the same layout, written as OUT's
 * datatype (cli/capture/capture_io.h). Without --pulses, P is IN's samples / L,
 * which must divide exactly; with it, the first P x L samples are used.
 *
 * Memory: the pulses go through convoy_pulse in batches of at most
 * PULSES_BATCH_SAMPLES input samples (all of them in one batch when they
 * fit), so a long recording of pulses does not need to fit in memory.
 *
 * SigMF output records the operation (template, mode, window, P, L). A
 * single pulse moves annotations by the mode's delay like a streaming
 * correlation; with several pulses, annotations survive only in mode same
 * (output samples stay where their input samples were).
 */
#ifndef CONVOY_CLI_CAPTURE_PULSES_H
#define CONVOY_CLI_CAPTURE_PULSES_H

#include "convoy.h"
#include "filter_options.h"

#include <stdint.h>

/* Input samples (all channels) compressed per convoy_pulse_run call, at most. */
#define PULSES_BATCH_SAMPLES ((int64_t)1 << 24)

/* Compresses the pulses of o->in_path into o->out_path (o->capture.matched
 * has pulse_len > 0) with `engine` (resolved for this machine) on `threads`
 * CPU threads. Prints the summary (unless quiet) or one error line naming
 * the file; returns a CLI_EXIT_* status and leaves nothing at OUT on
 * failure. */
int capture_pulses(const filter_options *o, convoy_engine engine, int32_t threads);

#endif /* CONVOY_CLI_CAPTURE_PULSES_H */
