/*
 * fuzz_live_control.c - fuzz entry point for the stdin commands of a running
 * `convoy live` (cli/live/live_control.c): "reload", "quit" / "stop", "ir
 * FILE", anything else an unknown command.
 *
 * Every input is what stdin holds: it is written to a file that becomes
 * descriptor 0, live_control_install() starts reading it, and
 * live_control_wait() is called until it has nothing more. The commands it
 * returns are compared with what the input's lines mean, worked out here
 * line by line, so the reader's buffering (lines split across reads, lines
 * longer than its buffer, a last line without newline, NUL bytes) is checked
 * against a model that has none. A property that does not hold aborts, which
 * the fuzzer reports like a crash:
 *   - the commands are those of the lines, in order: blank lines give none,
 *     a line of 4095 bytes or more (newline not counted) gives one unknown
 *     command "(a line longer than 4095 bytes)", a line holding a NUL byte
 *     ends there;
 *   - a command's argument is one line; a file of "ir FILE" has no blank at
 *     either end; an unknown command is its line as given (blanks inside
 *     kept), a wrong argument says what is wrong as the model does;
 *   - "gain DB" gives the number (-200..60) and "mute N" / "unmute N" the
 *     output (1..1024; none: every output) the line says.
 *
 * A signal that reaches the reader (the fuzzer being stopped with SIGINT
 * or SIGTERM) is passed on to the fuzzer's own handlers, not judged.
 *
 * Short run: the ctest fuzz_live_control_replay feeds corpus_live_control/
 * and mutations of it (fuzz_replay.c), in the normal and the ASan+UBSan
 * builds.
 *
 * Long run (libFuzzer; clang), as for fuzz_capture.c:
 *   cmake --build build-fuzz --target fuzz_live_control -j
 *   mkdir -p build-fuzz/corpus_live_control
 *   build-fuzz/tests/fuzz/fuzz_live_control build-fuzz/corpus_live_control \
 *         tests/fuzz/corpus_live_control -dict=tests/fuzz/live_control.dict \
 *         -max_len=16384 -max_total_time=3600
 */
#define _POSIX_C_SOURCE 200809L

#include "argparse.h" /* parse_double, parse_int64, as the parser */
#include "fuzz_property.h"
#include "fuzz_tmp.h"
#include "live_control.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* live_control.c's line buffer holds 4095 bytes and the newline added at
 * the end of input: a line of 4095 bytes or more is over-long. */
#define LINE_MAX_BYTES 4094
#define ARG_SIZE 4096

static const char overlong[] = "(a line longer than 4095 bytes)";

/* A command word with a wrong argument. */
static live_command model_bad(live_request *m, const char *what) {
  snprintf(m->arg, sizeof m->arg, "%s", what);
  return m->cmd = LIVE_CMD_BAD;
}

/* What one line (len bytes, no newline) means, in m. */
static live_command model_line(const uint8_t *line, size_t len, live_request *m) {
  memset(m, 0, sizeof *m);
  if (len > LINE_MAX_BYTES) {
    snprintf(m->arg, sizeof m->arg, "%s", overlong);
    return m->cmd = LIVE_CMD_UNKNOWN;
  }
  const uint8_t *nul = memchr(line, '\0', len);
  if (nul) len = (size_t)(nul - line);
  size_t a = 0, b = len;
  while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t' || line[b - 1] == '\r')) b--;
  while (a < b && (line[a] == ' ' || line[a] == '\t')) a++;
  char s[ARG_SIZE];
  memcpy(s, line + a, b - a);
  s[b - a] = '\0';
  if (!s[0]) return m->cmd = LIVE_CMD_NONE;
  /* The word, then the rest after its blanks. */
  const size_t w = strcspn(s, " \t");
  const char *rest = s + w + strspn(s + w, " \t");
  char word[16] = "", why[256]; /* no command word is longer */
  if (w < sizeof word) memcpy(word, s, w), word[w] = '\0';
  const int bare = !rest[0];
  static const struct {
    const char *word;
    live_command cmd;
  } bare_words[] = {{"reload", LIVE_CMD_RELOAD},
                    {"quit", LIVE_CMD_STOP},
                    {"stop", LIVE_CMD_STOP},
                    {"stats", LIVE_CMD_STATS}};
  for (size_t i = 0; i < sizeof bare_words / sizeof bare_words[0]; i++)
    if (!strcmp(word, bare_words[i].word)) {
      if (bare) return m->cmd = bare_words[i].cmd;
      snprintf(why, sizeof why, "%s: takes no argument", word);
      return model_bad(m, why);
    }
  if (!strcmp(word, "ir")) {
    if (bare) return model_bad(m, "ir: give the impulse response's file");
    snprintf(m->arg, sizeof m->arg, "%s", rest);
    return m->cmd = LIVE_CMD_IR;
  }
  if (!strcmp(word, "gain")) {
    if (bare) return model_bad(m, "gain: give the gain in dB, e.g. 'gain -6'");
    if (parse_double(rest, &m->gain_db) != 0) {
      snprintf(why, sizeof why, "gain: '%.100s' is not a number of dB", rest);
      return model_bad(m, why);
    }
    if (!(m->gain_db >= -200 && m->gain_db <= 60)) {
      snprintf(why, sizeof why, "gain: %.100s dB is outside -200..60", rest);
      return model_bad(m, why);
    }
    return m->cmd = LIVE_CMD_GAIN;
  }
  if (!strcmp(word, "mute") || !strcmp(word, "unmute")) {
    const live_command c = word[0] == 'm' ? LIVE_CMD_MUTE : LIVE_CMD_UNMUTE;
    int64_t n = 0;
    if (bare) return m->cmd = c;
    if (parse_int64(rest, &n) != 0 || n < 1 || n > 1024) {
      snprintf(why, sizeof why, "%s: '%.100s' is not an output number (1, 2, ...)", word, rest);
      return model_bad(m, why);
    }
    m->output = (int32_t)n;
    return m->cmd = c;
  }
  snprintf(m->arg, sizeof m->arg, "%s", s);
  return m->cmd = LIVE_CMD_UNKNOWN;
}

/* The next command of the model from *pos on; LIVE_CMD_NONE at the end. */
static live_command model_next(const uint8_t *data, size_t size, size_t *pos, live_request *m) {
  while (*pos < size) {
    const uint8_t *line = data + *pos;
    const uint8_t *nl = memchr(line, '\n', size - *pos);
    const size_t len = nl ? (size_t)(nl - line) : size - *pos;
    *pos += len + (nl ? 1 : 0);
    live_command c = model_line(line, len, m);
    if (c != LIVE_CMD_NONE) return c;
  }
  memset(m, 0, sizeof *m);
  return LIVE_CMD_NONE;
}

static int stdin_file = -1, saved_stdin = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (stdin_file < 0) {
    char path[1024];
    fuzz_tmp_write(path, sizeof path, "stdin", "", 0);
    stdin_file = open(path, O_RDWR | O_CLOEXEC);
    unlink(path);
    saved_stdin = dup(STDIN_FILENO);
    if (stdin_file < 0 || saved_stdin < 0) abort();
  }
  if (ftruncate(stdin_file, 0) != 0 ||
      (size && pwrite(stdin_file, data, size, 0) != (ssize_t)size) ||
      lseek(stdin_file, 0, SEEK_SET) != 0 || dup2(stdin_file, STDIN_FILENO) < 0)
    abort();
  live_control_install();
  size_t pos = 0;
  static live_request got, want; /* 4 KiB each: off the stack */
  for (int n = 0;; n++) {
    const live_command c = live_control_wait(0, &got);
    if (c != LIVE_CMD_NONE && got.from == LIVE_FROM_SIGNAL) {
      /* No input makes a signal: the fuzzer itself is being stopped
       * (SIGINT, SIGTERM), which reached live_control's handlers. Hand it
       * to the fuzzer's. */
      live_control_restore();
      if (dup2(saved_stdin, STDIN_FILENO) < 0) abort();
      raise(c == LIVE_CMD_STOP ? SIGINT : SIGHUP);
      return 0;
    }
    const live_command m = model_next(data, size, &pos, &want);
    if (c != m || got.cmd != c) {
      char detail[96];
      snprintf(detail, sizeof detail, "command %d is %d, the line says %d", n, (int)c, (int)m);
      fuzz_violated("the commands are those of the lines", detail);
    }
    if (c == LIVE_CMD_NONE) break;
    fuzz_require(got.from == LIVE_FROM_STDIN, "a command line is from stdin");
    if (c == LIVE_CMD_IR || c == LIVE_CMD_UNKNOWN || c == LIVE_CMD_BAD) {
      if (strcmp(got.arg, want.arg) != 0)
        fuzz_violated("a command's argument is its line's", got.arg);
      fuzz_require(!strchr(got.arg, '\n'), "an argument is one line");
    }
    if (c == LIVE_CMD_IR)
      fuzz_require(got.arg[0] && !strchr(" \t", got.arg[0]) &&
                       !strchr(" \t\r", got.arg[strlen(got.arg) - 1]),
                   "a file has no blank at either end");
    if (c == LIVE_CMD_GAIN)
      fuzz_require(got.gain_db == want.gain_db, "the gain is the line's number");
    if (c == LIVE_CMD_MUTE || c == LIVE_CMD_UNMUTE)
      fuzz_require(got.output == want.output, "the output is the line's number");
  }
  live_control_restore();
  if (dup2(saved_stdin, STDIN_FILENO) < 0) abort();
  return 0;
}
