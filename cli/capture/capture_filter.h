/*
 * capture_filter.h - `convoy filter` on raw I/Q and real captures and on
 * SigMF recordings (cli/capture/capture_io.h says which files are captures). The
 * audio path (cmd_filter.c) hands the command over here.
 */
#ifndef CONVOY_CLI_CAPTURE_FILTER_H
#define CONVOY_CLI_CAPTURE_FILTER_H

#include "convoy.h"
#include "filter_options.h"

#include <stdint.h>

/* Refuses options that do not apply: audio-only ones (--subtype, --type,
 * --normalize) on a capture, capture ones (--format, --skip, ...) on audio.
 * Prints a usage line and returns CLI_EXIT_USAGE, or CLI_EXIT_OK. */
int capture_filter_check(const filter_options *o, int is_capture);

/* Filters the capture o->in_path into o->out_path with the engine `engine`
 * (already resolved for this machine) on `threads` CPU threads. Prints the
 * summary (unless quiet) or one error line; returns a CLI_EXIT_* status and
 * leaves nothing at OUT on failure. */
int capture_filter(const filter_options *o, convoy_engine engine, int32_t threads);

#endif /* CONVOY_CLI_CAPTURE_FILTER_H */
