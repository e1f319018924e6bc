/* capture_writer.c - raw captures written under a temporary name and renamed
 * into place on commit (io/atomic_file.h). */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "atomic_file.h"
#include "capture.h"
#include "io_message.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Staging buffer for converted output, bytes. */
#define WRITER_STAGE_BYTES (1 << 20)

struct capture_writer {
  atomic_file *file; /* NULL for a descriptor of the caller's (open_fd) or a part (open_at) */
  int fd;
  int own_fd;       /* 1: a part's descriptor, closed at commit or discard */
  int64_t position; /* a part's next byte offset (pwrite); -1: write in sequence */
  char *path;
  capture_writer_options opt;
  int64_t frame_bytes;
  int64_t values_per_frame;
  int64_t frames;
  capture_tally tally;
  unsigned char *stage;
  int64_t stage_frames;
};

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void free_writer(capture_writer *w) {
  free(w->stage);
  free(w->path);
  free(w);
}

/* The writer without its destination: options checked, stage allocated. */
static convoy_status writer_new(capture_writer **out, const char *path,
                                const capture_writer_options *options, char *err, size_t err_size) {
  *out = NULL;
  capture_writer_options o = *options;
  if (!capture_datatype_valid(o.type)) {
    io_errorf(err, err_size, "%s: invalid datatype", path);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (o.channels < 1 || o.channels > CONVOY_MAX_CHANNELS) {
    io_errorf(err, err_size, "%s: %" PRId32 " channels is out of range (1 .. %d)", path, o.channels,
              CONVOY_MAX_CHANNELS);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (o.scaling.scale == 0.0 && o.scaling.offset == 0.0)
    o.scaling = capture_scaling_default(o.type);
  if (!capture_scaling_valid(o.scaling)) {
    io_errorf(err, err_size, "%s: scale must be finite and nonzero, offset finite", path);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  capture_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->path = dup_string(path))) {
    free(w);
    io_errorf(err, err_size, "%s: out of memory", path);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  w->opt = o;
  w->position = -1;
  w->values_per_frame = (int64_t)capture_datatype_components(o.type) * o.channels;
  w->frame_bytes = (int64_t)capture_datatype_sample_bytes(o.type) * o.channels;
  w->stage_frames = WRITER_STAGE_BYTES / w->frame_bytes;
  w->stage = malloc((size_t)(w->stage_frames * w->frame_bytes));
  if (!w->stage) {
    io_errorf(err, err_size, "%s: out of memory", path);
    free_writer(w);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  *out = w;
  return CONVOY_OK;
}

convoy_status capture_writer_open(capture_writer **out, const char *path,
                                  const capture_writer_options *options, char *err,
                                  size_t err_size) {
  if (!out || !path || !options) {
    io_errorf(err, err_size, "capture_writer_open: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  capture_writer *w = NULL;
  convoy_status st = writer_new(&w, path, options, err, err_size);
  if (st != CONVOY_OK) return st;
  st = w->opt.shared
           ? atomic_file_create_shared(&w->file, path, w->opt.overwrite, &w->fd, err, err_size)
           : atomic_file_create(&w->file, path, w->opt.overwrite, &w->fd, err, err_size);
  if (st != CONVOY_OK) {
    free_writer(w);
    return st;
  }
  *out = w;
  return CONVOY_OK;
}

convoy_status capture_writer_open_fd(capture_writer **out, int fd, const char *name,
                                     const capture_writer_options *options, char *err,
                                     size_t err_size) {
  if (!out || fd < 0 || !name || !options) {
    io_errorf(err, err_size, "capture_writer_open_fd: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  capture_writer *w = NULL;
  convoy_status st = writer_new(&w, name, options, err, err_size);
  if (st != CONVOY_OK) return st;
  w->fd = fd; /* no atomic file: written in place */
  *out = w;
  return CONVOY_OK;
}

convoy_status capture_writer_open_at(capture_writer **out, const char *path, const char *name,
                                     const capture_writer_options *options, int64_t first_frame,
                                     char *err, size_t err_size) {
  if (!out || !path || !name || !options || first_frame < 0) {
    io_errorf(err, err_size, "capture_writer_open_at: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  capture_writer *w = NULL;
  convoy_status st = writer_new(&w, name, options, err, err_size);
  if (st != CONVOY_OK) return st;
  if (first_frame > INT64_MAX / w->frame_bytes) {
    io_errorf(err, err_size, "%s: frame %" PRId64 " is past any file's end", name, first_frame);
    free_writer(w);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  w->fd = open(path, O_WRONLY | O_CLOEXEC);
  if (w->fd < 0) {
    io_errorf(err, err_size, "%s: cannot open its temporary file: %s", name, strerror(errno));
    free_writer(w);
    return CONVOY_ERR_IO;
  }
  w->own_fd = 1;
  w->position = first_frame * w->frame_bytes;
  *out = w;
  return CONVOY_OK;
}

const char *capture_writer_reopen_path(const capture_writer *w, char *buf, size_t size) {
  return w ? atomic_file_reopen_path(w->file, buf, size) : NULL;
}

static convoy_status write_fully(capture_writer *w, const void *src, int64_t bytes, char *err,
                                 size_t err_size) {
  const unsigned char *p = src;
  while (bytes > 0) {
    size_t want = bytes > (int64_t)1 << 30 ? (size_t)1 << 30 : (size_t)bytes;
    ssize_t put =
        w->position >= 0 ? pwrite(w->fd, p, want, (off_t)w->position) : write(w->fd, p, want);
    if (put < 0) {
      if (errno == EINTR) continue;
      io_errorf(err, err_size, "%s: write error: %s", w->path, strerror(errno));
      return CONVOY_ERR_IO;
    }
    p += put;
    bytes -= put;
    if (w->position >= 0) w->position += put;
    atomic_file_wrote(w->file, put);
  }
  return CONVOY_OK;
}

int capture_writer_stores_floats(const capture_writer *w) {
  return w && capture_from_float_is_copy(w->opt.type, w->opt.scaling);
}

convoy_status capture_writer_write_raw(capture_writer *w, const void *bytes, int64_t frames,
                                       char *err, size_t err_size) {
  if (!w || frames < 0 || (frames > 0 && !bytes)) {
    io_errorf(err, err_size, "capture_writer_write_raw: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  convoy_status st = write_fully(w, bytes, frames * w->frame_bytes, err, err_size);
  if (st == CONVOY_OK) w->frames += frames;
  return st;
}

convoy_status capture_writer_write(capture_writer *w, const float *x, int64_t frames, char *err,
                                   size_t err_size) {
  if (!w || frames < 0 || (frames > 0 && !x)) {
    io_errorf(err, err_size, "capture_writer_write: invalid argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  /* A stage's worth at a time, even where the bytes are the floats
   * themselves: the peak's pass then leaves them in the cache that write()
   * copies them from, instead of both reading the chunk from memory. */
  const int copy = capture_from_float_is_copy(w->opt.type, w->opt.scaling);
  while (frames > 0) {
    const int64_t n = frames < w->stage_frames ? frames : w->stage_frames;
    const size_t values = (size_t)(n * w->values_per_frame);
    const void *bytes = x;
    if (copy) {
      capture_tally_peak(&w->tally, x, values);
    } else {
      capture_from_float(w->opt.type, w->opt.scaling, x, values, w->stage, &w->tally);
      bytes = w->stage;
    }
    convoy_status st = write_fully(w, bytes, n * w->frame_bytes, err, err_size);
    if (st != CONVOY_OK) return st;
    w->frames += n;
    x += values;
    frames -= n;
  }
  return CONVOY_OK;
}

void capture_writer_add_parts(capture_writer *w, int64_t frames) {
  if (w && frames > 0) w->frames += frames;
}

int64_t capture_writer_frames(const capture_writer *w) {
  return w ? w->frames : 0;
}

capture_tally capture_writer_tally(const capture_writer *w) {
  capture_tally t = {0, 0.0};
  return w ? w->tally : t;
}

convoy_status capture_writer_commit(capture_writer *w, char *err, size_t err_size) {
  return capture_writer_commit_with(w, NULL, err, err_size);
}

convoy_status capture_writer_commit_with(capture_writer *w, atomic_file *after, char *err,
                                         size_t err_size) {
  if (!w) {
    atomic_file_discard(after);
    io_errorf(err, err_size, "capture_writer_commit: no writer");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  convoy_status st = CONVOY_OK;
  if (w->file) {
    st = atomic_file_commit_with(w->file, after, err, err_size);
    after = NULL;
  }
  if (w->own_fd) {
    if (fsync(w->fd) != 0) {
      io_errorf(err, err_size, "%s: cannot flush to disk: %s", w->path, strerror(errno));
      st = CONVOY_ERR_IO;
    }
    close(w->fd);
  }
  if (after) {
    if (st == CONVOY_OK)
      st = atomic_file_commit(after, err, err_size);
    else
      atomic_file_discard(after);
  }
  free_writer(w);
  return st;
}

void capture_writer_discard(capture_writer *w) {
  if (!w) return;
  if (w->file) atomic_file_discard(w->file);
  if (w->own_fd) close(w->fd);
  free_writer(w);
}
