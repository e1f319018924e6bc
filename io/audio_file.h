/*
 * audio_file.h - reading and writing audio files through libsndfile (internal
 * to the convoy program and tests; part of the convoy_io library).
 *
 * Errors: functions return a convoy_status and write one line into err that
 * names the file and the problem ("in.wav: truncated: got 1000 of 4800 frames").
 */
#ifndef CONVOY_AUDIO_FILE_H
#define CONVOY_AUDIO_FILE_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

/* Output sample encodings the CLI offers; AUDIO_SUBTYPE_SAME keeps the input's. */
typedef enum audio_subtype {
  AUDIO_SUBTYPE_SAME = 0,
  AUDIO_SUBTYPE_PCM16,
  AUDIO_SUBTYPE_PCM24,
  AUDIO_SUBTYPE_PCM32,
  AUDIO_SUBTYPE_FLOAT,
  AUDIO_SUBTYPE_DOUBLE
} audio_subtype;

/* "pcm16" etc.; returns -1 for an unknown name. */
int audio_subtype_from_name(const char *name, audio_subtype *subtype);

/* ------------------------------------------------------------------ reading */

typedef struct audio_source audio_source;

typedef struct audio_info {
  int64_t frames; /* -1 when unknown: a pipe whose header holds no real
                     size, an Ogg file libsndfile cannot measure */
  int32_t channels;
  int32_t rate;   /* Hz */
  int32_t format; /* libsndfile SF_FORMAT_* (container | subtype) */
} audio_info;

/* Opens path for reading ("-" = stdin, which must not be a terminal).
 * Rejects unreadable, unsupported and corrupt files; an empty file (0
 * frames) opens and reads as nothing, while a pipe that ends before its
 * first frame is an error; a WAV/AIFF/AU/W64/RF64 file shorter than its header says is
 * reported as "truncated: got X of N frames" (CONVOY_ERR_FORMAT) here, other
 * truncations when reading reaches them. Samples are read as float: integer
 * codes divided by 2^(bits-1). Not thread-safe per source. */
convoy_status audio_source_open(audio_source **src, const char *path, audio_info *info, char *err,
                                size_t err_size);

/* Reads up to max_frames (>= 1) interleaved float frames into frames
 * (max_frames * channels floats); *got = 0 at the end. Reports a truncated
 * file (fewer frames than the header says), a decoding error, and a pipe
 * that ends before its first frame as CONVOY_ERR_FORMAT. */
convoy_status audio_source_read(audio_source *src, float *frames, int64_t max_frames, int64_t *got,
                                char *err, size_t err_size);

/* Reads only frames [skip, skip + count) from now on (count -1: to the end;
 * audio_source_rewind goes back to skip): a seek, or on a pipe the skipped
 * frames read and dropped at the first read. A range past the end of a file
 * of known length is CONVOY_ERR_FORMAT here ("--skip N frames is past the
 * end (M frames)"); on a pipe, at the first read. count 0 is invalid. */
convoy_status audio_source_set_range(audio_source *src, int64_t skip, int64_t count, char *err,
                                     size_t err_size);

/* The sample format the file's samples take without losing or changing a
 * bit: CONVOY_FORMAT_S16 for 16-bit PCM (whose codes divided by 2^15 are
 * exactly the floats audio_source_read gives), CONVOY_FORMAT_S32 for 24-bit
 * PCM (the codes left-justified: divided by 2^31, exactly those floats),
 * CONVOY_FORMAT_F32 otherwise. */
convoy_sample_format audio_source_native_format(const audio_source *src);

/* audio_source_read() in audio_source_native_format(): frames holds
 * max_frames * channels samples of that format, 16-bit codes as they are
 * stored (on the GPU, the bus carries half the bytes) and 24-bit ones as
 * 32-bit codes, so a stream converts them (24-bit codes cost the reader
 * less than floats). Same errors and end checks. */
convoy_status audio_source_read_native(audio_source *src, void *frames, int64_t max_frames,
                                       int64_t *got, char *err, size_t err_size);

/* 24-bit PCM in a WAV, RF64 or W64 (of this host's byte order) can also be
 * read as stored and unpacked on several threads: audio_source_stored_bytes()
 * is 3 for such a source, else 0; audio_source_read_stored() reads frames
 * as the file stores them (3 bytes a sample) into bytes, with the errors,
 * range and end checks of audio_source_read(); audio_source_unpack_parallel()
 * turns n_frames of them into the left-justified 32-bit codes of
 * audio_source_read_native() on the threads of pool (NULL: the calling
 * thread), touching nothing of the source. */
struct worker_pool;
size_t audio_source_stored_bytes(const audio_source *src);
convoy_status audio_source_read_stored(audio_source *src, void *bytes, int64_t max_frames,
                                       int64_t *got, char *err, size_t err_size);
void audio_source_unpack_parallel(const audio_source *src, const void *bytes, int64_t n_frames,
                                  void *codes, struct worker_pool *pool);

/* Back to the first frame, of the range when one is set (not for pipes:
 * CONVOY_ERR_UNSUPPORTED). */
convoy_status audio_source_rewind(audio_source *src, char *err, size_t err_size);

void audio_source_close(audio_source *src);

/* ------------------------------------------------------------------ writing */

typedef struct audio_sink audio_sink;

typedef struct audio_sink_options {
  int32_t format; /* libsndfile container | subtype for the output */
  int32_t channels;
  int32_t rate;
  int dither;    /* 1: TPDF dither when the subtype has <= 16 bits */
  uint64_t seed; /* dither noise seed */
} audio_sink_options;

typedef struct audio_sink_stats {
  int64_t frames;  /* frames written */
  int64_t clipped; /* samples that were saturated to full scale */
  double peak;     /* largest |sample| before saturation, linear (1.0 = 0 dBFS) */
} audio_sink_stats;

/* Output format for path: container from its extension (wav wave w64 rf64
 * flac aif aiff aifc au snd caf ogg oga opus; case ignored), subtype from
 * `subtype` or, when AUDIO_SUBTYPE_SAME, from input_format when the
 * container can hold it, else the container's usual one for the input's
 * depth (FLAC: at most 24 bits, so float input gives pcm24; lossy or
 * unknown input (0): pcm16). .ogg/.oga are Vorbis and .opus is Opus, with no
 * explicit subtype allowed. path "-" (stdout) keeps the input's container
 * (WAV when input_format is 0). Fails (CONVOY_ERR_INVALID_ARGUMENT) for an
 * unknown extension or an impossible combination such as float in FLAC. */
convoy_status audio_output_format(const char *path, int32_t input_format, audio_subtype subtype,
                                  int32_t *format, char *err, size_t err_size);

/* Bytes of samples a file of `format` can hold: WAV, AIFF and AU count
 * their sizes in 32 bits, so about 4 GiB (less room for the header); 0 for
 * containers without such a limit (RF64, W64, CAF, FLAC, Ogg). The
 * environment variable CONVOY_IO_TEST_SIZE_LIMIT (bytes) lowers a nonzero
 * limit: a test hook, read here only. */
int64_t audio_container_limit(int32_t format);

/* Bytes one sample of format's subtype takes in the file: 1 .. 8 for PCM and
 * float subtypes, 0 for compressed ones (whose size is not known). */
int audio_subtype_bytes(int32_t format);

/* Opens a temporary file in path's directory (io/atomic_file.h: unnamed, or
 * ".NAME.convoy-PID-XXXXXX" where the file system lacks O_TMPFILE). Refuses
 * an existing path unless overwrite (checked now and again, atomically, at
 * commit); with overwrite, path must be a regular file (a symlink is
 * followed). The temporary is removed on audio_sink_abort, on a failed
 * write or commit, and on the signals of audio_install_signal_cleanup.
 * path "-" writes stdout directly: no temporary, nothing to remove, and
 * libsndfile writes only AU, CAF, Ogg and raw to a pipe (any format to a
 * regular file). Not thread-safe per sink. */
convoy_status audio_sink_open(audio_sink **sink, const char *path, const audio_sink_options *opt,
                              int overwrite, char *err, size_t err_size);

/* Writes interleaved float frames: integer subtypes saturate (never wrap),
 * and a write that would take the samples past audio_container_limit fails
 * (CONVOY_ERR_UNSUPPORTED, the output removed) rather than leave a file
 * whose size fields are wrong; with TPDF dither at <= 16 bits when enabled; clips and peak are
 * counted (the exact rule is in io/quantize.h: x = +1.0 counts as clipped in integer output, -1.0
 * does not). Float and double subtypes take samples unchanged, beyond +-1.0 too, and count no
 * clips; Vorbis and Opus clamp to +-1.0 and count what they clamp. After a failed write the
 * temporary is already removed and only commit (which then fails) or abort may follow. */
convoy_status audio_sink_write(audio_sink *sink, const float *frames, int64_t n_frames, char *err,
                               size_t err_size);

/* The same write in two steps, so that quantizing (step 1) can run on
 * another thread than the system calls (step 2), in order, chunk after chunk:
 * audio_sink_encoded_bytes() is the bytes per sample of the encoded form (0
 * when the subtype takes the floats unchanged: then use audio_sink_write);
 * audio_sink_encode() quantizes n_frames frames into codes (counting clips
 * and peak, advancing the dither position) and audio_sink_write_encoded()
 * writes them. Encoding all frames and writing them in order gives bitwise
 * what audio_sink_write() gives. The two may run on two threads, but each
 * only on one at a time. */
size_t audio_sink_encoded_bytes(const audio_sink *sink);
void audio_sink_encode(audio_sink *sink, const float *frames, int64_t n_frames, void *codes);

/* audio_sink_encode() with integer codes made on the threads of pool
 * (pool_create of pipeline/worker_pool.h; NULL: the calling thread alone):
 * the sink's own quantizer in contiguous ranges, each from its position,
 * bitwise the same codes and counts, since dither depends only on the
 * sample's position. */
struct worker_pool;
void audio_sink_encode_parallel(audio_sink *sink, const float *frames, int64_t n_frames,
                                void *codes, struct worker_pool *pool);
convoy_status audio_sink_write_encoded(audio_sink *sink, const void *codes, int64_t n_frames,
                                       char *err, size_t err_size);

/* Codes the file does not store as given (8 and 24-bit PCM in a WAV, RF64
 * or W64 that the sink writes itself): the bytes a sample takes stored (1
 * or 3), else 0. audio_sink_store_parallel() turns n_frames frames of
 * codes (as audio_sink_encode() makes them) into that stored form on the
 * threads of pool (NULL: the calling thread), touching nothing of the sink;
 * audio_sink_write_stored() writes them: bitwise what
 * audio_sink_write_encoded() of the codes writes, without its packing on
 * the writing thread. */
size_t audio_sink_stored_bytes(const audio_sink *sink);
void audio_sink_store_parallel(const audio_sink *sink, const void *codes, int64_t n_frames,
                               void *stored, struct worker_pool *pool);
convoy_status audio_sink_write_stored(audio_sink *sink, const void *stored, int64_t n_frames,
                                      char *err, size_t err_size);

/* The codes audio_sink_encode() makes for a sink of opt, in the terms of a
 * convoy stream's integer output: 1 with *format (CONVOY_FORMAT_S16 for
 * subtypes of up to 16 bits, S32 above) and *bits (the subtype's
 * significant bits) for integer subtypes (either pointer may be NULL, to
 * ask only whether), 0 for float and lossy ones. A
 * stream with these, dither = opt->dither and dither_seed = opt->seed, whose
 * first output sample is the file's first, makes bitwise the codes
 * audio_sink_encode() would make of its float output (one quantizer, the
 * library's, and the dither of each sample's position): they go to
 * audio_sink_write_encoded(), and their counts to audio_sink_add_tally(). */
int audio_sink_codes_format(const audio_sink_options *opt, convoy_sample_format *format,
                            int32_t *bits);

/* Adds clipped samples and a peak of codes made elsewhere (a stream's
 * convoy_stream_output_stats) to the sink's statistics. */
void audio_sink_add_tally(audio_sink *sink, int64_t clipped, double peak);

/* Closes the file, fsyncs it and puts the temporary in place of path (without
 * overwrite, never replacing a file that appeared meanwhile). On failure the
 * temporary is removed and path untouched. Frees the sink in every case. */
convoy_status audio_sink_commit(audio_sink *sink, char *err, size_t err_size);

/* Closes and removes the temporary; path is untouched. Frees the sink. NULL-safe. */
void audio_sink_abort(audio_sink *sink);

/* Counts so far; call before commit or abort, which free the sink. */
void audio_sink_get_stats(const audio_sink *sink, audio_sink_stats *stats);

/* Installs SIGINT, SIGTERM, SIGHUP and SIGPIPE handlers that remove open
 * temporaries, then die of the same signal, and an atexit hook that removes
 * them on exit(). A signal ignored at the time of the call stays ignored.
 * Call once at program start, from the main thread (idempotent). */
void audio_install_signal_cleanup(void);

#endif /* CONVOY_AUDIO_FILE_H */
