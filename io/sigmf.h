/*
 * sigmf.h - SigMF recordings (https://github.com/sigmf/SigMF, sigmf-spec.md):
 * a JSON metadata file NAME.sigmf-meta beside the samples NAME.sigmf-data.
 * Part of convoy_io; the samples are read and written with io/capture.h.
 *
 * The metadata model keeps the whole JSON document: every key it does not
 * interpret (other namespaces, core keys such as core:author, unknown
 * top-level keys) is written back as it was read, in its place. cJSON is the
 * parser (numbers are doubles: integers are exact up to 2^53).
 *
 * What is read and checked (a violation is CONVOY_ERR_FORMAT naming the
 * file and the key: "rec.sigmf-meta: captures[1].core:sample_start: expected
 * a non-negative integer"):
 *   global       core:datatype (required, a capture.h datatype), core:version
 *                (string), core:sample_rate (> 0; convoy:sample_rate when it is
 *                absent, as convoy writes a rate below 1 Hz), core:num_channels (1 ..
 *                CONVOY_MAX_CHANNELS; channels are interleaved frames),
 *                core:offset, core:trailing_bytes (integers >= 0).
 *   captures     array of objects: core:sample_start (required, >= 0 and >=
 *                core:offset), core:frequency (number), core:global_index,
 *                core:header_bytes (integers >= 0), core:datetime (string).
 *   annotations  array of objects: core:sample_start (required), core:
 *                sample_count (integer >= 0), core:freq_lower_edge and
 *                core:freq_upper_edge (numbers), core:label (string).
 * A key given twice in one of these objects (or at the top level) is refused:
 * JSON readers differ on which one counts (cJSON the first, Python's json
 * the last).
 * Sample indices below are relative to the first sample of the dataset:
 * core:offset is subtracted on reading and added back on writing.
 *
 * Editing (for a processed output; each edit keeps the document valid):
 *   shift     the output is the input delayed by delta samples (a filter's
 *             group delay, negative when the delay was removed): every
 *             sample_start += delta. Annotations falling before sample 0 are
 *             cut at 0 or dropped; the capture segment in force at sample 0
 *             is moved to 0; a segment that began at 0 still begins at 0.
 *             When a segment start moves by k samples more than its content,
 *             core:global_index moves by k and core:datetime by k / rate
 *             (kept as is when there is no core:sample_rate or the datetime
 *             is not "YYYY-MM-DDTHH:MM:SS[.fraction]Z").
 *   decimate  output sample k is input sample k * D + phase: core:sample_rate
 *             /= D, core:offset /= D (rounded down). A capture segment starts
 *             at the first output sample at or after its input start.
 *             An annotation covers every output sample whose input period
 *             [kD + phase, (k+1)D + phase) overlaps it (never shrinks to 0).
 *             core:global_index stays an index of the original stream (of the
 *             input sample at the new start).
 *   retune    the signal was multiplied by exp(-j 2 pi delta t), as a
 *             frequency-translating filter with centre delta does: the content
 *             at +delta Hz is now at 0 Hz. core:frequency += delta in every
 *             capture that has one. Annotation edges are absolute (RF) when
 *             their capture segment has core:frequency (SigMF 1.x) and then
 *             still describe the same RF feature, so they are kept; without a
 *             known frequency they are baseband-relative and move by -delta.
 *   clip      the dataset now holds `frames` samples: annotations from there on
 *             are dropped, those reaching past it cut; capture segments
 *             starting there or later are dropped (one at 0 is kept).
 *   record    appends an object describing the processing to the global
 *             array "convoy:processing" and declares the "convoy" extension
 *             in core:extensions (optional: true), as the spec asks of
 *             namespaced keys.
 *
 * Writing (sigmf_writer): the data and the metadata are each written as a
 * temporary (io/atomic_file.h) and put in place on commit, data first, then
 * metadata; if the metadata cannot be put in place, the new data file is
 * removed, so a failed run leaves neither. At commit, core:datatype and
 * core:num_channels are set from the data written, core:version is written
 * ("1.0.0" when the input had none), and keys that describe the input's bytes
 * and no longer hold are removed: core:sha512, core:trailing_bytes,
 * core:metadata_only, core:dataset and every capture's core:header_bytes.
 * A sample rate below SIGMF_MIN_SAMPLE_RATE, which SigMF's schema does not
 * allow in core:sample_rate (a normalised rate of 1 decimated, say), is
 * written as convoy:sample_rate instead (the convoy extension declared).
 *
 * Not supported (CONVOY_ERR_UNSUPPORTED with a message): SigMF archives
 * (.sigmf, tar), collections (.sigmf-collection), core:metadata_only
 * recordings, core:header_bytes on any capture but the first.
 *
 * Errors: status + one line in err (err may be NULL). Nothing is printed.
 * Thread safety: one sigmf_meta or sigmf_writer per thread at a time;
 * distinct objects are independent.
 */
#ifndef CONVOY_SIGMF_H
#define CONVOY_SIGMF_H

#include "capture.h"
#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

/* SigMF version written when the input gave none. */
#define SIGMF_VERSION_DEFAULT "1.0.0"
/* The lowest core:sample_rate SigMF's schema allows, Hz. */
#define SIGMF_MIN_SAMPLE_RATE 1.0
/* Largest .sigmf-meta read, bytes. */
#define SIGMF_META_MAX_BYTES ((int64_t)256 << 20)

typedef struct sigmf_meta sigmf_meta;

/* ------------------------------------------------------------- model */

/* Parses len bytes of JSON text (no NUL needed). name is used in messages
 * (a file name). Invalid JSON gives "NAME: invalid JSON at line L, column C".
 * A NUL anywhere, as a byte or as \u0000 in a string, is refused (cJSON would
 * cut the string there): "NAME: global.core:datatype: the string holds a NUL
 * character (\u0000 at byte B, line L, column C)". */
convoy_status sigmf_meta_parse(sigmf_meta **meta, const char *text, size_t len, const char *name,
                               char *err, size_t err_size);

/* A minimal document for raw input: global {datatype, version, sample_rate
 * (omitted when <= 0), num_channels (when > 1)}, one capture at sample 0,
 * no annotations. */
convoy_status sigmf_meta_create(sigmf_meta **meta, capture_datatype type, int32_t channels,
                                double sample_rate, char *err, size_t err_size);

/* A deep copy. */
sigmf_meta *sigmf_meta_copy(const sigmf_meta *meta);

void sigmf_meta_free(sigmf_meta *meta); /* NULL-safe */

/* The JSON text (4-space indented, newline-terminated), malloc'd: free() it.
 * NULL when out of memory. */
char *sigmf_meta_print(const sigmf_meta *meta);

/* ------------------------------------------------------------- reading */

capture_datatype sigmf_meta_datatype(const sigmf_meta *meta);
/* core:sample_rate in Hz, else convoy:sample_rate, 0 when both are absent. */
double sigmf_meta_sample_rate(const sigmf_meta *meta);
/* core:num_channels, 1 when absent. */
int32_t sigmf_meta_channels(const sigmf_meta *meta);
/* core:version, NULL when absent; owned by meta, valid until the next edit. */
const char *sigmf_meta_version(const sigmf_meta *meta);
/* core:offset, 0 when absent. */
int64_t sigmf_meta_offset(const sigmf_meta *meta);

typedef struct sigmf_capture {
  int64_t sample_start; /* relative to the dataset's first sample */
  int has_frequency;
  double frequency; /* Hz */
  int has_global_index;
  int64_t global_index;
  int64_t header_bytes; /* 0 when absent */
  const char *datetime; /* NULL when absent; owned by meta until the next edit */
} sigmf_capture;

typedef struct sigmf_annotation {
  int64_t sample_start; /* relative to the dataset's first sample */
  int64_t sample_count; /* -1 when absent */
  int has_lower_edge, has_upper_edge;
  double lower_edge, upper_edge; /* Hz */
  const char *label;             /* NULL when absent; owned by meta until the next edit */
} sigmf_annotation;

/* Counts, and the i-th entry (0-based; -1 when i is out of range). Access by
 * index walks the array: O(i). */
int64_t sigmf_meta_capture_count(const sigmf_meta *meta);
int sigmf_meta_capture(const sigmf_meta *meta, int64_t i, sigmf_capture *out);
int64_t sigmf_meta_annotation_count(const sigmf_meta *meta);
int sigmf_meta_annotation(const sigmf_meta *meta, int64_t i, sigmf_annotation *out);

/* The raw JSON value of a key of the global object, printed unformatted,
 * malloc'd (free()); NULL when absent. For tests and diagnostics. */
char *sigmf_meta_global_json(const sigmf_meta *meta, const char *key);

/* ------------------------------------------------------------- editing */

convoy_status sigmf_meta_set_datatype(sigmf_meta *meta, capture_datatype type, char *err,
                                      size_t err_size);
convoy_status sigmf_meta_set_version(sigmf_meta *meta, const char *version, char *err,
                                     size_t err_size);
/* Sets core:sample_rate (and removes convoy:sample_rate); rate <= 0 removes
 * both. */
convoy_status sigmf_meta_set_sample_rate(sigmf_meta *meta, double rate, char *err, size_t err_size);
convoy_status sigmf_meta_shift(sigmf_meta *meta, int64_t delta, char *err, size_t err_size);
/* factor >= 1, 0 <= phase < factor. */
convoy_status sigmf_meta_decimate(sigmf_meta *meta, int64_t factor, int64_t phase, char *err,
                                  size_t err_size);
convoy_status sigmf_meta_retune(sigmf_meta *meta, double delta_hz, char *err, size_t err_size);
convoy_status sigmf_meta_clip(sigmf_meta *meta, int64_t frames, char *err, size_t err_size);

/* What was done to make an output, for sigmf_meta_record. Strings may be
 * NULL and numbers 0 (or has_* 0) to leave a field out. */
typedef struct sigmf_processing {
  const char *operation; /* "filter", "matched", ...; NULL: "filter" */
  int64_t taps;          /* filter length */
  int taps_complex;      /* 1: complex taps */
  const char *design;    /* design spec text, or */
  const char *taps_file; /* the taps file's name */
  const char *engine;    /* convoy_engine_name() of the engine used */
  int64_t decimation;    /* factor; 0 or 1: none */
  int64_t decimation_phase;
  double shift_hz;   /* retune delta; 0: none */
  int64_t delay;     /* samples the annotations were shifted by */
  const char *input; /* input file name */
  const char *input_datatype;
  int has_input_scaling;
  capture_scaling input_scaling;
  int has_output_scaling;
  capture_scaling output_scaling;
  int has_clipped;
  int64_t clipped;   /* output values saturated */
  const char *start; /* a selection of the input (--skip, --count): "warm" (the
                        samples before it were the filter's history) or
                        "cold" (it was filtered as a signal of its own);
                        NULL: the whole input, and skip and count are left out */
  int64_t skip;      /* with start: input samples before the selection */
  int64_t count;     /* with start: its length; -1 (to the input's end): left out */
} sigmf_processing;

convoy_status sigmf_meta_record(sigmf_meta *meta, const sigmf_processing *p, char *err,
                                size_t err_size);

/* ------------------------------------------------------------- files */

/* 1 when path names one file of a SigMF pair (".sigmf-meta" or ".sigmf-data"). */
int sigmf_is_path(const char *path);

/* The pair's two paths for path = BASE.sigmf-meta, BASE.sigmf-data or BASE
 * (malloc'd; free()). ".sigmf" archives and ".sigmf-collection" are refused. */
convoy_status sigmf_paths(const char *path, char **meta_path, char **data_path, char *err,
                          size_t err_size);

/* Reads the metadata of the pair named by path and checks that its dataset
 * exists and is no directory ("rec.sigmf-meta: its dataset rec.sigmf-data is
 * missing"; one that global core:dataset names says so). */
convoy_status sigmf_open(sigmf_meta **meta, const char *path, char *err, size_t err_size);

/* The dataset path of a meta from sigmf_open (NULL for parsed text). */
const char *sigmf_meta_data_path(const sigmf_meta *meta);

/* Reader options for the dataset: type, channels, header (first capture's
 * core:header_bytes), trailer, default scaling, everything (skip 0,
 * count -1). Refuses what is not supported (see the top). */
convoy_status sigmf_reader_options(const sigmf_meta *meta, capture_reader_options *options,
                                   char *err, size_t err_size);

typedef struct sigmf_writer sigmf_writer;

/* Starts writing the pair named by path (BASE, BASE.sigmf-meta or
 * BASE.sigmf-data). The data goes through sigmf_writer_data(); options as
 * for capture_writer_open. Without overwrite, an existing data or meta file
 * is refused here. */
convoy_status sigmf_writer_open(sigmf_writer **writer, const char *path,
                                const capture_writer_options *options, char *err, size_t err_size);

/* The data writer (owned by the sigmf_writer). */
capture_writer *sigmf_writer_data(sigmf_writer *writer);

/* Completes meta as described at the top (it is modified: datatype,
 * channels, version, removed keys, clip to the frames written), writes it and
 * puts both files in place. Frees writer in every case. */
convoy_status sigmf_writer_commit(sigmf_writer *writer, sigmf_meta *meta, char *err,
                                  size_t err_size);

/* Removes both temporaries and frees writer. NULL-safe. */
void sigmf_writer_discard(sigmf_writer *writer);

#endif /* CONVOY_SIGMF_H */
