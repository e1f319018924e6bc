/* audio_part.c - an audio file written in parts (audio_part.h). */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "audio_part.h"

#include "io_message.h"
#include "quantize.h"
#include "sample_path.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Samples per conversion: the buffers' size. */
#define PART_CHUNK_SAMPLES 65536
/* Most header bytes before the samples (WAV's with PEAK is under 200). */
#define HEADER_ROOM 65536

int audio_part_supported(int32_t format) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  return 0; /* the samples are stored as this host holds them */
#endif
  const int32_t c = format & SF_FORMAT_TYPEMASK, s = format & SF_FORMAT_SUBMASK;
  if (c != SF_FORMAT_WAV && c != SF_FORMAT_RF64 && c != SF_FORMAT_W64) return 0;
  if ((format & SF_FORMAT_ENDMASK) != SF_ENDIAN_FILE) return 0;
  return s == SF_FORMAT_PCM_U8 || s == SF_FORMAT_PCM_16 || s == SF_FORMAT_PCM_24 ||
         s == SF_FORMAT_PCM_32 || s == SF_FORMAT_FLOAT;
}

/* ------------------------------------------------------------------ header */

/* A file that keeps only its first HEADER_ROOM bytes: libsndfile writes the
 * whole file into it, the samples vanish, the header stays. */
typedef struct header_file {
  unsigned char head[HEADER_ROOM];
  sf_count_t pos, len;
} header_file;

static sf_count_t hf_length(void *user) {
  return ((header_file *)user)->len;
}

static sf_count_t hf_seek(sf_count_t offset, int whence, void *user) {
  header_file *h = user;
  const sf_count_t p = whence == SEEK_SET   ? offset
                       : whence == SEEK_CUR ? h->pos + offset
                                            : h->len + offset;
  if (p < 0) return -1;
  h->pos = p;
  return p;
}

static sf_count_t hf_read(void *ptr, sf_count_t n, void *user) {
  header_file *h = user;
  sf_count_t got = h->len - h->pos < n ? h->len - h->pos : n;
  if (got < 0) got = 0;
  for (sf_count_t i = 0; i < got; i++) {
    const sf_count_t at = h->pos + i;
    ((unsigned char *)ptr)[i] = at < HEADER_ROOM ? h->head[at] : 0;
  }
  h->pos += got;
  return got;
}

static sf_count_t hf_write(const void *ptr, sf_count_t n, void *user) {
  header_file *h = user;
  if (h->pos < HEADER_ROOM) {
    const sf_count_t keep = HEADER_ROOM - h->pos < n ? HEADER_ROOM - h->pos : n;
    memcpy(h->head + h->pos, ptr, (size_t)keep);
  }
  h->pos += n;
  if (h->pos > h->len) h->len = h->pos;
  return n;
}

static sf_count_t hf_tell(void *user) {
  return ((header_file *)user)->pos;
}

/* Writes n frames of zeros as stored bytes (no conversion, no peak). */
static int write_zeros(SNDFILE *sf, int64_t n, sf_count_t frame_bytes) {
  static const unsigned char zeros[1 << 16];
  const int64_t per = (int64_t)sizeof zeros / frame_bytes;
  while (n > 0) {
    const int64_t k = n < per ? n : per;
    if (sf_write_raw(sf, zeros, k * frame_bytes) != k * frame_bytes) return -1;
    n -= k;
  }
  return 0;
}

/* The whole file libsndfile writes for `frames` frames (above), of which
 * only the first HEADER_ROOM bytes are kept in h. */
static convoy_status virtual_file(const audio_sink_options *opt, int64_t frames, const double *peak,
                                  const int64_t *peak_frame, header_file *h, char *err,
                                  size_t err_size) {
  const int bytes = audio_subtype_bytes(opt->format);
  if (!audio_part_supported(opt->format) || bytes <= 0 || frames < 0 || opt->channels < 1 ||
      opt->channels > CONVOY_MAX_CHANNELS) {
    io_errorf(err, err_size, "audio_part_header: format 0x%06x cannot be written in parts",
              (unsigned)opt->format);
    return CONVOY_ERR_UNSUPPORTED;
  }
  float *frame = calloc((size_t)opt->channels, sizeof *frame);
  if (!frame) {
    io_errorf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  SF_VIRTUAL_IO vio = {hf_length, hf_seek, hf_read, hf_write, hf_tell};
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.format = opt->format;
  info.channels = opt->channels;
  info.samplerate = opt->rate;
  SNDFILE *sf = sf_open_virtual(&vio, SFM_WRITE, &info, h);
  const sf_count_t frame_bytes = (sf_count_t)bytes * opt->channels;
  int bad = !sf;
  /* The samples: zeros, but for each channel's peak at its frame, so that
   * libsndfile's PEAK chunk (float subtypes) records them. */
  int64_t at = 0;
  while (!bad && at < frames) {
    int64_t next = frames;
    for (int32_t c = 0; peak && c < opt->channels; c++)
      if (peak[c] > 0 && peak_frame[c] >= at && peak_frame[c] < next) next = peak_frame[c];
    bad = write_zeros(sf, next - at, frame_bytes) != 0;
    if (bad || next == frames) break;
    for (int32_t c = 0; c < opt->channels; c++)
      frame[c] = peak[c] > 0 && peak_frame[c] == next ? (float)peak[c] : 0.0f;
    bad = sf_writef_float(sf, frame, 1) != 1;
    at = next + 1;
  }
  if (sf && sf_close(sf) != 0) bad = 1;
  free(frame);
  if (bad) {
    io_errorf(err, err_size, "libsndfile could not make the header of format 0x%06x",
              (unsigned)opt->format);
    return CONVOY_ERR_INTERNAL;
  }
  return CONVOY_OK;
}

convoy_status audio_part_header(const audio_sink_options *opt, int64_t frames, const double *peak,
                                const int64_t *peak_frame, unsigned char **header,
                                size_t *header_bytes, int64_t *file_bytes, char *err,
                                size_t err_size) {
  *header = NULL;
  *header_bytes = 0;
  header_file *h = calloc(1, sizeof *h);
  if (!h) {
    io_errorf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  /* The samples start where a file of no samples ends (the header's size
   * does not depend on their number; a chunk of odd size is padded after
   * them, not before). */
  convoy_status st = virtual_file(opt, 0, NULL, NULL, h, err, err_size);
  const sf_count_t head = h->len;
  if (st == CONVOY_OK) {
    memset(h, 0, sizeof *h);
    st = virtual_file(opt, frames, peak, peak_frame, h, err, err_size);
  }
  if (st == CONVOY_OK && (head <= 0 || head > HEADER_ROOM)) {
    io_errorf(err, err_size, "libsndfile's header of format 0x%06x is %lld bytes",
              (unsigned)opt->format, (long long)head);
    st = CONVOY_ERR_INTERNAL;
  }
  if (st == CONVOY_OK && !(*header = malloc((size_t)head))) {
    io_errorf(err, err_size, "out of memory");
    st = CONVOY_ERR_OUT_OF_MEMORY;
  }
  if (st == CONVOY_OK) {
    memcpy(*header, h->head, (size_t)head);
    *header_bytes = (size_t)head;
    *file_bytes = h->len;
  }
  free(h);
  return st;
}

convoy_status audio_part_finish(int fd, const char *name, const audio_sink_options *opt,
                                int64_t frames, const double *peak, const int64_t *peak_frame,
                                char *err, size_t err_size) {
  unsigned char *header = NULL;
  size_t header_bytes = 0;
  int64_t file_bytes = 0;
  convoy_status st = audio_part_header(opt, frames, peak, peak_frame, &header, &header_bytes,
                                       &file_bytes, err, err_size);
  if (st == CONVOY_OK && (pwrite(fd, header, header_bytes, 0) != (ssize_t)header_bytes ||
                          ftruncate(fd, (off_t)file_bytes) != 0)) {
    io_errorf(err, err_size, "%s: cannot write its header: %s", name, strerror(errno));
    st = CONVOY_ERR_IO;
  }
  free(header);
  return st;
}

/* ------------------------------------------------------------------ parts */

struct audio_part {
  int fd;
  int own_fd; /* 0: the caller's descriptor, which it flushes and closes */
  int32_t format, channels;
  int bytes; /* per sample in the file */
  sample_path path;
  quantizer q;
  int64_t next;        /* the next frame's index in the file */
  int64_t data_offset; /* bytes before frame 0 */
  int64_t frames;      /* written */
  double *ch_peak;     /* per channel: largest |x| and its first frame */
  int64_t *ch_frame;
  float *ch_top;      /* per channel: largest |x| of the chunk being written */
  void *codes;        /* PART_CHUNK_SAMPLES shorts or ints */
  unsigned char *out; /* PART_CHUNK_SAMPLES samples as stored */
  char name[];
};

static void free_part(audio_part *p) {
  free(p->ch_peak);
  free(p->ch_frame);
  free(p->ch_top);
  free(p->codes);
  free(p->out);
  free(p);
}

/* A part writing through fd (owned: flushed and closed with the part). */
static convoy_status make_part(audio_part **out, int fd, int own_fd, const char *name,
                               const audio_sink_options *opt, int64_t data_offset,
                               int64_t first_frame, char *err, size_t err_size) {
  *out = NULL;
  if (!audio_part_supported(opt->format) || opt->channels < 1 ||
      opt->channels > CONVOY_MAX_CHANNELS || data_offset < 0 || first_frame < 0) {
    io_errorf(err, err_size, "%s: this output cannot be written in parts", name);
    return CONVOY_ERR_UNSUPPORTED;
  }
  const size_t name_len = strlen(name);
  audio_part *p = calloc(1, sizeof *p + name_len + 1);
  if (!p) goto oom;
  memcpy(p->name, name, name_len + 1);
  p->fd = fd;
  p->own_fd = own_fd;
  p->format = opt->format;
  p->channels = opt->channels;
  p->bytes = audio_subtype_bytes(opt->format);
  p->path = sample_path_for(opt->format);
  quantizer_init(&p->q, p->path.kind == SAMPLE_PATH_FLOAT ? 32 : p->path.bits, opt->dither,
                 opt->seed);
  p->q.index = (uint64_t)first_frame * (uint64_t)opt->channels; /* the dither's position */
  p->next = first_frame;
  p->data_offset = data_offset;
  p->ch_peak = calloc((size_t)opt->channels, sizeof *p->ch_peak);
  p->ch_frame = calloc((size_t)opt->channels, sizeof *p->ch_frame);
  p->ch_top = calloc((size_t)opt->channels, sizeof *p->ch_top);
  p->codes = malloc(PART_CHUNK_SAMPLES * sizeof(int32_t));
  p->out = malloc((size_t)PART_CHUNK_SAMPLES * 8);
  if (!p->ch_peak || !p->ch_frame || !p->ch_top || !p->codes || !p->out) goto oom;
  *out = p;
  return CONVOY_OK;
oom:
  io_errorf(err, err_size, "%s: out of memory", name);
  if (p) {
    p->own_fd = 0; /* the caller closes fd on failure */
    free_part(p);
  }
  return CONVOY_ERR_OUT_OF_MEMORY;
}

convoy_status audio_part_open(audio_part **out, const char *path, const char *name,
                              const audio_sink_options *opt, int64_t data_offset,
                              int64_t first_frame, char *err, size_t err_size) {
  *out = NULL;
  if (!audio_part_supported(opt->format)) {
    io_errorf(err, err_size, "%s: this output cannot be written in parts", name);
    return CONVOY_ERR_UNSUPPORTED;
  }
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    io_errorf(err, err_size, "%s: cannot open its temporary file: %s", name, strerror(errno));
    return CONVOY_ERR_IO;
  }
  convoy_status st = make_part(out, fd, 1, name, opt, data_offset, first_frame, err, err_size);
  if (st != CONVOY_OK) close(fd);
  return st;
}

convoy_status audio_part_attach(audio_part **out, int fd, const char *name,
                                const audio_sink_options *opt, int64_t data_offset,
                                int64_t first_frame, char *err, size_t err_size) {
  return make_part(out, fd, 0, name, opt, data_offset, first_frame, err, err_size);
}

/* libsndfile's PEAK rule: a channel's peak moves only to a strictly larger
 * |x| (NaN never is), so it is the first frame where the largest occurs.
 * Each channel's largest |x| in the n frames comes from the quantizer's
 * vectorised running maxima where the channels tile its 16 lanes, else one
 * sample at a time; only a channel whose peak moves is searched for the
 * frame. Also keeps the part's overall peak. */
static void track_peaks(audio_part *p, const float *x, int64_t n) {
  const int32_t ch = p->channels;
  const size_t samples = (size_t)n * (size_t)ch;
  float *top = p->ch_top;
  for (int32_t c = 0; c < ch; c++) top[c] = 0.0f;
  size_t done = 0;
  if (16 % ch == 0) {
    float lanes[16] = {0};
    quantize_peak_lanes(&p->q, x, samples / 16, lanes);
    for (int j = 0; j < 16; j++) top[j % ch] = lanes[j] > top[j % ch] ? lanes[j] : top[j % ch];
    done = samples - samples % 16; /* whole frames: ch divides 16 */
  }
  for (size_t i = done; i < samples; i += (size_t)ch)
    for (int32_t c = 0; c < ch; c++) {
      const float a = fabsf(x[i + (size_t)c]);
      top[c] = a > top[c] ? a : top[c];
    }
  for (int32_t c = 0; c < ch; c++) {
    if (top[c] > p->q.peak) p->q.peak = top[c];
    if (!(top[c] > p->ch_peak[c])) continue;
    for (int64_t f = 0; f < n; f++)
      if (fabsf(x[(size_t)f * (size_t)ch + (size_t)c]) == top[c]) {
        p->ch_peak[c] = top[c];
        p->ch_frame[c] = p->next + f;
        break;
      }
  }
}

/* n samples as libsndfile stores them from the codes (or floats) given to
 * sf_write_short/int/float, little-endian, into o. */
static void store_to(int32_t format, const float *x, const void *codes, size_t n,
                     unsigned char *o) {
  const int32_t s = format & SF_FORMAT_SUBMASK;
  const short *sh = codes;
  const int32_t *in = codes;
  switch (s) {
  case SF_FORMAT_PCM_U8:
    for (size_t i = 0; i < n; i++) o[i] = (unsigned char)((sh[i] >> 8) + 0x80);
    break;
  case SF_FORMAT_PCM_16:
    memcpy(o, sh, n * 2);
    break;
  case SF_FORMAT_PCM_24: {
    /* The top three bytes of each code; four samples at a time as three
     * 32-bit words (a little-endian host: audio_part_supported), which runs
     * twice as fast as byte stores. */
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const uint32_t a = (uint32_t)in[i] >> 8, b = (uint32_t)in[i + 1] >> 8,
                     c = (uint32_t)in[i + 2] >> 8, d = (uint32_t)in[i + 3] >> 8;
      const uint32_t w[3] = {a | b << 24, b >> 8 | c << 16, c >> 16 | d << 8};
      memcpy(o + 3 * i, w, sizeof w);
    }
    for (; i < n; i++) {
      const uint32_t v = (uint32_t)in[i];
      o[3 * i] = (unsigned char)(v >> 8);
      o[3 * i + 1] = (unsigned char)(v >> 16);
      o[3 * i + 2] = (unsigned char)(v >> 24);
    }
    break;
  }
  case SF_FORMAT_PCM_32:
    memcpy(o, in, n * 4);
    break;
  case SF_FORMAT_FLOAT:
    memcpy(o, x, n * 4);
    break;
  default: /* SF_FORMAT_DOUBLE */
    for (size_t i = 0; i < n; i++) {
      const double d = x[i];
      memcpy(o + 8 * i, &d, 8);
    }
    break;
  }
}

void audio_part_store_codes(const audio_part *p, const void *codes, size_t n, void *stored) {
  store_to(p->format, NULL, codes, n, stored);
}

static int write_at(int fd, const unsigned char *b, size_t n, off_t at) {
  while (n > 0) {
    const ssize_t put = pwrite(fd, b, n, at);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return -1;
    b += put;
    n -= (size_t)put;
    at += put;
  }
  return 0;
}

/* 1 when the file stores the samples given to it byte for byte: 16-bit
 * codes as shorts, 32-bit as ints, float as floats (a little-endian host). */
static int stored_as_given(const audio_part *p) {
  const int32_t s = p->format & SF_FORMAT_SUBMASK;
  return s == SF_FORMAT_PCM_16 || s == SF_FORMAT_PCM_32 || s == SF_FORMAT_FLOAT;
}

int audio_part_stored_bytes(const audio_part *p) {
  return stored_as_given(p) ? 0 : p->bytes;
}

/* k frames as the file stores them after the last. */
static convoy_status put_stored(audio_part *p, const void *stored, int64_t k, char *err,
                                size_t err_size) {
  const size_t samples = (size_t)(k * p->channels);
  const off_t at = (off_t)(p->data_offset + p->next * (int64_t)p->bytes * p->channels);
  if (write_at(p->fd, stored, samples * (size_t)p->bytes, at) != 0) {
    io_errorf(err, err_size, "%s: write failed: %s", p->name, strerror(errno));
    return CONVOY_ERR_IO;
  }
  p->next += k;
  p->frames += k;
  return CONVOY_OK;
}

/* k frames (x: floats, codes: their codes; one of them NULL) after the last. */
static convoy_status put(audio_part *p, const float *x, const void *codes, int64_t k, char *err,
                         size_t err_size) {
  if (stored_as_given(p)) return put_stored(p, x ? (const void *)x : codes, k, err, err_size);
  store_to(p->format, x, codes, (size_t)(k * p->channels), p->out);
  return put_stored(p, p->out, k, err, err_size);
}

convoy_status audio_part_write(audio_part *p, const float *x, int64_t n, char *err,
                               size_t err_size) {
  const int64_t per = PART_CHUNK_SAMPLES / p->channels;
  while (n > 0) {
    const int64_t k = n < per ? n : per;
    const size_t samples = (size_t)(k * p->channels);
    convoy_status st;
    if (p->path.kind == SAMPLE_PATH_SHORT) {
      quantize_to_short(&p->q, x, samples, p->codes);
      st = put(p, NULL, p->codes, k, err, err_size);
    } else if (p->path.kind == SAMPLE_PATH_INT) {
      quantize_to_int(&p->q, x, samples, p->codes);
      st = put(p, NULL, p->codes, k, err, err_size);
    } else {
      track_peaks(p, x, k);
      st = put(p, x, NULL, k, err, err_size);
    }
    if (st != CONVOY_OK) return st;
    x += samples;
    n -= k;
  }
  return CONVOY_OK;
}

convoy_status audio_part_write_encoded(audio_part *p, const void *codes, int64_t n, char *err,
                                       size_t err_size) {
  if (p->path.kind != SAMPLE_PATH_SHORT && p->path.kind != SAMPLE_PATH_INT)
    return audio_part_write(p, codes, n, err, err_size); /* float: the samples themselves */
  const size_t width = p->path.kind == SAMPLE_PATH_SHORT ? sizeof(short) : sizeof(int32_t);
  const int64_t per = PART_CHUNK_SAMPLES / p->channels;
  const unsigned char *b = codes;
  while (n > 0) {
    const int64_t k = n < per ? n : per;
    convoy_status st = put(p, NULL, b, k, err, err_size);
    if (st != CONVOY_OK) return st;
    b += (size_t)(k * p->channels) * width;
    n -= k;
  }
  return CONVOY_OK;
}

convoy_status audio_part_write_stored(audio_part *p, const void *stored, int64_t n, char *err,
                                      size_t err_size) {
  return put_stored(p, stored, n, err, err_size);
}

void audio_part_get_stats(const audio_part *p, audio_part_stats *s, double *channel_peak,
                          int64_t *channel_peak_frame) {
  s->frames = p->frames;
  s->clipped = p->q.clipped;
  s->peak = p->q.peak;
  for (int32_t c = 0; c < p->channels; c++) {
    if (channel_peak) channel_peak[c] = p->ch_peak[c];
    if (channel_peak_frame) channel_peak_frame[c] = p->ch_frame[c];
  }
}

convoy_status audio_part_close(audio_part *p, char *err, size_t err_size) {
  convoy_status st = CONVOY_OK;
  if (p->own_fd && fsync(p->fd) != 0) {
    io_errorf(err, err_size, "%s: cannot flush to disk: %s", p->name, strerror(errno));
    st = CONVOY_ERR_IO;
  }
  if (p->own_fd) close(p->fd);
  free_part(p);
  return st;
}

void audio_part_abort(audio_part *p) {
  if (!p) return;
  if (p->own_fd) close(p->fd);
  free_part(p);
}
