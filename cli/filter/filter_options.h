/*
 * filter_options.h - the command line of `convoy filter`, parsed and checked.
 */
#ifndef CONVOY_CLI_FILTER_OPTIONS_H
#define CONVOY_CLI_FILTER_OPTIONS_H

#include "audio_file.h"
#include "capture_args.h"
#include "convoy.h"
#include "scale_devices.h"

#include <stdint.h>

typedef enum taps_kind {
  TAPS_NONE = 0,
  TAPS_FILE,  /* --taps FILE: text, .npy, raw float32 or audio, by extension */
  TAPS_IR,    /* --ir FILE: an impulse response in an audio file */
  TAPS_DESIGN /* --design SPEC */
} taps_kind;

/* Peak level --normalize aims at when given without a value, dBFS. One dB
 * of headroom leaves room for dither and for the peaks between samples that
 * a later resampling or D/A conversion reconstructs. */
#define FILTER_NORMALIZE_DEFAULT_DBFS (-1.0)

/* What --align removes from the start of the output. */
typedef enum filter_align {
  ALIGN_NONE = 0,  /* nothing: y[0] is the first output */
  ALIGN_DELAY = 1, /* --align: the taps' group delay (linear phase) */
  ALIGN_SOX = 2    /* --align=sox: floor((T - 1) / 2) for T taps, as sox's fir */
} filter_align;

typedef struct filter_options {
  const char *in_path;  /* "-" = stdin */
  const char *out_path; /* "-" = stdout */
  taps_kind taps;
  const char *taps_arg; /* the FILE or SPEC */
  audio_subtype subtype;
  convoy_engine engine;
  double gain_db; /* --gain, 0 when absent */
  int normalize;  /* --normalize given */
  double normalize_dbfs;
  int tail, dither, quiet, verbose, overwrite;
  int cold_start;     /* --cold-start: --skip/--count filter the selection as a signal of its own */
  filter_align align; /* --align, --align=sox */
  int32_t threads;    /* 0 = library default */
  int64_t fft_size;   /* 0 = cost model */
  int32_t plan_effort;   /* --plan: 0 estimate, 1 measure */
  int32_t device;        /* --device: GPU index, -1 = default */
  scale_devices devices; /* --devices: one pipeline per GPU named (captures) */
  const char *out_type;  /* --type: container of OUT when it is "-" (extension, e.g. "flac") */
  int help;              /* --help: print help and exit 0 */
  capture_args capture;  /* raw I/Q and SigMF options (cli/capture/capture_args.h) */
} filter_options;

/* Parses argv (argv[0] = "filter"). Returns CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after printing one line. With --help, o->help is set and the rest of the
 * line is not checked. */
int filter_options_parse(int argc, char **argv, filter_options *o);

#endif /* CONVOY_CLI_FILTER_OPTIONS_H */
