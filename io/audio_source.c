/* Reading audio through libsndfile: audio_source_* of audio_file.h. */
#define _POSIX_C_SOURCE 200809L

#include "audio_file.h"
#include "audio_part.h"
#include "header_frames.h"
#include "io_message.h"
#include "worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct audio_source {
  SNDFILE *sf;
  int fd;       /* descriptor we opened and close, -1 for stdin */
  int seekable; /* 0 for pipes */
  int channels;
  convoy_sample_format native; /* audio_source_native_format() */
  int stored_bytes;            /* audio_source_stored_bytes() */
  int64_t expected;            /* frames the file holds, -1 unknown */
  int64_t read;                /* frames read from the file so far */
  int64_t skip, count;         /* audio_source_set_range: first frame, frames (-1: to the end) */
  int64_t delivered;           /* frames of the range delivered so far */
  int skipped;                 /* the range's start has been reached */
  char name[];                 /* for messages: the path, or "stdin" */
};

/* libsndfile keeps the file's header log; a few KiB covers the headers of
 * every format it reads. */
#define LOG_SIZE 16384

/* Appended to errors on a pipe: these formats need seeking and libsndfile
 * fails on them in ways that do not say so. */
#define PIPE_HINT                                                                                  \
  "; libsndfile cannot read FLAC or CAF from a pipe: send AU through pipes (--type au), or "       \
  "give a file"

static int lseekable(int fd) {
  return lseek(fd, 0, SEEK_CUR) != (off_t)-1;
}

static void close_source(audio_source *src) {
  if (src->sf) sf_close(src->sf);
  if (src->fd >= 0) close(src->fd);
  free(src);
}

/* libsndfile's header log, malloc'd (NULL when out of memory). */
static char *header_log(audio_source *src) {
  char *log = malloc(LOG_SIZE);
  if (!log) return NULL;
  log[0] = '\0';
  sf_command(src->sf, SFC_GET_LOG_INFO, log, LOG_SIZE);
  return log;
}

/* ------------------------------------------------- WAV with a data size of 0 */

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 1 when [pos, end) of fd is nothing but whole RIFF chunks (printable ids;
 * the last one's pad byte may be missing). */
static int chunks_to_end(int fd, int64_t pos, int64_t end) {
  for (int i = 0; i < 64; i++) {
    unsigned char h[8];
    if (end - pos < 8 || pread(fd, h, 8, (off_t)pos) != 8) return 0;
    for (int k = 0; k < 4; k++)
      if (h[k] < 0x20 || h[k] > 0x7e) return 0;
    const uint32_t bytes = le32(h + 4);
    const int64_t next = pos + 8 + (int64_t)bytes;
    pos = next + (int64_t)(bytes & 1);
    if (next == end || pos == end) return 1;
    if (pos > end) return 0;
  }
  return 0;
}

/* Where the samples of a RIFF WAVE file on fd (size bytes) start when its
 * data chunk declares 0 bytes and something follows that is not just more
 * chunks (an empty recording with a LIST chunk after its data stays empty);
 * -1 otherwise. */
static int64_t unsized_data_start(int fd, int64_t size) {
  unsigned char h[12];
  if (pread(fd, h, 12, 0) != 12 || memcmp(h, "RIFF", 4) != 0 || memcmp(h + 8, "WAVE", 4) != 0)
    return -1;
  int64_t pos = 12;
  for (int i = 0; i < 64 && size - pos >= 8; i++) {
    if (pread(fd, h, 8, (off_t)pos) != 8) return -1;
    const uint32_t bytes = le32(h + 4);
    if (memcmp(h, "data", 4) == 0) {
      const int64_t start = pos + 8;
      return bytes == 0 && start < size && !chunks_to_end(fd, start, size) ? start : -1;
    }
    pos += 8 + (int64_t)bytes + (int64_t)(bytes & 1);
  }
  return -1;
}

/* Streaming writers that cannot seek back to the header leave a WAV's data
 * size at 0, as others leave a placeholder (header_frames.h), and libsndfile
 * then reads nothing. When samples follow, they are read as libsndfile reads
 * a placeholder's: raw frames of the header's format from the data chunk to
 * the end of the file or pipe. sfi keeps the WAV's format; its frames become
 * the file's. On a pipe libsndfile has read exactly the header, so the raw
 * reading starts where it stopped. */
static convoy_status read_unsized(audio_source *src, int fd, SF_INFO *sfi, char *err,
                                  size_t err_size) {
  char *log = header_log(src);
  const int width = header_wav_unsized(log, sfi->format);
  free(log);
  if (width == 0) return CONVOY_OK;
  int64_t start = 0, size = 0;
  if (src->seekable) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return CONVOY_OK;
    size = (int64_t)st.st_size;
    start = unsized_data_start(fd, size);
    if (start < 0) return CONVOY_OK; /* really empty */
  }
  SF_INFO raw;
  memset(&raw, 0, sizeof raw);
  raw.samplerate = sfi->samplerate;
  raw.channels = sfi->channels;
  raw.format = SF_FORMAT_RAW | (sfi->format & SF_FORMAT_SUBMASK) | SF_ENDIAN_LITTLE;
  sf_close(src->sf);
  /* A raw file opened at an offset counts as embedded, which libsndfile
   * refuses for raw: opened at 0, then moved to the samples. */
  src->sf =
      !src->seekable || lseek(fd, 0, SEEK_SET) == 0 ? sf_open_fd(fd, SFM_READ, &raw, 0) : NULL;
  sf_count_t offset = (sf_count_t)start;
  if (src->sf && src->seekable &&
      (sf_command(src->sf, SFC_SET_RAW_START_OFFSET, &offset, (int)sizeof offset) != 0 ||
       sf_seek(src->sf, 0, SEEK_SET) != 0)) {
    sf_close(src->sf);
    src->sf = NULL;
  }
  if (!src->sf) {
    char text[256];
    io_errorf(err, err_size, "%s: cannot read the samples after a data size of 0: %s", src->name,
              io_sf_text(sf_strerror(NULL), text, sizeof text));
    return CONVOY_ERR_FORMAT;
  }
  if (src->seekable) sfi->frames = (size - start) / ((int64_t)width * sfi->channels);
  return CONVOY_OK;
}

/* Checks what libsndfile accepted: shape, emptiness, and (through the header
 * log) truncation that libsndfile would otherwise hide. Fills info. */
static convoy_status check_opened(audio_source *src, const SF_INFO *sfi, audio_info *info,
                                  char *err, size_t err_size) {
  if (sfi->channels < 1 || sfi->samplerate < 1) {
    io_errorf(err, err_size, "%s: invalid header: %d channels at %d Hz", src->name, sfi->channels,
              sfi->samplerate);
    return CONVOY_ERR_FORMAT;
  }
  char *log = header_log(src);
  if (!log) {
    io_errorf(err, err_size, "%s: out of memory", src->name);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  int64_t declared = header_declared_frames(log, sfi->format, sfi->channels);
  int cut_short = header_log_says_cut_short(log);
  free(log);

  if (src->seekable) {
    /* libsndfile counts the frames that are really there; SF_COUNT_MAX
     * means it could not tell (an Ogg file without its last page). */
    src->expected = sfi->frames == SF_COUNT_MAX ? -1 : (int64_t)sfi->frames;
    if (declared > 0 && src->expected >= 0 && declared > src->expected) {
      io_errorf(err, err_size, "%s: truncated: got %lld of %lld frames", src->name,
                (long long)src->expected, (long long)declared);
      return CONVOY_ERR_FORMAT;
    }
    /* Trusted only when the length is unknown: libsndfile also logs it at
     * the end of some complete Ogg files, whose length it knows. */
    if (cut_short && src->expected < 0) {
      io_errorf(err, err_size, "%s: truncated: the stream ends before its last page", src->name);
      return CONVOY_ERR_FORMAT;
    }
  } else {
    /* A pipe: only a real size in the header is known (no placeholder; a
     * 0 may be one too, so the reading decides whether it is empty). */
    src->expected = declared > 0 ? declared : -1;
  }
  info->frames = src->expected;
  info->channels = sfi->channels;
  info->rate = sfi->samplerate;
  info->format = sfi->format;
  return CONVOY_OK;
}

convoy_status audio_source_open(audio_source **out, const char *path, audio_info *info, char *err,
                                size_t err_size) {
  if (!out || !path || !info) {
    io_errorf(err, err_size, "audio_source_open: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  int is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "stdin" : path;
  size_t name_len = strlen(name);
  audio_source *src = calloc(1, sizeof *src + name_len + 1);
  if (!src) {
    io_errorf(err, err_size, "%s: out of memory", name);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  memcpy(src->name, name, name_len + 1);
  src->fd = -1;
  src->count = -1;

  int fd;
  if (is_stdin) {
    if (isatty(STDIN_FILENO)) {
      io_errorf(err, err_size, "stdin: is a terminal, not audio data");
      close_source(src);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    fd = STDIN_FILENO;
  } else {
    /* Opened here rather than by sf_open so that the message carries the
     * system's reason (missing, permission, ...) instead of libsndfile's. */
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      io_errorf(err, err_size, "%s: %s", path, strerror(errno));
      close_source(src);
      return CONVOY_ERR_IO;
    }
    src->fd = fd;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      io_errorf(err, err_size, "%s: %s", path, strerror(EISDIR));
      close_source(src);
      return CONVOY_ERR_IO;
    }
  }

  SF_INFO sfi;
  memset(&sfi, 0, sizeof sfi);
  src->sf = sf_open_fd(fd, SFM_READ, &sfi, 0);
  if (!src->sf) {
    char text[256];
    io_errorf(err, err_size, "%s: not a readable audio file: %s%s", name,
              io_sf_text(sf_strerror(NULL), text, sizeof text),
              is_stdin && !lseekable(fd) ? PIPE_HINT : "");
    close_source(src);
    return CONVOY_ERR_FORMAT;
  }
  src->seekable = sfi.seekable != 0;
  src->channels = sfi.channels;
  const int subtype = sfi.format & SF_FORMAT_SUBMASK;
  src->stored_bytes = subtype == SF_FORMAT_PCM_24 && audio_part_supported(sfi.format) ? 3 : 0;
  src->native = subtype == SF_FORMAT_PCM_16   ? CONVOY_FORMAT_S16
                : subtype == SF_FORMAT_PCM_24 ? CONVOY_FORMAT_S32
                                              : CONVOY_FORMAT_F32;
  convoy_status st = read_unsized(src, fd, &sfi, err, err_size);
  if (st == CONVOY_OK) st = check_opened(src, &sfi, info, err, err_size);
  if (st != CONVOY_OK) {
    close_source(src);
    return st;
  }
  *out = src;
  return CONVOY_OK;
}

/* libsndfile notes some truncations (an Ogg file without its last page,
 * whose length it therefore cannot tell) in the log only when reading
 * reaches them. */
static int log_says_cut_short(audio_source *src) {
  char *log = header_log(src);
  if (!log) return 0;
  int cut = header_log_says_cut_short(log);
  free(log);
  return cut;
}

convoy_sample_format audio_source_native_format(const audio_source *src) {
  return src->native;
}

convoy_status audio_source_set_range(audio_source *src, int64_t skip, int64_t count, char *err,
                                     size_t err_size) {
  if (!src || skip < 0 || count < -1 || count == 0) {
    io_errorf(err, err_size, "audio_source_set_range: NULL source or a bad range");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (src->expected >= 0 && skip > 0 && skip >= src->expected) {
    io_errorf(err, err_size, "%s: --skip %lld frames is past the end (%lld frames)", src->name,
              (long long)skip, (long long)src->expected);
    return CONVOY_ERR_FORMAT;
  }
  if (src->expected >= 0 && count > src->expected - skip) {
    io_errorf(err, err_size, "%s: --skip %lld + --count %lld frames is past the end (%lld frames)",
              src->name, (long long)skip, (long long)count, (long long)src->expected);
    return CONVOY_ERR_FORMAT;
  }
  src->skip = skip;
  src->count = count;
  src->skipped = 0;
  src->delivered = 0;
  return CONVOY_OK;
}

/* Moves to the range's first frame: a seek, or on a pipe reading and
 * dropping through scratch (scratch_frames float frames). */
static convoy_status reach_range(audio_source *src, float *scratch, int64_t scratch_frames,
                                 char *err, size_t err_size) {
  src->skipped = 1;
  if (src->skip == 0) return CONVOY_OK;
  if (src->seekable) {
    if (sf_seek(src->sf, src->skip, SEEK_SET) < 0) {
      char text[256];
      io_errorf(err, err_size, "%s: cannot skip to frame %lld: %s", src->name, (long long)src->skip,
                io_sf_text(sf_strerror(src->sf), text, sizeof text));
      return CONVOY_ERR_IO;
    }
    src->read = src->skip;
    return CONVOY_OK;
  }
  while (src->read < src->skip) {
    int64_t want = src->skip - src->read < scratch_frames ? src->skip - src->read : scratch_frames;
    sf_count_t n = sf_readf_float(src->sf, scratch, (sf_count_t)want);
    if (n <= 0) {
      io_errorf(err, err_size, "%s: --skip %lld frames is past the end (%lld frames)", src->name,
                (long long)src->skip, (long long)src->read);
      return CONVOY_ERR_FORMAT;
    }
    src->read += n;
  }
  return CONVOY_OK;
}

/* What read_frames delivers: floats, the native format, or the bytes as the
 * file stores them (audio_source_stored_bytes). */
typedef enum delivered { READ_FLOATS, READ_NATIVE, READ_STORED } delivered;

/* Reads frames as `what` says. */
static convoy_status read_frames(audio_source *src, void *frames, delivered what,
                                 int64_t max_frames, int64_t *got, const char *fn, char *err,
                                 size_t err_size) {
  const int native = what == READ_NATIVE;
  if (got) *got = 0;
  if (!src || !frames || !got || max_frames < 1) {
    io_errorf(err, err_size, "%s: NULL argument or max_frames < 1", fn);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (!src->skipped) {
    /* A pipe drops the skipped frames through the caller's buffer, which holds
     * max_frames frames of at least 2 bytes a sample: as floats, half as many. */
    const int64_t scratch = what == READ_STORED                          ? max_frames * 3 / 4
                            : native && src->native == CONVOY_FORMAT_S16 ? max_frames / 2
                                                                         : max_frames;
    convoy_status st = reach_range(src, frames, scratch > 0 ? scratch : 1, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  if (src->count >= 0) {
    if (src->delivered >= src->count) return CONVOY_OK; /* the range's end */
    if (max_frames > src->count - src->delivered) max_frames = src->count - src->delivered;
  }
  sf_count_t n;
  if (what == READ_STORED) {
    const sf_count_t frame_bytes = (sf_count_t)src->stored_bytes * src->channels;
    const sf_count_t bytes = sf_read_raw(src->sf, frames, (sf_count_t)max_frames * frame_bytes);
    n = bytes > 0 ? bytes / frame_bytes : bytes;
  } else if (native && src->native == CONVOY_FORMAT_S16)
    n = sf_readf_short(src->sf, frames, (sf_count_t)max_frames);
  else if (native && src->native == CONVOY_FORMAT_S32)
    n = sf_readf_int(src->sf, frames, (sf_count_t)max_frames);
  else
    n = sf_readf_float(src->sf, frames, (sf_count_t)max_frames);
  int code = sf_error(src->sf);
  if (code != SF_ERR_NO_ERROR) {
    char text[256];
    io_sf_text(sf_error_number(code), text, sizeof text);
    int64_t at = src->read + (n > 0 ? n : 0);
    if (src->expected >= 0)
      io_errorf(err, err_size, "%s: truncated or corrupt: got %lld of %lld frames (%s)", src->name,
                (long long)at, (long long)src->expected, text);
    else
      io_errorf(err, err_size, "%s: corrupt audio data after %lld frames (%s)", src->name,
                (long long)at, text);
    return CONVOY_ERR_FORMAT;
  }
  if (n > 0) {
    src->read += n;
    src->delivered += n;
    *got = n;
    return CONVOY_OK;
  }
  /* The end: check it came where the header said. */
  if (src->expected < 0 && src->seekable && log_says_cut_short(src)) {
    io_errorf(err, err_size,
              "%s: truncated: the stream ends without its end mark after %lld frames", src->name,
              (long long)src->read);
    return CONVOY_ERR_FORMAT;
  }
  if (src->expected >= 0 && src->read < src->expected) {
    io_errorf(err, err_size, "%s: truncated: got %lld of %lld frames", src->name,
              (long long)src->read, (long long)src->expected);
    return CONVOY_ERR_FORMAT;
  }
  if (src->read == 0 && !src->seekable) { /* an empty file is empty; a pipe, suspect */
    io_errorf(err, err_size, "%s: empty signal (0 frames)%s", src->name, PIPE_HINT);
    return CONVOY_ERR_FORMAT;
  }
  return CONVOY_OK;
}

convoy_status audio_source_read(audio_source *src, float *frames, int64_t max_frames, int64_t *got,
                                char *err, size_t err_size) {
  return read_frames(src, frames, READ_FLOATS, max_frames, got, "audio_source_read", err, err_size);
}

convoy_status audio_source_read_native(audio_source *src, void *frames, int64_t max_frames,
                                       int64_t *got, char *err, size_t err_size) {
  return read_frames(src, frames, READ_NATIVE, max_frames, got, "audio_source_read_native", err,
                     err_size);
}

convoy_status audio_source_rewind(audio_source *src, char *err, size_t err_size) {
  if (!src) {
    io_errorf(err, err_size, "audio_source_rewind: NULL source");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (!src->seekable) {
    io_errorf(err, err_size, "%s: cannot rewind a pipe", src->name);
    return CONVOY_ERR_UNSUPPORTED;
  }
  if (sf_seek(src->sf, 0, SEEK_SET) != 0) {
    char text[256];
    io_errorf(err, err_size, "%s: cannot rewind: %s", src->name,
              io_sf_text(sf_strerror(src->sf), text, sizeof text));
    return CONVOY_ERR_IO;
  }
  src->read = 0;
  src->skipped = 0;
  src->delivered = 0;
  return CONVOY_OK;
}

void audio_source_close(audio_source *src) {
  if (src) close_source(src);
}

size_t audio_source_stored_bytes(const audio_source *src) {
  return (size_t)src->stored_bytes;
}

convoy_status audio_source_read_stored(audio_source *src, void *bytes, int64_t max_frames,
                                       int64_t *got, char *err, size_t err_size) {
  if (src && !src->stored_bytes) {
    io_errorf(err, err_size, "%s: audio_source_read_stored: not a 24-bit PCM WAV, RF64 or W64",
              src->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return read_frames(src, bytes, READ_STORED, max_frames, got, "audio_source_read_stored", err,
                     err_size);
}

/* n stored 24-bit samples (little-endian) as left-justified 32-bit codes,
 * as sf_readf_int gives them. */
static void unpack24(const unsigned char *b, int32_t *codes, size_t n) {
  for (size_t i = 0; i < n; i++)
    codes[i] = (int32_t)((uint32_t)b[3 * i] << 8 | (uint32_t)b[3 * i + 1] << 16 |
                         (uint32_t)b[3 * i + 2] << 24);
}

/* Samples a task of audio_source_unpack_parallel takes at least, and most
 * tasks per pool thread. */
#define UNPACK_TASK_MIN_SAMPLES ((int64_t)1 << 14)
#define UNPACK_TASKS_PER_THREAD 4
#define UNPACK_MAX_TASKS 64

typedef struct unpack_job {
  const unsigned char *bytes;
  int32_t *codes;
} unpack_job;

static void unpack_range(void *ctx, int64_t lo, int64_t hi) {
  const unpack_job *j = ctx;
  unpack24(j->bytes + 3 * lo, j->codes + lo, (size_t)(hi - lo));
}

void audio_source_unpack_parallel(const audio_source *src, const void *bytes, int64_t n_frames,
                                  void *codes, worker_pool *pool) {
  unpack_job j = {.bytes = bytes, .codes = codes};
  pool_run_ranges(pool, n_frames * src->channels, UNPACK_TASKS_PER_THREAD, UNPACK_TASK_MIN_SAMPLES,
                  UNPACK_MAX_TASKS, 1, unpack_range, &j);
}
