/* filter_taps.c - taps for `convoy filter`: load, design, check, make filters. */
#include "filter_taps.h"

#include "commands.h"
#include "convoy_taps.h"
#include "diag.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int load(const filter_options *o, int32_t rate, convoy_taps *taps) {
  char err[512] = "";
  convoy_status st;
  if (o->taps == TAPS_DESIGN) {
    convoy_design d;
    st = convoy_design_parse(o->taps_arg, (double)rate, &d, err, sizeof err);
    if (st == CONVOY_OK) st = convoy_design_taps(&d, taps, err, sizeof err);
  } else if (strcmp(o->taps_arg, "-") == 0) {
    diag_error("%s: taps cannot come from stdin; give a file",
               o->taps == TAPS_IR ? "--ir" : "--taps");
    return CLI_EXIT_FAIL;
  } else {
    st = convoy_taps_load(o->taps_arg, o->taps == TAPS_IR ? CONVOY_TAPS_AUDIO : CONVOY_TAPS_AUTO,
                          taps, err, sizeof err);
  }
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

static int check(const filter_options *o, const char *in_name, int32_t channels, int32_t rate,
                 const convoy_taps *taps) {
  const char *what = o->taps == TAPS_DESIGN ? "design"
                     : o->taps == TAPS_IR   ? "impulse response"
                                            : "taps";
  if (taps->is_complex) {
    diag_error("%s: complex taps need a complex input (a capture such as .cf32 or SigMF), and "
               "%s is real audio",
               o->taps_arg, in_name);
    return CLI_EXIT_FAIL;
  }
  if (taps->rate > 0 && fabs(taps->rate - (double)rate) > 0.5) {
    diag_error("%s: %s is for %.0f Hz but %s is %d Hz (resample one of them first)", o->taps_arg,
               what, taps->rate, in_name, (int)rate);
    return CLI_EXIT_FAIL;
  }
  if (taps->channels != 1 && taps->channels != channels &&
      !(taps->channels == 4 && channels == 2)) {
    char need[64];
    if (channels == 1)
      snprintf(need, sizeof need, "need 1");
    else
      snprintf(need, sizeof need, "need 1 or %d%s", (int)channels,
               channels == 2 ? ", or 4 for true stereo" : "");
    diag_error("%s: %d channels of taps for %s with %d channel%s (%s)", o->taps_arg,
               (int)taps->channels, in_name, (int)channels, channels == 1 ? "" : "s", need);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

int filter_set_make(const filter_options *o, const char *in_name, int32_t channels, int32_t rate,
                    filter_set *set) {
  memset(set, 0, sizeof *set);
  convoy_taps taps;
  memset(&taps, 0, sizeof taps);
  int rc = load(o, rate, &taps);
  if (rc == CLI_EXIT_OK) rc = check(o, in_name, channels, rate, &taps);
  if (rc != CLI_EXIT_OK) {
    convoy_taps_free(&taps);
    return rc;
  }
  set->max_taps = taps.length;
  set->linear_phase = 1;
  set->min_delay = INT64_MAX;
  set->true_stereo = taps.channels == 4 && channels == 2;
  /* True stereo: stream rows L, R, L, R take L->L, R->L, L->R, R->R. */
  static const int32_t true_stereo_row[4] = {0, 2, 1, 3};
  for (int32_t c = 0; c < taps.channels; c++) {
    const int32_t from = set->true_stereo ? true_stereo_row[c] : c;
    convoy_status st = convoy_filter_create(
        &set->filters[c], taps.data + (size_t)from * (size_t)taps.length, taps.length);
    if (st != CONVOY_OK) {
      diag_error("%s: %s", o->taps_arg,
                 convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st));
      convoy_taps_free(&taps);
      filter_set_free(set);
      return CLI_EXIT_FAIL;
    }
    set->count = c + 1;
    int lin = 0;
    double gd = convoy_filter_group_delay(set->filters[c], &lin);
    int64_t d = (int64_t)llround(gd);
    if (d < set->min_delay) set->min_delay = d;
    if (!lin) set->linear_phase = 0;
  }
  convoy_taps_free(&taps);
  return CLI_EXIT_OK;
}

void filter_set_free(filter_set *set) {
  for (int32_t c = 0; c < set->count; c++) convoy_filter_destroy(set->filters[c]);
  set->count = 0;
}
