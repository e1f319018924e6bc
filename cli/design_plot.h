/*
 * design_plot.h - a filter's magnitude response drawn as a self-contained
 * SVG (`convoy design --plot`): dB against frequency, axes with ticks and
 * labels, and for a design its spec: passbands and stopbands shaded
 * (class "passband"/"stopband", data-from-hz/data-to-hz), each transition
 * edge a dashed line (class "edge", data-hz), the attenuation asked for a
 * dashed line across the stopbands (class "atten", data-db); with taps=
 * instead of width= the cutoffs are the edges. The title names the spec or
 * the taps file, the tap count and the rate.
 */
#ifndef CONVOY_CLI_DESIGN_PLOT_H
#define CONVOY_CLI_DESIGN_PLOT_H

#include "design_table.h"

#include <stdio.h>

/* Writes the SVG document of v to f. Returns 0, or -1 when a write failed. */
int design_plot_write(FILE *f, const design_view *v);

#endif /* CONVOY_CLI_DESIGN_PLOT_H */
