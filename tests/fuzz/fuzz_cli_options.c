/*
 * fuzz_cli_options.c - fuzz entry point for the command lines of `convoy
 * filter` and `convoy live`: the option scanner (cli/common/argparse.c), the
 * option parsers of filter (cli/filter/filter_options.c with the capture
 * options of cli/capture/capture_args.c, capture_matched.c and
 * capture_xlate.c) and live (cli/live/live_options.c), the --skip/--count
 * spans ("1000", "0.5s") and the --window specs ("kaiser:beta=6").
 *
 * An input is a list of argument words: separated by NUL bytes when it holds
 * one, else by newlines (so that a value may hold a newline). The words are
 * parsed as `convoy filter WORDS` and as `convoy live WORDS` (the parsers
 * only: no file is opened), and each word on its own as a span, a window, a
 * comma-separated list and a number. What the parsers print is caught
 * (diag_set_stream). A property that does not hold aborts, which the fuzzer
 * reports like a crash:
 *   - a parser returns 0 and prints nothing, or returns the usage status 1
 *     and prints exactly one line, "convoy: CMD: ... (see 'convoy CMD
 *     --help')";
 *   - what a parser accepts is in its documented ranges (a design spec that
 *     parses, counts and levels in range, the options that need --matched
 *     only with it, one taps source, IN and OUT given);
 *   - a span that parses prints back ("%lld", "%.17gs") to the same span;
 *     a window that parses has its beta in 0 .. 50; a library message is
 *     one line.
 *
 * Short run: the ctest fuzz_cli_options_replay feeds corpus_cli_options/ and
 * mutations of it (fuzz_replay.c), in the normal and the ASan+UBSan builds.
 *
 * Long run (libFuzzer; clang), as for fuzz_capture.c:
 *   cmake --build build-fuzz --target fuzz_cli_options -j
 *   mkdir -p build-fuzz/corpus_cli_options
 *   build-fuzz/tests/fuzz/fuzz_cli_options build-fuzz/corpus_cli_options \
 *         tests/fuzz/corpus_cli_options -dict=tests/fuzz/cli_options.dict \
 *         -max_len=1024 -max_total_time=3600
 */
#define _POSIX_C_SOURCE 200809L

#include "argparse.h"
#include "capture.h"
#include "capture_args.h"
#include "capture_matched.h"
#include "commands.h"
#include "convoy_pulse.h"
#include "convoy_rt.h"
#include "convoy_taps.h"
#include "filter_options.h"
#include "fuzz_diag.h"
#include "fuzz_property.h"
#include "live_options.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 64

/* Exactly one line, "convoy: CMD: ... (see 'convoy CMD --help')". */
static void check_usage_line(const fuzz_caught *c, const char *cmd) {
  char head[32], tail[48];
  snprintf(head, sizeof head, "convoy: %s: ", cmd);
  snprintf(tail, sizeof tail, " (see 'convoy %s --help')\n", cmd);
  const size_t h = strlen(head), t = strlen(tail);
  if (c->len < h + t || strncmp(c->text, head, h) != 0 || strcmp(c->text + c->len - t, tail) != 0)
    fuzz_violated("a usage error is one line naming the command", c->text);
  if (memchr(c->text, '\n', c->len - 1) || strlen(c->text) != c->len)
    fuzz_violated("a usage error is one line", c->text);
}

static void check_outcome(int rc, const fuzz_caught *c, const char *cmd) {
  if (rc == CLI_EXIT_OK) {
    if (c->len != 0) fuzz_violated("a command line accepted prints nothing", c->text);
  } else if (rc == CLI_EXIT_USAGE) {
    check_usage_line(c, cmd);
  } else {
    fuzz_violated("an options parser returns 0 or the usage status", cmd);
  }
}

static void check_span(const capture_span *s) {
  if (!s->given) return;
  if (s->in_seconds)
    fuzz_require(isfinite(s->seconds) && s->seconds >= 0, "seconds are finite and >= 0");
  else
    fuzz_require(s->samples >= 0, "a sample count is >= 0");
}

static void check_filter(const filter_options *o) {
  if (o->help) return;
  fuzz_require(o->in_path && o->out_path && o->in_path[0] && o->out_path[0], "IN and OUT given");
  const capture_matched_args *m = &o->capture.matched;
  fuzz_require((o->taps != TAPS_NONE) != (m->template_path != NULL),
               "exactly one of the taps and a template");
  if (o->taps != TAPS_NONE) fuzz_require(o->taps_arg && o->taps_arg[0], "taps named");
  if (o->taps == TAPS_DESIGN) {
    convoy_design d;
    fuzz_require(convoy_design_parse_spec(o->taps_arg, &d, NULL, 0) == CONVOY_OK,
                 "a design accepted parses");
  }
  fuzz_require(isfinite(o->gain_db), "gain is finite");
  fuzz_require(isfinite(o->normalize_dbfs) && o->normalize_dbfs <= 0, "normalize at most 0 dBFS");
  fuzz_require(!(o->normalize && o->gain_db != 0.0), "--gain and --normalize apart");
  fuzz_require(o->threads == 0 || (o->threads >= 1 && o->threads <= 4096), "threads in range");
  fuzz_require(o->fft_size == 0 || (o->fft_size >= 2 && o->fft_size <= (int64_t)1 << 40),
               "fft size in range");
  fuzz_require(o->device >= -1 && o->device <= 1023, "device in range");
  fuzz_require(o->align == ALIGN_NONE || o->align == ALIGN_DELAY || o->align == ALIGN_SOX,
               "align known");
  fuzz_require(!(o->quiet && o->verbose), "-q wins over -v");
  if (o->out_type)
    fuzz_require(strcmp(o->out_path, "-") == 0 && o->out_type[0] && !strchr(o->out_type, '/'),
                 "--type only for stdout, a plain name");
  const capture_args *c = &o->capture;
  capture_datatype t;
  if (c->format)
    fuzz_require(capture_datatype_parse(c->format, &t, NULL, 0) == CONVOY_OK,
                 "--format kept as a SigMF name");
  if (c->out_format)
    fuzz_require(capture_datatype_parse(c->out_format, &t, NULL, 0) == CONVOY_OK,
                 "--out-format kept as a SigMF name");
  if (c->has_scale) fuzz_require(isfinite(c->scale) && c->scale != 0, "scale finite, nonzero");
  if (c->has_out_scale)
    fuzz_require(isfinite(c->out_scale) && c->out_scale != 0, "out scale finite, nonzero");
  if (c->has_offset) fuzz_require(isfinite(c->offset), "offset finite");
  if (c->has_out_offset) fuzz_require(isfinite(c->out_offset), "out offset finite");
  fuzz_require(c->rate == 0 || (isfinite(c->rate) && c->rate > 0), "rate above 0");
  check_span(&c->skip);
  check_span(&c->count);
  if (m->template_path) {
    fuzz_require(!o->tail && o->align == ALIGN_NONE, "--matched without --tail and --align");
    fuzz_require(m->template_path[0], "template named");
  } else {
    fuzz_require(!m->window_name && !m->normalize && !m->mode_given && !m->pulses && !m->pulse_len,
                 "the matched options need --matched");
  }
  fuzz_require(m->window >= CONVOY_WINDOW_NONE && m->window <= CONVOY_WINDOW_KAISER,
               "window known");
  fuzz_require(m->kaiser_beta >= 0 && m->kaiser_beta <= 50, "kaiser beta in 0 .. 50");
  fuzz_require(m->mode == CONVOY_PULSE_FULL || m->mode == CONVOY_PULSE_SAME ||
                   m->mode == CONVOY_PULSE_VALID,
               "mode known");
  fuzz_require(m->pulses >= 0 && m->pulses <= INT32_MAX && (!m->pulses || m->pulse_len),
               "--pulses in range, with --pulse-len");
  fuzz_require(m->pulse_len >= 0 && m->pulse_len <= (int64_t)1 << 26, "pulse length in range");
  const capture_xlate_args *x = &c->xlate;
  fuzz_require(x->decimation >= 0 && x->decimation <= CONVOY_MAX_DECIMATION, "decimation in range");
  fuzz_require(!x->has_shift || isfinite(x->shift_hz), "shift finite");
  fuzz_require(!(x->decimation || x->has_shift) || !m->pulse_len,
               "--decimate and --shift not with --pulse-len");
  const char *first = capture_args_first(c);
  fuzz_require((first != NULL) == capture_args_any(c) && (!first || first[0] == '-'),
               "the first capture option is named");
  /* The record of a matched filter's options is one line. */
  filter_options rec;
  char design[512];
  design[0] = '\0';
  capture_matched_recorded(o, m->pulse_len ? 3 : 0, &rec, design, sizeof design);
  if (m->template_path)
    fuzz_require(rec.taps == TAPS_DESIGN && rec.taps_arg == design &&
                     strncmp(design, "matched:template=", 17) == 0,
                 "a matched filter is recorded as a design");
}

static void check_live(const live_options *o) {
  if (o->help || o->list_devices) return;
  fuzz_require(o->source >= LIVE_SOURCE_IR && o->source <= LIVE_SOURCE_CONFIG && o->source_arg &&
                   o->source_arg[0],
               "one filter source named");
  if (o->source != LIVE_SOURCE_DESIGN)
    fuzz_require(strcmp(o->source_arg, "-") != 0, "no file from stdin");
  fuzz_require(o->rate == 0 || (o->rate >= 1000 && o->rate <= 1536000), "rate in range");
  fuzz_require(o->block >= 0 && o->block <= CONVOY_RT_MAX_BLOCK, "block in range");
  fuzz_require(o->channels >= 0 && o->channels <= CONVOY_RT_MAX_CHANNELS, "channels in range");
  fuzz_require(!convoy_engine_is_exact(o->engine), "an engine choice, not an exact engine");
  fuzz_require(o->gain_db >= -200 && o->gain_db <= 60, "gain in range");
  fuzz_require(o->duration >= 0 && o->duration <= 1e7, "duration in range");
  fuzz_require(!(o->quiet && o->verbose), "-q and -v apart");
  if (o->in_dev) fuzz_require(o->in_dev[0], "--in named");
  if (o->out_dev) fuzz_require(o->out_dev[0], "--out named");
}

static int count_item(const arg_parser *p, const char *element, void *ctx) {
  (void)p;
  fuzz_require(element[0] && !strchr(element, ','), "a list element is non-empty, without ','");
  ++*(int *)ctx;
  return 0;
}

/* One word as each small value parser sees it. */
static void one_word(const char *w) {
  fuzz_caught c;
  capture_span s;
  if (capture_span_parse(w, &s) == 0) {
    check_span(&s);
    char back[64];
    if (s.in_seconds)
      snprintf(back, sizeof back, "%.17gs", s.seconds);
    else
      snprintf(back, sizeof back, "%lld", (long long)s.samples);
    capture_span again;
    fuzz_require(capture_span_parse(back, &again) == 0 && again.in_seconds == s.in_seconds &&
                     again.samples == s.samples && again.seconds == s.seconds,
                 "a span prints back to itself");
    /* Frames at a rate, or none, as the capture pass resolves a span. */
    fuzz_catch_begin(&c);
    int64_t frames = -1;
    const double rate = strlen(w) % 2 ? 48000.0 : 0.0;
    int rc = capture_span_frames(&s, rate, "in.cf32", "--skip", &frames);
    fuzz_catch_end(&c);
    if (rc == CLI_EXIT_OK)
      fuzz_require(frames >= 0 && c.len == 0, "a span resolves to frames >= 0 silently");
    else
      fuzz_require((rc == CLI_EXIT_FAIL || (rc == CLI_EXIT_USAGE && rate == 0)) &&
                       fuzz_caught_lines(&c) == 1,
                   "a span that gives no frames says why in one line");
    free(c.text);
  }
  convoy_pulse_window win;
  double beta = -1;
  if (convoy_pulse_window_from_name(w, &win, &beta) == CONVOY_OK) {
    fuzz_require(win >= CONVOY_WINDOW_NONE && win <= CONVOY_WINDOW_KAISER && beta >= 0 &&
                     beta <= 50,
                 "a window accepted has a beta in 0 .. 50");
  } else {
    const char *e = convoy_last_error();
    fuzz_require(e[0] && !strchr(e, '\n'), "a window refused has a one-line message");
    fuzz_require(strstr(e, "0 .. 50") || strstr(e, "kaiser[:beta=B])"),
                 "a window refused says why, however long its name");
  }
  char *argv[] = {(char *)"fuzz", NULL};
  static const arg_option none[] = {ARG_TABLE_END};
  arg_parser p;
  arg_init(&p, 1, argv, none);
  p.current = "--list";
  fuzz_catch_begin(&c);
  int n = 0;
  double d = 0;
  int64_t i = 0;
  const int list = arg_list(&p, w, count_item, &n);
  const int num = arg_double(&p, w, &d);
  const int whole = arg_int64(&p, w, -5, 5, &i);
  fuzz_catch_end(&c);
  fuzz_require(list == 0 ? n > 0 : list == CLI_EXIT_USAGE, "a list has an element or is refused");
  fuzz_require(num != 0 || isfinite(d), "a number accepted is finite");
  fuzz_require(whole != 0 || (i >= -5 && i <= 5), "a whole number accepted is in range");
  fuzz_require(fuzz_caught_lines(&c) == (list != 0) + (num != 0) + (whole != 0),
               "each refusal is one line");
  free(c.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  const char sep = memchr(data, '\0', size) ? '\0' : '\n';
  char *words[MAX_WORDS + 1];
  int n = 1;
  words[0] = NULL; /* the command's name, set below */
  for (char *w = buf; n < MAX_WORDS && size > 0;) {
    words[n++] = w;
    char *end = memchr(w, sep, (size_t)(buf + size - w));
    if (!end) break;
    *end = '\0';
    w = end + 1;
    if (w == buf + size) break; /* a separator at the end ends the last word */
  }
  words[n] = NULL;

  fuzz_caught c;
  filter_options fo;
  words[0] = (char *)"filter";
  fuzz_catch_begin(&c);
  int rc = filter_options_parse(n, words, &fo);
  fuzz_catch_end(&c);
  check_outcome(rc, &c, "filter");
  if (rc == CLI_EXIT_OK) check_filter(&fo);
  free(c.text);

  live_options lo;
  words[0] = (char *)"live";
  fuzz_catch_begin(&c);
  rc = live_options_parse(n, words, &lo);
  fuzz_catch_end(&c);
  check_outcome(rc, &c, "live");
  if (rc == CLI_EXIT_OK) check_live(&lo);
  free(c.text);

  for (int k = 1; k < n; k++) one_word(words[k]);
  free(buf);
  return 0;
}
