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
  int sequential;   /* opened by capture_reader_open_fd: read(), never pread */
  int owns_fd;      /* close fd at close (capture_reader_open) */
  int length_known; /* file_frames known: a regular file (0: a pipe) */
  char *path;
  capture_reader_options opt;
  int64_t frame_bytes;
  int64_t file_frames; /* between header and trailer */
  int64_t frames;      /* delivered: count or file_frames - skip; a pipe without
                          count: INT64_MAX until its end is read */
  int64_t position;    /* next delivered frame of the sequential reads */
  unsigned char *stage;
  int64_t stage_frames; /* frames that fit in stage */
  unsigned char *ahead; /* a pipe's bytes read ahead (capture_reader_look_ahead) */
  int64_t ahead_len;    /* bytes held */
  int64_t ahead_pos;    /* bytes of them already delivered */
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

static convoy_status check_range(capture_reader *r, char *err, size_t err_size);

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
  return check_range(r, err, err_size);
}

/* Checks skip and count against the file's frames and sets r->frames. */
static convoy_status check_range(capture_reader *r, char *err, size_t err_size) {
  const capture_reader_options *o = &r->opt;
  if (o->skip > 0 && o->skip >= r->file_frames) {
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

/* A reader named name with checked options and no descriptor yet. */
static convoy_status reader_new(capture_reader **out, const char *name,
                                const capture_reader_options *options, char *err, size_t err_size) {
  *out = NULL;
  capture_reader_options o = *options;
  convoy_status st = check_options(name, &o, err, err_size);
  if (st != CONVOY_OK) return st;
  capture_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = dup_string(name))) {
    free(r);
    io_errorf(err, err_size, "%s: out of memory", name);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  r->fd = -1;
  r->opt = o;
  r->frame_bytes = (int64_t)capture_datatype_sample_bytes(o.type) * o.channels;
  *out = r;
  return CONVOY_OK;
}

/* The staging buffer holds whole frames, at most the frames delivered (a
 * frame is never larger than 1024 channels x 16 bytes, well under the
 * bound). A sequential reader's is CAPTURE_STAGE_BYTES whatever the count:
 * it also reads and drops the skipped start. */
static convoy_status alloc_stage(capture_reader *r, char *err, size_t err_size) {
  r->stage_frames = CAPTURE_STAGE_BYTES / r->frame_bytes;
  if (r->stage_frames > r->frames) r->stage_frames = r->frames;
  r->stage =
      malloc(r->sequential ? CAPTURE_STAGE_BYTES : (size_t)(r->stage_frames * r->frame_bytes));
  if (!r->stage) {
    io_errorf(err, err_size, "%s: out of memory", r->path);
    return CONVOY_ERR_OUT_OF_MEMORY;
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
  capture_reader *r = NULL;
  convoy_status st = reader_new(&r, path, options, err, err_size);
  if (st != CONVOY_OK) return st;
  r->owns_fd = 1;
  r->length_known = 1;
  r->fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (r->fd < 0 || fstat(r->fd, &sb) != 0) {
    io_errorf(err, err_size, "%s: %s", path, strerror(errno));
    st = CONVOY_ERR_IO;
  } else if (!S_ISREG(sb.st_mode)) {
    io_errorf(err, err_size, "%s: not a regular file (captures are read by offset)", path);
    st = CONVOY_ERR_IO;
  }
  if (st == CONVOY_OK) st = measure(r, (int64_t)sb.st_size, err, err_size);
  if (st == CONVOY_OK) st = alloc_stage(r, err, err_size);
  if (st != CONVOY_OK) {
    capture_reader_close(r);
    return st;
  }
#ifdef POSIX_FADV_SEQUENTIAL
  (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  *out = r;
  return CONVOY_OK;
}

/* read() until `bytes` bytes or the end of the input, the bytes read ahead
 * first; *got says how many. */
static convoy_status read_some(capture_reader *r, void *dst, int64_t bytes, int64_t *got, char *err,
                               size_t err_size) {
  unsigned char *p = dst;
  *got = 0;
  if (r->ahead) {
    const int64_t n = r->ahead_len - r->ahead_pos < bytes ? r->ahead_len - r->ahead_pos : bytes;
    memcpy(p, r->ahead + r->ahead_pos, (size_t)n);
    r->ahead_pos += n;
    *got = n;
    if (r->ahead_pos == r->ahead_len) {
      free(r->ahead);
      r->ahead = NULL;
    }
  }
  while (*got < bytes) {
    int64_t left = bytes - *got;
    size_t want = left > (int64_t)1 << 30 ? (size_t)1 << 30 : (size_t)left;
    ssize_t n = read(r->fd, p + *got, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      io_errorf(err, err_size, "%s: read error after %" PRId64 " samples: %s", r->path,
                r->opt.skip + r->position, strerror(errno));
      return CONVOY_ERR_IO;
    }
    if (n == 0) break;
    *got += n;
  }
  return CONVOY_OK;
}

/* Reads and drops up to `want` bytes of a pipe through the stage buffer;
 * *done says how many there were before its end. */
static convoy_status drop_bytes(capture_reader *r, int64_t want, int64_t *done, char *err,
                                size_t err_size) {
  *done = 0;
  while (*done < want) {
    int64_t n = want - *done < CAPTURE_STAGE_BYTES ? want - *done : CAPTURE_STAGE_BYTES, got = 0;
    convoy_status st = read_some(r, r->stage, n, &got, err, err_size);
    if (st != CONVOY_OK) return st;
    *done += got;
    if (got < n) break;
  }
  return CONVOY_OK;
}

/* Reads and drops the header and the skipped frames of a sequential input:
 * a seek on a regular file, the stage buffer's worth at a time on a pipe. */
static convoy_status skip_start(capture_reader *r, char *err, size_t err_size) {
  if (r->opt.skip > (INT64_MAX - r->opt.header_bytes) / r->frame_bytes) {
    io_errorf(err, err_size, "%s: skip of %" PRId64 " samples is past the end of any input",
              r->path, r->opt.skip);
    return CONVOY_ERR_FORMAT;
  }
  const int64_t want = r->opt.header_bytes + r->opt.skip * r->frame_bytes;
  if (r->length_known) {
    if (want > 0 && lseek(r->fd, (off_t)want, SEEK_CUR) < 0) {
      io_errorf(err, err_size, "%s: cannot seek past the skipped samples: %s", r->path,
                strerror(errno));
      return CONVOY_ERR_IO;
    }
    return CONVOY_OK;
  }
  int64_t done = 0;
  convoy_status st = drop_bytes(r, want, &done, err, err_size);
  if (st != CONVOY_OK || done == want) return st;
  if (done < r->opt.header_bytes)
    io_errorf(err, err_size, "%s: ended after %" PRId64 " bytes, inside its header (%" PRId64 ")",
              r->path, done, r->opt.header_bytes);
  else
    io_errorf(err, err_size,
              "%s: skip of %" PRId64 " samples is past the end (%" PRId64 " samples)", r->path,
              r->opt.skip, (done - r->opt.header_bytes) / r->frame_bytes);
  return CONVOY_ERR_FORMAT;
}

convoy_status capture_reader_open_fd(capture_reader **out, int fd, const char *name,
                                     const capture_reader_options *options, char *err,
                                     size_t err_size) {
  if (!out || fd < 0 || !name || !options) {
    io_errorf(err, err_size, "capture_reader_open_fd: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  capture_reader *r = NULL;
  convoy_status st = reader_new(&r, name, options, err, err_size);
  if (st != CONVOY_OK) return st;
  r->fd = fd;
  r->sequential = 1;
  struct stat sb;
  off_t at = -1;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) at = lseek(fd, 0, SEEK_CUR);
  if (at >= 0) {
    /* A regular file on the descriptor: measured and checked as a named one. */
    r->length_known = 1;
    st = measure(r, (int64_t)sb.st_size - (int64_t)at, err, err_size);
  } else if (r->opt.trailing_bytes > 0) {
    io_errorf(err, err_size, "%s: a trailer cannot be held back from a pipe", name);
    st = CONVOY_ERR_INVALID_ARGUMENT;
  } else {
    r->frames = r->opt.count == -1 ? INT64_MAX : r->opt.count;
    if (r->opt.count == 0) {
      io_errorf(err, err_size, "%s: count of 0 samples selects nothing", name);
      st = CONVOY_ERR_FORMAT;
    }
  }
  if (st == CONVOY_OK) st = alloc_stage(r, err, err_size);
  if (st == CONVOY_OK) st = skip_start(r, err, err_size);
  if (st != CONVOY_OK) {
    capture_reader_close(r);
    return st;
  }
  *out = r;
  return CONVOY_OK;
}

convoy_status capture_reader_look_ahead(capture_reader *r, int64_t max_frames, int64_t *held,
                                        int *ended, char *err, size_t err_size) {
  *held = 0;
  *ended = 0;
  if (!r || max_frames < 0 || max_frames > (INT64_MAX - 1) / r->frame_bytes) {
    io_errorf(err, err_size, "capture_reader_look_ahead: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (!r->sequential || r->length_known || r->position != 0 || r->ahead) return CONVOY_OK;
  const int64_t want = max_frames * r->frame_bytes + 1; /* one more: has it ended? */
  unsigned char *buf = malloc((size_t)want);
  if (!buf) {
    io_errorf(err, err_size, "%s: out of memory reading %" PRId64 " bytes ahead", r->path, want);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  int64_t got = 0;
  convoy_status st = read_some(r, buf, want, &got, err, err_size);
  if (st != CONVOY_OK || got == 0) {
    free(buf);
    *ended = st == CONVOY_OK;
    return st;
  }
  r->ahead = buf;
  r->ahead_len = got;
  r->ahead_pos = 0;
  *held = got / r->frame_bytes;
  *ended = got < want;
  return CONVOY_OK;
}

/* Up to n whole frames of a sequential input into dst. At the end of a
 * pipe the frame count becomes known; what ends it early is an error. */
static convoy_status next_sequential(capture_reader *r, void *dst, int64_t n, int64_t *got,
                                     char *err, size_t err_size) {
  int64_t bytes = 0;
  convoy_status st = read_some(r, dst, n * r->frame_bytes, &bytes, err, err_size);
  if (st != CONVOY_OK) return st;
  const int64_t whole = bytes / r->frame_bytes, seen = r->opt.skip + r->position + whole;
  const char *type = capture_datatype_name(r->opt.type);
  if (bytes % r->frame_bytes != 0) {
    io_errorf(err, err_size,
              "%s: ends inside a %s: %" PRId64 " bytes after sample %" PRId64
              " (a %s %s is %" PRId64 " bytes)",
              r->path, r->opt.channels > 1 ? "frame" : "sample", bytes % r->frame_bytes, seen, type,
              r->opt.channels > 1 ? "frame" : "sample", r->frame_bytes);
    return CONVOY_ERR_FORMAT;
  }
  if (whole < n) {
    if (r->length_known) {
      io_errorf(err, err_size, "%s: truncated: ended after %" PRId64 " samples while reading",
                r->path, seen);
      return CONVOY_ERR_IO;
    }
    if (r->opt.count != -1) {
      io_errorf(err, err_size,
                "%s: skip %" PRId64 " + count %" PRId64 " samples is past the end (%" PRId64
                " samples)",
                r->path, r->opt.skip, r->opt.count, seen);
      return CONVOY_ERR_FORMAT;
    }
    if (r->position + whole == 0 && r->opt.skip > 0) {
      io_errorf(err, err_size,
                "%s: skip of %" PRId64 " samples is past the end (%" PRId64 " samples)", r->path,
                r->opt.skip, seen);
      return CONVOY_ERR_FORMAT;
    }
    r->frames = r->position + whole;
    r->file_frames = seen;
  }
  *got = whole;
  return CONVOY_OK;
}

/* The next up to max_frames delivered frames as stored bytes. */
static convoy_status next_frames(capture_reader *r, void *dst, int64_t max_frames, int64_t *got,
                                 char *err, size_t err_size) {
  *got = 0;
  int64_t n = r->frames - r->position;
  if (n > max_frames) n = max_frames;
  if (n <= 0) return CONVOY_OK;
  convoy_status st = r->sequential
                         ? next_sequential(r, dst, n, &n, err, err_size)
                         : capture_reader_read_raw_at(r, r->position, n, dst, err, err_size);
  if (st != CONVOY_OK) return st;
  r->position += n;
  *got = n;
  return CONVOY_OK;
}

convoy_status capture_reader_set_range(capture_reader *r, int64_t skip, int64_t count, char *err,
                                       size_t err_size) {
  if (!r || skip < 0 || count < -1 || count == 0 || r->position != 0) {
    io_errorf(err, err_size, "capture_reader_set_range: bad range, or the reads have begun");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const int64_t old = r->opt.skip;
  if (r->sequential && !r->length_known && skip < old) {
    io_errorf(err, err_size, "%s: a pipe cannot go back to sample %" PRId64 " (at %" PRId64 ")",
              r->path, skip, old);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (skip > (INT64_MAX - r->opt.header_bytes) / r->frame_bytes) {
    io_errorf(err, err_size, "%s: skip of %" PRId64 " samples is past the end of any input",
              r->path, skip);
    return CONVOY_ERR_FORMAT;
  }
  r->opt.skip = skip;
  r->opt.count = count;
  convoy_status st = CONVOY_OK;
  if (r->length_known) {
    st = check_range(r, err, err_size);
    if (st == CONVOY_OK && r->sequential &&
        lseek(r->fd, (off_t)((skip - old) * r->frame_bytes), SEEK_CUR) < 0) {
      io_errorf(err, err_size, "%s: cannot seek to sample %" PRId64 ": %s", r->path, skip,
                strerror(errno));
      st = CONVOY_ERR_IO;
    }
  } else {
    r->frames = count == -1 ? INT64_MAX : count;
    int64_t done = 0;
    const int64_t want = (skip - old) * r->frame_bytes;
    st = drop_bytes(r, want, &done, err, err_size);
    if (st == CONVOY_OK && done < want) {
      io_errorf(err, err_size,
                "%s: skip of %" PRId64 " samples is past the end (%" PRId64 " samples)", r->path,
                skip, old + done / r->frame_bytes);
      st = CONVOY_ERR_FORMAT;
    }
  }
  if (st != CONVOY_OK) return st;
  free(r->stage); /* sized for the frames delivered */
  r->stage = NULL;
  return alloc_stage(r, err, err_size);
}

int64_t capture_reader_file_frames(const capture_reader *r) {
  return !r ? 0 : r->length_known ? r->file_frames : -1;
}
int64_t capture_reader_frames(const capture_reader *r) {
  return !r ? 0 : r->frames == INT64_MAX ? -1 : r->frames;
}
int64_t capture_reader_remaining(const capture_reader *r) {
  return !r ? 0 : r->frames == INT64_MAX ? -1 : r->frames - r->position;
}
const capture_reader_options *capture_reader_get_options(const capture_reader *r) {
  return r ? &r->opt : NULL;
}
void capture_reader_rewind(capture_reader *r) {
  if (r && !r->sequential) r->position = 0;
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
  if (r && r->sequential) {
    io_errorf(err, err_size, "%s: read in sequence only (not a file read by offset)", r->path);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
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
  if (!r || max_frames < 0 || (!out && max_frames > 0)) {
    io_errorf(err, err_size, "capture_reader_read_raw: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return next_frames(r, out, max_frames, got, err, err_size);
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
    convoy_status st = next_frames(r, r->stage, n, &n, err, err_size);
    if (st != CONVOY_OK) return st;
    if (n == 0) break;
    capture_to_float(r->opt.type, r->opt.scaling, r->stage, (size_t)(n * values_per_frame),
                     out + total * values_per_frame);
    total += n;
  }
  *got = total;
  return CONVOY_OK;
}

void capture_reader_close(capture_reader *r) {
  if (!r) return;
  if (r->owns_fd && r->fd >= 0) close(r->fd);
  free(r->stage);
  free(r->ahead);
  free(r->path);
  free(r);
}
