/* bench_report.c - prints `convoy bench` results as text or JSON. */
#include "bench_report.h"

#include <stdio.h>

static const char *subtype_name(const bench_files *files, bench_file_subtype t) {
  if (t == BENCH_FILE_RAW) return files->channels == 1 ? "raw f32" : "raw cf32";
  if (t == BENCH_FILE_RAW16) return files->channels == 1 ? "raw s16" : "raw cs16";
  return t == BENCH_FILE_PCM16 ? "pcm16" : "float";
}

static const char *state_name(bench_row_state st) {
  switch (st) {
  case BENCH_ROW_OK:
    return "ok";
  case BENCH_ROW_SKIPPED:
    return "skipped";
  case BENCH_ROW_UNAVAILABLE:
    return "unavailable";
  case BENCH_ROW_FAILED:
    return "failed";
  case BENCH_ROW_WRONG:
    return "wrong";
  }
  return "?";
}

/* ------------------------------------------------------------------ text */

void bench_text_machine(const bench_machine *m) {
  printf("machine  %s, %d CPU threads (%s), %.1f GiB memory\n", m->cpu_model, m->cpu_threads,
         m->simd, (double)m->memory_bytes / (1024.0 * 1024.0 * 1024.0));
  if (m->gpu_count > 0) printf("gpu      %s (%d devices)\n", m->gpu_name, m->gpu_count);
  printf("build    convoy %s, %s, %s, %s%s, CUDA engines %s\n", m->convoy_version, m->fftw_version,
         m->compiler, m->optimised ? "optimised" : "NOT optimised",
         m->sanitised ? ", sanitizers ON (timings meaningless)" : "",
         m->cuda_built ? "built" : "not built");
}

void bench_text_header(const bench_machine *m, const bench_settings *s) {
  printf("convoy bench\n");
  bench_text_machine(m);
  printf("signal   %lld frames x %d channel%s float32 (%lld samples), process() calls of %lld "
         "frames, %d threads%s\n",
         (long long)s->frames, (int)s->channels, s->channels == 1 ? "" : "s",
         (long long)(s->frames * s->channels), (long long)s->chunk,
         s->threads ? (int)s->threads : m->cpu_threads, s->threads ? "" : " (default)");
  if (s->fft_size > 0) printf("fft size %lld (--fft-size)\n", (long long)s->fft_size);
  printf("timing   median of %d runs (min .. max); MS/s = frames x channels / seconds / 1e6\n",
         s->runs);
  fflush(stdout);
}

void bench_text_memory_title(void) {
  printf("\nin memory (process() calls + flush, buffers allocated and touched beforehand)\n");
  printf("%7s  %-10s  %-10s  %9s  %9s  %9s  %9s  %8s  %s\n", "taps", "engine", "ran", "create_ms",
         "MS/s", "min", "max", "check", "plan");
  fflush(stdout);
}

void bench_text_memory_row(const bench_memory_row *row, const bench_settings *s) {
  const bench_memory_result *r = &row->r;
  printf("%7lld  %-10s  ", (long long)row->taps, convoy_engine_name(row->engine));
  switch (row->state) {
  case BENCH_ROW_OK:
  case BENCH_ROW_WRONG:
    printf("%-10s  %9.2f  %9.1f  %9.1f  %9.1f  %8.1e  %s%s\n", convoy_engine_name(r->engine_run),
           r->create_ms, bench_msps(s->frames, s->channels, r->median_s),
           bench_msps(s->frames, s->channels, r->max_s),
           bench_msps(s->frames, s->channels, r->min_s), r->check_rel_err,
           row->state == BENCH_ROW_WRONG ? "WRONG OUTPUT " : "", r->plan);
    break;
  case BENCH_ROW_SKIPPED:
    printf("%-10s  %9.2f  skipped (estimated %.1f s per run)  %s\n",
           convoy_engine_name(r->engine_run), r->create_ms, r->estimate_s, r->plan);
    break;
  case BENCH_ROW_UNAVAILABLE:
    printf("not available here\n");
    break;
  case BENCH_ROW_FAILED:
    printf("FAILED: %s\n", row->message);
    break;
  }
  fflush(stdout);
}

void bench_text_file_title(const bench_files *files) {
  printf("\nfile to file (`convoy filter IN OUT --taps FILE --engine E -q -y`, wall clock from "
         "spawn to exit;\n%d Hz WAVs and raw captures in %s; cp = the share of `cp IN OUT`'s "
         "speed on the same file)\n",
         BENCH_FILE_RATE, files->dir);
  for (int t = 0; t < BENCH_FILE_SUBTYPES; t++)
    if (bench_files_have(files, (bench_file_subtype)t))
      printf("  cp %-9s %.3f s (min %.3f, max %.3f)\n", subtype_name(files, (bench_file_subtype)t),
             files->cp[t].median_s, files->cp[t].min_s, files->cp[t].max_s);
  printf("%7s  %-10s  %-8s  %9s  %9s  %9s  %9s  %10s  %6s\n", "taps", "engine", "input", "seconds",
         "MS/s", "min", "max", "x realtime", "cp");
  fflush(stdout);
}

void bench_text_file_row(const bench_file_row *row, const bench_files *files,
                         const bench_settings *s) {
  const bench_file_result *r = &row->r;
  printf("%7lld  %-10s  %-8s  ", (long long)row->taps, convoy_engine_name(row->engine),
         subtype_name(files, row->subtype));
  if (row->state == BENCH_ROW_OK) {
    double seconds_of_audio = (double)s->frames / BENCH_FILE_RATE;
    printf("%9.3f  %9.1f  %9.1f  %9.1f  %10.0f  %5.0f%%\n", r->median_s,
           bench_msps(s->frames, s->channels, r->median_s),
           bench_msps(s->frames, s->channels, r->max_s),
           bench_msps(s->frames, s->channels, r->min_s),
           r->median_s > 0 ? seconds_of_audio / r->median_s : 0.0,
           r->median_s > 0 ? 100.0 * files->cp[row->subtype].median_s / r->median_s : 0.0);
  } else {
    printf("FAILED: %s\n", row->message);
  }
  fflush(stdout);
}

/* ------------------------------------------------------------------ JSON */

void bench_json_string(const char *text) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

void bench_json_machine(const bench_machine *m) {
  printf("  \"machine\": {\"cpu_model\": ");
  bench_json_string(m->cpu_model);
  printf(", \"cpu_threads\": %d, \"cpu_simd\": ", m->cpu_threads);
  bench_json_string(m->simd);
  printf(", \"memory_bytes\": %lld, \"gpu_count\": %d, \"gpu_name\": ", (long long)m->memory_bytes,
         m->gpu_count);
  bench_json_string(m->gpu_name);
  printf("},\n  \"build\": {\"convoy\": ");
  bench_json_string(m->convoy_version);
  printf(", \"fftw\": ");
  bench_json_string(m->fftw_version);
  printf(", \"compiler\": ");
  bench_json_string(m->compiler);
  printf(", \"optimised\": %s, \"sanitised\": %s, \"cuda\": %s},\n",
         m->optimised ? "true" : "false", m->sanitised ? "true" : "false",
         m->cuda_built ? "true" : "false");
}

static void json_memory_row(const bench_memory_row *row, const bench_settings *s) {
  const bench_memory_result *r = &row->r;
  printf("    {\"taps\": %lld, \"engine\": \"%s\", \"state\": \"%s\"", (long long)row->taps,
         convoy_engine_name(row->engine), state_name(row->state));
  if (row->state == BENCH_ROW_FAILED) {
    printf(", \"message\": ");
    bench_json_string(row->message);
  }
  if (row->state == BENCH_ROW_OK || row->state == BENCH_ROW_WRONG ||
      row->state == BENCH_ROW_SKIPPED) {
    printf(", \"engine_run\": \"%s\", \"plan\": ", convoy_engine_name(r->engine_run));
    bench_json_string(r->plan);
    printf(", \"create_ms\": %.4f, \"estimate_s\": %.4f", r->create_ms, r->estimate_s);
  }
  if (row->state == BENCH_ROW_OK || row->state == BENCH_ROW_WRONG)
    printf(", \"seconds\": {\"median\": %.6f, \"min\": %.6f, \"max\": %.6f}"
           ", \"msps\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}"
           ", \"check_rel_err\": %.3e",
           r->median_s, r->min_s, r->max_s, bench_msps(s->frames, s->channels, r->median_s),
           bench_msps(s->frames, s->channels, r->max_s),
           bench_msps(s->frames, s->channels, r->min_s), r->check_rel_err);
  printf("}");
}

static void json_file_row(const bench_file_row *row, const bench_files *files,
                          const bench_settings *s) {
  const bench_file_result *r = &row->r;
  printf("    {\"taps\": %lld, \"engine\": \"%s\", \"subtype\": \"%s\", \"state\": \"%s\"",
         (long long)row->taps, convoy_engine_name(row->engine), subtype_name(files, row->subtype),
         state_name(row->state));
  if (row->state == BENCH_ROW_OK) {
    double audio_s = (double)s->frames / BENCH_FILE_RATE;
    const double cp_s = files->cp[row->subtype].median_s;
    printf(", \"seconds\": {\"median\": %.6f, \"min\": %.6f, \"max\": %.6f}"
           ", \"msps\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}, \"x_realtime\": %.1f"
           ", \"cp_seconds\": %.6f, \"share_of_cp\": %.4f",
           r->median_s, r->min_s, r->max_s, bench_msps(s->frames, s->channels, r->median_s),
           bench_msps(s->frames, s->channels, r->max_s),
           bench_msps(s->frames, s->channels, r->min_s),
           r->median_s > 0 ? audio_s / r->median_s : 0.0, cp_s,
           r->median_s > 0 ? cp_s / r->median_s : 0.0);
  } else {
    printf(", \"message\": ");
    bench_json_string(row->message);
  }
  printf("}");
}

void bench_json(const bench_machine *m, const bench_settings *s, const bench_memory_row *mem,
                int n_mem, const bench_file_row *file, int n_file, const bench_files *files) {
  printf("{\n");
  bench_json_machine(m);
  printf("  \"settings\": {\"frames\": %lld, \"channels\": %d, \"chunk_frames\": %lld, "
         "\"threads\": %d, \"fft_size\": %lld, \"runs\": %d, \"limit_s\": %.1f, "
         "\"file_rate\": %d},\n",
         (long long)s->frames, (int)s->channels, (long long)s->chunk, (int)s->threads,
         (long long)s->fft_size, s->runs, s->limit_s, BENCH_FILE_RATE);
  printf("  \"memory\": [\n");
  for (int i = 0; i < n_mem; i++) {
    json_memory_row(&mem[i], s);
    printf(i + 1 < n_mem ? ",\n" : "\n");
  }
  printf("  ],\n  \"file\": [\n");
  for (int i = 0; i < n_file; i++) {
    json_file_row(&file[i], files, s);
    printf(i + 1 < n_file ? ",\n" : "\n");
  }
  printf("  ]\n}\n");
  fflush(stdout);
}
