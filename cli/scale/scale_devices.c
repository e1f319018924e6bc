/* scale_devices.c - parsing and resolving --devices (scale_devices.h). */
#include "scale_devices.h"

#include "commands.h"
#include "convoy.h"
#include "diag.h"
#include "scale_world.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int scale_devices_parse(const char *cmd, const char *value, scale_devices *d) {
  memset(d, 0, sizeof *d);
  d->given = 1;
  if (strcmp(value, "all") == 0) {
    d->all = 1;
    return CLI_EXIT_OK;
  }
  const char *p = value;
  while (1) {
    char *end = NULL;
    errno = 0;
    long v = (*p >= '0' && *p <= '9') ? strtol(p, &end, 10) : -1;
    if (v < 0 || v > 1023 || errno || end == p || (*end != ',' && *end != '\0'))
      return diag_usage(cmd, "--devices: '%s' is not 'all' or a list of GPU indices such as 0,1",
                        value);
    if (d->count == SCALE_MAX_DEVICES)
      return diag_usage(cmd, "--devices: more than %d pipelines", SCALE_MAX_DEVICES);
    d->index[d->count++] = (int32_t)v;
    if (*end == '\0') return CLI_EXIT_OK;
    p = end + 1;
  }
}

int scale_devices_resolve(scale_devices *d) {
  if (!d->all) return CLI_EXIT_OK;
  const int n = convoy_gpu_count();
  if (n <= 0) {
    const char *why = !convoy_built_with_cuda() ? "convoy was built without CUDA"
                      : convoy_last_error()[0]  ? convoy_last_error()
                                                : "no usable GPU";
    diag_error("--devices all: no GPU to run on (%s)", why);
    return CLI_EXIT_FAIL;
  }
  d->count = n < SCALE_MAX_DEVICES ? n : SCALE_MAX_DEVICES;
  for (int i = 0; i < d->count; i++) d->index[i] = i;
  return CLI_EXIT_OK;
}

int scale_devices_for_process(const scale_devices *given, int32_t device, convoy_engine engine,
                              scale_devices *d) {
  *d = *given;
  if (d->given) return scale_devices_resolve(d);
  d->count = 1;
  d->index[0] = -1;
  const int gpus = convoy_engine_family(engine) == CONVOY_FAMILY_CPU ? 0 : convoy_gpu_count();
  if (device < 0 && gpus > 0) d->index[0] = scale_world_get()->local_rank % gpus;
  return CLI_EXIT_OK;
}
