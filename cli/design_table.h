/*
 * design_table.h - a filter's frequency response (convoy_taps_response) as
 * `convoy design --response` writes it: TSV or JSON.
 *
 * TSV: one header line, then one line per frequency, tab-separated:
 *   frequency_hz  magnitude_db  phase_rad  group_delay_samples
 * (frequency_cycles_per_sample, 0 .. 0.5, in place of frequency_hz when no
 * rate is known). Numbers are printed with 12 significant digits; an exact
 * zero of the response gives "-inf" dB and a "nan" delay (numpy.loadtxt and
 * pandas read both).
 *
 * JSON: one object of columns, the same names as the TSV's header:
 *   {"source": SPEC or FILE, "taps": N, "rate_hz": HZ or null, "points": P,
 *    "frequency_hz": [...], "magnitude_db": [...], "phase_rad": [...],
 *    "group_delay_samples": [...]}
 * with null where the TSV has -inf or nan.
 */
#ifndef CONVOY_CLI_DESIGN_TABLE_H
#define CONVOY_CLI_DESIGN_TABLE_H

#include "convoy_taps.h"

#include <stdint.h>
#include <stdio.h>

/* A response and what it is the response of. */
typedef struct design_view {
  const convoy_response_point *points;
  int64_t n_points;
  double rate;                 /* Hz; 0: frequencies in cycles per sample */
  const char *source;          /* the design spec, or the taps file's name */
  int64_t taps;                /* the filter's length */
  const convoy_design *design; /* the spec's design; NULL for taps from a file */
} design_view;

/* Writes v to f as TSV, or JSON when json is set. Returns 0, or -1 when a
 * write failed (ferror). */
int design_table_write(FILE *f, const design_view *v, int json);

#endif /* CONVOY_CLI_DESIGN_TABLE_H */
