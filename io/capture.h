/*
 * capture.h - raw sample captures: the SigMF datatypes, their scaling to and
 * from float32, a streaming reader and an atomic writer. Part of convoy_io;
 * the SigMF metadata around such data is io/sigmf.h.
 *
 * Datatypes
 *   The SigMF set (sigmf-spec "Dataset Format"): a type is complex (I/Q
 *   pairs, I first) or real, and each component is a float (f32, f64), a
 *   signed integer (i8, i16, i32) or an unsigned integer (u8, u16, u32).
 *   Multi-byte types carry an explicit byte order: "cf32_le", "ri16_be", ...;
 *   one-byte types have none: "ci8", "cu8", "ri8", "ru8". The same strings
 *   are the names a command line takes (--format). A sample is one value of
 *   every component: a complex sample is one I/Q pair. A frame is one sample
 *   of every channel (SigMF core:num_channels; channels interleaved).
 *
 * File extensions (case-insensitive), for raw files without metadata:
 *   complex  .cu8 .uc8 -> cu8         .cs8 .sc8 .c8 -> ci8
 *            .cs16 .sc16 .c16 -> ci16_le   .cu16 .uc16 -> cu16_le
 *            .cs32 .sc32 -> ci32_le        .cu32 .uc32 -> cu32_le
 *            .cf32 .fc32 .cfile -> cf32_le .cf64 .fc64 -> cf64_le
 *   real     .f32 .rf32 -> rf32_le   .f64 .rf64 -> rf64_le
 *            .s8 -> ri8  .u8 -> ru8  .s16 -> ri16_le  .u16 -> ru16_le
 *            .s32 -> ri32_le  .u32 -> ru32_le
 *   and any datatype name itself: "x.ci16_be" is ci16_be.
 *   Little-endian is the default of every extension (what SDR tools write).
 *
 * Scaling (integers <-> float): a stored code x becomes y = (x - offset) *
 * scale. Defaults, for an integer of b bits per component:
 *   signed    offset 0,          scale 2^-(b-1)   (ci16: x / 32768)
 *   unsigned  offset 2^(b-1),    scale 2^-(b-1)   (cu8: (x - 128) / 128)
 *   float     offset 0,          scale 1          (stored values as they are)
 * so every integer type maps onto [-1, 1) with the same step both ways and a
 * round trip is exact. This is what the SigMF reference library (sigmf-python,
 * autoscale) and numpy-based tools give, and it matches the GNU Radio
 * convention of full scale 1.0. rtl-sdr's "(x - 127.5) / 127.5", which
 * centres the DC of its 8-bit ADC, is offset 127.5 and scale 1/127.5: ask for
 * it explicitly. Writing applies the inverse, x = y / scale + offset, rounded
 * by the rule of pipeline/sample_quantize.h (nearest, ties up; a value whose
 * nearest code is out of range saturates and is counted as clipped, NaN is
 * written as the zero code and counted). No dither: I/Q captures are not
 * reduced to few bits for listening, and dither would add noise to every
 * later correlation.
 *
 * Errors: every function that can fail returns a convoy_status and writes one
 * line into err (err_size bytes; err may be NULL) naming the file and the
 * problem: "rec.cs16: size 1001 bytes is not a multiple of the sample size
 * 4 (ci16_le)". Nothing is printed.
 *
 * Thread safety: datatype and conversion functions are pure. A reader may be
 * shared for the *_at functions (pread, no shared position); the sequential
 * read functions and writers are for one thread at a time.
 *
 * Pipes: capture_reader_open_fd() and capture_writer_open_fd() read and
 * write a descriptor in sequence (stdin, stdout), with the same bounded
 * memory; the named-file functions keep their offsets and atomic replacement.
 */
#ifndef CONVOY_CAPTURE_H
#define CONVOY_CAPTURE_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------- datatypes */

typedef enum capture_kind {
  CAPTURE_KIND_FLOAT = 0, /* IEEE 754 binary32 / binary64 */
  CAPTURE_KIND_INT = 1,   /* two's complement */
  CAPTURE_KIND_UINT = 2   /* unsigned, offset binary after scaling */
} capture_kind;

/* One SigMF datatype. Only the combinations of the table above are valid:
 * use capture_datatype_parse or the extension functions to make one. */
typedef struct capture_datatype {
  uint8_t is_complex; /* 1: I/Q pairs */
  uint8_t kind;       /* capture_kind */
  uint8_t width;      /* bytes per component: 1, 2, 4 or 8 */
  uint8_t big_endian; /* 1: _be; always 0 for one-byte types */
} capture_datatype;

/* Longest datatype name plus its NUL ("cf64_le"). */
#define CAPTURE_DATATYPE_NAME_MAX 8

/* 1 when t is one of the SigMF datatypes. */
int capture_datatype_valid(capture_datatype t);

/* The SigMF name ("cf32_le"), static storage; NULL when t is not valid. */
const char *capture_datatype_name(capture_datatype t);

/* Parses a SigMF datatype string (exact, lower case). An unknown string gives
 * CONVOY_ERR_FORMAT with "unknown datatype 'cs16'..." naming the string and,
 * where one is near, the valid spelling. */
convoy_status capture_datatype_parse(const char *name, capture_datatype *t, char *err,
                                     size_t err_size);

/* As capture_datatype_parse, also taking the file-extension aliases of the
 * table above as names (cs16, sc16 and c16 mean ci16_le; fc32 and cfile
 * cf32_le; ...; case ignored for those), as a user naming a datatype on the
 * command line expects. SigMF metadata takes capture_datatype_parse. */
convoy_status capture_datatype_parse_alias(const char *name, capture_datatype *t, char *err,
                                           size_t err_size);

/* The datatype of a raw file from its extension (table above). Returns 0, or
 * -1 when the extension is not one of the table (t untouched). */
int capture_datatype_from_extension(const char *path, capture_datatype *t);

/* As capture_datatype_from_extension, with the error message:
 * "rec.iq: unknown capture extension '.iq'; name the datatype (e.g. cf32_le)". */
convoy_status capture_datatype_from_path(const char *path, capture_datatype *t, char *err,
                                         size_t err_size);

/* Components per sample: 2 for complex, 1 for real. */
int capture_datatype_components(capture_datatype t);

/* Bytes per sample (all components of one channel). */
int capture_datatype_sample_bytes(capture_datatype t);

/* ------------------------------------------------------------- scaling */

/* y = (x - offset) * scale from stored code x to float y; see the top. */
typedef struct capture_scaling {
  double scale;  /* finite, nonzero */
  double offset; /* finite, in code units */
} capture_scaling;

/* The documented default for t. */
capture_scaling capture_scaling_default(capture_datatype t);

/* 1 when s is usable (finite, scale nonzero). */
int capture_scaling_valid(capture_scaling s);

/* Statistics of float-to-stored conversion. */
typedef struct capture_tally {
  int64_t clipped; /* values saturated (or NaN) */
  double peak;     /* largest |y| seen, before scaling to codes (NaN ignored) */
} capture_tally;

/* n_values components stored as t (byte order included) to float. src and dst
 * must not overlap. */
void capture_to_float(capture_datatype t, capture_scaling s, const void *src, size_t n_values,
                      float *dst);

/* n_values floats to components stored as t, saturating integers; adds to
 * *tally (which the caller zeroes once). Floats are written as
 * y / scale + offset without clipping (cf32 of a value beyond float range
 * becomes infinity, counted as clipped). src and dst must not overlap. */
void capture_from_float(capture_datatype t, capture_scaling s, const float *src, size_t n_values,
                        void *dst, capture_tally *tally);

/* 1 when capture_from_float() stores floats of t with scaling s unchanged:
 * float32 of the host's byte order, scale 1, offset 0 (never clipped). */
int capture_from_float_is_copy(capture_datatype t, capture_scaling s);

/* What capture_from_float() adds to *tally for n_values floats, without
 * converting them: the peak (such floats are never clipped when stored as a
 * copy). */
void capture_tally_peak(capture_tally *tally, const float *src, size_t n_values);

/* ------------------------------------------------------------- reader */

typedef struct capture_reader capture_reader;

typedef struct capture_reader_options {
  capture_datatype type;
  int32_t channels;        /* interleaved channels, 1 .. CONVOY_MAX_CHANNELS */
  int64_t header_bytes;    /* bytes before the first frame (>= 0) */
  int64_t trailing_bytes;  /* bytes after the last frame (>= 0) */
  int64_t skip;            /* frames skipped at the start (>= 0) */
  int64_t count;           /* frames to deliver after skip; -1: up to the end */
  capture_scaling scaling; /* used by the converted reads; scale 0: the default */
} capture_reader_options;

/* Options for a plain file of type t: one channel, no header, everything,
 * default scaling. */
capture_reader_options capture_reader_defaults(capture_datatype t);

/* Opens a regular file (pipes cannot be measured: refused) and checks its
 * size: the part between header and trailer must be a whole number of
 * frames ("size N bytes is not a multiple of the frame size F"), hold at
 * least one frame, and skip/count must lie inside it ("skip of N samples is
 * past the end (M samples)"; "skip N + count C is past the end ..."). Sizes
 * and offsets are 64-bit throughout. Memory: one staging buffer of at most
 * CAPTURE_STAGE_BYTES, whatever the file size. */
convoy_status capture_reader_open(capture_reader **reader, const char *path,
                                  const capture_reader_options *options, char *err,
                                  size_t err_size);

/* Opens a reader on a descriptor read in sequence with read() (stdin, a
 * pipe; `name`, e.g. "stdin", names it in messages). fd stays the caller's:
 * close() does not close it. Memory: one staging buffer of at most
 * CAPTURE_STAGE_BYTES.
 *   A regular file on fd (stdin redirected from a file) is measured from
 *   its current offset and checked as capture_reader_open() checks a file.
 *   A pipe cannot be measured: its frame count is unknown (the count
 *   functions below return -1; with options->count they return it) until
 *   the sequential reads reach its end, and the size errors come from those
 *   reads instead: "stdin: ends inside a sample: 3 bytes after sample 1000
 *   (a cf32_le sample is 8 bytes)" (CONVOY_ERR_FORMAT), skip or skip + count
 *   past the end. A file or pipe with no samples is an empty capture. trailing_bytes must be 0 for
 * a pipe. The header and the skipped frames are read and dropped here (a seek on a regular file),
 * so a skip past the end of a pipe is reported here. Only the sequential reads work on such a
 * reader: capture_reader_read_raw_at() gives CONVOY_ERR_INVALID_ARGUMENT and
 * capture_reader_rewind() does nothing. */
convoy_status capture_reader_open_fd(capture_reader **reader, int fd, const char *name,
                                     const capture_reader_options *options, char *err,
                                     size_t err_size);

/* Moves the delivered range to [skip, skip + count) (count -1: to the end)
 * before the first read: a measured input (a file, or a regular file on a
 * descriptor) goes there and is checked as at open; a pipe only goes
 * forward, reading and dropping the frames between ("skip of N samples is
 * past the end" when it ends first), and a count past its end is reported
 * by the reads. CONVOY_ERR_INVALID_ARGUMENT once reading has begun, or for
 * a pipe going back. */
convoy_status capture_reader_set_range(capture_reader *reader, int64_t skip, int64_t count,
                                       char *err, size_t err_size);

/* On a pipe whose length is unknown, before the first read: reads the
 * next up to max_frames frames (after the header and skip dropped at open)
 * ahead and holds them, so that *ended says whether the pipe ends within
 * them and *held how many whole frames it gave. The sequential reads then
 * deliver the held bytes first, exactly as if read then, and report what
 * they would have (a partial sample at the end, a count or skip past it).
 * Memory: max_frames frames and one byte, until they are read. Nothing
 * happens (*held 0, *ended 0) on a measured input, once reading has begun,
 * or a second time. */
convoy_status capture_reader_look_ahead(capture_reader *reader, int64_t max_frames, int64_t *held,
                                        int *ended, char *err, size_t err_size);

/* Staging buffer of the converted sequential read, bytes. */
#define CAPTURE_STAGE_BYTES (1 << 20)

/* Frames in the file (between header and trailer, skip not applied); -1
 * for a pipe until its end has been read. */
int64_t capture_reader_file_frames(const capture_reader *reader);

/* Frames this reader delivers (count, or file frames - skip); -1 for a pipe
 * without count until its end has been read. */
int64_t capture_reader_frames(const capture_reader *reader);

/* Frames still to deliver through the sequential reads (-1: unknown, as
 * above). */
int64_t capture_reader_remaining(const capture_reader *reader);

/* Reads up to max_frames frames at the current position as interleaved float
 * (frames * channels * components values: I,Q,I,Q... per channel), scaled;
 * *got = 0 at the end. A file that shrank since open is reported as
 * CONVOY_ERR_IO "truncated". */
convoy_status capture_reader_read(capture_reader *reader, float *out, int64_t max_frames,
                                  int64_t *got, char *err, size_t err_size);

/* As capture_reader_read, the bytes as stored (frames * frame bytes): for a
 * caller that converts elsewhere (on a GPU). */
convoy_status capture_reader_read_raw(capture_reader *reader, void *out, int64_t max_frames,
                                      int64_t *got, char *err, size_t err_size);

/* Reads frames [first, first + n) of the delivered range (0 = the first frame
 * after skip) as stored bytes, without moving the sequential position.
 * Thread-safe on a shared reader. The range must lie inside the delivered
 * frames (CONVOY_ERR_INVALID_ARGUMENT otherwise). */
convoy_status capture_reader_read_raw_at(const capture_reader *reader, int64_t first, int64_t n,
                                         void *out, char *err, size_t err_size);

/* Back to the first delivered frame. */
void capture_reader_rewind(capture_reader *reader);

/* The options in effect (scaling resolved to the default when it was 0). */
const capture_reader_options *capture_reader_get_options(const capture_reader *reader);

void capture_reader_close(capture_reader *reader);

/* ------------------------------------------------------------- writer */

typedef struct capture_writer capture_writer;

typedef struct capture_writer_options {
  capture_datatype type;
  int32_t channels;        /* 1 .. CONVOY_MAX_CHANNELS */
  capture_scaling scaling; /* scale 0: the default of type */
  int overwrite;           /* 1: an existing file may be replaced */
  int shared;              /* 1: the temporary is named (io/atomic_file.h,
                              atomic_file_create_shared), so that other processes
                              can write parts of it through capture_writer_open_at */
} capture_writer_options;

/* Creates a temporary beside path (io/atomic_file.h); path itself appears only
 * at commit. Without overwrite an existing path is refused here. */
convoy_status capture_writer_open(capture_writer **writer, const char *path,
                                  const capture_writer_options *options, char *err,
                                  size_t err_size);

/* A writer that appends to the descriptor fd in sequence (stdout, a pipe;
 * `name`, e.g. "stdout", names it in messages): no temporary, no rename,
 * options->overwrite ignored. fd stays the caller's. What was written stays
 * written: commit only frees the writer, and discard cannot take frames
 * back from a pipe. */
convoy_status capture_writer_open_fd(capture_writer **writer, int fd, const char *name,
                                     const capture_writer_options *options, char *err,
                                     size_t err_size);

/* A writer of part of a file being written by another writer (the
 * "owner"): it opens path, which must exist (the owner's
 * capture_writer_reopen_path), and writes its frames in place from frame
 * first_frame on (pwrite), so that several writers, on threads or in other
 * processes, fill one output. name names the output in messages. Commit
 * flushes the part to disk and closes it; only the owner's commit puts the
 * file in place, and its discard removes it. options->overwrite and
 * ->shared are ignored. */
convoy_status capture_writer_open_at(capture_writer **writer, const char *path, const char *name,
                                     const capture_writer_options *options, int64_t first_frame,
                                     char *err, size_t err_size);

/* A path through which capture_writer_open_at reaches this writer's
 * temporary (buf, 64 bytes or more, may hold it): valid in this process, and
 * in every process when the writer was opened shared. NULL for a writer
 * without a temporary (open_fd, open_at). */
const char *capture_writer_reopen_path(const capture_writer *writer, char *buf, size_t size);

/* Converts and appends frames (frames * channels * components floats). */
convoy_status capture_writer_write(capture_writer *writer, const float *x, int64_t frames,
                                   char *err, size_t err_size);

/* 1 when capture_writer_write stores the floats it is given byte for byte
 * (float32 in the host's order, default scaling), so that a caller may keep
 * the peak itself, elsewhere, and hand the floats to capture_writer_write_raw. */
int capture_writer_stores_floats(const capture_writer *writer);

/* Appends frames already in the stored format (frames * frame bytes). */
convoy_status capture_writer_write_raw(capture_writer *writer, const void *bytes, int64_t frames,
                                       char *err, size_t err_size);

/* Counts `frames` written into this writer's temporary by its parts
 * (capture_writer_open_at), so that capture_writer_frames, and the SigMF
 * metadata made from it, count the whole file. */
void capture_writer_add_parts(capture_writer *writer, int64_t frames);

/* Frames written so far and the clipping tally of capture_writer_write. */
int64_t capture_writer_frames(const capture_writer *writer);
capture_tally capture_writer_tally(const capture_writer *writer);

/* Flushes, syncs and puts the temporary in place; frees writer in every
 * case. On failure nothing is left at path (an old file stays untouched). */
convoy_status capture_writer_commit(capture_writer *writer, char *err, size_t err_size);

/* capture_writer_commit with `after` (an atomic file that belongs with it,
 * such as the metadata of a SigMF dataset) put in place right after the
 * writer's temporary (atomic_file_commit_with); a writer on a descriptor of
 * its own commits `after` alone once its data is synced. Frees both in
 * every case. */
struct atomic_file; /* io/atomic_file.h */
convoy_status capture_writer_commit_with(capture_writer *writer, struct atomic_file *after,
                                         char *err, size_t err_size);

/* Removes the temporary and frees writer. NULL-safe. */
void capture_writer_discard(capture_writer *writer);

#endif /* CONVOY_CAPTURE_H */
