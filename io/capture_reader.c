/* capture_reader.c - streaming reads of raw captures with pread and 64-bit
 * offsets; memory bounded by one staging buffer. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "capture.h"
#include "io_message.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct capture_reader {
  int fd;
  char *path;
  capture_reader_options opt;
  int64_t frame_bytes;
  int64_t file_frames; /* between header and trailer */
  int64_t frames;      /* delivered: count or file_frames - skip */
  int64_t position;    /* next delivered frame of the sequential reads */
  unsigned char *stage;
  int64_t stage_frames; /* frames that fit in stage */
};

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

capture_reader_options capture_reader_defaults(capture_datatype t) {
  capture_reader_options o;
  memset(&o, 0, sizeof o);
  o.type = t;
  o.channels = 1;
  o.count = -1;
  o.scaling = capture_scaling_default(t);
  return o;
}

static convoy_status check_options(const char *path, capture_reader_options *o, char *err,
                                   size_t err_size) {
  const char *type = capture_datatype_name(o->type);
  if (!type) {
    io_errorf(err, err_size, "%s: invalid datatype", path);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (o->channels < 1 || o->channels > CONVOY_MAX_CHANNELS) {
    io_errorf(err, err_size, "%s: %" PRId32 " channels is out of range (1 .. %d)", path,
              o->channels, CONVOY_MAX_CHANNELS);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (o->header_bytes < 0 || o->trailing_bytes < 0 || o->skip < 0 || o->count < -1) {
    io_errorf(err, err_size, "%s: negative header, trailer, skip or count", path);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (o->scaling.scale == 0.0 && o->scaling.offset == 0.0)
    o->scaling = capture_scaling_default(o->type);
  if (!capture_scaling_valid(o->scaling)) {
    io_errorf(err, err_size, "%s: scale must be finite and nonzero, offset finite", path);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return CONVOY_OK;
}

/* Checks the file's size against the options and fills the frame counts. */
static convoy_status measure(capture_reader *r, int64_t size, char *err, size_t err_size) {
  const capture_reader_options *o = &r->opt;
  const char *type = capture_datatype_name(o->type);
  if (o->header_bytes > size || o->trailing_bytes > size - o->header_bytes) {
    io_errorf(err, err_size,
              "%s: size %" PRId64 " bytes is smaller than its header (%" PRId64
              ") and trailer (%" PRId64 ")",
              r->path, size, o->header_bytes, o->trailing_bytes);
    return CONVOY_ERR_FORMAT;
  }
  const int64_t data = size - o->header_bytes - o->trailing_bytes;
  if (data % r->frame_bytes != 0) {
    io_errorf(err, err_size,
              "%s: size %" PRId64 " bytes is not a multiple of the %s size %" PRId64 " (%s%s%s)",
              r->path, data, o->channels > 1 ? "frame" : "sample", r->frame_bytes, type,
              o->channels > 1 ? ", channels " : "", o->channels > 1 ? "interleaved" : "");
    return CONVOY_ERR_FORMAT;
  }
  r->file_frames = data / r->frame_bytes;
  if (r->file_frames == 0) {
    io_errorf(err, err_size, "%s: holds no samples", r->path);
    return CONVOY_ERR_FORMAT;
  }
  if (o->skip >= r->file_frames) {
    io_errorf(err, err_size,
              "%s: skip of %" PRId64 " samples is past the end (%" PRId64 " samples)", r->path,
              o->skip, r->file_frames);
    return CONVOY_ERR_FORMAT;
  }
  if (o->count == -1) {
    r->frames = r->file_frames - o->skip;
  } else if (o->count == 0 || o->count > r->file_frames - o->skip) {
    io_errorf(err, err_size,
              "%s: skip %" PRId64 " + count %" PRId64 " samples is past the end (%" PRId64
              " samples)",
              r->path, o->skip, o->count, r->file_frames);
    return CONVOY_ERR_FORMAT;
  } else {
    r->frames = o->count;
  }
  return CONVOY_OK;
}

convoy_status capture_reader_open(capture_reader **out, const char *path,
                                  const capture_reader_options *options, char *err,
                                  size_t err_size) {
  if (!out || !path || !options) {
    io_errorf(err, err_size, "capture_reader_open: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  capture_reader_options o = *options;
  convoy_status st = check_options(path, &o, err, err_size);
  if (st != CONVOY_OK) return st;

  capture_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = dup_string(path))) {
    free(r);
    io_errorf(err, err_size, "%s: out of memory", path);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  r->opt = o;
  r->frame_bytes = (int64_t)capture_datatype_sample_bytes(o.type) * o.channels;
  r->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (r->fd < 0) {
    io_errorf(err, err_size, "%s: %s", path, strerror(errno));
    capture_reader_close(r);
    return CONVOY_ERR_IO;
  }
  struct stat sb;
  if (fstat(r->fd, &sb) != 0) {
    io_errorf(err, err_size, "%s: %s", path, strerror(errno));
    capture_reader_close(r);
    return CONVOY_ERR_IO;
  }
  if (!S_ISREG(sb.st_mode)) {
    io_errorf(err, err_size, "%s: not a regular file (captures are read by offset)", path);
    capture_reader_close(r);
    return CONVOY_ERR_IO;
  }
  st = measure(r, (int64_t)sb.st_size, err, err_size);
  if (st != CONVOY_OK) {
    capture_reader_close(r);
    return st;
  }
  /* The staging buffer holds whole frames; a frame is never larger than
   * 1024 channels x 16 bytes, well under the bound. */
  r->stage_frames = CAPTURE_STAGE_BYTES / r->frame_bytes;
  if (r->stage_frames > r->frames) r->stage_frames = r->frames;
  r->stage = malloc((size_t)(r->stage_frames * r->frame_bytes));
  if (!r->stage) {
    io_errorf(err, err_size, "%s: out of memory", path);
    capture_reader_close(r);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
#ifdef POSIX_FADV_SEQUENTIAL
  (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  *out = r;
  return CONVOY_OK;
}

int64_t capture_reader_file_frames(const capture_reader *r) {
  return r ? r->file_frames : 0;
}
int64_t capture_reader_frames(const capture_reader *r) {
  return r ? r->frames : 0;
}
int64_t capture_reader_remaining(const capture_reader *r) {
  return r ? r->frames - r->position : 0;
}
const capture_reader_options *capture_reader_get_options(const capture_reader *r) {
  return r ? &r->opt : NULL;
}
void capture_reader_rewind(capture_reader *r) {
  if (r) r->position = 0;
}

/* pread of exactly `bytes` bytes at byte offset `at`, retrying short reads. */
static convoy_status read_fully(const capture_reader *r, int64_t at, void *dst, int64_t bytes,
                                char *err, size_t err_size) {
  unsigned char *p = dst;
  while (bytes > 0) {
    size_t want = bytes > (int64_t)1 << 30 ? (size_t)1 << 30 : (size_t)bytes;
    ssize_t got = pread(r->fd, p, want, (off_t)at);
    if (got < 0) {
      if (errno == EINTR) continue;
      io_errorf(err, err_size, "%s: read error at byte %" PRId64 ": %s", r->path, at,
                strerror(errno));
      return CONVOY_ERR_IO;
    }
    if (got == 0) {
      io_errorf(err, err_size, "%s: truncated: the file ended at byte %" PRId64 " while reading",
                r->path, at);
      return CONVOY_ERR_IO;
    }
    p += got;
    at += got;
    bytes -= got;
  }
  return CONVOY_OK;
}

convoy_status capture_reader_read_raw_at(const capture_reader *r, int64_t first, int64_t n,
                                         void *out, char *err, size_t err_size) {
  if (!r || (!out && n > 0) || first < 0 || n < 0 || first > r->frames - n) {
    io_errorf(err, err_size, "%s: frames [%" PRId64 ", +%" PRId64 ") are outside the capture",
              r ? r->path : "capture", first, n);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const int64_t at = r->opt.header_bytes + (r->opt.skip + first) * r->frame_bytes;
  return read_fully(r, at, out, n * r->frame_bytes, err, err_size);
}

convoy_status capture_reader_read_raw(capture_reader *r, void *out, int64_t max_frames,
                                      int64_t *got, char *err, size_t err_size) {
  *got = 0;
  if (!r || max_frames < 0) {
    io_errorf(err, err_size, "capture_reader_read_raw: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  int64_t n = r->frames - r->position;
  if (n > max_frames) n = max_frames;
  convoy_status st = capture_reader_read_raw_at(r, r->position, n, out, err, err_size);
  if (st != CONVOY_OK) return st;
  r->position += n;
  *got = n;
  return CONVOY_OK;
}

convoy_status capture_reader_read(capture_reader *r, float *out, int64_t max_frames, int64_t *got,
                                  char *err, size_t err_size) {
  *got = 0;
  if (!r || max_frames < 0) {
    io_errorf(err, err_size, "capture_reader_read: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const int64_t values_per_frame =
      (int64_t)capture_datatype_components(r->opt.type) * r->opt.channels;
  int64_t total = 0;
  while (total < max_frames && r->position < r->frames) {
    int64_t n = r->frames - r->position;
    if (n > max_frames - total) n = max_frames - total;
    if (n > r->stage_frames) n = r->stage_frames;
    convoy_status st = capture_reader_read_raw_at(r, r->position, n, r->stage, err, err_size);
    if (st != CONVOY_OK) return st;
    capture_to_float(r->opt.type, r->opt.scaling, r->stage, (size_t)(n * values_per_frame),
                     out + total * values_per_frame);
    r->position += n;
    total += n;
  }
  *got = total;
  return CONVOY_OK;
}

void capture_reader_close(capture_reader *r) {
  if (!r) return;
  if (r->fd >= 0) close(r->fd);
  free(r->stage);
  free(r->path);
  free(r);
}
