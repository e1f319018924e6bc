/* capture_split.c - a capture filtered as ranges by several pipelines (capture_split.h). */
#define _POSIX_C_SOURCE 200809L
#include "capture_split.h"

#include "capture_xlate.h"
#include "commands.h"
#include "diag.h"
#include "pass_warm.h"
#include "scale_threads.h"
#include "split_plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct range_job {
  const capture_split_config *cfg;
  split_range range;
  int32_t device;
  progress *progress; /* NULL: not drawn */
  capture_run_result res;
  convoy_engine engine; /* what its stream ran on */
  int status;
} range_job;

/* The job in the stream's absolute frames: the selection starts at input
 * frame skip with a warm start, at 0 with a cold one (the stream counts
 * from the selection). */
static split_job job_of(const capture_split_config *cfg) {
  const capture_in *in = cfg->stream.in;
  split_job j;
  memset(&j, 0, sizeof j);
  j.start = in->warm ? in->skip : 0;
  j.frames = in->frames;
  j.skip = cfg->stream.align_skip;
  j.win_begin = j.start + j.skip;
  const int64_t taps = cfg->stream.taps->max_taps;
  j.win_end = (cfg->tail ? j.start + j.frames + taps - 1 : j.win_begin + j.frames) - cfg->drop_end;
  if (j.frames == 0 || j.win_end < j.win_begin) j.win_end = j.win_begin;
  j.decimation = capture_xlate_factor(&cfg->stream.o->capture.xlate);
  j.phase = j.skip % j.decimation;
  return j;
}

int64_t capture_split_output_frames(const capture_split_config *cfg) {
  const split_job j = job_of(cfg);
  return split_output_frames(&j);
}

static int fail(const char *msg, convoy_status st) {
  diag_error("%s", msg[0] ? msg : convoy_strerror(st));
  return CLI_EXIT_FAIL;
}

/* The range's reader: from its stream's history on, to the input's end
 * (a warm selection, whose end reads on into what follows it) or the
 * selection's. */
static int open_reader(const range_job *rj, int64_t first_read, capture_reader **reader) {
  const capture_in *in = rj->cfg->stream.in;
  const split_job j = job_of(rj->cfg);
  const int64_t base = in->warm ? 0 : in->skip; /* the input frame of stream frame 0 */
  capture_reader_options ro = in->ro;
  ro.skip = base + first_read;
  ro.count = in->warm ? -1 : j.start + j.frames - first_read;
  char err[512] = "";
  convoy_status st = capture_reader_open(reader, in->data_path, &ro, err, sizeof err);
  return st == CONVOY_OK ? CLI_EXIT_OK : fail(err, st);
}

static int run_range(range_job *rj) {
  const capture_split_config *cfg = rj->cfg;
  const filter_options *o = cfg->stream.o;
  const split_range *r = &rj->range;
  convoy_stream *stream = NULL;
  capture_reader *reader = NULL;
  capture_writer *writer = NULL;
  /* Float output, quantized by the writer: a range drops output frames past
   * its end (the lookahead's, the ring-out's) that an integer stream would
   * count among the clipped. The writer's codes are the stream's
   * (capture_convert.c), its tally that of the frames written. */
  capture_stream_spec spec = cfg->stream;
  spec.output_format = CONVOY_FORMAT_F32;
  int rc = capture_stream_make(&spec, r->first, rj->device, &stream);
  if (rc == CLI_EXIT_OK) rj->engine = convoy_stream_engine(stream);
  pass_window w;
  memset(&w, 0, sizeof w);
  w.skip = cfg->stream.align_skip;
  w.tail = r->last ? cfg->tail : 0;
  w.drop_end = r->last ? cfg->drop_end : 0;
  w.decimation = capture_xlate_factor(&o->capture.xlate);
  w.phase = capture_stream_phase(o, cfg->stream.align_skip, r->first);
  pass_warm warm;
  memset(&warm, 0, sizeof warm);
  int64_t first_read = 0;
  if (rc == CLI_EXIT_OK) {
    first_read = pass_warm_plan(stream, r->first, r->frames, &w, &warm);
    rc = open_reader(rj, first_read, &reader);
  }
  char err[512] = "";
  if (rc == CLI_EXIT_OK) {
    capture_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.type = cfg->out_type;
    wo.scaling = cfg->out_scaling;
    wo.channels = cfg->stream.in->ro.channels;
    convoy_status st = capture_writer_open_at(&writer, cfg->out_path, cfg->out_name, &wo,
                                              r->out_first, err, sizeof err);
    if (st != CONVOY_OK) rc = fail(err, st);
  }
  if (rc == CLI_EXIT_OK) {
    const capture_in *in = cfg->stream.in;
    capture_run_config run;
    memset(&run, 0, sizeof run);
    run.in_name = in->name;
    run.reader = reader;
    run.stream = stream;
    run.writer = writer;
    run.out_type = cfg->out_type;
    run.out_scaling = cfg->out_scaling;
    run.chunk_frames = pass_chunk_frames(
        stream, CAPTURE_CHUNK_VALUES,
        (int64_t)in->ro.channels * capture_datatype_components(in->ro.type), r->frames);
    run.float_output = 1;
    run.window = w;
    run.warm = warm;
    run.progress = rj->progress;
    convoy_status st = capture_run(&run, &rj->res, err, sizeof err);
    if (st != CONVOY_OK) {
      rc = fail(err, st);
    } else if (rj->res.out_frames != r->out_frames) {
      diag_error("%s: internal error: the range from sample %lld wrote %lld samples, not %lld",
                 cfg->out_name, (long long)r->first, (long long)rj->res.out_frames,
                 (long long)r->out_frames);
      rc = CLI_EXIT_FAIL;
    }
  }
  if (writer && rc == CLI_EXIT_OK) {
    convoy_status st = capture_writer_commit(writer, err, sizeof err);
    if (st != CONVOY_OK) rc = fail(err, st);
  } else {
    capture_writer_discard(writer);
  }
  if (reader) capture_reader_close(reader);
  convoy_stream_destroy(stream);
  return rc;
}

static void *range_thread(void *arg) {
  range_job *rj = arg;
  rj->status = run_range(rj);
  return NULL;
}

static void add_result(capture_run_result *total, const capture_run_result *r) {
  total->in_frames += r->in_frames;
  total->out_frames += r->out_frames;
  total->direct = r->direct;
  total->tally.clipped += r->tally.clipped;
  if (r->tally.peak > total->tally.peak) total->tally.peak = r->tally.peak;
  if (r->pass.run_s > total->pass.run_s) total->pass = r->pass; /* the slowest range's times */
}

int capture_split_run(const capture_split_config *cfg, capture_run_result *res,
                      convoy_engine *engine) {
  memset(res, 0, sizeof *res);
  const split_job job = job_of(cfg);
  split_range *ranges = calloc(SPLIT_MAX_RANGES, sizeof *ranges);
  range_job *jobs = calloc((size_t)cfg->pipelines, sizeof *jobs);
  if (!ranges || !jobs) {
    free(ranges);
    free(jobs);
    diag_error("%s: out of memory", cfg->out_name);
    return CLI_EXIT_FAIL;
  }
  const int n = split_plan(&job, cfg->ranks * cfg->pipelines, ranges);
  int mine = 0;
  for (int p = 0; p < cfg->pipelines; p++) {
    const int index = cfg->rank * cfg->pipelines + p;
    if (index >= n) break;
    jobs[mine].cfg = cfg;
    jobs[mine].range = ranges[index];
    jobs[mine].device = cfg->devices[p];
    mine++;
  }
  if (mine > 0 && cfg->progress) {
    jobs[0].progress = cfg->progress;
    progress_start(cfg->progress, cfg->progress->enabled, "filtering", jobs[0].range.frames,
                   cfg->stream.in->rate, cfg->stream.in->ro.channels);
  }
  scale_threads_run(range_thread, jobs, mine, sizeof *jobs);
  int rc = CLI_EXIT_OK;
  for (int i = 0; i < mine; i++) {
    if (jobs[i].status > rc) rc = jobs[i].status;
    add_result(res, &jobs[i].res);
  }
  if (mine > 0 && cfg->progress) progress_end(cfg->progress);
  *engine = mine > 0 ? jobs[0].engine : cfg->stream.engine;
  free(ranges);
  free(jobs);
  return rc;
}
