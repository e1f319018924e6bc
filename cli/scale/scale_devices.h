/*
 * scale_devices.h - `--devices all|N,M,...`: the GPUs one process filters a
 * capture on, one pipeline each (cli/capture/capture_split.h). An index may
 * be named twice: two pipelines then share that GPU.
 */
#ifndef CONVOY_CLI_SCALE_DEVICES_H
#define CONVOY_CLI_SCALE_DEVICES_H

#include "convoy.h"

#include <stdint.h>

/* Most pipelines --devices names. */
#define SCALE_MAX_DEVICES 64

typedef struct scale_devices {
  int given; /* --devices was given */
  int all;   /* --devices all */
  int count; /* the listed indices (not all) */
  int32_t index[SCALE_MAX_DEVICES];
} scale_devices;

/* Parses --devices' value into d. Prints a usage line for `cmd` and
 * returns CLI_EXIT_USAGE, or CLI_EXIT_OK. */
int scale_devices_parse(const char *cmd, const char *value, scale_devices *d);

/* Makes `all` the machine's GPUs. Prints one error line and returns
 * CLI_EXIT_FAIL where there is none, else CLI_EXIT_OK. */
int scale_devices_resolve(scale_devices *d);

/* The pipelines of this process for a run with `engine`: --devices' GPUs
 * (resolved), else one, on --device (`device` >= 0, kept as -1 here), or for
 * a GPU engine on the GPU this process's place on its host picks (local
 * rank mod the host's GPUs). Prints one error line and returns
 * CLI_EXIT_FAIL where --devices all finds no GPU, else CLI_EXIT_OK. */
int scale_devices_for_process(const scale_devices *given, int32_t device, convoy_engine engine,
                              scale_devices *d);

#endif /* CONVOY_CLI_SCALE_DEVICES_H */
