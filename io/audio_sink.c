/* Writing audio through libsndfile: audio_sink_* of audio_file.h. */
#define _POSIX_C_SOURCE 200809L

#include "atomic_file.h"
#include "audio_file.h"
#include "audio_part.h"
#include "io_message.h"
#include "quantize.h"
#include "sample_path.h"
#include "worker_pool.h"

#include <sndfile.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Samples converted per libsndfile call (256 KiB of floats: few write
 * calls, still cache-sized); the buffer is made at open. */
#define CHUNK_SAMPLES 65536

/* Files of the formats audio_part writes (WAV, RF64, W64 in PCM or float)
 * are written as one part: the samples straight into the file, libsndfile
 * making only the header, at commit, for the frames and peaks written. That
 * skips libsndfile's sample-at-a-time PEAK scan and its buffering, with the
 * same bytes. Other formats, and stdout, go through libsndfile. */
struct audio_sink {
  SNDFILE *sf;      /* NULL when writing as one part */
  audio_part *part; /* the samples, when writing as one part */
  int fd;           /* the temporary's descriptor (one part) */
  audio_sink_options opt;
  atomic_file *file; /* NULL when writing stdout */
  sample_path path;
  quantizer q;
  int failed; /* a write failed: the temporary is gone */
  int64_t frames;
  int64_t max_frames;   /* frames the container holds; 0: no limit */
  int64_t chunk_frames; /* frames per libsndfile call */
  void *buf;            /* chunk_frames * channels shorts, ints or floats */
  char name[];          /* for messages: the path, or "stdout" */
};

static void free_sink(audio_sink *sink) {
  free(sink->buf);
  free(sink);
}

/* Closes libsndfile and removes the temporary. */
static void drop_output(audio_sink *sink) {
  if (sink->sf) sf_close(sink->sf);
  sink->sf = NULL;
  audio_part_abort(sink->part);
  sink->part = NULL;
  atomic_file_discard(sink->file);
  sink->file = NULL;
}

/* The samples start where libsndfile's header of no samples ends (its size
 * does not depend on their number). */
static convoy_status open_part(audio_sink *sink, int fd, char *err, size_t err_size) {
  unsigned char *header = NULL;
  size_t header_bytes = 0;
  int64_t file_bytes = 0;
  convoy_status st = audio_part_header(&sink->opt, 0, NULL, NULL, &header, &header_bytes,
                                       &file_bytes, err, err_size);
  free(header);
  if (st != CONVOY_OK) return st;
  sink->fd = fd;
  return audio_part_attach(&sink->part, fd, sink->name, &sink->opt, (int64_t)header_bytes, 0, err,
                           err_size);
}

/* libsndfile on fd (stdout, or a format audio_part does not write). */
static convoy_status open_sndfile(audio_sink *sink, int fd, int to_stdout, char *err,
                                  size_t err_size) {
  SF_INFO sfi;
  memset(&sfi, 0, sizeof sfi);
  sfi.format = sink->opt.format;
  sfi.channels = sink->opt.channels;
  sfi.samplerate = sink->opt.rate;
  /* Asked before opening: libsndfile may close the descriptor on failure. */
  struct stat st;
  const int is_pipe =
      to_stdout && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
  sink->sf = sf_open_fd(fd, SFM_WRITE, &sfi, 0);
  if (!sink->sf) {
    char text[256];
    io_sf_text(sf_strerror(NULL), text, sizeof text);
    int system = sf_error(NULL) == SF_ERR_SYSTEM;
    io_errorf(err, err_size, "%s: cannot write: %s%s", sink->name, text,
              is_pipe ? "; give --type au, which streams through pipes both ways" : "");
    return system ? CONVOY_ERR_IO : CONVOY_ERR_UNSUPPORTED;
  }
  if (sink->path.kind == SAMPLE_PATH_LOSSY) sf_command(sink->sf, SFC_SET_CLIPPING, NULL, SF_TRUE);
  return CONVOY_OK;
}

/* The header for the frames and channel peaks written, in place. */
static convoy_status finish_part(audio_sink *sink, char *err, size_t err_size) {
  const size_t ch = (size_t)sink->opt.channels;
  double *peak = calloc(ch, sizeof *peak);
  int64_t *peak_frame = calloc(ch, sizeof *peak_frame);
  convoy_status st = CONVOY_ERR_OUT_OF_MEMORY;
  if (peak && peak_frame) {
    audio_part_stats ps;
    audio_part_get_stats(sink->part, &ps, peak, peak_frame);
    st = audio_part_finish(sink->fd, sink->name, &sink->opt, sink->frames, peak, peak_frame, err,
                           err_size);
  } else {
    io_errorf(err, err_size, "%s: out of memory", sink->name);
  }
  free(peak);
  free(peak_frame);
  return st;
}

convoy_status audio_sink_open(audio_sink **out, const char *path, const audio_sink_options *opt,
                              int overwrite, char *err, size_t err_size) {
  if (!out || !path || !opt) {
    io_errorf(err, err_size, "audio_sink_open: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  int to_stdout = strcmp(path, "-") == 0;
  const char *name = to_stdout ? "stdout" : path;
  if (opt->channels < 1 || opt->rate < 1) {
    io_errorf(err, err_size, "%s: invalid output: %d channels at %d Hz", name, opt->channels,
              opt->rate);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  SF_INFO sfi;
  memset(&sfi, 0, sizeof sfi);
  sfi.format = opt->format;
  sfi.channels = opt->channels;
  sfi.samplerate = opt->rate;
  if (!sf_format_check(&sfi)) {
    io_errorf(err, err_size, "%s: libsndfile cannot write format 0x%06x with %d channels at %d Hz",
              name, (unsigned)opt->format, opt->channels, opt->rate);
    return CONVOY_ERR_UNSUPPORTED;
  }

  size_t name_len = strlen(name);
  audio_sink *sink = calloc(1, sizeof *sink + name_len + 1);
  if (!sink) goto oom;
  memcpy(sink->name, name, name_len + 1);
  sink->opt = *opt;
  sink->path = sample_path_for(opt->format);
  size_t width = sink->path.kind == SAMPLE_PATH_SHORT ? sizeof(short)
                 : sink->path.kind == SAMPLE_PATH_INT ? sizeof(int32_t)
                                                      : sizeof(float);
  sink->chunk_frames = CHUNK_SAMPLES / opt->channels > 0 ? CHUNK_SAMPLES / opt->channels : 1;
  sink->buf = malloc(width * (size_t)sink->chunk_frames * (size_t)opt->channels);
  if (!sink->buf) goto oom;
  quantizer_init(&sink->q, sink->path.kind == SAMPLE_PATH_FLOAT ? 32 : sink->path.bits, opt->dither,
                 opt->seed);

  int fd = STDOUT_FILENO;
  if (!to_stdout) {
    convoy_status st = atomic_file_create(&sink->file, path, overwrite, &fd, err, err_size);
    if (st != CONVOY_OK) {
      free_sink(sink);
      return st;
    }
  }
  convoy_status st = !to_stdout && audio_part_supported(opt->format)
                         ? open_part(sink, fd, err, err_size)
                         : open_sndfile(sink, fd, to_stdout, err, err_size);
  if (st != CONVOY_OK) {
    drop_output(sink);
    free_sink(sink);
    return st;
  }
  const int64_t limit = audio_container_limit(opt->format);
  const int bytes = audio_subtype_bytes(opt->format);
  if (limit > 0 && bytes > 0) sink->max_frames = limit / ((int64_t)bytes * opt->channels);
  *out = sink;
  return CONVOY_OK;

oom:
  io_errorf(err, err_size, "%s: out of memory", name);
  if (sink) free_sink(sink);
  return CONVOY_ERR_OUT_OF_MEMORY;
}

size_t audio_sink_encoded_bytes(const audio_sink *sink) {
  switch (sink->path.kind) {
  case SAMPLE_PATH_SHORT:
    return sizeof(short);
  case SAMPLE_PATH_INT:
    return sizeof(int32_t);
  case SAMPLE_PATH_LOSSY:
    return sizeof(float);
  case SAMPLE_PATH_FLOAT:
  default:
    return 0;
  }
}

int audio_sink_codes_format(const audio_sink_options *opt, convoy_sample_format *format,
                            int32_t *bits) {
  const sample_path p = sample_path_for(opt->format);
  if (p.kind != SAMPLE_PATH_SHORT && p.kind != SAMPLE_PATH_INT) return 0;
  if (format) *format = p.kind == SAMPLE_PATH_SHORT ? CONVOY_FORMAT_S16 : CONVOY_FORMAT_S32;
  if (bits) *bits = p.bits;
  return 1;
}

void audio_sink_add_tally(audio_sink *sink, int64_t clipped, double peak) {
  if (!sink) return;
  sink->q.clipped += clipped;
  if (peak > sink->q.peak) sink->q.peak = peak;
}

void audio_sink_encode(audio_sink *sink, const float *frames, int64_t n_frames, void *codes) {
  size_t samples = (size_t)n_frames * (size_t)sink->opt.channels;
  switch (sink->path.kind) {
  case SAMPLE_PATH_SHORT:
    quantize_to_short(&sink->q, frames, samples, codes);
    break;
  case SAMPLE_PATH_INT:
    quantize_to_int(&sink->q, frames, samples, codes);
    break;
  case SAMPLE_PATH_LOSSY:
    quantize_clamp_float(&sink->q, frames, samples, codes);
    break;
  case SAMPLE_PATH_FLOAT:
  default:
    quantize_track_float(&sink->q, frames, samples);
    break;
  }
}

/* Samples a task of audio_sink_encode_parallel quantizes at least, and
 * most tasks per pool thread (later tasks go to whichever thread is free). */
#define ENCODE_TASK_MIN_SAMPLES ((int64_t)1 << 13)
#define ENCODE_TASKS_PER_THREAD 4
#define ENCODE_MAX_TASKS 64

typedef struct encode_job {
  const quantizer *q; /* the sink's, at the call's first sample */
  sample_path_kind kind;
  const float *x;
  void *codes;
  int64_t samples, tasks;
  quantizer part[ENCODE_MAX_TASKS]; /* each task's copy: its position, clips, peak */
} encode_job;

/* Task boundaries fall on multiples of this many samples. */
#define ENCODE_TASK_ALIGN 64

static void encode_task(void *ctx, int64_t t) {
  encode_job *j = ctx;
  const int64_t lo = pool_task_start(j->samples, j->tasks, t, ENCODE_TASK_ALIGN),
                hi = pool_task_start(j->samples, j->tasks, t + 1, ENCODE_TASK_ALIGN);
  quantizer *q = &j->part[t];
  *q = *j->q;
  q->index += (uint64_t)lo;
  q->clipped = 0;
  q->peak = 0.0;
  if (j->kind == SAMPLE_PATH_SHORT)
    quantize_to_short(q, j->x + lo, (size_t)(hi - lo), (short *)j->codes + lo);
  else
    quantize_to_int(q, j->x + lo, (size_t)(hi - lo), (int32_t *)j->codes + lo);
}

void audio_sink_encode_parallel(audio_sink *sink, const float *frames, int64_t n_frames,
                                void *codes, worker_pool *pool) {
  const sample_path_kind kind = sink->path.kind;
  const int64_t samples = n_frames * sink->opt.channels;
  const int64_t tasks = pool_split_tasks(pool, samples, ENCODE_TASKS_PER_THREAD,
                                         ENCODE_TASK_MIN_SAMPLES, ENCODE_MAX_TASKS);
  if (tasks < 2 || (kind != SAMPLE_PATH_SHORT && kind != SAMPLE_PATH_INT)) {
    audio_sink_encode(sink, frames, n_frames, codes);
    return;
  }
  /* The sink's own loops in contiguous ranges, each from its own position:
   * dither depends only on that, so the codes, clips and peak are those of
   * one audio_sink_encode() call. */
  encode_job j = {
      .q = &sink->q, .kind = kind, .x = frames, .codes = codes, .samples = samples, .tasks = tasks};
  pool_run(pool, tasks, encode_task, &j);
  for (int64_t t = 0; t < tasks; t++) audio_sink_add_tally(sink, j.part[t].clipped, j.part[t].peak);
  sink->q.index += (uint64_t)samples;
}

size_t audio_sink_stored_bytes(const audio_sink *sink) {
  if (!sink->part || (sink->path.kind != SAMPLE_PATH_SHORT && sink->path.kind != SAMPLE_PATH_INT))
    return 0;
  return (size_t)audio_part_stored_bytes(sink->part);
}

typedef struct store_job {
  const audio_part *part;
  const unsigned char *codes;
  unsigned char *stored;
  size_t code_bytes, stored_bytes;
} store_job;

static void store_range(void *ctx, int64_t lo, int64_t hi) {
  const store_job *j = ctx;
  audio_part_store_codes(j->part, j->codes + (size_t)lo * j->code_bytes, (size_t)(hi - lo),
                         j->stored + (size_t)lo * j->stored_bytes);
}

void audio_sink_store_parallel(const audio_sink *sink, const void *codes, int64_t n_frames,
                               void *stored, worker_pool *pool) {
  store_job j = {.part = sink->part,
                 .codes = codes,
                 .stored = stored,
                 .code_bytes = audio_sink_encoded_bytes(sink),
                 .stored_bytes = audio_sink_stored_bytes(sink)};
  pool_run_ranges(pool, n_frames * sink->opt.channels, ENCODE_TASKS_PER_THREAD,
                  ENCODE_TASK_MIN_SAMPLES, ENCODE_MAX_TASKS, ENCODE_TASK_ALIGN, store_range, &j);
}

/* Encoded frames (the floats themselves for a float subtype) into the file. */
static convoy_status put_encoded(audio_sink *sink, const void *codes, sf_count_t n, char *err,
                                 size_t err_size) {
  if (sink->part) return audio_part_write_encoded(sink->part, codes, n, err, err_size);
  sf_count_t wrote;
  switch (sink->path.kind) {
  case SAMPLE_PATH_SHORT:
    wrote = sf_writef_short(sink->sf, codes, n);
    break;
  case SAMPLE_PATH_INT:
    wrote = sf_writef_int(sink->sf, codes, n);
    break;
  case SAMPLE_PATH_LOSSY:
  case SAMPLE_PATH_FLOAT:
  default:
    wrote = sf_writef_float(sink->sf, codes, n);
    break;
  }
  if (wrote == n) return CONVOY_OK;
  char text[256];
  io_errorf(err, err_size, "%s: write failed: %s", sink->name,
            io_sf_text(sf_strerror(sink->sf), text, sizeof text));
  return CONVOY_ERR_IO;
}

/* One chunk through the quantizer and into the file (a float chunk's peaks
 * are kept by the part, when there is one). */
static convoy_status write_chunk(audio_sink *sink, const float *x, sf_count_t n, char *err,
                                 size_t err_size) {
  if (audio_sink_encoded_bytes(sink) == 0) {
    if (!sink->part) audio_sink_encode(sink, x, n, NULL);
    return put_encoded(sink, x, n, err, err_size);
  }
  audio_sink_encode(sink, x, n, sink->buf);
  return put_encoded(sink, sink->buf, n, err, err_size);
}

/* What write_frames is given: floats to quantize, codes as audio_sink_encode
 * makes them, or codes in the file's stored form (audio_sink_stored_bytes). */
typedef enum written { WRITE_FLOATS, WRITE_CODES, WRITE_STORED } written;

/* Writes n_frames frames of data in libsndfile calls of at most chunk_frames
 * frames. */
static convoy_status write_frames(audio_sink *sink, const void *data, int64_t n_frames,
                                  written what, const char *fn, char *err, size_t err_size) {
  if (!sink || n_frames < 0 || (!data && n_frames > 0)) {
    io_errorf(err, err_size, "%s: NULL argument or negative count", fn);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (sink->failed) {
    io_errorf(err, err_size, "%s: an earlier write failed; the output was removed", sink->name);
    return CONVOY_ERR_STATE;
  }
  if (sink->max_frames > 0 && n_frames > sink->max_frames - sink->frames) {
    io_errorf(err, err_size,
              "%s: the output outgrows the 4 GiB its container's size fields can count; name "
              "it .rf64 or .w64",
              sink->name);
    drop_output(sink);
    sink->failed = 1;
    return CONVOY_ERR_UNSUPPORTED;
  }
  const size_t encoded = audio_sink_encoded_bytes(sink);
  const size_t sample_bytes = what == WRITE_STORED                   ? audio_sink_stored_bytes(sink)
                              : what == WRITE_FLOATS || encoded == 0 ? sizeof(float)
                                                                     : encoded;
  const size_t frame_bytes = sample_bytes * (size_t)sink->opt.channels;
  const int stored = audio_subtype_bytes(sink->opt.format); /* 0: compressed, about 2 */
  const size_t stored_frame_bytes = (size_t)(stored > 0 ? stored : 2) * (size_t)sink->opt.channels;
  for (int64_t done = 0; done < n_frames;) {
    sf_count_t n = n_frames - done < sink->chunk_frames ? (sf_count_t)(n_frames - done)
                                                        : (sf_count_t)sink->chunk_frames;
    const void *x = (const unsigned char *)data + (size_t)done * frame_bytes;
    convoy_status st = what == WRITE_FLOATS ? write_chunk(sink, x, n, err, err_size)
                       : what == WRITE_CODES
                           ? put_encoded(sink, x, n, err, err_size)
                           : audio_part_write_stored(sink->part, x, n, err, err_size);
    if (st != CONVOY_OK) {
      drop_output(sink);
      sink->failed = 1;
      return st;
    }
    done += n;
    sink->frames += n;
    atomic_file_wrote(sink->file, (int64_t)n * (int64_t)stored_frame_bytes);
  }
  return CONVOY_OK;
}

convoy_status audio_sink_write(audio_sink *sink, const float *frames, int64_t n_frames, char *err,
                               size_t err_size) {
  return write_frames(sink, frames, n_frames, WRITE_FLOATS, "audio_sink_write", err, err_size);
}

convoy_status audio_sink_write_encoded(audio_sink *sink, const void *codes, int64_t n_frames,
                                       char *err, size_t err_size) {
  return write_frames(sink, codes, n_frames, WRITE_CODES, "audio_sink_write_encoded", err,
                      err_size);
}

convoy_status audio_sink_write_stored(audio_sink *sink, const void *stored, int64_t n_frames,
                                      char *err, size_t err_size) {
  if (sink && audio_sink_stored_bytes(sink) == 0) {
    io_errorf(err, err_size, "%s: audio_sink_write_stored: the file stores its codes as given",
              sink->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return write_frames(sink, stored, n_frames, WRITE_STORED, "audio_sink_write_stored", err,
                      err_size);
}

convoy_status audio_sink_commit(audio_sink *sink, char *err, size_t err_size) {
  if (!sink) {
    io_errorf(err, err_size, "audio_sink_commit: NULL sink");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (sink->failed) {
    io_errorf(err, err_size, "%s: an earlier write failed; the output was removed", sink->name);
    free_sink(sink);
    return CONVOY_ERR_STATE;
  }
  if (sink->part) {
    convoy_status st = finish_part(sink, err, err_size);
    if (st != CONVOY_OK) {
      drop_output(sink);
      free_sink(sink);
      return st;
    }
    (void)audio_part_close(sink->part, err, err_size); /* attached: nothing to flush */
    sink->part = NULL;
    st = atomic_file_commit(sink->file, err, err_size);
    sink->file = NULL;
    free_sink(sink);
    return st;
  }
  /* sf_close writes the final header (sizes, FLAC STREAMINFO, Ogg end). */
  int code = sf_close(sink->sf);
  sink->sf = NULL;
  if (code != SF_ERR_NO_ERROR) {
    char text[256];
    io_errorf(err, err_size, "%s: cannot finish the file: %s", sink->name,
              io_sf_text(sf_error_number(code), text, sizeof text));
    drop_output(sink);
    free_sink(sink);
    return CONVOY_ERR_IO;
  }
  convoy_status st = CONVOY_OK;
  if (sink->file) {
    st = atomic_file_commit(sink->file, err, err_size);
    sink->file = NULL;
  }
  free_sink(sink);
  return st;
}

void audio_sink_abort(audio_sink *sink) {
  if (!sink) return;
  drop_output(sink);
  free_sink(sink);
}

void audio_sink_get_stats(const audio_sink *sink, audio_sink_stats *stats) {
  if (!stats) return;
  memset(stats, 0, sizeof *stats);
  if (!sink) return;
  stats->frames = sink->frames;
  stats->clipped = sink->q.clipped;
  stats->peak = sink->q.peak;
  if (sink->part) { /* a float file's peaks are the part's */
    audio_part_stats ps;
    audio_part_get_stats(sink->part, &ps, NULL, NULL);
    if (ps.peak > stats->peak) stats->peak = ps.peak;
  }
}
