/* bench_live_report.c - prints `convoy bench --live` results as text or JSON. */
#include "bench_live_report.h"

#include "bench_report.h"

#include <stdio.h>

const char *live_state_name(live_state st) {
  switch (st) {
  case LIVE_OK:
    return "ok";
  case LIVE_OVER:
    return "over";
  case LIVE_NO_MEMORY:
    return "no-memory";
  case LIVE_UNAVAILABLE:
    return "unavailable";
  case LIVE_SKIPPED:
    return "skipped";
  case LIVE_FAILED:
    return "failed";
  case LIVE_WRONG:
    return "wrong";
  }
  return "?";
}

static double pct(double us, double period_us) {
  return period_us > 0 ? 100.0 * us / period_us : 0;
}

/* ------------------------------------------------------------------ text */

void live_text_header(const bench_machine *m, const live_settings *s) {
  printf("convoy bench --live\n");
  bench_text_machine(m);
  printf("routes   one per channel (input c -> output c), each its own decaying-noise IR "
         "(-60 dB at its end), %d Hz\n",
         (int)s->rate);
  if (s->fast)
    printf("pace     none: OFFLINE mode, blocks back to back, %.1f s of audio per configuration; "
           "cpu%% = CPU seconds of the process / audio seconds\n",
           s->seconds);
  else if (s->target_blocks > 0)
    printf("pace     real time: REALTIME mode, a timer thread releases one block per period; "
           "%lld blocks per configuration (at most %.1f s), after %d untimed\n",
           (long long)s->target_blocks, s->max_seconds, LIVE_WARMUP_BLOCKS);
  else
    printf("pace     real time: REALTIME mode, a timer thread releases one block per period; "
           "%.1f s per configuration, after %d untimed blocks\n",
           s->max_seconds, LIVE_WARMUP_BLOCKS);
  if (!s->fast && s->priority > 0)
    printf("sched    processing thread SCHED_FIFO %d, timer thread %d (rows marked [no fifo] "
           "where refused)\n",
           s->priority, s->priority + 1);
  else if (!s->fast)
    printf("sched    normal scheduling (--priority 0)\n");
  printf("columns  compute time of convoy_rt_process() per block in us and in %% of the block "
         "period; rt_index = period / mean compute;\n         cpu%% = CPU time of all threads / "
         "wall time (100 = one core); late = process() ended after the block was due,\n"
         "         dropped = blocks skipped meanwhile, silent = blocks the convolver output as "
         "silence (a worker late)\n");
  fflush(stdout);
}

void live_text_title(const live_settings *s) {
  (void)s;
  printf("\n%-6s %5s %5s %4s %9s %9s %9s %9s %6s %6s %7s %6s %8s %6s %5s %5s %5s %6s  %s\n",
         "engine", "block", "ir_s", "ch", "p50_us", "p99_us", "p99.9_us", "max_us", "p50%", "p99%",
         "p99.9%", "max%", "rt_index", "cpu%", "late", "drop", "silnt", "blocks", "plan");
  fflush(stdout);
}

static const char *fifo_mark(const live_row *row) {
  return row->want_fifo && !row->r.fifo ? "[no fifo] " : "";
}

void live_text_row(const live_row *row) {
  const live_result *r = &row->r;
  printf("%-6s %5d %5.3g %4d ", convoy_engine_name(row->engine), (int)row->block, row->ir_seconds,
         (int)row->channels);
  if ((r->state == LIVE_OK || r->state == LIVE_OVER) && r->blocks > 0) {
    printf("%9.1f %9.1f %9.1f %9.1f %6.1f %6.1f %7.1f %6.1f %8.2f %6.1f %5lld %5lld %5lld %6lld  ",
           r->p50_us, r->p99_us, r->p999_us, r->max_us, pct(r->p50_us, r->period_us),
           pct(r->p99_us, r->period_us), pct(r->p999_us, r->period_us),
           pct(r->max_us, r->period_us), r->rt_index, 100.0 * r->cpu_load, (long long)r->late,
           (long long)r->dropped, (long long)r->silent, (long long)r->blocks);
    printf("%s%s%s%s\n", r->state == LIVE_OVER ? "OVER real time; " : "",
           row->probe ? "(probe) " : "", fifo_mark(row), r->plan);
  } else if (r->state == LIVE_SKIPPED) {
    printf("skipped: a smaller channel count was over real time or out of memory\n");
  } else {
    printf("%s: %s\n", live_state_name(r->state), r->message);
  }
  fflush(stdout);
}

void live_text_max(const live_max *mx, int n, const live_settings *s) {
  if (n == 0) return;
  printf("\nlargest channel count with p99.9 < half the block period, late, dropped and silent "
         "blocks counted as over it%s\n",
         s->find_max ? " (bisected)" : " (among the counts run)");
  printf("%-6s %5s %5s %8s\n", "engine", "block", "ir_s", "channels");
  for (int i = 0; i < n; i++)
    printf("%-6s %5d %5.3g %8d%s\n", convoy_engine_name(mx[i].engine), (int)mx[i].block,
           mx[i].ir_seconds, (int)mx[i].channels,
           mx[i].capped ? "  (the largest tried: the limit may be higher)" : "");
  fflush(stdout);
}

/* ------------------------------------------------------------------ JSON */

static void json_row(const live_row *row) {
  const live_result *r = &row->r;
  printf("    {\"engine\": \"%s\", \"block\": %d, \"ir_seconds\": %.6g, \"channels\": %d, "
         "\"probe\": %s, \"state\": \"%s\"",
         convoy_engine_name(row->engine), (int)row->block, row->ir_seconds, (int)row->channels,
         row->probe ? "true" : "false", live_state_name(r->state));
  if (r->state == LIVE_FAILED || r->state == LIVE_NO_MEMORY || r->state == LIVE_UNAVAILABLE ||
      r->state == LIVE_WRONG) {
    printf(", \"message\": ");
    bench_json_string(r->message);
  }
  if ((r->state == LIVE_OK || r->state == LIVE_OVER) && r->blocks > 0) {
    printf(", \"engine_run\": \"%s\", \"plan\": ", convoy_engine_name(r->engine_run));
    bench_json_string(r->plan);
    printf(", \"create_ms\": %.3f, \"period_us\": %.3f, \"blocks\": %lld, \"late\": %lld, "
           "\"dropped\": %lld, \"silent\": %lld",
           r->create_ms, r->period_us, (long long)r->blocks, (long long)r->late,
           (long long)r->dropped, (long long)r->silent);
    printf(", \"compute_us\": {\"mean\": %.3f, \"p50\": %.3f, \"p99\": %.3f, \"p99_9\": %.3f, "
           "\"max\": %.3f}",
           r->mean_us, r->p50_us, r->p99_us, r->p999_us, r->max_us);
    printf(", \"fraction_of_period\": {\"p50\": %.5f, \"p99\": %.5f, \"p99_9\": %.5f, "
           "\"max\": %.5f}",
           r->p50_us / r->period_us, r->p99_us / r->period_us, r->p999_us / r->period_us,
           r->max_us / r->period_us);
    printf(", \"rt_index\": %.4f, \"cpu_load\": %.5f, \"meets_half_period\": %s, "
           "\"sched_fifo\": %s, \"check_rel_err\": %.3e",
           r->rt_index, r->cpu_load, live_meets_half_period(r) ? "true" : "false",
           r->fifo ? "true" : "false", r->check_rel_err);
  }
  printf("}");
}

void live_json(const bench_machine *m, const live_settings *s, const live_row *rows, int n_rows,
               const live_max *mx, int n_max) {
  printf("{\n");
  bench_json_machine(m);
  printf("  \"settings\": {\"rate\": %d, \"pace\": \"%s\", \"blocks_per_config\": %lld, "
         "\"max_seconds\": %.3f, \"audio_seconds\": %.3f, \"warmup_blocks\": %d, "
         "\"threads\": %d, \"max_partition\": %d, \"priority\": %d, \"find_max\": %s},\n",
         (int)s->rate, s->fast ? "fast" : "realtime", (long long)s->target_blocks, s->max_seconds,
         s->fast ? s->seconds : 0.0, LIVE_WARMUP_BLOCKS, (int)s->threads, (int)s->max_partition,
         s->priority, s->find_max ? "true" : "false");
  printf("  \"rows\": [\n");
  for (int i = 0; i < n_rows; i++) {
    json_row(&rows[i]);
    printf(i + 1 < n_rows ? ",\n" : "\n");
  }
  printf("  ],\n  \"max_channels\": [\n");
  for (int i = 0; i < n_max; i++) {
    printf("    {\"engine\": \"%s\", \"block\": %d, \"ir_seconds\": %.6g, \"channels\": %d, "
           "\"method\": \"%s\", \"capped\": %s}%s\n",
           convoy_engine_name(mx[i].engine), (int)mx[i].block, mx[i].ir_seconds,
           (int)mx[i].channels, mx[i].bisected ? "bisect" : "sweep",
           mx[i].capped ? "true" : "false", i + 1 < n_max ? "," : "");
  }
  printf("  ]\n}\n");
  fflush(stdout);
}
