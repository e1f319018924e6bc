/*
 * bench_report.h - what `convoy bench` measured and how it prints it: a
 * text table as rows finish, or one JSON document at the end (--json).
 * Output goes to stdout.
 */
#ifndef CONVOY_BENCH_REPORT_H
#define CONVOY_BENCH_REPORT_H

#include "bench_file.h"
#include "bench_machine.h"
#include "bench_memory.h"

#include <stdint.h>

#define BENCH_MAX_TAP_COUNTS 16
#define BENCH_MAX_ENGINES 8
#define BENCH_MESSAGE 320

/* Outputs whose sampled relative error exceeds this are marked WRONG: a
 * loose sanity bound (the test suite checks accuracy closely), so that a
 * fast but broken engine is never reported as a result. */
#define BENCH_CHECK_LIMIT 1e-4

typedef struct bench_settings {
  int64_t frames;
  int32_t channels;
  int64_t chunk;    /* frames per process() call */
  int32_t threads;  /* 0 = library default */
  int64_t fft_size; /* FFT engines' size; 0 = their cost model (or timing) */
  int runs;
  double limit_s;
  int file; /* also measure file to file */
  int json;
  int frames_set, chunk_set;   /* --frames / --chunk given */
  convoy_sample_format format; /* GPU section's input (--format); F32 or S16 */
  int64_t taps[BENCH_MAX_TAP_COUNTS];
  int n_taps;
  convoy_engine engines[BENCH_MAX_ENGINES];
  int n_engines;
} bench_settings;

typedef enum bench_row_state {
  BENCH_ROW_OK = 0,
  BENCH_ROW_SKIPPED,     /* estimated too long */
  BENCH_ROW_UNAVAILABLE, /* engine not available here */
  BENCH_ROW_FAILED,      /* error; message holds it */
  BENCH_ROW_WRONG        /* ran, but the output check failed */
} bench_row_state;

typedef struct bench_memory_row {
  int64_t taps;
  convoy_engine engine;
  bench_row_state state;
  char message[BENCH_MESSAGE];
  bench_memory_result r;
} bench_memory_row;

typedef struct bench_file_row {
  int64_t taps;
  convoy_engine engine;
  bench_file_subtype subtype;
  bench_row_state state;
  char message[BENCH_MESSAGE];
  bench_file_result r;
} bench_file_row;

/* Text: the header (machine, build, signal), then rows as they finish. */
/* The "machine", "gpu" and "build" lines of a text report. */
void bench_text_machine(const bench_machine *m);
void bench_text_header(const bench_machine *m, const bench_settings *s);
void bench_text_memory_title(void);
void bench_text_memory_row(const bench_memory_row *row, const bench_settings *s);
void bench_text_file_title(const bench_files *files);
void bench_text_file_row(const bench_file_row *row, const bench_files *files,
                         const bench_settings *s);

/* JSON: everything at once. */
/* text as a JSON string literal (quotes and escapes) on stdout. */
void bench_json_string(const char *text);

/* The "machine" and "build" members of a report, on stdout. */
void bench_json_machine(const bench_machine *m);

/* files: the file set of the file rows (NULL when there are none). */
void bench_json(const bench_machine *m, const bench_settings *s, const bench_memory_row *mem,
                int n_mem, const bench_file_row *file, int n_file, const bench_files *files);

#endif /* CONVOY_BENCH_REPORT_H */
