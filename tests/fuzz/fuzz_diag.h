/*
 * fuzz_diag.h - catching what the program's code under test prints through
 * cli/common/diag.c (diag_set_stream), so that a fuzz entry point can check
 * it: nothing, or one line per error. Include it after defining
 * _POSIX_C_SOURCE 200809L (open_memstream).
 */
#ifndef CONVOY_FUZZ_DIAG_H
#define CONVOY_FUZZ_DIAG_H

#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fuzz_caught {
  FILE *f;
  char *text; /* what was printed, NUL-terminated after fuzz_catch_end */
  size_t len;
} fuzz_caught;

static inline void fuzz_catch_begin(fuzz_caught *c) {
  c->text = NULL;
  c->len = 0;
  c->f = open_memstream(&c->text, &c->len);
  if (!c->f) abort();
  diag_set_stream(c->f);
}

/* Stops catching; free(c->text) afterwards. */
static inline void fuzz_catch_end(fuzz_caught *c) {
  diag_set_stream(NULL);
  fclose(c->f);
}

/* The lines caught, each "convoy: ..."; -1 when the text is not such lines
 * (a NUL byte in it, no newline at its end, a line without the prefix). */
static inline int fuzz_caught_lines(const fuzz_caught *c) {
  if (c->len == 0) return 0;
  if (c->text[c->len - 1] != '\n' || strlen(c->text) != c->len) return -1;
  int n = 0;
  for (const char *line = c->text; line < c->text + c->len; n++) {
    if (strncmp(line, "convoy: ", 8) != 0) return -1;
    line = strchr(line, '\n') + 1;
  }
  return n;
}

#endif /* CONVOY_FUZZ_DIAG_H */
