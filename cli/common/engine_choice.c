/* engine_choice.c - the engine `auto` runs for one input (engine_choice.h). */
#include "engine_choice.h"

#include "diag.h"

convoy_engine engine_for_input(convoy_engine engine, int64_t samples, int64_t taps,
                               const char *in_name, int verbose) {
  if (engine != CONVOY_ENGINE_AUTO || samples < 0 || samples >= ENGINE_SHORT_INPUT_SAMPLES ||
      taps > ENGINE_SHORT_INPUT_TAPS)
    return engine;
  if (verbose)
    diag_notice("%s is short (%lld samples): auto runs the CPU engines, as starting a GPU "
                "alone would take longer",
                in_name, (long long)samples);
  return CONVOY_ENGINE_CPU;
}
