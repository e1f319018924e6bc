/*
 * engine_names.h - engine names for help texts and messages, read from the
 * library's list (convoy_engine_count / convoy_engine_at), so that the
 * program names no engine itself.
 */
#ifndef CONVOY_CLI_ENGINE_NAMES_H
#define CONVOY_CLI_ENGINE_NAMES_H

#include "convoy.h"

#include <stddef.h>
#include <stdio.h>

typedef enum engine_names_kind {
  ENGINE_NAMES_ALL,    /* the choices (auto, cpu, gpu), then every exact engine */
  ENGINE_NAMES_CHOICES /* the choices only */
} engine_names_kind;

/* Writes the names, in list order within each group, separated by ", "
 * except for last_sep before the last one (", " or " or "); the name of
 * dflt (an id, or -1 for none) is followed by " (default)". Truncates to
 * size; returns buf. */
char *engine_names(char *buf, size_t size, engine_names_kind kind, const char *last_sep, int dflt);

/* Word-wraps text for a help line whose text starts at column indent:
 * breaks at spaces before column width, each new line indented by indent
 * spaces. Truncates to size; returns buf. */
char *engine_names_wrap(char *buf, size_t size, const char *text, int indent, int width);

/* Prints the names one per line, in engine_names()'s order: the listing of
 * `convoy help --list-engines[=choices]`, which the shell completion reads. */
void engine_names_list(FILE *f, engine_names_kind kind);

#endif /* CONVOY_CLI_ENGINE_NAMES_H */
