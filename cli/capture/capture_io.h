/*
 * capture_io.h - which files `convoy filter` treats as captures, and opening
 * them: the input (raw or SigMF, with --format, --rate, --skip, --count,
 * --scale, --offset applied) and the output (raw or SigMF, its datatype and
 * scaling).
 *
 * IN is a capture when --format is given, when its extension is one of
 * io/capture.h's table, when it ends in .sigmf-meta, .sigmf-data or .sigmf,
 * or when it is the base name of a SigMF pair (BASE.sigmf-meta exists and
 * BASE does not).
 *
 * OUT's datatype: --out-format, else OUT's extension (io/capture.h's table),
 * else IN's. OUT is SigMF when it ends in .sigmf-meta or .sigmf-data, or
 * when IN is SigMF and OUT has no capture extension (OUT is then the base
 * name: OUT.sigmf-meta and OUT.sigmf-data). Otherwise it is a raw file.
 *
 * `-` (stdin, stdout): a `-` input is a capture when --format, another
 * capture option or a capture output name is given, and needs --format
 * (SigMF cannot come from a pipe); it is read in sequence, --skip by
 * reading and discarding (after the history a warm start keeps), and
 * options that need the length first (--pulse-len, --mode valid) need
 * --count. Under `--engine auto` without --count, a pipe is first read
 * ahead up to a short input's length (capture_reader_look_ahead), so that
 * it runs the engine a file of the same bytes would. A `-` output is raw (datatype
 * --out-format, else IN's; no metadata), appended as chunks complete.
 *
 * Scaling: IN's is its datatype's default, or --scale/--offset. OUT's is
 * --out-scale/--out-offset, else IN's when OUT has IN's datatype (a round
 * trip keeps the codes), else the default of OUT's datatype.
 *
 * Every function prints its one error line itself (cli/common/diag.h) and returns a
 * CLI_EXIT_* status.
 */
#ifndef CONVOY_CLI_CAPTURE_IO_H
#define CONVOY_CLI_CAPTURE_IO_H

#include "capture.h"
#include "filter_options.h"
#include "sigmf.h"

#include <stdint.h>

/* 1 when o->in_path (with o's options) is a capture, by the rule above. */
int capture_is_input(const filter_options *o);

typedef struct capture_in {
  const char *name;          /* IN as given, for messages */
  sigmf_meta *meta;          /* SigMF input; NULL for a raw file */
  const char *data_path;     /* the file of samples */
  capture_reader_options ro; /* type, channels, header, skip, count, scaling */
  double rate;               /* Hz: --rate, else core:sample_rate; 0 unknown */
  int64_t skip;              /* --skip: frames before the selection */
  int64_t count;             /* --count: frames selected; -1: to the end */
  int64_t frames;            /* frames selected (count, or what follows skip); -1: unknown
                                until a pipe ends */
  int64_t piped_frames;      /* frames selected from a pipe that `auto` read to its end
                                ahead (capture_reader_look_ahead); -1: none such */
  int warm;                  /* --skip/--count select part of IN, filtered as part of IN
                                (cli/filter/pass_warm.h); 0 with --cold-start, for
                                --pulse-len, or without a selection */
  capture_reader *reader;    /* delivers [skip, skip + count); a warm pipe from its
                                first frame (the pass moves it, capture_reader_set_range) */
} capture_in;

/* Opens IN, checks it (size, skip and count inside it) and resolves --skip
 * and --count given in seconds with the rate. */
int capture_in_open(const filter_options *o, capture_in *in);
void capture_in_close(capture_in *in); /* NULL-safe on a zeroed struct */

typedef struct capture_out {
  const char *name; /* OUT as given */
  int sigmf;        /* write a SigMF pair */
  capture_writer_options wo;
  sigmf_writer *sigmf_writer; /* when sigmf */
  capture_writer *writer;     /* raw file, or the SigMF pair's data writer */
} capture_out;

/* Decides OUT's form, datatype and scaling for the input `in` and opens the
 * writer (a temporary; nothing appears at OUT before commit). shared: the
 * samples' temporary is named, so that other processes can write parts of
 * it (capture_writer_open_at). */
int capture_out_open(const filter_options *o, const capture_in *in, int shared, capture_out *out);

/* capture_out_open's decisions and checks alone, opening nothing: what the
 * processes of a split run that write into another's temporary need. */
int capture_out_plan(const filter_options *o, const capture_in *in, int shared, capture_out *out);

/* Puts OUT in place: the raw file, or the SigMF pair with `meta` (edited as
 * sigmf_writer_commit() says). Frees the writers in every case. */
int capture_out_commit(capture_out *out, sigmf_meta *meta);

/* Removes the temporaries. NULL-safe on a zeroed struct. */
void capture_out_discard(capture_out *out);

#endif /* CONVOY_CLI_CAPTURE_IO_H */
