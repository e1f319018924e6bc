/*
 * header_frames.h - what an audio file's header promises, read from
 * libsndfile's parse log (SFC_GET_LOG_INFO). Internal to convoy_io.
 *
 * libsndfile quietly shortens a WAV, AIFF or AU file whose data chunk is
 * cut off (sf_info.frames counts what is there), so a truncated file would
 * read as a shorter, valid one. The declared size survives only in the log
 * ("data : 19200 (should be 12785)"). Lines read, by container (checked
 * against libsndfile 1.2):
 *   WAV, WAVEX   "data : BYTES"
 *   W64          "data : BYTES" (includes the 24-byte chunk header)
 *   RF64         "Data size : BYTES" (ds64 chunk)
 *   AIFF, AIFC   "Frames : N" (COMM chunk)
 *   AU           "Data Size : BYTES"
 * Byte counts become frames for uncompressed subtypes only. 32-bit sizes
 * from 0x7FFFF000 up are the placeholders streaming writers put in a header
 * they cannot seek back to (sox 0x7FFFF000, ffmpeg and libsndfile 0xFFFFFFFF)
 * and count as unknown; a truncated WAV over 2 GiB is therefore not caught
 * here (RF64 is). Other streaming writers leave a WAV's data size at 0, which
 * libsndfile takes at its word: header_wav_unsized() tells that case, and the
 * reader (audio_source.c) then reads the samples that follow to the end.
 */
#ifndef CONVOY_HEADER_FRAMES_H
#define CONVOY_HEADER_FRAMES_H

#include <stdint.h>

/* Frames the header declares, or -1 when the log does not say (other
 * containers, compressed subtypes, placeholders). format: libsndfile
 * container | subtype; channels >= 1. */
int64_t header_declared_frames(const char *log, int format, int channels);

/* When the log is a RIFF WAV's (WAV, WAVEX; not RIFX) whose data chunk
 * declares 0 bytes, in an uncompressed subtype (format: container | subtype),
 * so that samples following it can be read as raw frames: the bytes of one
 * sample. 0 otherwise. */
int header_wav_unsized(const char *log, int format);

/* 1 when the log says the stream stops before its end (an Ogg file without
 * its end-of-stream page), else 0. */
int header_log_says_cut_short(const char *log);

#endif /* CONVOY_HEADER_FRAMES_H */
