/*
 * audio_part.h - an audio file written in parts at once, by threads or by
 * the processes of an MPI job: each part quantizes its frames as
 * audio_sink would at their place in the file (the same codes, dither
 * placed by the sample's position) and writes them in place (pwrite) into
 * a file that exists; the file's header, made through libsndfile for the
 * whole length and the parts' peaks, goes in last. audio_sink writes its
 * files of these formats as one part. The bytes are those libsndfile writes
 * for the same frames (a float file's PEAK chunk carries libsndfile's time
 * stamp, as any; a NaN never counts in its peaks, where libsndfile lets one
 * that opens a write call hide that call's peak). Internal to convoy_io.
 *
 * Containers: WAV, RF64 and W64 (one data chunk after the header, nothing
 * after it); subtypes PCM 8 (unsigned in WAV), 16, 24 and 32 bits and
 * float (double is left out: libsndfile's PEAK of a double file follows its
 * own conversion). Little-endian hosts. Not thread-safe per part; distinct parts may
 * be used from distinct threads.
 */
#ifndef CONVOY_AUDIO_PART_H
#define CONVOY_AUDIO_PART_H

#include "audio_file.h"
#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

/* 1 when audio files of `format` can be written in parts (above). */
int audio_part_supported(int32_t format);

/* The header libsndfile writes for a file of opt's format holding `frames`
 * frames; for the float subtype, with channel c's PEAK value peak[c] at
 * frame peak_frame[c] (NULL: silence). *header (malloc'd, the caller frees
 * it) holds the *header_bytes bytes before the samples, which start there
 * whatever their number; *file_bytes is the whole file's length (a chunk
 * of odd size is padded after the samples: extend the file to it). */
convoy_status audio_part_header(const audio_sink_options *opt, int64_t frames, const double *peak,
                                const int64_t *peak_frame, unsigned char **header,
                                size_t *header_bytes, int64_t *file_bytes, char *err,
                                size_t err_size);

/* Writes that header (for `frames` frames and the channels' peaks, as
 * above) at the start of the file open at fd, and gives the file its whole
 * length. name names the output in messages. */
convoy_status audio_part_finish(int fd, const char *name, const audio_sink_options *opt,
                                int64_t frames, const double *peak, const int64_t *peak_frame,
                                char *err, size_t err_size);

typedef struct audio_part audio_part;

/* Opens path (which must exist) to write frames from first_frame on,
 * data_offset bytes (the header's) into the file; name names the output in
 * messages. */
convoy_status audio_part_open(audio_part **part, const char *path, const char *name,
                              const audio_sink_options *opt, int64_t data_offset,
                              int64_t first_frame, char *err, size_t err_size);

/* The same on fd, an open descriptor of that file which stays the
 * caller's: audio_part_close and _abort neither flush nor close it. */
convoy_status audio_part_attach(audio_part **part, int fd, const char *name,
                                const audio_sink_options *opt, int64_t data_offset,
                                int64_t first_frame, char *err, size_t err_size);

/* Quantizes n interleaved frames and writes them after the part's last. */
convoy_status audio_part_write(audio_part *part, const float *frames, int64_t n, char *err,
                               size_t err_size);

/* Writes n frames already quantized after the part's last: codes as
 * audio_sink_encode gives them (shorts for 8 and 16 bits, left-justified
 * ints for 24 and 32; for float, the samples, whose peaks are kept). */
convoy_status audio_part_write_encoded(audio_part *part, const void *codes, int64_t n, char *err,
                                       size_t err_size);

/* Samples the file does not store as given (8 and 24-bit PCM; double,
 * which has no codes): the bytes a sample takes as stored, else 0. audio_part_store_codes turns n
 * samples of codes into that stored form in `stored` (reading only the
 * part's format: any thread, any number at once), and
 * audio_part_write_stored writes n frames of it after the part's last,
 * bitwise what audio_part_write_encoded of the codes writes. */
int audio_part_stored_bytes(const audio_part *part);
void audio_part_store_codes(const audio_part *part, const void *codes, size_t n, void *stored);
convoy_status audio_part_write_stored(audio_part *part, const void *stored, int64_t n, char *err,
                                      size_t err_size);

/* What the part wrote: frames, clipped samples, largest |sample|, and per
 * channel (arrays of the file's channels) the largest |sample| and the
 * first frame (of the file) where it occurs, as libsndfile's PEAK chunk
 * counts them. */
typedef struct audio_part_stats {
  int64_t frames, clipped;
  double peak;
} audio_part_stats;
void audio_part_get_stats(const audio_part *part, audio_part_stats *stats, double *channel_peak,
                          int64_t *channel_peak_frame);

/* Flushes the part to disk and closes it (an attached one: neither);
 * frees part in every case. */
convoy_status audio_part_close(audio_part *part, char *err, size_t err_size);

/* Closes without flushing (the output is being discarded; an attached
 * part's descriptor stays open). NULL-safe. */
void audio_part_abort(audio_part *part);

#endif /* CONVOY_AUDIO_PART_H */
