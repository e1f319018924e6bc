/* engine_names.c - engine names for help texts and messages. */
#include "engine_names.h"

#include <stdio.h>
#include <string.h>

/* Appends s at *used, keeping the string terminated within size. */
static void append(char *buf, size_t size, size_t *used, const char *s) {
  if (size == 0 || *used >= size - 1) return;
  size_t n = strlen(s);
  if (n > size - 1 - *used) n = size - 1 - *used;
  memcpy(buf + *used, s, n);
  *used += n;
  buf[*used] = '\0';
}

/* The engines of kind, the choices first, each group in list order. */
static int collect(convoy_engine ids[64], engine_names_kind kind) {
  int n = 0;
  for (int exact = 0; exact <= 1; exact++) {
    if (exact && kind == ENGINE_NAMES_CHOICES) break;
    for (int32_t i = 0; i < convoy_engine_count() && n < 64; i++) {
      convoy_engine e = convoy_engine_at(i);
      if (convoy_engine_is_exact(e) == exact) ids[n++] = e;
    }
  }
  return n;
}

char *engine_names(char *buf, size_t size, engine_names_kind kind, const char *last_sep, int dflt) {
  convoy_engine ids[64];
  int n = collect(ids, kind);
  size_t used = 0;
  if (size) buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (i > 0) append(buf, size, &used, i == n - 1 ? last_sep : ", ");
    append(buf, size, &used, convoy_engine_name(ids[i]));
    if ((int)ids[i] == dflt) append(buf, size, &used, " (default)");
  }
  return buf;
}

char *engine_names_wrap(char *buf, size_t size, const char *text, int indent, int width) {
  size_t used = 0;
  int column = indent;
  if (size) buf[0] = '\0';
  while (*text) {
    size_t word = strcspn(text, " ");
    if (used > 0 && column + 1 + (int)word > width) {
      append(buf, size, &used, "\n");
      for (int i = 0; i < indent; i++) append(buf, size, &used, " ");
      column = indent;
    } else if (used > 0) {
      append(buf, size, &used, " ");
      column++;
    }
    char piece[128];
    snprintf(piece, sizeof piece, "%.*s", (int)(word < sizeof piece ? word : sizeof piece - 1),
             text);
    append(buf, size, &used, piece);
    column += (int)word;
    text += word;
    while (*text == ' ') text++;
  }
  return buf;
}

void engine_names_list(FILE *f, engine_names_kind kind) {
  convoy_engine ids[64];
  int n = collect(ids, kind);
  for (int i = 0; i < n; i++) fprintf(f, "%s\n", convoy_engine_name(ids[i]));
}
