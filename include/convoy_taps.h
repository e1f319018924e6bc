/*
 * convoy_taps.h - filter taps: loading from files, windowed-sinc design and
 * frequency responses.
 *
 * Part of libconvoy. Functions here return a convoy_status and, on failure,
 * write one line into err (err_size bytes, always NUL-terminated, may be
 * NULL/0) that names the file or the spec and the problem, for example
 * "taps.txt: line 3: 'abc' is not a number". They never print or exit.
 * All functions are thread-safe (no shared state).
 */
#ifndef CONVOY_TAPS_H
#define CONVOY_TAPS_H

#include "convoy.h"
#include "convoy_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A set of taps: one or more channels of equal length, planar. */
typedef struct convoy_taps {
  int32_t channels;   /* >= 1 */
  int64_t length;     /* taps per channel, >= 1 */
  float *data;        /* channels * length floats; channel c at data + c * length; owned.
                         Complex taps: channels * length (re, im) pairs, channel c at
                         data + 2 * c * length, the layout of convoy_filter_create_typed's
                         CONVOY_SAMPLE_CF32 taps */
  double rate;        /* sample rate in Hz the taps were made for; 0 = unknown */
  int32_t is_complex; /* 1: complex taps (from a complex .npy); 0: real */
} convoy_taps;

typedef enum convoy_taps_format {
  CONVOY_TAPS_AUTO = 0,    /* by extension, case-insensitive: .txt/.csv/.dat/.taps text,
                              .npy, .f32/.raw/.bin raw float32, an extension libsndfile
                              lists (.wav .flac .aiff .ogg ...) audio; any other extension,
                              or none, audio if libsndfile opens it, else text */
  CONVOY_TAPS_TEXT = 1,    /* numbers separated by newlines, commas, spaces or tabs;
                              '#' starts a comment that runs to the end of the line; two
                              numbers on every one of two or more lines is a table (complex
                              (re, im) columns, say), refused rather than read as one list */
  CONVOY_TAPS_NPY = 2,     /* NumPy .npy (format 1.0/2.0/3.0), '<f4' or '<f8' (also '>f4',
                              '>f8'), shape (n,), (n,1) or (1,n) (the same n values in either
                              order); float64 values must fit float32. Complex '<c8' or '<c16'
                              (also '>c8', '>c16'), the same shapes, give complex taps
                              (is_complex = 1), as np.save() writes complex64/complex128 */
  CONVOY_TAPS_RAW_F32 = 3, /* raw little-endian float32, length = bytes / 4 */
  CONVOY_TAPS_AUDIO = 4    /* impulse response in any file libsndfile reads; one
                              channel of taps per file channel; rate from the file */
} convoy_taps_format;

/** Loads taps from path ("-" is not accepted). Rejects an empty file, a
 *  value that is not a number, NaN or Inf, and a file with no taps. On
 *  success *taps owns new memory (free with convoy_taps_free). */
CONVOY_API convoy_status convoy_taps_load(const char *path, convoy_taps_format format,
                                          convoy_taps *taps, char *err, size_t err_size);

/** Frees taps->data and zeroes *taps. NULL-safe. */
CONVOY_API void convoy_taps_free(convoy_taps *taps);

typedef enum convoy_design_type {
  CONVOY_DESIGN_LOWPASS = 0,
  CONVOY_DESIGN_HIGHPASS = 1,
  CONVOY_DESIGN_BANDPASS = 2,
  CONVOY_DESIGN_BANDSTOP = 3
} convoy_design_type;

/** A windowed-sinc (Kaiser) design. Frequencies in Hz. */
typedef struct convoy_design {
  convoy_design_type type;
  double rate;   /* sample rate, Hz, > 0 */
  double cutoff; /* lowpass/highpass: the -6 dB edge, 0 < cutoff < rate/2 */
  double low;    /* bandpass/bandstop: lower edge, 0 < low < high */
  double high;   /* bandpass/bandstop: upper edge, high < rate/2 */
  double width;  /* transition width, Hz, > 0; 0 = derive from taps (needs taps).
                    Centred on each edge: the edges +-width/2 must stay in 0..rate/2,
                    and a band must be at least width wide */
  double atten;  /* stopband attenuation, dB, 20..120; 0 = default 80. Rounding the
                    taps to float32 adds up to 2^-24 * sum|taps| of error, which caps
                    what the float taps reach at roughly 130..150 dB; 120 dB is what
                    they still meet, so more is refused */
  int64_t taps;  /* explicit tap count, 1..2^24 (odd for highpass/bandstop); 0 = from
                    width/atten. Exactly one of width and taps is nonzero */
} convoy_design;

/** "lowpass", "highpass", "bandpass" or "bandstop"; "unknown" otherwise.
 *  Static storage. */
CONVOY_API const char *convoy_design_type_name(convoy_design_type type);

/** Parses "TYPE:key=value,..." with TYPE lowpass|highpass|bandpass|bandstop and
 *  keys cutoff (lowpass/highpass), low and high (bandpass/bandstop), width,
 *  atten, taps, rate; names are case-insensitive, blanks around items and
 *  empty items are ignored, numbers use '.' whatever the locale. rate= in the
 *  spec wins over the rate argument; rate may be 0 when the spec has rate=
 *  (else "needs a sample rate: add rate=HZ"). Checks every range listed in
 *  convoy_design (cutoff below Nyquist, positive widths, low < high,
 *  transition bands inside 0..Nyquist) and exactly one of width and taps.
 *  Errors are CONVOY_ERR_INVALID_ARGUMENT, the message starting with the spec:
 *  "lowpass:cutoff=30000,taps=31: cutoff 30000 Hz is not below Nyquist (24000
 *  Hz)". The checks that hold at any rate (convoy_design_parse_spec) come
 *  first. */
CONVOY_API convoy_status convoy_design_parse(const char *spec, double rate, convoy_design *design,
                                             char *err, size_t err_size);

/** The part of convoy_design_parse that needs no sample rate: the syntax,
 *  the required keys, and every range that holds at any rate (edges above 0
 *  and in order, atten, taps, one of width and taps). design->rate is rate=
 *  from the spec or 0. A spec that passes may still fail
 *  convoy_design_parse at a given rate (an edge at or above its Nyquist, or
 *  no rate at all); one that fails here fails there too, with the same
 *  message. For checking a spec before the rate is known. */
CONVOY_API convoy_status convoy_design_parse_spec(const char *spec, convoy_design *design,
                                                  char *err, size_t err_size);

/** Computes the taps of a design: symmetric (linear phase), unity gain at DC
 *  (lowpass, bandstop), Nyquist (highpass) or the band centre (bandpass).
 *  From width: odd length, starting from Kaiser's estimate and grown until the
 *  measured response meets the spec (passband ripple and stopband level both
 *  within 10^(-atten/20)). From taps: exactly that many, Kaiser beta from
 *  atten. Validates like convoy_design_parse. *taps is one channel, rate =
 *  design->rate. */
CONVOY_API convoy_status convoy_design_taps(const convoy_design *design, convoy_taps *taps,
                                            char *err, size_t err_size);

/** The most points convoy_taps_response computes. */
#define CONVOY_RESPONSE_MAX_POINTS ((int64_t)1 << 20)

/** One frequency of a response (convoy_taps_response). */
typedef struct convoy_response_point {
  double frequency;    /* cycles per sample, 0 .. 0.5 (times the sample rate: Hz) */
  double magnitude_db; /* 20 log10 |H(f)|; -INFINITY where H(f) is exactly 0 */
  double phase;        /* arg H(f), radians, unwrapped along the grid from f = 0 as
                          numpy.unwrap does (a step beyond pi between neighbours is a
                          wrap); where H(f) is exactly 0, the previous point's */
  double group_delay;  /* -d(phase)/d(omega), samples, from Re(DFT(n h[n]) / H(f));
                          NaN where H(f) is exactly 0 */
} convoy_response_point;

/** The frequency response H(f) = sum_n taps[n] e^(-2 pi i f n) of `length`
 *  real taps at `points` frequencies evenly spaced from 0 to half the sample
 *  rate, both included: point k is at k / (2 (points - 1)) cycles per sample.
 *  Computed in double precision from the float taps, with exact DFTs of the
 *  taps folded onto the grid's period (any length and number of points,
 *  O(length + points log points) work; about 256 bytes of scratch per
 *  point). points is 2 .. CONVOY_RESPONSE_MAX_POINTS. One channel of a
 *  convoy_taps is taps->data + c * taps->length; complex taps (whose
 *  response spans -rate/2 .. rate/2) are not handled. Errors:
 *  CONVOY_ERR_INVALID_ARGUMENT (a NULL pointer, length < 1, points out of
 *  range, a NaN or infinite tap), CONVOY_ERR_OUT_OF_MEMORY. */
CONVOY_API convoy_status convoy_taps_response(const float *taps, int64_t length, int64_t points,
                                              convoy_response_point *response, char *err,
                                              size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_TAPS_H */
