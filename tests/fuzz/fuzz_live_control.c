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
 *     either end.
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

#include "fuzz_property.h"
#include "fuzz_tmp.h"
#include "live_control.h"

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

/* What one line (len bytes, no newline) means. */
static live_command model_line(const uint8_t *line, size_t len, char *arg) {
  if (len > LINE_MAX_BYTES) {
    snprintf(arg, ARG_SIZE, "%s", overlong);
    return LIVE_CMD_UNKNOWN;
  }
  const uint8_t *nul = memchr(line, '\0', len);
  if (nul) len = (size_t)(nul - line);
  size_t a = 0, b = len;
  while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t' || line[b - 1] == '\r')) b--;
  while (a < b && (line[a] == ' ' || line[a] == '\t')) a++;
  char s[ARG_SIZE];
  memcpy(s, line + a, b - a);
  s[b - a] = '\0';
  if (!s[0]) return LIVE_CMD_NONE;
  if (!strcmp(s, "reload")) return LIVE_CMD_RELOAD;
  if (!strcmp(s, "quit") || !strcmp(s, "stop")) return LIVE_CMD_STOP;
  if (!strncmp(s, "ir ", 3) || !strncmp(s, "ir\t", 3)) {
    const char *f = s + 3 + strspn(s + 3, " \t");
    if (*f) {
      snprintf(arg, ARG_SIZE, "%s", f);
      return LIVE_CMD_IR;
    }
  }
  snprintf(arg, ARG_SIZE, "%s", s);
  return LIVE_CMD_UNKNOWN;
}

/* The next command of the model from *pos on; LIVE_CMD_NONE at the end. */
static live_command model_next(const uint8_t *data, size_t size, size_t *pos, char *arg) {
  while (*pos < size) {
    const uint8_t *line = data + *pos;
    const uint8_t *nl = memchr(line, '\n', size - *pos);
    const size_t len = nl ? (size_t)(nl - line) : size - *pos;
    *pos += len + (nl ? 1 : 0);
    live_command c = model_line(line, len, arg);
    if (c != LIVE_CMD_NONE) return c;
  }
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
  for (int n = 0;; n++) {
    char got[ARG_SIZE] = "", want[ARG_SIZE] = "";
    const live_command c = live_control_wait(0, got, sizeof got);
    const live_command m = model_next(data, size, &pos, want);
    if (c != m) {
      char detail[96];
      snprintf(detail, sizeof detail, "command %d is %d, the line says %d", n, (int)c, (int)m);
      fuzz_violated("the commands are those of the lines", detail);
    }
    if (c == LIVE_CMD_NONE) break;
    if (c == LIVE_CMD_IR || c == LIVE_CMD_UNKNOWN) {
      if (strcmp(got, want) != 0) fuzz_violated("a command's argument is its line's", got);
      fuzz_require(!strchr(got, '\n'), "an argument is one line");
    }
    if (c == LIVE_CMD_IR)
      fuzz_require(got[0] && !strchr(" \t", got[0]) && !strchr(" \t\r", got[strlen(got) - 1]),
                   "a file has no blank at either end");
  }
  live_control_restore();
  if (dup2(saved_stdin, STDIN_FILENO) < 0) abort();
  return 0;
}
