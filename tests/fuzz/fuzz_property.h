/*
 * fuzz_property.h - how a fuzz entry point reports a property that does not
 * hold: one line on stderr, then abort(), which libFuzzer and fuzz_replay.c
 * report like a crash (with the input that caused it).
 */
#ifndef CONVOY_FUZZ_PROPERTY_H
#define CONVOY_FUZZ_PROPERTY_H

#include <stdio.h>
#include <stdlib.h>

/* what: the property; detail: more about this case, or NULL. */
static inline void fuzz_violated(const char *what, const char *detail) {
  fprintf(stderr, "property violated: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort();
}

static inline void fuzz_require(int ok, const char *what) {
  if (!ok) fuzz_violated(what, NULL);
}

#endif /* CONVOY_FUZZ_PROPERTY_H */
