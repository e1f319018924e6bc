/* cmd_bench.c - `convoy bench`: throughput of the engines on this machine. */
#include "commands.h"

#include "argparse.h"
#include "bench_file.h"
#include "bench_gpu.h"
#include "bench_live.h"
#include "bench_machine.h"
#include "bench_memory.h"
#include "bench_report.h"
#include "bench_util.h"
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FRAMES ((int64_t)1 << 24)
#define DEFAULT_GPU_FRAMES ((int64_t)1 << 28)
#define DEFAULT_CHUNK ((int64_t)1 << 20)
#define DEFAULT_RUNS 5
#define DEFAULT_LIMIT_S 20.0
#define SIGNAL_SEED 0x636f6e766f79ull
#define SIGNAL_AMPLITUDE 0.25f

static const char usage_text[] =
    "usage: convoy bench [options]\n"
    "\n"
    "Measures how fast each engine filters float32 samples on this machine:\n"
    "in memory through a stream (process() calls of --chunk frames, then flush),\n"
    "and with --file, file to file through `convoy filter` on WAV files.\n"
    "Prints the machine, the build, and for each tap count and engine the plan,\n"
    "the stream creation (planning) time and the throughput in MS/s (mega\n"
    "samples per second = frames x channels / seconds / 1e6): the median of\n"
    "--runs runs, with the fastest and slowest. Outputs are spot-checked against\n"
    "a double-precision sum; a combination estimated to need more than --limit\n"
    "seconds for its runs is skipped and its estimate printed.\n"
    "\n"
    "GPU engines (gpu, gpu-direct, gpu-fft), when a GPU is present, are measured\n"
    "in their own section on 2^28 frames by default: the device-resident rate\n"
    "(convoy_cuda.h on buffers in GPU memory) in GS/s and as a fraction of the\n"
    "measured device-to-device copy rate at 8 bytes a sample, and host to host\n"
    "through the stream API from pinned buffers (convoy_host_alloc) in calls of\n"
    "the whole signal (or --chunk), as a fraction of the measured pinned bus\n"
    "bandwidth with both directions at once; each row prints its plan.\n"
    "\n"
    "options:\n"
    "  --taps LIST      tap counts, comma separated (default 16,1024,65536)\n"
    "  --frames N       frames per run, a number or 2^K (default 2^24; GPU\n"
    "                   engines 2^28)\n"
    "  --channels C     interleaved channels, one filter for all (default 1)\n"
    "  --engine LIST    engine names, comma separated, or 'all' (default: every\n"
    "                   available engine, then auto); see `convoy info`\n"
    "  --runs R         timed runs per combination (default 5)\n"
    "  --threads N      CPU threads for the engines (default: all)\n"
    "  --fft-size N     FFT size of the FFT engines, at least the longest tap\n"
    "                   count (default: each engine's own choice)\n"
    "  --chunk N        frames per process() call (default 2^20; GPU engines:\n"
    "                   the whole signal)\n"
    "  --format F       GPU engines' samples in and out: f32, s16 (pcm16), s8 or\n"
    "                   u8 (ci8/cu8 captures: with --channels 2 the layout of one\n"
    "                   complex channel), converted and quantized on the GPU;\n"
    "                   default f32\n"
    "  --limit S        skip a combination whose runs would take over S seconds\n"
    "                   (default 20)\n"
    "  --file           also time file to file: a 48 kHz WAV of the same signal\n"
    "                   (float32 and pcm16) and raw float32 and int16 captures\n"
    "                   (.f32 and .s16 for 1 channel, .cf32 and .cs16 for 2)\n"
    "                   filtered by `convoy filter`, each beside `cp` of the same\n"
    "                   file (the file system's limit)\n"
    "  --json           print one JSON document instead of the tables (in memory:\n"
    "                   CPU engines and auto, the GPU section being text only;\n"
    "                   file to file: every engine)\n"
    "  --live           the real-time convolver at a simulated real-time pace\n"
    "                   instead (see `convoy bench --live --help`)\n"
    "  -h, --help       this text\n"
    "\n"
    "examples:\n"
    "  convoy bench\n"
    "  convoy bench --taps 1024 --engine cpu-fft --runs 9\n"
    "  convoy bench --taps 16,1024 --engine auto --file\n"
    "  convoy bench --frames 2^20 --channels 8 --json > bench.json\n"
    "  convoy bench --engine gpu-direct,gpu-fft --format s16\n";

enum {
  OPT_TAPS = 1,
  OPT_FRAMES,
  OPT_CHANNELS,
  OPT_ENGINE,
  OPT_RUNS,
  OPT_THREADS,
  OPT_CHUNK,
  OPT_LIMIT,
  OPT_FORMAT,
  OPT_FFT_SIZE,
  OPT_HELP
};

static const arg_option bench_options[] = {
    {"taps", 0, ARG_REQUIRED, OPT_TAPS, ARG_STORE_NONE, 0, 0},
    {"frames", 0, ARG_REQUIRED, OPT_FRAMES, ARG_STORE_NONE, 0, 0},
    {"channels", 0, ARG_REQUIRED, OPT_CHANNELS, ARG_STORE_NONE, 0, 0},
    {"engine", 0, ARG_REQUIRED, OPT_ENGINE, ARG_STORE_NONE, 0, 0},
    {"runs", 0, ARG_REQUIRED, OPT_RUNS, ARG_STORE_NONE, 0, 0},
    {"threads", 0, ARG_REQUIRED, OPT_THREADS, ARG_STORE_NONE, 0, 0},
    {"chunk", 0, ARG_REQUIRED, OPT_CHUNK, ARG_STORE_NONE, 0, 0},
    {"limit", 0, ARG_REQUIRED, OPT_LIMIT, ARG_STORE_NONE, 0, 0},
    {"format", 0, ARG_REQUIRED, OPT_FORMAT, ARG_STORE_NONE, 0, 0},
    {"fft-size", 0, ARG_REQUIRED, OPT_FFT_SIZE, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("file", 0, bench_settings, file, 1),
    ARG_FLAG("json", 0, bench_settings, json, 1),
    {"help", 'h', ARG_NONE, OPT_HELP, ARG_STORE_NONE, 0, 0},
    ARG_TABLE_END};

static void default_engines(bench_settings *s) {
  s->n_engines = 0;
  for (int32_t i = 0; i < convoy_engine_count(); i++) {
    convoy_engine e = convoy_engine_at(i);
    if (convoy_engine_is_exact(e) && convoy_engine_available(e)) s->engines[s->n_engines++] = e;
  }
  s->engines[s->n_engines++] = CONVOY_ENGINE_AUTO;
}

static int taps_item(const arg_parser *p, const char *tok, void *ctx) {
  bench_settings *s = ctx;
  int64_t n;
  if (bench_parse_count(tok, &n) != 0 || n > ((int64_t)1 << 31))
    return diag_usage(p->cmd, "%s: '%s' is not a tap count in 1..2^31", p->current, tok);
  for (int i = 0; i < s->n_taps; i++)
    if (s->taps[i] == n) return 0;
  if (s->n_taps == BENCH_MAX_TAP_COUNTS)
    return diag_usage(p->cmd, "%s: at most %d tap counts", p->current, BENCH_MAX_TAP_COUNTS);
  s->taps[s->n_taps++] = n;
  return 0;
}

static int engine_item(const arg_parser *p, const char *tok, void *ctx) {
  bench_settings *s = ctx;
  if (strcmp(tok, "all") == 0) {
    default_engines(s);
    return 0;
  }
  convoy_engine e;
  if (convoy_engine_from_name(tok, &e) != CONVOY_OK)
    return diag_usage(p->cmd, "%s: unknown engine '%s'", p->current, tok);
  for (int i = 0; i < s->n_engines; i++)
    if (s->engines[i] == e) return 0;
  if (s->n_engines == BENCH_MAX_ENGINES)
    return diag_usage(p->cmd, "%s: at most %d engines", p->current, BENCH_MAX_ENGINES);
  s->engines[s->n_engines++] = e;
  return 0;
}

static int parse_count_option(const arg_parser *p, const char *text, int64_t hi, int64_t *v) {
  if (bench_parse_count(text, v) == 0 && *v <= hi) return 0;
  return diag_usage(p->cmd, "%s: '%s' is not a count in 1..%lld (a number or 2^K)", p->current,
                    text, (long long)hi);
}

/* The options the table does not store (see arg_parse). */
static int handle_option(arg_parser *p, int id, const char *v, void *target) {
  bench_settings *s = target;
  int rc = 0;
  int64_t n;
  switch (id) {
  case ARG_POSITIONAL:
    return diag_usage(p->cmd, "unexpected argument '%s'", v);
  case OPT_HELP:
    fputs(usage_text, stdout);
    return -1;
  case OPT_TAPS:
    s->n_taps = 0;
    rc = arg_list(p, v, taps_item, s);
    break;
  case OPT_ENGINE:
    s->n_engines = 0;
    rc = arg_list(p, v, engine_item, s);
    break;
  case OPT_FRAMES:
    rc = parse_count_option(p, v, (int64_t)1 << 40, &s->frames);
    s->frames_set = 1;
    break;
  case OPT_CHUNK:
    rc = parse_count_option(p, v, (int64_t)1 << 40, &s->chunk);
    s->chunk_set = 1;
    break;
  case OPT_FORMAT:
    if (strcmp(v, "f32") == 0)
      s->format = CONVOY_FORMAT_F32;
    else if (strcmp(v, "s16") == 0)
      s->format = CONVOY_FORMAT_S16;
    else if (strcmp(v, "s8") == 0)
      s->format = CONVOY_FORMAT_S8;
    else if (strcmp(v, "u8") == 0)
      s->format = CONVOY_FORMAT_U8;
    else
      rc = diag_usage(p->cmd, "%s: '%s' is not f32, s16, s8 or u8", p->current, v);
    break;
  case OPT_CHANNELS:
    rc = arg_int64(p, v, 1, CONVOY_MAX_CHANNELS, &n) ? CLI_EXIT_USAGE : 0;
    s->channels = (int32_t)n;
    break;
  case OPT_RUNS:
    rc = arg_int64(p, v, 1, 1000, &n) ? CLI_EXIT_USAGE : 0;
    s->runs = (int)n;
    break;
  case OPT_THREADS:
    rc = arg_int64(p, v, 1, 4096, &n) ? CLI_EXIT_USAGE : 0;
    s->threads = (int32_t)n;
    break;
  case OPT_FFT_SIZE:
    rc = parse_count_option(p, v, (int64_t)1 << 40, &s->fft_size);
    if (rc == 0 && s->fft_size < 2)
      rc = diag_usage(p->cmd, "%s: '%s' is not an FFT size of 2 or more", p->current, v);
    break;
  case OPT_LIMIT:
    rc = arg_double(p, v, &s->limit_s) ? CLI_EXIT_USAGE : 0;
    if (rc == 0 && s->limit_s <= 0)
      rc = diag_usage(p->cmd, "%s: '%s' is not a positive number of seconds", p->current, v);
    break;
  }
  return rc;
}

static int parse_options(int argc, char **argv, bench_settings *s) {
  memset(s, 0, sizeof *s);
  s->frames = DEFAULT_FRAMES;
  s->channels = 1;
  s->chunk = DEFAULT_CHUNK;
  s->runs = DEFAULT_RUNS;
  s->limit_s = DEFAULT_LIMIT_S;
  s->format = CONVOY_FORMAT_F32;
  arg_parser p;
  arg_init(&p, argc, argv, bench_options);
  int rc = arg_parse(&p, s, handle_option, NULL);
  if (rc) return rc;
  if (s->n_taps == 0) {
    s->taps[0] = 16;
    s->taps[1] = 1024;
    s->taps[2] = 65536;
    s->n_taps = 3;
  }
  if (s->n_engines == 0) default_engines(s);
  for (int i = 0; i < s->n_taps && s->fft_size > 0; i++)
    if (s->taps[i] > s->fft_size)
      return diag_usage(p.cmd, "--fft-size: %lld is shorter than %lld taps", (long long)s->fft_size,
                        (long long)s->taps[i]);
  return 0;
}

/* Everything one invocation holds; freed by bench_state_free. */
typedef struct bench_state {
  bench_settings s;
  bench_machine machine;
  float *signal;
  float *taps;
  bench_memory_row *mem;
  bench_file_row *file;
  int n_mem, n_file;
  bench_files files;
  int files_ready;
} bench_state;

static void bench_state_free(bench_state *b) {
  if (b->files_ready) bench_files_remove(&b->files);
  free(b->signal);
  free(b->taps);
  free(b->mem);
  free(b->file);
}

/* One engine at one tap count, in memory; returns the row. */
static bench_memory_row *measure_memory(bench_state *b, convoy_filter *filter, int64_t taps,
                                        convoy_engine engine) {
  bench_memory_row *row = &b->mem[b->n_mem++];
  row->taps = taps;
  row->engine = engine;
  if (!convoy_engine_available(engine)) {
    row->state = BENCH_ROW_UNAVAILABLE;
    return row;
  }
  bench_memory_config cfg = {b->s.frames,   b->s.channels, b->s.chunk, b->s.threads,
                             b->s.fft_size, engine,        b->s.runs,  b->s.limit_s};
  convoy_status st =
      bench_memory_run(&cfg, b->signal, filter, &row->r, row->message, sizeof row->message);
  if (st != CONVOY_OK)
    row->state = BENCH_ROW_FAILED;
  else if (row->r.skipped)
    row->state = BENCH_ROW_SKIPPED;
  else if (!(row->r.check_rel_err <= BENCH_CHECK_LIMIT))
    row->state = BENCH_ROW_WRONG;
  return row;
}

static void measure_file(bench_state *b, int64_t taps, convoy_engine engine) {
  for (int t = 0; t < BENCH_FILE_SUBTYPES; t++) {
    if (!bench_files_have(&b->files, (bench_file_subtype)t)) continue;
    bench_file_row *row = &b->file[b->n_file++];
    row->taps = taps;
    row->engine = engine;
    row->subtype = (bench_file_subtype)t;
    convoy_status st =
        bench_file_run(&b->files, row->subtype, "/proc/self/exe", engine, b->s.threads,
                       b->s.fft_size, b->s.runs, &row->r, row->message, sizeof row->message);
    row->state = st == CONVOY_OK ? BENCH_ROW_OK : BENCH_ROW_FAILED;
    if (!b->s.json) bench_text_file_row(row, &b->files, &b->s);
  }
}

/* Moves the engines the GPU section measures out of s->engines into gpu[];
 * returns how many. */
static int split_gpu_engines(bench_settings *s, convoy_engine *gpu) {
  int n_gpu = 0, n_cpu = 0;
  for (int e = 0; e < s->n_engines; e++) {
    if (bench_gpu_handles(s->engines[e]))
      gpu[n_gpu++] = s->engines[e];
    else
      s->engines[n_cpu++] = s->engines[e];
  }
  s->n_engines = n_cpu;
  return n_gpu;
}

static int run_gpu(const bench_settings *s, const convoy_engine *gpu, int n_gpu) {
  if (s->json) {
    fprintf(stderr, "convoy bench: --json: the GPU engines are measured in text mode only; "
                    "skipped\n");
    return 0;
  }
  bench_settings g = *s;
  memcpy(g.engines, gpu, sizeof(convoy_engine) * (size_t)n_gpu);
  g.n_engines = n_gpu;
  return bench_gpu_run(&g, s->frames_set ? s->frames : DEFAULT_GPU_FRAMES, s->format, s->chunk_set);
}

static int run_bench(bench_state *b) {
  bench_settings *s = &b->s;
  int failures = 0;
  convoy_engine gpu[BENCH_MAX_ENGINES];
  int n_gpu = split_gpu_engines(s, gpu);
  if (s->n_engines == 0) { /* GPU engines only */
    bench_settings shown = *s;
    shown.frames = s->frames_set ? s->frames : DEFAULT_GPU_FRAMES;
    shown.chunk = s->chunk_set ? s->chunk : shown.frames;
    if (s->json)
      bench_json(&b->machine, s, NULL, 0, NULL, 0, NULL);
    else
      bench_text_header(&b->machine, &shown);
    failures = run_gpu(s, gpu, n_gpu);
    if (failures)
      diag_error("bench: %d GPU measurement%s failed (see the report)", failures,
                 failures == 1 ? "" : "s");
    return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
  }
  size_t samples = (size_t)s->frames * (size_t)s->channels;
  int64_t max_taps = 0;
  for (int i = 0; i < s->n_taps; i++)
    if (s->taps[i] > max_taps) max_taps = s->taps[i];
  b->signal = malloc(sizeof(float) * samples);
  b->taps = malloc(sizeof(float) * (size_t)max_taps);
  b->mem = calloc((size_t)(s->n_taps * s->n_engines), sizeof *b->mem);
  b->file =
      calloc((size_t)(BENCH_FILE_SUBTYPES * s->n_taps * (s->n_engines + n_gpu)), sizeof *b->file);
  if (!b->signal || !b->taps || !b->mem || !b->file) {
    diag_error("bench: cannot allocate %lld samples", (long long)samples);
    return CLI_EXIT_FAIL;
  }
  bench_fill_noise(b->signal, (int64_t)samples, SIGNAL_SEED, SIGNAL_AMPLITUDE);

  if (!s->json) bench_text_header(&b->machine, s);
  char err[BENCH_MESSAGE];
  if (s->file) {
    if (bench_files_prepare(&b->files, b->signal, s->frames, s->channels, err, sizeof err) !=
        CONVOY_OK) {
      diag_error("bench: %s", err);
      return CLI_EXIT_FAIL;
    }
    b->files_ready = 1;
    if (bench_files_time_copy(&b->files, s->runs, err, sizeof err) != CONVOY_OK) {
      diag_error("bench: %s", err);
      return CLI_EXIT_FAIL;
    }
  }

  if (!s->json) bench_text_memory_title();
  for (int i = 0; i < s->n_taps; i++) {
    int64_t m = s->taps[i];
    bench_lowpass_taps(b->taps, m);
    convoy_filter *filter = NULL;
    if (convoy_filter_create(&filter, b->taps, m) != CONVOY_OK) {
      diag_error("bench: %lld taps: %s", (long long)m, convoy_last_error());
      return CLI_EXIT_FAIL;
    }
    for (int e = 0; e < s->n_engines; e++) {
      bench_memory_row *row = measure_memory(b, filter, m, s->engines[e]);
      if (row->state == BENCH_ROW_FAILED || row->state == BENCH_ROW_WRONG) failures++;
      if (!s->json) bench_text_memory_row(row, s);
    }
    convoy_filter_destroy(filter);
  }

  /* File to file for every CPU combination that ran correctly in memory, and
   * for the GPU engines (measured in memory in their own section below). */
  if (s->file && !s->json) bench_text_file_title(&b->files);
  for (int i = 0; s->file && i < s->n_taps; i++) {
    int64_t m = s->taps[i];
    bench_lowpass_taps(b->taps, m);
    if (bench_files_write_taps(&b->files, b->taps, m, err, sizeof err) != CONVOY_OK) {
      diag_error("bench: %s", err);
      return CLI_EXIT_FAIL;
    }
    for (int r = 0; r < b->n_mem; r++) {
      if (b->mem[r].taps != m || b->mem[r].state != BENCH_ROW_OK) continue;
      int before = b->n_file;
      measure_file(b, m, b->mem[r].engine);
      for (int f = before; f < b->n_file; f++) failures += b->file[f].state != BENCH_ROW_OK;
    }
    for (int g = 0; g < n_gpu; g++) {
      int before = b->n_file;
      measure_file(b, m, gpu[g]);
      for (int f = before; f < b->n_file; f++) failures += b->file[f].state != BENCH_ROW_OK;
    }
  }
  if (s->json)
    bench_json(&b->machine, s, b->mem, b->n_mem, b->file, b->n_file,
               b->files_ready ? &b->files : NULL);
  if (n_gpu > 0) failures += run_gpu(s, gpu, n_gpu);
  if (failures)
    diag_error("bench: %d measurement%s failed (see the report)", failures,
               failures == 1 ? "" : "s");
  return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int cmd_bench(int argc, char **argv) {
  if (bench_live_requested(argc, argv)) return bench_live_main(argc, argv);
  bench_state b;
  memset(&b, 0, sizeof b);
  int rc = parse_options(argc, argv, &b.s);
  if (rc < 0) return CLI_EXIT_OK; /* --help */
  if (rc) return rc;
  bench_machine_probe(&b.machine);
  rc = run_bench(&b);
  bench_state_free(&b);
  return rc;
}
