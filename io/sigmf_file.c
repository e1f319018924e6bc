/* sigmf_file.c - SigMF pairs on disk: naming, opening the metadata and its
 * dataset, and writing both files atomically. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "atomic_file.h"
#include "io_message.h"
#include "sigmf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char meta_ext[] = ".sigmf-meta";
static const char data_ext[] = ".sigmf-data";

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int sigmf_is_path(const char *path) {
  return path && (ends_with(path, meta_ext) || ends_with(path, data_ext));
}

static char *join(const char *a, size_t a_len, const char *b) {
  size_t b_len = strlen(b);
  char *s = malloc(a_len + b_len + 1);
  if (!s) return NULL;
  memcpy(s, a, a_len);
  memcpy(s + a_len, b, b_len + 1);
  return s;
}

convoy_status sigmf_paths(const char *path, char **meta_path, char **data_path, char *err,
                          size_t err_size) {
  *meta_path = *data_path = NULL;
  if (!path || !*path) {
    io_errorf(err, err_size, "empty SigMF file name");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (ends_with(path, ".sigmf") || ends_with(path, ".sigmf-collection")) {
    io_errorf(err, err_size, "%s: SigMF %s are not supported; %s", path,
              ends_with(path, ".sigmf") ? "archives" : "collections",
              ends_with(path, ".sigmf") ? "extract it with tar and give the .sigmf-meta file"
                                        : "give one recording's .sigmf-meta file");
    return CONVOY_ERR_UNSUPPORTED;
  }
  size_t base = strlen(path);
  if (ends_with(path, meta_ext) || ends_with(path, data_ext)) base -= sizeof meta_ext - 1;
  *meta_path = join(path, base, meta_ext);
  *data_path = join(path, base, data_ext);
  if (!*meta_path || !*data_path) {
    free(*meta_path);
    free(*data_path);
    *meta_path = *data_path = NULL;
    io_errorf(err, err_size, "%s: out of memory", path);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  return CONVOY_OK;
}

/* Reads the whole file (at most SIGMF_META_MAX_BYTES) into a new buffer. */
static convoy_status slurp(const char *path, char **text, size_t *len, char *err, size_t err_size) {
  *text = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    io_errorf(err, err_size, "%s: %s", path, strerror(errno));
    return CONVOY_ERR_IO;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    io_errorf(err, err_size, "%s: %s", path, strerror(errno));
    close(fd);
    return CONVOY_ERR_IO;
  }
  if (!S_ISREG(sb.st_mode)) {
    io_errorf(err, err_size, "%s: not a regular file", path);
    close(fd);
    return CONVOY_ERR_IO;
  }
  if ((int64_t)sb.st_size > SIGMF_META_MAX_BYTES) {
    io_errorf(err, err_size,
              "%s: %" PRId64 " bytes is too large for SigMF metadata (limit %" PRId64 ")", path,
              (int64_t)sb.st_size, SIGMF_META_MAX_BYTES);
    close(fd);
    return CONVOY_ERR_FORMAT;
  }
  size_t size = (size_t)sb.st_size;
  char *buf = malloc(size + 1);
  if (!buf) {
    close(fd);
    io_errorf(err, err_size, "%s: out of memory", path);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  size_t got = 0;
  while (got < size) {
    ssize_t r = read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      io_errorf(err, err_size, "%s: read error: %s", path, strerror(errno));
      free(buf);
      close(fd);
      return CONVOY_ERR_IO;
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);
  buf[got] = '\0';
  *text = buf;
  *len = got;
  return CONVOY_OK;
}

/* The dataset of a non-conforming recording named in global core:dataset,
 * beside the metadata; NULL when there is none. */
static char *named_dataset(const sigmf_meta *m, const char *meta_path) {
  const char *name = sj_string(sj_global(m), "core:dataset");
  if (!name || !*name || strchr(name, '/')) return NULL;
  const char *slash = strrchr(meta_path, '/');
  size_t dir = slash ? (size_t)(slash - meta_path) + 1 : 0;
  return join(meta_path, dir, name);
}

convoy_status sigmf_open(sigmf_meta **out, const char *path, char *err, size_t err_size) {
  *out = NULL;
  char *meta_path, *data_path;
  convoy_status st = sigmf_paths(path, &meta_path, &data_path, err, err_size);
  if (st != CONVOY_OK) return st;
  char *text = NULL;
  size_t len = 0;
  sigmf_meta *m = NULL;
  st = slurp(meta_path, &text, &len, err, err_size);
  if (st == CONVOY_OK) st = sigmf_meta_parse(&m, text, len, meta_path, err, err_size);
  free(text);
  if (st == CONVOY_OK) {
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(sj_global(m), "core:metadata_only");
    if (cJSON_IsTrue(only)) {
      io_errorf(err, err_size, "%s: a metadata-only recording (core:metadata_only) has no samples",
                meta_path);
      st = CONVOY_ERR_UNSUPPORTED;
    }
  }
  if (st == CONVOY_OK) {
    char *named = named_dataset(m, meta_path);
    if (named) {
      free(data_path);
      data_path = named;
    }
    /* The meta file is named too: core:dataset may name anything beside it. */
    const char *by = named ? " (global core:dataset)" : "";
    struct stat sb;
    if (stat(data_path, &sb) != 0) {
      if (errno == ENOENT)
        io_errorf(err, err_size, "%s: its dataset %s%s is missing", meta_path, data_path, by);
      else
        io_errorf(err, err_size, "%s: its dataset %s%s: %s", meta_path, data_path, by,
                  strerror(errno));
      st = CONVOY_ERR_IO;
    } else if (S_ISDIR(sb.st_mode)) {
      io_errorf(err, err_size, "%s: its dataset %s%s is a directory", meta_path, data_path, by);
      st = CONVOY_ERR_IO;
    }
  }
  free(meta_path);
  if (st != CONVOY_OK) {
    sigmf_meta_free(m);
    free(data_path);
    return st;
  }
  m->data_path = data_path;
  *out = m;
  return CONVOY_OK;
}

convoy_status sigmf_reader_options(const sigmf_meta *m, capture_reader_options *o, char *err,
                                   size_t err_size) {
  if (!m || !o) {
    io_errorf(err, err_size, "sigmf_reader_options: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *o = capture_reader_defaults(sigmf_meta_datatype(m));
  o->channels = sigmf_meta_channels(m);
  (void)sj_uint(sj_global(m), "core:trailing_bytes", &o->trailing_bytes);
  const cJSON *caps = sj_captures(m);
  int64_t i = 0;
  for (const cJSON *e = caps->child; e; e = e->next, i++) {
    int64_t h = 0;
    (void)sj_uint(e, "core:header_bytes", &h);
    if (i == 0) {
      o->header_bytes = h;
    } else if (h != 0) {
      io_errorf(err, err_size,
                "%s: captures[%" PRId64 "].core:header_bytes: headers between capture segments "
                "are not supported",
                m->name, i);
      return CONVOY_ERR_UNSUPPORTED;
    }
  }
  return CONVOY_OK;
}

/* ------------------------------------------------------------- writing */

struct sigmf_writer {
  capture_writer *data;
  atomic_file *meta_file;
  int meta_fd;
  int32_t channels;
  capture_datatype type;
  char *data_path;
  char *meta_path;
};

static void free_writer(sigmf_writer *w) {
  free(w->data_path);
  free(w->meta_path);
  free(w);
}

convoy_status sigmf_writer_open(sigmf_writer **out, const char *path,
                                const capture_writer_options *options, char *err, size_t err_size) {
  *out = NULL;
  if (!options) {
    io_errorf(err, err_size, "sigmf_writer_open: NULL options");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  sigmf_writer *w = calloc(1, sizeof *w);
  if (!w) {
    io_errorf(err, err_size, "%s: out of memory", path ? path : "");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  w->meta_fd = -1;
  convoy_status st = sigmf_paths(path, &w->meta_path, &w->data_path, err, err_size);
  if (st == CONVOY_OK)
    st = atomic_file_create(&w->meta_file, w->meta_path, options->overwrite, &w->meta_fd, err,
                            err_size);
  if (st == CONVOY_OK) st = capture_writer_open(&w->data, w->data_path, options, err, err_size);
  if (st != CONVOY_OK) {
    atomic_file_discard(w->meta_file);
    free_writer(w);
    return st;
  }
  w->channels = options->channels;
  w->type = options->type;
  *out = w;
  return CONVOY_OK;
}

capture_writer *sigmf_writer_data(sigmf_writer *w) {
  return w ? w->data : NULL;
}

void sigmf_writer_discard(sigmf_writer *w) {
  if (!w) return;
  capture_writer_discard(w->data);
  atomic_file_discard(w->meta_file);
  free_writer(w);
}

/* A rate SigMF's schema does not allow in core:sample_rate goes to
 * convoy:sample_rate (sigmf.h). Returns 0, or -1 out of memory. */
static int settle_rate(sigmf_meta *m) {
  cJSON *g = sj_global(m);
  const double rate = sigmf_meta_sample_rate(m);
  if (!(rate > 0.0 && rate < SIGMF_MIN_SAMPLE_RATE)) {
    cJSON_DeleteItemFromObjectCaseSensitive(g, "convoy:sample_rate");
    return 0;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(g, "core:sample_rate");
  return sj_set_number(g, "convoy:sample_rate", rate) || sj_declare_convoy(g) ? -1 : 0;
}

/* Sets what the written data implies and removes what no longer holds. */
static convoy_status complete(sigmf_writer *w, sigmf_meta *m, char *err, size_t err_size) {
  cJSON *g = sj_global(m);
  convoy_status st = sigmf_meta_set_datatype(m, w->type, err, err_size);
  if (st == CONVOY_OK && !sigmf_meta_version(m))
    st = sigmf_meta_set_version(m, SIGMF_VERSION_DEFAULT, err, err_size);
  if (st != CONVOY_OK) return st;
  if (settle_rate(m)) {
    io_errorf(err, err_size, "%s: out of memory", w->meta_path);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  if (w->channels > 1 || cJSON_GetObjectItemCaseSensitive(g, "core:num_channels")) {
    if (sj_set_number(g, "core:num_channels", w->channels)) {
      io_errorf(err, err_size, "%s: out of memory", w->meta_path);
      return CONVOY_ERR_OUT_OF_MEMORY;
    }
  }
  static const char *const stale[] = {"core:sha512", "core:trailing_bytes", "core:metadata_only",
                                      "core:dataset"};
  for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++)
    cJSON_DeleteItemFromObjectCaseSensitive(g, stale[i]);
  for (cJSON *c = sj_captures(m)->child; c; c = c->next)
    cJSON_DeleteItemFromObjectCaseSensitive(c, "core:header_bytes");
  return sigmf_meta_clip(m, capture_writer_frames(w->data), err, err_size);
}

static convoy_status write_text(sigmf_writer *w, const char *text, char *err, size_t err_size) {
  size_t n = strlen(text), done = 0;
  while (done < n) {
    ssize_t put = write(w->meta_fd, text + done, n - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) {
      io_errorf(err, err_size, "%s: write error: %s", w->meta_path, strerror(errno));
      return CONVOY_ERR_IO;
    }
    done += (size_t)put;
  }
  return CONVOY_OK;
}

convoy_status sigmf_writer_commit(sigmf_writer *w, sigmf_meta *m, char *err, size_t err_size) {
  if (!w || !m) {
    io_errorf(err, err_size, "sigmf_writer_commit: NULL argument");
    sigmf_writer_discard(w);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  convoy_status st = complete(w, m, err, err_size);
  if (st == CONVOY_OK) {
    char *text = sigmf_meta_print(m);
    if (!text) {
      io_errorf(err, err_size, "%s: out of memory", w->meta_path);
      st = CONVOY_ERR_OUT_OF_MEMORY;
    } else {
      st = write_text(w, text, err, err_size);
      free(text);
    }
  }
  if (st != CONVOY_OK) {
    sigmf_writer_discard(w);
    return st;
  }
  /* The metadata goes in place right after the dataset, and where it
   * cannot, the dataset is removed again: no dataset without its metadata. */
  st = capture_writer_commit_with(w->data, w->meta_file, err, err_size);
  w->data = NULL;
  free_writer(w);
  return st;
}
