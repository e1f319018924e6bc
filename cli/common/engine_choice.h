/*
 * engine_choice.h - the engine `auto` runs for one input: on a short input
 * the CPU engines, without starting CUDA at all.
 */
#ifndef CONVOY_CLI_ENGINE_CHOICE_H
#define CONVOY_CLI_ENGINE_CHOICE_H

#include "convoy.h"

#include <stdint.h>

/* Under `auto`, inputs of fewer samples than this (frames x channels) with
 * at most ENGINE_SHORT_INPUT_TAPS taps run on the CPU engines: starting and
 * ending CUDA alone takes 0.32 s in a bare process on an H200 host, while
 * the CPU engines filter such an input in 0.05 s or less on 2 cores. */
#define ENGINE_SHORT_INPUT_SAMPLES ((int64_t)1 << 22)
#define ENGINE_SHORT_INPUT_TAPS ((int64_t)1 << 16)

/* engine as given, except `auto` on a short input (samples >= 0 and below
 * the limits above; -1: length unknown), which becomes the CPU engines'
 * choice (CONVOY_ENGINE_CPU); with verbose, one notice line naming in_name
 * says so. */
convoy_engine engine_for_input(convoy_engine engine, int64_t samples, int64_t taps,
                               const char *in_name, int verbose);

#endif /* CONVOY_CLI_ENGINE_CHOICE_H */
