/*
 * bench_live_report.h - what `convoy bench --live` was asked to run and how
 * it prints what it measured: a text table as rows finish, or one JSON
 * document at the end (--json). Output goes to stdout.
 */
#ifndef CONVOY_BENCH_LIVE_REPORT_H
#define CONVOY_BENCH_LIVE_REPORT_H

#include "bench_live_pace.h"
#include "bench_machine.h"

#define LIVE_MAX_LIST 16

typedef struct live_settings {
  convoy_engine engines[4]; /* families: CPU, GPU or AUTO */
  int n_engines;
  int32_t blocks[LIVE_MAX_LIST];
  int n_blocks;
  double ir_seconds[LIVE_MAX_LIST];
  int n_ir;
  int32_t channels[LIVE_MAX_LIST]; /* ascending */
  int n_channels;
  int32_t rate;          /* Hz */
  double seconds;        /* --seconds; 0 = default */
  int64_t target_blocks; /* timed blocks per configuration when --seconds is not given */
  double max_seconds;    /* cap of one configuration's timed part */
  int32_t threads;       /* convoy_rt_config.threads */
  int32_t max_partition; /* convoy_rt_config.max_partition */
  int priority;          /* live_config.priority */
  int fast, find_max, json;
} live_settings;

typedef struct live_row {
  convoy_engine engine; /* asked for */
  int32_t block;
  double ir_seconds;
  int32_t channels;
  int probe;     /* 1: a --find-max probe */
  int want_fifo; /* paced with a --priority: r.fifo says whether it was granted */
  live_result r;
} live_row;

/* The largest channel count meeting live_meets_half_period at one block
 * size and IR length: among the counts swept, or bisected (--find-max). */
typedef struct live_max {
  convoy_engine engine;
  int32_t block;
  double ir_seconds;
  int32_t channels; /* 0: none met it */
  int bisected;     /* 1: --find-max; 0: the largest of the swept counts */
  int capped;       /* 1: the upper end of the search still met it */
} live_max;

const char *live_state_name(live_state st);

void live_text_header(const bench_machine *m, const live_settings *s);
void live_text_title(const live_settings *s);
void live_text_row(const live_row *row);
void live_text_max(const live_max *mx, int n, const live_settings *s);

void live_json(const bench_machine *m, const live_settings *s, const live_row *rows, int n_rows,
               const live_max *mx, int n_max);

#endif /* CONVOY_BENCH_LIVE_REPORT_H */
