/*
 * sample_path.h - how floats reach a libsndfile subtype: the width we
 * quantise to ourselves and the sf_writef_* call that carries it.
 * Internal to convoy_io.
 */
#ifndef CONVOY_SAMPLE_PATH_H
#define CONVOY_SAMPLE_PATH_H

typedef enum sample_path_kind {
  SAMPLE_PATH_SHORT, /* quantise to `bits` (8 or 16), write left-justified shorts */
  SAMPLE_PATH_INT,   /* quantise to `bits` (20, 24 or 32), write left-justified ints */
  SAMPLE_PATH_FLOAT, /* write floats unchanged (float and double subtypes) */
  SAMPLE_PATH_LOSSY  /* clamp to [-1, 1] and write floats (Vorbis, Opus, MPEG) */
} sample_path_kind;

typedef struct sample_path {
  sample_path_kind kind;
  int bits; /* integer width for SHORT and INT; 32 or 64 for FLOAT; 16 for LOSSY */
} sample_path;

/* Path for the subtype in a libsndfile format (container bits ignored).
 * Subtypes libsndfile codes from 16-bit integers (u-law, A-law, ADPCM, GSM,
 * ALAC 16, ...) take the 16-bit short path, so that clipping and dither are
 * ours for them too. */
sample_path sample_path_for(int sf_format);

#endif /* CONVOY_SAMPLE_PATH_H */
