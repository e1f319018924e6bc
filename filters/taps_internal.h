/*
 * taps_internal.h - shared helpers of the taps loaders (internal to libconvoy).
 *
 * Every loader reports failure as a convoy_status plus one line in err that
 * starts with the file name. Parsers work on a whole file held in memory, so
 * they never see a partial read.
 */
#ifndef CONVOY_TAPS_INTERNAL_H
#define CONVOY_TAPS_INTERNAL_H

#include "convoy_taps.h"
#include "error_internal.h" /* convoy_error_format: a one-line message into err */

#include <stddef.h>
#include <stdint.h>

/* Largest file the text, .npy and raw loaders read into memory (1 GiB: a
 * quarter of a billion float32 taps, far beyond any practical filter). */
#define TAPS_MAX_FILE_BYTES ((size_t)1 << 30)

/* Most taps per channel a loader returns (convoy_filter_create's limit). */
#define TAPS_MAX_LENGTH ((int64_t)1 << 31)

/* Copies at most max_chars bytes of src[0..len) into dst (dst_size bytes) for
 * quoting in a message: bytes outside printable ASCII become '?', and "..."
 * marks a cut. */
void taps_quote(char *dst, size_t dst_size, const char *src, size_t len, size_t max_chars);

/* Opens path and reads it whole into a malloc'd buffer with one extra NUL
 * byte after the data (*data, *size without that byte; caller frees).
 * CONVOY_ERR_IO for open/read failures ("name: No such file or directory",
 * "name: Is a directory"), CONVOY_ERR_FORMAT for a file larger than
 * TAPS_MAX_FILE_BYTES. An empty file is returned with *size = 0. Here and
 * below, name is path as messages quote it (CONVOY_QUOTE). */
convoy_status taps_read_file(const char *path, const char *name, char **data, size_t *size,
                             char *err, size_t err_size);

/* Checks that path can be opened and read (the first byte), so that a
 * loader that hands the path to another library still reports a missing
 * file, a directory or a permission problem as CONVOY_ERR_IO with the
 * system's reason, and an empty file as CONVOY_ERR_FORMAT. */
convoy_status taps_probe_file(const char *path, const char *name, char *err, size_t err_size);

/* Allocates taps->data for channels x length floats and fills the other
 * fields (rate 0). CONVOY_ERR_OUT_OF_MEMORY with a message naming name. */
convoy_status taps_alloc(convoy_taps *taps, int32_t channels, int64_t length, const char *name,
                         char *err, size_t err_size);

/* The parsers. name is used only in messages. buf holds size bytes followed
 * by a NUL byte (as taps_read_file returns it). */
convoy_status taps_parse_text(const char *name, const char *buf, size_t size, convoy_taps *taps,
                              char *err, size_t err_size);
convoy_status taps_parse_npy(const char *name, const unsigned char *buf, size_t size,
                             convoy_taps *taps, char *err, size_t err_size);
convoy_status taps_parse_raw_f32(const char *name, const unsigned char *buf, size_t size,
                                 convoy_taps *taps, char *err, size_t err_size);

/* Loads an impulse response through libsndfile. When quiet_open is nonzero
 * and libsndfile does not recognise the file, returns CONVOY_ERR_UNSUPPORTED
 * without a message (the caller then tries another format). */
convoy_status taps_load_audio(const char *path, const char *name, int quiet_open, convoy_taps *taps,
                              char *err, size_t err_size);

/* 1 when the finite double v rounds to a finite float32: |v| below the
 * midpoint between FLT_MAX and 2^128 (which rounds to even, infinity). So
 * the shortest decimal forms of FLT_MAX ("3.4028235e+38", as NumPy prints
 * it), though above FLT_MAX as doubles, are taken as FLT_MAX. */
int taps_fits_float(double v);

/* Locale-independent strtod: always reads '.' as the decimal point, whatever
 * the calling thread's LC_NUMERIC. Same contract as strtod otherwise. */
double taps_strtod(const char *s, char **end);

#endif /* CONVOY_TAPS_INTERNAL_H */
