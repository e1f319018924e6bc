/*
 * live_ir.h - the impulse responses of `convoy live`: loaded from --ir,
 * --taps or the files a --config names (each file once), designed from
 * --design, and brought to the stream's sample rate.
 *
 * Not for the real-time thread: everything here allocates and reads files.
 */
#ifndef CONVOY_CLI_LIVE_IR_H
#define CONVOY_CLI_LIVE_IR_H

#include "convoy_taps.h"
#include "live_config.h"
#include "live_options.h"

#include <stddef.h>
#include <stdint.h>

typedef struct live_ir {
  char *name;       /* file path or design spec, for messages; owned */
  convoy_taps taps; /* planar channels; owned */
} live_ir;

typedef struct live_ir_bank {
  live_ir *irs; /* owned */
  int32_t count;
  live_source source; /* where the responses come from */
  const char *design; /* LIVE_SOURCE_DESIGN: the spec, designed by live_ir_bank_fit */
} live_ir_bank;

/* Loads what source/arg name (for LIVE_SOURCE_CONFIG, every file of cfg's
 * routes, in route order, each path once). A design waits for the rate
 * (live_ir_bank_fit). Returns CONVOY_OK or a status with one line in err
 * naming the file. */
convoy_status live_ir_bank_load(live_ir_bank *bank, live_source source, const char *arg,
                                const live_config *cfg, char *err, size_t err_size);

/* Brings every response to rate Hz: designs the --design spec at rate; a
 * response of another known rate is an error naming the file and both
 * rates, or, with resample, is resampled (live_resample.h). */
convoy_status live_ir_bank_fit(live_ir_bank *bank, int32_t rate, int resample, char *err,
                               size_t err_size);

/* The response loaded from path (config routes); NULL when absent. */
const live_ir *live_ir_bank_find(const live_ir_bank *bank, const char *path);

/* Frees everything and zeroes *bank. NULL-safe. */
void live_ir_bank_free(live_ir_bank *bank);

#endif /* CONVOY_CLI_LIVE_IR_H */
