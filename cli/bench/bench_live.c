/* bench_live.c - `convoy bench --live`: options, the sweep and --find-max. */
#include "bench_live.h"

#include "argparse.h"
#include "bench_live_report.h"
#include "bench_util.h"
#include "commands.h"
#include "diag.h"
#include "engine_names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_RATE 48000
#define DEFAULT_BLOCKS 2000
#define DEFAULT_MAX_SECONDS 8.0
#define DEFAULT_FAST_SECONDS 10.0
#define FAST_MAX_SECONDS 600.0
#define DEFAULT_PRIORITY 70

static const char usage_text[] =
    "usage: convoy bench --live [options]\n"
    "\n"
    "Runs the real-time convolver (the engine of `convoy live`) with no audio\n"
    "device, at a simulated real-time pace: a timer thread releases one block per\n"
    "block period and the convolver (REALTIME mode) processes it. Every channel\n"
    "is routed to its own output through its own decaying-noise impulse response.\n"
    "For each engine, block size, IR length and channel count it prints the\n"
    "compute time of a block (p50, p99, p99.9, max) in microseconds and as a\n"
    "share of the block period, the real-time index (period / mean compute time),\n"
    "the CPU load of the whole process (100% = one core), and the blocks that\n"
    "were late, dropped or output as silence. A configuration clearly over real\n"
    "time is stopped early and marked OVER; larger channel counts of the same\n"
    "block and IR are then skipped. At the end: the largest channel count whose\n"
    "p99.9 stays under half the block period with no missed block.\n"
    "\n"
    "options:\n"
    "  --engine LIST      cpu, gpu or auto, comma separated (default: cpu, and gpu\n"
    "                     when a GPU is present)\n"
    "  --block LIST       frames per block (default 64,128,256)\n"
    "  --ir-seconds LIST  impulse response lengths in seconds (default 0.5,2,10)\n"
    "  --channels LIST    channel counts (default 2,8,32,64,256)\n"
    "  --rate R           sample rate in Hz (default 48000)\n"
    "  --seconds T        timed audio per configuration (default: 2000 blocks, at\n"
    "                     most 8 s; with --fast 10 s)\n"
    "  --find-max         also bisect the channel count for the largest meeting\n"
    "                     p99.9 < half the block period, per block and IR length\n"
    "  --fast             no pacing: OFFLINE mode, blocks back to back; cpu% is then\n"
    "                     CPU seconds per second of audio (to compare with other\n"
    "                     programs run on a fixed amount of audio)\n"
    "  --threads N        worker threads of the CPU engine (default: library's)\n"
    "  --max-partition N  largest partition in frames (default: cost model;\n"
    "                     the block size gives uniform partitions; GPU: the\n"
    "                     tail's, a power-of-two multiple of the block)\n"
    "  --priority P       SCHED_FIFO priority of the processing thread while\n"
    "                     paced, as audio threads have (default 70; 0: normal\n"
    "                     scheduling); where refused, rows are marked\n"
    "  --json             print one JSON document instead of the tables\n"
    "  -h, --help         this text\n"
    "\n"
    "examples:\n"
    "  convoy bench --live\n"
    "  convoy bench --live --engine gpu --block 64,128 --ir-seconds 2 --find-max\n"
    "  convoy bench --live --block 128 --ir-seconds 1 --channels 2 --fast --json\n";

enum {
  OPT_LIVE = 1,
  OPT_ENGINE,
  OPT_BLOCK,
  OPT_IR_SECONDS,
  OPT_CHANNELS,
  OPT_RATE,
  OPT_SECONDS,
  OPT_THREADS,
  OPT_MAX_PARTITION,
  OPT_PRIORITY,
  OPT_HELP
};

static const arg_option live_options[] = {
    {"live", 0, ARG_NONE, OPT_LIVE, ARG_STORE_NONE, 0, 0},
    {"engine", 0, ARG_REQUIRED, OPT_ENGINE, ARG_STORE_NONE, 0, 0},
    {"block", 0, ARG_REQUIRED, OPT_BLOCK, ARG_STORE_NONE, 0, 0},
    {"ir-seconds", 0, ARG_REQUIRED, OPT_IR_SECONDS, ARG_STORE_NONE, 0, 0},
    {"channels", 0, ARG_REQUIRED, OPT_CHANNELS, ARG_STORE_NONE, 0, 0},
    {"rate", 0, ARG_REQUIRED, OPT_RATE, ARG_STORE_NONE, 0, 0},
    {"seconds", 0, ARG_REQUIRED, OPT_SECONDS, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("find-max", 0, live_settings, find_max, 1),
    ARG_FLAG("fast", 0, live_settings, fast, 1),
    {"threads", 0, ARG_REQUIRED, OPT_THREADS, ARG_STORE_NONE, 0, 0},
    {"max-partition", 0, ARG_REQUIRED, OPT_MAX_PARTITION, ARG_STORE_NONE, 0, 0},
    {"priority", 0, ARG_REQUIRED, OPT_PRIORITY, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("json", 0, live_settings, json, 1),
    {"help", 'h', ARG_NONE, OPT_HELP, ARG_STORE_NONE, 0, 0},
    ARG_TABLE_END};

int bench_live_requested(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--live") == 0) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ options */

static int list_full(const arg_parser *p, int n) {
  if (n < LIVE_MAX_LIST) return 0;
  return diag_usage(p->cmd, "%s: at most %d values", p->current, LIVE_MAX_LIST);
}

static int engine_item(const arg_parser *p, const char *tok, void *ctx) {
  live_settings *s = ctx;
  convoy_engine e;
  if (convoy_engine_from_name(tok, &e) != CONVOY_OK) {
    char names[128];
    return diag_usage(p->cmd, "%s: unknown engine '%s' (expected %s)", p->current, tok,
                      engine_names(names, sizeof names, ENGINE_NAMES_CHOICES, " or ", -1));
  }
  e = convoy_family_choice(convoy_engine_family(e)); /* the convolver has one backend a family */
  for (int i = 0; i < s->n_engines; i++)
    if (s->engines[i] == e) return 0;
  s->engines[s->n_engines++] = e; /* at most the three families */
  return 0;
}

static int block_item(const arg_parser *p, const char *tok, void *ctx) {
  live_settings *s = ctx;
  int64_t v;
  if (list_full(p, s->n_blocks)) return CLI_EXIT_USAGE;
  if (arg_int64(p, tok, 1, CONVOY_RT_MAX_BLOCK, &v) != 0) return CLI_EXIT_USAGE;
  s->blocks[s->n_blocks++] = (int32_t)v;
  return 0;
}

static int ir_item(const arg_parser *p, const char *tok, void *ctx) {
  live_settings *s = ctx;
  double v;
  if (list_full(p, s->n_ir)) return CLI_EXIT_USAGE;
  if (arg_double(p, tok, &v) != 0) return CLI_EXIT_USAGE;
  if (!(v > 0 && v <= 600))
    return diag_usage(p->cmd, "%s: '%s' is not a length in seconds in (0, 600]", p->current, tok);
  s->ir_seconds[s->n_ir++] = v;
  return 0;
}

static int channels_item(const arg_parser *p, const char *tok, void *ctx) {
  live_settings *s = ctx;
  int64_t v;
  if (list_full(p, s->n_channels)) return CLI_EXIT_USAGE;
  if (arg_int64(p, tok, 1, CONVOY_RT_MAX_CHANNELS, &v) != 0) return CLI_EXIT_USAGE;
  /* Kept ascending: a count over real time lets the larger ones be skipped. */
  int i = s->n_channels;
  while (i > 0 && s->channels[i - 1] > v) {
    s->channels[i] = s->channels[i - 1];
    i--;
  }
  if (i > 0 && s->channels[i - 1] == v) {
    memmove(&s->channels[i], &s->channels[i + 1], sizeof(int32_t) * (size_t)(s->n_channels - i));
    return 0;
  }
  s->channels[i] = (int32_t)v;
  s->n_channels++;
  return 0;
}

static void set_defaults(live_settings *s) {
  if (s->n_engines == 0) {
    for (int32_t i = 0; i < convoy_engine_count(); i++) {
      convoy_engine e = convoy_engine_at(i);
      if (!convoy_engine_is_exact(e) && convoy_engine_family(e) != CONVOY_FAMILY_ANY &&
          convoy_engine_available(e))
        s->engines[s->n_engines++] = e;
    }
  }
  if (s->n_blocks == 0) {
    static const int32_t b[] = {64, 128, 256};
    memcpy(s->blocks, b, sizeof b);
    s->n_blocks = 3;
  }
  if (s->n_ir == 0) {
    static const double t[] = {0.5, 2, 10};
    memcpy(s->ir_seconds, t, sizeof t);
    s->n_ir = 3;
  }
  if (s->n_channels == 0) {
    static const int32_t c[] = {2, 8, 32, 64, 256};
    memcpy(s->channels, c, sizeof c);
    s->n_channels = 5;
  }
  if (s->fast) {
    if (s->seconds == 0) s->seconds = DEFAULT_FAST_SECONDS;
    s->max_seconds = FAST_MAX_SECONDS;
  } else {
    s->target_blocks = s->seconds > 0 ? 0 : DEFAULT_BLOCKS;
    s->max_seconds = s->seconds > 0 ? s->seconds : DEFAULT_MAX_SECONDS;
  }
}

/* The options the table does not store (see arg_parse). */
static int handle_option(arg_parser *p, int id, const char *v, void *target) {
  live_settings *s = target;
  int rc = 0;
  int64_t n;
  switch (id) {
  case ARG_POSITIONAL:
    return diag_usage(p->cmd, "unexpected argument '%s'", v);
  case OPT_HELP:
    fputs(usage_text, stdout);
    return -1;
  case OPT_LIVE:
    break;
  case OPT_ENGINE:
    s->n_engines = 0;
    rc = arg_list(p, v, engine_item, s);
    break;
  case OPT_BLOCK:
    s->n_blocks = 0;
    rc = arg_list(p, v, block_item, s);
    break;
  case OPT_IR_SECONDS:
    s->n_ir = 0;
    rc = arg_list(p, v, ir_item, s);
    break;
  case OPT_CHANNELS:
    s->n_channels = 0;
    rc = arg_list(p, v, channels_item, s);
    break;
  case OPT_RATE:
    rc = arg_int64(p, v, 1000, 1536000, &n) ? CLI_EXIT_USAGE : 0;
    s->rate = (int32_t)n;
    break;
  case OPT_SECONDS:
    rc = arg_double(p, v, &s->seconds) ? CLI_EXIT_USAGE : 0;
    if (rc == 0 && !(s->seconds > 0 && s->seconds <= 3600))
      rc = diag_usage(p->cmd, "%s: '%s' is not a number of seconds in (0, 3600]", p->current, v);
    break;
  case OPT_THREADS:
    rc = arg_int64(p, v, 1, 4096, &n) ? CLI_EXIT_USAGE : 0;
    s->threads = (int32_t)n;
    break;
  case OPT_MAX_PARTITION:
    rc = arg_int64(p, v, 1, (int64_t)1 << 24, &n) ? CLI_EXIT_USAGE : 0;
    s->max_partition = (int32_t)n;
    break;
  case OPT_PRIORITY:
    rc = arg_int64(p, v, 0, 98, &n) ? CLI_EXIT_USAGE : 0;
    s->priority = (int)n;
    break;
  }
  return rc;
}

static int parse_options(int argc, char **argv, live_settings *s) {
  memset(s, 0, sizeof *s);
  s->rate = DEFAULT_RATE;
  s->priority = DEFAULT_PRIORITY;
  arg_parser p;
  arg_init(&p, argc, argv, live_options);
  int rc = arg_parse(&p, s, handle_option, NULL);
  if (rc) return rc;
  if (s->fast && s->find_max)
    return diag_usage(p.cmd, "--find-max needs the real-time pace: drop --fast");
  set_defaults(s);
  return 0;
}

/* ------------------------------------------------------------------ runs */

typedef struct live_bench {
  live_settings s;
  bench_machine machine;
  live_row *rows;
  int n_rows, cap_rows;
  live_max *max;
  int n_max;
  int failures;
} live_bench;

static live_row *add_row(live_bench *b) {
  if (b->n_rows == b->cap_rows) {
    int cap = b->cap_rows ? 2 * b->cap_rows : 64;
    live_row *r = realloc(b->rows, sizeof *r * (size_t)cap);
    if (!r) return NULL;
    b->rows = r;
    b->cap_rows = cap;
  }
  live_row *row = &b->rows[b->n_rows++];
  memset(row, 0, sizeof *row);
  return row;
}

/* Measures one configuration into a new row and prints it; NULL when the
 * row cannot be stored. */
static const live_row *run_one(live_bench *b, convoy_engine e, int32_t block, double ir_s,
                               int32_t channels, int probe, int skip) {
  const live_settings *s = &b->s;
  live_row *row = add_row(b);
  if (!row) return NULL;
  row->engine = e;
  row->block = block;
  row->ir_seconds = ir_s;
  row->channels = channels;
  row->probe = probe;
  row->want_fifo = !s->fast && s->priority > 0;
  if (skip) {
    row->r.state = LIVE_SKIPPED;
  } else if (!convoy_engine_available(e)) {
    row->r.state = LIVE_UNAVAILABLE;
    snprintf(row->r.message, sizeof row->r.message, "engine %s is not available here",
             convoy_engine_name(e));
  } else {
    live_config c = {0};
    c.engine = e;
    c.block = block;
    c.channels = channels;
    c.ir_frames = (int64_t)llround(ir_s * s->rate);
    if (c.ir_frames < 1) c.ir_frames = 1;
    c.rate = s->rate;
    c.fast = s->fast;
    c.threads = s->threads;
    c.max_partition = s->max_partition;
    c.max_seconds = s->max_seconds;
    c.priority = s->priority;
    double audio = s->seconds > 0 ? s->seconds : 0;
    c.blocks = audio > 0 ? (int64_t)ceil(audio * s->rate / block) : s->target_blocks;
    if (c.blocks < 1) c.blocks = 1;
    live_measure(&c, &row->r);
    if (row->r.state == LIVE_FAILED || row->r.state == LIVE_WRONG) b->failures++;
  }
  if (!s->json) live_text_row(row);
  return row;
}

static int stops_larger(const live_result *r) {
  return r->state == LIVE_OVER || r->state == LIVE_NO_MEMORY || r->state == LIVE_SKIPPED;
}

/* The swept channel counts of one engine, block and IR; fills *mx from them.
 * Once a count is over real time or out of memory, larger ones are skipped. */
static int sweep(live_bench *b, convoy_engine e, int32_t block, double ir_s, live_max *mx) {
  int skip = 0;
  mx->channels = 0;
  for (int i = 0; i < b->s.n_channels; i++) {
    const live_row *row = run_one(b, e, block, ir_s, b->s.channels[i], 0, skip);
    if (!row) return -1;
    if (live_meets_half_period(&row->r)) mx->channels = b->s.channels[i];
    skip = skip || stops_larger(&row->r);
  }
  mx->capped = mx->channels > 0 && mx->channels == b->s.channels[b->s.n_channels - 1];
  return 0;
}

/* Smallest swept count above lo that was over real time or out of memory
 * (a failure no rerun changes), 0 if none. */
static int32_t swept_over(const live_bench *b, convoy_engine e, int32_t block, double ir_s,
                          int32_t lo) {
  int32_t hi = 0;
  for (int i = 0; i < b->n_rows; i++) {
    const live_row *r = &b->rows[i];
    if (r->engine != e || r->block != block || r->ir_seconds != ir_s || r->channels <= lo) continue;
    if ((r->r.state == LIVE_OVER || r->r.state == LIVE_NO_MEMORY) && (hi == 0 || r->channels < hi))
      hi = r->channels;
  }
  return hi;
}

/* State of the swept (not probed) row of a count; LIVE_SKIPPED if none. */
static live_state swept_state(const live_bench *b, convoy_engine e, int32_t block, double ir_s,
                              int32_t channels) {
  for (int i = 0; i < b->n_rows; i++) {
    const live_row *r = &b->rows[i];
    if (r->engine == e && r->block == block && r->ir_seconds == ir_s && r->channels == channels &&
        !r->probe)
      return r->r.state;
  }
  return LIVE_SKIPPED;
}

/* One --find-max probe: 1 when the count meets the criterion, 0 when not,
 * -1 when a row cannot be stored, -2 when the engine failed or is missing.
 * A miss short of over real time is run once more: one wake-up delayed by
 * other load on the machine is enough to fail a run. */
static int probe(live_bench *b, convoy_engine e, int32_t block, double ir_s, int32_t channels) {
  for (int attempt = 0; attempt < 2; attempt++) {
    const live_row *row = run_one(b, e, block, ir_s, channels, 1, 0);
    if (!row) return -1;
    if (live_meets_half_period(&row->r)) return 1;
    if (row->r.state == LIVE_OVER || row->r.state == LIVE_NO_MEMORY) return 0;
    if (row->r.state != LIVE_OK) return -2;
  }
  return 0;
}

/* Doubles, then bisects the channel count between the largest passing and
 * the smallest failing count, to within 1/32 of it. */
static int find_max(live_bench *b, convoy_engine e, int32_t block, double ir_s, live_max *mx) {
  int32_t lo = mx->channels, hi = swept_over(b, e, block, ir_s, lo);
  int p;
  /* Swept counts above lo that missed short of over real time: again. */
  for (int i = 0; i < b->s.n_channels && hi == 0; i++) {
    int32_t c = b->s.channels[i];
    if (c <= lo || swept_state(b, e, block, ir_s, c) != LIVE_OK) continue;
    if ((p = probe(b, e, block, ir_s, c)) < 0) return p == -1 ? -1 : 0;
    if (p)
      lo = c;
    else
      hi = c;
  }
  while (hi == 0) {
    int32_t next = lo == 0 ? 1 : 2 * lo;
    if (next > CONVOY_RT_MAX_CHANNELS) break;
    if ((p = probe(b, e, block, ir_s, next)) < 0) return p == -1 ? -1 : 0;
    if (p)
      lo = next;
    else
      hi = next;
  }
  mx->capped = hi == 0;
  while (hi != 0 && hi - lo > (lo / 32 > 1 ? lo / 32 : 1)) {
    int32_t mid = lo + (hi - lo) / 2;
    if ((p = probe(b, e, block, ir_s, mid)) < 0) return p == -1 ? -1 : 0;
    if (p)
      lo = mid;
    else
      hi = mid;
  }
  mx->channels = lo;
  mx->bisected = 1;
  return 0;
}

static int run_all(live_bench *b) {
  const live_settings *s = &b->s;
  b->max = calloc((size_t)(s->n_engines * s->n_blocks * s->n_ir), sizeof *b->max);
  if (!b->max) return -1;
  if (!s->json) {
    live_text_header(&b->machine, s);
    live_text_title(s);
  }
  for (int e = 0; e < s->n_engines; e++)
    for (int i = 0; i < s->n_blocks; i++)
      for (int j = 0; j < s->n_ir; j++) {
        live_max *mx = &b->max[b->n_max++];
        mx->engine = s->engines[e];
        mx->block = s->blocks[i];
        mx->ir_seconds = s->ir_seconds[j];
        if (sweep(b, mx->engine, mx->block, mx->ir_seconds, mx) != 0) return -1;
        if (s->find_max && convoy_engine_available(mx->engine) &&
            find_max(b, mx->engine, mx->block, mx->ir_seconds, mx) != 0)
          return -1;
      }
  if (s->json)
    live_json(&b->machine, s, b->rows, b->n_rows, b->max, b->n_max);
  else
    live_text_max(b->max, b->n_max, s);
  return 0;
}

int bench_live_main(int argc, char **argv) {
  live_bench b;
  memset(&b, 0, sizeof b);
  /* Usage errors name "bench --live", whose --help describes these options. */
  char *saved = argv[0];
  argv[0] = "bench --live";
  int rc = parse_options(argc, argv, &b.s);
  argv[0] = saved;
  if (rc < 0) return CLI_EXIT_OK; /* --help */
  if (rc) return rc;
  bench_machine_probe(&b.machine);
  if (run_all(&b) != 0) {
    diag_error("bench --live: out of memory for the results");
    rc = CLI_EXIT_FAIL;
  } else if (b.failures) {
    diag_error("bench --live: %d configuration%s failed (see the report)", b.failures,
               b.failures == 1 ? "" : "s");
    rc = CLI_EXIT_FAIL;
  }
  free(b.rows);
  free(b.max);
  return rc;
}
