/* audio_split.c - an audio file filtered as ranges by several pipelines (audio_split.h). */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include "audio_split.h"

#include "atomic_file.h"
#include "audio_part.h"
#include "commands.h"
#include "diag.h"
#include "filter_run.h"
#include "pass_warm.h"
#include "scale_devices.h"
#include "scale_world.h"
#include "scale_threads.h"
#include "split_plan.h"
#include "summary.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct split_out {
  atomic_file *file; /* rank 0's temporary for OUT */
  int fd;
  char path[4096];     /* opens the temporary (every rank) */
  int64_t data_offset; /* bytes of the header */
  int64_t file_bytes;  /* the whole file's */
} split_out;

typedef struct range_job {
  const filter_job *j;
  const split_out *out;
  split_range range;
  int32_t device;
  progress *progress;
  audio_part_stats stats;
  double *peak; /* per channel, and the frame of each */
  int64_t *peak_frame;
  convoy_engine engine;
  pass_result pass; /* its threads' times */
  int status;
} range_job;

/* The job in the stream's absolute frames (split_plan.h). */
static split_job job_of(const filter_job *j) {
  split_job s;
  memset(&s, 0, sizeof s);
  s.start = j->warm ? j->sel_skip : 0;
  s.frames = j->info.frames;
  s.skip = j->skip;
  s.win_begin = s.start + s.skip;
  s.win_end = j->opt.tail ? s.start + s.frames + j->filters.max_taps - 1 : s.win_begin + s.frames;
  if (s.frames == 0) s.win_end = s.win_begin;
  s.decimation = 1;
  return s;
}

static int check(const filter_job *j) {
  const char *what = j->opt.devices.given ? "--devices" : "a run over several processes (mpirun)";
  if (strcmp(j->opt.in_path, "-") == 0 || strcmp(j->opt.out_path, "-") == 0)
    return diag_usage("filter", "%s needs IN and OUT to be files, not pipes", what);
  if (j->opt.normalize)
    return diag_usage("filter", "--normalize reads IN twice and runs in one process, not with %s",
                      what);
  return CLI_EXIT_OK;
}

static int fail(const char *err, convoy_status st) {
  diag_error("%s", err[0] ? err : convoy_strerror(st));
  return CLI_EXIT_FAIL;
}

static convoy_status consume_part(void *ctx, const float *frames, int64_t n, char *err,
                                  size_t err_size) {
  return audio_part_write(ctx, frames, n, err, err_size);
}

static int run_range(range_job *rj) {
  const filter_job *j = rj->j;
  const split_range *r = &rj->range;
  const split_job job = job_of(j);
  char err[512] = "";
  audio_source *src = NULL;
  audio_info info;
  convoy_stream *stream = NULL;
  audio_part *part = NULL;
  convoy_status st = audio_source_open(&src, j->opt.in_path, &info, err, sizeof err);
  int rc = st == CONVOY_OK ? CLI_EXIT_OK : fail(err, st);
  if (rc == CLI_EXIT_OK) rc = filter_job_make_stream(j, r->first, rj->device, &stream);
  if (rc == CLI_EXIT_OK) rj->engine = convoy_stream_engine(stream);
  pass_window w;
  memset(&w, 0, sizeof w);
  w.skip = j->skip;
  w.tail = r->last ? j->opt.tail : 0;
  pass_warm warm;
  memset(&warm, 0, sizeof warm);
  if (rc == CLI_EXIT_OK) {
    const int64_t first_read = pass_warm_plan(stream, r->first, r->frames, &w, &warm);
    const int64_t base = j->warm ? 0 : j->sel_skip; /* IN's frame of stream frame 0 */
    const int64_t count = j->warm ? -1 : job.start + job.frames - first_read;
    st = audio_source_set_range(src, base + first_read, count, err, sizeof err);
    if (st != CONVOY_OK) rc = fail(err, st);
  }
  audio_sink_options so;
  filter_job_sink_options(j, &so);
  if (rc == CLI_EXIT_OK) {
    st = audio_part_open(&part, rj->out->path, j->out_name, &so, rj->out->data_offset, r->out_first,
                         err, sizeof err);
    if (st != CONVOY_OK) rc = fail(err, st);
  }
  if (rc == CLI_EXIT_OK) {
    filter_run_config fc;
    memset(&fc, 0, sizeof fc);
    fc.in_name = j->in_name;
    fc.src = src;
    fc.stream = stream;
    fc.channels = j->info.channels;
    fc.true_stereo = j->filters.true_stereo;
    fc.chunk_frames = pass_chunk_frames(stream, FILTER_CHUNK_SAMPLES, j->info.channels, r->frames);
    fc.window = w;
    fc.warm = warm;
    fc.gain = (float)pow(10.0, j->opt.gain_db / 20.0);
    fc.consume = consume_part;
    fc.consume_ctx = part;
    fc.progress = rj->progress;
    st = filter_run(&fc, &rj->pass, err, sizeof err);
    if (st != CONVOY_OK) rc = fail(err, st);
  }
  if (part) {
    audio_part_get_stats(part, &rj->stats, rj->peak, rj->peak_frame);
    if (rc == CLI_EXIT_OK && rj->stats.frames != r->out_frames) {
      diag_error("%s: internal error: the range from frame %" PRId64 " wrote %" PRId64
                 " frames, not %" PRId64,
                 j->out_name, r->first, rj->stats.frames, r->out_frames);
      rc = CLI_EXIT_FAIL;
    }
    if (rc == CLI_EXIT_OK) {
      st = audio_part_close(part, err, sizeof err);
      if (st != CONVOY_OK) rc = fail(err, st);
    } else {
      audio_part_abort(part);
    }
  }
  convoy_stream_destroy(stream);
  if (src) audio_source_close(src);
  return rc;
}

static void *range_thread(void *arg) {
  range_job *rj = arg;
  rj->status = run_range(rj);
  return NULL;
}

/* Rank 0 makes OUT's temporary (named under MPI, so that other processes
 * can open it), sized for the whole file; every rank learns how to open it
 * and where the samples start. */
static int open_out(const filter_job *j, int64_t frames, split_out *o) {
  const scale_world *w = scale_world_get();
  int rc = CLI_EXIT_OK;
  char err[512] = "";
  char shared[4200] = "";
  if (w->rank == 0) {
    audio_sink_options so;
    filter_job_sink_options(j, &so);
    unsigned char *header = NULL;
    size_t header_bytes = 0;
    convoy_status st = audio_part_header(&so, frames, NULL, NULL, &header, &header_bytes,
                                         &o->file_bytes, err, sizeof err);
    free(header);
    if (st == CONVOY_OK)
      st = w->size > 1 ? atomic_file_create_shared(&o->file, j->opt.out_path, j->opt.overwrite,
                                                   &o->fd, err, sizeof err)
                       : atomic_file_create(&o->file, j->opt.out_path, j->opt.overwrite, &o->fd,
                                            err, sizeof err);
    if (st == CONVOY_OK && ftruncate(o->fd, (off_t)o->file_bytes) != 0) {
      snprintf(err, sizeof err, "%s: cannot size the output: %s", j->out_name, strerror(errno));
      st = CONVOY_ERR_IO;
    }
    char proc[64];
    const char *p = st == CONVOY_OK ? atomic_file_reopen_path(o->file, proc, sizeof proc) : NULL;
    if (st != CONVOY_OK)
      rc = fail(err, st);
    else
      snprintf(shared, sizeof shared, "%zu %s", header_bytes, p);
  }
  rc = scale_world_agree(rc);
  if (rc != CLI_EXIT_OK) return rc;
  scale_world_share(shared, sizeof shared);
  char *rest = NULL;
  o->data_offset = strtoll(shared, &rest, 10);
  snprintf(o->path, sizeof o->path, "%s", rest && *rest ? rest + 1 : "");
  return CLI_EXIT_OK;
}

/* The channels' peaks over every range and rank: the largest, at the first
 * frame where it occurs (libsndfile's PEAK rule). */
static void merge_peaks(int32_t channels, const range_job *jobs, int n, double *peak,
                        int64_t *frame) {
  for (int32_t c = 0; c < channels; c++) {
    peak[c] = 0.0;
    for (int i = 0; i < n; i++)
      if (jobs[i].peak[c] > peak[c]) peak[c] = jobs[i].peak[c];
    peak[c] = scale_world_max(peak[c]);
    frame[c] = INT64_MAX;
    for (int i = 0; i < n; i++)
      if (peak[c] > 0 && jobs[i].peak[c] == peak[c] && jobs[i].peak_frame[c] < frame[c])
        frame[c] = jobs[i].peak_frame[c];
  }
  scale_world_min(frame, channels);
  for (int32_t c = 0; c < channels; c++)
    if (frame[c] == INT64_MAX) frame[c] = 0;
}

/* Rank 0: the header with the peaks, then OUT in place. */
static int commit_out(const filter_job *j, split_out *o, int64_t frames, const double *peak,
                      const int64_t *frame) {
  audio_sink_options so;
  filter_job_sink_options(j, &so);
  char err[512] = "";
  convoy_status st =
      audio_part_finish(o->fd, j->out_name, &so, frames, peak, frame, err, sizeof err);
  if (st == CONVOY_OK) {
    st = atomic_file_commit(o->file, err, sizeof err);
    o->file = NULL;
  }
  return st == CONVOY_OK ? CLI_EXIT_OK : fail(err, st);
}

static int run_ranges(filter_job *j, const split_out *o, const scale_devices *dev, range_job *jobs,
                      int *mine) {
  const scale_world *w = scale_world_get();
  const split_job job = job_of(j);
  split_range *ranges = calloc(SPLIT_MAX_RANGES, sizeof *ranges);
  if (!ranges) {
    diag_error("%s: out of memory", j->out_name);
    return CLI_EXIT_FAIL;
  }
  const int n = split_plan(&job, w->size * dev->count, ranges);
  *mine = 0;
  for (int p = 0; p < dev->count && w->rank * dev->count + p < n; p++) {
    range_job *rj = &jobs[(*mine)++];
    rj->j = j;
    rj->out = o;
    rj->range = ranges[w->rank * dev->count + p];
    rj->device = dev->index[p];
  }
  if (*mine > 0) {
    jobs[0].progress = &j->prog;
    progress_start(&j->prog, w->rank == 0 && isatty(STDERR_FILENO) && !j->opt.quiet, "filtering",
                   jobs[0].range.frames, j->info.rate, j->info.channels);
  }
  scale_threads_run(range_thread, jobs, *mine, sizeof *jobs);
  int rc = CLI_EXIT_OK;
  for (int i = 0; i < *mine; i++) {
    if (jobs[i].status > rc) rc = jobs[i].status;
  }
  if (*mine > 0) progress_end(&j->prog);
  free(ranges);
  return rc;
}

int audio_split_run(filter_job *j) {
  const scale_world *w = scale_world_get();
  const double t0 = progress_clock();
  int rc = check(j);
  if (rc == CLI_EXIT_OK) rc = filter_job_open_input(j);
  if (rc == CLI_EXIT_OK && j->info.frames < 0)
    rc = diag_usage("filter", "%s: its length is not known, so it cannot be split", j->in_name);
  if (rc == CLI_EXIT_OK) rc = filter_job_output_format(j);
  if (rc == CLI_EXIT_OK && !audio_part_supported(j->out_format)) {
    diag_error("%s: a split run writes WAV, RF64 or W64 of PCM or float samples; name OUT so "
               "(or --subtype float)",
               j->out_name);
    rc = CLI_EXIT_FAIL;
  }
  scale_devices dev;
  memset(&dev, 0, sizeof dev);
  if (rc == CLI_EXIT_OK)
    rc = scale_devices_for_process(&j->opt.devices, j->opt.device, j->engine, &dev);
  if (rc == CLI_EXIT_OK) filter_job_set_align(j);
  rc = scale_world_agree(rc);
  if (rc != CLI_EXIT_OK) return rc;
  const split_job job = job_of(j);
  const int64_t frames = split_output_frames(&job);
  split_out o;
  memset(&o, 0, sizeof o);
  o.fd = -1;
  rc = open_out(j, frames, &o);
  if (rc != CLI_EXIT_OK) return rc;

  const int32_t ch = j->info.channels;
  range_job *jobs = calloc((size_t)dev.count, sizeof *jobs);
  double *peaks = calloc((size_t)(dev.count + 1) * (size_t)ch, sizeof *peaks);
  int64_t *frames_at = calloc((size_t)(dev.count + 1) * (size_t)ch, sizeof *frames_at);
  int mine = 0;
  if (!jobs || !peaks || !frames_at) {
    diag_error("%s: out of memory", j->out_name);
    rc = CLI_EXIT_FAIL;
  } else {
    for (int i = 0; i < dev.count; i++) {
      jobs[i].peak = peaks + (size_t)(i + 1) * (size_t)ch;
      jobs[i].peak_frame = frames_at + (size_t)(i + 1) * (size_t)ch;
    }
    rc = run_ranges(j, &o, &dev, jobs, &mine);
  }
  const int own = rc;
  rc = scale_world_agree(rc);
  int64_t sums[2] = {0, 0};
  double peak = 0.0;
  for (int i = 0; i < mine; i++) {
    sums[0] += jobs[i].stats.frames;
    sums[1] += jobs[i].stats.clipped;
    if (jobs[i].stats.peak > peak) peak = jobs[i].stats.peak;
  }
  scale_world_sum(sums, 2);
  peak = scale_world_max(peak);
  if (j->opt.verbose && mine > 0) { /* the slowest range of this process bounds it */
    int slowest = 0;
    for (int i = 1; i < mine; i++)
      if (jobs[i].pass.run_s > jobs[slowest].pass.run_s) slowest = i;
    diag_notice("split: %d range%s in this process; the slowest one's threads:", mine,
                mine == 1 ? "" : "s");
    pass_print_times(&jobs[slowest].pass);
  }
  /* Every rank takes part in the reductions, whatever failed here. */
  static double peak_of[CONVOY_MAX_CHANNELS];
  static int64_t frame_of[CONVOY_MAX_CHANNELS];
  merge_peaks(ch, jobs, jobs ? mine : 0, peak_of, frame_of);
  if (rc == CLI_EXIT_OK && w->rank == 0)
    rc = commit_out(j, &o, frames, peak_of, frame_of);
  else if (rc != CLI_EXIT_OK && w->rank == 0 && own == CLI_EXIT_OK)
    diag_error("%s: not written: another process of the run failed", j->out_name);
  atomic_file_discard(o.file); /* NULL after a commit */
  rc = scale_world_agree(rc);
  if (rc == CLI_EXIT_OK && w->rank == 0) {
    filter_summary s;
    memset(&s, 0, sizeof s);
    s.in_name = j->in_name;
    s.out_name = j->out_name;
    s.frames = sums[0];
    s.channels = ch;
    s.rate = j->info.rate;
    s.format = j->out_format;
    s.taps = j->filters.max_taps;
    s.engine = convoy_engine_name(mine > 0 ? jobs[0].engine : j->engine);
    s.peak = peak;
    s.clipped = sums[1];
    s.gain_db = j->opt.gain_db;
    s.elapsed_s = progress_clock() - t0;
    summary_print(&s);
  }
  free(jobs);
  free(peaks);
  free(frames_at);
  return rc;
}
